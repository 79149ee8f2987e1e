//! The metric formulas of docs/metrics.md, written once: lsmlab's block (`lsm.rs`) and the
//! library engines' block (`foreign.rs`) both compute their figures here, so a figure of one
//! name means the same thing on every engine.
//!
//! The `sim_*` formulas are the FSLSM study's own definitions (docs/metrics.md, "The FSLSM
//! study's metrics"), reported beside lsmlab's under their own names.
//!
//! Every formula is `None` where its denominator is zero (nothing written, nothing returned, no
//! filter probe): the report prints `n/a`, never a zero that would read as a measurement.

/// `num / den`, or `None` when `den` is zero.
pub fn ratio(num: u64, den: u64) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

/// Write amplification: bytes the engine wrote to tables and blob files (flush + compaction +
/// blob + GC + float-up; each byte counted once) / user key + value bytes written. `None`
/// also when no byte reached a table yet (everything still in the memtable): the
/// amplification is not 0 then, it is not measured.
pub fn write_amp(device_bytes: u64, user_bytes: u64) -> Option<f64> {
    ratio(device_bytes, user_bytes).filter(|_| device_bytes > 0)
}

/// The WAL-inclusive write amplification: the same with the WAL's bytes added.
pub fn write_amp_with_wal(device_bytes: u64, wal_bytes: u64, user_bytes: u64) -> Option<f64> {
    ratio(device_bytes + wal_bytes, user_bytes)
}

/// Read amplification: bytes read from the device for user reads / key + value bytes returned.
pub fn read_amp(read_bytes: u64, returned_bytes: u64) -> Option<f64> {
    ratio(read_bytes, returned_bytes)
}

/// Files checked per lookup: tables whose range held the key, up to and including the one that
/// had it, over the gets that found their key on disk.
pub fn files_checked_per_get(files_checked: u64, gets_found_on_disk: u64) -> Option<f64> {
    ratio(files_checked, gets_found_on_disk)
}

/// Filter false-positive rate over probes of keys absent from the table, from RocksDB's three
/// tickers: (full.positive − full.true.positive) / (useful + full.positive − full.true.positive).
pub fn filter_fpr(useful: u64, positive: u64, true_positive: u64) -> Option<f64> {
    let false_positive = positive.saturating_sub(true_positive);
    ratio(false_positive, useful + false_positive)
}

/// Filter memory per key: bits of the live tables' filters / keys they were built from. A
/// per-key figure, so that it compares filters of databases that hold different numbers of
/// keys in tables when they are measured (what the memtables hold has no filter yet).
pub fn filter_bits_per_key(filter_bytes: u64, filter_keys: u64) -> Option<f64> {
    ratio(filter_bytes * 8, filter_keys)
}

/// The FSLSM study's read amplification (`sim.read_amp`): every byte read from the device —
/// user reads (data blocks, value records), compaction, float-up, GC and flush reads — plus,
/// for every table a get probed, that table's footer, whole filter and whole index (the study
/// keeps nothing in memory; lsmlab reads them once per table open), over the bytes returned.
pub fn sim_read_amp(
    device_read_bytes: u64,
    files_probed: u64,
    table_meta_bytes: u64,
    returned_bytes: u64,
) -> Option<f64> {
    ratio(
        device_read_bytes.saturating_add(files_probed.saturating_mul(table_meta_bytes)),
        returned_bytes,
    )
}

/// The FSLSM study's write amplification (`sim.write_amp`): the user's write itself, plus what
/// flushes (tables and the value log's blob files), compactions and float-ups wrote, over the
/// user bytes; `engine_bytes` is that sum without the user bytes.
pub fn sim_write_amp(user_bytes: u64, engine_bytes: u64) -> Option<f64> {
    ratio(user_bytes.saturating_add(engine_bytes), user_bytes)
}

/// The FSLSM study's latency (`sim.latency_s`), with no cache: every table a get probed costs
/// four page reads (footer, filter, index, data block), whatever its filter answered; the
/// other pages user reads touched (value records; blocks walked by scans) are
/// `user_read_pages − data_block_reads`; background reads and every page written count as in
/// the device time. `t_r`, `t_w` in microseconds; the result in seconds.
pub fn sim_latency_s(
    files_probed: u64,
    user_read_pages: u64,
    data_block_reads: u64,
    background_pages_read: u64,
    pages_written: u64,
    t_r: f64,
    t_w: f64,
) -> f64 {
    let reads =
        4 * files_probed + user_read_pages.saturating_sub(data_block_reads) + background_pages_read;
    (reads as f64 * t_r + pages_written as f64 * t_w) / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_and_their_empty_cases() {
        assert_eq!(write_amp(300, 100), Some(3.0));
        assert_eq!(write_amp_with_wal(300, 100, 100), Some(4.0));
        assert_eq!(write_amp(0, 0), None, "nothing written: n/a, not 0");
        assert_eq!(write_amp(0, 100), None, "nothing flushed: n/a, not 0");
        assert_eq!(read_amp(8192, 1024), Some(8.0));
        assert_eq!(files_checked_per_get(7, 2), Some(3.5));
        // 10 absent keys said "maybe" of 100 probes of absent keys.
        assert_eq!(filter_fpr(90, 30, 20), Some(0.1));
        assert_eq!(filter_fpr(0, 5, 5), None, "only present keys probed");
        assert_eq!(filter_bits_per_key(1250, 1000), Some(10.0));
        assert_eq!(filter_bits_per_key(0, 0), None, "no table yet");
    }

    #[test]
    fn the_studys_formulas_on_hand_made_counters() {
        // 10,000 bytes read, 100 probes of tables whose footer + filter + index are 300 bytes,
        // 5,000 bytes returned: (10,000 + 30,000) / 5,000.
        assert_eq!(sim_read_amp(10_000, 100, 300, 5_000), Some(8.0));
        assert_eq!(sim_read_amp(10, 1, 64, 0), None, "nothing returned");
        // 1,000 user bytes; flush 1,200 (tables and blob files), compaction 500, float-up 300.
        assert_eq!(sim_write_amp(1_000, 2_000), Some(3.0));
        assert_eq!(sim_write_amp(0, 10), None, "nothing written");
        // 10 probes × 4 pages + (30 user pages − 8 data blocks) + 5 background = 67 reads at
        // 50 µs; 20 pages written at 200 µs: 3,350 + 4,000 µs.
        let t = sim_latency_s(10, 30, 8, 5, 20, 50.0, 200.0);
        assert!((t - 7_350e-6).abs() < 1e-12, "{t}");
        assert_eq!(sim_latency_s(0, 0, 0, 0, 0, 50.0, 200.0), 0.0);
    }
}
