//! Refusals: each value checked against what it allows and the values against each other,
//! the engine's own range checks reported as the flag that set the option, and what an engine
//! cannot honour reported as the flag that asked for it.

use super::table::{BenchFlags, BENCHMARKS, REFUSED_BENCHMARKS, SUPPORTED};
use crate::engine::support::{self, Refusal};
use crate::engine::{EngineKind, EngineSettings};
use crate::error::{CliError, CliResult};
use crate::suggest::closest;
use lsmlab::options::{LAYOUT_PRESETS, SHAPES};

impl BenchFlags {
    /// Checks every value and the values against each other.
    pub fn validate(&self) -> CliResult<()> {
        self.engine_kind()?;
        self.benchmark_list()?;
        self.compression()?;
        check_layout(self)?;
        let check = |ok: bool, name: &str, value: String, allowed: &str| {
            if ok {
                Ok(())
            } else {
                Err(CliError::new(format!(
                    "--{name}: invalid value {value}: {allowed}"
                )))
            }
        };
        check(
            self.num >= 1,
            "num",
            self.num.to_string(),
            "must be at least 1",
        )?;
        check(
            self.key_size >= 1 && self.key_size <= 1 << 20,
            "key_size",
            self.key_size.to_string(),
            "must be in 1..=1048576",
        )?;
        check(
            self.value_size <= 64 << 20,
            "value_size",
            self.value_size.to_string(),
            "must be at most 67108864",
        )?;
        check(
            self.compression_ratio > 0.0 && self.compression_ratio <= 1.0,
            "compression_ratio",
            self.compression_ratio.to_string(),
            "must be in (0, 1]",
        )?;
        check(
            (1..=1024).contains(&self.threads),
            "threads",
            self.threads.to_string(),
            "must be in 1..=1024",
        )?;
        check(
            self.readwritepercent <= 100,
            "readwritepercent",
            self.readwritepercent.to_string(),
            "must be in 0..=100",
        )?;
        check(
            self.bloom_bits <= 100.0,
            "bloom_bits",
            self.bloom_bits.to_string(),
            "must be at most 100 (negative or 0: no filter)",
        )?;
        check(
            self.batch_size >= 1,
            "batch_size",
            self.batch_size.to_string(),
            "must be at least 1",
        )?;
        self.blob_compression()?;
        check(
            self.compaction_style == 0 || self.compaction_style == 1,
            "compaction_style",
            self.compaction_style.to_string(),
            "allowed 0 (leveled), 1 (universal); FIFO (2) is not implemented",
        )?;
        check(
            self.compaction_style == 0 || self.layout.is_empty() || self.layout == "universal",
            "compaction_style",
            self.compaction_style.to_string(),
            &format!(
                "universal compaction cannot be combined with --layout={} (allowed with it: universal, or no --layout)",
                self.layout
            ),
        )?;
        check(
            !(self.bloom_allocation.trim() == "monkey"
                && self.bloom_bits <= 0.0
                && self.bloom_bits_per_level.trim().is_empty()),
            "bloom_allocation",
            "monkey".into(),
            &format!(
                "monkey spreads --bloom_bits' memory over the levels, and --bloom_bits is {} (no filter); give --bloom_bits=N (e.g. 10), or --bloom_allocation=uniform",
                self.bloom_bits
            ),
        )?;
        let per_level = self.bloom_bits_per_level()?.len();
        check(
            per_level <= self.num_levels,
            "bloom_bits_per_level",
            format!("{:?}", self.bloom_bits_per_level),
            &format!(
                "{per_level} entries for --num_levels={}; allowed at most one per level",
                self.num_levels
            ),
        )?;
        check(
            self.min_level_to_compress >= -1 && self.min_level_to_compress < self.num_levels as i32,
            "min_level_to_compress",
            self.min_level_to_compress.to_string(),
            "must be -1 (every level compressed) or a level below --num_levels",
        )?;
        check(
            !(self.sync && self.disable_wal),
            "sync",
            "true".into(),
            "cannot be combined with --disable_wal",
        )?;
        crate::engine::lsmlab::options(&self.settings()?)
            .validate()
            .map_err(engine_option_error)
    }

    /// Checks the flags `explicit` names (those the command line set) against the values they
    /// contradict: a `--universal_*` flag with leveled compaction, `--compaction_style=0` with
    /// `--layout=universal`. `name` spells a flag as the caller's command line does.
    pub fn validate_explicit(
        &self,
        explicit: &[String],
        name: &dyn Fn(&str) -> String,
    ) -> CliResult<()> {
        let universal = self.compaction_style == 1 || self.layout == "universal";
        if let Some(u) = explicit
            .iter()
            .find(|n| n.starts_with("universal_"))
            .filter(|_| !universal)
        {
            return Err(CliError::new(format!(
                "{}: applies to universal compaction only, and the compaction is leveled; give {}=1 (or {}=universal), or leave {} out",
                name(u),
                name("compaction_style"),
                name("layout"),
                name(u)
            )));
        }
        if self.compaction_style == 0
            && self.layout == "universal"
            && explicit.iter().any(|n| n == "compaction_style")
        {
            return Err(CliError::new(format!(
                "{}: 0 (leveled) contradicts {}=universal, which compacts universal; give {}=1, or leave it out",
                name("compaction_style"),
                name("layout"),
                name("compaction_style")
            )));
        }
        Ok(())
    }

    /// The benchmark names of `--benchmarks`, checked.
    pub fn benchmark_list(&self) -> CliResult<Vec<String>> {
        let mut out = Vec::new();
        for name in self.benchmarks.split(',').map(str::trim) {
            if name.is_empty() {
                continue;
            }
            if BENCHMARKS.contains(&name) {
                out.push(name.to_string());
            } else if REFUSED_BENCHMARKS.contains(&name) {
                return Err(CliError::new(format!(
                    "--benchmarks: {name:?} is a db_bench benchmark lsmlab does not support yet; supported: {}",
                    BENCHMARKS.join(",")
                )));
            } else {
                let hint = closest(name, BENCHMARKS.iter().copied())
                    .map(|c| format!("; did you mean {c}?"))
                    .unwrap_or_default();
                return Err(CliError::new(format!(
                    "--benchmarks: unknown benchmark {name:?}{hint}"
                )));
            }
        }
        Ok(out)
    }

    /// The first flag in `explicit` that engine `kind` cannot honour with its value in
    /// `settings` (these flags' settings), or `benchmarks` when a benchmark asks for what the
    /// engine cannot do.
    pub fn engine_refusal(
        &self,
        kind: EngineKind,
        settings: &EngineSettings,
        explicit: &[String],
    ) -> Result<(), Refusal> {
        support::check(kind, settings, explicit)?;
        let waits = self
            .benchmarks
            .split(',')
            .any(|b| b.trim() == "waitforcompaction");
        match support::cannot_wait_for_background_work(kind) {
            Some(why) if waits => Err(("benchmarks".into(), format!("waitforcompaction: {why}"))),
            _ => Ok(()),
        }
    }
}

/// Checks `--layout`, `--shape` and the `--fslsm_*` flags, which the engine checks only as
/// text it is handed (a preset or shape name) or not at all.
pub(super) fn check_layout(f: &BenchFlags) -> CliResult<()> {
    if !f.layout.is_empty() && !LAYOUT_PRESETS.contains(&f.layout.as_str()) {
        return Err(CliError::new(format!(
            "--layout: invalid value {:?}: allowed: {}",
            f.layout,
            LAYOUT_PRESETS.join(", ")
        )));
    }
    let fslsm = f.fslsm()?;
    if !f.shape.is_empty() && !SHAPES.contains(&f.shape.as_str()) {
        return Err(CliError::new(format!(
            "--shape: invalid value {:?}: allowed: {}",
            f.shape,
            SHAPES.join(", ")
        )));
    }
    f.compaction_victims()?;
    // Checked whatever the layout, so that a bad value is never silently carried along.
    fslsm.validate().map_err(engine_option_error)
}

/// The engine's refusal of an option as the error of the flag that set it: the engine names
/// its options as db_bench names the flags. Any other refusal is passed on whole.
fn engine_option_error(e: lsmlab::Error) -> CliError {
    match &e {
        lsmlab::Error::InvalidArgument {
            option,
            value,
            allowed,
        } if SUPPORTED.contains(&option.as_str()) => {
            CliError::new(format!("--{option}: invalid value {value}: {allowed}"))
        }
        _ => CliError::new(format!("the engine rejected the options: {e}")),
    }
}
