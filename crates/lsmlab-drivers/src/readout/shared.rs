//! What the lsmlab block of every engine has alike: the process's CPU and wall time between
//! two snapshots, and what a caller asks of any engine's figures ([`EngineFigures`]).

use super::process::CpuTimes;
use serde::Serialize;
use std::time::Instant;

/// The process's CPU and wall time between two snapshots. Flattened into each block's JSON,
/// so the names (`cpu_user_s`, `cpu_sys_s`, `wall_s`) are the same on every engine.
#[derive(Debug, Clone, Copy, Serialize, Default, PartialEq)]
pub struct ProcessFigures {
    /// User CPU seconds of the process during the benchmark.
    pub cpu_user_s: f64,
    /// System CPU seconds of the process during the benchmark.
    pub cpu_sys_s: f64,
    /// Wall seconds between the snapshots.
    pub wall_s: f64,
}

impl ProcessFigures {
    /// The figures between two snapshots' CPU times and instants.
    pub fn between(before: (CpuTimes, Instant), after: (CpuTimes, Instant)) -> ProcessFigures {
        ProcessFigures {
            cpu_user_s: (after.0.user_s - before.0.user_s).max(0.0),
            cpu_sys_s: (after.0.sys_s - before.0.sys_s).max(0.0),
            wall_s: after.1.duration_since(before.1).as_secs_f64(),
        }
    }

    /// The block's `lsmlab cpu` line, without its newline.
    pub fn cpu_line(&self) -> String {
        let cpu = self.cpu_user_s + self.cpu_sys_s;
        format!(
            "lsmlab cpu                  : user {:.3} s, sys {:.3} s ({:.1}% of one core over {:.3} s)",
            self.cpu_user_s,
            self.cpu_sys_s,
            if self.wall_s > 0.0 { cpu / self.wall_s * 100.0 } else { 0.0 },
            self.wall_s
        )
    }
}

/// What every engine's figures answer, whichever engine computed them.
pub trait EngineFigures {
    /// Write amplification (table bytes written / user bytes written), if the engine gives it.
    fn write_amp(&self) -> Option<f64>;
    /// Key + value bytes returned to the benchmark.
    fn bytes_returned(&self) -> u64;
    /// CPU and wall time of the process over the benchmark.
    fn process(&self) -> &ProcessFigures;
    /// The block printed after a benchmark: one `lsmlab <figure> : <value>` line per figure,
    /// `n/a` where the engine cannot say.
    fn to_text(&self, title: &str) -> String;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn cpu_is_the_growth_between_snapshots_and_its_share_of_the_wall() {
        let t0 = Instant::now();
        let cpu = |user_s, sys_s| CpuTimes { user_s, sys_s };
        let p = ProcessFigures::between(
            (cpu(1.0, 0.5), t0),
            (cpu(2.0, 1.0), t0 + Duration::from_secs(3)),
        );
        assert_eq!(p.cpu_user_s, 1.0);
        assert_eq!(p.cpu_sys_s, 0.5);
        assert_eq!(p.wall_s, 3.0);
        assert_eq!(
            p.cpu_line(),
            "lsmlab cpu                  : user 1.000 s, sys 0.500 s (50.0% of one core over 3.000 s)"
        );
        // Snapshots given in the wrong order read as no CPU, never as a negative figure.
        let q = ProcessFigures::between((cpu(2.0, 1.0), t0), (cpu(1.0, 0.5), t0));
        assert_eq!((q.cpu_user_s, q.cpu_sys_s), (0.0, 0.0));
        assert!(q.cpu_line().ends_with("(0.0% of one core over 0.000 s)"));
    }
}
