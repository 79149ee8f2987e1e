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

fn walk(writes: Vec<Write>, start: u32, steps: Vec<bool>, blobs: bool) {
    let fs = MemFs::new();
    let mut o = small_options(&fs);
    o.enable_blob_files = blobs;
    o.min_blob_size = 64;
    let db = Db::open(DIR, o).unwrap();
    let mut m = Model::new();
    for (version, w) in writes.into_iter().enumerate() {
        match w {
            Write::Put(k, n) => {
                let v = value(k, version as u32, n);
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
    let mut it = db.iter(&ReadOptions::default()).unwrap();
    it.seek(&key(start));
    let mut want = m
        .range(key(start)..)
        .next()
        .map(|(k, v)| (k.clone(), v.clone()));
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
                break;
            }
        }
        let at = want.as_ref().map(|(k, _)| k.clone()).unwrap();
        if forward {
            it.next();
        } else {
            it.prev();
        }
        want = model_step(&m, &at, forward);
    }
    it.status().unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, max_shrink_iters: 200, ..ProptestConfig::default() })]

    #[test]
    fn a_turning_iterator_matches_a_btreemap(
        writes in prop::collection::vec(write(), 1..300),
        start in 0u32..125,
        steps in prop::collection::vec(any::<bool>(), 1..60),
        blobs in any::<bool>(),
    ) {
        walk(writes, start, steps, blobs);
    }
}
