//! Latency of one kind of operation: an HDR histogram in nanoseconds, printed as db_bench prints
//! its histograms (and summarised for JSON and YCSB's report lines).
//!
//! db_bench's text block (`Count: … Average: … StdDev: …`, `Min … Median … Max`, the
//! `Percentiles:` line and the bucket table) is reproduced with RocksDB's bucket limits
//! (1, 2, then ×1.5 rounded to two significant digits); the percentiles themselves come from the
//! HDR histogram (3 significant digits) instead of RocksDB's interpolation inside buckets.

use hdrhistogram::Histogram;
use serde::Serialize;
use std::fmt::Write as _;

/// Largest latency recorded: one hour in nanoseconds (larger values are clamped).
const MAX_NANOS: u64 = 3_600_000_000_000;

/// A latency distribution.
#[derive(Clone)]
pub struct Latency {
    hist: Histogram<u64>,
    // Exact extremes and sum: the histogram keeps values to 3 significant digits only.
    min_ns: u64,
    max_ns: u64,
    sum_ns: u128,
}

impl Default for Latency {
    fn default() -> Self {
        Latency::new()
    }
}

/// The figures of one distribution, in microseconds.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LatencySummary {
    /// Operations recorded.
    pub count: u64,
    /// Mean.
    pub mean_us: f64,
    /// Standard deviation.
    pub stddev_us: f64,
    /// Smallest.
    pub min_us: f64,
    /// Median.
    pub p50_us: f64,
    /// 75th percentile.
    pub p75_us: f64,
    /// 95th percentile.
    pub p95_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// 99.9th percentile.
    pub p99_9_us: f64,
    /// 99.99th percentile.
    pub p99_99_us: f64,
    /// Largest.
    pub max_us: f64,
}

/// RocksDB's histogram bucket limits (`HistogramBucketMapper`), up to `u64::MAX`.
fn bucket_limits() -> Vec<u64> {
    let mut limits = vec![1u64, 2];
    let mut v = 2.0f64;
    loop {
        v *= 1.5;
        if v > u64::MAX as f64 {
            break;
        }
        let mut b = v as u64;
        let mut pow = 1u64;
        while b / 10 > 10 {
            b /= 10;
            pow *= 10;
        }
        limits.push(b * pow);
    }
    limits
}

impl Latency {
    /// An empty histogram.
    pub fn new() -> Latency {
        Latency {
            hist: Histogram::new_with_bounds(1, MAX_NANOS, 3)
                .expect("constant histogram bounds are valid"),
            min_ns: u64::MAX,
            max_ns: 0,
            sum_ns: 0,
        }
    }

    /// Records one operation of `nanos` nanoseconds.
    #[inline]
    pub fn record_nanos(&mut self, nanos: u64) {
        let v = nanos.clamp(1, MAX_NANOS);
        self.hist.saturating_record(v);
        self.min_ns = self.min_ns.min(v);
        self.max_ns = self.max_ns.max(v);
        self.sum_ns += u128::from(v);
    }

    /// Adds every value of `other`.
    pub fn merge(&mut self, other: &Latency) {
        self.min_ns = self.min_ns.min(other.min_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
        self.sum_ns += other.sum_ns;
        // Both histograms have the same bounds, so adding cannot fail; saturate if it did.
        if self.hist.add(&other.hist).is_err() {
            for v in other.hist.iter_recorded() {
                let _ = self
                    .hist
                    .record_n(v.value_iterated_to(), v.count_at_value());
            }
        }
    }

    /// Operations recorded.
    pub fn count(&self) -> u64 {
        self.hist.len()
    }

    /// The value at percentile `p` (0–100), in microseconds.
    pub fn percentile_us(&self, p: f64) -> f64 {
        if self.hist.is_empty() {
            return 0.0;
        }
        // The histogram answers with the highest value equivalent to the true one; never beyond
        // the exact extremes.
        (self
            .hist
            .value_at_percentile(p)
            .clamp(self.min_ns, self.max_ns)) as f64
            / 1000.0
    }

    /// The figures of the distribution.
    pub fn summary(&self) -> LatencySummary {
        let empty = self.hist.is_empty();
        let us = |v: u64| if empty { 0.0 } else { v as f64 / 1000.0 };
        LatencySummary {
            count: self.count(),
            mean_us: if empty {
                0.0
            } else {
                self.sum_ns as f64 / self.count() as f64 / 1000.0
            },
            stddev_us: if empty {
                0.0
            } else {
                self.hist.stdev() / 1000.0
            },
            min_us: us(self.min_ns),
            p50_us: self.percentile_us(50.0),
            p75_us: self.percentile_us(75.0),
            p95_us: self.percentile_us(95.0),
            p99_us: self.percentile_us(99.0),
            p99_9_us: self.percentile_us(99.9),
            p99_99_us: self.percentile_us(99.99),
            max_us: us(self.max_ns),
        }
    }

    /// db_bench's histogram block (`HistogramStat::ToString`), in microseconds.
    pub fn to_db_bench_string(&self) -> String {
        let s = self.summary();
        let n = s.count;
        let mut r = String::new();
        let _ = writeln!(
            r,
            "Count: {} Average: {:.4}  StdDev: {:.2}",
            n, s.mean_us, s.stddev_us
        );
        let _ = writeln!(
            r,
            "Min: {}  Median: {:.4}  Max: {}",
            s.min_us as u64, s.p50_us, s.max_us as u64
        );
        let _ = writeln!(
            r,
            "Percentiles: P50: {:.2} P75: {:.2} P99: {:.2} P99.9: {:.2} P99.99: {:.2}",
            s.p50_us, s.p75_us, s.p99_us, s.p99_9_us, s.p99_99_us
        );
        r.push_str("------------------------------------------------------\n");
        if n == 0 {
            return r;
        }
        let limits = bucket_limits();
        let mut counts = vec![0u64; limits.len()];
        for v in self.hist.iter_recorded() {
            // db_bench records whole microseconds, as the difference of two clock readings in
            // microseconds: unbiased, so the nearest whole microsecond, not the floor (which
            // put every latency half a microsecond low against db_bench's, in the table and in
            // the lab's percentiles recomputed from it).
            let micros = (self.hist.median_equivalent(v.value_iterated_to()) + 500) / 1000;
            let b = limits
                .partition_point(|&l| l < micros)
                .min(limits.len() - 1);
            counts[b] += v.count_at_value();
        }
        let mult = 100.0 / n as f64;
        let mut cumulative = 0u64;
        for (b, &c) in counts.iter().enumerate() {
            if c == 0 {
                continue;
            }
            cumulative += c;
            let _ = write!(
                r,
                "{} {:>7}, {:>7} ] {:>8} {:>7.3}% {:>7.3}% ",
                if b == 0 { '[' } else { '(' },
                if b == 0 { 0 } else { limits[b - 1] },
                limits[b],
                c,
                mult * c as f64,
                mult * cumulative as f64
            );
            let marks = (mult * c as f64 / 5.0 + 0.5) as usize;
            r.push_str(&"#".repeat(marks));
            r.push('\n');
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_limits_are_rocksdb_s() {
        let l = bucket_limits();
        assert_eq!(
            &l[..16],
            &[1, 2, 3, 4, 6, 10, 15, 22, 34, 51, 76, 110, 170, 250, 380, 580]
        );
        assert_eq!(l.len(), 109);
    }

    #[test]
    fn block_has_db_bench_lines_and_buckets_add_up() {
        let mut h = Latency::new();
        for us in [1u64, 5, 5, 12, 100, 100, 100, 2000] {
            h.record_nanos(us * 1000);
        }
        let text = h.to_db_bench_string();
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with("Count: 8 Average: 290.3750  StdDev: "),
            "{text}"
        );
        assert!(lines[1].starts_with("Min: 1  Median: "), "{text}");
        assert!(lines[2].starts_with("Percentiles: P50: "), "{text}");
        let total: u64 = lines[4..]
            .iter()
            .map(|l| {
                l.split(']')
                    .nth(1)
                    .unwrap()
                    .split_whitespace()
                    .next()
                    .unwrap()
            })
            .map(|c| c.parse::<u64>().unwrap())
            .sum();
        assert_eq!(total, 8);
        assert!(
            text.contains("(      76,     110 ]        3  37.500%  87.500% ########\n"),
            "{text}"
        );
        assert!(text.contains("\n[       0,       1 ]        1  12.500%  12.500% ###\n"));
    }

    #[test]
    fn buckets_take_the_nearest_whole_microsecond() {
        let mut h = Latency::new();
        for ns in [2_400u64, 2_600, 2_600] {
            h.record_nanos(ns);
        }
        let text = h.to_db_bench_string();
        assert!(
            text.contains("(       1,       2 ]        1  33.333%  33.333% "),
            "{text}"
        );
        assert!(
            text.contains("(       2,       3 ]        2  66.667% 100.000% "),
            "{text}"
        );
    }

    #[test]
    fn merge_adds_counts() {
        let mut a = Latency::new();
        let mut b = Latency::new();
        a.record_nanos(1000);
        b.record_nanos(3000);
        a.merge(&b);
        assert_eq!(a.count(), 2);
        assert_eq!(a.summary().max_us, 3.0);
    }
}
