//! Entry points that feed arbitrary bytes to every decoder a disk can reach — what the
//! bounded fuzz tests (`tests/decoder_fuzz.rs`) and the coverage-guided targets (`fuzz/`) run.
//! Each must return (an error or a value is fine) and never panic or hang. Not part of the API.

use crate::blob::{BlobFileReader, BlobIndex};
use crate::env::{Env, IoCategory, MemFs};
use crate::filter::FilterReader;
use crate::iter::InternalIterator;
use crate::sst::block::Block;
use crate::sst::block_iter::BlockIter;
use crate::sst::footer::{BlockHandle, Footer};
use crate::sst::{BlockFetch, TableReader};
use crate::version::VersionEdit;
use crate::wal::LogReader;
use crate::{Statistics, WriteBatch};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Opens `data` as a table and reads every entry, both ways, its index and one lookup.
pub fn table(data: &[u8]) {
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
    let _ = t.verify_index();
    let _ = t.get(b"key00010\x01\0\0\0\0\0\0\0", IoCategory::Other);
    // A user iterator, which in format 2 stands at entries known from the index alone.
    let mut user = t.iter(IoCategory::UserRead, BlockFetch::Cached);
    for target in [&b""[..], b"key00010\x01\0\0\0\0\0\0\0", b"\xff"] {
        user.seek(target);
        for _ in 0..8 {
            if !user.valid() || !user.prepare_value() {
                break;
            }
            let _ = user.value().len();
            user.next();
        }
        if user.valid() {
            user.prev();
        }
    }
    let mut it = t.iter(IoCategory::Other, BlockFetch::SEQUENTIAL);
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

pub fn log(data: &[u8]) {
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

pub fn blob_file(data: &[u8]) {
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
            let _ = r.get(&idx, &key, IoCategory::Other);
        }
    }
}

pub fn block(data: &[u8]) {
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

/// A filter block: opened, then probed.
pub fn filter_block(data: &[u8]) {
    if let Ok(f) = FilterReader::open(data.to_vec()) {
        for h in 0..64u64 {
            let _ = f.may_match(h.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        }
    }
}

/// The decoders of small records: table footer, block handle, filter block, version edit,
/// blob index, write batch.
pub fn small_decoders(data: &[u8]) {
    let _ = Footer::decode(data);
    let _ = BlockHandle::decode_varint(data);
    filter_block(data);
    let _ = VersionEdit::decode(data);
    let _ = BlobIndex::decode(data);
    let _ = WriteBatch::decode(data).map(|(_, b)| b.records().count());
}
