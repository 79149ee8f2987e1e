//! The jobs running now, as the engine tells a layout policy deciding whether another may start
//! (Pebble's picker is handed the compactions in progress the same way).
//!
//! The engine registers every job it runs (size, blob GC, manual and a policy's own) under the
//! state lock before releasing it, and removes it once its result is installed, so a policy's
//! [`LayoutPolicy::may_start`](super::LayoutPolicy::may_start) sees every job whose result is
//! not yet in the tree.

use super::{CompactionKind, CompactionSpec};

/// One job that runs now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunningJob {
    id: u64,
    /// Why it runs.
    pub kind: CompactionKind,
    /// True if any input or the output is in level 0.
    pub touches_level0: bool,
}

/// Every job that runs now; see the module comment.
#[derive(Debug, Default)]
pub struct RunningJobs {
    jobs: Vec<RunningJob>,
    next_id: u64,
}

/// Names a job registered by [`RunningJobs::start`], to remove it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobId(u64);

impl RunningJobs {
    /// Registers `spec`, which starts now.
    pub fn start(&mut self, spec: &CompactionSpec) -> JobId {
        self.next_id += 1;
        self.jobs.push(RunningJob {
            id: self.next_id,
            kind: spec.kind,
            touches_level0: spec.touches_level0(),
        });
        JobId(self.next_id)
    }

    /// Removes the job `id`: its result is installed, or it failed.
    pub fn finish(&mut self, id: JobId) {
        self.jobs.retain(|j| j.id != id.0);
    }

    /// The jobs running now.
    pub fn iter(&self) -> impl Iterator<Item = &RunningJob> {
        self.jobs.iter()
    }

    /// True if a job of `kind` runs now.
    pub fn any_of(&self, kind: CompactionKind) -> bool {
        self.jobs.iter().any(|j| j.kind == kind)
    }

    /// True if no job runs.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_is_running_from_start_to_finish() {
        let spec =
            |kind, level| CompactionSpec::two_levels(kind, level, level + 1, vec![], vec![], "t");
        let mut r = RunningJobs::default();
        let a = r.start(&spec(CompactionKind::Size, 1));
        let b = r.start(&spec(CompactionKind::Policy("x"), 0));
        assert!(r.any_of(CompactionKind::Policy("x")));
        assert_eq!(
            r.iter().filter(|j| j.touches_level0).count(),
            0,
            "no input, output 1"
        );
        r.finish(b);
        assert!(!r.any_of(CompactionKind::Policy("x")));
        assert!(r.any_of(CompactionKind::Size));
        r.finish(a);
        assert!(r.is_empty());
    }
}
