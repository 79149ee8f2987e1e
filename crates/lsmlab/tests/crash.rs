//! Crash tests: cut the power at random points (every unsynced byte may be lost, and part of an
//! unsynced tail may survive), reopen, and check that the database is exactly the state after
//! some write at or after the last write acknowledged with `sync`.

mod common;

use common::*;
use lsmlab::env::MemFs;
use lsmlab::{Db, ReadOptions, WriteBatch, WriteOptions};
use proptest::prelude::*;
use std::collections::BTreeMap;

#[derive(Debug, Clone)]
enum Op {
    Write { keys: Vec<(u32, bool)>, sync: bool },
    Flush,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        20 => (prop::collection::vec((0u32..120, prop::bool::weighted(0.85)), 1..6), prop::bool::weighted(0.2))
            .prop_map(|(keys, sync)| Op::Write { keys, sync }),
        1 => Just(Op::Flush),
    ]
}

fn check_crash(ops: Vec<Op>, crash_at: usize, torn_seed: u64) {
    let fs = MemFs::new();
    let opts = small_options(&fs);
    let db = Db::open(DIR, opts.clone()).unwrap();
    let mut model = BTreeMap::new();
    // states[i] = the database after the i-th write (states[0] = empty).
    let mut states = vec![model.clone()];
    let mut last_durable = 0;
    let crash_at = crash_at % (ops.len() + 1);
    for (i, op) in ops.iter().enumerate() {
        if i == crash_at {
            break;
        }
        match op {
            Op::Write { keys, sync } => {
                let mut b = WriteBatch::new();
                for &(k, put) in keys {
                    if put {
                        let v = value(k, i as u32, 30);
                        b.put(&key(k), &v);
                        model.insert(key(k), v);
                    } else {
                        b.delete(&key(k));
                        model.remove(&key(k));
                    }
                }
                db.write(
                    &WriteOptions {
                        sync: *sync,
                        ..Default::default()
                    },
                    b,
                )
                .unwrap();
                states.push(model.clone());
                if *sync {
                    last_durable = states.len() - 1;
                }
            }
            Op::Flush => {
                db.flush().unwrap();
                // A flush makes everything before it durable.
                last_durable = states.len() - 1;
            }
        }
    }
    let mut rng = torn_seed;
    let image = fs.crash_image(|_, unsynced| {
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        if unsynced == 0 || rng >> 62 == 0 {
            0
        } else {
            (rng >> 20) as usize % (unsynced + 1)
        }
    });
    drop(db);
    let reopened = Db::open(DIR, small_options(&image)).unwrap();
    let got = scan(&reopened, &ReadOptions::default());
    let ok = states[last_durable..].contains(&got);
    assert!(
        ok,
        "recovered state is not the state after any write from #{last_durable} (the last synced) on; \
         recovered {} keys",
        got.len()
    );
    // The recovered database keeps working.
    reopened.put(b"after-crash", b"1").unwrap();
    assert_eq!(reopened.get(b"after-crash").unwrap(), Some(b"1".to_vec()));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn acknowledged_synced_writes_survive_power_cuts(
        ops in prop::collection::vec(op(), 1..300),
        crash_at in 0usize..400,
        torn_seed in any::<u64>(),
    ) {
        check_crash(ops, crash_at, torn_seed);
    }
}

#[test]
fn a_crash_after_a_synced_write_keeps_it() {
    let fs = MemFs::new();
    let db = Db::open(DIR, small_options(&fs)).unwrap();
    db.put(b"unsynced", b"x").unwrap();
    let mut b = WriteBatch::new();
    b.put(b"synced", b"y");
    db.write(
        &WriteOptions {
            sync: true,
            ..Default::default()
        },
        b,
    )
    .unwrap();
    let image = fs.crash_image(|_, _| 0);
    drop(db);
    let db = Db::open(DIR, small_options(&image)).unwrap();
    assert_eq!(db.get(b"synced").unwrap(), Some(b"y".to_vec()));
    // Written before the synced write into the same WAL, so it is durable too.
    assert_eq!(db.get(b"unsynced").unwrap(), Some(b"x".to_vec()));
}
