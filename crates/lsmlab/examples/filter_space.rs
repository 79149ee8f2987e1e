//! Space and measured false-positive rate of Bloom and Ribbon filters on the same keys: the
//! space table of `docs/filters.md`. Counts only, no timing, so the figures do not depend on
//! the machine or on what else runs on it.
//!
//! ```text
//! cargo run --release -p lsmlab --example filter_space [-- KEYS [BPK,BPK,...]]
//! cargo run --release -p lsmlab --example filter_space -- 1000000 5,7,10,15,20
//! ```
//!
//! Keys are the xxh3 hashes of `key{i:012}` for `i < KEYS`, absent keys those of the
//! following indices (2M probes up to 10 bits per key, 10M above, so that even 0.02 % is
//! measured within a few percent). Ribbon is built with three sizings: spare slack within
//! 74.5 % of Bloom's bytes (the sizing before 72 %), within 72 % (the default), and none.
//! `at Bloom's FPR` rescales the Ribbon block's bits by log2(1/Bloom's measured FPR) /
//! log2(1/Ribbon's): its share of Bloom's bytes at an equal measured FPR.

use lsmlab::filter::bloom::BloomPolicy;
use lsmlab::filter::ribbon::{RibbonPolicy, SPARE_SLACK_BYTES_SHARE};
use lsmlab::filter::{key_hash, FilterKind, FilterPolicy, FilterReader};

/// Keys unless the command line says otherwise.
const DEFAULT_KEYS: u64 = 1_000_000;
/// Bloom bits per key unless the command line says otherwise.
const DEFAULT_BPK: [f64; 5] = [5.0, 7.0, 10.0, 15.0, 20.0];

fn hash_of(i: u64) -> u64 {
    key_hash(format!("key{i:012}").as_bytes())
}

/// Keys and bits per key from the command line.
fn args() -> Result<(u64, Vec<f64>), String> {
    let mut args = std::env::args().skip(1);
    let keys = match args.next() {
        None => DEFAULT_KEYS,
        Some(a) => a
            .parse::<u64>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or(format!("KEYS: '{a}' is not a positive whole number"))?,
    };
    let bpk = match args.next() {
        None => DEFAULT_BPK.to_vec(),
        Some(a) => a
            .split(',')
            .map(|b| {
                b.parse::<f64>()
                    .ok()
                    .filter(|v| *v > 0.0 && *v <= 100.0)
                    .ok_or(format!("BPK: '{b}' is not a number in (0, 100]"))
            })
            .collect::<Result<_, _>>()?,
    };
    Ok((keys, bpk))
}

/// One filter's line of the table.
#[derive(Clone, Copy)]
struct Row {
    bytes: usize,
    kind: Option<FilterKind>,
    fpr: f64,
}

fn measure(policy: &dyn FilterPolicy, keys: &[u64], absent: &[u64]) -> Row {
    let block = policy.build(keys);
    let bytes = block.len();
    let reader = FilterReader::open(block).expect("a block the policy just wrote opens");
    assert!(
        keys.iter().all(|&h| reader.may_match(h)),
        "a false negative: the filter is broken"
    );
    let hits = absent.iter().filter(|&&h| reader.may_match(h)).count();
    Row {
        bytes,
        kind: reader.kind(),
        fpr: hits as f64 / absent.len() as f64,
    }
}

fn main() {
    let (n, bpks) = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("filter_space: {e}; usage: filter_space [KEYS [BPK,BPK,...]]");
            std::process::exit(2);
        }
    };
    let keys: Vec<u64> = (0..n).map(hash_of).collect();
    let few: Vec<u64> = (n..n + 2_000_000).map(hash_of).collect();
    let many: Vec<u64> = (n..n + 10_000_000).map(hash_of).collect();
    println!("{n} keys; bytes = whole block; share = of Bloom's bytes");
    println!(
        "| bpk | filter | block bytes | bits/key | share | FPR measured | probes | share at Bloom's FPR |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for bpk in bpks {
        let absent = if bpk > 10.0 { &many } else { &few };
        let bloom = measure(&BloomPolicy::new(bpk), &keys, absent);
        let ribbons: [(String, RibbonPolicy); 3] = [
            (
                "Ribbon, spare within 74.5 %".into(),
                RibbonPolicy::with_bytes_share(bpk, 0.745),
            ),
            (
                format!(
                    "Ribbon, spare within {:.0} %",
                    SPARE_SLACK_BYTES_SHARE * 100.0
                ),
                RibbonPolicy::new(bpk),
            ),
            (
                "Ribbon, no spare".into(),
                RibbonPolicy::with_bytes_share(bpk, 0.0),
            ),
        ];
        let rows = std::iter::once(("Bloom".to_string(), bloom)).chain(
            ribbons
                .into_iter()
                .map(|(name, p)| (name, measure(&p, &keys, absent))),
        );
        for (name, row) in rows {
            let share = row.bytes as f64 / bloom.bytes as f64;
            let at_bloom_fpr = share * bloom.fpr.log2() / row.fpr.log2();
            let kind = match row.kind {
                Some(FilterKind::Ribbon) | None => "",
                Some(FilterKind::Bloom) if name == "Bloom" => "",
                Some(FilterKind::Bloom) => " (fell back to Bloom)",
            };
            println!(
                "| {bpk} | {name}{kind} | {} | {:.3} | {:.2} % | {:.4} % | {} | {:.2} % |",
                row.bytes,
                row.bytes as f64 * 8.0 / n as f64,
                100.0 * share,
                100.0 * row.fpr,
                absent.len(),
                100.0 * at_bloom_fpr,
            );
        }
    }
}
