//! The read ratio η: reads / operations over a sliding window of the last N operations.
//!
//! Every get and every write passes here, so it takes no lock: a ring of flags, one per
//! operation, and a running count of the reads in it. A slot overwritten by two threads at once
//! still adjusts the count by exactly the change it made, so the count never drifts.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};

/// A sliding window of operations, each a read or a write.
pub(crate) struct ReadRatio {
    slots: Box<[AtomicBool]>,
    /// Operations recorded since creation (the next slot is `next % len`).
    next: AtomicU64,
    /// Reads among the slots filled.
    reads: AtomicI64,
}

impl ReadRatio {
    /// A window of `len` operations (at least 1).
    pub(crate) fn new(len: usize) -> ReadRatio {
        ReadRatio {
            slots: (0..len.max(1)).map(|_| AtomicBool::new(false)).collect(),
            next: AtomicU64::new(0),
            reads: AtomicI64::new(0),
        }
    }

    /// Records `n` operations of one kind (a batch of writes counts each record).
    pub(crate) fn record(&self, is_read: bool, n: u64) {
        // More than a window's worth only refills the window.
        let n = n.min(self.slots.len() as u64);
        let first = self.next.fetch_add(n, Ordering::Relaxed);
        for i in first..first + n {
            let slot = &self.slots[(i % self.slots.len() as u64) as usize];
            let old = slot.swap(is_read, Ordering::Relaxed);
            if old != is_read {
                self.reads
                    .fetch_add(if is_read { 1 } else { -1 }, Ordering::Relaxed);
            }
        }
    }

    /// The operations the window holds.
    pub(crate) fn window(&self) -> usize {
        self.slots.len()
    }

    /// Operations recorded since creation (a batch of more than a window counts a window):
    /// the clock of the float-up cool-down.
    pub(crate) fn operations(&self) -> u64 {
        self.next.load(Ordering::Relaxed)
    }

    /// η in [0, 1]: reads / operations in the window; 0 before any operation.
    pub(crate) fn ratio(&self) -> f64 {
        let filled = self
            .next
            .load(Ordering::Relaxed)
            .min(self.slots.len() as u64);
        if filled == 0 {
            return 0.0;
        }
        let reads = self.reads.load(Ordering::Relaxed).max(0) as f64;
        (reads / filled as f64).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_follows_the_last_window_of_operations() {
        let r = ReadRatio::new(10);
        assert_eq!((r.window(), ReadRatio::new(0).window()), (10, 1));
        assert_eq!(r.ratio(), 0.0);
        r.record(true, 3);
        r.record(false, 1);
        assert!((r.ratio() - 0.75).abs() < 1e-9);
        // Ten writes push every read out of the window.
        r.record(false, 10);
        assert_eq!(r.ratio(), 0.0);
        r.record(true, 5);
        assert!((r.ratio() - 0.5).abs() < 1e-9);
    }

    #[test]
    fn concurrent_records_keep_the_count_exact() {
        let r = std::sync::Arc::new(ReadRatio::new(64));
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let r = r.clone();
                std::thread::spawn(move || {
                    for i in 0..10_000u64 {
                        r.record((i + t) % 3 == 0, 1);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let actual = r.slots.iter().filter(|s| s.load(Ordering::Relaxed)).count() as i64;
        assert_eq!(r.reads.load(Ordering::Relaxed), actual);
    }
}
