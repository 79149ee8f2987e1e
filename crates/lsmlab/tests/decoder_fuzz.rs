//! Bounded fuzzing of every decoder a disk can feed: random bytes and damaged valid encodings
//! must give an error or a value, never a panic or a hang. The same entry points
//! (`lsmlab::fuzzing`) are the coverage-guided targets in `fuzz/`.

use lsmlab::env::MemFs;
use lsmlab::{fuzzing, Db, Options};
use proptest::prelude::*;
use std::sync::{Arc, OnceLock};

/// Valid files of every kind, written by a real database: the seeds that damage starts from.
fn corpus() -> &'static Vec<(String, Vec<u8>)> {
    static C: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    C.get_or_init(|| {
        let fs = MemFs::new();
        let opts = Options {
            fs: Arc::new(fs.clone()),
            write_buffer_size: 8 << 10,
            enable_blob_files: true,
            min_blob_size: 40,
            filter: lsmlab::filter::FilterOptions {
                bits_per_key: 10.0,
                ..Default::default()
            },
            ..Options::default()
        };
        let db = Db::open("/db", opts).unwrap();
        for i in 0..600u32 {
            db.put(
                format!("key{i:05}").as_bytes(),
                &vec![b'a' + (i % 26) as u8; 10 + (i as usize % 90)],
            )
            .unwrap();
            if i % 7 == 0 {
                db.delete(format!("key{:05}", i / 2).as_bytes()).unwrap();
            }
        }
        db.flush().unwrap();
        db.put(b"tail", b"in the WAL").unwrap();
        drop(db);
        let mut files: Vec<(String, Vec<u8>)> = fs
            .files()
            .into_iter()
            .filter(|(_, n)| *n > 0)
            .map(|(p, _)| {
                let d = fs.read_file_for_test(&p);
                (p.file_name().unwrap().to_string_lossy().into_owned(), d)
            })
            .collect();
        files.push(("wide.sst".into(), wide_table()));
        files
    })
}

/// A table of format 2 (one 300-byte value a 256-byte block: its index names each block's
/// first key and entry count), as a flush writes it.
fn wide_table() -> Vec<u8> {
    let fs = MemFs::new();
    let opts = Options {
        fs: Arc::new(fs.clone()),
        block_size: 256,
        ..Options::default()
    };
    let db = Db::open("/wide", opts).unwrap();
    for i in 0..40u32 {
        db.put(format!("key{i:05}").as_bytes(), &[b'w'; 300])
            .unwrap();
    }
    db.flush().unwrap();
    drop(db);
    let (path, _) = fs
        .files()
        .into_iter()
        .find(|(p, n)| *n > 0 && p.extension().is_some_and(|e| e == "sst"))
        .expect("the flush wrote a table");
    let data = fs.read_file_for_test(&path);
    let version = u32::from_le_bytes(data[data.len() - 16..data.len() - 12].try_into().unwrap());
    assert_eq!(version, 2, "the seed table is of format 2");
    data
}

fn seed_of(kind: &str) -> Vec<u8> {
    corpus()
        .iter()
        .find(|(n, _)| n.ends_with(kind) || n.starts_with(kind))
        .map(|(_, d)| d.clone())
        .unwrap_or_else(|| panic!("no {kind} in the corpus"))
}

#[derive(Debug, Clone)]
enum Damage {
    Flip(usize, u8),
    Truncate(usize),
    Overwrite(usize, Vec<u8>),
    Insert(usize, Vec<u8>),
}

fn damage() -> impl Strategy<Value = Vec<Damage>> {
    let one = prop_oneof![
        (any::<usize>(), 0u8..8).prop_map(|(a, b)| Damage::Flip(a, b)),
        any::<usize>().prop_map(Damage::Truncate),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(a, b)| Damage::Overwrite(a, b)),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(a, b)| Damage::Insert(a, b)),
    ];
    prop::collection::vec(one, 1..4)
}

fn apply(mut d: Vec<u8>, damage: &[Damage]) -> Vec<u8> {
    for x in damage {
        let n = d.len().max(1);
        match x {
            Damage::Flip(a, b) => {
                if let Some(byte) = d.get_mut(a % n) {
                    *byte ^= 1 << b;
                }
            }
            Damage::Truncate(a) => d.truncate(a % n),
            Damage::Overwrite(a, bytes) => {
                for (i, b) in bytes.iter().enumerate() {
                    if let Some(x) = d.get_mut(a % n + i) {
                        *x = *b;
                    }
                }
            }
            Damage::Insert(a, bytes) => {
                let at = (a % n).min(d.len());
                d.splice(at..at, bytes.iter().copied());
            }
        }
    }
    d
}

proptest! {
    // 400 cases each in the suite; PROPTEST_CASES raises it for a long run.
    #![proptest_config(ProptestConfig { cases: ProptestConfig::default().cases.max(400), ..ProptestConfig::default() })]

    #[test]
    fn tables(d in damage()) { fuzzing::table(&apply(seed_of(".sst"), &d)); }

    #[test]
    fn first_key_index_tables(d in damage()) { fuzzing::table(&apply(seed_of("wide.sst"), &d)); }

    #[test]
    fn wals(d in damage()) { fuzzing::log(&apply(seed_of(".log"), &d)); }

    #[test]
    fn manifests(d in damage()) { fuzzing::log(&apply(seed_of("MANIFEST-"), &d)); }

    #[test]
    fn blob_files(d in damage()) { fuzzing::blob_file(&apply(seed_of(".blob"), &d)); }

    #[test]
    fn random_bytes_everywhere(data in prop::collection::vec(any::<u8>(), 0..3000)) {
        fuzzing::table(&data);
        fuzzing::log(&data);
        fuzzing::blob_file(&data);
        fuzzing::block(&data);
        fuzzing::small_decoders(&data);
    }

    #[test]
    fn filter_blocks(d in damage(), bits in 1u32..30) {
        // A filter block as the builder writes it, then damaged.
        let hashes: Vec<u64> = (0..500u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        for kind in [lsmlab::filter::FilterKind::Bloom, lsmlab::filter::FilterKind::Ribbon] {
            let opts = lsmlab::filter::FilterOptions { bits_per_key: f64::from(bits), kind, bloom_before_level: -1, ..Default::default() };
            let block = opts.policy_for_level(0).expect("a filter").build(&hashes);
            fuzzing::filter_block(&apply(block, &d));
        }
    }
}
