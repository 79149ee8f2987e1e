//! The metric formulas of docs/metrics.md, written once: lsmlab's block (`engine.rs`) and the
//! library engines' block (`foreign.rs`) both compute their figures here, so a figure of one
//! name means the same thing on every engine.
//!
//! Every formula is `None` where its denominator is zero (nothing written, nothing returned, no
//! filter probe): the report prints `n/a`, never a zero that would read as a measurement.

/// `num / den`, or `None` when `den` is zero.
pub fn ratio(num: u64, den: u64) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

/// Write amplification: bytes the engine wrote to tables and blob files (flush + compaction +
/// blob + GC + float-up; each byte counted once) / user key + value bytes written.
pub fn write_amp(device_bytes: u64, user_bytes: u64) -> Option<f64> {
    ratio(device_bytes, user_bytes)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_and_their_empty_cases() {
        assert_eq!(write_amp(300, 100), Some(3.0));
        assert_eq!(write_amp_with_wal(300, 100, 100), Some(4.0));
        assert_eq!(write_amp(0, 0), None, "nothing written: n/a, not 0");
        assert_eq!(read_amp(8192, 1024), Some(8.0));
        assert_eq!(files_checked_per_get(7, 2), Some(3.5));
        // 10 absent keys said "maybe" of 100 probes of absent keys.
        assert_eq!(filter_fpr(90, 30, 20), Some(0.1));
        assert_eq!(filter_fpr(0, 5, 5), None, "only present keys probed");
        assert_eq!(filter_bits_per_key(1250, 1000), Some(10.0));
        assert_eq!(filter_bits_per_key(0, 0), None, "no table yet");
    }
}
