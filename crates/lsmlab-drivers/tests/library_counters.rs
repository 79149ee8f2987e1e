//! The library engines' own counters reach the lsmlab block: a fill that flushes and compacts
//! gives LevelDB a write amplification, a compaction count and a compaction time from its info
//! log, and RocksDB its filters' bits per key from `rocksdb.aggregated-table-properties` and
//! its compaction CPU from its statistics. Each test runs with its engine's cargo feature.

#![cfg(any(feature = "leveldb", feature = "rocksdb"))]

use lsmlab_drivers::bench::json::BenchmarkRecord;
use lsmlab_drivers::flags::{parse, Parsed};
use lsmlab_drivers::readout::foreign::ForeignFigures;

/// `lsmlab bench --engine=ENGINE ARGS` on a fresh database: the fill's figures and the output.
fn fill(engine: &str, args: &[&str]) -> (ForeignFigures, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    a.push(format!("--engine={engine}"));
    a.push(format!("--db={}", dir.path().join("db").display()));
    let Parsed::Run {
        flags, explicit, ..
    } = parse(&a).expect("flags parse")
    else {
        panic!("help")
    };
    let mut out = Vec::new();
    let recs: Vec<BenchmarkRecord> =
        lsmlab_drivers::bench::run(&flags, &explicit, &mut out, false).expect("bench runs");
    let f = recs[0].lsmlab.foreign().expect("a library's block").clone();
    (f, String::from_utf8(out).unwrap())
}

/// 4 MB of values through 256 KB memtables: a dozen flushes and some compactions.
const FILL: &[&str] = &[
    "--benchmarks=fillrandom",
    "--num=4000",
    "--value_size=1000",
    "--write_buffer_size=262144",
    "--target_file_size_base=262144",
    "--bloom_bits=10",
    "--compression_type=none",
    "--seed=1",
];

#[cfg(feature = "leveldb")]
#[test]
fn leveldb_fill_gives_write_amp_and_compaction_time_from_its_log() {
    let (f, out) = fill("leveldb", FILL);
    let wa = f.write_amp.expect("write amplification");
    // Every user byte is flushed at least once; the memtable may hold the last few.
    assert!(wa > 0.8 && wa < 20.0, "{wa}\n{out}");
    assert!(f.flush_bytes.unwrap() > 0, "{out}");
    assert!(f.compactions.unwrap() > 0, "{out}");
    let secs = f.compaction_seconds.expect("compaction time");
    assert!(secs > 0.0, "{out}");
    assert!(out.contains("lsmlab write_amp            : "), "{out}");
    assert!(!out.contains("lsmlab write_amp            : n/a"), "{out}");
}

#[cfg(feature = "rocksdb")]
#[test]
fn rocksdb_fill_gives_filter_bits_per_key_and_compaction_cpu() {
    let mut args = FILL.to_vec();
    args.extend(["--statistics", "--max_bytes_for_level_base=1048576"]);
    let (f, out) = fill("rocksdb", &args);
    let bpk = f.filter_bits_per_key.expect("filter bits per key");
    // A Bloom filter of 10 bits per key, rounded up to whole cache lines per table.
    assert!((9.5..12.0).contains(&bpk), "{bpk}\n{out}");
    assert!(f.filter_keys.unwrap() > 0, "{out}");
    assert!(f.compactions.unwrap() > 0, "{out}");
    assert!(f.compaction_cpu_micros.unwrap() > 0, "{out}");
    assert!(out.contains(" bits/key)"), "{out}");
}
