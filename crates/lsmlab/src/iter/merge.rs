//! Merges several sorted internal iterators into one, in both directions.
//!
//! The children are few (memtables, level-0 tables, one per deeper level), so the smallest or
//! largest is found by a linear scan rather than a heap.

use super::InternalIterator;
use crate::error::Result;
use crate::key::compare_internal;
use std::cmp::Ordering;

/// The merge of several iterators.
pub struct MergingIterator {
    children: Vec<Box<dyn InternalIterator>>,
    current: Option<usize>,
    forward: bool,
}

impl MergingIterator {
    /// Merges `children`.
    pub fn new(children: Vec<Box<dyn InternalIterator>>) -> MergingIterator {
        MergingIterator {
            children,
            current: None,
            forward: true,
        }
    }

    fn pick(&mut self, want: Ordering) {
        let mut best: Option<usize> = None;
        for (i, c) in self.children.iter().enumerate() {
            if !c.valid() {
                // A failed child is invalid; merging on without it could skip a newer version
                // or a deletion, so the merge stops.
                if c.status().is_err() {
                    self.current = None;
                    return;
                }
                continue;
            }
            best = match best {
                Some(b) if compare_internal(c.key(), self.children[b].key()) != want => Some(b),
                _ => Some(i),
            };
        }
        self.current = best;
    }
}

impl InternalIterator for MergingIterator {
    fn valid(&self) -> bool {
        self.current.is_some()
    }
    fn seek_to_first(&mut self) {
        self.children.iter_mut().for_each(|c| c.seek_to_first());
        self.forward = true;
        self.pick(Ordering::Less);
    }
    fn seek_to_last(&mut self) {
        self.children.iter_mut().for_each(|c| c.seek_to_last());
        self.forward = false;
        self.pick(Ordering::Greater);
    }
    fn seek(&mut self, target: &[u8]) {
        self.children.iter_mut().for_each(|c| c.seek(target));
        self.forward = true;
        self.pick(Ordering::Less);
    }
    fn next(&mut self) {
        let Some(cur) = self.current else { return };
        if !self.forward {
            // Every other child must move to the first entry after the current key.
            let key = self.children[cur].key().to_vec();
            for (i, c) in self.children.iter_mut().enumerate() {
                if i == cur {
                    continue;
                }
                c.seek(&key);
                if c.valid() && compare_internal(c.key(), &key) == Ordering::Equal {
                    c.next();
                }
            }
            self.forward = true;
        }
        self.children[cur].next();
        self.pick(Ordering::Less);
    }
    fn prev(&mut self) {
        let Some(cur) = self.current else { return };
        if self.forward {
            // Every other child must move to the last entry before the current key.
            let key = self.children[cur].key().to_vec();
            for (i, c) in self.children.iter_mut().enumerate() {
                if i == cur {
                    continue;
                }
                c.seek(&key);
                if c.valid() {
                    c.prev();
                } else {
                    c.seek_to_last();
                }
            }
            self.forward = false;
        }
        self.children[cur].prev();
        self.pick(Ordering::Greater);
    }
    fn key(&self) -> &[u8] {
        self.current.map(|c| self.children[c].key()).unwrap_or(&[])
    }
    fn value(&self) -> &[u8] {
        self.current
            .map(|c| self.children[c].value())
            .unwrap_or(&[])
    }
    fn prepare_value(&mut self) -> bool {
        let Some(c) = self.current else { return false };
        if self.children[c].prepare_value() {
            return true;
        }
        // The child failed reading its block: the merge stops, as in `pick`.
        self.current = None;
        false
    }
    fn status(&self) -> Result<()> {
        self.children.iter().try_for_each(|c| c.status())
    }
}
