//! The background work a user call runs itself under `deterministic_background`, bounded per
//! call, and the longest such stretch since open.
//!
//! A call may run the flushes of the memtables that were full when it began, the compactions
//! that writes made due, and at most [`InlineBudget::FLOAT_UPS`] float-ups. Nothing another
//! thread does while the call works can extend it: another thread's reads ask for float-ups
//! (withheld once the budget is spent), and another thread's full memtables wait for that
//! thread's own next call. Compactions alone end: each moves data down a level or merges
//! sorted runs, so their count is bounded by the data that was in the tree (docs/fslsm.md,
//! "Inline work ends").

use crate::compaction::{CompactionSpec, Requested};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// What one call may still run.
#[derive(Debug)]
pub(crate) struct InlineBudget {
    /// Flushes left: the memtables that were full when the call began.
    flushes: usize,
    /// Float-ups (and any other job a policy asks for on its own) left.
    requested: u64,
    /// Jobs run so far, flushes included.
    jobs: u64,
    /// Of those, jobs a policy asked for on its own.
    requested_run: u64,
    started: Instant,
}

impl InlineBudget {
    /// Float-ups one call may run: as many as the policy queues at once (FSLSM's
    /// `MAX_PENDING`), so a call can serve every request pending when it began.
    pub(crate) const FLOAT_UPS: u64 = 16;

    /// The budget of a call that finds `full_memtables` waiting for a flush.
    pub(crate) fn new(full_memtables: usize) -> InlineBudget {
        InlineBudget {
            flushes: full_memtables,
            requested: Self::FLOAT_UPS,
            jobs: 0,
            requested_run: 0,
            started: Instant::now(),
        }
    }

    /// The budget of a wait for an idle database: every flush, and the float-ups one call may
    /// run (those pending when it began), however many rounds the wait takes.
    pub(crate) fn for_wait() -> InlineBudget {
        InlineBudget {
            flushes: usize::MAX,
            ..InlineBudget::new(0)
        }
    }

    /// May the call flush one more memtable? Counts it if so.
    pub(crate) fn take_flush(&mut self) -> bool {
        if self.flushes == 0 {
            return false;
        }
        self.flushes -= 1;
        self.jobs += 1;
        true
    }

    /// Whether the next pick may offer the jobs a policy asks for on its own.
    pub(crate) fn requested(&self) -> Requested {
        if self.requested > 0 {
            Requested::Allowed
        } else {
            Requested::Withheld
        }
    }

    /// Counts the job `spec` about to run.
    pub(crate) fn count(&mut self, spec: &CompactionSpec) {
        self.jobs += 1;
        if spec.kind.is_policy() {
            self.requested = self.requested.saturating_sub(1);
            self.requested_run += 1;
        }
    }
}

/// The longest stretch of background work one user call ran inline since open.
#[derive(Debug, Default)]
pub(crate) struct LongestInline {
    jobs: AtomicU64,
    float_ups: AtomicU64,
    micros: AtomicU64,
}

impl LongestInline {
    /// Records what the call with `budget` ran, if it ran anything.
    pub(crate) fn record(&self, budget: &InlineBudget) {
        if budget.jobs == 0 {
            return;
        }
        let micros = budget.started.elapsed().as_micros() as u64;
        self.jobs.fetch_max(budget.jobs, Ordering::Relaxed);
        self.float_ups
            .fetch_max(budget.requested_run, Ordering::Relaxed);
        self.micros.fetch_max(micros, Ordering::Relaxed);
    }

    /// The most jobs (flushes, compactions, float-ups) one call ran.
    pub(crate) fn jobs(&self) -> u64 {
        self.jobs.load(Ordering::Relaxed)
    }

    /// The most float-ups (jobs a policy asked for on its own) one call ran.
    pub(crate) fn float_ups(&self) -> u64 {
        self.float_ups.load(Ordering::Relaxed)
    }

    /// The longest wall time one call spent in background work, in microseconds.
    pub(crate) fn micros(&self) -> u64 {
        self.micros.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::CompactionKind;

    fn spec(kind: CompactionKind) -> CompactionSpec {
        CompactionSpec {
            kind,
            inputs: Vec::new(),
            output_level: 0,
            trivial_move: false,
            reason: "test",
        }
    }

    #[test]
    fn a_call_flushes_only_the_memtables_full_when_it_began() {
        let mut b = InlineBudget::new(2);
        assert!(b.take_flush());
        assert!(b.take_flush());
        assert!(!b.take_flush());
    }

    #[test]
    fn float_ups_are_withheld_once_the_budget_is_spent_and_compactions_are_not_counted_there() {
        let mut b = InlineBudget::new(0);
        for _ in 0..100 {
            b.count(&spec(CompactionKind::Size));
        }
        assert_eq!(b.requested(), Requested::Allowed);
        for _ in 0..InlineBudget::FLOAT_UPS {
            assert_eq!(b.requested(), Requested::Allowed);
            b.count(&spec(CompactionKind::Policy("float-up")));
        }
        assert_eq!(b.requested(), Requested::Withheld);
        assert_eq!(b.jobs, 100 + InlineBudget::FLOAT_UPS);
        let l = LongestInline::default();
        l.record(&b);
        assert_eq!(l.float_ups(), InlineBudget::FLOAT_UPS);
    }

    #[test]
    fn a_wait_flushes_everything_and_runs_one_calls_float_ups() {
        let mut b = InlineBudget::for_wait();
        for _ in 0..1000 {
            assert!(b.take_flush());
        }
        for _ in 0..InlineBudget::FLOAT_UPS {
            assert_eq!(b.requested(), Requested::Allowed);
            b.count(&spec(CompactionKind::Policy("float-up")));
        }
        assert_eq!(b.requested(), Requested::Withheld);
    }

    #[test]
    fn the_longest_stretch_keeps_the_maximum() {
        let l = LongestInline::default();
        let mut a = InlineBudget::new(5);
        for _ in 0..5 {
            a.take_flush();
        }
        l.record(&a);
        let mut b = InlineBudget::new(2);
        b.take_flush();
        l.record(&b);
        l.record(&InlineBudget::new(0));
        assert_eq!(l.jobs(), 5);
    }
}
