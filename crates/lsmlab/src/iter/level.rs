//! Concatenates the tables of one level (disjoint, ordered), opening each table lazily.

use super::InternalIterator;
use crate::env::IoCategory;
use crate::error::{Error, Result};
use crate::key::compare_internal;
use crate::sst::BlockFetch;
use crate::table_cache::TableCache;
use crate::version::{FileMeta, Version};
use std::cmp::Ordering;
use std::sync::Arc;

/// The tables a [`LevelIterator`] walks.
enum LevelFiles {
    /// A list of its own (a compaction's inputs).
    Owned(Vec<Arc<FileMeta>>),
    /// One level of a version, shared. A user iterator is made per seek in `seekrandom`: a
    /// copy of the level's list took a reference on every table of the level, and with two
    /// threads seeking, each of those counters moved between the cores twice per seek.
    Level(Arc<Version>, usize),
}

impl LevelFiles {
    fn get(&self) -> &[Arc<FileMeta>] {
        match self {
            LevelFiles::Owned(files) => files,
            LevelFiles::Level(v, level) => v.levels.get(*level).map_or(&[], |f| f.as_slice()),
        }
    }
}

/// A cursor over the tables of one level.
pub struct LevelIterator {
    files: LevelFiles,
    tables: Arc<TableCache>,
    cat: IoCategory,
    fetch: BlockFetch,
    index: usize,
    cur: Option<Box<dyn InternalIterator>>,
    err: Option<Error>,
}

impl LevelIterator {
    /// A cursor over `files`, which must be disjoint and sorted.
    pub fn new(
        files: Vec<Arc<FileMeta>>,
        tables: Arc<TableCache>,
        cat: IoCategory,
        fetch: BlockFetch,
    ) -> LevelIterator {
        LevelIterator::with_files(LevelFiles::Owned(files), tables, cat, fetch)
    }

    /// A cursor over level `level` of `version`, sharing the version's list of its tables.
    pub fn for_level(
        version: Arc<Version>,
        level: usize,
        tables: Arc<TableCache>,
        cat: IoCategory,
        fetch: BlockFetch,
    ) -> LevelIterator {
        LevelIterator::with_files(LevelFiles::Level(version, level), tables, cat, fetch)
    }

    fn with_files(
        files: LevelFiles,
        tables: Arc<TableCache>,
        cat: IoCategory,
        fetch: BlockFetch,
    ) -> LevelIterator {
        LevelIterator {
            files,
            tables,
            cat,
            fetch,
            index: 0,
            cur: None,
            err: None,
        }
    }

    fn open(&mut self, index: usize) {
        self.index = index;
        self.cur = None;
        let Some(f) = self.files.get().get(index) else {
            return;
        };
        match f.reader(&self.tables) {
            Ok(t) => self.cur = Some(t.iter(self.cat, self.fetch)),
            Err(e) => self.err = Some(e),
        }
    }

    fn cur_valid(&self) -> bool {
        self.cur.as_ref().is_some_and(|c| c.valid())
    }

    fn cur_failed(&mut self) -> bool {
        if let Some(Err(e)) = self.cur.as_ref().map(|c| c.status()) {
            self.err = Some(e);
        }
        self.err.is_some()
    }

    fn skip_forward(&mut self) {
        while !self.cur_valid() && !self.cur_failed() && self.index + 1 < self.files.get().len() {
            self.open(self.index + 1);
            if let Some(c) = self.cur.as_mut() {
                c.seek_to_first();
            }
        }
    }

    fn skip_backward(&mut self) {
        while !self.cur_valid() && !self.cur_failed() && self.index > 0 {
            self.open(self.index - 1);
            if let Some(c) = self.cur.as_mut() {
                c.seek_to_last();
            }
        }
    }
}

impl InternalIterator for LevelIterator {
    fn valid(&self) -> bool {
        self.err.is_none() && self.cur_valid()
    }
    fn seek_to_first(&mut self) {
        self.open(0);
        if let Some(c) = self.cur.as_mut() {
            c.seek_to_first();
        }
        self.skip_forward();
    }
    fn seek_to_last(&mut self) {
        if self.files.get().is_empty() {
            self.cur = None;
            return;
        }
        self.open(self.files.get().len() - 1);
        if let Some(c) = self.cur.as_mut() {
            c.seek_to_last();
        }
        self.skip_backward();
    }
    fn seek(&mut self, target: &[u8]) {
        let i = self
            .files
            .get()
            .partition_point(|f| compare_internal(&f.largest, target) == Ordering::Less);
        self.open(i);
        if let Some(c) = self.cur.as_mut() {
            c.seek(target);
        }
        self.skip_forward();
    }
    fn next(&mut self) {
        if let Some(c) = self.cur.as_mut() {
            c.next();
        }
        self.skip_forward();
    }
    fn prev(&mut self) {
        if let Some(c) = self.cur.as_mut() {
            c.prev();
        }
        self.skip_backward();
    }
    fn key(&self) -> &[u8] {
        self.cur.as_ref().map(|c| c.key()).unwrap_or(&[])
    }
    fn value(&self) -> &[u8] {
        self.cur.as_ref().map(|c| c.value()).unwrap_or(&[])
    }
    fn prepare_value(&mut self) -> bool {
        self.cur.as_mut().is_some_and(|c| c.prepare_value()) || {
            self.cur_failed();
            false
        }
    }
    fn status(&self) -> Result<()> {
        match &self.err {
            Some(e) => Err(e.clone()),
            None => self.cur.as_ref().map(|c| c.status()).unwrap_or(Ok(())),
        }
    }
}
