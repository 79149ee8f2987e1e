//! Real tables in an in-memory file system, for tests of the parts that read them (level
//! iterators, `Version::get`) without a database. Entries are written `key@seq` (a value) or
//! `key@seq:del` (a deletion); a value is its entry's text, so a reader can tell whose it is.

use crate::blob::BlobCache;
use crate::env::{Env, IoCategory, MemFs};
use crate::filename::table_path;
use crate::key::{
    compare_internal, make_internal_key, parse_internal_key, ValueKind, MAX_SEQUENCE,
};
use crate::options::Compression;
use crate::sst::{TableBuilder, TableOptions};
use crate::stats::Statistics;
use crate::table_cache::TableCache;
use crate::version::{FileMeta, FileReaper, NewFile};
use std::path::PathBuf;
use std::sync::Arc;

/// Internal key and value of an entry.
pub(crate) type Entry = (Vec<u8>, Vec<u8>);

/// `key@seq` or `key@seq:del` as an internal key, with the text as its value.
pub(crate) fn parse_entry(text: &str) -> Entry {
    let (body, kind) = match text.strip_suffix(":del") {
        Some(b) => (b, ValueKind::Deletion),
        None => (text, ValueKind::Value),
    };
    let (key, seq) = body.split_once('@').expect("entry is key@seq");
    let seq: u64 = seq.parse().expect("seq is a number");
    (
        make_internal_key(key.as_bytes(), seq, kind),
        text.as_bytes().to_vec(),
    )
}

/// The entry text of an internal key: `key@seq` or `key@seq:del`.
pub(crate) fn entry_text(ikey: &[u8]) -> String {
    let k = parse_internal_key(ikey).expect("a valid internal key");
    format!(
        "{}@{}{}",
        String::from_utf8_lossy(k.user_key),
        k.seq,
        if k.kind == ValueKind::Deletion {
            ":del"
        } else {
            ""
        }
    )
}

/// Tables written to one in-memory directory, numbered from 10.
pub(crate) struct TestTables {
    env: Env,
    dir: PathBuf,
    /// Opens the tables by number.
    pub tables: Arc<TableCache>,
    /// Owns the tables' metadata (deletes obsolete ones).
    pub reaper: Arc<FileReaper>,
    next: u64,
}

impl TestTables {
    pub(crate) fn new() -> TestTables {
        let env = Env::new(Arc::new(MemFs::new()));
        let dir = PathBuf::from("/tables");
        let stats = Arc::new(Statistics::new());
        let tables = Arc::new(TableCache::new(
            env.clone(),
            dir.clone(),
            None,
            stats.clone(),
        ));
        let blobs = Arc::new(BlobCache::new(env.clone(), dir.clone(), stats.clone()));
        let reaper = FileReaper::new(env.clone(), dir.clone(), tables.clone(), blobs);
        TestTables {
            env,
            dir,
            tables,
            reaper,
            next: 10,
        }
    }

    /// Writes a table of `entries` (any order) with two small entries a block, so readers
    /// cross block boundaries too; returns its MANIFEST record.
    pub(crate) fn build(&mut self, entries: &[&str]) -> NewFile {
        let mut entries: Vec<Entry> = entries.iter().map(|e| parse_entry(e)).collect();
        entries.sort_by(|a, b| compare_internal(&a.0, &b.0));
        let number = self.next;
        self.next += 1;
        let path = table_path(&self.dir, number);
        let file = self.env.create(&path, IoCategory::Flush).expect("create");
        let opts = TableOptions {
            block_size: 40,
            block_restart_interval: 16,
            compression: Compression::None,
            filter: None,
        };
        let mut b = TableBuilder::new(file, path, opts);
        for (k, v) in &entries {
            b.add(k, v).expect("add");
        }
        let t = b.finish().expect("finish");
        let seqs = entries
            .iter()
            .filter_map(|(k, _)| parse_internal_key(k).map(|p| p.seq));
        NewFile {
            number,
            size: t.file_size,
            smallest: t.smallest,
            largest: t.largest,
            smallest_seq: seqs.clone().min().unwrap_or(0),
            largest_seq: seqs.max().unwrap_or(0),
            num_entries: t.properties.num_entries,
            num_deletions: t.properties.num_deletions,
            oldest_blob_file: 0,
            shadowed_below: 0,
        }
    }

    /// A record of a table covering user keys `lo` to `hi` whose file does not exist.
    pub(crate) fn missing(&mut self, lo: &str, hi: &str) -> NewFile {
        let number = self.next;
        self.next += 1;
        NewFile {
            number,
            size: 1000,
            smallest: make_internal_key(lo.as_bytes(), MAX_SEQUENCE, ValueKind::Value),
            largest: make_internal_key(hi.as_bytes(), 0, ValueKind::Value),
            smallest_seq: 0,
            largest_seq: MAX_SEQUENCE,
            num_entries: 0,
            num_deletions: 0,
            oldest_blob_file: 0,
            shadowed_below: 0,
        }
    }

    /// The live metadata of a record.
    pub(crate) fn meta(&self, record: NewFile) -> Arc<FileMeta> {
        Arc::new(FileMeta::new(record, self.reaper.clone()))
    }
}
