//! Options that RocksDB's benchmark scripts turn, on the real file system: dynamic level sizing,
//! compression per level, a separate WAL directory, and the `rocksdb.stats` text those scripts
//! read by field position.

mod common;

use common::*;
use lsmlab::{Compression, Db, Options, WriteOptions};

fn opts() -> Options {
    Options {
        write_buffer_size: 64 * 1024,
        target_file_size_base: 32 * 1024,
        max_bytes_for_level_base: 128 * 1024,
        max_bytes_for_level_multiplier: 4.0,
        ..Options::default()
    }
}

fn files_at(db: &Db, level: usize) -> u64 {
    db.property_int(&format!("rocksdb.num-files-at-level{level}"))
        .unwrap()
}

#[test]
fn dynamic_level_bytes_fills_the_last_level_first() {
    let fill = |dynamic: bool| {
        let dir = tempfile::tempdir().unwrap();
        let o = Options {
            level_compaction_dynamic_level_bytes: dynamic,
            ..opts()
        };
        let db = Db::open(dir.path(), o).unwrap();
        for i in 0..6000u32 {
            db.put(&key(i % 3000), &value(i, 1, 100)).unwrap();
        }
        db.flush().unwrap();
        db.wait_for_background_work().unwrap();
        for i in 0..3000u32 {
            assert_eq!(db.get(&key(i)).unwrap(), Some(value(i + 3000, 1, 100)));
        }
        let shape: Vec<u64> = (0..7).map(|l| files_at(&db, l)).collect();
        (shape, dir)
    };
    let (static_shape, _d1) = fill(false);
    let (dynamic_shape, _d2) = fill(true);
    // Static targets: ~400 KiB of data fills level 1 and 2 from the top; nothing reaches 6.
    assert_eq!(static_shape[6], 0, "{static_shape:?}");
    assert!(static_shape[1] > 0, "{static_shape:?}");
    // Dynamic targets: level 0 compacts into the last level first, and the levels between
    // level 1 and the base level stay empty.
    assert!(dynamic_shape[6] > 0, "{dynamic_shape:?}");
    assert_eq!(dynamic_shape[1], 0, "{dynamic_shape:?}");
}

#[test]
fn compression_per_level_applies_to_flushes_and_compactions() {
    let o = Options {
        compression: Compression::Lz4,
        compression_per_level: vec![Compression::None, Compression::Lz4],
        ..opts()
    };
    assert_eq!(o.flush_table_options().compression, Compression::None);
    assert_eq!(o.table_options(1).compression, Compression::Lz4);
    assert_eq!(
        o.table_options(5).compression,
        Compression::Lz4,
        "the last entry covers deeper levels"
    );
    let o = Options {
        compression: Compression::Zstd,
        ..opts()
    };
    assert_eq!(o.flush_table_options().compression, Compression::Zstd);
    // Compressible values take less space where compression is on.
    let size_with = |per_level: Vec<Compression>| {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(
            dir.path(),
            Options {
                compression: Compression::Lz4,
                compression_per_level: per_level,
                disable_auto_compactions: true,
                ..opts()
            },
        )
        .unwrap();
        for i in 0..2000u32 {
            db.put(&key(i), &[b'x'; 200]).unwrap();
        }
        db.flush().unwrap();
        db.property_int("rocksdb.total-sst-files-size").unwrap()
    };
    let plain = size_with(vec![Compression::None]);
    let lz4 = size_with(Vec::new());
    assert!(lz4 * 2 < plain, "lz4 {lz4} vs none {plain}");
}

#[test]
fn wals_live_in_wal_dir_survive_reopen_and_are_destroyed_with_the_db() {
    let dir = tempfile::tempdir().unwrap();
    let db_dir = dir.path().join("db");
    let wal_dir = dir.path().join("wal");
    let o = || Options {
        wal_dir: Some(wal_dir.clone()),
        ..opts()
    };
    let wals_in = |d: &std::path::Path| {
        std::fs::read_dir(d)
            .map(|r| {
                r.filter(|e| {
                    e.as_ref()
                        .unwrap()
                        .file_name()
                        .to_string_lossy()
                        .ends_with(".log")
                })
                .count()
            })
            .unwrap_or(0)
    };
    {
        let db = Db::open(&db_dir, o()).unwrap();
        let sync = WriteOptions {
            sync: true,
            ..Default::default()
        };
        for i in 0..100u32 {
            let mut b = lsmlab::WriteBatch::new();
            b.put(&key(i), &value(i, 1, 50));
            db.write(&sync, b).unwrap();
        }
        assert!(wals_in(&wal_dir) >= 1);
        assert_eq!(wals_in(&db_dir), 0, "no WAL in the database directory");
        // Dropped without close or flush: the writes are only in the WAL.
        std::mem::forget(db);
    }
    // The lock of the leaked handle is per process; a new handle in this process would be
    // refused, so copy the files aside the way a crash leaves them.
    let copy = dir.path().join("copy");
    let copy_wal = dir.path().join("copy-wal");
    for (from, to) in [(&db_dir, &copy), (&wal_dir, &copy_wal)] {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_file() && e.file_name() != "LOCK" {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    }
    let o2 = || Options {
        wal_dir: Some(copy_wal.clone()),
        ..opts()
    };
    let db = Db::open(&copy, o2()).unwrap();
    for i in 0..100u32 {
        assert_eq!(db.get(&key(i)).unwrap(), Some(value(i, 1, 50)), "key {i}");
    }
    db.close().unwrap();
    let report = lsmlab::check::check_db_with_wal_dir(&copy, &copy_wal, opts().fs).unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    // Opened without its WAL directory, the database is refused, not silently emptied.
    let Err(e) = Db::open(&copy, opts()) else {
        panic!("opened although its WAL is elsewhere")
    };
    assert!(e.to_string().contains(".log"), "{e}");
    Db::destroy(&copy, &o2()).unwrap();
    assert!(!copy.exists());
    assert_eq!(wals_in(&copy_wal), 0);
}

#[test]
fn stats_put_each_figure_where_db_bench_parsers_read_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), opts()).unwrap();
    for i in 0..4000u32 {
        db.put(&key(i), &value(i, 1, 100)).unwrap();
    }
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    let s = db.property("rocksdb.stats").unwrap();
    let line = |prefix: &str| {
        s.lines()
            .rfind(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix:?} line in\n{s}"))
            .split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    // awk's fields, counted from 1 as tools/benchmark.sh counts them.
    let sum = line(" Sum");
    assert_eq!(sum.len(), 22, "{sum:?}");
    let sst = db.property_int("rocksdb.total-sst-files-size").unwrap() as f64;
    let unit = match sum[3].as_str() {
        "KB" => 1024.0,
        "MB" => 1048576.0,
        "GB" => 1073741824.0,
        u => panic!("size unit {u}"),
    };
    let size: f64 = sum[2].parse().unwrap();
    assert!(
        (size * unit - sst).abs() <= 0.01 * unit,
        "{size} {unit} vs {sst}"
    );
    let comp_secs: f64 = sum[14].parse().unwrap();
    let cpu_secs: f64 = sum[15].parse().unwrap();
    assert!(comp_secs >= 0.0 && cpu_secs >= 0.0);
    let count: u64 = sum[16].parse().unwrap();
    assert!(count >= 2, "a flush and a compaction at least: {sum:?}");
    let flush = line("Flush(GB):");
    assert_eq!(flush[1], "cumulative");
    let writes = line("Cumulative writes:");
    let ingest_at = writes.iter().position(|w| w == "ingest:").unwrap();
    assert_eq!(writes[ingest_at + 2], "GB,");
    assert_eq!(writes[2], "4000", "{writes:?}");
    let comp = line("Cumulative compaction:");
    assert_eq!((comp[3].as_str(), comp[4].as_str()), ("GB", "write,"));
    let stall = line("Cumulative stall:");
    let percent: f64 = stall[4].parse().unwrap();
    assert!((0.0..=100.0).contains(&percent), "{stall:?}");
    let stalls = line("Stalls(count):");
    assert_eq!(stalls.len(), 25, "{stalls:?}");
    // benchmark.sh's Nstall: fields 2, 6, 10, 14, 18 and 20.
    let nstall: u64 = [1, 5, 9, 13, 17, 19]
        .iter()
        .map(|&i| stalls[i].parse::<u64>().unwrap())
        .sum();
    // Every wait is counted: no count, no stall time.
    assert!(
        nstall > 0 || stall[2] == "00:00:0.000",
        "{stalls:?} {stall:?}"
    );
    let blob = line("Blob file count:");
    assert_eq!(blob[7], "GB,", "{blob:?}");
}
