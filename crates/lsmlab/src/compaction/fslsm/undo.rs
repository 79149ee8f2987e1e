//! Float-ups undone by compaction, and the cool-down that keeps float-up and compaction from
//! chasing each other (docs/fslsm.md, "Float-up and compaction").
//!
//! A float-up writes a hot table's keys into level 0; a compaction that takes those level-0
//! tables down again soon after undoes it, having cost a rewrite and saved few reads. Each
//! float-up's level-0 tables are remembered with the operation count at which they were
//! written; when a compaction (not another float-up, which keeps them in level 0) takes one
//! out of level 0 within `window` operations, the float-up is counted as undone, once, and its
//! key range cools down: no float-up of a table overlapping it is asked for during the next
//! `window` operations.

use crate::version::{FileMeta, NewFile};
use std::collections::{HashMap, HashSet};

/// A level-0 table written by a float-up.
struct Floated {
    /// The float-up that wrote it (its tables share the id).
    id: u64,
    /// Operations counted when it was written.
    at: u64,
}

/// A key range whose float-up was undone, refused until `until` operations.
struct Cooling {
    smallest: Vec<u8>,
    largest: Vec<u8>,
    until: u64,
}

/// The record of float-ups in level 0 and of those undone.
pub(crate) struct UndoTracker {
    window: u64,
    floated: HashMap<u64, Floated>,
    next_id: u64,
    /// Float-ups counted as undone that still have tables in level 0 (counted once each).
    counted: HashSet<u64>,
    cooling: Vec<Cooling>,
    undone: u64,
}

impl UndoTracker {
    /// A tracker whose "soon" and cool-down last `window` operations.
    pub(crate) fn new(window: u64) -> UndoTracker {
        UndoTracker {
            window,
            floated: HashMap::new(),
            next_id: 0,
            counted: HashSet::new(),
            cooling: Vec::new(),
            undone: 0,
        }
    }

    /// Records the level-0 tables one float-up wrote, at operation `now`.
    pub(crate) fn floated<'a>(&mut self, tables: impl Iterator<Item = &'a NewFile>, now: u64) {
        let id = self.next_id;
        self.next_id += 1;
        for t in tables {
            self.floated.insert(t.number, Floated { id, at: now });
        }
    }

    /// Table `t` left level 0 as the input of a job (`by_float_up`: a float-up, which writes
    /// its keys back into level 0) at operation `now`.
    pub(crate) fn left_level0(&mut self, t: &FileMeta, by_float_up: bool, now: u64) {
        self.left(
            t.number,
            t.smallest_user(),
            t.largest_user(),
            by_float_up,
            now,
        );
    }

    fn left(&mut self, number: u64, smallest: &[u8], largest: &[u8], by_float_up: bool, now: u64) {
        let Some(f) = self.floated.remove(&number) else {
            return;
        };
        if !by_float_up && now.saturating_sub(f.at) <= self.window && self.counted.insert(f.id) {
            self.undone += 1;
            self.cooling.push(Cooling {
                smallest: smallest.to_vec(),
                largest: largest.to_vec(),
                until: now + self.window,
            });
        }
        if !self.floated.values().any(|g| g.id == f.id) {
            self.counted.remove(&f.id);
        }
    }

    /// True if `[smallest, largest]` overlaps a key range whose float-up was undone within
    /// the last `window` operations before `now`.
    pub(crate) fn cooling(&mut self, smallest: &[u8], largest: &[u8], now: u64) -> bool {
        self.cooling.retain(|c| c.until > now);
        self.cooling
            .iter()
            .any(|c| c.smallest.as_slice() <= largest && smallest <= c.largest.as_slice())
    }

    /// True if level-0 table `number` was written by a float-up.
    pub(crate) fn is_floated(&self, number: u64) -> bool {
        self.floated.contains_key(&number)
    }

    /// Float-ups undone since the last call.
    pub(crate) fn take_undone(&mut self) -> u64 {
        std::mem::take(&mut self.undone)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{make_internal_key, ValueKind};

    fn table(number: u64, lo: &str, hi: &str) -> NewFile {
        NewFile {
            number,
            size: 100,
            smallest: make_internal_key(lo.as_bytes(), 1, ValueKind::Value),
            largest: make_internal_key(hi.as_bytes(), 1, ValueKind::Value),
            smallest_seq: 1,
            largest_seq: 1,
            num_entries: 1,
            num_deletions: 0,
            oldest_blob_file: 0,
            shadowed_below: 0,
        }
    }

    /// `t` leaves level 0, as `left_level0` of its live form.
    fn leave(u: &mut UndoTracker, t: &NewFile, by_float_up: bool, now: u64) {
        let user = |k: &[u8]| k[..k.len() - 8].to_vec();
        u.left(
            t.number,
            &user(&t.smallest),
            &user(&t.largest),
            by_float_up,
            now,
        );
    }

    #[test]
    fn a_float_up_compacted_down_soon_is_undone_once_and_its_range_cools_down() {
        let mut u = UndoTracker::new(100);
        let (a, b) = (table(7, "k10", "k19"), table(8, "k20", "k29"));
        u.floated([&a, &b].into_iter(), 1000);
        assert!(u.is_floated(7) && u.is_floated(8));
        // A float-up merging the table keeps the keys in level 0: not undone.
        leave(&mut u, &a, true, 1010);
        assert_eq!(u.take_undone(), 0);
        leave(&mut u, &b, false, 1050);
        assert_eq!(u.take_undone(), 1);
        assert!(u.cooling(b"k25", b"k40", 1100));
        assert!(!u.cooling(b"k30", b"k40", 1100));
        // The cool-down ends `window` operations after the undo.
        assert!(!u.cooling(b"k25", b"k40", 1150));
        // Taken down later than the window: the float-up had its use.
        let c = table(9, "k50", "k59");
        u.floated(std::iter::once(&c), 2000);
        leave(&mut u, &c, false, 2101);
        assert_eq!(u.take_undone(), 0);
        assert!(!u.cooling(b"k50", b"k59", 2102));
    }

    #[test]
    fn a_float_up_of_several_tables_counts_once() {
        let mut u = UndoTracker::new(100);
        let (a, b) = (table(7, "k10", "k19"), table(8, "k20", "k29"));
        u.floated([&a, &b].into_iter(), 0);
        leave(&mut u, &a, false, 5);
        leave(&mut u, &b, false, 6);
        assert_eq!(u.take_undone(), 1);
        assert!(!u.is_floated(7) && !u.is_floated(8));
    }
}
