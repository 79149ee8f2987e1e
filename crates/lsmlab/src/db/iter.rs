//! The user-facing iterator: hides old versions, deletions and writes newer than its sequence.

use super::value::resolve;
use crate::blob::BlobCache;
use crate::error::{Error, Result};
use crate::iter::{InternalIterator, MergingIterator};
use crate::key::{lookup_key, parse_internal_key, SequenceNumber, ValueKind};
use crate::pinned::PinnedValue;
use crate::stats::{HistogramKind, Statistics, Ticker};
use crate::version::Version;
use std::sync::Arc;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    /// The internal iterator is at the entry that gave the current key.
    Forward,
    /// The internal iterator is just before every entry of the current key.
    Reverse,
}

/// A bidirectional cursor over user keys at one sequence number.
pub struct DbIterator {
    iter: MergingIterator,
    seq: SequenceNumber,
    stats: Arc<Statistics>,
    /// Record seek latencies (`Options::statistics`): two clock reads per seek.
    timed: bool,
    blobs: Arc<BlobCache>,
    /// Keeps the tables and blob files the iterator may read from being deleted.
    _version: Arc<Version>,
    dir: Direction,
    valid: bool,
    key: Vec<u8>,
    /// The current value when it is not [`Self::value_in_iter`]: read from a blob file, or
    /// copied when moving backwards (the internal iterator is then past the entry).
    value: PinnedValue,
    /// The current value is the internal iterator's, not copied: moving forward leaves it at
    /// the entry that gave the current key (a 16 KiB value was copied at every step: 5 % of
    /// a 16 KB `seekrandom`'s samples, plus an allocation and a free).
    value_in_iter: bool,
    /// The user key being skipped past; kept to reuse its allocation.
    skip: Vec<u8>,
    err: Option<Error>,
}

impl DbIterator {
    pub(crate) fn new(
        iter: MergingIterator,
        seq: SequenceNumber,
        stats: Arc<Statistics>,
        timed: bool,
        blobs: Arc<BlobCache>,
        version: Arc<Version>,
    ) -> DbIterator {
        DbIterator {
            iter,
            seq,
            stats,
            timed,
            blobs,
            _version: version,
            dir: Direction::Forward,
            valid: false,
            key: Vec::new(),
            value: Vec::new().into(),
            value_in_iter: false,
            skip: Vec::new(),
            err: None,
        }
    }

    /// True when positioned at a key.
    pub fn valid(&self) -> bool {
        self.valid
    }

    /// The current key. Empty when not valid.
    pub fn key(&self) -> &[u8] {
        if self.valid {
            &self.key
        } else {
            &[]
        }
    }

    /// The current value. Empty when not valid.
    pub fn value(&self) -> &[u8] {
        if !self.valid {
            &[]
        } else if self.value_in_iter {
            self.iter.value()
        } else {
            &self.value
        }
    }

    /// The first error met; an iterator that failed is not valid.
    pub fn status(&self) -> Result<()> {
        match &self.err {
            Some(e) => Err(e.clone()),
            None => self.iter.status(),
        }
    }

    fn fail(&mut self, e: Error) {
        self.err = Some(e);
        self.valid = false;
    }

    fn corrupt_key(&mut self) {
        self.fail(Error::InvalidRequest(
            "iterator met a malformed internal key".into(),
        ));
    }

    /// Moves forward from the internal position to the first visible live entry whose user key
    /// is greater than `self.skip` (if `skipping`).
    fn find_next(&mut self, mut skipping: bool) {
        while self.iter.valid() {
            let Some(p) = parse_internal_key(self.iter.key()) else {
                return self.corrupt_key();
            };
            let hidden = p.seq > self.seq || (skipping && p.user_key <= self.skip.as_slice());
            if !hidden {
                match p.kind {
                    ValueKind::Deletion => {
                        self.skip.clear();
                        self.skip.extend_from_slice(p.user_key);
                        skipping = true;
                    }
                    ValueKind::Value => {
                        self.key.clear();
                        self.key.extend_from_slice(p.user_key);
                        if !self.iter.prepare_value() {
                            break;
                        }
                        self.value_in_iter = true;
                        self.valid = true;
                        return;
                    }
                    kind => {
                        self.key.clear();
                        self.key.extend_from_slice(p.user_key);
                        if !self.iter.prepare_value() {
                            break;
                        }
                        match resolve(kind, &self.key, self.iter.value(), &self.blobs) {
                            Ok(v) => self.value = v,
                            Err(e) => return self.fail(e),
                        }
                        self.value_in_iter = false;
                        self.valid = true;
                        return;
                    }
                }
            }
            self.iter.next();
        }
        self.valid = false;
        if let Err(e) = self.iter.status() {
            self.fail(e);
        }
    }

    /// Moves backward from the internal position to the previous visible live user key.
    fn find_prev(&mut self) {
        let mut kind = ValueKind::Deletion;
        let mut raw = Vec::new();
        while self.iter.valid() {
            let Some(p) = parse_internal_key(self.iter.key()) else {
                return self.corrupt_key();
            };
            if p.seq <= self.seq {
                if kind != ValueKind::Deletion && p.user_key < self.key.as_slice() {
                    break; // passed every entry of the key found
                }
                kind = p.kind;
                self.key.clear();
                self.key.extend_from_slice(p.user_key);
                raw.clear();
                if kind != ValueKind::Deletion {
                    if !self.iter.prepare_value() {
                        break;
                    }
                    raw.extend_from_slice(self.iter.value());
                }
            }
            self.iter.prev();
        }
        // A read that failed part way (a step back, or a value's block) must not hand out the
        // version gathered so far: an older one, or an empty value.
        if let Err(e) = self.iter.status() {
            self.key.clear();
            return self.fail(e);
        }
        if kind == ValueKind::Deletion {
            self.valid = false;
            self.key.clear();
            return;
        }
        let value = match kind {
            // Already a copy of its own: no second one.
            ValueKind::Value => Ok(raw.into()),
            _ => resolve(kind, &self.key, &raw, &self.blobs),
        };
        match value {
            Ok(v) => {
                self.value = v;
                self.value_in_iter = false;
                self.valid = true;
            }
            Err(e) => self.fail(e),
        }
    }

    /// To the first key.
    pub fn seek_to_first(&mut self) {
        self.dir = Direction::Forward;
        self.iter.seek_to_first();
        self.find_next(false);
    }

    /// To the last key.
    pub fn seek_to_last(&mut self) {
        self.dir = Direction::Reverse;
        self.iter.seek_to_last();
        self.find_prev();
    }

    /// To the first key ≥ `key`.
    pub fn seek(&mut self, key: &[u8]) {
        let start = self.timed.then(std::time::Instant::now);
        self.stats.add(Ticker::NumberDbSeek, 1);
        self.dir = Direction::Forward;
        self.iter.seek(&lookup_key(key, self.seq));
        self.find_next(false);
        if let Some(t) = start {
            self.stats
                .record(HistogramKind::DbSeek, t.elapsed().as_micros() as u64);
        }
    }

    /// To the last key ≤ `key`.
    pub fn seek_for_prev(&mut self, key: &[u8]) {
        self.seek(key);
        if !self.valid {
            if self.err.is_none() {
                self.seek_to_last();
            }
        } else if self.key.as_slice() > key {
            self.prev();
        }
    }

    /// To the next key.
    pub fn next(&mut self) {
        if !self.valid {
            return;
        }
        self.stats.add(Ticker::NumberDbNext, 1);
        if self.dir == Direction::Reverse {
            self.dir = Direction::Forward;
            if self.iter.valid() {
                self.iter.next();
            } else {
                self.iter.seek_to_first();
            }
        }
        std::mem::swap(&mut self.key, &mut self.skip);
        self.find_next(true);
    }

    /// To the previous key.
    pub fn prev(&mut self) {
        if !self.valid {
            return;
        }
        self.stats.add(Ticker::NumberDbPrev, 1);
        if self.dir == Direction::Forward {
            // Step back past every entry of the current key.
            loop {
                self.iter.prev();
                if !self.iter.valid() {
                    break;
                }
                match parse_internal_key(self.iter.key()) {
                    Some(p) if p.user_key < self.key.as_slice() => break,
                    Some(_) => {}
                    None => return self.corrupt_key(),
                }
            }
            self.dir = Direction::Reverse;
        }
        self.find_prev();
    }
}

impl Iterator for DbIterator {
    type Item = Result<(Vec<u8>, Vec<u8>)>;

    /// Yields the current entry and advances; position the cursor first (e.g. `seek_to_first`).
    fn next(&mut self) -> Option<Self::Item> {
        if !self.valid {
            // Report an error once, then end.
            return self.err.take().map(Err);
        }
        let item = (self.key.clone(), self.value().to_vec());
        DbIterator::next(self);
        Some(Ok(item))
    }
}
