//! Randomized model test: every read of the engine must equal a `BTreeMap`'s, across puts,
//! deletes, batches, scans in both directions, snapshots, flushes, compactions and reopens.

mod common;

use common::*;
use lsmlab::env::MemFs;
use lsmlab::filter::{FilterAllocation, FilterKind, FilterOptions};
use lsmlab::options::{Layout, StopStyle, UniversalOptions};
use lsmlab::{
    CompactionVictims, Compression, Db, Options, ReadOptions, Snapshot, WriteBatch, WriteOptions,
};
use proptest::prelude::*;
use std::collections::BTreeMap;

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

#[derive(Debug, Clone)]
enum Op {
    Put(u32, usize),
    Delete(u32),
    Batch(Vec<(u32, Option<usize>)>),
    Get(u32),
    Seek(u32, usize, bool),
    Flush,
    Compact(Option<(u32, u32)>),
    TakeSnapshot,
    CheckSnapshot(usize),
    Reopen,
}

fn op() -> impl Strategy<Value = Op> {
    let k = 0u32..300;
    prop_oneof![
        30 => (k.clone(), 0usize..200).prop_map(|(k, n)| Op::Put(k, n)),
        8 => k.clone().prop_map(Op::Delete),
        6 => prop::collection::vec((k.clone(), prop::option::of(0usize..100)), 1..20).prop_map(Op::Batch),
        15 => k.clone().prop_map(Op::Get),
        6 => (k.clone(), 0usize..30, any::<bool>()).prop_map(|(k, n, fwd)| Op::Seek(k, n, fwd)),
        2 => Just(Op::Flush),
        1 => prop::option::of((k.clone(), k)).prop_map(Op::Compact),
        2 => Just(Op::TakeSnapshot),
        3 => (0usize..8).prop_map(Op::CheckSnapshot),
        1 => Just(Op::Reopen),
    ]
}

fn seek_model(
    m: &BTreeMap<Vec<u8>, Vec<u8>>,
    k: &[u8],
    n: usize,
    fwd: bool,
) -> Vec<(Vec<u8>, Vec<u8>)> {
    let kv = |(a, b): (&Vec<u8>, &Vec<u8>)| (a.clone(), b.clone());
    if fwd {
        m.range(k.to_vec()..).take(n).map(kv).collect()
    } else {
        m.range(..=k.to_vec()).rev().take(n).map(kv).collect()
    }
}

fn seek_db(db: &Db, opts: &ReadOptions, k: &[u8], n: usize, fwd: bool) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut it = db.iter(opts).unwrap();
    let mut out = Vec::new();
    if fwd {
        it.seek(k);
    } else {
        it.seek_for_prev(k);
    }
    while it.valid() && out.len() < n {
        out.push((it.key().to_vec(), it.value().to_vec()));
        if fwd {
            it.next()
        } else {
            it.prev()
        }
    }
    it.status().unwrap();
    out
}

/// The engine's answers must not depend on these knobs: each configuration runs the same
/// operations against the same model.
fn configure(fs: &MemFs, config: u8) -> Options {
    let base = small_options(fs);
    match config {
        0 => base,
        1 => Options {
            filter: FilterOptions {
                bits_per_key: 10.0,
                kind: FilterKind::Bloom,
                bloom_before_level: 0,
                ..FilterOptions::default()
            },
            compression: Compression::Lz4,
            ..base
        },
        2 => Options {
            // Three compaction threads working on disjoint tables at once.
            max_background_jobs: 4,
            level0_file_num_compaction_trigger: 1,
            ..base
        },
        4 => Options {
            // Key-value separation: values of 0..200 bytes straddle min_blob_size, and small
            // blob files (the minimum size) make many of them; LZ4 per blob record.
            enable_blob_files: true,
            min_blob_size: 100,
            blob_file_size: 1024,
            blob_compression_type: Compression::Lz4,
            ..base
        },
        5 => Options {
            // Every value separated, with garbage collection relocating the older half of blob files.
            enable_blob_files: true,
            min_blob_size: 0,
            blob_file_size: 1024,
            enable_blob_garbage_collection: true,
            blob_garbage_collection_age_cutoff: 0.5,
            // Forced GC compactions too, including in-place rewrites of the last level.
            blob_garbage_collection_force_threshold: 0.2,
            ..base
        },
        6 => Options {
            // FSLSM with float-ups forced (every get that finds its key below level 0 asks for
            // one) and two compaction threads; snapshots are held across them. Small levels, so
            // that float-ups cross levels holding newer versions.
            max_background_jobs: 3,
            target_file_size_base: 1024,
            max_bytes_for_level_base: 2048,
            max_bytes_for_level_multiplier: 2.0,
            ..forced_fslsm_options(fs)
        },
        7 => Options {
            // Limits in tables and the coldest tables compacted first (seed 003's systems):
            // level 0 gives up a part of its tables, which must never let an older version
            // left there shadow a newer one moved down.
            max_files_for_level_base: 2,
            compaction_victims: CompactionVictims::LowestFrequency,
            max_background_jobs: 3,
            ..base
        },
        8 => {
            // The same under FSLSM with float-ups forced.
            let mut o = Options {
                max_files_for_level_base: 2,
                compaction_victims: CompactionVictims::LowestFrequency,
                max_background_jobs: 3,
                target_file_size_base: 1024,
                ..forced_fslsm_options(fs)
            };
            o.fslsm.frequency_window = 50;
            o
        }
        9 => Options {
            // Background work done by the calling thread at fixed points.
            deterministic_background: true,
            target_file_size_base: 1024,
            ..forced_fslsm_options(fs)
        },
        10 => Options {
            // Universal compaction with RocksDB's parameters and three compaction threads, so
            // that stretches of sorted runs merge side by side; snapshots are held across them.
            layout: Layout::Universal,
            max_background_jobs: 4,
            ..base
        },
        11 => {
            // Universal compaction that merges often and in every way: space bounded at 50 %
            // (full merges), similar-size stretches of at most three runs, trivial moves, and
            // every value in blob files with forced garbage collection rewriting tables.
            let mut o = Options {
                layout: Layout::Universal,
                level0_file_num_compaction_trigger: 3,
                max_background_jobs: 3,
                enable_blob_files: true,
                min_blob_size: 0,
                blob_file_size: 1024,
                enable_blob_garbage_collection: true,
                blob_garbage_collection_age_cutoff: 0.5,
                blob_garbage_collection_force_threshold: 0.2,
                ..base
            };
            o.universal = UniversalOptions {
                size_ratio: 0,
                max_merge_width: 3,
                max_size_amplification_percent: 50,
                allow_trivial_move: true,
                stop_style: StopStyle::SimilarSize,
                ..UniversalOptions::default()
            };
            o
        }
        _ => Options {
            // Bloom for flushes and level 1, Ribbon below; 3.5 bits to provoke false positives.
            filter: FilterOptions {
                bits_per_key: 3.5,
                kind: FilterKind::Ribbon,
                bloom_before_level: 2,
                ..FilterOptions::default()
            },
            compression: Compression::Zstd,
            block_cache_size: 0,
            ..base
        },
    }
}

fn run(ops: Vec<Op>, config: u8) {
    let fs = MemFs::new();
    let opts = configure(&fs, config);
    let mut db = Some(Db::open(DIR, opts.clone()).unwrap());
    let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    let mut snaps: Vec<(Snapshot, Model)> = Vec::new();
    let mut version = 0u32;
    for op in ops {
        let d = db.as_ref().unwrap();
        version += 1;
        match op {
            Op::Put(k, n) => {
                let v = value(k, version, n);
                d.put(&key(k), &v).unwrap();
                model.insert(key(k), v);
            }
            Op::Delete(k) => {
                d.delete(&key(k)).unwrap();
                model.remove(&key(k));
            }
            Op::Batch(items) => {
                let mut b = WriteBatch::new();
                for (k, v) in items {
                    match v {
                        Some(n) => {
                            let v = value(k, version, n);
                            b.put(&key(k), &v);
                            model.insert(key(k), v);
                        }
                        None => {
                            b.delete(&key(k));
                            model.remove(&key(k));
                        }
                    }
                }
                d.write(&WriteOptions::default(), b).unwrap();
            }
            Op::Get(k) => assert_eq!(
                d.get(&key(k)).unwrap(),
                model.get(&key(k)).cloned(),
                "get {k}"
            ),
            Op::Seek(k, n, fwd) => {
                let ro = ReadOptions::default();
                assert_eq!(
                    seek_db(d, &ro, &key(k), n, fwd),
                    seek_model(&model, &key(k), n, fwd),
                    "seek {k} fwd={fwd}"
                );
            }
            Op::Flush => d.flush().unwrap(),
            Op::Compact(r) => {
                let (lo, hi) = match r {
                    Some((a, b)) => (Some(key(a.min(b))), Some(key(a.max(b)))),
                    None => (None, None),
                };
                d.compact_range(lo.as_deref(), hi.as_deref()).unwrap();
            }
            Op::TakeSnapshot => {
                snaps.push((d.snapshot(), model.clone()));
                if snaps.len() > 4 {
                    snaps.remove(0);
                }
            }
            Op::CheckSnapshot(i) => {
                if let Some((s, m)) = snaps.get(i % snaps.len().max(1)) {
                    let ro = ReadOptions {
                        snapshot: Some(s.clone()),
                        ..Default::default()
                    };
                    assert_eq!(&scan(d, &ro), m, "snapshot scan");
                    for k in m.keys().take(5) {
                        assert_eq!(d.get_with(&ro, k).unwrap().as_ref(), m.get(k));
                    }
                }
            }
            Op::Reopen => {
                snaps.clear();
                db.take().unwrap().close().unwrap();
                db = Some(Db::open(DIR, opts.clone()).unwrap());
            }
        }
    }
    let d = db.as_ref().unwrap();
    let ro = ReadOptions::default();
    assert_eq!(scan(d, &ro), model, "final forward scan");
    let rev: Vec<_> = model.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    assert_eq!(scan_reverse(d, &ro), rev, "final reverse scan");
    d.wait_for_background_work().unwrap();
    assert_eq!(scan(d, &ro), model, "scan after background work");
    for (k, v) in &model {
        assert_eq!(d.get(k).unwrap().as_ref(), Some(v));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, max_shrink_iters: 200, ..ProptestConfig::default() })]

    #[test]
    fn engine_matches_a_btreemap(ops in prop::collection::vec(op(), 1..400), config in 0u8..12) {
        run(ops, config);
    }

    #[test]
    fn leveldb_wisckey_fslsm_and_universal_give_identical_answers(ops in prop::collection::vec(op(), 1..400)) {
        metamorphic(ops);
    }
}

/// Runs one operation sequence under the three presets of seed 003 (`fslsm` with float-ups
/// forced) and universal compaction, and compares every get, scan and snapshot read across them, and with the model.
fn metamorphic(ops: Vec<Op>) {
    let open = |preset: &str, fs: &MemFs| {
        let mut o = Options {
            target_file_size_base: 1024,
            max_bytes_for_level_base: 2048,
            max_bytes_for_level_multiplier: 2.0,
            ..forced_fslsm_options(fs)
        };
        o.apply_layout_preset(preset).unwrap();
        Db::open(DIR, o).unwrap()
    };
    let presets = ["leveldb", "wisckey", "fslsm", "universal"];
    let fss: Vec<MemFs> = presets.iter().map(|_| MemFs::new()).collect();
    let mut dbs: Vec<Db> = presets
        .iter()
        .zip(&fss)
        .map(|(p, fs)| open(p, fs))
        .collect();
    let mut model = Model::new();
    let mut snaps: Vec<Vec<Snapshot>> = vec![Vec::new(); presets.len()];
    let mut version = 0u32;
    // Every database answers the same; the first answer is also checked against the model.
    fn same<T: PartialEq + std::fmt::Debug>(what: &str, answers: Vec<T>, want: Option<&T>) {
        for (i, a) in answers.iter().enumerate().skip(1) {
            assert_eq!(&answers[0], a, "{what}: leveldb vs preset #{i}");
        }
        if let Some(w) = want {
            assert_eq!(&answers[0], w, "{what}: vs the model");
        }
    }
    for op in ops {
        version += 1;
        match op {
            Op::Put(k, n) => {
                let v = value(k, version, n);
                dbs.iter().for_each(|d| d.put(&key(k), &v).unwrap());
                model.insert(key(k), v);
            }
            Op::Delete(k) => {
                dbs.iter().for_each(|d| d.delete(&key(k)).unwrap());
                model.remove(&key(k));
            }
            Op::Batch(items) => {
                let mut b = WriteBatch::new();
                for (k, v) in items {
                    match v {
                        Some(n) => {
                            let v = value(k, version, n);
                            b.put(&key(k), &v);
                            model.insert(key(k), v);
                        }
                        None => {
                            b.delete(&key(k));
                            model.remove(&key(k));
                        }
                    }
                }
                for d in &dbs {
                    d.write(&WriteOptions::default(), b.clone()).unwrap();
                }
            }
            Op::Get(k) => {
                let got = dbs.iter().map(|d| d.get(&key(k)).unwrap()).collect();
                same(&format!("get {k}"), got, Some(&model.get(&key(k)).cloned()));
            }
            Op::Seek(k, n, fwd) => {
                let ro = ReadOptions::default();
                let got = dbs
                    .iter()
                    .map(|d| seek_db(d, &ro, &key(k), n, fwd))
                    .collect();
                same(
                    &format!("seek {k}"),
                    got,
                    Some(&seek_model(&model, &key(k), n, fwd)),
                );
            }
            Op::Flush => dbs.iter().for_each(|d| d.flush().unwrap()),
            Op::Compact(r) => {
                let (lo, hi) = match r {
                    Some((a, b)) => (Some(key(a.min(b))), Some(key(a.max(b)))),
                    None => (None, None),
                };
                for d in &dbs {
                    d.compact_range(lo.as_deref(), hi.as_deref()).unwrap();
                }
            }
            Op::TakeSnapshot => {
                for (d, s) in dbs.iter().zip(snaps.iter_mut()) {
                    s.push(d.snapshot());
                    if s.len() > 4 {
                        s.remove(0);
                    }
                }
            }
            Op::CheckSnapshot(i) => {
                let got: Vec<_> = dbs
                    .iter()
                    .zip(&snaps)
                    .filter_map(|(d, s)| {
                        let snap = s.get(i % s.len().max(1))?;
                        let ro = ReadOptions {
                            snapshot: Some(snap.clone()),
                            ..Default::default()
                        };
                        Some(scan(d, &ro))
                    })
                    .collect();
                same("snapshot scan", got, None);
            }
            Op::Reopen => {
                snaps.iter_mut().for_each(Vec::clear);
                let old = std::mem::take(&mut dbs);
                old.into_iter().for_each(|d| d.close().unwrap());
                dbs = presets
                    .iter()
                    .zip(&fss)
                    .map(|(p, fs)| open(p, fs))
                    .collect();
            }
        }
    }
    let ro = ReadOptions::default();
    for d in &dbs {
        d.wait_for_background_work().unwrap();
    }
    let got = dbs.iter().map(|d| scan(d, &ro)).collect();
    same("final scan", got, Some(&model));
    let got = dbs.iter().map(|d| scan_reverse(d, &ro)).collect();
    let rev: Vec<_> = model.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    same("final reverse scan", got, Some(&rev));
}

#[test]
fn many_levels_form_and_reads_stay_correct() {
    let fs = MemFs::new();
    let db = Db::open(DIR, small_options(&fs)).unwrap();
    let mut model = BTreeMap::new();
    for round in 0..6u32 {
        for i in 0..800u32 {
            let k = (i * 7919 + round * 13) % 1500;
            let v = value(k, round, 40 + (i % 50) as usize);
            db.put(&key(k), &v).unwrap();
            model.insert(key(k), v);
            if i % 97 == 0 {
                db.delete(&key(i % 1500)).unwrap();
                model.remove(&key(i % 1500));
            }
        }
    }
    db.wait_for_background_work().unwrap();
    let deep = (2..5).any(|l| {
        db.property_int(&format!("rocksdb.num-files-at-level{l}"))
            .unwrap()
            > 0
    });
    assert!(
        deep,
        "expected tables below level 1:\n{}",
        db.property("rocksdb.levelstats").unwrap()
    );
    assert_eq!(scan(&db, &ReadOptions::default()), model);
    for k in 0..1500 {
        assert_eq!(db.get(&key(k)).unwrap(), model.get(&key(k)).cloned());
    }
}

#[test]
fn tables_written_with_one_filter_read_correctly_under_another_setting() {
    let fs = MemFs::new();
    let mut model: Model = BTreeMap::new();
    let settings = [
        FilterOptions {
            bits_per_key: 10.0,
            kind: FilterKind::Bloom,
            bloom_before_level: 0,
            ..FilterOptions::default()
        },
        FilterOptions {
            bits_per_key: 7.5,
            kind: FilterKind::Ribbon,
            bloom_before_level: -1,
            ..FilterOptions::default()
        },
        FilterOptions::default(),
        FilterOptions {
            bits_per_key: 12.0,
            kind: FilterKind::Ribbon,
            bloom_before_level: 1,
            ..FilterOptions::default()
        },
        // Per level: no filter on the last level; a list with a level of none; Monkey.
        FilterOptions {
            bits_per_key: 10.0,
            optimize_filters_for_hits: true,
            ..FilterOptions::default()
        },
        FilterOptions {
            bits_per_key_per_level: vec![14.0, 0.0, 6.5],
            kind: FilterKind::Ribbon,
            ..FilterOptions::default()
        },
        FilterOptions {
            bits_per_key: 6.0,
            allocation: FilterAllocation::Monkey,
            ..FilterOptions::default()
        },
    ];
    for (round, filter) in settings.iter().enumerate() {
        let db = Db::open(
            DIR,
            Options {
                filter: filter.clone(),
                ..small_options(&fs)
            },
        )
        .unwrap();
        for (k, v) in &model {
            assert_eq!(db.get(k).unwrap().as_ref(), Some(v), "round {round}");
        }
        for i in 0..400u32 {
            let k = (i * 37 + round as u32 * 11) % 700;
            let v = value(k, round as u32, 30);
            db.put(&key(k), &v).unwrap();
            model.insert(key(k), v);
        }
        db.flush().unwrap();
        for k in 0..800u32 {
            assert_eq!(db.get(&key(k)).unwrap(), model.get(&key(k)).cloned());
        }
        db.close().unwrap();
    }
    let db = Db::open(DIR, small_options(&fs)).unwrap();
    assert_eq!(scan(&db, &ReadOptions::default()), model);
}

#[test]
fn filters_answer_absent_keys_without_reading_blocks() {
    let fs = MemFs::new();
    let filter = FilterOptions {
        bits_per_key: 10.0,
        kind: FilterKind::Bloom,
        bloom_before_level: 0,
        ..FilterOptions::default()
    };
    let db = Db::open(
        DIR,
        Options {
            filter,
            ..small_options(&fs)
        },
    )
    .unwrap();
    for k in 0..2000u32 {
        db.put(&key(k * 2), &value(k, 0, 20)).unwrap();
    }
    db.flush().unwrap();
    db.wait_for_background_work().unwrap();
    let stats = db.statistics();
    stats.reset();
    for k in 0..2000u32 {
        assert_eq!(db.get(&key(k * 2 + 1)).unwrap(), None);
    }
    let useful = stats.ticker(lsmlab::Ticker::BloomFilterUseful);
    let positive = stats.ticker(lsmlab::Ticker::BloomFilterFullPositive);
    let true_positive = stats.ticker(lsmlab::Ticker::BloomFilterFullTruePositive);
    assert_eq!(true_positive, 0, "absent keys cannot be true positives");
    let fpr = positive as f64 / (useful + positive) as f64;
    assert!(
        useful > 0 && fpr < 0.05,
        "useful {useful}, positive {positive}, FPR {fpr}"
    );
    assert!(db.property_int("lsmlab.filter.bytes").unwrap() > 0);
}

#[test]
fn manual_compaction_of_part_of_level0_never_lets_an_older_version_shadow_a_newer_one() {
    let fs = MemFs::new();
    let opts = Options {
        disable_auto_compactions: true,
        ..small_options(&fs)
    };
    let db = Db::open(DIR, opts).unwrap();
    // Older level-0 table: keys 110..=140, holding a value for 127.
    for k in 110..=140u32 {
        db.put(&key(k), &value(k, 1, 10)).unwrap();
    }
    db.flush().unwrap();
    // Newer level-0 table spanning 52..=286 that deletes 127.
    db.put(&key(52), b"x").unwrap();
    db.delete(&key(127)).unwrap();
    db.put(&key(286), b"y").unwrap();
    db.flush().unwrap();
    // The range meets only the newer table; both must move down together.
    db.compact_range(Some(&key(66)), Some(&key(101))).unwrap();
    assert_eq!(db.get(&key(127)).unwrap(), None);
    let mut it = db.iter(&ReadOptions::default()).unwrap();
    it.seek(&key(127));
    assert_eq!(it.key(), key(128).as_slice());
}
