//! Per-thread measurements of a benchmark and db_bench's summary line.
//!
//! As db_bench's `Stats`: each operation's latency is the time since the previous one finished
//! (key and value generation included); micros/op is the sum of the threads' busy seconds over
//! the operations, ops/sec and MB/s use the wall time from the first thread's start to the last
//! one's finish, and the merged message is the first thread's.

use crate::readout::latency::Latency;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::time::Instant;

/// Kinds of operations, each with its own histogram (db_bench's `OperationType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum OpType {
    /// A get or an iterator step.
    Read,
    /// A put (or a batch of them).
    Write,
    /// A delete.
    Delete,
    /// An iterator seek.
    Seek,
}

impl OpType {
    /// db_bench's name of the type.
    pub fn name(self) -> &'static str {
        match self {
            OpType::Read => "read",
            OpType::Write => "write",
            OpType::Delete => "delete",
            OpType::Seek => "seek",
        }
    }
}

/// What one thread measured.
pub struct ThreadStats {
    start: Instant,
    finish: Instant,
    last_op_finish: Instant,
    /// Operations done.
    pub done: u64,
    /// Bytes counted for MB/s (as db_bench counts them per benchmark).
    pub bytes: u64,
    /// The benchmark's message, e.g. `(9 of 10 found)`.
    pub message: String,
    /// Latency per operation type.
    pub hist: BTreeMap<OpType, Latency>,
    /// Reads (gets and seeks) issued.
    pub reads: u64,
    /// Reads that found their key.
    pub found: u64,
    /// Key + value bytes written (for the lsmlab block).
    pub client_bytes_written: u64,
    /// Key + value bytes returned (for the lsmlab block).
    pub client_bytes_returned: u64,
    /// Left out of the merged figures (readwhilewriting's writer, as in db_bench).
    pub exclude_from_merge: bool,
    progress: bool,
    next_report: u64,
    /// Operations of every thread of the benchmark, for the reporter (`--report_interval_seconds`).
    pub ops_counter: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
}

impl ThreadStats {
    /// Adds a read benchmark's totals: `read` reads of which `found` found their key, returning
    /// `bytes` of key + value (counted for MB/s and for the lsmlab block).
    pub fn add_reads(&mut self, read: u64, found: u64, bytes: u64) {
        self.reads += read;
        self.found += found;
        self.bytes += bytes;
        self.client_bytes_returned += bytes;
    }

    /// Fresh counters; `progress` prints db_bench's "... finished N ops" on stderr.
    pub fn new(progress: bool) -> ThreadStats {
        let now = Instant::now();
        ThreadStats {
            start: now,
            finish: now,
            last_op_finish: now,
            done: 0,
            bytes: 0,
            message: String::new(),
            hist: BTreeMap::new(),
            reads: 0,
            found: 0,
            client_bytes_written: 0,
            client_bytes_returned: 0,
            exclude_from_merge: false,
            progress: progress && std::io::stderr().is_terminal(),
            next_report: 100,
            ops_counter: None,
        }
    }

    /// Starts the clock.
    pub fn start(&mut self) {
        self.start = Instant::now();
        self.last_op_finish = self.start;
        self.finish = self.start;
    }

    /// Stops the clock.
    pub fn stop(&mut self) {
        self.finish = Instant::now();
    }

    /// Records `n` operations of `op` finished now.
    pub fn finished_ops(&mut self, n: u64, op: OpType) {
        let now = Instant::now();
        let nanos = now.duration_since(self.last_op_finish).as_nanos() as u64;
        self.hist.entry(op).or_default().record_nanos(nanos);
        self.last_op_finish = now;
        self.done += n;
        if let Some(c) = &self.ops_counter {
            c.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        }
        if self.progress && self.done >= self.next_report {
            self.next_report += match self.next_report {
                0..=999 => 100,
                1000..=4999 => 500,
                5000..=9999 => 1000,
                10000..=49999 => 5000,
                50000..=99999 => 10000,
                100000..=499999 => 50000,
                _ => 100000,
            };
            eprint!("... finished {} ops{:30}\r", self.done, "");
        }
    }
}

/// The threads' measurements merged.
#[derive(Default)]
pub struct BenchStats {
    /// Operations of the merged threads.
    pub done: u64,
    /// Bytes for MB/s.
    pub bytes: u64,
    /// Sum of the merged threads' busy seconds.
    pub busy_seconds: f64,
    /// Wall seconds from the first start to the last finish.
    pub elapsed_seconds: f64,
    /// The first merged thread's message.
    pub message: String,
    /// Latency per operation type.
    pub hist: BTreeMap<OpType, Latency>,
    /// Reads issued by the merged threads.
    pub reads: u64,
    /// Reads that found their key.
    pub found: u64,
    /// Operations of the threads left out (readwhilewriting's writer).
    pub excluded_ops: u64,
    /// Key + value bytes written by every thread.
    pub client_bytes_written: u64,
    /// Key + value bytes returned to every thread.
    pub client_bytes_returned: u64,
}

impl BenchStats {
    /// Merges the threads as db_bench does.
    pub fn merge(threads: &[ThreadStats]) -> BenchStats {
        let mut m = BenchStats::default();
        let merged: Vec<&ThreadStats> = threads.iter().filter(|t| !t.exclude_from_merge).collect();
        let start = merged.iter().map(|t| t.start).min();
        let finish = merged.iter().map(|t| t.finish).max();
        if let (Some(s), Some(f)) = (start, finish) {
            m.elapsed_seconds = f.duration_since(s).as_secs_f64();
        }
        for t in threads {
            m.client_bytes_written += t.client_bytes_written;
            m.client_bytes_returned += t.client_bytes_returned;
            if t.exclude_from_merge {
                m.excluded_ops += t.done;
                continue;
            }
            m.done += t.done;
            m.bytes += t.bytes;
            m.busy_seconds += t.finish.duration_since(t.start).as_secs_f64();
            if m.message.is_empty() {
                m.message = t.message.clone();
            }
            for (op, h) in &t.hist {
                m.hist.entry(*op).or_default().merge(h);
            }
            m.reads += t.reads;
            m.found += t.found;
        }
        m
    }

    /// Operations reported (at least 1, as db_bench pretends for benchmarks without ops).
    pub fn reported_ops(&self) -> u64 {
        self.done.max(1)
    }

    /// Microseconds per operation.
    pub fn micros_per_op(&self) -> f64 {
        self.busy_seconds * 1e6 / self.reported_ops() as f64
    }

    /// Operations per second of wall time.
    pub fn ops_per_sec(&self) -> f64 {
        if self.elapsed_seconds > 0.0 {
            self.reported_ops() as f64 / self.elapsed_seconds
        } else {
            0.0
        }
    }

    /// MB/s of wall time, when the benchmark counts bytes.
    pub fn mb_per_sec(&self) -> Option<f64> {
        (self.bytes > 0 && self.elapsed_seconds > 0.0)
            .then(|| self.bytes as f64 / 1_048_576.0 / self.elapsed_seconds)
    }

    /// db_bench's summary line (without its final newline; a message may end with one).
    pub fn report_line(&self, name: &str) -> String {
        let mut extra = String::new();
        if let Some(rate) = self.mb_per_sec() {
            extra = format!("{rate:6.1} MB/s");
        }
        if !self.message.is_empty() {
            if !extra.is_empty() {
                extra.push(' ');
            }
            extra.push_str(&self.message);
        }
        format!(
            "{:<12} : {:11.3} micros/op {} ops/sec {:.3} seconds {} operations;{}{}",
            name,
            self.micros_per_op(),
            self.ops_per_sec() as i64,
            self.elapsed_seconds,
            self.reported_ops(),
            if extra.is_empty() { "" } else { " " },
            extra
        )
    }

    /// The `--histogram` blocks, one per operation type.
    pub fn histogram_text(&self) -> String {
        let mut s = String::new();
        for (op, h) in &self.hist {
            s.push_str(&format!(
                "Microseconds per {}:\n{}\n",
                op.name(),
                h.to_db_bench_string()
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn summary_line_has_db_bench_layout() {
        let mut t = ThreadStats::new(false);
        t.start();
        for _ in 0..10 {
            t.finished_ops(1, OpType::Read);
        }
        std::thread::sleep(Duration::from_millis(2));
        t.stop();
        t.bytes = 2 << 20;
        t.message = "(9 of 10 found)\n".into();
        let m = BenchStats::merge(&[t]);
        let line = m.report_line("readrandom");
        let re_ok = line.starts_with("readrandom   : ")
            && line.contains(" micros/op ")
            && line.contains(" ops/sec ")
            && line.contains(" seconds 10 operations; ")
            && line.ends_with(" MB/s (9 of 10 found)\n");
        assert!(re_ok, "{line:?}");
        // micros/op column is 11 wide with 3 decimals.
        let col = &line[15..26];
        assert_eq!(col.len(), 11);
        assert!(col.trim().parse::<f64>().unwrap() > 0.0, "{col:?}");
    }

    #[test]
    fn excluded_threads_do_not_count() {
        let mut a = ThreadStats::new(false);
        let mut b = ThreadStats::new(false);
        a.finished_ops(3, OpType::Read);
        b.finished_ops(5, OpType::Write);
        b.exclude_from_merge = true;
        let m = BenchStats::merge(&[a, b]);
        assert_eq!(m.done, 3);
        assert_eq!(m.excluded_ops, 5);
        assert!(!m.hist.contains_key(&OpType::Write));
    }
}
