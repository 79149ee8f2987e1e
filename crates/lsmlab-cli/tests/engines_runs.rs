//! The driver's tests on every engine built in: lsmlab always, RocksDB, LevelDB and fjall with
//! the cargo features `rocksdb`, `leveldb` and `fjall`. Each engine runs every benchmark kind on a small
//! database with counts that add up, YCSB load then run finds every loaded key, a key written
//! by one run is read by the next (`--use_existing_db`), and flags an engine cannot honour are
//! refused by name.

use lsmlab_drivers::bench::json::BenchmarkRecord;
use lsmlab_drivers::bench::random::Random64;
use lsmlab_drivers::flags::{parse, Parsed};
use lsmlab_drivers::ycsb::measure::Op;
use lsmlab_drivers::ycsb::{self, Phase};
use std::collections::HashSet;
use std::path::Path;

/// `lsmlab bench ARGS --engine=ENGINE --db=DB`: its records and output, or its error.
fn try_bench(
    engine: &str,
    db: &Path,
    args: &[&str],
) -> Result<(Vec<BenchmarkRecord>, String), String> {
    let mut a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    a.push(format!("--engine={engine}"));
    a.push(format!("--db={}", db.display()));
    let Parsed::Run {
        flags, explicit, ..
    } = parse(&a).expect("flags parse")
    else {
        panic!("help")
    };
    let mut out = Vec::new();
    let recs = lsmlab_drivers::bench::run(&flags, &explicit, &mut out, false).map_err(|e| e.0)?;
    Ok((recs, String::from_utf8(out).unwrap()))
}

fn bench(engine: &str, db: &Path, args: &[&str]) -> (Vec<BenchmarkRecord>, String) {
    try_bench(engine, db, args).unwrap_or_else(|e| panic!("{engine}: {e}"))
}

fn rec<'a>(recs: &'a [BenchmarkRecord], name: &str) -> &'a BenchmarkRecord {
    recs.iter().find(|r| r.name == name).expect(name)
}

fn reads_and_scans_add_up(engine: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (recs, out) = bench(
        engine,
        &dir.path().join("db"),
        &[
            "--benchmarks=fillseq,readrandom,readseq,readreverse,readmissing,seekrandom",
            "--num=400",
            "--reads=300",
            "--seek_nexts=2",
            "--seed=1",
            "--write_buffer_size=65536",
        ],
    );
    assert_eq!(rec(&recs, "fillseq").ops, 400);
    let r = rec(&recs, "readrandom");
    assert_eq!((r.reads, r.found), (300, 300), "{out}");
    assert!(out.contains(" (300 of 300 found)\n"), "{out}");
    // Each hit counts key 16 + value 100 bytes (the value's length comes back, not its bytes).
    let bytes = r.mb_per_sec.expect("readrandom MB/s") * r.seconds * 1048576.0;
    assert!((bytes - 300.0 * 116.0).abs() < 1.0, "{bytes} bytes");
    // readseq and readreverse stop at --reads; every entry is key 16 + value 100 bytes.
    assert_eq!(rec(&recs, "readseq").ops, 300);
    assert_eq!(rec(&recs, "readreverse").ops, 300);
    assert_eq!(rec(&recs, "readseq").lsmlab.bytes_returned(), 300 * 116);
    let m = rec(&recs, "readmissing");
    assert_eq!((m.reads, m.found), (300, 0));
    let s = rec(&recs, "seekrandom");
    assert_eq!((s.reads, s.found), (300, 300));
    assert!(out.contains(&format!("Engine:     {engine} ")), "{out}");
}

fn deletes_remove_the_drawn_keys(engine: &str) {
    let dir = tempfile::tempdir().unwrap();
    let num = 300u64;
    let (recs, _) = bench(
        engine,
        &dir.path().join("db"),
        &[
            "--benchmarks=fillseq,deleterandom,readseq",
            "--num=300",
            "--seed=42",
        ],
    );
    // deleterandom is the run's second thread: seeded 42 + 1000 + 2.
    let mut r = Random64::new(1044);
    let deleted: HashSet<u64> = (0..num).map(|_| r.next_u64() % num).collect();
    assert_eq!(rec(&recs, "deleterandom").ops, num);
    assert_eq!(rec(&recs, "readseq").ops, num - deleted.len() as u64);
}

fn writers_and_mixed_benchmarks_add_up(engine: &str) {
    let dir = tempfile::tempdir().unwrap();
    // fjall cannot wait for its compactions (support.rs).
    let wait = if engine == "fjall" {
        ""
    } else {
        "waitforcompaction,"
    };
    let list = format!(
        "--benchmarks=fillrandom,overwrite,readwhilewriting,seekrandomwhilewriting,readrandomwriterandom,flush,compact,{wait}stats,levelstats,sstables"
    );
    let (recs, out) = bench(
        engine,
        &dir.path().join("db"),
        &[
            &list,
            "--num=300",
            "--threads=2",
            "--seed=5",
            "--write_buffer_size=65536",
            "--reverse_iterator",
        ],
    );
    assert_eq!(rec(&recs, "fillrandom").ops, 600);
    assert_eq!(rec(&recs, "overwrite").ops, 600);
    // Two readers of 300 reads each; the writer is left out of the figures.
    let rw = rec(&recs, "readwhilewriting");
    assert_eq!(rw.reads, 600);
    assert!(rw.found > 0 && rw.found <= 600);
    assert_eq!(rec(&recs, "seekrandomwhilewriting").reads, 600);
    let m = rec(&recs, "readrandomwriterandom");
    assert_eq!(m.ops, 600);
    assert_eq!(m.reads, 2 * 270);
    assert_eq!(rec(&recs, "flush").ops, 1);
    assert_eq!(rec(&recs, "compact").ops, 1);
    // readrandomwriterandom's writes are among the keys: the last fill wrote user bytes.
    let w = rec(&recs, "fillrandom").lsmlab.clone();
    let user = match (w.lsmlab(), w.foreign()) {
        (Some(l), _) => l.user_bytes_written,
        (_, Some(f)) => f.user_bytes_written,
        _ => 0,
    };
    assert_eq!(user, 600 * 116);
    assert!(out.contains("-- lsmlab: compact"), "{out}");
}

fn a_second_run_reads_what_the_first_wrote(engine: &str) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    bench(
        engine,
        &db,
        &["--benchmarks=fillseq", "--num=500", "--seed=1"],
    );
    let (recs, out) = bench(
        engine,
        &db,
        &[
            "--benchmarks=fillseq,readrandom",
            "--num=500",
            "--seed=2",
            "--use_existing_db",
        ],
    );
    assert!(
        out.contains("fillseq      : skipped (--use_existing_db is true)"),
        "{out}"
    );
    let r = rec(&recs, "readrandom");
    assert_eq!((r.reads, r.found), (500, 500));
}

fn ycsb(engine: &str, phase: &str, db: &Path, props: &[&str]) -> ycsb::PhaseResult {
    let mut a = vec![phase.to_string(), "-P".into(), props[0].to_string()];
    for p in &props[1..] {
        a.push("-p".into());
        a.push(p.to_string());
    }
    a.push(format!("--db={}", db.display()));
    a.push(format!("--engine={engine}"));
    let args = ycsb::parse(&a).expect("ycsb args").expect("not help");
    assert_eq!(
        args.phase,
        if phase == "load" {
            Phase::Load
        } else {
            Phase::Run
        }
    );
    let mut out = Vec::new();
    ycsb::execute(&args, &mut out).unwrap_or_else(|e| panic!("{engine} ycsb {phase}: {e}"))
}

fn ycsb_run_finds_every_loaded_key(engine: &str) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let small = ["recordcount=500", "lsmlab.write_buffer_size=65536"];
    let mut load = vec!["workloadc"];
    load.extend(small);
    let r = ycsb(engine, "load", &db, &load);
    assert_eq!(r.measurements.returns(Op::Insert, "OK"), 500);
    let mut run = vec!["workloadc", "operationcount=1000", "threadcount=2"];
    run.extend(small);
    let r = ycsb(engine, "run", &db, &run);
    assert_eq!(r.measurements.count(Op::Read), 1000);
    assert_eq!(r.measurements.returns(Op::Read, "OK"), 1000);
    // A seed-003 mix with scans, updates and inserts: every operation is counted.
    let mut mix = vec!["fslsm-workload7", "operationcount=600"];
    mix.extend(small);
    let r = ycsb(engine, "run", &db, &mix);
    assert_eq!(r.operations, 600);
    let counted: u64 = [
        Op::Read,
        Op::Update,
        Op::Insert,
        Op::Scan,
        Op::ReadModifyWrite,
    ]
    .iter()
    .map(|&o| r.measurements.count(o))
    .sum::<u64>()
        - r.measurements.count(Op::ReadModifyWrite) * 2;
    assert_eq!(counted, 600);
    assert_eq!(
        r.measurements.returns(Op::Read, "NOT_FOUND"),
        0,
        "every read key was loaded or inserted"
    );
}

macro_rules! engine_tests {
    ($module:ident, $engine:literal) => {
        mod $module {
            #[test]
            fn reads_and_scans_add_up() {
                super::reads_and_scans_add_up($engine);
            }
            #[test]
            fn deletes_remove_the_drawn_keys() {
                super::deletes_remove_the_drawn_keys($engine);
            }
            #[test]
            fn writers_and_mixed_benchmarks_add_up() {
                super::writers_and_mixed_benchmarks_add_up($engine);
            }
            #[test]
            fn a_second_run_reads_what_the_first_wrote() {
                super::a_second_run_reads_what_the_first_wrote($engine);
            }
            #[test]
            fn ycsb_run_finds_every_loaded_key() {
                super::ycsb_run_finds_every_loaded_key($engine);
            }
            #[test]
            fn the_default_codec_shrinks_the_tables() {
                super::the_default_codec_shrinks_the_tables($engine);
            }
        }
    };
}

/// Bytes of the files under `dir` whose names end in one of the table suffixes of the engines
/// (`.sst`; LevelDB's `.ldb`; fjall's tables, numbered files under `tables`).
fn table_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            total += table_bytes(&path);
            continue;
        }
        let in_tables = path.parent().is_some_and(|p| p.ends_with("tables"));
        if in_tables || path.extension().is_some_and(|x| x == "sst" || x == "ldb") {
            total += std::fs::metadata(&path).unwrap().len();
        }
    }
    total
}

/// With no compression flag every engine compresses (db_bench's default, Snappy; fjall, which
/// has no Snappy, LZ4): values that compress to half leave tables well under the uncompressed
/// ones.
fn the_default_codec_shrinks_the_tables(engine: &str) {
    let size = |extra: &[&str]| {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db");
        let mut args = vec![
            "--benchmarks=fillseq,flush,readseq",
            "--num=2000",
            "--value_size=1000",
            "--compression_ratio=0.5",
            "--seed=1",
        ];
        args.extend_from_slice(extra);
        let (recs, out) = bench(engine, &db, &args);
        assert_eq!(rec(&recs, "readseq").ops, 2000, "{engine}");
        (table_bytes(&db), out)
    };
    let (plain, _) = size(&["--compression_type=none"]);
    let (compressed, out) = size(&[]);
    assert!(out.contains("\nCompression: Snappy\n"), "{out}");
    assert!(plain > 2000 * 1000, "{engine}: {plain} bytes of tables");
    assert!(
        compressed * 4 < plain * 3,
        "{engine}: {compressed} compressed bytes against {plain}"
    );
}

engine_tests!(lsmlab, "lsmlab");
#[cfg(feature = "rocksdb")]
engine_tests!(rocksdb, "rocksdb");
#[cfg(feature = "leveldb")]
engine_tests!(leveldb, "leveldb");
#[cfg(feature = "fjall")]
engine_tests!(fjall, "fjall");

fn refusal(args: &[&str]) -> String {
    let a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    match parse(&a) {
        Err(e) => e.0,
        Ok(_) => String::new(),
    }
}

#[cfg(feature = "leveldb")]
#[test]
fn leveldb_waits_for_its_compactions() {
    // 64 KiB memtables under 2.4 MB of writes: dozens of level-0 tables, compacted behind the
    // fill. After the wait no level is over LevelDB's trigger: level 0 under 4 tables.
    let dir = tempfile::tempdir().unwrap();
    let (_, out) = bench(
        "leveldb",
        &dir.path().join("db"),
        &[
            "--benchmarks=fillrandom,waitforcompaction,sstables",
            "--num=20000",
            "--value_size=100",
            "--write_buffer_size=65536",
            "--seed=3",
        ],
    );
    let tables = out
        .split("--- level 0 ---")
        .nth(1)
        .unwrap_or_else(|| panic!("no sstables listing in\n{out}"));
    let level0 = tables
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("--- level"))
        .filter(|l| l.contains(':'))
        .count();
    assert!(
        level0 < 4,
        "{level0} level-0 tables after the wait:\n{tables}"
    );
    assert!(tables.contains("--- level 1 ---"), "{tables}");
}

#[cfg(feature = "leveldb")]
#[test]
fn leveldb_refuses_what_it_cannot_honour_by_name() {
    for (flag, starts) in [
        ("--use_ribbon_filter=true", "--use_ribbon_filter: "),
        ("--enable_blob_files=true", "--enable_blob_files: "),
        ("--min_blob_size=100", "--min_blob_size: "),
        ("--compression_type=zstd", "--compression_type: "),
        ("--compression_type=lz4", "--compression_type: "),
        (
            "--max_bytes_for_level_base=1048576",
            "--max_bytes_for_level_base: ",
        ),
        ("--layout=fslsm", "--layout: "),
        ("--mmap_read=false", "--mmap_read: "),
    ] {
        let e = refusal(&["--engine=leveldb", flag]);
        assert!(
            e.starts_with(starts) && e.contains("leveldb engine"),
            "{flag}: {e}"
        );
        assert!(!e.contains('\n'));
    }
    // Values that are LevelDB's only behaviour ask for nothing it does not do.
    assert_eq!(
        refusal(&[
            "--engine=leveldb",
            "--compression_type=snappy",
            "--use_ribbon_filter=false",
            "--num_levels=7",
            "--bloom_bits=10",
            "--mmap_read=true"
        ]),
        ""
    );
    // And YCSB names the property.
    let dir = tempfile::tempdir().unwrap();
    let args = ycsb::parse(&[
        "load".into(),
        "-P".into(),
        "workloada".into(),
        "-p".into(),
        "lsmlab.enable_blob_files=true".into(),
        format!("--db={}", dir.path().join("db").display()),
        "--engine=leveldb".into(),
    ])
    .unwrap()
    .unwrap();
    let e = ycsb::execute(&args, &mut Vec::new()).err().unwrap().0;
    assert!(
        e.starts_with("-p lsmlab.enable_blob_files: LevelDB has no blob files"),
        "{e}"
    );
    assert!(
        !dir.path().join("db").exists(),
        "refused before anything ran"
    );
}

#[cfg(feature = "rocksdb")]
#[test]
fn rocksdb_refuses_lsmlab_layouts_and_takes_blob_files() {
    let e = refusal(&["--engine=rocksdb", "--layout=wisckey"]);
    assert!(
        e.starts_with("--layout: ") && e.contains("rocksdb engine"),
        "{e}"
    );
    let e = refusal(&["--engine=rocksdb", "--fslsm_gamma=3"]);
    assert!(e.starts_with("--fslsm_gamma: "), "{e}");
    // Blob files, Ribbon and statistics are RocksDB's own: the values reach the library.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let (recs, out) = bench(
        "rocksdb",
        &db,
        &[
            "--benchmarks=fillseq,flush,readrandom",
            "--num=300",
            "--seed=1",
            "--value_size=1000",
            "--enable_blob_files",
            "--min_blob_size=500",
            "--bloom_bits=10",
            "--use_ribbon_filter",
            "--statistics",
        ],
    );
    let blobs = std::fs::read_dir(&db)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "blob")
        })
        .count();
    assert!(blobs > 0, "no blob file in {}", db.display());
    assert!(out.contains("STATISTICS:\nrocksdb."), "{out}");
    assert!(
        out.contains("rocksdb.blobdb.blob.file.bytes.written COUNT : "),
        "{out}"
    );
    assert!(out.contains("Filter:     Ribbon 10 bits/key"), "{out}");
    let flush = rec(&recs, "flush").lsmlab.foreign().unwrap().clone();
    assert!(flush.flush_bytes.unwrap() > 300 * 1000, "{flush:?}");
    assert_eq!(rec(&recs, "readrandom").found, 300);
}

#[cfg(not(feature = "rocksdb"))]
#[test]
fn an_engine_not_built_in_is_refused_with_the_feature_to_build() {
    let e = refusal(&["--engine=rocksdb"]);
    assert!(e.contains("--features rocksdb"), "{e}");
}

#[cfg(not(feature = "fjall"))]
#[test]
fn fjall_not_built_in_is_refused_with_the_feature_to_build() {
    let e = refusal(&["--engine=fjall"]);
    assert!(
        e.starts_with(
            "--engine: invalid value \"fjall\": this lsmlab was built without the fjall engine"
        ) && e.contains("--features fjall"),
        "{e}"
    );
    assert!(!e.contains('\n'));
}

#[cfg(feature = "fjall")]
#[test]
fn fjall_finds_what_fillrandom_drew() {
    let dir = tempfile::tempdir().unwrap();
    let num = 500u64;
    let (recs, out) = bench(
        "fjall",
        &dir.path().join("db"),
        &[
            "--benchmarks=fillrandom,readrandom,readseq,seekrandom",
            "--num=500",
            "--seed=7",
            "--write_buffer_size=65536",
        ],
    );
    // The n-th benchmark's thread is seeded --seed + 1000 + n; keys are draws modulo --num.
    let draws = |n: u64| {
        let mut r = Random64::new(7 + 1000 + n);
        (0..num).map(move |_| r.next_u64() % num)
    };
    let written: HashSet<u64> = draws(1).collect();
    assert_eq!(rec(&recs, "fillrandom").ops, num);
    let r = rec(&recs, "readrandom");
    let hits = draws(2).filter(|k| written.contains(k)).count() as u64;
    assert_eq!((r.reads, r.found), (num, hits), "{out}");
    assert_eq!(rec(&recs, "readseq").ops, written.len() as u64);
    // As db_bench, a seek is found when it lands on its target.
    let s = rec(&recs, "seekrandom");
    let hits = draws(4).filter(|k| written.contains(k)).count() as u64;
    assert_eq!((s.reads, s.found), (num, hits), "{out}");
    assert!(out.contains("Engine:     fjall 3."), "{out}");
    assert!(out.contains("-- lsmlab: readseq (fjall) --"), "{out}");
}

#[cfg(feature = "fjall")]
#[test]
fn fjall_runs_ycsb_workload_a() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let r = ycsb("fjall", "load", &db, &["workloada", "recordcount=400"]);
    assert_eq!(r.measurements.returns(Op::Insert, "OK"), 400);
    let r = ycsb(
        "fjall",
        "run",
        &db,
        &["workloada", "recordcount=400", "operationcount=800"],
    );
    assert_eq!(r.operations, 800);
    let (reads, updates) = (
        r.measurements.count(Op::Read),
        r.measurements.count(Op::Update),
    );
    assert_eq!(reads + updates, 800);
    assert!(reads > 0 && updates > 0, "{reads} reads, {updates} updates");
    assert_eq!(r.measurements.returns(Op::Read, "OK"), reads);
    assert_eq!(r.measurements.returns(Op::Update, "OK"), updates);
}

#[cfg(feature = "fjall")]
#[test]
fn fjall_takes_what_it_has_and_refuses_the_rest_by_name() {
    for (flag, starts) in [
        (
            "--compression_type=zstd",
            "--compression_type: fjall has lz4 only",
        ),
        (
            "--compression_type=snappy",
            "--compression_type: fjall has lz4 only",
        ),
        (
            "--use_ribbon_filter=true",
            "--use_ribbon_filter: fjall has Bloom",
        ),
        (
            "--disable_wal=true",
            "--disable_wal: fjall always writes its journal",
        ),
        ("--num_levels=5", "--num_levels: fjall has 7 levels"),
        (
            "--benchmarks=fillseq,waitforcompaction",
            "--benchmarks: waitforcompaction: fjall has no way",
        ),
        ("--layout=wisckey", "--layout: "),
    ] {
        let e = refusal(&["--engine=fjall", flag]);
        assert!(
            e.starts_with(starts) && e.contains("the fjall engine cannot honour it"),
            "{flag}: {e}"
        );
        assert!(!e.contains('\n'));
    }
    assert_eq!(
        refusal(&[
            "--engine=fjall",
            "--num_levels=7",
            "--bloom_bits=10",
            "--compression_type=lz4",
            "--cache_size=1048576",
        ]),
        ""
    );
    // The values reach fjall: blob files with lz4 tables and Bloom filters, read back.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let (recs, out) = bench(
        "fjall",
        &db,
        &[
            "--benchmarks=fillseq,flush,readrandom,stats",
            "--num=300",
            "--seed=1",
            "--value_size=1000",
            "--enable_blob_files",
            "--min_blob_size=500",
            "--bloom_bits=10",
            "--compression_type=lz4",
            "--statistics",
        ],
    );
    assert_eq!(rec(&recs, "readrandom").found, 300);
    assert!(out.contains("fjall.blob.files COUNT : "), "{out}");
    assert!(!out.contains("fjall.blob.files COUNT : 0\n"), "{out}");
}

/// Overwrites the middle half of every blob file under `dir` (lsmlab's and RocksDB's `.blob`
/// files, fjall's `blobs` folders) with 0xA5 bytes; the number of files damaged.
fn damage_blob_files(dir: &Path) -> usize {
    let mut damaged = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            damaged += damage_blob_files(&path);
            continue;
        }
        let in_blobs = path.parent().is_some_and(|p| p.ends_with("blobs"));
        if !(in_blobs || path.extension().is_some_and(|x| x == "blob")) {
            continue;
        }
        let mut bytes = std::fs::read(&path).unwrap();
        let n = bytes.len();
        bytes[n / 4..3 * n / 4].fill(0xA5);
        std::fs::write(&path, bytes).unwrap();
        damaged += 1;
    }
    damaged
}

/// `readrandom` reads each value, also from a blob file, as db_bench's does (it pins the value):
/// with the blob files damaged it fails, where `readmissing` on the same database (no value
/// read) still runs. A lookup that answered from the blob pointer alone would pass both.
fn readrandom_reads_separated_values(engine: &str) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let blob = [
        "--num=300",
        "--seed=1",
        "--value_size=1000",
        "--enable_blob_files",
        "--min_blob_size=500",
    ];
    let mut args = vec!["--benchmarks=fillseq,flush,readrandom"];
    args.extend(blob);
    let (recs, _) = bench(engine, &db, &args);
    assert_eq!(rec(&recs, "readrandom").found, 300);
    assert!(
        damage_blob_files(&db) > 0,
        "no blob file in {}",
        db.display()
    );
    let run = |benchmark: &str| {
        let benchmarks = format!("--benchmarks={benchmark}");
        let mut a = vec![benchmarks.as_str(), "--use_existing_db=1"];
        a.extend(blob);
        try_bench(engine, &db, &a)
    };
    assert!(
        run("readmissing").is_ok(),
        "{engine}: readmissing reads no value"
    );
    assert!(
        run("readrandom").is_err(),
        "{engine}: readrandom read no blob"
    );
}

#[test]
fn lsmlab_readrandom_reads_separated_values() {
    readrandom_reads_separated_values("lsmlab");
}

/// `--mmap_read` reaches RocksDB: the OPTIONS file the database writes records it, both ways.
#[cfg(feature = "rocksdb")]
#[test]
fn rocksdb_reads_through_memory_maps_as_mmap_read_says() {
    for on in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db");
        let flag = format!("--mmap_read={on}");
        let (recs, _) = bench(
            "rocksdb",
            &db,
            &["--benchmarks=fillseq,readrandom", "--num=200", &flag],
        );
        assert_eq!(rec(&recs, "readrandom").found, 200);
        let options: String = std::fs::read_dir(&db)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("OPTIONS-")
            })
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect();
        assert!(
            options.contains(&format!("allow_mmap_reads={on}")),
            "{flag}: {options}"
        );
    }
}

#[cfg(feature = "rocksdb")]
#[test]
fn rocksdb_readrandom_reads_separated_values() {
    readrandom_reads_separated_values("rocksdb");
}

#[cfg(feature = "fjall")]
#[test]
fn fjall_readrandom_reads_separated_values() {
    readrandom_reads_separated_values("fjall");
}

#[test]
fn an_unknown_engine_is_refused_naming_the_choices() {
    let e = refusal(&["--engine=wiredtiger"]);
    assert_eq!(
        e,
        "--engine: invalid value \"wiredtiger\": allowed lsmlab, rocksdb, leveldb, fjall"
    );
    let e = refusal(&["--engine="]);
    assert!(e.starts_with("--engine: invalid value \"\""), "{e}");
}
