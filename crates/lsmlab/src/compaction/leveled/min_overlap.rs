//! RocksDB's victims (`kMinOverlappingRatio`): all of level 0 into the base level, and in a
//! deeper level the table that rewrites the fewest bytes of the next level per byte moved.

use super::{busy, key_range, LeveledPolicy, MAX_COMPACTION_FILES};
use crate::compaction::{CompactionKind, CompactionSpec, LevelInputs};
use crate::options::Options;
use crate::version::{FileMeta, Version};
use std::sync::atomic::Ordering;
use std::sync::Arc;

impl LeveledPolicy {
    pub(super) fn pick_level0(&self, v: &Version, base_level: usize) -> Option<CompactionSpec> {
        let inputs0 = v.levels[0].clone();
        if inputs0.is_empty() || busy(&inputs0) {
            return None;
        }
        let (lo, hi) = key_range(&inputs0);
        let inputs1 = v.overlapping(base_level, Some(&lo), Some(&hi));
        if busy(&inputs1) {
            return None;
        }
        let trivial = inputs0.len() == 1 && inputs1.is_empty();
        let mut spec = CompactionSpec::two_levels(
            CompactionKind::Size,
            0,
            base_level,
            inputs0,
            inputs1,
            "L0 file count",
        );
        spec.trivial_move = trivial;
        Some(spec)
    }

    /// Picks the table of `level` whose overlap with the next level is smallest relative to its
    /// size (RocksDB's kMinOverlappingRatio): it rewrites the fewest bytes per byte moved down.
    pub(super) fn pick_level(
        &self,
        v: &Version,
        level: usize,
        opts: &Options,
    ) -> Option<CompactionSpec> {
        let mut best: Option<(f64, Arc<FileMeta>, Vec<Arc<FileMeta>>)> = None;
        for f in &v.levels[level] {
            if f.being_compacted.load(Ordering::Relaxed) {
                continue;
            }
            let next = v.overlapping(level + 1, Some(f.smallest_user()), Some(f.largest_user()));
            if busy(&next) {
                continue;
            }
            let overlap: u64 = next.iter().map(|n| n.size).sum();
            let ratio = overlap as f64 / f.size.max(1) as f64;
            if best.as_ref().is_none_or(|b| ratio < b.0) {
                best = Some((ratio, f.clone(), next));
            }
        }
        let (_, f, next) = best?;
        if next.is_empty() {
            return Some(CompactionSpec {
                kind: CompactionKind::Size,
                inputs: vec![LevelInputs {
                    level,
                    files: self.extend_trivial_move(v, level, &f, opts),
                }],
                output_level: level + 1,
                trivial_move: true,
                reason: "level size (move)",
            });
        }
        Some(CompactionSpec::two_levels(
            CompactionKind::Size,
            level,
            level + 1,
            vec![f],
            next,
            "level size",
        ))
    }

    /// A table that overlaps nothing below moves down without being rewritten; its neighbours
    /// that lie in the same gap of the next level can move with it for free. Moving them
    /// together (up to `max_compaction_bytes`, 25 target files, as RocksDB's
    /// `TryExtendNonL0TrivialMove`) leaves the level further below its target, so the
    /// compactions into it that follow rewrite less.
    fn extend_trivial_move(
        &self,
        v: &Version,
        level: usize,
        f: &Arc<FileMeta>,
        opts: &Options,
    ) -> Vec<Arc<FileMeta>> {
        let max_bytes = opts
            .target_file_size_base
            .saturating_mul(MAX_COMPACTION_FILES);
        let files = &v.levels[level];
        let Some(pos) = files.iter().position(|g| g.number == f.number) else {
            return vec![f.clone()];
        };
        let (mut lo, mut hi) = (pos, pos);
        let mut bytes = f.size;
        let fits = |g: &Arc<FileMeta>, lo_key: &[u8], hi_key: &[u8], bytes: u64| {
            !g.being_compacted.load(Ordering::Relaxed)
                && bytes + g.size <= max_bytes
                && v.overlapping(level + 1, Some(lo_key), Some(hi_key))
                    .is_empty()
        };
        while hi + 1 < files.len()
            && fits(
                &files[hi + 1],
                files[lo].smallest_user(),
                files[hi + 1].largest_user(),
                bytes,
            )
        {
            hi += 1;
            bytes += files[hi].size;
        }
        while lo > 0
            && fits(
                &files[lo - 1],
                files[lo - 1].smallest_user(),
                files[hi].largest_user(),
                bytes,
            )
        {
            lo -= 1;
            bytes += files[lo].size;
        }
        files[lo..=hi].to_vec()
    }
}
