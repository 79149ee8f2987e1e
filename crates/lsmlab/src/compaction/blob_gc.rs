//! Forced blob garbage collection (RocksDB's `blob_garbage_collection_force_threshold`): when
//! the oldest `age_cutoff` fraction of blob files is at least `force_threshold` garbage, the
//! table referencing the oldest of them is compacted, so that its live blobs are relocated and
//! those files can die, even if the tree's shape asks for no compaction.

use super::{CompactionKind, CompactionSpec};
use crate::options::Options;
use crate::version::Version;
use std::sync::atomic::Ordering;

/// Number of the first blob file garbage collection leaves alone: the oldest `cutoff` fraction
/// of `version`'s blob files (by number, i.e. by age) lie below it; 0 when GC is off.
pub(crate) fn gc_boundary(version: &Version, opts: &Options) -> u64 {
    if !opts.enable_blob_garbage_collection {
        return 0;
    }
    let n = version.blobs.len();
    let old = (n as f64 * opts.blob_garbage_collection_age_cutoff) as usize;
    if old == 0 {
        return 0;
    }
    version.blobs.keys().nth(old).copied().unwrap_or(u64::MAX)
}

/// A compaction of the table that references the oldest blob file, if the oldest blob files
/// are garbage enough and no compaction holds the tables it needs.
pub fn pick_blob_gc(version: &Version, opts: &Options) -> Option<CompactionSpec> {
    let boundary = gc_boundary(version, opts);
    if boundary == 0 {
        return None;
    }
    let (total, garbage) = version
        .blobs
        .range(..boundary)
        .fold((0u64, 0u64), |(t, g), (_, b)| {
            (t + b.meta.file.bytes, g + b.garbage_bytes)
        });
    if total == 0 || (garbage as f64) < opts.blob_garbage_collection_force_threshold * total as f64
    {
        return None;
    }
    let (level, table) = version
        .files()
        .filter(|(_, f)| f.oldest_blob_file != 0 && f.oldest_blob_file < boundary)
        .min_by_key(|(_, f)| f.oldest_blob_file)?;
    let last = version.levels.len() - 1;
    let spec = if level == last {
        // Nothing below: the table is rewritten in place.
        CompactionSpec::two_levels(
            CompactionKind::BlobGc,
            level,
            level,
            vec![table.clone()],
            Vec::new(),
            "blob-gc",
        )
    } else {
        let lo = table.smallest_user().to_vec();
        let hi = table.largest_user().to_vec();
        let inputs0 = version.compaction_inputs(level, Some(&lo), Some(&hi));
        let lo = inputs0.iter().map(|f| f.smallest_user()).min()?.to_vec();
        let hi = inputs0.iter().map(|f| f.largest_user()).max()?.to_vec();
        let inputs1 = version.overlapping(level + 1, Some(&lo), Some(&hi));
        CompactionSpec::two_levels(
            CompactionKind::BlobGc,
            level,
            level + 1,
            inputs0,
            inputs1,
            "blob-gc",
        )
    };
    if spec
        .all_inputs()
        .any(|f| f.being_compacted.load(Ordering::Relaxed))
    {
        return None;
    }
    Some(spec)
}
