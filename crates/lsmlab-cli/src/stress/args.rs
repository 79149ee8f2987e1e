//! The flags of `lsmlab stress`.

use super::killfs::KillPoint;
use crate::error::{CliError, CliResult};
use crate::suggest::closest;
use std::path::PathBuf;

/// Usage of `lsmlab stress`.
pub const USAGE: &str = "usage: lsmlab stress --db=DIR [flags]
Random operations from --threads threads checked against an expected state kept outside the
database (DIR.expected), with options drawn from --seed.
  --db=DIR              database directory (created if absent)
  --expected=FILE       expected-state file (default DIR.expected)
  --seed=N              seed of the options and operations (default: from the clock; printed)
  --threads=N           worker threads (default 4)
  --keys=N              keys written alone (default 10000)
  --groups=N            groups of three keys written in one batch (default 1000)
  --ops=N               operations per thread per open (default 20000; without --crash)
  --reopens=N           clean close and reopen, verified, this many times (default 2)
  --crash               run the workload in a child process, kill it with SIGKILL, reopen,
                        verify every key, and go on for --cycles cycles
  --cycles=N            crash cycles (default 10)
  --kill-after-ms=A..B  kill the child at a random moment in A..B ms (default 100..2000)
  --kill-point=P        also let the child kill itself mid-write at P: wal, manifest, current,
                        flush, compaction, compaction-blob
  --kill-odds=N         one chance in N at each passage of the kill point (default 200)";

/// Parsed flags.
#[derive(Debug, Clone)]
pub struct StressArgs {
    /// Database directory.
    pub db: PathBuf,
    /// Expected-state file.
    pub expected: PathBuf,
    /// Seed of everything.
    pub seed: u64,
    /// Worker threads.
    pub threads: u32,
    /// Keys written alone.
    pub keys: u32,
    /// Batch groups.
    pub groups: u32,
    /// Operations per thread per open (in-process mode).
    pub ops: u64,
    /// Clean reopens (in-process mode).
    pub reopens: u32,
    /// Crash mode.
    pub crash: bool,
    /// Crash cycles.
    pub cycles: u32,
    /// Kill window, milliseconds.
    pub kill_after_ms: (u64, u64),
    /// Self-kill point.
    pub kill_point: Option<KillPoint>,
    /// Odds of the self-kill point.
    pub kill_odds: u64,
    /// This process is a crash cycle's child.
    pub child: bool,
}

/// Every flag's name.
pub const FLAGS: &[&str] = &[
    "db",
    "expected",
    "seed",
    "threads",
    "keys",
    "groups",
    "ops",
    "reopens",
    "crash",
    "cycles",
    "kill-after-ms",
    "kill-point",
    "kill-odds",
    "child",
];

fn number<T: std::str::FromStr>(flag: &str, v: &str, min: u64, max: u64) -> CliResult<T> {
    match v.parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => v
            .parse()
            .map_err(|_| CliError::new(format!("--{flag}={v}: not a number"))),
        _ => Err(CliError::new(format!(
            "--{flag}={v}: allowed: a whole number from {min} to {max}"
        ))),
    }
}

impl StressArgs {
    /// Parses `args` (after `stress`).
    pub fn parse(args: &[String]) -> CliResult<StressArgs> {
        let mut a = StressArgs {
            db: PathBuf::new(),
            expected: PathBuf::new(),
            seed: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_micros() as u64),
            threads: 4,
            keys: 10_000,
            groups: 1_000,
            ops: 20_000,
            reopens: 2,
            crash: false,
            cycles: 10,
            kill_after_ms: (100, 2000),
            kill_point: None,
            kill_odds: 200,
            child: false,
        };
        for arg in args {
            let Some(body) = arg.strip_prefix("--") else {
                return Err(CliError::new(format!(
                    "stress: unexpected argument {arg:?}; flags are --name=value (lsmlab stress --help)"
                )));
            };
            let (name, value) = body.split_once('=').unwrap_or((body, ""));
            let v = value;
            match name {
                "db" if !v.is_empty() => a.db = PathBuf::from(v),
                "db" => return Err(CliError::new("--db: allowed: a directory path (not empty)")),
                "expected" if !v.is_empty() => a.expected = PathBuf::from(v),
                "expected" => {
                    return Err(CliError::new(
                        "--expected: allowed: a file path (not empty)",
                    ))
                }
                "seed" => a.seed = number(name, v, 0, u64::MAX)?,
                "threads" => a.threads = number(name, v, 1, 64)?,
                "keys" => a.keys = number(name, v, 1, 10_000_000)?,
                "groups" => a.groups = number(name, v, 0, 1_000_000)?,
                "ops" => a.ops = number(name, v, 0, u64::MAX)?,
                "reopens" => a.reopens = number(name, v, 0, 1_000_000)?,
                "cycles" => a.cycles = number(name, v, 1, 1_000_000)?,
                "kill-odds" => a.kill_odds = number(name, v, 1, u64::MAX)?,
                "crash" | "child" if v.is_empty() || v == "true" || v == "1" => {
                    if name == "crash" {
                        a.crash = true
                    } else {
                        a.child = true
                    }
                }
                "crash" | "child" => {
                    return Err(CliError::new(format!(
                        "--{name}={v}: a switch, takes no value"
                    )))
                }
                "kill-after-ms" => {
                    let (lo, hi) = v.split_once("..").unwrap_or((v, v));
                    let lo: u64 = number(name, lo, 1, 3_600_000)?;
                    let hi: u64 = number(name, hi, 1, 3_600_000)?;
                    if hi < lo {
                        return Err(CliError::new(format!(
                            "--kill-after-ms={v}: allowed: A..B with A <= B, in milliseconds"
                        )));
                    }
                    a.kill_after_ms = (lo, hi);
                }
                "kill-point" => {
                    a.kill_point = Some(KillPoint::parse(v).ok_or_else(|| {
                        CliError::new(format!("--kill-point={v}: allowed: {}", KillPoint::NAMES))
                    })?)
                }
                "help" | "h" => return Err(CliError::new(USAGE)),
                other => {
                    let hint = closest(other, FLAGS.iter().copied())
                        .map(|c| format!("; did you mean --{c}?"))
                        .unwrap_or_default();
                    return Err(CliError::new(format!(
                        "stress: unknown flag --{other}{hint}"
                    )));
                }
            }
        }
        if a.db.as_os_str().is_empty() {
            return Err(CliError::new(
                "stress: --db=DIR is required (lsmlab stress --help)",
            ));
        }
        if a.expected.as_os_str().is_empty() {
            let mut p = a.db.clone().into_os_string();
            p.push(".expected");
            a.expected = PathBuf::from(p);
        }
        if a.kill_point.is_some() && !a.crash && !a.child {
            return Err(CliError::new("--kill-point: allowed only with --crash"));
        }
        Ok(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &[&str]) -> CliResult<StressArgs> {
        StressArgs::parse(&s.iter().map(|x| x.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn flags_parse_and_bad_ones_name_themselves() {
        let a = parse(&[
            "--db=/tmp/x",
            "--crash",
            "--cycles=3",
            "--kill-after-ms=5..50",
        ])
        .unwrap();
        assert!(a.crash);
        assert_eq!((a.cycles, a.kill_after_ms), (3, (5, 50)));
        assert_eq!(a.expected, PathBuf::from("/tmp/x.expected"));
        for (bad, names) in [
            (vec!["--db=/x", "--threads=0"], "--threads=0: allowed"),
            (vec!["--db=/x", "--threads=abc"], "--threads=abc: allowed"),
            (vec!["--db="], "--db: allowed"),
            (vec!["--threads=2"], "--db=DIR is required"),
            (vec!["--db=/x", "--thread=2"], "did you mean --threads?"),
            (
                vec!["--db=/x", "--crash", "--kill-point=nowhere"],
                "--kill-point=nowhere: allowed: wal",
            ),
            (vec!["--db=/x", "--kill-point=wal"], "only with --crash"),
            (vec!["--db=/x", "--kill-after-ms=9..3"], "A <= B"),
        ] {
            let e = parse(&bad).unwrap_err().0;
            assert!(e.contains(names), "{bad:?}: {e}");
            assert!(!e.contains('\n'), "one line: {e}");
        }
    }
}
