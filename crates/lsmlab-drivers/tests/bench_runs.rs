//! Every benchmark kind on a small database in a temporary directory: the counts add up and the
//! output parses with the regular expressions people use on db_bench's output.

use lsmlab_drivers::bench::json::BenchmarkRecord;
use lsmlab_drivers::bench::random::Random64;
use lsmlab_drivers::flags::{parse, BenchFlags, Parsed};
use std::collections::HashSet;

fn flags(args: &[&str], dir: &tempfile::TempDir) -> BenchFlags {
    let mut a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    a.push(format!("--db={}", dir.path().join("db").display()));
    match parse(&a).expect("flags parse") {
        Parsed::Run { flags, .. } => *flags,
        Parsed::Help => panic!("help"),
    }
}

fn run(args: &[&str]) -> (Vec<BenchmarkRecord>, String) {
    let dir = tempfile::tempdir().unwrap();
    let f = flags(args, &dir);
    let mut out = Vec::new();
    let recs = lsmlab_drivers::bench::run(&f, &[], &mut out, false).expect("bench runs");
    (recs, String::from_utf8(out).unwrap())
}

fn rec<'a>(recs: &'a [BenchmarkRecord], name: &str) -> &'a BenchmarkRecord {
    recs.iter().find(|r| r.name == name).expect(name)
}

/// The fields of a db_bench summary line, parsed as users' scripts parse them:
/// `name : X micros/op Y ops/sec Z seconds N operations;`.
fn summary_fields(out: &str, name: &str) -> (f64, u64, f64, u64) {
    let line = out
        .lines()
        .find(|l| l.starts_with(name) && l.contains(" micros/op "))
        .unwrap_or_else(|| panic!("no summary line for {name} in\n{out}"));
    let w: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(w[0], name);
    assert_eq!(w[1], ":");
    assert_eq!(w[3], "micros/op");
    assert_eq!(w[5], "ops/sec");
    assert_eq!(w[7], "seconds");
    assert_eq!(w[9], "operations;");
    (
        w[2].parse().unwrap(),
        w[4].parse().unwrap(),
        w[6].parse().unwrap(),
        w[8].parse().unwrap(),
    )
}

#[test]
fn readrandom_after_fillseq_finds_every_key() {
    let (recs, out) = run(&[
        "--benchmarks=fillseq,readrandom",
        "--num=500",
        "--reads=300",
        "--seed=1",
    ]);
    assert_eq!(rec(&recs, "fillseq").ops, 500);
    let r = rec(&recs, "readrandom");
    assert_eq!((r.reads, r.found, r.ops), (300, 300, 300));
    assert_eq!(r.message, "(300 of 300 found)");
    assert!(out.contains(" (300 of 300 found)\n"), "{out}");
    let (_, _, _, ops) = summary_fields(&out, "readrandom");
    assert_eq!(ops, 300);
    assert!(
        out.contains("-- lsmlab: readrandom --\nlsmlab write_amp"),
        "{out}"
    );
}

#[test]
fn write_amplification_of_a_fill_still_in_the_memtable_is_na_not_zero() {
    // 500 small keys stay in the default 64 MiB memtable: no byte reaches a table.
    let (recs, out) = run(&["--benchmarks=fillrandom", "--num=500", "--seed=1"]);
    assert_eq!(rec(&recs, "fillrandom").lsmlab.write_amp(), None);
    assert!(
        out.contains("lsmlab write_amp            : n/a (WAL-inclusive "),
        "{out}"
    );
    // With a memtable a tenth of the data, the fill flushes: now there is a figure.
    let (recs, _) = run(&[
        "--benchmarks=fillrandom",
        "--num=2000",
        "--write_buffer_size=32768",
        "--seed=1",
    ]);
    let wa = rec(&recs, "fillrandom").lsmlab.write_amp();
    assert!(wa.is_some_and(|w| w > 0.0), "{wa:?}");
}

#[test]
fn threads_each_do_the_full_count() {
    let (recs, out) = run(&[
        "--benchmarks=fillrandom,readrandom",
        "--num=300",
        "--threads=2",
        "--seed=5",
    ]);
    assert_eq!(rec(&recs, "fillrandom").ops, 600);
    assert_eq!(rec(&recs, "readrandom").reads, 600);
    assert_eq!(summary_fields(&out, "fillrandom").3, 600);
    // fillrandom draws Next() % num with duplicates, so some keys are missing; every found
    // key is one that a writer drew.
    let r = rec(&recs, "readrandom");
    assert!(r.found > 0 && r.found < 600, "{}", r.found);
}

#[test]
fn readseq_and_readreverse_visit_every_key_and_readmissing_none() {
    let (recs, _) = run(&[
        "--benchmarks=fillseq,readseq,readreverse,readmissing",
        "--num=400",
        "--seed=2",
    ]);
    assert_eq!(rec(&recs, "readseq").ops, 400);
    assert_eq!(rec(&recs, "readreverse").ops, 400);
    let m = rec(&recs, "readmissing");
    assert_eq!((m.reads, m.found), (400, 0));
    // readseq counts bytes: key 16 + value 100 per entry.
    assert_eq!(rec(&recs, "readseq").lsmlab.bytes_returned(), 400 * 116);
}

#[test]
fn deleterandom_removes_the_keys_db_bench_would_draw() {
    let num = 300u64;
    let (recs, _) = run(&[
        "--benchmarks=fillseq,deleterandom,readseq",
        "--num=300",
        "--seed=42",
    ]);
    // Thread k of the run (from 1, over every benchmark) is seeded --seed + 1000 + k:
    // fillseq had thread 1, so deleterandom's thread uses 42 + 1000 + 2.
    let mut r = Random64::new(1044);
    let deleted: HashSet<u64> = (0..num).map(|_| r.next_u64() % num).collect();
    assert_eq!(rec(&recs, "deleterandom").ops, num);
    assert_eq!(rec(&recs, "readseq").ops, num - deleted.len() as u64);
}

#[test]
fn seekrandom_finds_existing_keys() {
    let (recs, out) = run(&[
        "--benchmarks=fillseq,seekrandom",
        "--num=200",
        "--reads=100",
        "--seek_nexts=2",
        "--seed=3",
    ]);
    let s = rec(&recs, "seekrandom");
    assert_eq!((s.reads, s.found), (100, 100));
    assert!(s.latency_us.contains_key("seek"));
    assert!(out.contains("(100 of 100 found)"), "{out}");
}

#[test]
fn readrandomwriterandom_splits_by_readwritepercent() {
    let (recs, out) = run(&[
        "--benchmarks=fillseq,readrandomwriterandom",
        "--num=1000",
        "--readwritepercent=90",
        "--seed=4",
    ]);
    let r = rec(&recs, "readrandomwriterandom");
    assert_eq!(r.ops, 1000);
    assert_eq!(r.reads, 900);
    assert_eq!(r.found, 900);
    assert_eq!(r.latency_us["write"].count, 100);
    assert!(
        out.contains("( reads:900 writes:100 total:1000 found:900)"),
        "{out}"
    );
}

#[test]
fn readwhilewriting_reports_only_the_readers() {
    let (recs, _) = run(&[
        "--benchmarks=fillseq,readwhilewriting",
        "--num=500",
        "--threads=2",
        "--seed=6",
    ]);
    let r = rec(&recs, "readwhilewriting");
    assert_eq!(r.threads, 3);
    assert_eq!(r.ops, 1000);
    // The writer only overwrites keys in 0..num, so every read finds its key.
    assert_eq!((r.reads, r.found), (1000, 1000));
    assert!(!r.latency_us.contains_key("write"));
}

#[test]
fn overwrite_flush_compact_and_property_benchmarks_run() {
    let (recs, out) = run(&[
        "--benchmarks=fillseq,overwrite,flush,compact,waitforcompaction,stats,levelstats,sstables",
        "--num=100",
        "--seed=8",
    ]);
    assert_eq!(rec(&recs, "overwrite").ops, 100);
    assert_eq!(rec(&recs, "flush").ops, 1);
    assert_eq!(rec(&recs, "compact").ops, 1);
    assert_eq!(recs.len(), 4);
    // stats, levelstats and sstables print the engine's properties.
    assert!(out.contains("** Compaction Stats [default] **"), "{out}");
    assert!(out.contains("Level Files Size(MB)"), "{out}");
    assert!(out.contains("--- level 0 ---"), "{out}");
}

#[test]
fn use_existing_db_skips_fills() {
    let dir = tempfile::tempdir().unwrap();
    let load = flags(&["--benchmarks=fillseq", "--num=50", "--seed=9"], &dir);
    lsmlab_drivers::bench::run(&load, &[], &mut Vec::new(), false).expect("load");
    let f = flags(
        &[
            "--benchmarks=fillseq,readrandom",
            "--num=50",
            "--use_existing_db=1",
            "--seed=9",
        ],
        &dir,
    );
    let mut out = Vec::new();
    let recs = lsmlab_drivers::bench::run(&f, &[], &mut out, false).expect("bench runs");
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("fillseq      : skipped (--use_existing_db is true)\n"),
        "{out}"
    );
    assert_eq!(recs.len(), 1);
    // The reads find what the earlier run loaded: the database was reused, not recreated.
    assert_eq!(rec(&recs, "readrandom").found, 50);
}

#[test]
fn use_existing_db_refuses_a_missing_database() {
    let dir = tempfile::tempdir().unwrap();
    let f = flags(&["--benchmarks=readrandom", "--use_existing_db=1"], &dir);
    let e = lsmlab_drivers::bench::run(&f, &[], &mut Vec::new(), false).unwrap_err();
    assert!(e.0.starts_with("--use_existing_db: no database at"), "{e}");
    assert!(!dir.path().join("db").exists());
}

#[test]
fn histogram_statistics_and_json_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let f = flags(
        &[
            "--benchmarks=fillrandom",
            "--num=200",
            "--histogram=1",
            "--statistics",
            "--seed=10",
            &format!("--json={}", json.display()),
        ],
        &dir,
    );
    let mut out = Vec::new();
    lsmlab_drivers::bench::run(&f, &["num".into()], &mut out, false).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("Microseconds per write:\nCount: 200 Average: "),
        "{out}"
    );
    assert!(out.contains("Percentiles: P50: "), "{out}");
    assert!(
        out.contains("STATISTICS:\nrocksdb.block.cache.miss COUNT : 0\n"),
        "{out}"
    );
    // No --bloom_bits: no filter, so no filter bytes.
    assert!(out.contains("lsmlab.filter.bytes COUNT : 0\n"), "{out}");
    assert!(out.contains("Keys:       16 bytes each"), "{out}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["seed"], 10);
    assert_eq!(doc["flags"]["num"], 200);
    assert_eq!(doc["flags_set"][0], "num");
    let b = &doc["benchmarks"][0];
    assert_eq!(b["name"], "fillrandom");
    assert_eq!(b["ops"], 200);
    assert_eq!(b["latency_us"]["write"]["count"], 200);
    assert_eq!(b["lsmlab"]["user_bytes_written"], 200 * 116);
    assert!(b["lsmlab"]["tickers"]["rocksdb.bytes.written"].is_u64());
}

#[test]
fn seed_zero_is_derived_and_printed() {
    let (_, out) = run(&["--benchmarks=fillseq", "--num=10"]);
    let first = out.lines().next().unwrap();
    assert!(
        first.starts_with("Set seed to ") && first.ends_with(" because --seed was 0"),
        "{first}"
    );
}

/// Seed 000's common settings and experiment A, with `./db_bench` replaced and `--num` scaled.
#[test]
fn seed_000_command_line_runs_unchanged() {
    let (recs, out) = run(&[
        "--num=2000",
        "--value_size=1024",
        "--key_size=32",
        "--threads=2",
        "--block_size=4096",
        "--write_buffer_size=8388608",
        "--target_file_size_base=8388608",
        "--compression_type=none",
        "--statistics",
        "--report_bg_io_stats=true",
        "--bloom_bits=10",
        "--use_ribbon_filter=true",
        "--benchmarks=fillrandom,readrandom,readwhilewriting",
        "--seed=11",
    ]);
    assert_eq!(recs.len(), 3);
    for name in ["fillrandom", "readrandom", "readwhilewriting"] {
        let (micros, ops_sec, secs, ops) = summary_fields(&out, name);
        assert!(micros > 0.0 && ops_sec > 0 && secs > 0.0, "{name}");
        assert_eq!(ops, 4000, "{name}");
    }
    assert!(
        out.contains("rocksdb.bloom.filter.useful COUNT : "),
        "{out}"
    );
}

/// Seed 001's command line (LevelDB-style flags with db_bench's names).
#[test]
fn seed_001_command_line_runs_unchanged() {
    let (recs, out) = run(&[
        "--value_size=2000",
        "--use_existing_db=0",
        "--compression_ratio=1",
        "--benchmarks=fillseq",
        "--bloom_bits=64",
        "--num=500",
        "--seed=12",
    ]);
    assert_eq!(rec(&recs, "fillseq").ops, 500);
    // micros/op and MB/s, the two figures the study tabulates.
    let line = out.lines().find(|l| l.starts_with("fillseq")).unwrap();
    assert!(line.ends_with(" MB/s"), "{line}");
    assert!(out.contains("Values:     2000 bytes each (2000 bytes after compression)"));
}

#[test]
fn batches_are_whole_as_in_db_bench() {
    // 10 writes in batches of 3: db_bench writes 3 whole batches (9 keys).
    let (recs, _) = run(&[
        "--benchmarks=fillseq,readseq",
        "--num=10",
        "--batch_size=3",
        "--seed=13",
    ]);
    assert_eq!(rec(&recs, "fillseq").ops, 9);
    assert_eq!(rec(&recs, "readseq").ops, 9);
    assert_eq!(rec(&recs, "fillseq").latency_us["write"].count, 3);
}

#[test]
fn blob_files_store_the_values_and_write_amplification_counts_them_once() {
    let args = [
        "--benchmarks=fillseq,readrandom",
        "--num=2000",
        "--reads=500",
        "--value_size=1000",
        "--write_buffer_size=262144",
        // Both stores uncompressed: the bytes each writes are then the values' own.
        "--compression_type=none",
        "--seed=1",
    ];
    let (inline, _) = run(&args);
    let mut blob_args = args.to_vec();
    blob_args.extend(["--enable_blob_files=true", "--min_blob_size=0"]);
    let (blob, _) = run(&blob_args);
    let r = rec(&blob, "readrandom");
    assert_eq!((r.reads, r.found), (500, 500));
    let (wi, wb) = (
        rec(&inline, "fillseq").lsmlab.write_amp().unwrap(),
        rec(&blob, "fillseq").lsmlab.write_amp().unwrap(),
    );
    // Values are written once, to blob files, by the flush: about the same bytes as inline
    // tables at this size (fillseq makes no compaction rewrite values), not twice as many.
    assert!(
        wb > 0.8 && wb < 1.3 * wi.max(1.0),
        "write amplification with blob files {wb}, inline {wi}"
    );
    assert!(
        rec(&blob, "fillseq")
            .lsmlab
            .lsmlab()
            .unwrap()
            .blob_gc_floatup_bytes
            > 1_500_000
    );
}

/// Bytes of the table files in `dir`.
fn table_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sst"))
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum()
}

/// With no compression flag, bench compresses with Snappy (db_bench's default) and says so; with
/// each codec, values made at `--compression_ratio` shrink the tables to about that fraction.
#[test]
fn default_compression_is_snappy_and_tables_shrink_to_the_ratio() {
    let (_, out) = run(&["--benchmarks=fillseq", "--num=100", "--seed=3"]);
    assert!(out.contains("\nCompression: Snappy\n"), "{out}");
    let size = |codec: &str| {
        let dir = tempfile::tempdir().unwrap();
        let f = flags(
            &[
                "--benchmarks=fillseq,flush",
                "--num=3000",
                "--value_size=1024",
                "--compression_ratio=0.5",
                &format!("--compression_type={codec}"),
                "--seed=3",
            ],
            &dir,
        );
        let mut out = Vec::new();
        lsmlab_drivers::bench::run(&f, &[], &mut out, false).expect("bench runs");
        let out = String::from_utf8(out).unwrap();
        let name = lsmlab_drivers::bench::header::compression_name(f.compression().unwrap());
        assert!(out.contains(&format!("\nCompression: {name}\n")), "{out}");
        table_bytes(&dir.path().join("db"))
    };
    let none = size("none") as f64;
    // 16-byte keys and the index add a little to the values' 1024 bytes; keys do not compress.
    assert!(none > 3000.0 * 1040.0, "{none}");
    for (codec, low, high) in [
        ("snappy", 0.45, 0.62),
        ("lz4", 0.45, 0.62),
        ("zstd", 0.35, 0.58),
    ] {
        let r = size(codec) as f64 / none;
        assert!(
            low < r && r < high,
            "{codec}: {r:.3} of the uncompressed tables"
        );
    }
}
