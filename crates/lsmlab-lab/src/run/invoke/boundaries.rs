//! The benchmarks a step's process runs, with what each engine does at the step's edges: a
//! settle step waits for compactions, and a step that flushes (`Plan::flushes`) writes its
//! memtable to a table before it exits, so its work is not left to the next step's recovery
//! (on every engine that can: LevelDB's db_bench cannot, see `LEVELDB_SETTLE`).

use super::kind::Kind;
use crate::plan::spec::{Step, StepKind};

/// What LevelDB's db_bench settles with: it has neither `flush` nor `waitforcompaction`, and
/// its `compact` (CompactRange over every key) writes the memtable out first and returns once
/// every compaction it started is done. It is no step flush: a full compaction would add its
/// bytes to the step's write figures (a 30,000-key fill's write amplification 6.1 with it), so
/// a LevelDB step ends unflushed, its memtable goes to level 0 at the next step's open (counted
/// there by LevelDB's info log), and the report's carried-work warning says so.
const LEVELDB_SETTLE: &str = "compact";

/// The `--benchmarks` list of a bench or settle step on an engine of `kind`.
pub fn benchmarks(kind: Kind, step: &Step, step_kind: StepKind, flush: bool) -> String {
    let mut list: Vec<String> = if step_kind == StepKind::Settle {
        vec![settle(kind).to_string()]
    } else {
        step.bench
            .as_deref()
            .unwrap_or("")
            .split(',')
            .map(str::trim)
            .filter(|b| !b.is_empty())
            .map(String::from)
            .collect()
    };
    if let Some(flush_bench) = flush_benchmark(kind).filter(|_| flush && !ends_flushed(kind, &list))
    {
        // Before a closing wait for compactions, so that the wait covers what the flush sets
        // off; otherwise last.
        let at = if list.last().map(String::as_str) == Some("waitforcompaction") {
            list.len() - 1
        } else {
            list.len()
        };
        list.insert(at, flush_bench.to_string());
    }
    list.join(",")
}

/// The benchmark that waits for compactions.
pub fn settle(kind: Kind) -> &'static str {
    match kind {
        Kind::LevelDb => LEVELDB_SETTLE,
        Kind::Lsmlab | Kind::RocksDb => "waitforcompaction",
    }
}

/// The benchmark that writes the memtable out, where the engine has one.
pub fn flush_benchmark(kind: Kind) -> Option<&'static str> {
    match kind {
        Kind::LevelDb => None,
        Kind::Lsmlab | Kind::RocksDb => Some("flush"),
    }
}

/// Whether the list already ends with its memtable written out: a flush (or LevelDB's compact),
/// possibly followed by a wait for the compactions it set off.
fn ends_flushed(kind: Kind, list: &[String]) -> bool {
    let mut tail = list.iter().rev().map(String::as_str);
    let last = tail.next();
    let before = tail.next();
    let flushed =
        |b: Option<&str>| b.is_some() && (b == flush_benchmark(kind) || b == Some("compact"));
    flushed(last) || (last == Some("waitforcompaction") && flushed(before))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bench(b: &str) -> Step {
        Step {
            bench: Some(b.into()),
            ..Step::default()
        }
    }

    #[test]
    fn a_flushing_step_ends_with_its_engines_flush_once() {
        let fill = bench("fillrandom, readrandom");
        let b = |k, f| benchmarks(k, &fill, StepKind::Bench, f);
        assert_eq!(b(Kind::Lsmlab, false), "fillrandom,readrandom");
        assert_eq!(b(Kind::Lsmlab, true), "fillrandom,readrandom,flush");
        assert_eq!(b(Kind::RocksDb, true), "fillrandom,readrandom,flush");
        // LevelDB has no flush but a full compaction: its step ends unflushed.
        assert_eq!(b(Kind::LevelDb, true), "fillrandom,readrandom");
        // Already flushed (and settled): nothing added, so no `flush#2` figures appear.
        let done = bench("fillrandom,flush,waitforcompaction");
        assert_eq!(
            benchmarks(Kind::RocksDb, &done, StepKind::Bench, true),
            "fillrandom,flush,waitforcompaction"
        );
        // A flush in the middle leaves the writes after it in the memtable.
        let mid = bench("fillrandom,flush,overwrite");
        assert_eq!(
            benchmarks(Kind::Lsmlab, &mid, StepKind::Bench, true),
            "fillrandom,flush,overwrite,flush"
        );
    }

    #[test]
    fn leveldb_settles_with_compact() {
        let s = Step {
            settle: true,
            ..Step::default()
        };
        assert_eq!(
            benchmarks(Kind::LevelDb, &s, StepKind::Settle, true),
            "compact"
        );
        assert_eq!(
            benchmarks(Kind::Lsmlab, &s, StepKind::Settle, false),
            "waitforcompaction"
        );
        assert_eq!(
            benchmarks(Kind::RocksDb, &s, StepKind::Settle, true),
            "flush,waitforcompaction"
        );
        let settled = bench("fillrandom,waitforcompaction");
        assert_eq!(
            benchmarks(Kind::Lsmlab, &settled, StepKind::Bench, true),
            "fillrandom,flush,waitforcompaction"
        );
    }
}
