//! Data-driven tests of the iterators of the read path, in the style of Pebble's
//! `testdata/merging_iter` and `testdata/level_iter`: `iter/testdata/merging_iter.txt` merges
//! mock children, `iter/testdata/level_iter.txt` walks real tables of one level (built in an
//! in-memory file system); each describes its inputs and a walk, and the positions expected
//! after each step.
//!
//! The language, one command a line (`#` starts a comment):
//! - `case <title>` starts a case with no inputs;
//! - `child <entry>…` (merging) adds a child holding those entries (given in any order; sorted
//!   as internal keys): `key@seq` is a value, `key@seq:del` a deletion;
//! - `child-failing <n> <entry>…` (merging) adds a child that fails on its `n`-th move
//!   (counting every positioning call from 1): it turns invalid with an error status;
//! - `table <entry>…` (level) adds a table of those entries after the level's last one (tables
//!   of 2-entry blocks, so walks cross blocks too); `missing <lo> <hi>` adds a table whose file
//!   does not exist, covering user keys lo to hi;
//! - `walk <step>…` with steps `first`, `last`, `next`, `prev`, `seek:<key>` (the newest version
//!   of key) or `seek:<key>@<seq>` (the newest at or below seq), expects the next line to be
//!   `=> <pos>…`, one position per step: the entry the merge stands at (`key@seq`,
//!   `key@seq:del`), `.` when exhausted, or `err` when invalid with an error status. Each value
//!   is checked too: a child's value is its entry's text.

use super::{InternalIterator, LevelIterator, MergingIterator};
use crate::env::IoCategory;
use crate::error::{Error, Result};
use crate::key::{compare_internal, lookup_key, MAX_SEQUENCE};
use crate::sst::BlockFetch;
use crate::test_tables::{entry_text, parse_entry, TestTables};
use crate::version::FileMeta;
use std::sync::Arc;

/// A sorted list of entries behind the iterator interface, failing on a given move.
struct VecIter {
    entries: Entries,
    pos: Option<usize>,
    moves: usize,
    fail_on: Option<usize>,
    failed: bool,
}

impl VecIter {
    fn new(mut entries: Entries, fail_on: Option<usize>) -> VecIter {
        entries.sort_by(|a, b| compare_internal(&a.0, &b.0));
        VecIter {
            entries,
            pos: None,
            moves: 0,
            fail_on,
            failed: false,
        }
    }

    /// Counts a move; true when this move is the failing one (the iterator is then invalid).
    fn fails_now(&mut self) -> bool {
        self.moves += 1;
        if self.failed || self.fail_on == Some(self.moves) {
            self.failed = true;
            self.pos = None;
        }
        self.failed
    }
}

impl InternalIterator for VecIter {
    fn valid(&self) -> bool {
        self.pos.is_some()
    }
    fn seek_to_first(&mut self) {
        if !self.fails_now() {
            self.pos = (!self.entries.is_empty()).then_some(0);
        }
    }
    fn seek_to_last(&mut self) {
        if !self.fails_now() {
            self.pos = self.entries.len().checked_sub(1);
        }
    }
    fn seek(&mut self, target: &[u8]) {
        if !self.fails_now() {
            let i = self
                .entries
                .partition_point(|(k, _)| compare_internal(k, target).is_lt());
            self.pos = (i < self.entries.len()).then_some(i);
        }
    }
    fn next(&mut self) {
        if !self.fails_now() {
            self.pos = self.pos.map(|p| p + 1).filter(|&p| p < self.entries.len());
        }
    }
    fn prev(&mut self) {
        if !self.fails_now() {
            self.pos = self.pos.and_then(|p| p.checked_sub(1));
        }
    }
    fn key(&self) -> &[u8] {
        self.pos.map_or(&[], |p| &self.entries[p].0)
    }
    fn value(&self) -> &[u8] {
        self.pos.map_or(&[], |p| &self.entries[p].1)
    }
    fn status(&self) -> Result<()> {
        if self.failed {
            Err(Error::corruption(
                "mock",
                self.moves as u64,
                "a failing child",
            ))
        } else {
            Ok(())
        }
    }
}

fn position(it: &dyn InternalIterator) -> String {
    if !it.valid() {
        return if it.status().is_err() { "err" } else { "." }.to_string();
    }
    let text = entry_text(it.key());
    assert_eq!(
        it.value(),
        text.as_bytes(),
        "the value at {text} is another entry's"
    );
    text
}

fn step(it: &mut dyn InternalIterator, op: &str) {
    match op {
        "first" => it.seek_to_first(),
        "last" => it.seek_to_last(),
        "next" => it.next(),
        "prev" => it.prev(),
        _ => {
            let target = op.strip_prefix("seek:").expect("a known step");
            let target = match target.split_once('@') {
                Some((k, s)) => lookup_key(k.as_bytes(), s.parse().expect("seq")),
                None => lookup_key(target.as_bytes(), MAX_SEQUENCE),
            };
            it.seek(&target);
        }
    }
}

type Entries = Vec<(Vec<u8>, Vec<u8>)>;

/// The inputs of one case; `build` makes the iterator a walk runs on.
trait Inputs {
    fn command(&mut self, word: &str, rest: &[&str]) -> bool;
    fn build(&self) -> Box<dyn InternalIterator>;
}

/// Runs a testdata file against fresh inputs per case; returns the number of walks.
fn run_testdata<I: Inputs>(text: &str, fresh: impl Fn() -> I) -> usize {
    let mut inputs = fresh();
    let mut title = String::new();
    let mut walked = 0;
    let mut lines = text.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        let line = line.split('#').next().unwrap_or("").trim();
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first().copied() {
            None => {}
            Some("case") => {
                title = line["case".len()..].trim().to_string();
                inputs = fresh();
            }
            Some("walk") => {
                let steps = &words[1..];
                let (_, want) = lines.next().expect("=> after walk");
                let want: Vec<&str> = want
                    .trim()
                    .strip_prefix("=>")
                    .expect("=> after walk")
                    .split_whitespace()
                    .collect();
                let mut it = inputs.build();
                let mut got = Vec::new();
                for s in steps {
                    step(it.as_mut(), s);
                    got.push(position(it.as_ref()));
                }
                assert_eq!(
                    got,
                    want,
                    "case {title:?}, line {}: walk {}",
                    n + 1,
                    steps.join(" ")
                );
                walked += 1;
            }
            Some(word) => assert!(
                inputs.command(word, &words[1..]),
                "line {}: unknown command {word:?}",
                n + 1
            ),
        }
    }
    walked
}

#[derive(Default)]
struct Children(Vec<(Entries, Option<usize>)>);

impl Inputs for Children {
    fn command(&mut self, word: &str, rest: &[&str]) -> bool {
        match word {
            "child" => self
                .0
                .push((rest.iter().map(|e| parse_entry(e)).collect(), None)),
            "child-failing" => {
                let on: usize = rest[0].parse().expect("n");
                let entries = rest[1..].iter().map(|e| parse_entry(e)).collect();
                self.0.push((entries, Some(on)));
            }
            _ => return false,
        }
        true
    }
    fn build(&self) -> Box<dyn InternalIterator> {
        Box::new(MergingIterator::new(
            self.0
                .iter()
                .map(|(e, f)| Box::new(VecIter::new(e.clone(), *f)) as Box<dyn InternalIterator>)
                .collect(),
        ))
    }
}

/// The tables of one level, written to an in-memory file system.
struct Level {
    made: TestTables,
    files: Vec<Arc<FileMeta>>,
}

impl Level {
    fn new() -> Level {
        Level {
            made: TestTables::new(),
            files: Vec::new(),
        }
    }
}

impl Inputs for Level {
    fn command(&mut self, word: &str, rest: &[&str]) -> bool {
        let record = match word {
            "table" => self.made.build(rest),
            "missing" => self.made.missing(rest[0], rest[1]),
            _ => return false,
        };
        self.files.push(self.made.meta(record));
        true
    }
    fn build(&self) -> Box<dyn InternalIterator> {
        Box::new(LevelIterator::new(
            self.files.clone(),
            self.made.tables.clone(),
            IoCategory::UserRead,
            BlockFetch::Cached,
        ))
    }
}

#[test]
fn merging_iter_testdata() {
    let walks = run_testdata(include_str!("testdata/merging_iter.txt"), Children::default);
    assert!(walks >= 10, "the testdata walks only {walks} times");
}

#[test]
fn level_iter_testdata() {
    let walks = run_testdata(include_str!("testdata/level_iter.txt"), Level::new);
    assert!(walks >= 8, "the testdata walks only {walks} times");
}
