//! Filters sized by level on a settled tree: `optimize_filters_for_hits` drops the last level's
//! filters (≥ 80 % of the filter memory when that level holds ≥ 80 % of the entries), a
//! per-level list gives each level its bits, and Monkey's allocation spends about the memory
//! of uniform bits per key with fewer false positives on gets of missing keys. The filter
//! memory and the probes are read from the per-level properties and statistics.

mod common;

use common::*;
use lsmlab::env::MemFs;
use lsmlab::filter::{FilterAllocation, FilterOptions};
use lsmlab::{Db, Options};
use std::sync::Arc;

const KEYS: u64 = 40_000;
const LEVELS: usize = 5;

fn key(i: u64) -> Vec<u8> {
    format!("key{i:012}").into_bytes()
}

/// A tree whose last level holds ~90 % of the entries (dynamic level sizing), built in the
/// calling thread so that every run builds the same tables.
fn options(fs: &MemFs, filter: FilterOptions) -> Options {
    Options {
        fs: Arc::new(fs.clone()),
        write_buffer_size: 32 << 10,
        target_file_size_base: 32 << 10,
        max_bytes_for_level_base: 128 << 10,
        max_bytes_for_level_multiplier: 10.0,
        level_compaction_dynamic_level_bytes: true,
        num_levels: LEVELS,
        block_size: 1024,
        deterministic_background: true,
        filter,
        ..Options::default()
    }
}

/// The figures of one level of a settled tree.
#[derive(Debug, Clone, Copy)]
struct Level {
    entries: u64,
    filter_bytes: u64,
}

/// Fills `KEYS` keys in a scattered order, settles the tree and returns its levels.
fn settled(fs: &MemFs, filter: FilterOptions) -> (Db, Vec<Level>) {
    let db = Db::open(DIR, options(fs, filter)).unwrap();
    for n in 0..KEYS {
        // 7919 is prime to KEYS: every key once, in a scattered order.
        let i = n * 7919 % KEYS;
        db.put(&key(i), &value(i as u32, 0, 32)).unwrap();
    }
    db.flush().unwrap();
    db.wait_for_background_work().unwrap();
    let levels = levels_of(&db);
    (db, levels)
}

/// Entries and filter memory of each level, from the per-level properties.
fn levels_of(db: &Db) -> Vec<Level> {
    (0..LEVELS)
        .map(|l| Level {
            entries: db
                .property_int(&format!("lsmlab.num-entries-at-level{l}"))
                .unwrap(),
            filter_bytes: db
                .property_int(&format!("lsmlab.filter-bytes-at-level{l}"))
                .unwrap(),
        })
        .collect()
}

fn uniform() -> FilterOptions {
    FilterOptions {
        bits_per_key: 10.0,
        ..FilterOptions::default()
    }
}

fn total_filter_bytes(levels: &[Level]) -> u64 {
    levels.iter().map(|l| l.filter_bytes).sum()
}

/// The deepest level holding entries, and its share of them.
fn last_level(levels: &[Level]) -> (usize, f64) {
    let last = levels.iter().rposition(|l| l.entries > 0).unwrap();
    let total: u64 = levels.iter().map(|l| l.entries).sum();
    (last, levels[last].entries as f64 / total as f64)
}

/// Gets `n` keys the tree lacks; returns the false positives counted per level.
fn false_positives_of_missing_gets(db: &Db, n: u64) -> Vec<u64> {
    for i in 0..n {
        // Between the keys written: inside every table's key range, absent from all.
        let k = format!("key{:012}x", i * 2 % KEYS);
        assert_eq!(db.get(k.as_bytes()).unwrap(), None);
    }
    let stats = db.statistics();
    (0..LEVELS)
        .map(|l| {
            let c = stats.filter_level(l);
            assert_eq!(c.true_positive, 0, "level {l}: no key was there");
            c.positive
        })
        .collect()
}

#[test]
fn optimize_filters_for_hits_cuts_filter_memory_by_80_percent_on_a_settled_tree() {
    let (plain_db, plain) = settled(&MemFs::new(), uniform());
    let hits = FilterOptions {
        optimize_filters_for_hits: true,
        ..uniform()
    };
    let (db, levels) = settled(&MemFs::new(), hits);
    let (last, share) = last_level(&levels);
    assert_eq!(last, LEVELS - 1, "{levels:?}");
    assert!(share >= 0.8, "the last level holds {share:.3}: {levels:?}");
    assert_eq!(levels[last].filter_bytes, 0, "{levels:?}");
    assert!(
        levels[..last].iter().any(|l| l.filter_bytes > 0),
        "upper levels keep filters: {levels:?}"
    );
    let (with, without) = (total_filter_bytes(&plain), total_filter_bytes(&levels));
    assert!(
        without as f64 <= 0.2 * with as f64,
        "filter bytes {without} with optimize_filters_for_hits vs {with}: {levels:?} / {plain:?}"
    );
    // Every key is still found; missing keys reach the last level's tables unfiltered, so no
    // probe of that level is counted, where the plain tree counts one per missing get.
    for i in (0..KEYS).step_by(13) {
        assert_eq!(db.get(&key(i)).unwrap(), Some(value(i as u32, 0, 32)));
    }
    db.statistics().reset();
    false_positives_of_missing_gets(&db, 2_000);
    assert!(db.statistics().filter_level(last).is_empty());
    false_positives_of_missing_gets(&plain_db, 2_000);
    let plain_last = plain_db.statistics().filter_level(last);
    assert!(plain_last.useful > 1_900, "{plain_last:?}");
}

#[test]
fn per_level_bits_give_each_level_its_filter_size() {
    let list = FilterOptions {
        bits_per_key_per_level: vec![10.0, 10.0, 10.0, 16.0, 4.0],
        ..FilterOptions::default()
    };
    let (_db, levels) = settled(&MemFs::new(), list);
    let bits = |l: &Level| l.filter_bytes as f64 * 8.0 / l.entries as f64;
    assert!(levels[2..].iter().all(|l| l.entries > 0), "{levels:?}");
    // Bloom rounds each table's filter up to whole 64-byte lines and the reader holds a few
    // bytes of its own: with ~700 keys a table, up to ~2 bits per key above the bits asked.
    for (l, asked) in [(2, 10.0), (3, 16.0), (4, 4.0)] {
        let got = bits(&levels[l]);
        assert!(
            (asked..asked + 2.5).contains(&got),
            "L{l}: {got:.2} bits per key, asked {asked}: {levels:?}"
        );
    }
}

#[test]
fn monkey_spends_uniform_memory_with_fewer_false_positives() {
    let (plain_db, plain) = settled(&MemFs::new(), uniform());
    let monkey = FilterOptions {
        allocation: FilterAllocation::Monkey,
        ..uniform()
    };
    let (db, levels) = settled(&MemFs::new(), monkey);
    let bits = |l: &Level| l.filter_bytes as f64 * 8.0 / l.entries as f64;
    let used: Vec<usize> = (0..LEVELS).filter(|&l| levels[l].entries > 0).collect();
    assert!(used.len() >= 2, "{levels:?}");
    let (upper, last) = (used[used.len() - 2], used[used.len() - 1]);
    assert!(
        bits(&levels[upper]) > bits(&levels[last]) + 2.0,
        "the smaller level gets more bits per key: {levels:?}"
    );
    // Tables are sized for the tree as it stood when each was written, so the settled tree's
    // total is near, not at, uniform's (0.6 % above it here).
    let (m, u) = (total_filter_bytes(&levels), total_filter_bytes(&plain));
    assert!(
        (m as f64 / u as f64 - 1.0).abs() <= 0.05,
        "Monkey {m} B vs uniform {u} B: {levels:?} / {plain:?}"
    );
    let fp_monkey: u64 = false_positives_of_missing_gets(&db, 20_000).iter().sum();
    let fp_uniform: u64 = false_positives_of_missing_gets(&plain_db, 20_000)
        .iter()
        .sum();
    assert!(
        (fp_monkey as f64) < 0.8 * fp_uniform as f64,
        "false positives: Monkey {fp_monkey}, uniform {fp_uniform}"
    );
}

/// Fills the first half of the keys into a settled tree, the second half with compactions off
/// (level 0 many tables deep, as when writes outrun compaction), then settles again: the
/// compactions that drain level 0 size their outputs while it is deep.
fn settled_after_level0_debt(fs: &MemFs, filter: FilterOptions) -> (Db, Vec<Level>) {
    let scattered = |n: u64| n * 7919 % KEYS;
    {
        let db = Db::open(DIR, options(fs, filter.clone())).unwrap();
        for n in 0..KEYS / 2 {
            db.put(&key(scattered(n)), &value(scattered(n) as u32, 0, 32))
                .unwrap();
        }
        db.flush().unwrap();
        db.wait_for_background_work().unwrap();
    }
    {
        let behind = Options {
            disable_auto_compactions: true,
            level0_slowdown_writes_trigger: 1_000,
            level0_stop_writes_trigger: 1_000,
            ..options(fs, filter.clone())
        };
        let db = Db::open(DIR, behind).unwrap();
        for n in KEYS / 2..KEYS {
            db.put(&key(scattered(n)), &value(scattered(n) as u32, 0, 32))
                .unwrap();
        }
        db.flush().unwrap();
        let l0 = db.property_int("rocksdb.num-files-at-level0").unwrap();
        assert!(l0 >= 16, "level 0 holds {l0} tables");
    }
    let db = Db::open(DIR, options(fs, filter)).unwrap();
    db.wait_for_background_work().unwrap();
    let levels = levels_of(&db);
    (db, levels)
}

#[test]
fn monkey_memory_stays_near_uniform_after_level0_debt_drains() {
    let fs = (MemFs::new(), MemFs::new());
    let (plain_db, plain) = settled_after_level0_debt(&fs.0, uniform());
    let monkey = FilterOptions {
        allocation: FilterAllocation::Monkey,
        ..uniform()
    };
    let (db, levels) = settled_after_level0_debt(&fs.1, monkey);
    assert_eq!(
        db.property_int("rocksdb.num-files-at-level0").unwrap(),
        0,
        "{levels:?}"
    );
    // Level 0's debt and the base level it swells are counted at their steady sizes, so the
    // tables written while they drained keep most of the lasting levels' share: 3.4 % below
    // uniform here, where counting them as they stood left the settled tree 5.6 % below
    // (55,904 B against 59,232). The rest is the tree growing under tables sized once, when
    // written (docs/filters.md, "A growing tree").
    let (m, u) = (total_filter_bytes(&levels), total_filter_bytes(&plain));
    assert!(
        (m as f64 / u as f64 - 1.0).abs() <= 0.04,
        "Monkey {m} B vs uniform {u} B: {levels:?} / {plain:?}"
    );
    // Gets still find every key.
    for i in (0..KEYS).step_by(97) {
        assert_eq!(db.get(&key(i)).unwrap(), Some(value(i as u32, 0, 32)));
    }
    drop(plain_db);
}
