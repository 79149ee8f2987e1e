//! Tests of a version alone: data-driven ones, in the style of LevelDB's `version_set_test.cc` and
//! Pebble's testdata: `version/testdata/get.txt` describes the tables of each level (real tables
//! in an in-memory file system, installed by one [`VersionEdit`]) and the answer of each get;
//! `version/testdata/inputs.txt` the tables a compaction of a key range takes.
//!
//! The language, one command a line (`#` starts a comment):
//! - `case <title>` starts a case with no tables;
//! - `L<n> <entry>…` adds a table of those entries (`key@seq`, `key@seq:del`) to level n;
//!   `L<n> missing <lo> <hi>` a table of user keys lo..hi whose file does not exist;
//! - `get <key>` (the newest version) or `get <key>@<seq>` (the newest at or below seq) expects
//!   `=> <entry> L<n> probed <count>` (the version found, where, and how many tables the get
//!   read), `=> absent probed <count>`, or `=> error`; the value found is checked to be the
//!   entry's own;
//! - `inputs L<n> <lo> <hi>` expects `=> <table numbers>` (tables are numbered from 10 in the
//!   order they are added), the tables `compaction_inputs` takes for that range, sorted.

use super::{NewFile, Version, VersionEdit};
use crate::key::{lookup_key, make_internal_key, ValueKind, MAX_SEQUENCE};
use crate::memtable::Lookup;
use crate::stats::{Statistics, Ticker};
use crate::test_tables::{entry_text, TestTables};

struct Case {
    made: TestTables,
    edit: VersionEdit,
}

impl Case {
    fn new() -> Case {
        Case {
            made: TestTables::new(),
            edit: VersionEdit::default(),
        }
    }

    fn version(&self) -> Version {
        Version::empty(4).apply(&self.edit, &self.made.reaper)
    }

    fn get(&self, target: &str) -> String {
        let lookup = match target.split_once('@') {
            Some((k, s)) => lookup_key(k.as_bytes(), s.parse().expect("seq")),
            None => lookup_key(target.as_bytes(), MAX_SEQUENCE),
        };
        let stats = Statistics::new();
        let got = self.version().get(&self.made.tables, &stats, &lookup);
        let probed = stats.ticker(Ticker::FilesProbed);
        match got {
            Err(_) => "error".to_string(),
            Ok((Lookup::Absent, _)) => format!("absent probed {probed}"),
            Ok((Lookup::Deleted, at)) => {
                let at = at.expect("a deletion found on disk has a place");
                // The deletion's own sequence is not returned; the table and level say where.
                format!("deleted L{} probed {probed}", at.level)
            }
            Ok((Lookup::Found(_, value), at)) => {
                let at = at.expect("a value found on disk has a place");
                let text = String::from_utf8_lossy(&value).into_owned();
                assert!(
                    entry_text(&crate::test_tables::parse_entry(&text).0) == text,
                    "the value {text:?} is not an entry's"
                );
                format!("{text} L{} probed {probed}", at.level)
            }
        }
    }
}

fn run(text: &str) -> usize {
    let mut case = Case::new();
    let mut title = String::new();
    let mut checked = 0;
    let mut lines = text.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        let line = line.split('#').next().unwrap_or("").trim();
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&first) = words.first() else {
            continue;
        };
        let mut expect = |got: String, what: &str| {
            let (_, want) = lines.next().expect("=> after a query");
            let want = want.trim().strip_prefix("=>").expect("=> line").trim();
            assert_eq!(got, want, "case {title:?}, line {}: {what}", n + 1);
            checked += 1;
        };
        if first == "case" {
            title = line["case".len()..].trim().to_string();
            case = Case::new();
        } else if let Some(level) = first.strip_prefix('L') {
            let level: usize = level.parse().expect("L<n>");
            let record = if words.get(1) == Some(&"missing") {
                case.made.missing(words[2], words[3])
            } else {
                case.made.build(&words[1..])
            };
            case.edit.added.push((level, record));
        } else if first == "get" {
            expect(case.get(words[1]), line);
        } else if first == "inputs" {
            let level: usize = words[1][1..].parse().expect("L<n>");
            let mut numbers: Vec<String> = case
                .version()
                .compaction_inputs(level, Some(words[2].as_bytes()), Some(words[3].as_bytes()))
                .iter()
                .map(|f| f.number.to_string())
                .collect();
            numbers.sort();
            expect(numbers.join(" "), line);
        } else {
            panic!("line {}: unknown command {first:?}", n + 1);
        }
    }
    checked
}

#[test]
fn get_testdata() {
    assert!(run(include_str!("testdata/get.txt")) >= 15);
}

#[test]
fn compaction_inputs_testdata() {
    assert!(run(include_str!("testdata/inputs.txt")) >= 5);
}

fn table(number: u64, seqs: (u64, u64)) -> NewFile {
    NewFile {
        number,
        size: 100,
        smallest: make_internal_key(b"a", seqs.1, ValueKind::Value),
        largest: make_internal_key(b"z", seqs.0, ValueKind::Value),
        smallest_seq: seqs.0,
        largest_seq: seqs.1,
        num_entries: 1,
        num_deletions: 0,
        oldest_blob_file: 0,
        shadowed_below: 0,
    }
}

/// A get stops in level 0 at the first table whose largest sequence is not above its best
/// hit: correct only if no table after it holds anything newer, so level 0 must be ordered
/// by largest sequence, not by table number (a float-up's output has a new number and old
/// versions).
#[test]
fn level0_is_ordered_by_largest_sequence_whatever_the_table_numbers() {
    let reaper = crate::test_tables::TestTables::new().reaper;
    let mut edit = VersionEdit::default();
    // 30: a float-up's output (old versions); 20: a flush of newer ones; 10: an old flush.
    for f in [table(30, (5, 40)), table(20, (41, 200)), table(10, (1, 4))] {
        edit.added.push((0, f));
    }
    let v = Version::empty(3).apply(&edit, &reaper);
    let order: Vec<u64> = v.levels[0].iter().map(|f| f.number).collect();
    assert_eq!(order, [20, 30, 10]);
}

/// Levels below 0 find the tables meeting a range by binary search; it must take exactly the
/// tables a scan of the level would, for every range, bounded or not.
#[test]
fn overlapping_below_level0_equals_a_scan_of_the_level() {
    let reaper = crate::test_tables::TestTables::new().reaper;
    let mut edit = VersionEdit::default();
    // Tables [k0, k0+2], [k0+4, k0+6], …: user keys of two digits, gaps between tables.
    for i in 0..20u64 {
        let (lo, hi) = (format!("{:02}", i * 4), format!("{:02}", i * 4 + 2));
        let mut f = table(100 + i, (1, 1));
        f.smallest = make_internal_key(lo.as_bytes(), 1, ValueKind::Value);
        f.largest = make_internal_key(hi.as_bytes(), 1, ValueKind::Value);
        edit.added.push((1, f));
    }
    let v = Version::empty(3).apply(&edit, &reaper);
    let keys: Vec<String> = (0..84).map(|k| format!("{k:02}")).collect();
    let mut bounds: Vec<Option<&[u8]>> = vec![None];
    bounds.extend(keys.iter().map(|k| Some(k.as_bytes())));
    for lo in &bounds {
        for hi in &bounds {
            let got: Vec<u64> = v
                .overlapping(1, *lo, *hi)
                .iter()
                .map(|f| f.number)
                .collect();
            let want: Vec<u64> = v.levels[1]
                .iter()
                .filter(|f| f.overlaps(*lo, *hi))
                .map(|f| f.number)
                .collect();
            assert_eq!(got, want, "range {lo:?}..{hi:?}");
        }
    }
}

/// A table of level `level` spanning user keys `lo..=hi` with `entries` entries.
fn spanning(number: u64, lo: &str, hi: &str, entries: u64) -> NewFile {
    let mut f = table(number, (1, 1));
    f.smallest = make_internal_key(lo.as_bytes(), 1, ValueKind::Value);
    f.largest = make_internal_key(hi.as_bytes(), 1, ValueKind::Value);
    f.num_entries = entries;
    f
}

#[test]
fn key_space_shares_count_the_deepest_entries_a_level_spans() {
    let reaper = crate::test_tables::TestTables::new().reaper;
    let mut edit = VersionEdit::default();
    // The deepest level (3): ten tables of 100 entries, keys 00-09, 10-19, …, 90-99.
    for i in 0..10u64 {
        let (lo, hi) = (format!("{}0", i), format!("{}9", i));
        edit.added.push((3, spanning(300 + i, &lo, &hi, 100)));
    }
    // Level 1 spans 05-24 (meets tables 0, 1, 2) and 71-72 (table 7); level 2 is empty.
    edit.added.push((1, spanning(100, "05", "24", 10)));
    edit.added.push((1, spanning(101, "71", "72", 10)));
    // Level 0: a flush across everything.
    edit.added.push((0, spanning(10, "00", "99", 5)));
    let v = Version::empty(5).apply(&edit, &reaper);
    assert_eq!(v.key_space_shares(), [1.0, 0.4, 1.0, 1.0, 1.0]);

    // A level beyond every deepest table meets none of them: nothing to measure it by.
    let mut beyond = edit.clone();
    beyond.added.retain(|(level, _)| *level != 1);
    beyond.added.push((1, spanning(102, "a0", "a9", 10)));
    let v = Version::empty(5).apply(&beyond, &reaper);
    assert_eq!(v.key_space_shares()[1], 1.0);

    // A sliver is held at the floor of a percent.
    let mut many = VersionEdit::default();
    for i in 0..1000u64 {
        let (lo, hi) = (format!("{i:04}a"), format!("{i:04}b"));
        many.added.push((2, spanning(1000 + i, &lo, &hi, 1)));
    }
    many.added.push((1, spanning(5, "0000a", "0000a", 1)));
    let v = Version::empty(3).apply(&many, &reaper);
    assert_eq!(v.key_space_shares(), [1.0, 0.01, 1.0]);

    // No table at all, or level 0 alone: every level counts whole.
    assert_eq!(Version::empty(3).key_space_shares(), [1.0, 1.0, 1.0]);
}
