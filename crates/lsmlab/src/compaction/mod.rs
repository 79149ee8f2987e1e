//! The layout seam: which tables to compact and how big each level may grow.
//!
//! The engine asks a [`LayoutPolicy`] for work and tells it of every get that hit a table;
//! leveled compaction ([`LeveledPolicy`]) is one policy, FSLSM another, with no fork of the engine.

mod blob_gc;
mod blobs;
pub mod dynamic_levels;
mod job;
mod leveled;

pub use blob_gc::pick_blob_gc;
pub use blobs::BlobOutcome;
pub use job::{run_compaction, CompactionOutcome, CompactionParams};
pub use leveled::LeveledPolicy;

use crate::options::Options;
use crate::version::{FileMeta, HitLocation, Version};
use std::sync::Arc;

/// A compaction to run: `inputs[0]` from `level`, `inputs[1]` from `output_level`.
#[derive(Clone)]
pub struct CompactionSpec {
    /// The level compacted.
    pub level: usize,
    /// The level written.
    pub output_level: usize,
    /// Tables of `level`, then of `output_level`.
    pub inputs: [Vec<Arc<FileMeta>>; 2],
    /// Move the single input table down without rewriting it.
    pub trivial_move: bool,
    /// Why it was picked (for logs and stats).
    pub reason: &'static str,
}

impl CompactionSpec {
    /// Every input table.
    pub fn all_inputs(&self) -> impl Iterator<Item = &Arc<FileMeta>> {
        self.inputs[0].iter().chain(self.inputs[1].iter())
    }
}

/// Decides the shape of the tree.
pub trait LayoutPolicy: Send + Sync {
    /// Short name for statistics, e.g. `"leveled"`.
    fn name(&self) -> &'static str;
    /// Target size in bytes of `level` (≥ 1) in `version`.
    fn max_bytes_for_level(&self, version: &Version, opts: &Options, level: usize) -> u64;
    /// The most urgent compaction, if any level is over its limit. Tables marked
    /// `being_compacted` must not be picked.
    fn pick_compaction(&self, version: &Version, opts: &Options) -> Option<CompactionSpec>;
    /// Called after every get that reached the tables, with where it found the key.
    fn on_get(&self, _hit: Option<HitLocation>) {}
    /// The compaction score of each level (≥ 1 means over its limit), for `rocksdb.stats`.
    fn level_scores(&self, version: &Version, opts: &Options) -> Vec<f64>;
}
