//! Helpers shared by the integration tests.
#![allow(dead_code)]

use lsmlab::env::MemFs;
use lsmlab::{Db, Options, ReadOptions};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Options that make many small tables and several levels from little data.
pub fn small_options(fs: &MemFs) -> Options {
    Options {
        fs: Arc::new(fs.clone()),
        write_buffer_size: 4096,
        target_file_size_base: 2048,
        max_bytes_for_level_base: 8192,
        max_bytes_for_level_multiplier: 4.0,
        level0_file_num_compaction_trigger: 2,
        level0_slowdown_writes_trigger: 8,
        level0_stop_writes_trigger: 12,
        num_levels: 5,
        block_size: 256,
        block_cache_size: 64 * 1024,
        ..Options::default()
    }
}

/// [`small_options`] shaped for intra-L0 compactions: two compaction threads, a large level 1
/// whose level-0 compactions take long, and a level 0 that may grow meanwhile without
/// stalling the writers.
pub fn intra_l0_options(fs: &MemFs) -> Options {
    Options {
        max_background_jobs: 3,
        level0_file_num_compaction_trigger: 2,
        level0_slowdown_writes_trigger: 64,
        level0_stop_writes_trigger: 96,
        max_bytes_for_level_base: 1 << 20,
        ..small_options(fs)
    }
}

pub const DIR: &str = "/db";

/// Every (key, value) of the database, by a forward scan.
pub fn scan(db: &Db, opts: &ReadOptions) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut it = db.iter(opts).expect("iterator");
    it.seek_to_first();
    let mut out = BTreeMap::new();
    while it.valid() {
        out.insert(it.key().to_vec(), it.value().to_vec());
        it.next();
    }
    it.status().expect("scan status");
    out
}

/// Every (key, value) of the database, by a backward scan, returned in key order.
pub fn scan_reverse(db: &Db, opts: &ReadOptions) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut it = db.iter(opts).expect("iterator");
    it.seek_to_last();
    let mut out = Vec::new();
    while it.valid() {
        out.push((it.key().to_vec(), it.value().to_vec()));
        it.prev();
    }
    it.status().expect("reverse scan status");
    out.reverse();
    out
}

pub fn key(i: u32) -> Vec<u8> {
    format!("key{i:05}").into_bytes()
}

pub fn value(i: u32, version: u32, len: usize) -> Vec<u8> {
    let mut v = format!("v{i}-{version}-").into_bytes();
    while v.len() < len {
        v.push(b'a' + (v.len() % 26) as u8);
    }
    v
}

/// `small_options` under the `fslsm` preset with float-ups forced: γ so small that every get
/// that finds its key in a table of level ≥ 1 asks for a float-up, and short windows. Level 0
/// is not stretched, so that it keeps compacting into level 1 while reads go on: float-ups then
/// cross levels that hold newer versions, the case that could return a stale one.
pub fn forced_fslsm_options(fs: &MemFs) -> Options {
    let mut o = small_options(fs);
    o.apply_layout_preset("fslsm").expect("a known preset");
    o.fslsm.gamma = 0.01;
    o.fslsm.read_ratio_window = 16;
    o.fslsm.frequency_window = 1000;
    o.fslsm.stretch_increments = vec![0, 2, 1];
    o
}
