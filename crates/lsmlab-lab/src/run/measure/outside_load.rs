//! How much of the machine something other than the study took during a run: the CPU time of
//! every process outside the study's own tree (`lsmlab run` and its children), and the time the
//! hypervisor gave this machine's CPUs to other guests (steal), as shares of the machine's CPU
//! time over the run.
//!
//! The load average cannot tell these apart: a study that runs two client threads on two cores
//! keeps it at 2 whatever else runs, and a machine shared with others' builds reads the same.
//! Here the machine's busy time comes from /proc/stat, the study's from /proc/PID/stat of the
//! study and its live descendants (a child already reaped counts in the study's `cutime` and
//! `cstime`), both in the kernel's clock ticks, so their difference is exactly what others took.

use serde::{Deserialize, Serialize};

/// A run is flagged when others took at least this share of the machine's CPU time (outside
/// CPU plus steal), in percent. An idle system's daemons and kernel threads take a percent or
/// two; a tenth of the machine (a fifth of a core on two cores) is a process that competes with
/// the runs for a core, enough to move a 2-thread benchmark by several percent.
pub const THRESHOLD_PCT: f64 = 10.0;

/// The machine's CPU time, in clock ticks, from the `cpu` line of /proc/stat.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct MachineTicks {
    /// user + nice + system + irq + softirq (guest time is inside user and nice).
    pub busy: u64,
    /// Every field but the guest ones: busy, idle, iowait and steal.
    pub total: u64,
    /// Time the hypervisor ran another guest while this one wanted the CPU.
    pub steal: u64,
}

/// The `cpu` (all CPUs) line of /proc/stat's text.
pub fn parse_proc_stat(text: &str) -> Option<MachineTicks> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let f: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|v| v.parse().ok())
        .collect::<Option<_>>()?;
    // user nice system idle iowait irq softirq steal [guest guest_nice]
    let at = |i: usize| f.get(i).copied().unwrap_or(0);
    if f.len() < 4 {
        return None;
    }
    let busy = at(0) + at(1) + at(2) + at(5) + at(6);
    Some(MachineTicks {
        busy,
        total: busy + at(3) + at(4) + at(7),
        steal: at(7),
    })
}

/// One process of /proc: its parent and its CPU ticks (own user + system, and those of its
/// children it has reaped).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProcTicks {
    /// Process id.
    pub pid: u32,
    /// Parent's id.
    pub ppid: u32,
    /// utime + stime + cutime + cstime.
    pub ticks: u64,
}

/// A /proc/PID/stat line.
pub fn parse_pid_stat(text: &str) -> Option<ProcTicks> {
    let pid = text.split_whitespace().next()?.parse().ok()?;
    // The command name is in parentheses and may hold spaces: split after the last ')'.
    let rest = text.get(text.rfind(')')? + 2..)?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let n = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok());
    Some(ProcTicks {
        pid,
        ppid: f.get(1)?.parse().ok()?,
        ticks: n(11)? + n(12)? + n(13)? + n(14)?,
    })
}

/// The ticks of `root` and every process below it in `procs`.
pub fn tree_ticks(root: u32, procs: &[ProcTicks]) -> u64 {
    let mut tree = vec![root];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(
            procs
                .iter()
                .filter(|p| p.ppid == parent && p.pid != parent)
                .map(|p| p.pid),
        );
        i += 1;
    }
    procs
        .iter()
        .filter(|p| tree.contains(&p.pid))
        .map(|p| p.ticks)
        .sum()
}

/// The machine's and the study's CPU ticks at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Probe {
    /// The machine's.
    pub machine: MachineTicks,
    /// The study's process tree's.
    pub own: u64,
}

/// Reads the machine's and this process tree's ticks now; `None` without /proc.
pub fn probe() -> Option<Probe> {
    let machine = parse_proc_stat(&std::fs::read_to_string("/proc/stat").ok()?)?;
    let procs: Vec<ProcTicks> = std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter_map(|t| parse_pid_stat(&t))
        .collect();
    Some(Probe {
        machine,
        own: tree_ticks(std::process::id(), &procs),
    })
}

/// What others took of the machine during one run, in percent of its CPU time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct OutsideLoad {
    /// CPU time of processes outside the study's tree.
    pub outside_cpu_pct: f64,
    /// Steal time.
    pub steal_pct: f64,
}

impl OutsideLoad {
    /// Outside CPU and steal together: the share the runs could not have.
    pub fn taken_pct(&self) -> f64 {
        self.outside_cpu_pct + self.steal_pct
    }
}

/// The outside load between two probes; `None` when no tick passed.
pub fn between(a: &Probe, b: &Probe) -> Option<OutsideLoad> {
    let total = b.machine.total.checked_sub(a.machine.total)?;
    if total == 0 {
        return None;
    }
    let busy = b.machine.busy.saturating_sub(a.machine.busy);
    let own = b.own.saturating_sub(a.own);
    let steal = b.machine.steal.saturating_sub(a.machine.steal);
    let pct = |t: u64| 100.0 * t as f64 / total as f64;
    Some(OutsideLoad {
        outside_cpu_pct: pct(busy.saturating_sub(own)),
        steal_pct: pct(steal),
    })
}

/// The report's line on the runs' outside load, with a warning when runs crossed
/// [`THRESHOLD_PCT`]; `None` when no run measured it.
pub fn summary(loads: &[OutsideLoad]) -> Option<String> {
    if loads.is_empty() {
        return None;
    }
    let max = |f: fn(&OutsideLoad) -> f64| loads.iter().map(f).fold(0.0, f64::max);
    let mean = loads.iter().map(OutsideLoad::taken_pct).sum::<f64>() / loads.len() as f64;
    let busy = loads
        .iter()
        .filter(|l| l.taken_pct() >= THRESHOLD_PCT)
        .count();
    // The mean and the largest are of the same sum (other processes and steal), each part's
    // largest beside it, so that no figure reads as above its own maximum.
    let mut s = format!(
        "others took {mean:.1} % of the machine's CPU on average over {} runs, at most {:.1} % in one run (other processes at most {:.1} %, steal at most {:.1} %)",
        loads.len(),
        max(OutsideLoad::taken_pct),
        max(|l| l.outside_cpu_pct),
        max(|l| l.steal_pct)
    );
    if busy > 0 {
        s.push_str(&format!(
            " — WARNING: {busy} of {} runs shared the machine (others took {THRESHOLD_PCT:.0} % or more); their timings are noisy",
            loads.len()
        ));
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(user: u64, system: u64, idle: u64, steal: u64) -> String {
        format!(
            "cpu  {user} 0 {system} {idle} 0 0 0 {steal} 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\nintr 1\n"
        )
    }

    fn pid_stat(pid: u32, ppid: u32, ticks: [u64; 4]) -> String {
        let [u, s, cu, cs] = ticks;
        format!("{pid} (a (b) c) S {ppid} 1 1 0 -1 4194304 100 0 0 0 {u} {s} {cu} {cs} 20 0 1 0 5 1000 50")
    }

    fn probe_of(machine: &str, procs: &[String], root: u32) -> Probe {
        let procs: Vec<ProcTicks> = procs.iter().filter_map(|t| parse_pid_stat(t)).collect();
        Probe {
            machine: parse_proc_stat(machine).unwrap(),
            own: tree_ticks(root, &procs),
        }
    }

    #[test]
    fn all_cpu_in_the_study_tree_is_no_outside_load() {
        // 2 cores over 10 s: 2000 ticks. The study (pid 10) and its run (11, and 11's child 12)
        // took every busy tick; an unrelated process (20) took none.
        let a = probe_of(
            &stat(500, 100, 5000, 0),
            &[
                pid_stat(10, 1, [50, 10, 0, 0]),
                pid_stat(11, 10, [0, 0, 0, 0]),
                pid_stat(20, 1, [7, 0, 0, 0]),
            ],
            10,
        );
        let b = probe_of(
            &stat(1700, 300, 5600, 0),
            &[
                pid_stat(10, 1, [60, 10, 0, 0]),
                pid_stat(11, 10, [900, 200, 0, 0]),
                pid_stat(12, 11, [260, 30, 0, 0]),
                pid_stat(20, 1, [7, 0, 0, 0]),
            ],
            10,
        );
        let l = between(&a, &b).unwrap();
        assert_eq!(l, OutsideLoad::default());
        let s = summary(&[l]).unwrap();
        assert!(!s.contains("WARNING"), "{s}");
    }

    #[test]
    fn a_reaped_child_counts_in_the_study_through_its_children_ticks() {
        // The run (11) was alive at the start with 100 ticks, reaped at the end: its 800 ticks
        // are then in the study's cutime/cstime, 700 of them new. A stranger took 400 ticks of 2000.
        let a = probe_of(
            &stat(0, 0, 0, 0),
            &[
                pid_stat(10, 1, [0, 0, 0, 0]),
                pid_stat(11, 10, [100, 0, 0, 0]),
            ],
            10,
        );
        let b = probe_of(
            &stat(900, 200, 800, 100),
            &[
                pid_stat(10, 1, [0, 0, 700, 100]),
                pid_stat(30, 1, [400, 0, 0, 0]),
            ],
            10,
        );
        let l = between(&a, &b).unwrap();
        // busy 1100 − own 700 = 400 of 2000 ticks; steal 100 of 2000.
        assert_eq!(l.outside_cpu_pct, 20.0);
        assert_eq!(l.steal_pct, 5.0);
        let s = summary(&[l, OutsideLoad::default()]).unwrap();
        assert!(s.contains("WARNING: 1 of 2 runs shared the machine"), "{s}");
        // The mean (12.5 %: 25 and 0) and the largest (25 %) are of the same sum, steal
        // included, so the mean never reads above its own maximum.
        assert!(
            s.contains("12.5 % of the machine's CPU on average over 2 runs, at most 25.0 % in one run (other processes at most 20.0 %, steal at most 5.0 %)"),
            "{s}"
        );
    }

    #[test]
    fn steal_alone_can_cross_the_threshold_and_no_tick_is_no_figure() {
        let s = summary(&[OutsideLoad {
            outside_cpu_pct: 1.0,
            steal_pct: 9.5,
        }])
        .unwrap();
        assert!(s.contains("WARNING"), "{s}");
        let p = probe_of(&stat(1, 1, 1, 0), &[], 10);
        assert_eq!(between(&p, &p), None);
        assert_eq!(summary(&[]), None);
    }

    #[test]
    fn malformed_proc_text_is_no_figure() {
        assert_eq!(parse_proc_stat("cpu0 1 2 3 4\n"), None);
        assert_eq!(parse_proc_stat("cpu  1 x 3 4\n"), None);
        assert_eq!(parse_proc_stat("cpu  1 2\n"), None);
        assert_eq!(parse_pid_stat("12 (x) S"), None);
        assert_eq!(parse_pid_stat(""), None);
    }

    #[test]
    fn this_machine_can_be_probed() {
        let a = probe().expect("/proc");
        assert!(a.machine.total >= a.machine.busy);
        // This test process's own CPU is in its tree.
        let mut x = 0u64;
        for i in 0..2_000_000u64 {
            x = x.wrapping_add(i * i);
        }
        assert!(x > 0);
        let b = probe().unwrap();
        assert!(b.own >= a.own && b.machine.total >= a.machine.total);
    }
}
