//! Access frequency f of each table: how many of the last F events named it, an event being a
//! get that found its key in the table or the table's creation. FSLSM's float-up threshold and
//! the frequency choice of compaction victims (`Options::compaction_victims`) both read it.

use std::collections::{HashMap, VecDeque};

/// A sliding window of events, each naming a table.
pub(crate) struct Frequency {
    window: VecDeque<u64>,
    counts: HashMap<u64, u32>,
    cap: usize,
}

impl Frequency {
    /// A window of `cap` events (at least 1).
    pub(crate) fn new(cap: usize) -> Frequency {
        Frequency {
            window: VecDeque::new(),
            counts: HashMap::new(),
            cap: cap.max(1),
        }
    }

    /// Records one event for table `file`.
    pub(crate) fn event(&mut self, file: u64) {
        self.window.push_back(file);
        *self.counts.entry(file).or_insert(0) += 1;
        if self.window.len() > self.cap {
            if let Some(old) = self.window.pop_front() {
                if let Some(c) = self.counts.get_mut(&old) {
                    *c -= 1;
                    if *c == 0 {
                        self.counts.remove(&old);
                    }
                }
            }
        }
    }

    /// Events naming `file` in the window.
    pub(crate) fn of(&self, file: u64) -> u64 {
        self.counts.get(&file).copied().unwrap_or(0) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_only_the_last_window_of_events() {
        let mut f = Frequency::new(4);
        for file in [1, 1, 2, 1] {
            f.event(file);
        }
        assert_eq!((f.of(1), f.of(2), f.of(3)), (3, 1, 0));
        f.event(3); // the first 1 leaves the window
        f.event(3); // the second 1 leaves
        assert_eq!((f.of(1), f.of(2), f.of(3)), (1, 1, 2));
        assert_eq!(f.counts.values().map(|&c| c as usize).sum::<usize>(), 4);
    }
}
