//! The flags of `lsmlab stress`.

use super::killfs::KillPoint;
use lsmlab::Layout;
use lsmlab_drivers::error::{CliError, CliResult};
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
  --kill-odds=N         one chance in N at each passage of the kill point (default 200)
  --layout=L            run this layout instead of the seed's: leveled, fslsm, universal
                        (its parameters are still the seed's)";

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
    /// The layout forced over the seed's, if any.
    pub layout: Option<Layout>,
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
    "layout",
];

/// The flags as clap reads them (`--name=value` or `--name value`); [`StressArgs::parse`] turns
/// them into [`StressArgs`] with the defaults filled in.
#[derive(Debug, clap::Parser)]
#[command(
    name = "lsmlab stress",
    disable_help_flag = true,
    disable_version_flag = true,
    // A flag given twice takes its last value, as db_bench's flags do.
    args_override_self = true
)]
struct Flags {
    #[arg(long, value_parser = non_empty_path)]
    db: Option<PathBuf>,
    #[arg(long, value_parser = non_empty_path)]
    expected: Option<PathBuf>,
    #[arg(long)]
    seed: Option<u64>,
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=64))]
    threads: u32,
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    keys: u32,
    #[arg(long, default_value_t = 1_000, value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    groups: u32,
    #[arg(long, default_value_t = 20_000)]
    ops: u64,
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    reopens: u32,
    #[arg(long)]
    crash: bool,
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    cycles: u32,
    #[arg(long = "kill-after-ms", value_parser = kill_window, default_value = "100..2000")]
    kill_after_ms: (u64, u64),
    #[arg(long = "kill-point", value_parser = kill_point)]
    kill_point: Option<KillPoint>,
    #[arg(long = "kill-odds", default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..))]
    kill_odds: u64,
    /// This process is a crash cycle's child (set by the parent).
    #[arg(long, hide = true)]
    child: bool,
    #[arg(long, value_parser = layout)]
    layout: Option<Layout>,
}

fn layout(v: &str) -> Result<Layout, String> {
    match v {
        "leveled" => Ok(Layout::Leveled),
        "fslsm" => Ok(Layout::Fslsm),
        "universal" => Ok(Layout::Universal),
        _ => Err("allowed: leveled, fslsm, universal".into()),
    }
}

/// The name `--layout` takes for `l`.
pub fn layout_name(l: Layout) -> &'static str {
    match l {
        Layout::Leveled => "leveled",
        Layout::Fslsm => "fslsm",
        Layout::Universal => "universal",
    }
}

fn non_empty_path(v: &str) -> Result<PathBuf, String> {
    if v.is_empty() {
        Err("allowed: a path (not empty)".into())
    } else {
        Ok(PathBuf::from(v))
    }
}

fn kill_window(v: &str) -> Result<(u64, u64), String> {
    let bad = || "allowed: A..B with 1 <= A <= B <= 3600000, in milliseconds".to_string();
    let (lo, hi) = v.split_once("..").unwrap_or((v, v));
    let lo: u64 = lo.parse().map_err(|_| bad())?;
    let hi: u64 = hi.parse().map_err(|_| bad())?;
    if lo == 0 || hi < lo || hi > 3_600_000 {
        return Err(bad());
    }
    Ok((lo, hi))
}

fn kill_point(v: &str) -> Result<KillPoint, String> {
    KillPoint::parse(v).ok_or_else(|| format!("allowed: {}", KillPoint::NAMES))
}

impl StressArgs {
    /// Parses `args` (after `stress`).
    pub fn parse(args: &[String]) -> CliResult<StressArgs> {
        let f: Flags = crate::cli::parse_tool("stress", args)?;
        let db = f
            .db
            .ok_or_else(|| CliError::new("stress: --db=DIR is required (lsmlab stress --help)"))?;
        let expected = f.expected.unwrap_or_else(|| {
            let mut p = db.clone().into_os_string();
            p.push(".expected");
            PathBuf::from(p)
        });
        if f.kill_point.is_some() && !f.crash && !f.child {
            return Err(CliError::new("--kill-point: allowed only with --crash"));
        }
        Ok(StressArgs {
            db,
            expected,
            seed: f.seed.unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_micros() as u64)
            }),
            threads: f.threads,
            keys: f.keys,
            groups: f.groups,
            ops: f.ops,
            reopens: f.reopens,
            crash: f.crash,
            cycles: f.cycles,
            kill_after_ms: f.kill_after_ms,
            kill_point: f.kill_point,
            kill_odds: f.kill_odds,
            child: f.child,
            layout: f.layout,
        })
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
        assert_eq!(a.layout, None);
        let u = parse(&["--db=/tmp/x", "--layout=universal"]).unwrap();
        assert_eq!(u.layout.map(layout_name), Some("universal"));
        for (bad, names) in [
            (
                vec!["--db=/x", "--threads=0"],
                "'0' for '--threads <THREADS>': 0 is not in 1..=64",
            ),
            (
                vec!["--db=/x", "--threads=abc"],
                "'abc' for '--threads <THREADS>'",
            ),
            (vec!["--db="], "for '--db <DB>': allowed: a path"),
            (vec!["--threads=2"], "--db=DIR is required"),
            (
                vec!["--db=/x", "--thread=2"],
                "similar argument exists: '--threads'",
            ),
            (
                vec!["--db=/x", "--crash", "--kill-point=nowhere"],
                "'nowhere' for '--kill-point <KILL_POINT>': allowed: wal",
            ),
            (vec!["--db=/x", "--kill-point=wal"], "only with --crash"),
            (vec!["--db=/x", "--kill-after-ms=9..3"], "A <= B"),
            (vec!["--db=/x", "--crash=maybe"], "--crash"),
            (
                vec!["--db=/x", "--layout=tiered"],
                "allowed: leveled, fslsm, universal",
            ),
        ] {
            let e = parse(&bad).unwrap_err().0;
            assert!(e.contains(names), "{bad:?}: {e}");
            assert!(!e.contains('\n'), "one line: {e}");
        }
    }

    #[test]
    fn the_flag_list_is_claps() {
        use clap::CommandFactory;
        let mut names: Vec<String> = Flags::command()
            .get_arguments()
            .filter_map(|a| a.get_long().map(str::to_string))
            .collect();
        names.sort();
        let mut listed: Vec<String> = FLAGS.iter().map(|s| s.to_string()).collect();
        listed.sort();
        assert_eq!(names, listed);
    }
}
