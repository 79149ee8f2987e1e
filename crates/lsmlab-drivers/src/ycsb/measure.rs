//! YCSB's operations and their measurements: latency and return codes per operation type,
//! printed as YCSB's `hdrhistogram` measurement type prints them (`[READ], Operations, 511`, …).

use crate::readout::latency::{Latency, LatencySummary};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// YCSB operation types, named as YCSB's report names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Op {
    /// Insert a new record.
    Insert,
    /// Read one record.
    Read,
    /// Overwrite one record.
    Update,
    /// Scan a range of records.
    Scan,
    /// Read a record, then write it.
    ReadModifyWrite,
}

impl Op {
    /// The name in YCSB's report (`[READ]`, …).
    pub fn name(self) -> &'static str {
        match self {
            Op::Insert => "INSERT",
            Op::Read => "READ",
            Op::Update => "UPDATE",
            Op::Scan => "SCAN",
            Op::ReadModifyWrite => "READ-MODIFY-WRITE",
        }
    }
}

/// Latencies and return codes of every operation type.
#[derive(Clone, Default)]
pub struct Measurements {
    per_op: BTreeMap<Op, (Latency, BTreeMap<&'static str, u64>)>,
}

/// One operation type's figures in the JSON record.
#[derive(Debug, Clone, Serialize)]
pub struct OpRecord {
    /// Operations measured.
    pub operations: u64,
    /// Latency in microseconds.
    pub latency_us: LatencySummary,
    /// Count per return code (`OK`, `NOT_FOUND`).
    pub returns: BTreeMap<String, u64>,
}

/// Java's `Double.toString` for the numbers YCSB prints (`12.0`, `98.91196834817013`, `1.5E7`).
pub fn java_double(x: f64) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "NaN".into()
        } else if x > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    let a = x.abs();
    if a != 0.0 && !(1e-3..1e7).contains(&a) {
        let s = format!("{x:e}");
        let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let mant = if mant.contains('.') {
            mant.to_string()
        } else {
            format!("{mant}.0")
        };
        return format!("{mant}E{exp}");
    }
    let s = format!("{x}");
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

impl Measurements {
    /// Records one operation of `nanos` with return code `status`.
    pub fn record(&mut self, op: Op, nanos: u64, status: &'static str) {
        let e = self.per_op.entry(op).or_default();
        e.0.record_nanos(nanos);
        *e.1.entry(status).or_default() += 1;
    }

    /// Adds another thread's measurements.
    pub fn merge(&mut self, other: &Measurements) {
        for (op, (lat, codes)) in &other.per_op {
            let e = self.per_op.entry(*op).or_default();
            e.0.merge(lat);
            for (c, n) in codes {
                *e.1.entry(c).or_default() += n;
            }
        }
    }

    /// Operations of type `op`.
    pub fn count(&self, op: Op) -> u64 {
        self.per_op.get(&op).map(|e| e.0.count()).unwrap_or(0)
    }

    /// Operations of type `op` that returned `status`.
    pub fn returns(&self, op: Op, status: &str) -> u64 {
        self.per_op
            .get(&op)
            .and_then(|e| e.1.get(status).copied())
            .unwrap_or(0)
    }

    /// YCSB's report lines, `[OVERALL]` first.
    pub fn report(&self, runtime_ms: u64, operations: u64) -> String {
        let mut s = String::new();
        let throughput = if runtime_ms > 0 {
            1000.0 * operations as f64 / runtime_ms as f64
        } else {
            0.0
        };
        let _ = writeln!(s, "[OVERALL], RunTime(ms), {runtime_ms}");
        let _ = writeln!(
            s,
            "[OVERALL], Throughput(ops/sec), {}",
            java_double(throughput)
        );
        for (op, (lat, codes)) in &self.per_op {
            let n = op.name();
            let sm = lat.summary();
            let _ = writeln!(s, "[{n}], Operations, {}", sm.count);
            let _ = writeln!(s, "[{n}], AverageLatency(us), {}", java_double(sm.mean_us));
            let _ = writeln!(s, "[{n}], MinLatency(us), {}", sm.min_us.floor() as u64);
            let _ = writeln!(s, "[{n}], MaxLatency(us), {}", sm.max_us.ceil() as u64);
            let _ = writeln!(
                s,
                "[{n}], 95thPercentileLatency(us), {}",
                sm.p95_us.round() as u64
            );
            let _ = writeln!(
                s,
                "[{n}], 99thPercentileLatency(us), {}",
                sm.p99_us.round() as u64
            );
            for (code, count) in codes {
                let _ = writeln!(s, "[{n}], Return={code}, {count}");
            }
        }
        s
    }

    /// The figures per operation name.
    pub fn records(&self) -> BTreeMap<String, OpRecord> {
        self.per_op
            .iter()
            .map(|(op, (lat, codes))| {
                (
                    op.name().to_string(),
                    OpRecord {
                        operations: lat.count(),
                        latency_us: lat.summary(),
                        returns: codes.iter().map(|(c, n)| (c.to_string(), *n)).collect(),
                    },
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_doubles() {
        assert_eq!(java_double(12.0), "12.0");
        assert_eq!(java_double(98.91196834817013), "98.91196834817013");
        assert_eq!(java_double(15_000_000.0), "1.5E7");
        assert_eq!(java_double(0.0), "0.0");
    }

    #[test]
    fn report_has_ycsb_lines() {
        let mut m = Measurements::default();
        m.record(Op::Read, 10_000, "OK");
        m.record(Op::Read, 30_000, "NOT_FOUND");
        m.record(Op::Update, 5_000, "OK");
        let r = m.report(2000, 3);
        assert!(
            r.starts_with("[OVERALL], RunTime(ms), 2000\n[OVERALL], Throughput(ops/sec), 1.5\n"),
            "{r}"
        );
        assert!(r.contains("[READ], Operations, 2\n"));
        assert!(r.contains("[READ], AverageLatency(us), 20.0\n"), "{r}");
        assert!(r.contains("[READ], 95thPercentileLatency(us), 30\n"), "{r}");
        assert!(r.contains("[READ], Return=NOT_FOUND, 1\n"));
        assert!(r.contains("[UPDATE], Return=OK, 1\n"));
        let mut all = Measurements::default();
        all.merge(&m);
        all.merge(&m);
        assert_eq!(all.count(Op::Read), 4);
        assert_eq!(all.returns(Op::Read, "OK"), 2);
    }
}
