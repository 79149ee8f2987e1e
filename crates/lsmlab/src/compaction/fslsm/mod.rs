//! The FSLSM-Tree layout policy (seed 003, docs/fslsm.md): leveled compaction whose
//! limits stretch with the read ratio, plus float-up of hot tables to level 0.
//!
//! - The read ratio η is measured over the last `read_ratio_window` operations.
//! - Each table's frequency f counts the last `frequency_window` events naming it.
//! - A get that finds its key in a table of level i > 0 asks for a float-up of that table when
//!   `f ≥ ⌊max(min f of level i−1, 1) · γ / η⌋`. The `max(…, 1)` is this engine's decision: a
//!   table whose creation left the window would otherwise make the threshold 0 and float any
//!   table hit once, which rewrites far more than it saves.
//! - Stretch: level i's limit is `base[i] + ⌊η · (L − i) · inc[i]⌋` (units in
//!   [`FslsmOptions::stretch_increments`]).
//!
//! The policy owns the float-up end to end through the layout seam's job hooks: it picks it,
//! says when it may start beside the running jobs (`may_start`: the exclusion the safety
//! argument of `float_up.rs` needs), runs it (`run_job`, [`float_up::run_float_up`]), places its
//! result (`apply_result`: level-0 tables and those left in the floated table's level) and
//! counts it (`record_job`). The engine schedules and installs it like any compaction, in the
//! background, and a float-up never changes an answer.

mod float_up;
mod read_ratio;
mod undo;

use super::frequency::Frequency;
use super::{
    add_outputs, leveled, CompactionKind, CompactionOutcome, CompactionParams, CompactionSpec,
    LayoutPolicy, LayoutStatus, Level0Triggers, LevelInputs, LeveledPolicy, Requested, RunningJobs,
};
use crate::error::Result;
use crate::options::{CompactionVictims, FloatTarget, FslsmOptions, Options};
use crate::stats::{HistogramKind, Statistics, Ticker};
use crate::version::{HitLocation, Version, VersionEdit};
use parking_lot::Mutex;
use read_ratio::ReadRatio;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use undo::UndoTracker;

/// The kind of FSLSM's own job.
pub const FLOAT_UP: CompactionKind = CompactionKind::Policy("float-up");

/// Float-ups waiting for a compaction thread; more are not queued (the hottest tables ask
/// again on their next hit).
const MAX_PENDING: usize = 16;

/// The FSLSM-Tree policy.
pub struct FslsmPolicy {
    opts: FslsmOptions,
    num_levels: usize,
    ratio: ReadRatio,
    freq: Mutex<Frequency>,
    /// Tables asked to float: (level, table number), oldest request first.
    pending: Mutex<Vec<(usize, u64)>>,
    requested: AtomicU64,
    skipped: AtomicU64,
    /// Level-0 tables written by float-ups (a table leaves when a job takes it out of level 0:
    /// it never returns there), float-ups undone by compaction and the key ranges cooling down.
    undo: Mutex<UndoTracker>,
}

impl FslsmPolicy {
    /// A policy with parameters `opts` for a tree of `num_levels` levels.
    pub fn new(opts: &FslsmOptions, num_levels: usize) -> FslsmPolicy {
        FslsmPolicy {
            ratio: ReadRatio::new(opts.read_ratio_window),
            freq: Mutex::new(Frequency::new(opts.frequency_window)),
            opts: opts.clone(),
            num_levels,
            pending: Mutex::new(Vec::new()),
            requested: AtomicU64::new(0),
            skipped: AtomicU64::new(0),
            undo: Mutex::new(UndoTracker::new(opts.read_ratio_window as u64)),
        }
    }

    /// The stretch of `level` now, in the level's units (files for level 0, tables for the
    /// others): `⌊η · (L − i) · inc[i]⌋`.
    pub fn stretch(&self, level: usize) -> u64 {
        let inc = self
            .opts
            .stretch_increments
            .get(level)
            .copied()
            .unwrap_or(0);
        let span = self.num_levels.saturating_sub(level) as f64;
        (self.ratio.ratio() * span * inc as f64).floor() as u64
    }

    /// The corrected cost model (docs/fslsm.md): moving the table of level `i` to level 0 pays
    /// when `3·f·i > h + 1 + Σ c_l`, with h = T_W / T_R and c_l the tables of levels 0..i−1
    /// overlapping it.
    fn float_pays(&self, f: u64, level: usize, overlaps: usize) -> bool {
        let h = self.opts.device_write_micros / self.opts.device_read_micros;
        3.0 * f as f64 * level as f64 > h + 1.0 + overlaps as f64
    }

    /// The float-up of the oldest pending request that is still possible, dropping those that
    /// are not.
    fn pick_float_up(&self, v: &Version) -> Option<CompactionSpec> {
        let mut pending = self.pending.lock();
        while let Some(&(level, number)) = pending.first() {
            let table = v
                .levels
                .get(level)
                .and_then(|files| files.iter().find(|f| f.number == number));
            let Some(table) = table.filter(|t| !t.being_compacted.load(Ordering::Relaxed)) else {
                // Floated, compacted or moved since the request (a later hit asks again), or
                // being compacted now.
                pending.remove(0);
                continue;
            };
            let crossed: usize = (1..level)
                .map(|l| {
                    v.overlapping(l, Some(table.smallest_user()), Some(table.largest_user()))
                        .len()
                })
                .sum();
            if crossed > self.opts.max_float_overlap_files {
                pending.remove(0);
                self.skipped.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            // The level-0 tables the floated one overlaps are merged with it and leave level 0.
            // One of them busy (a compaction of level 0 runs): the request waits.
            let level0 = v.overlapping(0, Some(table.smallest_user()), Some(table.largest_user()));
            if level0
                .iter()
                .any(|f| f.being_compacted.load(Ordering::Relaxed))
            {
                return None;
            }
            let mut inputs = Vec::with_capacity(2);
            if !level0.is_empty() {
                inputs.push(LevelInputs {
                    level: 0,
                    files: level0,
                });
            }
            inputs.push(LevelInputs {
                level,
                files: vec![table.clone()],
            });
            // Left pending until the float-up is installed (the table leaves `level`), so a
            // spec the engine cannot start now is offered again.
            return Some(CompactionSpec {
                kind: FLOAT_UP,
                inputs,
                output_level: 0,
                trivial_move: false,
                reason: "float-up",
            });
        }
        None
    }
}

impl LayoutPolicy for FslsmPolicy {
    fn name(&self) -> &'static str {
        "fslsm"
    }

    fn max_bytes_for_level(&self, opts: &Options, level: usize) -> u64 {
        LeveledPolicy
            .max_bytes_for_level(opts, level)
            .saturating_add(
                self.stretch(level)
                    .saturating_mul(opts.target_file_size_base),
            )
    }

    fn max_files_for_level(&self, opts: &Options, level: usize) -> u64 {
        LeveledPolicy
            .max_files_for_level(opts, level)
            .saturating_add(self.stretch(level))
    }

    fn level0_triggers(&self, opts: &Options) -> Level0Triggers {
        let s = usize::try_from(self.stretch(0)).unwrap_or(usize::MAX);
        let base = Level0Triggers::from_options(opts);
        Level0Triggers {
            compaction: base.compaction.saturating_add(s),
            slowdown: base.slowdown.saturating_add(s),
            stop: base.stop.saturating_add(s),
        }
    }

    fn pick_compaction(
        &self,
        v: &Version,
        opts: &Options,
        requested: Requested,
    ) -> Option<CompactionSpec> {
        let float_ups = requested == Requested::Allowed;
        // A float-up writes one table; let it go first unless writers are already slowed
        // down by level 0.
        let l0_urgent = v.levels[0].len() >= self.level0_triggers(opts).slowdown;
        if float_ups && !l0_urgent {
            if let Some(spec) = self.pick_float_up(v) {
                return Some(spec);
            }
        }
        let picked = if opts.compaction_victims == CompactionVictims::LowestFrequency {
            let freq = self.freq.lock();
            leveled::pick(
                self,
                v,
                opts,
                leveled::IntraL0::Never,
                leveled::Reclaim::Never,
                Some(&freq),
            )
        } else {
            leveled::pick(
                self,
                v,
                opts,
                leveled::IntraL0::Never,
                leveled::Reclaim::Never,
                None,
            )
        };
        picked.or_else(|| float_ups.then(|| self.pick_float_up(v)).flatten())
    }

    fn level_scores(&self, v: &Version, opts: &Options) -> Vec<f64> {
        leveled::scores(self, v, opts)
    }

    fn on_read(&self) {
        self.ratio.record(true, 1);
    }

    fn on_writes(&self, keys: u64) {
        self.ratio.record(false, keys);
    }

    fn on_get_hit(&self, hit: HitLocation, v: &Version) -> bool {
        let eta = self.ratio.ratio();
        let mut freq = self.freq.lock();
        freq.event(hit.file);
        if hit.level == 0 || eta <= 0.0 || self.opts.float_target == FloatTarget::Off {
            return false;
        }
        let f = freq.of(hit.file);
        // The threshold is at least ⌊γ/η⌋ (min f counts as 1 at least): skip the scan of the
        // level above for tables that cannot reach it.
        let floor_threshold = (self.opts.gamma / eta).floor();
        if (f as f64) < floor_threshold {
            return false;
        }
        let min_above = v
            .levels
            .get(hit.level - 1)
            .and_then(|files| files.iter().map(|t| freq.of(t.number)).min())
            .unwrap_or(0)
            .max(1);
        drop(freq);
        let threshold = (min_above as f64 * self.opts.gamma / eta).floor();
        if (f as f64) < threshold {
            return false;
        }
        if self.opts.float_target == FloatTarget::CostModel {
            let Some(table) = v.levels[hit.level].iter().find(|t| t.number == hit.file) else {
                return false;
            };
            let overlaps: usize = (0..hit.level)
                .map(|l| {
                    v.overlapping(l, Some(table.smallest_user()), Some(table.largest_user()))
                        .len()
                })
                .sum();
            if !self.float_pays(f, hit.level, overlaps) {
                return false;
            }
        }
        // A range whose float-up a compaction undid lately cools down before it floats again.
        let Some(table) = v.levels[hit.level].iter().find(|t| t.number == hit.file) else {
            return false;
        };
        let now = self.ratio.operations();
        if self
            .undo
            .lock()
            .cooling(table.smallest_user(), table.largest_user(), now)
        {
            return false;
        }
        let mut pending = self.pending.lock();
        if pending.len() >= MAX_PENDING || pending.iter().any(|&(_, n)| n == hit.file) {
            return false;
        }
        pending.push((hit.level, hit.file));
        self.requested.fetch_add(1, Ordering::Relaxed);
        true
    }

    fn on_table_created(&self, _level: usize, number: u64) {
        self.freq.lock().event(number);
    }

    fn status(&self) -> LayoutStatus {
        LayoutStatus {
            read_ratio: Some(self.ratio.ratio()),
            read_ratio_window: Some(self.ratio.window()),
            float_ups_requested: self.requested.load(Ordering::Relaxed),
            float_ups_skipped: self.skipped.load(Ordering::Relaxed),
        }
    }

    /// The exclusion of the safety argument (`float_up.rs`, docs/fslsm.md): the levels a
    /// float-up crosses gain newer versions only from level 0, so no float-up starts while a
    /// job touches level 0 or another float-up runs, and no job touching level 0 starts while a
    /// float-up runs. A level-0 table marked `being_compacted` (also by a manual compaction)
    /// counts as a job touching level 0.
    fn may_start(&self, spec: &CompactionSpec, v: &Version, running: &RunningJobs) -> bool {
        let float_up_running = running.any_of(FLOAT_UP);
        if spec.kind == FLOAT_UP {
            let level0_busy = running.iter().any(|j| j.touches_level0)
                || v.levels[0]
                    .iter()
                    .any(|f| f.being_compacted.load(Ordering::Relaxed));
            return !float_up_running && !level0_busy;
        }
        !(float_up_running && spec.touches_level0())
    }

    fn run_job(&self, p: &mut CompactionParams<'_>) -> Option<Result<CompactionOutcome>> {
        (p.spec.kind == FLOAT_UP).then(|| float_up::run_float_up(p))
    }

    fn apply_result(
        &self,
        spec: &CompactionSpec,
        outcome: &CompactionOutcome,
        edit: &mut VersionEdit,
    ) {
        add_outputs(spec, outcome, edit);
        // Every job's level-0 inputs leave level 0: forgotten here, so that the record holds
        // at most the level-0 tables (and the outputs of an install that failed); one a
        // compaction takes down soon after its float-up undoes it.
        let now = self.ratio.operations();
        {
            let mut undo = self.undo.lock();
            for (level, f) in spec.inputs_with_level() {
                if level == 0 {
                    undo.left_level0(f, spec.kind == FLOAT_UP, now);
                }
            }
        }
        if spec.kind != FLOAT_UP {
            return;
        }
        // Versions a snapshot still needs stay in the floated table's level (its last input;
        // the level-0 tables it merged with come first).
        let stay_level = spec.inputs.last().map_or(spec.output_level, |i| i.level);
        for f in &outcome.stayed {
            edit.added.push((stay_level, f.clone()));
        }
        self.undo.lock().floated(outcome.outputs.iter(), now);
    }

    fn record_job(
        &self,
        spec: &CompactionSpec,
        outcome: &CompactionOutcome,
        micros: u64,
        s: &Statistics,
    ) -> bool {
        s.add(Ticker::FloatUpsUndone, self.undo.lock().take_undone());
        if spec.kind != FLOAT_UP {
            return false;
        }
        s.add(Ticker::FloatUps, 1);
        s.add(Ticker::FloatUpReadBytes, outcome.bytes_read);
        s.add(Ticker::FloatUpWriteBytes, outcome.bytes_written);
        s.add(Ticker::FloatUpKeysDropped, outcome.entries_dropped);
        s.record(HistogramKind::FloatUpTime, micros);
        true
    }

    fn summary(&self, st: &Statistics) -> Option<String> {
        const MB: f64 = 1_048_576.0;
        let status = self.status();
        let mut s = String::new();
        let _ = write!(
            s,
            "Float-ups: {} (read {:.1} MB, written {:.1} MB, {} versions dropped); asked {}, skipped {}; undone by compaction within {} operations: {}",
            st.ticker(Ticker::FloatUps),
            st.ticker(Ticker::FloatUpReadBytes) as f64 / MB,
            st.ticker(Ticker::FloatUpWriteBytes) as f64 / MB,
            st.ticker(Ticker::FloatUpKeysDropped),
            status.float_ups_requested,
            status.float_ups_skipped,
            self.opts.read_ratio_window,
            st.ticker(Ticker::FloatUpsUndone),
        );
        Some(s)
    }

    fn level0_from_jobs(&self, v: &Version) -> Option<usize> {
        // Counted, not pruned: `v` may be older than a float-up being installed now.
        let undo = self.undo.lock();
        Some(
            v.levels[0]
                .iter()
                .filter(|f| undo.is_floated(f.number))
                .count(),
        )
    }
}
