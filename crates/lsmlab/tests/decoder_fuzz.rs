//! Bounded fuzzing of every decoder a disk can feed: random bytes and damaged valid encodings
//! must give an error or a value, never a panic or a hang. (The toolchain here is stable Rust,
//! so coverage-guided fuzzing is not available; see docs/reliability.md.)

use lsmlab::blob::{BlobFileReader, BlobIndex};
use lsmlab::env::{Env, MemFs};
use lsmlab::filter::FilterReader;
use lsmlab::iter::InternalIterator;
use lsmlab::sst::block::Block;
use lsmlab::sst::block_iter::BlockIter;
use lsmlab::sst::footer::{BlockHandle, Footer};
use lsmlab::sst::TableReader;
use lsmlab::version::VersionEdit;
use lsmlab::wal::LogReader;
use lsmlab::{Db, Options, Statistics, WriteBatch};
use proptest::prelude::*;
use std::path::{Path, PathBuf};
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
        fs.files()
            .into_iter()
            .filter(|(_, n)| *n > 0)
            .map(|(p, _)| {
                let d = fs.read_file_for_test(&p);
                (p.file_name().unwrap().to_string_lossy().into_owned(), d)
            })
            .collect()
    })
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

/// Opens `data` as a table and reads every entry, both ways.
fn read_table(data: &[u8]) {
    let fs = MemFs::new();
    let p = Path::new("/t/000001.sst");
    fs.set_file_for_test(p, data);
    let env = Env::new(Arc::new(fs));
    let Ok(file) = env.open_random(p) else { return };
    let Ok(t) = TableReader::open(file, p.to_path_buf(), 1, None, Arc::new(Statistics::new()))
    else {
        return;
    };
    let t = Arc::new(t);
    let _ = t.index_entries();
    let _ = t.get(
        b"key00010\x01\0\0\0\0\0\0\0",
        lsmlab::env::IoCategory::Other,
    );
    let mut it = t.iter(lsmlab::env::IoCategory::Other, false);
    it.seek_to_first();
    let mut n = 0;
    while it.valid() && n < 100_000 {
        it.next();
        n += 1;
    }
    let _ = it.status();
    it.seek_to_last();
    while it.valid() && n < 200_000 {
        it.prev();
        n += 1;
    }
}

fn read_log(data: &[u8]) {
    let mut r = LogReader::new(data, Path::new("/log"));
    loop {
        while let Some(rec) = r.next_record() {
            if let Some((_, b)) = WriteBatch::decode(rec) {
                for x in b.records() {
                    let _ = (x.key.len(), x.value.len());
                }
            }
            let _ = VersionEdit::decode(rec);
        }
        let _ = r.outcome();
        if !r.skip_damage() {
            break;
        }
    }
}

fn read_blob(data: &[u8]) {
    let fs = MemFs::new();
    let p = PathBuf::from("/b/000002.blob");
    fs.set_file_for_test(&p, data);
    let env = Env::new(Arc::new(fs));
    if let Ok(r) = BlobFileReader::open(&env, &p) {
        let mut found = Vec::new();
        let _ = r.scan_records(|off, key, len, c| found.push((off, key.to_vec(), len, c)));
        for (off, key, len, c) in found {
            let idx = BlobIndex {
                file_number: 2,
                offset: off,
                size: len,
                compression: c,
            };
            let _ = r.get(&idx, &key, lsmlab::env::IoCategory::Other);
        }
    }
}

fn read_block(data: &[u8]) {
    if let Ok(b) = Block::new(data.to_vec()) {
        let mut it = BlockIter::new(Arc::new(b), Arc::new(PathBuf::from("/x")), 0);
        it.seek_to_first();
        let mut n = 0;
        while it.valid() && n < 100_000 {
            it.next();
            n += 1;
        }
        it.seek(b"key00100");
        it.seek_to_last();
        while it.valid() && n < 200_000 {
            it.prev();
            n += 1;
        }
    }
}

proptest! {
    // 400 cases each in the suite; PROPTEST_CASES raises it for a long run.
    #![proptest_config(ProptestConfig { cases: ProptestConfig::default().cases.max(400), ..ProptestConfig::default() })]

    #[test]
    fn tables(d in damage()) { read_table(&apply(seed_of(".sst"), &d)); }

    #[test]
    fn wals(d in damage()) { read_log(&apply(seed_of(".log"), &d)); }

    #[test]
    fn manifests(d in damage()) { read_log(&apply(seed_of("MANIFEST-"), &d)); }

    #[test]
    fn blob_files(d in damage()) { read_blob(&apply(seed_of(".blob"), &d)); }

    #[test]
    fn random_bytes_everywhere(data in prop::collection::vec(any::<u8>(), 0..3000)) {
        read_table(&data);
        read_log(&data);
        read_blob(&data);
        read_block(&data);
        let _ = Footer::decode(&data);
        let _ = BlockHandle::decode_varint(&data);
        let _ = FilterReader::open(data.clone()).map(|f| f.may_match(0x1234_5678));
        let _ = VersionEdit::decode(&data);
        let _ = BlobIndex::decode(&data);
        let _ = WriteBatch::decode(&data).map(|(_, b)| b.records().count());
    }

    #[test]
    fn filter_blocks(d in damage(), bits in 1u32..30) {
        // A filter block as the builder writes it, then damaged.
        let hashes: Vec<u64> = (0..500u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        for kind in [lsmlab::filter::FilterKind::Bloom, lsmlab::filter::FilterKind::Ribbon] {
            let opts = lsmlab::filter::FilterOptions { bits_per_key: f64::from(bits), kind, bloom_before_level: -1 };
            let block = opts.policy_for_level(0).expect("a filter").build(&hashes);
            if let Ok(f) = FilterReader::open(apply(block, &d)) {
                for h in hashes.iter().take(50) {
                    let _ = f.may_match(*h);
                }
            }
        }
    }
}
