//! db_bench-format output, parsed in one place for every engine: summary lines, `--histogram`
//! blocks and the `--statistics` dump, as lsmlab, RocksDB (7.x to 11.x) and LevelDB print them.
//!
//! Percentiles are recomputed from each histogram's bucket table by the same interpolation for
//! every engine, because the engines print different percentile sets (RocksDB has no P95, LevelDB
//! none at all): a P95 in the report is computed one way whichever engine it came from.

use std::collections::BTreeMap;

/// One `--histogram` block (`Microseconds per read:` …).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Histogram {
    /// The operation (`read`, `write`, `op`, …).
    pub op: String,
    /// Samples.
    pub count: u64,
    /// Mean, microseconds.
    pub average: f64,
    /// Largest sample.
    pub max: f64,
    /// Smallest sample.
    pub min: f64,
    /// The median the tool printed (a check on the bucket interpolation).
    pub median: f64,
    /// (lower bound, upper bound, samples) of each printed bucket.
    pub buckets: Vec<(f64, f64, u64)>,
}

impl Histogram {
    /// The `p`-th percentile (0–100) by linear interpolation inside the bucket that holds it,
    /// clamped to the printed min and max.
    pub fn percentile(&self, p: f64) -> Option<f64> {
        let total: u64 = self.buckets.iter().map(|b| b.2).sum();
        if total == 0 {
            return None;
        }
        let threshold = total as f64 * p / 100.0;
        let mut cum = 0.0;
        for &(lo, hi, n) in &self.buckets {
            let next = cum + n as f64;
            if next >= threshold && n > 0 {
                let frac = ((threshold - cum) / n as f64).clamp(0.0, 1.0);
                let v = lo + (hi - lo) * frac;
                return Some(v.clamp(self.min, self.max.max(self.min)));
            }
            cum = next;
        }
        Some(self.max)
    }
}

/// One benchmark's summary line and the histograms printed after it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// Benchmark name.
    pub name: String,
    /// micros/op as printed.
    pub micros_per_op: f64,
    /// ops/sec as printed (LevelDB prints none).
    pub ops_per_sec: Option<f64>,
    /// MB/s, when printed.
    pub mb_per_sec: Option<f64>,
    /// `N operations`, when printed (RocksDB and lsmlab; LevelDB prints none).
    pub operations: Option<f64>,
    /// The trailing message, e.g. `(1284 of 2000 found)`.
    pub message: String,
    /// Histograms printed after the line.
    pub histograms: Vec<Histogram>,
}

/// A `--statistics` histogram line: `name P50 : x P95 : y … COUNT : n SUM : s`.
pub type StatHistogram = BTreeMap<String, f64>;

/// Everything parsed from one run's output.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Output {
    /// (`RocksDB`, `11.9.0`) from the header line `RocksDB:    version 11.9.0`.
    pub version: Option<(String, String)>,
    /// The library lsmlab's driver ran on, from its header line `Engine:     rocksdb 11.8.1
    /// (…)`; `None` for db_bench and for lsmlab's own engine.
    pub library: Option<String>,
    /// Summary lines in order.
    pub benchmarks: Vec<Summary>,
    /// `--statistics` tickers.
    pub tickers: BTreeMap<String, u64>,
    /// `--statistics` histograms.
    pub stat_histograms: BTreeMap<String, StatHistogram>,
    /// What the tool warns makes its timings slow: `Assertions are enabled` (db_bench's
    /// `WARNING: Assertions are enabled; benchmarks unnecessarily slow`), `Optimization is
    /// disabled`.
    pub slow_build: Vec<String>,
}

fn number(s: &str) -> Option<f64> {
    s.trim().trim_end_matches(';').parse::<f64>().ok()
}

/// `fillrandom   :      10.833 micros/op 92047 ops/sec 0.022 seconds 2000 operations;   10.2 MB/s (msg)`
fn summary_line(line: &str) -> Option<Summary> {
    let (name, rest) = line.split_once(" : ")?;
    let name = name.trim();
    if name.is_empty() || name.contains(' ') || !rest.contains("micros/op") {
        return None;
    }
    let words: Vec<&str> = rest.split_whitespace().collect();
    let mut s = Summary {
        name: name.to_string(),
        ..Summary::default()
    };
    let mut seen_micros = false;
    let mut msg_from = None;
    for (i, w) in words.iter().enumerate() {
        let unit = w.trim_end_matches(';');
        let prev = if i > 0 { number(words[i - 1]) } else { None };
        match unit {
            "micros/op" => {
                s.micros_per_op = prev?;
                seen_micros = true;
            }
            "ops/sec" => s.ops_per_sec = prev,
            "operations" => s.operations = prev,
            "MB/s" => {
                s.mb_per_sec = prev;
                msg_from = Some(i + 1);
            }
            _ => {}
        }
        if w.starts_with('(') && msg_from.is_none() {
            msg_from = Some(i);
        }
    }
    if !seen_micros {
        return None;
    }
    if let Some(from) = msg_from {
        s.message = words.get(from..).unwrap_or(&[]).join(" ");
    }
    Some(s)
}

/// `(       1,       2 ]      112   5.600% …` or LevelDB's `[       1,       2 )     284 …`.
fn bucket_line(line: &str) -> Option<(f64, f64, u64)> {
    let t = line.trim_start();
    let t = t.strip_prefix('(').or_else(|| t.strip_prefix('['))?;
    let (bounds, rest) = t.split_once([']', ')'])?;
    let (lo, hi) = bounds.split_once(',')?;
    let count = rest.split_whitespace().next()?.parse::<u64>().ok()?;
    Some((number(lo)?, number(hi)?, count))
}

/// Values after `key` in `Count: 2000  Average: 3.9265  StdDev: 75.10`.
fn field(line: &str, key: &str) -> Option<f64> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let i = words.iter().position(|w| *w == key)?;
    number(words.get(i + 1)?)
}

/// `rocksdb.db.get.micros P50 : 0.51 P95 : 0.97 P99 : 1.75 P100 : 56 COUNT : 2000 SUM : 1699`
fn stat_line(line: &str, out: &mut Output) -> bool {
    let mut words = line.split_whitespace();
    let Some(name) = words.next() else {
        return false;
    };
    if !(name.starts_with("rocksdb.") || name.starts_with("lsmlab.")) {
        return false;
    }
    let rest: Vec<&str> = words.collect();
    // Pairs "KEY : value".
    let mut pairs = BTreeMap::new();
    let mut i = 0;
    while i + 2 < rest.len() {
        if rest[i + 1] != ":" {
            break;
        }
        let Some(v) = rest.get(i + 2).and_then(|v| number(v)) else {
            break;
        };
        pairs.insert(rest[i].to_string(), v);
        i += 3;
    }
    if pairs.is_empty() {
        return false;
    }
    if pairs.len() == 1 && pairs.contains_key("COUNT") {
        out.tickers
            .insert(name.to_string(), pairs["COUNT"].max(0.0) as u64);
    } else {
        out.stat_histograms.insert(name.to_string(), pairs);
    }
    true
}

/// Parses a run's stdout (and stderr, for the version header some tools print there).
pub fn parse(text: &str) -> Output {
    let mut out = Output::default();
    let mut current_hist: Option<Histogram> = None;
    for raw in text.lines() {
        // db_bench's progress lines end in '\r' and may run into the next line.
        let line = raw.rsplit('\r').next().unwrap_or(raw);
        if let Some(w) = line
            .strip_prefix("WARNING: ")
            .and_then(|w| w.split_once("; benchmarks unnecessarily slow"))
        {
            if !out.slow_build.iter().any(|x| x == w.0) {
                out.slow_build.push(w.0.to_string());
            }
            continue;
        }
        if let Some(engine) = line.strip_prefix("Engine:") {
            let engine = engine.trim();
            if out.library.is_none() && !engine.is_empty() && !engine.starts_with("lsmlab ") {
                out.library = Some(engine.to_string());
            }
            continue;
        }
        if out.version.is_none() {
            if let Some((tool, rest)) = line.split_once(':') {
                if let Some(v) = rest.trim().strip_prefix("version ") {
                    if ["RocksDB", "LevelDB", "lsmlab"].contains(&tool.trim()) {
                        let v = v.split_whitespace().next().unwrap_or("").to_string();
                        out.version = Some((tool.trim().to_string(), v));
                        continue;
                    }
                }
            }
        }
        if let Some(op) = line
            .strip_prefix("Microseconds per ")
            .and_then(|r| r.strip_suffix(':'))
        {
            if let Some(h) = current_hist.take() {
                attach(&mut out, h);
            }
            current_hist = Some(Histogram {
                op: op.to_string(),
                ..Histogram::default()
            });
            continue;
        }
        if let Some(h) = current_hist.as_mut() {
            if line.starts_with("Count:") {
                h.count = field(line, "Count:").unwrap_or(0.0) as u64;
                h.average = field(line, "Average:").unwrap_or(0.0);
                continue;
            }
            if line.starts_with("Min:") {
                h.min = field(line, "Min:").unwrap_or(0.0);
                h.max = field(line, "Max:").unwrap_or(0.0);
                h.median = field(line, "Median:").unwrap_or(f64::NAN);
                continue;
            }
            if line.starts_with("Percentiles:") || line.starts_with("----") {
                continue;
            }
            if let Some(b) = bucket_line(line) {
                h.buckets.push(b);
                continue;
            }
            if let Some(h) = current_hist.take() {
                attach(&mut out, h);
            }
        }
        if let Some(s) = summary_line(line) {
            out.benchmarks.push(s);
            continue;
        }
        stat_line(line, &mut out);
    }
    if let Some(h) = current_hist.take() {
        attach(&mut out, h);
    }
    out
}

fn attach(out: &mut Output, h: Histogram) {
    if let Some(last) = out.benchmarks.last_mut() {
        last.histograms.push(h);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_library_under_the_driver_is_named() {
        let out = parse("lsmlab:     version 0.1.0 (db_bench 7.8 compatible)\nEngine:     rocksdb 11.8.1 (release build)\nfillseq : 1.0 micros/op 1000000 ops/sec\n");
        assert_eq!(out.version, Some(("lsmlab".into(), "0.1.0".into())));
        assert_eq!(
            out.library.as_deref(),
            Some("rocksdb 11.8.1 (release build)")
        );
        let own = parse("lsmlab:     version 0.1.0\nEngine:     lsmlab 0.1.0 (this program's own engine, in process)\n");
        assert_eq!(own.library, None);
    }

    #[test]
    fn slow_builds_are_noticed() {
        let out = parse("RocksDB:    version 7.8.3\nWARNING: Assertions are enabled; benchmarks unnecessarily slow\nfillseq : 1.0 micros/op 1000000 ops/sec\n");
        assert_eq!(out.slow_build, ["Assertions are enabled"]);
        assert_eq!(out.benchmarks.len(), 1);
        assert!(parse("WARNING: something else\n").slow_build.is_empty());
    }

    #[test]
    fn rocksdb_summary_line() {
        let s = summary_line(
            "readrandom   :       1.065 micros/op 919963 ops/sec 0.002 seconds 2000 operations;   65.3 MB/s (1284 of 2000 found)",
        )
        .unwrap();
        assert_eq!(s.name, "readrandom");
        assert_eq!(s.micros_per_op, 1.065);
        assert_eq!(s.ops_per_sec, Some(919963.0));
        assert_eq!(s.mb_per_sec, Some(65.3));
        assert_eq!(s.message, "(1284 of 2000 found)");
    }

    #[test]
    fn leveldb_summary_lines_have_no_ops_per_sec() {
        let s = summary_line("fillrandom   :       4.006 micros/op;   27.6 MB/s").unwrap();
        assert_eq!(
            (s.micros_per_op, s.ops_per_sec, s.mb_per_sec),
            (4.006, None, Some(27.6))
        );
        let s = summary_line("readrandom   :       0.588 micros/op; (1246 of 2000 found)").unwrap();
        assert_eq!(s.message, "(1246 of 2000 found)");
        assert!(summary_line("Keys:       16 bytes each").is_none());
        assert!(summary_line("rocksdb.x COUNT : 3").is_none());
    }

    #[test]
    fn percentiles_interpolate_inside_buckets() {
        let h = Histogram {
            op: "read".into(),
            count: 100,
            average: 0.0,
            min: 0.0,
            median: 10.0,
            max: 20.0,
            buckets: vec![(0.0, 10.0, 50), (10.0, 20.0, 50)],
        };
        assert_eq!(h.percentile(50.0), Some(10.0));
        assert_eq!(h.percentile(25.0), Some(5.0));
        assert_eq!(h.percentile(95.0), Some(19.0));
        assert_eq!(h.percentile(100.0), Some(20.0));
        assert_eq!(Histogram::default().percentile(50.0), None);
    }

    #[test]
    fn statistics_tickers_and_histograms() {
        let o = parse(
            "rocksdb.block.cache.miss COUNT : 123\nrocksdb.db.get.micros P50 : 0.514668 P95 : 0.977869 P99 : 1.755102 P100 : 56.000000 COUNT : 2000 SUM : 1699\nlsmlab.filter.bytes COUNT : n/a\n",
        );
        assert_eq!(o.tickers["rocksdb.block.cache.miss"], 123);
        assert_eq!(o.stat_histograms["rocksdb.db.get.micros"]["P99"], 1.755102);
        assert_eq!(o.stat_histograms["rocksdb.db.get.micros"]["COUNT"], 2000.0);
        assert!(!o.tickers.contains_key("lsmlab.filter.bytes"));
    }
}
