//! Bloom and Ribbon filters against two reference crates: construction and query ns/key, bits
//! per key actually used, and measured false-positive rate.
//!
//! ```text
//! cargo bench -p lsmlab --bench filters -- --warm-up-time 1 --measurement-time 2
//! ```
//!
//! Every benchmark works on 100,000 keys (the xxh3 hashes of `key{i}`); throughput is in keys,
//! so criterion's `thrpt` is keys/s and ns/key = 1e9 / thrpt. Before the timings, a table of
//! bits/key and FPR (over 1,000,000 absent keys, 4,000,000 at 20 bits per key) is printed.
//! fastbloom gets the same number of bits as lsmlab's Bloom filter and its own optimal probe
//! count; xorf's BinaryFuse8 has a fixed size (about 9 bits per key) and is run once.
//! `ribbon` is the default sizing (spare slack within 72 % of Bloom's bytes), `ribbon-74.5`
//! the earlier one (within 74.5 %): the construction time the 2.5 points of memory buy.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use lsmlab::filter::bloom::BloomPolicy;
use lsmlab::filter::ribbon::RibbonPolicy;
use lsmlab::filter::{key_hash, FilterPolicy, FilterReader};
use std::hint::black_box;
use xorf::{BinaryFuse8, Filter};

const NUM_KEYS: u64 = 100_000;
const BITS_PER_KEY: [f64; 4] = [5.0, 10.0, 15.0, 20.0];

fn hashes(range: std::ops::Range<u64>) -> Vec<u64> {
    range
        .map(|i| key_hash(format!("key{i:012}").as_bytes()))
        .collect()
}

fn fastbloom_build(keys: &[u64], bits: usize) -> fastbloom::BloomFilter {
    let mut f = fastbloom::BloomFilter::with_num_bits(bits).expected_items(keys.len());
    for &h in keys {
        f.insert_hash(h);
    }
    f
}

fn fpr(hits: usize, probes: usize) -> String {
    format!("{:.4}%", 100.0 * hits as f64 / probes as f64)
}

/// The table of bits/key and measured FPR, printed once before the timings.
fn print_accuracy(keys: &[u64]) {
    println!("\nfilter      bpk  bits/key used  FPR measured  probes");
    let absent_1m = hashes(NUM_KEYS..NUM_KEYS + 1_000_000);
    let absent_4m = hashes(NUM_KEYS..NUM_KEYS + 4_000_000);
    for bpk in BITS_PER_KEY {
        let absent = if bpk >= 20.0 { &absent_4m } else { &absent_1m };
        let probes = absent.len();
        for (name, policy) in [
            (
                "bloom",
                Box::new(BloomPolicy::new(bpk)) as Box<dyn FilterPolicy>,
            ),
            ("ribbon", Box::new(RibbonPolicy::new(bpk))),
        ] {
            let block = policy.build(keys);
            let bits = block.len() as f64 * 8.0 / keys.len() as f64;
            let reader = FilterReader::open(block).expect("own block");
            let hits = absent.iter().filter(|&&h| reader.may_match(h)).count();
            println!(
                "{name:<10} {bpk:>4}  {bits:>13.3}  {:>12}  {probes}",
                fpr(hits, probes)
            );
        }
        let bloom_bits = BloomPolicy::new(bpk).block_len(keys.len()) * 8;
        let fb = fastbloom_build(keys, bloom_bits);
        let hits = absent.iter().filter(|&&h| fb.contains_hash(h)).count();
        println!(
            "{:<10} {bpk:>4}  {:>13.3}  {:>12}  {probes}",
            "fastbloom",
            fb.num_bits() as f64 / keys.len() as f64,
            fpr(hits, probes)
        );
    }
    let xf = BinaryFuse8::try_from(keys).expect("distinct keys");
    let hits = absent_1m.iter().filter(|h| xf.contains(h)).count();
    println!(
        "{:<10} {:>4}  {:>13.3}  {:>12}  {}\n",
        "binfuse8",
        "-",
        xf.fingerprints.len() as f64 * 8.0 / keys.len() as f64,
        fpr(hits, absent_1m.len()),
        absent_1m.len()
    );
}

fn filters(c: &mut Criterion) {
    let keys = hashes(0..NUM_KEYS);
    let absent = hashes(NUM_KEYS..2 * NUM_KEYS);
    print_accuracy(&keys);

    for bpk in BITS_PER_KEY {
        let bloom = BloomPolicy::new(bpk);
        let ribbon = RibbonPolicy::new(bpk);
        // The sizing before the 72 % space target: more spare slack, fewer elimination steps.
        let ribbon_745 = RibbonPolicy::with_bytes_share(bpk, 0.745);
        let bloom_bits = bloom.block_len(keys.len()) * 8;

        let mut g = c.benchmark_group(format!("build/bpk{bpk}"));
        g.throughput(Throughput::Elements(NUM_KEYS));
        g.sample_size(20);
        g.bench_function("bloom", |b| b.iter(|| bloom.build(black_box(&keys))));
        g.bench_function("ribbon", |b| b.iter(|| ribbon.build(black_box(&keys))));
        g.bench_function("ribbon-74.5", |b| {
            b.iter(|| ribbon_745.build(black_box(&keys)))
        });
        g.bench_function("fastbloom", |b| {
            b.iter(|| fastbloom_build(black_box(&keys), bloom_bits))
        });
        g.finish();

        let readers = [
            (
                "bloom",
                FilterReader::open(bloom.build(&keys)).expect("own block"),
            ),
            (
                "ribbon",
                FilterReader::open(ribbon.build(&keys)).expect("own block"),
            ),
            (
                "ribbon-74.5",
                FilterReader::open(ribbon_745.build(&keys)).expect("own block"),
            ),
        ];
        let fb = fastbloom_build(&keys, bloom_bits);
        for (set_name, set) in [("present", &keys), ("absent", &absent)] {
            let mut g = c.benchmark_group(format!("query_{set_name}/bpk{bpk}"));
            g.throughput(Throughput::Elements(NUM_KEYS));
            g.sample_size(30);
            for (name, reader) in &readers {
                g.bench_with_input(BenchmarkId::from_parameter(name), set, |b, set| {
                    b.iter(|| {
                        set.iter()
                            .filter(|&&h| reader.may_match(black_box(h)))
                            .count()
                    })
                });
            }
            g.bench_with_input(BenchmarkId::from_parameter("fastbloom"), set, |b, set| {
                b.iter(|| {
                    set.iter()
                        .filter(|&&h| fb.contains_hash(black_box(h)))
                        .count()
                })
            });
            g.finish();
        }
    }

    // BinaryFuse8: fixed ~9 bits/key and ~0.4 % FPR, whatever bits per key the others get.
    let mut g = c.benchmark_group("binfuse8");
    g.throughput(Throughput::Elements(NUM_KEYS));
    g.sample_size(20);
    g.bench_function("build", |b| {
        b.iter(|| BinaryFuse8::try_from(black_box(&keys[..])).expect("distinct keys"))
    });
    let xf = BinaryFuse8::try_from(&keys[..]).expect("distinct keys");
    g.bench_function("query_present", |b| {
        b.iter(|| keys.iter().filter(|h| xf.contains(black_box(h))).count())
    });
    g.bench_function("query_absent", |b| {
        b.iter(|| absent.iter().filter(|h| xf.contains(black_box(h))).count())
    });
    g.finish();
}

criterion_group!(benches, filters);
criterion_main!(benches);
