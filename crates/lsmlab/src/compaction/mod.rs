//! The layout seam: which tables to compact, where they go, and how big each level may grow.
//!
//! The engine tells a [`LayoutPolicy`] of every operation, every get that hit a table and every
//! table created, and asks it for work; leveled compaction ([`LeveledPolicy`]) is one policy,
//! the FSLSM-Tree ([`FslsmPolicy`], the folder `fslsm/` with its float-up job) another,
//! universal compaction ([`UniversalPolicy`], the folder `universal/`) a third, with no fork of
//! the engine. A policy may have jobs of its own ([`CompactionKind::Policy`]): it
//! decides when they may start beside the running ones ([`LayoutPolicy::may_start`]), runs them
//! ([`LayoutPolicy::run_job`]), says what their result adds to the tree
//! ([`LayoutPolicy::apply_result`]) and counts them ([`LayoutPolicy::record_job`]); the engine
//! only schedules, installs and logs.

mod blob_gc;
mod blobs;
pub mod dynamic_levels;
mod frequency;
mod fslsm;
mod job;
mod leveled;
pub(crate) mod obsolete;
mod output_syncs;
#[cfg(test)]
mod picker_tests;
mod running;
mod shadow;
mod universal;

pub use blob_gc::pick_blob_gc;
pub use blobs::BlobOutcome;
pub use dynamic_levels::LevelTargets;
pub use fslsm::FslsmPolicy;
pub use job::{run_compaction, CompactionOutcome, CompactionParams};
pub use leveled::{FrequencyLeveledPolicy, LeveledPolicy};
pub use running::{JobId, RunningJob, RunningJobs};
pub(crate) use shadow::Shadowing;
pub use universal::UniversalPolicy;

use crate::error::Result;
use crate::options::{CompactionVictims, Layout, Options};
use crate::stats::Statistics;
use crate::version::{FileMeta, HitLocation, Version, VersionEdit};
use std::sync::Arc;

/// Why a compaction runs; each kind is counted apart in statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactionKind {
    /// A level is over its limit (level 0 by file count, the others by bytes).
    Size,
    /// A job of the layout policy's own, by name (FSLSM's `float-up`): the policy runs it
    /// ([`LayoutPolicy::run_job`]) and counts it ([`LayoutPolicy::record_job`]).
    Policy(&'static str),
    /// Blob garbage collection forces a rewrite of the tables referencing old blob files.
    BlobGc,
    /// `Db::compact_range`.
    Manual,
}

impl CompactionKind {
    /// Lower-case name for logs and statistics.
    pub fn name(self) -> &'static str {
        match self {
            CompactionKind::Size => "size",
            CompactionKind::Policy(name) => name,
            CompactionKind::BlobGc => "blob-gc",
            CompactionKind::Manual => "manual",
        }
    }

    /// A job the layout policy asked for on its own (FSLSM's float-up), not one that writes
    /// made due.
    pub fn is_policy(self) -> bool {
        matches!(self, CompactionKind::Policy(_))
    }
}

/// The input tables of one level.
#[derive(Clone)]
pub struct LevelInputs {
    /// The level they are in.
    pub level: usize,
    /// The tables (for level ≥ 1 in key order).
    pub files: Vec<Arc<FileMeta>>,
}

/// A compaction to run: input tables from any number of levels, written to `output_level`,
/// which may lie above the inputs (a float-up) or below them.
#[derive(Clone)]
pub struct CompactionSpec {
    /// Why it runs.
    pub kind: CompactionKind,
    /// The input tables, shallowest level first; the last entry may be `output_level`'s own
    /// tables that the output replaces.
    pub inputs: Vec<LevelInputs>,
    /// The level written.
    pub output_level: usize,
    /// Move the input tables to `output_level` without rewriting them.
    pub trivial_move: bool,
    /// Why it was picked, in words (for logs).
    pub reason: &'static str,
}

impl CompactionSpec {
    /// The classic shape: tables of `level` merged with the overlapping tables of
    /// `output_level`.
    pub fn two_levels(
        kind: CompactionKind,
        level: usize,
        output_level: usize,
        upper: Vec<Arc<FileMeta>>,
        lower: Vec<Arc<FileMeta>>,
        reason: &'static str,
    ) -> CompactionSpec {
        let mut inputs = vec![LevelInputs {
            level,
            files: upper,
        }];
        if level != output_level {
            inputs.push(LevelInputs {
                level: output_level,
                files: lower,
            });
        }
        CompactionSpec {
            kind,
            inputs,
            output_level,
            trivial_move: false,
            reason,
        }
    }

    /// The shallowest input level.
    pub fn start_level(&self) -> usize {
        self.inputs.first().map_or(self.output_level, |i| i.level)
    }

    /// Every input table.
    pub fn all_inputs(&self) -> impl Iterator<Item = &Arc<FileMeta>> {
        self.inputs.iter().flat_map(|i| i.files.iter())
    }

    /// Every input table with its level.
    pub fn inputs_with_level(&self) -> impl Iterator<Item = (usize, &Arc<FileMeta>)> {
        self.inputs
            .iter()
            .flat_map(|i| i.files.iter().map(move |f| (i.level, f)))
    }

    /// True if any input or the output is in level 0.
    pub fn touches_level0(&self) -> bool {
        self.output_level == 0
            || self
                .inputs
                .iter()
                .any(|i| i.level == 0 && !i.files.is_empty())
    }
}

/// Level 0's file-count triggers, which a policy may move at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Level0Triggers {
    /// Files that start a compaction into level 1.
    pub compaction: usize,
    /// Files at which writes are slowed down.
    pub slowdown: usize,
    /// Files at which writes stop.
    pub stop: usize,
}

impl Level0Triggers {
    /// The static triggers of `opts`.
    pub fn from_options(opts: &Options) -> Level0Triggers {
        Level0Triggers {
            compaction: opts.level0_file_num_compaction_trigger,
            slowdown: opts.level0_slowdown_writes_trigger,
            stop: opts.level0_stop_writes_trigger,
        }
    }
}

/// What a policy reports of its adaptive state (for `lsmlab.stats` and the bench report).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LayoutStatus {
    /// Reads / operations over the policy's window; `None` for a policy that does not track it.
    pub read_ratio: Option<f64>,
    /// The operations `read_ratio` is measured over; `None` with it.
    pub read_ratio_window: Option<usize>,
    /// Float-ups the policy asked for (including those later skipped).
    pub float_ups_requested: u64,
    /// Float-ups skipped because they would have read too many tables of the levels crossed.
    pub float_ups_skipped: u64,
}

/// A policy's name, state and current limits, as `Db::layout` reports them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LayoutReport {
    /// The policy's name (`leveled`, `fslsm`, `universal`).
    pub policy: &'static str,
    /// The preset the options amount to (`leveldb`, `wisckey`, `fslsm`), if any.
    pub preset: Option<&'static str>,
    /// The adaptive state.
    pub status: LayoutStatus,
    /// Level 0's triggers now.
    pub level0: Option<Level0Triggers>,
    /// Tables in level 0 now.
    pub level0_files: usize,
    /// Of those, the tables the policy's own jobs wrote (FSLSM: floated), counted since open;
    /// the others were flushed. `None` for a policy without such jobs.
    pub level0_from_jobs: Option<usize>,
    /// Target bytes of levels 1 to the one before the last, now.
    pub max_bytes: Vec<u64>,
}

/// What `policy` reports under `opts` now, for the tree `version`.
pub fn layout_report(policy: &dyn LayoutPolicy, version: &Version, opts: &Options) -> LayoutReport {
    let targets = policy.level_targets(version, opts);
    LayoutReport {
        policy: policy.name(),
        preset: opts.layout_preset(),
        status: policy.status(),
        level0: Some(policy.level0_triggers(opts)),
        level0_files: version.levels.first().map_or(0, Vec::len),
        level0_from_jobs: policy.level0_from_jobs(version),
        max_bytes: (1..opts.num_levels.saturating_sub(1))
            .map(|l| targets.max_bytes.get(l).copied().unwrap_or(0))
            .collect(),
    }
}

/// Whether a pick may offer the jobs a policy asks for on its own, as FSLSM's float-ups: work
/// that no write made due and that reads keep asking for. A caller that must end (the inline
/// work of a user call past its budget, a wait for an idle database) withholds them, since
/// another thread's reads can ask for more of them for as long as they read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Requested {
    /// Offer them, in the policy's own order among the compactions.
    Allowed,
    /// Offer only the compactions that writes made due.
    Withheld,
}

/// Decides the shape of the tree. Every hook has a do-nothing default, so a static policy
/// implements only the limits and the picker.
pub trait LayoutPolicy: Send + Sync {
    /// Short name for statistics, e.g. `"leveled"`.
    fn name(&self) -> &'static str;
    /// Target size in bytes of `level` (≥ 1) now.
    fn max_bytes_for_level(&self, opts: &Options, level: usize) -> u64;
    /// The bytes each level holds when compaction keeps up, for sizing filters by level
    /// (Monkey's allocation counts a level at most at this size): the level targets. `None`
    /// where levels have no target (universal compaction's sorted runs).
    fn steady_level_bytes(&self, version: &Version, opts: &Options) -> Option<Vec<u64>> {
        Some(self.level_targets(version, opts).max_bytes)
    }

    /// Every level's target in `version`, and the level that level 0 compacts into. By
    /// default the static targets of [`LayoutPolicy::max_bytes_for_level`] with base level 1;
    /// a policy whose targets depend on the tree (dynamic level sizing) overrides it.
    fn level_targets(&self, version: &Version, opts: &Options) -> LevelTargets {
        LevelTargets {
            base_level: 1,
            max_bytes: (0..version.levels.len())
                .map(|l| {
                    if l == 0 {
                        0
                    } else {
                        self.max_bytes_for_level(opts, l)
                    }
                })
                .collect(),
        }
    }
    /// Limit of `level` (≥ 1) in tables now, when `max_files_for_level_base` counts limits in
    /// tables: `max_files_for_level_base · max_bytes_for_level_multiplier^(level − 1)`.
    fn max_files_for_level(&self, opts: &Options, level: usize) -> u64 {
        let mut files = opts.max_files_for_level_base as f64;
        for _ in 1..level {
            files *= opts.max_bytes_for_level_multiplier;
        }
        files.min(u64::MAX as f64) as u64
    }
    /// Level 0's triggers now; writers read them on every write, so keep this cheap.
    fn level0_triggers(&self, opts: &Options) -> Level0Triggers {
        Level0Triggers::from_options(opts)
    }
    /// The most urgent compaction, if any. Tables marked `being_compacted` must not be picked.
    /// With [`Requested::Withheld`], jobs the policy asked for on its own (FSLSM's float-ups)
    /// are not offered: only the work that writes made due.
    fn pick_compaction(
        &self,
        version: &Version,
        opts: &Options,
        requested: Requested,
    ) -> Option<CompactionSpec>;
    /// The compaction score of each level (≥ 1 means over its limit), for `rocksdb.stats`.
    fn level_scores(&self, version: &Version, opts: &Options) -> Vec<f64>;
    /// Called for every read operation (a get, answered by a memtable or not, or a new
    /// iterator).
    fn on_read(&self) {}
    /// Called for every write: `keys` records (puts and deletes) in one batch.
    fn on_writes(&self, _keys: u64) {}
    /// Called after a get found its key in a table, with the version it read. Returns true
    /// when the policy wants background work now (the engine wakes a compaction thread).
    fn on_get_hit(&self, _hit: HitLocation, _version: &Version) -> bool {
        false
    }
    /// Called for every table a flush or a job installed, with its level.
    fn on_table_created(&self, _level: usize, _number: u64) {}
    /// The adaptive state, for statistics.
    fn status(&self) -> LayoutStatus {
        LayoutStatus::default()
    }
    /// May `spec` (this policy's pick, or blob GC's) start now, beside the jobs `running`, on
    /// the tree `version`? Asked under the state lock before every job the engine starts on its
    /// own; a job refused now is offered again at the next pick. A policy whose own jobs must
    /// not overlap some compactions expresses the exclusion here, on both sides.
    fn may_start(
        &self,
        _spec: &CompactionSpec,
        _version: &Version,
        _running: &RunningJobs,
    ) -> bool {
        true
    }
    /// Runs `p.spec` if it is a job of this policy's own kind ([`CompactionKind::Policy`]);
    /// `None` for a compaction, which the engine runs as one.
    fn run_job(&self, _p: &mut CompactionParams<'_>) -> Option<Result<CompactionOutcome>> {
        None
    }
    /// Adds to `edit` (which already deletes every input) the tables `outcome` wrote, each in
    /// its level. By default every output goes to the spec's output level.
    fn apply_result(
        &self,
        spec: &CompactionSpec,
        outcome: &CompactionOutcome,
        edit: &mut VersionEdit,
    ) {
        add_outputs(spec, outcome, edit);
    }
    /// Counts a job installed after `micros` microseconds in `stats`, if it is one of this
    /// policy's own; returns false for a compaction, which the engine counts as one.
    fn record_job(
        &self,
        _spec: &CompactionSpec,
        _outcome: &CompactionOutcome,
        _micros: u64,
        _stats: &Statistics,
    ) -> bool {
        false
    }
    /// Lines of the policy's own for `rocksdb.stats` (FSLSM: its float-ups), if any.
    fn summary(&self, _stats: &Statistics) -> Option<String> {
        None
    }
    /// How many tables of level 0 in `version` this policy's own jobs wrote (FSLSM: floated
    /// tables, as against flushed ones), counted since open; `None` for a policy without jobs
    /// writing level 0.
    fn level0_from_jobs(&self, _version: &Version) -> Option<usize> {
        None
    }
}

/// The default install of a job's result: every output table in the spec's output level.
pub fn add_outputs(spec: &CompactionSpec, outcome: &CompactionOutcome, edit: &mut VersionEdit) {
    for f in &outcome.outputs {
        edit.added.push((spec.output_level, f.clone()));
    }
}

/// The policy `opts.layout` names.
pub fn policy_for(opts: &Options) -> Box<dyn LayoutPolicy> {
    match (opts.layout, opts.compaction_victims) {
        (Layout::Leveled, CompactionVictims::MinOverlap) => Box::new(LeveledPolicy),
        (Layout::Leveled, CompactionVictims::LowestFrequency) => {
            Box::new(FrequencyLeveledPolicy::new(opts.fslsm.frequency_window))
        }
        (Layout::Fslsm, _) => Box::new(FslsmPolicy::new(&opts.fslsm, opts.num_levels)),
        (Layout::Universal, _) => Box::new(UniversalPolicy::new(&opts.universal)),
    }
}
