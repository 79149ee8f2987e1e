//! Randomized model test of a user iterator that turns around: a walk of `next` and `prev`
//! steps from a seek, over a tree of memtable, level-0 and deeper tables (and blob files), must
//! show at every step the key and value a `BTreeMap` gives, even when the iterator hands out
//! values it did not copy.

mod common;

use common::*;
use lsmlab::env::MemFs;
use lsmlab::{Db, ReadOptions};
use proptest::prelude::*;
use std::collections::BTreeMap;

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

#[derive(Debug, Clone)]
enum Write {
    Put(u32, usize),
    Delete(u32),
    Flush,
}

fn write() -> impl Strategy<Value = Write> {
    prop_oneof![
        6 => (0u32..120, 1usize..300).prop_map(|(k, n)| Write::Put(k, n)),
        2 => (0u32..120).prop_map(Write::Delete),
        1 => Just(Write::Flush),
    ]
}

/// Where the model's cursor is after a step from `at` (`None`: off either end).
fn model_step(m: &Model, at: &[u8], forward: bool) -> Option<(Vec<u8>, Vec<u8>)> {
    use std::ops::Bound::{Excluded, Unbounded};
    let at = at.to_vec();
    let hit = if forward {
        m.range((Excluded(at), Unbounded)).next()
    } else {
        m.range(..at).next_back()
    };
    hit.map(|(k, v)| (k.clone(), v.clone()))
}

/// How the walk starts.
#[derive(Debug, Clone, Copy)]
enum Start {
    Seek(u32),
    SeekForPrev(u32),
    First,
    Last,
}

fn start() -> impl Strategy<Value = Start> {
    prop_oneof![
        3 => (0u32..125).prop_map(Start::Seek),
        2 => (0u32..125).prop_map(Start::SeekForPrev),
        1 => Just(Start::First),
        1 => Just(Start::Last),
    ]
}

fn apply(db: &Db, m: &mut Model, w: &Write, version: u32) {
    match *w {
        Write::Put(k, n) => {
            let v = value(k, version, n);
            db.put(&key(k), &v).unwrap();
            m.insert(key(k), v);
        }
        Write::Delete(k) => {
            db.delete(&key(k)).unwrap();
            m.remove(&key(k));
        }
        Write::Flush => db.flush().unwrap(),
    }
}

/// The walk: `before` writes, then (if `snapshot`) a snapshot and `between` writes, then the
/// iterator and `after` writes it must not see, then the steps.
#[allow(clippy::too_many_arguments)]
fn walk(
    before: Vec<Write>,
    snapshot: bool,
    between: Vec<Write>,
    after: Vec<Write>,
    from: Start,
    steps: Vec<bool>,
    blobs: bool,
    no_fill_cache: bool,
) {
    let fs = MemFs::new();
    let mut o = small_options(&fs);
    o.enable_blob_files = blobs;
    o.min_blob_size = 64;
    let db = Db::open(DIR, o).unwrap();
    let mut m = Model::new();
    let mut version = 0;
    for w in &before {
        version += 1;
        apply(&db, &mut m, w, version);
    }
    let mut opts = ReadOptions {
        no_fill_cache,
        ..ReadOptions::default()
    };
    let seen = m.clone();
    if snapshot {
        opts.snapshot = Some(db.snapshot());
        for w in &between {
            version += 1;
            apply(&db, &mut m, w, version);
        }
    }
    let want_model = if snapshot { seen } else { m.clone() };
    let mut it = db.iter(&opts).unwrap();
    for w in &after {
        version += 1;
        apply(&db, &mut m, w, version);
    }
    let first = |r: Option<(&Vec<u8>, &Vec<u8>)>| r.map(|(k, v)| (k.clone(), v.clone()));
    let mut want = match from {
        Start::Seek(k) => {
            it.seek(&key(k));
            first(want_model.range(key(k)..).next())
        }
        Start::SeekForPrev(k) => {
            it.seek_for_prev(&key(k));
            first(want_model.range(..=key(k)).next_back())
        }
        Start::First => {
            it.seek_to_first();
            first(want_model.iter().next())
        }
        Start::Last => {
            it.seek_to_last();
            first(want_model.iter().next_back())
        }
    };
    for (i, forward) in steps.into_iter().enumerate() {
        match &want {
            Some((k, v)) => {
                assert!(it.valid(), "step {i}: want {k:?}, iterator ended");
                assert_eq!(it.key(), k.as_slice(), "step {i}");
                assert_eq!(it.value(), v.as_slice(), "step {i}: value of {k:?}");
            }
            None => {
                assert!(!it.valid(), "step {i}: want the end, got {:?}", it.key());
                assert!(it.key().is_empty() && it.value().is_empty());
                // Steps past the end leave it there.
                it.next();
                it.prev();
                assert!(!it.valid());
                break;
            }
        }
        let at = want.as_ref().map(|(k, _)| k.clone()).unwrap();
        if forward {
            it.next();
        } else {
            it.prev();
        }
        want = model_step(&want_model, &at, forward);
    }
    it.status().unwrap();
    // The `Iterator` view of a new iterator: the snapshot's entries, or now every write's.
    let mut it = db.iter(&opts).unwrap();
    it.seek_to_first();
    let all: Vec<(Vec<u8>, Vec<u8>)> = it.map(|r| r.unwrap()).collect();
    let now = if snapshot { &want_model } else { &m };
    let model_all: Vec<(Vec<u8>, Vec<u8>)> =
        now.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    assert_eq!(all, model_all);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, max_shrink_iters: 200, ..ProptestConfig::default() })]

    #[test]
    fn a_turning_iterator_matches_a_btreemap(
        before in prop::collection::vec(write(), 1..300),
        snapshot in any::<bool>(),
        between in prop::collection::vec(write(), 0..40),
        after in prop::collection::vec(write(), 0..40),
        from in start(),
        steps in prop::collection::vec(any::<bool>(), 1..60),
        blobs in any::<bool>(),
        no_fill_cache in any::<bool>(),
    ) {
        walk(before, snapshot, between, after, from, steps, blobs, no_fill_cache);
    }
}
