//! Construction and query ns/key of the Bloom and Ribbon filters, best of several rounds: on a
//! shared machine the minimum is steadier than criterion's median, which other jobs inflate.
//!
//! ```text
//! cargo bench -p lsmlab --bench filter_times -- [bpk,bpk,..] [calls per round] [keys]
//! ```
//!
//! 100,000 keys unless told (xxh3 of `key{i:012}`, as in `benches/filters.rs`), absent keys the
//! next as many. A table of seed 000 (8 MiB, 1 KB values) holds about 7,900 keys; RocksDB's
//! filter_bench averages 10,000 per filter.
//!
//! Prints, per bits per key: build ns/key of each filter from hashes and from keys (hashing
//! each key into a buffer first, as a table builder does and as RocksDB's filter_bench counts
//! "Build avg ns/key"), Ribbon's ratios to Bloom, bits per key used, and query ns/key for
//! present and absent keys. `ribbon` is the default sizing, `rib745` the earlier one.

use lsmlab::filter::bloom::BloomPolicy;
use lsmlab::filter::ribbon::RibbonPolicy;
use lsmlab::filter::{key_hash, FilterPolicy, FilterReader};
use std::hint::black_box;
use std::time::Instant;

/// Keys per filter unless the third argument says otherwise.
const DEFAULT_KEYS: u64 = 100_000;
/// Rounds per measurement; the fastest counts.
const ROUNDS: usize = 7;

fn key_set(range: std::ops::Range<u64>) -> Vec<Vec<u8>> {
    range.map(|i| format!("key{i:012}").into_bytes()).collect()
}

fn hashes(keys: &[Vec<u8>]) -> Vec<u64> {
    keys.iter().map(|k| key_hash(k)).collect()
}

/// Best ns per key over [`ROUNDS`] rounds of `iters` calls of `f` (each over `num_keys` keys).
fn best_ns_per_key(num_keys: u64, iters: usize, mut f: impl FnMut()) -> f64 {
    (0..ROUNDS)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..iters {
                f();
            }
            t.elapsed().as_nanos() as f64 / iters as f64 / num_keys as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    // Cargo passes `--bench`; the rest are ours.
    let mut args = std::env::args().skip(1).filter(|a| !a.starts_with('-'));
    let bpks: Vec<f64> = args
        .next()
        .map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![5.0, 10.0, 15.0, 20.0]);
    let iters: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(20);
    let n: u64 = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_KEYS);
    let key_bytes = key_set(0..n);
    let keys = hashes(&key_bytes);
    let absent = hashes(&key_set(n..2 * n));
    println!(
        "bpk  filter  build ns/key  ratio  from keys  ratio  bits/key  query present  query absent"
    );
    for bpk in bpks {
        // `rib745`: the sizing before the 72 % space target (spare slack within 74.5 % of
        // Bloom's bytes), for the construction time the memory buys.
        let policies: [(&str, Box<dyn FilterPolicy>); 3] = [
            ("bloom", Box::new(BloomPolicy::new(bpk))),
            ("ribbon", Box::new(RibbonPolicy::new(bpk))),
            (
                "rib745",
                Box::new(RibbonPolicy::with_bytes_share(bpk, 0.745)),
            ),
        ];
        let mut bloom_build = f64::NAN;
        let mut bloom_from_keys = f64::NAN;
        for (name, policy) in &policies {
            let build = best_ns_per_key(n, iters, || {
                black_box(policy.build(black_box(&keys)));
            });
            // As a table builder does it (and RocksDB's filter_bench measures): hash each key
            // into a buffer, then build.
            let from_keys = best_ns_per_key(n, iters, || {
                black_box(policy.build(&hashes(black_box(&key_bytes))));
            });
            if *name == "bloom" {
                bloom_build = build;
                bloom_from_keys = from_keys;
            }
            let block = policy.build(&keys);
            let bits = block.len() as f64 * 8.0 / keys.len() as f64;
            let reader = FilterReader::open(block).expect("own block");
            let query = |set: &[u64]| {
                best_ns_per_key(n, iters, || {
                    black_box(
                        set.iter()
                            .filter(|&&h| reader.may_match(black_box(h)))
                            .count(),
                    );
                })
            };
            println!(
                "{bpk:>3}  {name:<6}  {build:>12.2}  {:>5.2}  {from_keys:>9.2}  {:>5.2}  {bits:>8.3}  {:>13.2}  {:>12.2}",
                build / bloom_build,
                from_keys / bloom_from_keys,
                query(&keys),
                query(&absent)
            );
        }
    }
}
