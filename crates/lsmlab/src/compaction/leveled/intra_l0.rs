//! Intra-L0 compaction: level 0 merged within itself when it cannot leave.

use super::MAX_COMPACTION_FILES;
use crate::compaction::{CompactionKind, CompactionSpec, LayoutPolicy};
use crate::options::Options;
use crate::version::Version;
use std::sync::atomic::Ordering;

/// Fewest level-0 tables an intra-L0 compaction merges (RocksDB's number too): below four, the
/// level-0 count falls by too little for the bytes rewritten.
const MIN_INTRA_L0_FILES: usize = 4;

/// With level 0 unable to compact into the base level (a compaction of another thread holds
/// its tables or the base level's), merges the newest level-0 tables into one level-0 table,
/// as RocksDB's intra-L0 compaction: the writers' slowdown counts level-0 tables, and each
/// read positions every one. Only a second compaction thread gets here.
///
/// The run starts at the newest table and stops at the first busy one, so every table left
/// out is older than every input and the output (ordered by its largest sequence number)
/// sorts correctly among them. A table joins the run while the bytes rewritten per table
/// removed do not grow (so an older, large intra-L0 output is not rewritten for the sake of
/// a few small flushes) and the run stays within `max_compaction_bytes`.
pub(super) fn pick_intra_level0(
    limits: &dyn LayoutPolicy,
    v: &Version,
    opts: &Options,
) -> Option<CompactionSpec> {
    let files = &v.levels[0];
    let trigger = limits.level0_triggers(opts).compaction;
    // RocksDB's threshold: two tables beyond the trigger, so that a level 0 the next
    // level-0 compaction will empty anyway is left alone.
    if files.len() < trigger.saturating_add(2) {
        return None;
    }
    let newest = files.first()?;
    if newest.being_compacted.load(Ordering::Relaxed) {
        return None;
    }
    let max_bytes = opts
        .target_file_size_base
        .saturating_mul(MAX_COMPACTION_FILES);
    let mut bytes = newest.size;
    let mut per_removed = u64::MAX;
    let mut n = 1;
    for f in &files[1..] {
        if f.being_compacted.load(Ordering::Relaxed) {
            break;
        }
        // `n + 1` tables become one: `n` fewer.
        let next = (bytes + f.size) / n as u64;
        if next > per_removed || bytes + f.size > max_bytes {
            break;
        }
        per_removed = next;
        bytes += f.size;
        n += 1;
    }
    if n < MIN_INTRA_L0_FILES {
        return None;
    }
    Some(CompactionSpec::two_levels(
        CompactionKind::Size,
        0,
        0,
        files[..n].to_vec(),
        Vec::new(),
        "L0 file count, base level busy (intra-L0)",
    ))
}
