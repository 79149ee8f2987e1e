//! Table-level tests: round trips through an in-memory file system, seeks, the block cache,
//! and corruption (bit flips, truncation) that must give correct data or `Corruption`.

use super::*;
use crate::cache::BlockCache;
use crate::env::{Env, IoCategory, MemFs};
use crate::error::Error;
use crate::iter::InternalIterator;
use crate::key::{
    compare_internal, lookup_key, make_internal_key, user_key, InternalKey, ValueKind,
};
use crate::stats::{HistogramKind, Statistics, Ticker};
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

type Model = BTreeMap<InternalKey, Vec<u8>>;

fn opts(block_size: usize, interval: usize, compression: Compression) -> TableOptions {
    TableOptions {
        block_size,
        block_restart_interval: interval,
        compression,
        filter: None,
    }
}

/// Even user keys `key000000`, `key000002`, … with 1–3 versions each (some deletions); odd
/// keys are absent. Values are compressible and name their key and sequence.
fn model(n: u32) -> Model {
    let mut m = Model::new();
    for i in (0..n).map(|i| i * 2) {
        let u = format!("key{i:06}");
        for v in 0..(i % 3 + 1) as u64 {
            let seq = 100 + 10 * v + i as u64 % 7;
            let kind = if (i + v as u32).is_multiple_of(11) {
                ValueKind::Deletion
            } else {
                ValueKind::Value
            };
            let value = if kind == ValueKind::Deletion {
                Vec::new()
            } else {
                format!("value of {u} at {seq} ")
                    .repeat((i % 5 + 1) as usize)
                    .into_bytes()
            };
            m.insert(
                InternalKey(make_internal_key(u.as_bytes(), seq, kind)),
                value,
            );
        }
    }
    m
}

/// [`model`] with each value grown to ~200 bytes of incompressible bytes: with 128-byte blocks
/// every block holds one entry and its key is a small share of it, so tables are of format 2
/// with or without compression.
fn wide_model(n: u32) -> Model {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    model(n)
        .into_iter()
        .map(|(k, mut v)| {
            if !v.is_empty() {
                while v.len() < 200 {
                    x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    v.push((x >> 56) as u8);
                }
            }
            (k, v)
        })
        .collect()
}

fn build(env: &Env, path: &Path, m: &Model, o: TableOptions) -> TableSummary {
    let f = env.create(path, IoCategory::Flush).unwrap();
    let mut b = TableBuilder::new(f, path.to_path_buf(), o);
    for (k, v) in m {
        b.add(&k.0, v).unwrap();
    }
    assert_eq!(b.num_entries(), m.len() as u64);
    b.finish().unwrap()
}

fn open(
    env: &Env,
    path: &Path,
    cache: Option<Arc<BlockCache>>,
) -> crate::error::Result<Arc<TableReader>> {
    let f = env.open_random(path)?;
    TableReader::open(f, path.to_path_buf(), 7, cache, Arc::new(Statistics::new())).map(Arc::new)
}

fn model_get(m: &Model, lookup: &[u8]) -> TableGet {
    match m.range(InternalKey(lookup.to_vec())..).next() {
        Some((k, v)) if user_key(&k.0) == user_key(lookup) => TableGet::Found {
            ikey: k.0.clone(),
            value: v.clone().into(),
        },
        _ => TableGet::NotFound,
    }
}

/// The current entry, its value read first (a deferred entry's block is read here); `None` if
/// that failed.
fn entry(it: &mut dyn InternalIterator) -> Option<(Vec<u8>, Vec<u8>)> {
    let key = it.key().to_vec();
    it.prepare_value().then(|| (key, it.value().to_vec()))
}

fn scan_forward(it: &mut dyn InternalIterator) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    it.seek_to_first();
    while it.valid() {
        let Some(e) = entry(it) else { break };
        out.push(e);
        it.next();
    }
    out
}

fn scan_backward(it: &mut dyn InternalIterator) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    it.seek_to_last();
    while it.valid() {
        let Some(e) = entry(it) else { break };
        out.push(e);
        it.prev();
    }
    out.reverse();
    out
}

fn entries(m: &Model) -> Vec<(Vec<u8>, Vec<u8>)> {
    m.iter().map(|(k, v)| (k.0.clone(), v.clone())).collect()
}

/// Lookups that cover present keys at every interesting sequence, absent keys, and both ends.
fn lookups(m: &Model) -> Vec<Vec<u8>> {
    let mut out = vec![lookup_key(b"", 1000), lookup_key(b"zzz", 1000)];
    for k in m.keys() {
        let u = user_key(&k.0);
        for seq in [0, 99, 105, 112, 125, 1000] {
            out.push(lookup_key(u, seq));
        }
        let mut absent = u.to_vec();
        absent.push(b'!');
        out.push(lookup_key(&absent, 1000));
    }
    out
}

#[test]
fn table_round_trip_with_each_compression() {
    let m = model(600);
    let want = entries(&m);
    let mut sizes = Vec::new();
    for c in [
        Compression::None,
        Compression::Lz4,
        Compression::Zstd,
        Compression::Snappy,
    ] {
        let env = Env::new(Arc::new(MemFs::new()));
        let path = PathBuf::from(format!("/db/{c:?}.sst"));
        let s = build(&env, &path, &m, opts(512, 4, c));
        assert_eq!(s.smallest, want[0].0);
        assert_eq!(s.largest, want[want.len() - 1].0);
        assert_eq!(s.file_size, env.fs.file_size(&path).unwrap());
        let t = open(&env, &path, None).unwrap();
        assert_eq!(t.properties(), &s.properties);
        assert_eq!(t.properties().num_entries, m.len() as u64);
        assert!(t.properties().num_data_blocks > 20);
        assert_eq!(
            t.properties().num_deletions,
            m.keys().filter(|k| k.0[k.0.len() - 8] == 0).count() as u64
        );
        assert_eq!(t.memory_usage() as u64 + 5, t.properties().index_size);
        for l in lookups(&m) {
            assert_eq!(t.get(&l, IoCategory::UserRead).unwrap(), model_get(&m, &l));
        }
        let mut it = t.iter(IoCategory::UserRead, BlockFetch::SEQUENTIAL);
        assert_eq!(scan_forward(it.as_mut()), want);
        assert_eq!(scan_backward(it.as_mut()), want);
        it.status().unwrap();
        sizes.push(t.properties().data_size);
    }
    // The values repeat themselves: every compressor must shrink the data blocks.
    for s in &sizes[1..] {
        assert!(*s < sizes[0] * 3 / 4, "{sizes:?}");
    }
}

#[test]
fn get_returns_newest_version_at_or_below_the_lookup_sequence() {
    // One entry per block, so that versions of a user key span several blocks.
    for block_size in [1, 64, 4096] {
        let mut m = Model::new();
        for (u, seqs) in [
            (&b"a"[..], &[3u64][..]),
            (b"k", &[50, 40, 30, 20, 10]),
            (b"z", &[7]),
        ] {
            for &s in seqs {
                m.insert(
                    InternalKey(make_internal_key(u, s, ValueKind::Value)),
                    format!("{}@{s}", u[0] as char).into_bytes(),
                );
            }
        }
        let env = Env::new(Arc::new(MemFs::new()));
        let path = PathBuf::from("/t.sst");
        build(&env, &path, &m, opts(block_size, 2, Compression::None));
        let t = open(&env, &path, None).unwrap();
        let found = |seq: u64| match t.get(&lookup_key(b"k", seq), IoCategory::UserRead).unwrap() {
            TableGet::Found { value, .. } => Some(String::from_utf8(value.into_vec()).unwrap()),
            other => {
                assert_eq!(other, TableGet::NotFound);
                None
            }
        };
        assert_eq!(found(100).as_deref(), Some("k@50"));
        assert_eq!(found(45).as_deref(), Some("k@40"));
        assert_eq!(found(40).as_deref(), Some("k@40"));
        assert_eq!(found(11).as_deref(), Some("k@10"));
        assert_eq!(found(9), None);
        assert_eq!(
            t.get(&lookup_key(b"j", 100), IoCategory::UserRead).unwrap(),
            TableGet::NotFound
        );
        assert_eq!(
            t.get(&lookup_key(b"zz", 100), IoCategory::UserRead)
                .unwrap(),
            TableGet::NotFound
        );
    }
}

#[test]
fn seek_lands_on_first_entry_at_or_after_target_and_steps_both_ways() {
    let m = model(300);
    let want = entries(&m);
    let env = Env::new(Arc::new(MemFs::new()));
    let path = PathBuf::from("/t.sst");
    build(&env, &path, &m, opts(200, 3, Compression::Lz4));
    let t = open(&env, &path, None).unwrap();
    let mut it = t.iter(IoCategory::UserRead, BlockFetch::Cached);
    for target in lookups(&m) {
        it.seek(&target);
        let pos = want
            .iter()
            .position(|(k, _)| compare_internal(k, &target) != std::cmp::Ordering::Less);
        match pos {
            None => assert!(!it.valid()),
            Some(i) => {
                assert!(it.valid());
                assert_eq!(entry(it.as_mut()).unwrap(), want[i]);
                it.prev();
                if i == 0 {
                    assert!(!it.valid());
                } else {
                    assert_eq!(it.key(), &want[i - 1].0[..]);
                    it.next();
                    assert_eq!(it.key(), &want[i].0[..]);
                    it.next();
                    match want.get(i + 1) {
                        Some(e) => assert_eq!(it.key(), &e.0[..]),
                        None => assert!(!it.valid()),
                    }
                }
            }
        }
        it.status().unwrap();
    }
}

/// The format version in a table's footer.
fn table_version(env: &Env, path: &Path) -> u32 {
    let bytes = env.fs.read_file(path).unwrap();
    footer::Footer::decode(&bytes[bytes.len() - footer::FOOTER_LEN..])
        .unwrap()
        .version
}

/// Large values (one entry per block) give a format-2 table, whose user iterators stand at a
/// block's first key without reading the block; small values give format 1.
#[test]
fn seeks_in_one_entry_blocks_read_only_the_values_handed_out() {
    let mut big = Model::new();
    for i in 0..40u32 {
        let k = make_internal_key(format!("key{:04}", i * 2).as_bytes(), 5, ValueKind::Value);
        big.insert(InternalKey(k), vec![i as u8; 300]);
    }
    let want = entries(&big);
    let env = Env::new(Arc::new(MemFs::new()));
    let version = |path: &Path| table_version(&env, path);
    let path = PathBuf::from("/big.sst");
    let s = build(&env, &path, &big, opts(256, 16, Compression::None));
    assert_eq!(s.properties.num_data_blocks, 40);
    assert_eq!(version(&path), footer::FORMAT_FIRST_KEY_INDEX);
    let small_path = PathBuf::from("/small.sst");
    build(
        &env,
        &small_path,
        &model(100),
        opts(256, 16, Compression::None),
    );
    assert_eq!(version(&small_path), footer::FORMAT_PLAIN_INDEX);
    // One entry a block too, but keys as large as the values: their copies in the index would
    // be half the data, so format 1.
    let big_keys: Model = (0..20u32)
        .map(|i| {
            let u = format!("{i:0300}");
            (
                InternalKey(make_internal_key(u.as_bytes(), 5, ValueKind::Value)),
                vec![1u8; 300],
            )
        })
        .collect();
    let big_keys_path = PathBuf::from("/big_keys.sst");
    let s = build(
        &env,
        &big_keys_path,
        &big_keys,
        opts(256, 16, Compression::None),
    );
    assert_eq!(s.properties.num_data_blocks, 20);
    assert_eq!(version(&big_keys_path), footer::FORMAT_PLAIN_INDEX);

    let stats = Arc::new(Statistics::new());
    let f = env.open_random(&path).unwrap();
    let t = Arc::new(TableReader::open(f, path.clone(), 7, None, stats.clone()).unwrap());
    let read = || stats.ticker(Ticker::GetReadBytes);
    let mut it = t.iter(IoCategory::UserRead, BlockFetch::Cached);
    for (i, (k, v)) in want.iter().enumerate() {
        // A target between two keys, and the key itself: both land on a block's first key.
        let before = match i {
            0 => lookup_key(b"a", 9),
            _ => lookup_key(format!("key{:04}", i * 2 - 1).as_bytes(), 9),
        };
        for target in [before, k.clone()] {
            let n = read();
            it.seek(&target);
            assert_eq!(it.key(), &k[..]);
            assert_eq!(read(), n, "seek {i} read a block");
            // Stepping past unread one-entry blocks reads nothing either.
            it.next();
            match want.get(i + 1) {
                Some(e) => assert_eq!(it.key(), &e.0[..]),
                None => assert!(!it.valid()),
            }
            assert_eq!(read(), n, "next {i} read a block");
        }
        let n = read();
        it.seek(k);
        assert!(it.prepare_value());
        assert_eq!(it.value(), &v[..]);
        assert!(read() > n, "the value's block was not read");
    }
    // Past the last key (below the index's last separator): invalid, nothing read.
    let n = read();
    it.seek(&lookup_key(b"key0079", 9));
    assert!(!it.valid());
    it.status().unwrap();
    assert_eq!(read(), n);
    // A sequential reader reads every block it passes.
    let mut seq = t.iter(IoCategory::UserRead, BlockFetch::SEQUENTIAL);
    assert_eq!(scan_forward(seq.as_mut()), want);

    // Keys 20 apart get short separators (`key001` between `key0000` and `key0020`): a target
    // between a key and its separator lands on that key's block, whose one entry is below it,
    // and goes on to the next block's first key, reading neither.
    let sparse: Model = (0..10u32)
        .map(|i| {
            let k = make_internal_key(format!("key{:04}", i * 20).as_bytes(), 5, ValueKind::Value);
            (InternalKey(k), vec![3u8; 300])
        })
        .collect();
    let path = PathBuf::from("/sparse.sst");
    build(&env, &path, &sparse, opts(256, 16, Compression::None));
    let stats = Arc::new(Statistics::new());
    let f = env.open_random(&path).unwrap();
    let t = Arc::new(TableReader::open(f, path.clone(), 8, None, stats.clone()).unwrap());
    assert!(t
        .index_entries()
        .unwrap()
        .iter()
        .any(|e| user_key(&e.separator) == b"key001"));
    let mut it = t.iter(IoCategory::UserRead, BlockFetch::Cached);
    for i in 0..10u32 {
        it.seek(&lookup_key(format!("key{:04}", i * 20 + 5).as_bytes(), 9));
        match i {
            9 => assert!(!it.valid()),
            _ => assert_eq!(
                user_key(it.key()),
                format!("key{:04}", (i + 1) * 20).as_bytes()
            ),
        }
    }
    it.status().unwrap();
    assert_eq!(stats.ticker(Ticker::GetReadBytes), 0);

    // Two entries a block (format 2 still): a step from an unread first entry must read the
    // block for the second.
    let pairs: Model = big.keys().map(|k| (k.clone(), vec![7u8; 130])).collect();
    let path = PathBuf::from("/pairs.sst");
    let s = build(&env, &path, &pairs, opts(256, 16, Compression::None));
    assert_eq!(s.properties.num_data_blocks, 20);
    assert_eq!(version(&path), footer::FORMAT_FIRST_KEY_INDEX);
    let t = open(&env, &path, None).unwrap();
    assert_eq!(
        key_walk(&t),
        big.keys().map(|k| k.0.clone()).collect::<Vec<_>>()
    );
}

/// The keys a user iterator passes from the first, no value read.
fn key_walk(t: &Arc<TableReader>) -> Vec<Vec<u8>> {
    let mut it = t.iter(IoCategory::UserRead, BlockFetch::Cached);
    let mut keys = Vec::new();
    it.seek_to_first();
    while it.valid() {
        keys.push(it.key().to_vec());
        it.next();
    }
    it.status().unwrap();
    keys
}

#[test]
fn empty_table_opens_and_has_no_entries() {
    let env = Env::new(Arc::new(MemFs::new()));
    let path = PathBuf::from("/e.sst");
    let s = build(
        &env,
        &path,
        &Model::new(),
        opts(4096, 16, Compression::None),
    );
    assert!(s.smallest.is_empty() && s.largest.is_empty());
    let t = open(&env, &path, None).unwrap();
    assert_eq!(
        t.get(&lookup_key(b"a", 9), IoCategory::UserRead).unwrap(),
        TableGet::NotFound
    );
    let mut it = t.iter(IoCategory::UserRead, BlockFetch::Cached);
    assert!(scan_forward(it.as_mut()).is_empty());
    assert!(scan_backward(it.as_mut()).is_empty());
    it.seek(&lookup_key(b"a", 9));
    assert!(!it.valid());
    it.status().unwrap();
}

#[test]
fn out_of_order_and_malformed_keys_are_invalid_arguments() {
    let env = Env::new(Arc::new(MemFs::new()));
    let path = PathBuf::from("/o.sst");
    let f = env.create(&path, IoCategory::Flush).unwrap();
    let mut b = TableBuilder::new(f, path.clone(), opts(4096, 16, Compression::None));
    b.add(&make_internal_key(b"b", 5, ValueKind::Value), b"1")
        .unwrap();
    let bad = [
        make_internal_key(b"b", 5, ValueKind::Value), // duplicate
        make_internal_key(b"b", 6, ValueKind::Value), // newer version after older
        make_internal_key(b"a", 9, ValueKind::Value), // smaller user key
        b"short".to_vec(),                            // no trailer
    ];
    for k in &bad {
        assert!(
            matches!(b.add(k, b"x"), Err(Error::InvalidRequest(_))),
            "{k:?}"
        );
    }
    b.add(&make_internal_key(b"b", 4, ValueKind::Value), b"2")
        .unwrap();
    assert_eq!(b.finish().unwrap().properties.num_entries, 2);
}

#[test]
fn block_cache_serves_the_second_get_and_stays_within_capacity() {
    let m = model(400);
    let env = Env::new(Arc::new(MemFs::new()));
    let path = PathBuf::from("/c.sst");
    build(&env, &path, &m, opts(256, 4, Compression::None));
    let cap = 4096;
    let cache = Arc::new(BlockCache::new(cap));
    let stats = Arc::new(Statistics::new());
    let f = env.open_random(&path).unwrap();
    let t = TableReader::open(f, path.clone(), 1, Some(cache.clone()), stats.clone()).unwrap();
    let before = env.io.get(IoCategory::UserRead).bytes_read;
    assert_eq!(before, 0, "open must count under Other");
    assert!(env.io.get(IoCategory::Other).bytes_read > 0);

    let l = lookup_key(b"key000010", 1000);
    let want = model_get(&m, &l);
    assert_eq!(t.get(&l, IoCategory::UserRead).unwrap(), want);
    assert_eq!(stats.ticker(Ticker::BlockCacheMiss), 1);
    assert_eq!(stats.ticker(Ticker::BlockCacheDataMiss), 1);
    assert_eq!(stats.ticker(Ticker::BlockCacheAdd), 1);
    let read_once = env.io.get(IoCategory::UserRead).bytes_read;
    assert!(read_once > 0);
    assert_eq!(t.get(&l, IoCategory::UserRead).unwrap(), want);
    assert_eq!(stats.ticker(Ticker::BlockCacheHit), 1);
    assert_eq!(stats.ticker(Ticker::BlockCacheDataHit), 1);
    assert_eq!(
        env.io.get(IoCategory::UserRead).bytes_read,
        read_once,
        "a hit reads no bytes"
    );

    for l in lookups(&m) {
        assert_eq!(t.get(&l, IoCategory::UserRead).unwrap(), model_get(&m, &l));
        assert!(cache.usage() <= cap, "usage {} > {cap}", cache.usage());
    }
    // An iterator that does not fill the cache adds nothing.
    let adds = stats.ticker(Ticker::BlockCacheAdd);
    let t = Arc::new(t);
    let mut it = t.iter(IoCategory::UserRead, BlockFetch::SEQUENTIAL);
    assert_eq!(scan_forward(it.as_mut()), entries(&m));
    assert_eq!(stats.ticker(Ticker::BlockCacheAdd), adds);
}

#[test]
fn sequential_readers_read_one_window_at_a_time() {
    // 1,500 entries of ~1 KB: ~1.5 MB of data blocks.
    let mut m = Model::new();
    for i in 0..1500u32 {
        let k = make_internal_key(format!("key{i:06}").as_bytes(), 1, ValueKind::Value);
        m.insert(InternalKey(k), vec![b'a' + (i % 26) as u8; 1000]);
    }
    let env = Env::new(Arc::new(MemFs::new()));
    let path = PathBuf::from("/w.sst");
    build(&env, &path, &m, opts(4096, 16, Compression::None));
    let stats = Arc::new(Statistics::with_timing(true));
    let f = env.open_random(&path).unwrap();
    let t = Arc::new(TableReader::open(f, path.clone(), 1, None, stats.clone()).unwrap());
    let data = t.properties().data_size;
    assert!(data > 1_400_000, "{data}");
    let reads = |fetch: BlockFetch| {
        let before = stats.histogram(HistogramKind::SstRead).count;
        let mut it = t.iter(IoCategory::Other, fetch);
        assert_eq!(scan_forward(it.as_mut()), entries(&m));
        stats.histogram(HistogramKind::SstRead).count - before
    };
    // One read per window of data blocks (the last window is cut at the data's end).
    assert_eq!(reads(BlockFetch::SEQUENTIAL), 1);
    // Each window starts at a block and leaves out the block it would cut at its end (blocks
    // here are under 8 KiB), so it holds between `small - 8 KiB` and `small` bytes.
    let small = 256 << 10;
    let n = reads(BlockFetch::ReadAhead { window: small });
    assert!(
        (data.div_ceil(small)..=data.div_ceil(small - (8 << 10))).contains(&n),
        "{n} reads of {data} bytes"
    );
    // A window smaller than a block reads each block whole, once.
    assert_eq!(
        reads(BlockFetch::ReadAhead { window: 1 }),
        t.properties().num_data_blocks
    );
    // Many merged readers get smaller windows, so more reads each.
    assert!(reads(BlockFetch::merged(30)) > reads(BlockFetch::merged(2)));
}

/// Opens the (possibly damaged) table and checks that every answer is either right or a
/// `Corruption`: no panic, no wrong value, no other error kind.
fn check_correct_or_corrupt(env: &Env, path: &Path, m: &Model, probes: &[Vec<u8>]) {
    let t = match open(env, path, None) {
        Ok(t) => t,
        Err(e) => {
            assert!(e.is_corruption(), "open: {e}");
            return;
        }
    };
    for l in probes {
        match t.get(l, IoCategory::UserRead) {
            Ok(g) => assert_eq!(g, model_get(m, l)),
            Err(e) => assert!(e.is_corruption(), "get: {e}"),
        }
    }
    let want = entries(m);
    let mut it = t.iter(IoCategory::UserRead, BlockFetch::SEQUENTIAL);
    let fwd = scan_forward(it.as_mut());
    match it.status() {
        Ok(()) => assert_eq!(fwd, want),
        Err(e) => {
            assert!(e.is_corruption(), "iter: {e}");
            assert_eq!(fwd[..], want[..fwd.len()]);
        }
    }
    let back = scan_backward(it.as_mut());
    match it.status() {
        Ok(()) => assert_eq!(back, want),
        Err(e) => {
            assert!(e.is_corruption(), "iter: {e}");
            assert_eq!(back[..], want[want.len() - back.len()..]);
        }
    }
    // A user iterator, whose positions a format-2 table may take from its index: every entry
    // it hands out is the model's, up to the first error.
    let mut it = t.iter(IoCategory::UserRead, BlockFetch::Cached);
    for l in probes {
        it.seek(l);
        let mut at = want.partition_point(|(k, _)| compare_internal(k, l) == Ordering::Less);
        while it.valid() && at < want.len() {
            let Some(e) = entry(it.as_mut()) else { break };
            assert_eq!(e, want[at]);
            it.next();
            at += 1;
        }
        match it.status() {
            Ok(()) => assert_eq!(it.valid(), at < want.len()),
            Err(e) => assert!(e.is_corruption(), "iter: {e}"),
        }
    }
}

#[test]
fn every_bit_flip_gives_correct_data_or_corruption() {
    // Wide values in 128-byte blocks: format 2 (one entry a block); small values in 400-byte
    // blocks: format 1.
    for (c, step, block_size) in [
        (Compression::None, 2, 128),
        (Compression::Lz4, 3, 128),
        (Compression::Zstd, 3, 128),
        (Compression::Snappy, 3, 128),
        (Compression::None, 1, 400),
    ] {
        let m = match block_size {
            128 => wide_model(8),
            _ => model(12),
        };
        let probes = lookups(&m);
        let fs = MemFs::new();
        let env = Env::new(Arc::new(fs.clone()));
        let path = PathBuf::from("/f.sst");
        let s = build(&env, &path, &m, opts(block_size, 2, c));
        assert!(s.properties.num_data_blocks >= 3);
        let format = match block_size {
            128 => footer::FORMAT_FIRST_KEY_INDEX,
            _ => footer::FORMAT_PLAIN_INDEX,
        };
        assert_eq!(table_version(&env, &path), format);
        check_correct_or_corrupt(&env, &path, &m, &probes);
        let mut n = 0;
        for bitpos in (0..s.file_size as usize * 8).step_by(step) {
            let (off, bit) = (bitpos / 8, (bitpos % 8) as u8);
            fs.flip_bit(&path, off, bit);
            check_correct_or_corrupt(&env, &path, &m, &probes);
            fs.flip_bit(&path, off, bit);
            n += 1;
        }
        assert!(n > 1000, "{c:?}: only {n} flips");
    }
}

/// A format-2 index whose entry names another first key (or count) than its block holds, under
/// a valid checksum: `verify_index` (what `lsmlab check` runs) names the block, and a user
/// iterator that stood there from the index fails with `Corruption` when it reads the block.
#[test]
fn index_first_keys_that_lie_are_corruption() {
    let mut m = Model::new();
    for i in 0..12u32 {
        let k = make_internal_key(format!("key{i:04}").as_bytes(), 5, ValueKind::Value);
        m.insert(InternalKey(k), vec![b'v'; 300]);
    }
    let want = entries(&m);
    let env = Env::new(Arc::new(MemFs::new()));
    let src = PathBuf::from("/src.sst");
    build(&env, &src, &m, opts(256, 16, Compression::None));
    assert_eq!(table_version(&env, &src), footer::FORMAT_FIRST_KEY_INDEX);
    let bytes = env.fs.read_file(&src).unwrap();
    let foot = footer::Footer::decode(&bytes[bytes.len() - footer::FOOTER_LEN..]).unwrap();
    let t = open(&env, &src, None).unwrap();
    t.verify_index().unwrap();
    let index = t.index_entries().unwrap();
    // Block 3's entry names block 4's first key; then, separately, a count of 2.
    for lie in 0..2 {
        let mut b = block::BlockBuilder::new(1);
        for (i, e) in index.iter().enumerate() {
            let (n, first) = e.first.clone().unwrap();
            let (n, first) = match (i, lie) {
                (3, 0) => (n, want[4].0.clone()),
                (3, _) => (2, first),
                _ => (n, first),
            };
            let mut v = Vec::new();
            footer::IndexValue::encode(e.handle, n, &first, &mut v);
            b.add(&e.separator, &v);
        }
        let new_index = b.finish().to_vec();
        let mut out = bytes[..foot.index.offset as usize].to_vec();
        out.extend_from_slice(&new_index);
        out.push(codec::NO_COMPRESSION);
        let crc = footer::block_crc(&new_index, codec::NO_COMPRESSION);
        out.extend_from_slice(&crc.to_le_bytes());
        let f = footer::Footer {
            index: footer::BlockHandle {
                offset: foot.index.offset,
                size: new_index.len() as u64,
            },
            ..foot
        };
        out.extend_from_slice(&f.encode());
        let path = PathBuf::from(format!("/lie{lie}.sst"));
        let mut file = env.create(&path, IoCategory::Other).unwrap();
        file.append(&out).unwrap();
        drop(file);
        let t = open(&env, &path, None).unwrap();
        match t.verify_index() {
            Err(Error::Corruption { offset, .. }) => assert_eq!(offset, index[3].handle.offset),
            other => panic!("lie {lie}: {other:?}"),
        }
        if lie == 0 {
            let mut it = t.iter(IoCategory::UserRead, BlockFetch::Cached);
            it.seek(&want[3].0);
            assert!(it.valid());
            assert!(!it.prepare_value());
            assert!(!it.valid());
            assert!(it.status().unwrap_err().is_corruption());
        }
    }
}

#[test]
fn corruption_names_the_block_offset() {
    let m = model(50);
    let fs = MemFs::new();
    let env = Env::new(Arc::new(fs.clone()));
    let path = PathBuf::from("/n.sst");
    build(&env, &path, &m, opts(128, 2, Compression::None));
    // Damage the first data block (offset 0): open succeeds, reading it fails at offset 0.
    fs.flip_bit(&path, 3, 1);
    let t = open(&env, &path, None).unwrap();
    let first = m.keys().next().unwrap();
    match t.get(&lookup_key(user_key(&first.0), 1000), IoCategory::UserRead) {
        Err(Error::Corruption { offset, file, .. }) => {
            assert_eq!(offset, 0);
            assert_eq!(file, path);
        }
        other => panic!("{other:?}"),
    }
    let mut it = t.iter(IoCategory::UserRead, BlockFetch::SEQUENTIAL);
    it.seek_to_first();
    assert!(!it.valid());
    assert!(matches!(
        it.status(),
        Err(Error::Corruption { offset: 0, .. })
    ));
    // Damage the footer: open fails at the footer's offset.
    fs.flip_bit(&path, 3, 1);
    let len = env.fs.file_size(&path).unwrap();
    fs.flip_bit(&path, len as usize - 1, 0);
    match open(&env, &path, None) {
        Err(Error::Corruption { offset, .. }) => {
            assert_eq!(offset, len - footer::FOOTER_LEN as u64)
        }
        other => panic!("{:?}", other.err()),
    }
}

/// A Snappy data block whose payload is damaged under a checksum that matches (what a bug in a
/// writer, not the disk, would leave): reading it is `Corruption` naming the file and the
/// block's offset, and the table's other blocks still read.
#[test]
fn a_damaged_snappy_block_is_corruption_at_its_offset() {
    let m = model(200);
    let env = Env::new(Arc::new(MemFs::new()));
    let src = PathBuf::from("/snappy.sst");
    build(&env, &src, &m, opts(512, 4, Compression::Snappy));
    let mut bytes = env.fs.read_file(&src).unwrap();
    // Blocks after the index and properties handles are data blocks, in key order.
    let data = block_handles(&bytes)[2..].to_vec();
    let h = data[data.len() / 2];
    let (o, n) = (h.offset as usize, h.size as usize);
    assert_eq!(
        bytes[o + n],
        codec::SNAPPY_COMPRESSION,
        "the block is stored compressed"
    );
    // Past the length preamble: the elements now decode to other lengths or fail.
    for b in &mut bytes[o + 3..o + n] {
        *b = 0xff;
    }
    let crc = footer::block_crc(&bytes[o..o + n], bytes[o + n]);
    bytes[o + n + 1..o + n + 5].copy_from_slice(&crc.to_le_bytes());
    let path = PathBuf::from("/damaged.sst");
    env.create(&path, IoCategory::Other)
        .unwrap()
        .append(&bytes)
        .unwrap();
    let t = open(&env, &path, None).unwrap();
    let mut it = t.iter(IoCategory::UserRead, BlockFetch::SEQUENTIAL);
    it.seek_to_first();
    let mut read = 0;
    while it.valid() {
        read += 1;
        it.next();
    }
    match it.status() {
        Err(Error::Corruption {
            file,
            offset,
            message,
        }) => {
            assert_eq!((file, offset), (path.clone(), h.offset));
            assert!(message.contains("snappy"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert!(read > 0, "the blocks before the damaged one read");
    let first = m.keys().next().unwrap();
    let got = t.get(&lookup_key(user_key(&first.0), 1000), IoCategory::UserRead);
    assert_eq!(
        got.unwrap(),
        model_get(&m, &lookup_key(user_key(&first.0), 1000))
    );
}

#[test]
fn truncated_tables_are_corrupt_never_a_panic() {
    let m = model(20);
    let probes = lookups(&m);
    let fs = MemFs::new();
    let env = Env::new(Arc::new(fs.clone()));
    let src = PathBuf::from("/full.sst");
    let s = build(&env, &src, &m, opts(128, 2, Compression::None));
    let bytes = env.fs.read_file(&src).unwrap();
    assert_eq!(bytes.len() as u64, s.file_size);
    for cut in 0..bytes.len() {
        let path = PathBuf::from(format!("/cut{cut}.sst"));
        let mut f = env.create(&path, IoCategory::Other).unwrap();
        f.append(&bytes[..cut]).unwrap();
        drop(f);
        check_correct_or_corrupt(&env, &path, &m, &probes);
        assert!(open(&env, &path, None).is_err(), "cut at {cut} opened");
        env.fs.remove_file(&path).unwrap();
    }
}

/// Every block of a table file, read from its footer and index.
fn block_handles(bytes: &[u8]) -> Vec<footer::BlockHandle> {
    let f = footer::Footer::decode(&bytes[bytes.len() - footer::FOOTER_LEN..]).unwrap();
    let (o, n) = (f.index.offset as usize, f.index.size as usize);
    let index = block::Block::new(bytes[o..o + n].to_vec()).unwrap();
    let mut it = block_iter::BlockIter::new(Arc::new(index), Arc::new(PathBuf::new()), 0);
    let mut out = vec![f.index, f.properties];
    it.seek_to_first();
    while it.valid() {
        out.push(match f.version {
            footer::FORMAT_PLAIN_INDEX => footer::BlockHandle::decode_varint(it.value()).unwrap(),
            _ => footer::IndexValue::decode(it.value()).unwrap().handle,
        });
        it.next();
    }
    out
}

/// Opens, probes and scans a table whose blocks may hold any bytes under a valid checksum:
/// every error must be a `Corruption`, and nothing may panic.
fn check_no_panic(env: &Env, path: &Path, probes: &[Vec<u8>]) {
    let t = match open(env, path, None) {
        Ok(t) => t,
        Err(e) => {
            assert!(e.is_corruption(), "open: {e}");
            return;
        }
    };
    for l in probes {
        if let Err(e) = t.get(l, IoCategory::UserRead) {
            assert!(e.is_corruption(), "get: {e}");
        }
    }
    let mut it = t.iter(IoCategory::UserRead, BlockFetch::SEQUENTIAL);
    scan_forward(it.as_mut());
    scan_backward(it.as_mut());
    for l in probes.iter().step_by(7) {
        it.seek(l);
        if it.valid() {
            it.prev();
        }
    }
    if let Err(e) = it.status() {
        assert!(e.is_corruption(), "iter: {e}");
    }
    let mut it = t.iter(IoCategory::UserRead, BlockFetch::Cached);
    for l in probes.iter().step_by(3) {
        it.seek(l);
        for _ in 0..3 {
            if !it.valid() || entry(it.as_mut()).is_none() {
                break;
            }
            it.next();
        }
        if it.valid() {
            it.prev();
        }
    }
    if let Err(e) = it.status() {
        assert!(e.is_corruption(), "iter: {e}");
    }
}

#[test]
fn decoders_survive_damaged_blocks_with_valid_checksums() {
    // The checksum hides almost every flip from the decoders; re-sealing each damaged block
    // with a matching CRC makes the block, index, properties and decompression code see them.
    // Wide values in 128-byte blocks: one entry a block (format 2, first keys in the index);
    // small values in 700-byte blocks: many (format 1).
    for (c, block_size) in [
        (Compression::None, 128),
        (Compression::Lz4, 128),
        (Compression::Zstd, 128),
        (Compression::Snappy, 128),
        (Compression::None, 700),
    ] {
        let m = match block_size {
            128 => wide_model(5),
            _ => model(10),
        };
        let probes = lookups(&m);
        let env = Env::new(Arc::new(MemFs::new()));
        let src = PathBuf::from("/src.sst");
        build(&env, &src, &m, opts(block_size, 2, c));
        let format = match block_size {
            128 => footer::FORMAT_FIRST_KEY_INDEX,
            _ => footer::FORMAT_PLAIN_INDEX,
        };
        assert_eq!(table_version(&env, &src), format);
        let bytes = env.fs.read_file(&src).unwrap();
        let path = PathBuf::from("/crafted.sst");
        let write = |data: &[u8]| {
            let mut f = env.create(&path, IoCategory::Other).unwrap();
            f.append(data).unwrap();
        };
        for h in block_handles(&bytes) {
            let (o, n) = (h.offset as usize, h.size as usize);
            let seal = |b: &mut Vec<u8>| {
                let crc = footer::block_crc(&b[o..o + n], b[o + n]);
                b[o + n + 1..o + n + 5].copy_from_slice(&crc.to_le_bytes());
            };
            for kind in [0u8, 1, 2, 3, 4, 255] {
                let mut b = bytes.clone();
                b[o + n] = kind;
                seal(&mut b);
                write(&b);
                check_no_panic(&env, &path, &probes);
            }
            for bitpos in 0..n * 8 {
                let mut b = bytes.clone();
                b[o + bitpos / 8] ^= 1 << (bitpos % 8);
                seal(&mut b);
                write(&b);
                check_no_panic(&env, &path, &probes);
            }
        }
    }
}

#[test]
fn tables_can_be_shared_and_built_across_threads() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<TableReader>();
    send_sync::<BlockCache>();
    send::<TableBuilder>();
}

/// A stand-in filter whose block is the hashes it was given, to check what the builder feeds it.
struct ListPolicy;

impl crate::filter::FilterPolicy for ListPolicy {
    fn name(&self) -> &'static str {
        "list"
    }
    fn build(&self, hashes: &[u64]) -> Vec<u8> {
        hashes.iter().flat_map(|h| h.to_le_bytes()).collect()
    }
}

#[test]
fn filter_block_gets_one_hash_per_distinct_user_key() {
    let m = model(40); // 1–3 versions per user key
    let env = Env::new(Arc::new(MemFs::new()));
    let path = PathBuf::from("/filter.sst");
    let stats = Arc::new(Statistics::new());
    let f = env.create(&path, IoCategory::Flush).unwrap();
    let mut o = opts(256, 4, Compression::None);
    o.filter = Some(Arc::new(ListPolicy));
    let mut b = TableBuilder::new(f, path.clone(), o).with_stats(stats.clone());
    for (k, v) in &m {
        b.add(&k.0, v).unwrap();
    }
    let s = b.finish().unwrap();
    let mut users: Vec<&[u8]> = m.keys().map(|k| user_key(&k.0)).collect();
    users.dedup();
    let want: Vec<u8> = users
        .iter()
        .flat_map(|u| crate::filter::key_hash(u).to_le_bytes())
        .collect();
    assert_eq!(s.properties.filter_policy, "list");
    assert_eq!(s.properties.filter_size, want.len() as u64 + 5);
    assert_eq!(stats.ticker(Ticker::FilterBlocksBuilt), 1);
    let bytes = env.fs.read_file(&path).unwrap();
    let foot = footer::Footer::decode(&bytes[bytes.len() - footer::FOOTER_LEN..]).unwrap();
    let (o, n) = (foot.filter.offset as usize, foot.filter.size as usize);
    assert_eq!(&bytes[o..o + n], &want[..]);
    assert_eq!(bytes[o + n], codec::NO_COMPRESSION);
}

mod randomized {
    use super::*;
    use proptest::prelude::*;

    fn compression() -> impl Strategy<Value = Compression> {
        prop_oneof![
            Just(Compression::None),
            Just(Compression::Lz4),
            Just(Compression::Zstd),
            Just(Compression::Snappy)
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        #[test]
        fn table_matches_model(
            data in proptest::collection::btree_map(
                (proptest::collection::vec(0u8..3, 1..5), 0u64..20, 0u8..3),
                proptest::collection::vec(any::<u8>(), 0..40),
                0..300),
            block_size in 1usize..600,
            interval in 1usize..8,
            c in compression(),
            probes in proptest::collection::vec((proptest::collection::vec(0u8..3, 0..5), 0u64..25), 0..60),
        ) {
            let mut m = Model::new();
            for ((u, seq, kind), v) in data {
                let kind = ValueKind::from_u8(kind).unwrap();
                m.insert(InternalKey(make_internal_key(&u, seq, kind)), v);
            }
            let env = Env::new(Arc::new(MemFs::new()));
            let path = PathBuf::from("/p.sst");
            build(&env, &path, &m, opts(block_size, interval, c));
            let t = open(&env, &path, None).unwrap();
            let want = entries(&m);
            let mut it = t.iter(IoCategory::UserRead, BlockFetch::SEQUENTIAL);
            prop_assert_eq!(scan_forward(it.as_mut()), want.clone());
            prop_assert_eq!(scan_backward(it.as_mut()), want.clone());
            let mut cached = t.iter(IoCategory::UserRead, BlockFetch::Cached);
            prop_assert_eq!(key_walk(&t), want.iter().map(|e| e.0.clone()).collect::<Vec<_>>());
            prop_assert_eq!(scan_forward(cached.as_mut()), want.clone());
            prop_assert_eq!(scan_backward(cached.as_mut()), want.clone());
            for (u, seq) in probes {
                let l = lookup_key(&u, seq);
                prop_assert_eq!(t.get(&l, IoCategory::UserRead).unwrap(), model_get(&m, &l));
                it.seek(&l);
                let pos = want.iter().position(|(k, _)| compare_internal(k, &l) != std::cmp::Ordering::Less);
                match pos {
                    None => prop_assert!(!it.valid()),
                    Some(i) => prop_assert_eq!(it.key(), &want[i].0[..]),
                }
                // The user iterator: keys (deferred or not) and values for a few steps forward,
                // then one back.
                cached.seek(&l);
                let from = pos.unwrap_or(want.len());
                for (step, w) in want[from..].iter().take(3).enumerate() {
                    prop_assert!(cached.valid());
                    prop_assert_eq!(cached.key(), &w.0[..]);
                    if step != 1 {
                        // The middle step passes its entry unread.
                        prop_assert_eq!(entry(cached.as_mut()), Some(w.clone()));
                    }
                    cached.next();
                }
                if from + 3 >= want.len() {
                    prop_assert!(!cached.valid());
                } else {
                    cached.prev();
                    prop_assert_eq!(entry(cached.as_mut()), Some(want[from + 2].clone()));
                }
                cached.status().unwrap();
            }
            for (k, _) in &want {
                let p = crate::key::parse_internal_key(k).unwrap();
                let l = lookup_key(p.user_key, p.seq);
                prop_assert_eq!(t.get(&l, IoCategory::UserRead).unwrap(), model_get(&m, &l));
            }
        }
    }
}

/// Tables opened through memory maps (`allow_mmap_reads`): uncompressed data blocks are checked
/// and searched in place, compressed ones read as usual; gets and cache-filling iterators
/// answer as the model does, a damaged block gives `Corruption` (never a panic or wrong data),
/// and a value found in place outlives its reader.
#[test]
fn mapped_tables_read_blocks_in_place_and_check_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut env = Env::new(Arc::new(crate::env::PosixFs));
    env.mmap_reads = true;
    let m = model(300);
    let want = entries(&m);
    let probes = lookups(&m);
    for c in [Compression::None, Compression::Lz4] {
        let path = dir.path().join(format!("{c:?}.sst"));
        let s = build(&env, &path, &m, opts(256, 4, c));
        let cache = Arc::new(BlockCache::new(1 << 20));
        let t = open(&env, &path, Some(cache.clone())).unwrap();
        for l in &probes {
            assert_eq!(t.get(l, IoCategory::UserRead).unwrap(), model_get(&m, l));
        }
        // In place: nothing copied into the cache; compressed blocks are cached as usual.
        assert_eq!(cache.is_empty(), c == Compression::None, "{c:?}");
        let mut it = t.iter(IoCategory::UserRead, BlockFetch::Cached);
        assert_eq!(scan_forward(it.as_mut()), want);
        assert_eq!(scan_backward(it.as_mut()), want);
        it.status().unwrap();
        drop(it);

        // A value read in place stays readable once its reader is gone.
        let (k, v) = m.iter().find(|(_, v)| !v.is_empty()).unwrap();
        let got = t.get(
            &lookup_key(user_key(&k.0), u64::MAX >> 8),
            IoCategory::UserRead,
        );
        drop(t);
        match got.unwrap() {
            TableGet::Found { value, .. } => assert_eq!(&*value, &v[..]),
            other => panic!("{other:?}"),
        }

        // Bit flips across the data blocks, ~400 of them (an odd stride, so that every bit
        // position within a byte is hit): correct data or `Corruption`.
        let data_end = s.properties.data_size as usize;
        let original = std::fs::read(&path).unwrap();
        for bitpos in (0..data_end * 8).step_by((data_end * 8 / 400) | 1) {
            let mut bytes = original.clone();
            bytes[bitpos / 8] ^= 1 << (bitpos % 8);
            std::fs::write(&path, &bytes).unwrap();
            let t = open(&env, &path, None).unwrap();
            for l in &probes {
                match t.get(l, IoCategory::UserRead) {
                    Ok(g) => assert_eq!(g, model_get(&m, l)),
                    Err(e) => assert!(e.is_corruption(), "get: {e}"),
                }
            }
            for fetch in [BlockFetch::Cached, BlockFetch::SEQUENTIAL] {
                let mut it = t.iter(IoCategory::UserRead, fetch);
                let fwd = scan_forward(it.as_mut());
                match it.status() {
                    Ok(()) => assert_eq!(fwd, want),
                    Err(e) => assert!(e.is_corruption(), "iter: {e}"),
                }
            }
        }
    }
}
