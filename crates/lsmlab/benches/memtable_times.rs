//! Memtable insert, get and seek, ns per operation, best of several rounds (as `filter_times`:
//! on a shared machine the minimum is steadier than a median).
//!
//! ```text
//! cargo bench -p lsmlab --bench memtable_times -- [entries] [value bytes]
//! ```
//!
//! 60,000 entries of 1,024-byte values unless told: a full 64 MiB write buffer of db_bench's
//! 1 KB cells, whose skiplist no cache holds, so each search is a chain of cache misses. Keys
//! are db_bench's: 16 bytes, the key number big-endian in the first 8, in a random order.
//! Prints ns per insert (random keys into an empty memtable), per get of a present key and per
//! seek of a random key (present or between two).

use lsmlab::iter::InternalIterator;
use lsmlab::key::{make_internal_key, ValueKind, MAX_SEQUENCE};
use lsmlab::memtable::{Lookup, MemTable, MemTableIter};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

/// Rounds per measurement; the fastest counts.
const ROUNDS: usize = 5;
/// Lookups per round.
const LOOKUPS: u64 = 400_000;

/// db_bench's 16-byte key for number `i`.
fn key(i: u64) -> [u8; 16] {
    let mut k = [b'0'; 16];
    k[..8].copy_from_slice(&i.to_be_bytes());
    k
}

/// xorshift64: the same pseudo-random sequence every run.
fn rng(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

fn best(mut round: impl FnMut() -> f64) -> f64 {
    (0..ROUNDS).map(|_| round()).fold(f64::INFINITY, f64::min)
}

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| !a.starts_with('-'));
    let n: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(60_000);
    let vlen: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1024);
    let value = vec![b'v'; vlen];
    // Keys 0, 2, 4, ...: a seek for an odd number lands between two entries.
    let mut order: Vec<u64> = (0..n).map(|i| i * 2).collect();
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    for i in (1..order.len()).rev() {
        order.swap(i, (rng(&mut s) % (i as u64 + 1)) as usize);
    }

    let mut mem = None;
    let insert = best(|| {
        let m = MemTable::new(1);
        let t = Instant::now();
        for (seq, &k) in order.iter().enumerate() {
            m.add(seq as u64 + 1, ValueKind::Value, &key(k), &value);
        }
        let ns = t.elapsed().as_nanos() as f64 / n as f64;
        mem = Some(Arc::new(m));
        ns
    });
    let mem = mem.expect("at least one round");

    let get = best(|| {
        let mut s = 42u64;
        let mut found = 0u64;
        let t = Instant::now();
        for _ in 0..LOOKUPS {
            let k = key((rng(&mut s) % n) * 2);
            found += matches!(mem.get(&k, MAX_SEQUENCE), Lookup::Found(..)) as u64;
        }
        let ns = t.elapsed().as_nanos() as f64 / LOOKUPS as f64;
        assert_eq!(found, LOOKUPS, "every key looked up was inserted");
        ns
    });

    let seek = best(|| {
        let mut s = 7u64;
        let mut it = MemTableIter::new(mem.clone());
        let mut valid = 0u64;
        let t = Instant::now();
        for _ in 0..LOOKUPS {
            let target =
                make_internal_key(&key(rng(&mut s) % (2 * n)), MAX_SEQUENCE, ValueKind::Value);
            it.seek(black_box(&target));
            valid += it.valid() as u64;
        }
        let ns = t.elapsed().as_nanos() as f64 / LOOKUPS as f64;
        black_box(valid);
        ns
    });

    println!(
        "entries {n}, value {vlen} B: insert {insert:.0} ns, get {get:.0} ns, seek {seek:.0} ns"
    );
}
