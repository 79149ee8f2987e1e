//! The layout policy (leveled, FSLSM-Tree or universal), its parameters, and the presets: seed
//! 003's three, two FSLSM ablations, and universal compaction.

use super::{invalid, Options};
use crate::error::Result;

/// Which policy shapes the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// RocksDB's leveled compaction by bytes (the `leveldb` and `wisckey` presets).
    #[default]
    Leveled,
    /// The FSLSM-Tree: leveled compaction plus float-up of hot tables and stretch of the level
    /// limits by the read ratio (the `fslsm` preset; parameters in [`FslsmOptions`]).
    Fslsm,
    /// RocksDB's universal (tiered) compaction: level-0 tables and non-empty levels are sorted
    /// runs, merged by size amplification, size ratio and run count (the `universal` preset,
    /// db_bench's `--compaction_style=1`; parameters in
    /// [`UniversalOptions`](super::UniversalOptions)).
    Universal,
}

/// The names [`Options::apply_layout_preset`] accepts: seed 003's three engines, two
/// ablations of `fslsm` (stretch off; float-up off), and universal compaction.
pub const LAYOUT_PRESETS: [&str; 6] = [
    "leveldb",
    "wisckey",
    "fslsm",
    "fslsm-nostretch",
    "fslsm-nofloat",
    "universal",
];

/// Which tables a level at or over its limit compacts into the next level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CompactionVictims {
    /// RocksDB's choice: all of level 0; in a deeper level the table overlapping the next level
    /// least relative to its size (`kMinOverlappingRatio`).
    #[default]
    MinOverlap,
    /// The tables gets hit least, as the FSLSM study's three systems compact: in level 0 the
    /// `max(count − trigger, 1)` coldest tables (plus the older level-0 tables overlapping
    /// them, which must go with them); in a deeper level the coldest table, one a compaction
    /// while the level is over. Hot tables stay high. Frequency is counted over
    /// `fslsm.frequency_window` events, as FSLSM counts it.
    LowestFrequency,
}

impl CompactionVictims {
    /// Parses `overlap` or `frequency`.
    pub fn parse(s: &str) -> Result<CompactionVictims> {
        match s {
            "overlap" | "min_overlap" => Ok(CompactionVictims::MinOverlap),
            "frequency" | "lowest_frequency" => Ok(CompactionVictims::LowestFrequency),
            other => Err(invalid(
                "compaction_victims",
                format!("{other:?}"),
                "allowed: overlap, frequency",
            )),
        }
    }
}

/// Where a float-up may take a hot table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FloatTarget {
    /// Always level 0 (the paper's default): the table is merged with the level-0 tables it
    /// overlaps, which leave level 0 (docs/fslsm.md).
    #[default]
    Level0,
    /// Level 0 only when the paper's cost model, with its algebra corrected (docs/fslsm.md),
    /// says that moving pays: `3·f·i > T_W/T_R + 1 + Σ overlapping tables of levels 0..i−1`.
    CostModel,
    /// Nowhere: no float-up is asked for (the `fslsm-nofloat` ablation; stretch stays).
    Off,
}

/// Parameters of the FSLSM-Tree (docs/fslsm.md); defaults are the paper's. Used when
/// [`Options::layout`] is [`Layout::Fslsm`].
#[derive(Debug, Clone, PartialEq)]
pub struct FslsmOptions {
    /// Operations (reads and writes) over which the read ratio η is measured. Shorter reacts
    /// faster to a change of workload, longer is steadier. Default: 5,000.
    pub read_ratio_window: usize,
    /// Events (a get that found its key in a table, or a table's creation) over which each
    /// table's access frequency f is counted. Default: F = 100,000.
    pub frequency_window: usize,
    /// Float-up threshold γ: a table of level i > 0 hit by a get floats once
    /// `f ≥ ⌊max(min f of level i−1, 1) · γ / η⌋`. Smaller floats more often (below 1 about
    /// every hit, which tests use to force float-ups); larger floats only the hottest tables.
    /// Default: 5.
    pub gamma: f64,
    /// Stretch increments `inc[i]`: level i's limit becomes `base[i] + ⌊η · (L − i) · inc[i]⌋`
    /// with L = `num_levels`. Units: for level 0, files added to its compaction trigger (and
    /// to its slowdown and stop triggers, so that a stretched level 0 does not stall writers);
    /// for level i ≥ 1, tables of `target_file_size_base` bytes added to its byte target.
    /// Missing entries are 0; entries past the last level are ignored.
    /// Default: [20, 10, 5, 0, 0, 0, 0].
    pub stretch_increments: Vec<u64>,
    /// Where hot tables float to. Default: level 0.
    pub float_target: FloatTarget,
    /// A float-up that would have to read more than this many tables of the levels it
    /// crosses below level 0 (to drop the versions they shadow) is skipped: it would cost more
    /// I/O than the reads it saves. The level-0 tables it merges with are not counted.
    /// Default: 25 (RocksDB's `max_compaction_bytes` in tables).
    pub max_float_overlap_files: usize,
    /// Device time of one page read, in microseconds (T_R of the cost model and of the
    /// device-time metric). Change it to model another device. Default: 50.
    pub device_read_micros: f64,
    /// Device time of one page write, in microseconds (T_W). Default: 200.
    pub device_write_micros: f64,
}

impl Default for FslsmOptions {
    fn default() -> Self {
        FslsmOptions {
            read_ratio_window: 5_000,
            frequency_window: 100_000,
            gamma: 5.0,
            stretch_increments: vec![20, 10, 5, 0, 0, 0, 0],
            float_target: FloatTarget::Level0,
            max_float_overlap_files: 25,
            device_read_micros: 50.0,
            device_write_micros: 200.0,
        }
    }
}

impl FloatTarget {
    /// Parses `level0`, `cost` or `off`.
    pub fn parse(s: &str) -> Result<FloatTarget> {
        match s {
            "level0" | "0" => Ok(FloatTarget::Level0),
            "cost" | "cost_model" => Ok(FloatTarget::CostModel),
            "off" | "none" => Ok(FloatTarget::Off),
            other => Err(invalid(
                "fslsm_float_target",
                format!("{other:?}"),
                "allowed: level0, cost, off",
            )),
        }
    }
}

/// Parses a comma-separated list of stretch increments, e.g. `20,10,5`.
pub fn parse_increments(s: &str) -> Result<Vec<u64>> {
    s.split(',')
        .map(|p| {
            p.trim().parse::<u64>().map_err(|_| {
                invalid(
                    "fslsm_stretch_increments",
                    format!("{s:?}"),
                    "allowed: comma-separated whole numbers, e.g. 20,10,5,0",
                )
            })
        })
        .collect()
}

impl FslsmOptions {
    /// Checks every parameter; the error names the first bad one.
    pub fn validate(&self) -> Result<()> {
        if !(1..=10_000_000).contains(&self.read_ratio_window) {
            return Err(invalid(
                "fslsm_read_ratio_window",
                self.read_ratio_window,
                "must be in 1..=10000000 operations",
            ));
        }
        if !(1..=100_000_000).contains(&self.frequency_window) {
            return Err(invalid(
                "fslsm_frequency_window",
                self.frequency_window,
                "must be in 1..=100000000 events",
            ));
        }
        if !(self.gamma > 0.0 && self.gamma <= 1e6) {
            return Err(invalid(
                "fslsm_gamma",
                self.gamma,
                "must be in (0, 1000000]",
            ));
        }
        if self.stretch_increments.iter().any(|&i| i > 1_000_000) {
            return Err(invalid(
                "fslsm_stretch_increments",
                format!("{:?}", self.stretch_increments),
                "each entry must be at most 1000000",
            ));
        }
        if self.max_float_overlap_files == 0 {
            return Err(invalid(
                "fslsm_max_float_overlap_files",
                0,
                "must be at least 1",
            ));
        }
        for (name, v) in [
            ("fslsm_device_read_micros", self.device_read_micros),
            ("fslsm_device_write_micros", self.device_write_micros),
        ] {
            if !(v > 0.0 && v <= 1e9) {
                return Err(invalid(name, v, "must be in (0, 1000000000] microseconds"));
            }
        }
        Ok(())
    }
}

impl Options {
    /// Sets the layout and key-value separation of one of seed 003's engines:
    /// `leveldb` (leveled, values in the tables), `wisckey` (leveled, every value in blob files),
    /// `fslsm` (every value in blob files, float-up and stretch); or of an ablation of `fslsm`:
    /// `fslsm-nostretch` (stretch increments all 0) and `fslsm-nofloat` (float target
    /// [`FloatTarget::Off`]); or `universal` (universal compaction, values in the tables, as
    /// RocksDB's `compaction_style = kCompactionStyleUniversal`). Other options are unchanged.
    pub fn apply_layout_preset(&mut self, name: &str) -> Result<()> {
        let (layout, blobs) = match name {
            "leveldb" => (Layout::Leveled, false),
            "wisckey" => (Layout::Leveled, true),
            "fslsm" => (Layout::Fslsm, true),
            "fslsm-nostretch" => {
                self.fslsm.stretch_increments = vec![0; self.num_levels.max(1)];
                (Layout::Fslsm, true)
            }
            "fslsm-nofloat" => {
                self.fslsm.float_target = FloatTarget::Off;
                (Layout::Fslsm, true)
            }
            "universal" => (Layout::Universal, false),
            other => {
                return Err(invalid(
                    "layout",
                    format!("{other:?}"),
                    &format!("allowed: {}", LAYOUT_PRESETS.join(", ")),
                ))
            }
        };
        self.layout = layout;
        self.enable_blob_files = blobs;
        if blobs {
            self.min_blob_size = 0;
        }
        Ok(())
    }

    /// The preset these options amount to, if any (for reports).
    pub fn layout_preset(&self) -> Option<&'static str> {
        match (self.layout, self.enable_blob_files, self.min_blob_size) {
            (Layout::Leveled, false, _) => Some("leveldb"),
            (Layout::Leveled, true, 0) => Some("wisckey"),
            (Layout::Fslsm, true, 0) if self.fslsm.float_target == FloatTarget::Off => {
                Some("fslsm-nofloat")
            }
            (Layout::Fslsm, true, 0) if self.fslsm.stretch_increments.iter().all(|&i| i == 0) => {
                Some("fslsm-nostretch")
            }
            (Layout::Fslsm, true, 0) => Some("fslsm"),
            (Layout::Universal, false, _) => Some("universal"),
            _ => None,
        }
    }
}
