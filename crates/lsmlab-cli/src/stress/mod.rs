//! `lsmlab stress`: many threads of random operations verified against an expected state kept
//! outside the database, with options drawn from a seed — in one process with clean reopens,
//! or (`--crash`) in child processes killed with SIGKILL again and again, every acknowledged
//! write verified after each reopen (as RocksDB's `db_stress` and `db_crashtest.py`).

pub mod args;
pub mod config;
pub mod expected;
pub mod killfs;
pub mod values;
pub mod worker;

use args::StressArgs;
use config::{Rng, RunConfig};
use expected::ExpectedState;
use killfs::KillFs;
use lsmlab::env::PosixFs;
use lsmlab::{Db, Options, Ticker};
use lsmlab_drivers::error::{CliError, CliResult};
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use worker::{Layout, Shared};

/// Runs `lsmlab stress` with `args` (after `stress`). A run that finds a violation fails.
pub fn main(args: &[String]) -> CliResult<()> {
    if crate::cli::asks_help(args) {
        println!("{}", args::USAGE);
        return Ok(());
    }
    let a = StressArgs::parse(args)?;
    if a.child {
        return child(&a);
    }
    let cfg = RunConfig::from_seed(a.seed).with_layout(a.layout);
    println!(
        "lsmlab stress: seed {} ({}); reproduce with the same --seed",
        a.seed, cfg
    );
    check_fresh_or_ours(&a)?;
    let outcome = if a.crash {
        crash_loop(&a, &cfg)?
    } else {
        in_process(&a, &cfg)?
    };
    println!("{outcome}");
    if outcome.violations > 0 || outcome.open_failures > 0 {
        return Err(CliError::new(format!(
            "stress: {} violations, {} failed opens (seed {}, options: {cfg})",
            outcome.violations, outcome.open_failures, a.seed
        )));
    }
    Ok(())
}

fn layout(a: &StressArgs) -> Layout {
    Layout {
        singles: a.keys,
        groups: a.groups,
    }
}

/// Refuses a database that is not this run's: its expected state would be unknown.
fn check_fresh_or_ours(a: &StressArgs) -> CliResult<()> {
    let db_there = a.db.join("CURRENT").exists();
    let expected_there = a.expected.exists();
    if db_there && !expected_there {
        return Err(CliError::new(format!(
            "stress: --db={} holds a database but {} is missing: give its --expected file, or a new --db",
            a.db.display(),
            a.expected.display()
        )));
    }
    if expected_there && !db_there {
        return Err(CliError::new(format!(
            "stress: {} exists but --db={} holds no database: remove the stale expected file",
            a.expected.display(),
            a.db.display()
        )));
    }
    Ok(())
}

fn options(cfg: &RunConfig, a: &StressArgs, killer: bool) -> Options {
    let posix: Arc<dyn lsmlab::env::FileSystem> = Arc::new(PosixFs);
    let fs: Arc<dyn lsmlab::env::FileSystem> = match (killer, a.kill_point) {
        (true, Some(p)) => Arc::new(KillFs::new(posix, p, a.kill_odds, a.seed ^ now_nanos())),
        _ => posix,
    };
    Options {
        fs,
        ..cfg.options.clone()
    }
}

/// How a crash cycle's child reports its float-ups on its standard error.
const FLOAT_UPS: &str = "FLOAT-UPS ";

fn now_nanos() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// What a run found.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Crash cycles (or clean reopens) done.
    pub cycles: u64,
    /// Of them, how many ended with the child killed (by the timer or at its kill point).
    pub kills: u64,
    /// Operations done by every thread of every process.
    pub ops: u64,
    /// Keys checked after reopens, and how many held a value.
    pub keys_verified: u64,
    /// Of those keys, the ones that held an acknowledged value.
    pub live_verified: u64,
    /// Violations: lost, invented or wrong values, torn batches, bad reads.
    pub violations: u64,
    /// Opens that failed.
    pub open_failures: u64,
    /// FSLSM float-ups run (0 under other layouts). In crash mode each child reports its
    /// count every 100 ms, so the float-ups of its last moment before the kill are not seen:
    /// a lower bound.
    pub float_ups: u64,
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "stress: {} cycles ({} killed), {} operations, {} key checks after reopen ({} acknowledged values verified), {} float-ups, {} violations, {} failed opens",
            self.cycles, self.kills, self.ops, self.keys_verified, self.live_verified, self.float_ups, self.violations, self.open_failures
        )
    }
}

/// Opens the database and verifies every key; prints and counts what is wrong.
fn reopen_and_verify(
    a: &StressArgs,
    cfg: &RunConfig,
    expected: &ExpectedState,
    out: &mut Outcome,
    what: &str,
) -> CliResult<Option<Db>> {
    let db = match Db::open(&a.db, options(cfg, a, false)) {
        Ok(db) => db,
        Err(e) => {
            out.open_failures += 1;
            println!("{what}: OPEN FAILED: {e} (seed {})", a.seed);
            return Ok(None);
        }
    };
    let mut v = Vec::new();
    let live = worker::verify_all(&db, expected, cfg, layout(a), &mut v).map_err(CliError::new)?;
    out.keys_verified += u64::from(expected.len());
    out.live_verified += live;
    for line in v.iter().take(20) {
        println!("{what}: VIOLATION {line} (seed {})", a.seed);
    }
    out.violations += v.len() as u64;
    Ok(Some(db))
}

/// Runs the threads on `db` until `max_ops` each or `stop`.
fn run_threads(
    a: &StressArgs,
    cfg: &RunConfig,
    db: &Db,
    expected: &ExpectedState,
    max_ops: u64,
    seed: u64,
) -> (u64, Vec<String>, Option<String>) {
    let sh = Shared {
        db,
        expected,
        cfg,
        layout: layout(a),
        threads: a.threads,
        stop: AtomicBool::new(false),
        ops: AtomicU64::new(0),
        acked: AtomicU64::new(0),
        violations: AtomicU64::new(0),
        first: Default::default(),
    };
    let errors: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..a.threads)
            .map(|t| {
                let sh = &sh;
                std::thread::Builder::new()
                    .name(format!("stress-{t}"))
                    .spawn_scoped(s, move || worker::run(sh, t, seed, max_ops))
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| match h {
                Ok(h) => h
                    .join()
                    .unwrap_or_else(|_| Err("a stress thread panicked".into()))
                    .err(),
                Err(e) => Some(format!("spawn: {e}")),
            })
            .collect()
    });
    let ops = sh.ops.load(Ordering::Relaxed);
    let first = sh.first.into_inner().unwrap_or_else(|e| e.into_inner());
    (ops, first, errors.into_iter().next())
}

fn in_process(a: &StressArgs, cfg: &RunConfig) -> CliResult<Outcome> {
    let expected = ExpectedState::open(&a.expected, layout(a).slots())?;
    let mut out = Outcome::default();
    let mut rng = Rng::new(a.seed);
    for round in 0..=a.reopens {
        let what = format!("open {}/{}", round + 1, a.reopens + 1);
        let Some(db) = reopen_and_verify(a, cfg, &expected, &mut out, &what)? else {
            return Ok(out);
        };
        let (ops, violations, error) = run_threads(a, cfg, &db, &expected, a.ops, rng.next_u64());
        out.ops += ops;
        out.violations += violations.len() as u64;
        for v in &violations {
            println!("{what}: VIOLATION {v} (seed {})", a.seed);
        }
        if let Some(e) = error {
            return Err(CliError::new(format!(
                "stress: {what}: engine error: {e} (seed {})",
                a.seed
            )));
        }
        close(db, &mut out)?;
        out.cycles += 1;
        println!("{what}: {ops} operations, closed");
    }
    let Some(db) = reopen_and_verify(a, cfg, &expected, &mut out, "final open")? else {
        return Ok(out);
    };
    close(db, &mut out)?;
    Ok(out)
}

/// Closes `db`, counting the float-ups it ran.
fn close(db: Db, out: &mut Outcome) -> CliResult<()> {
    out.float_ups += db.statistics().ticker(Ticker::FloatUps);
    db.close()?;
    Ok(())
}

/// A crash cycle's child: runs the workload until it is killed.
fn child(a: &StressArgs) -> CliResult<()> {
    let cfg = RunConfig::from_seed(a.seed).with_layout(a.layout);
    let expected = ExpectedState::open(&a.expected, layout(a).slots())?;
    let db = Db::open(&a.db, options(&cfg, a, true))?;
    let done = AtomicBool::new(false);
    let (_, violations, error) = std::thread::scope(|s| {
        // The parent reads the last count after the kill (bounded, so that a long run never
        // fills the pipe it does not read until then).
        s.spawn(|| {
            let (mut last, mut lines) = (0, 0);
            while !done.load(Ordering::Relaxed) && lines < 2000 {
                std::thread::sleep(Duration::from_millis(100));
                let n = db.statistics().ticker(Ticker::FloatUps);
                if n != last {
                    eprintln!("{FLOAT_UPS}{n}");
                    (last, lines) = (n, lines + 1);
                }
            }
        });
        let r = run_threads(a, &cfg, &db, &expected, u64::MAX, a.seed ^ now_nanos());
        done.store(true, Ordering::Relaxed);
        r
    });
    for v in &violations {
        eprintln!("VIOLATION {v}");
    }
    if let Some(e) = error {
        return Err(CliError::new(format!("engine error: {e}")));
    }
    Ok(())
}

fn crash_loop(a: &StressArgs, cfg: &RunConfig) -> CliResult<Outcome> {
    // Read anew after each child: the child wrote the file, not this process's copy.
    let expected = || ExpectedState::open(&a.expected, layout(a).slots());
    let mut out = Outcome::default();
    // The database exists (and the expected state matches it) before the first kill.
    match reopen_and_verify(a, cfg, &expected()?, &mut out, "start")? {
        Some(db) => close(db, &mut out)?,
        None => return Ok(out),
    }
    let exe = std::env::current_exe()?;
    let mut rng = Rng::new(a.seed ^ now_nanos());
    let ops_before = expected()?.ops();
    for cycle in 1..=a.cycles {
        let mut cmd = Command::new(&exe);
        cmd.arg("stress")
            .arg("--child")
            .arg(format!("--db={}", a.db.display()))
            .arg(format!("--expected={}", a.expected.display()))
            .arg(format!("--seed={}", a.seed))
            .arg(format!("--threads={}", a.threads))
            .arg(format!("--keys={}", a.keys))
            .arg(format!("--groups={}", a.groups))
            .arg(format!("--kill-odds={}", a.kill_odds))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(p) = a.kill_point {
            cmd.arg(format!("--kill-point={}", kill_point_name(p)));
        }
        if let Some(l) = a.layout {
            cmd.arg(format!("--layout={}", args::layout_name(l)));
        }
        let mut child = cmd.spawn()?;
        let (lo, hi) = a.kill_after_ms;
        let after = Duration::from_millis(lo + rng.below(hi - lo + 1));
        let started = Instant::now();
        let how = loop {
            if let Some(status) = child.try_wait()? {
                break status;
            }
            if started.elapsed() >= after {
                let _ = child.kill(); // SIGKILL
                break child.wait()?;
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let mut err = String::new();
        if let Some(mut e) = child.stderr.take() {
            let _ = e.read_to_string(&mut err);
        }
        use std::os::unix::process::ExitStatusExt;
        let what = format!("cycle {cycle}/{}", a.cycles);
        let killed = how.signal() == Some(libc::SIGKILL);
        if killed {
            out.kills += 1;
        } else if !how.success() {
            // The child stopped by itself: an engine error or a violation it saw.
            out.violations += 1;
            println!(
                "{what}: child failed ({how}): {} (seed {})",
                err.lines()
                    .filter(|l| !l.starts_with(FLOAT_UPS))
                    .collect::<Vec<_>>()
                    .join("\n")
                    .trim(),
                a.seed
            );
        }
        out.float_ups += err
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix(FLOAT_UPS)?.parse::<u64>().ok())
            .unwrap_or(0);
        for line in err.lines().filter(|l| l.starts_with("VIOLATION")) {
            out.violations += 1;
            println!("{what}: {line} (seed {})", a.seed);
        }
        // The crashed database as the kill left it: every checksum and invariant holds, and
        // open with this run's options (the reopen below) would accept it.
        let report = lsmlab::check::check_db_with_options(&a.db, &options(cfg, a, false))?;
        for p in &report.problems {
            out.violations += 1;
            println!("{what}: CHECK {p} (seed {})", a.seed);
        }
        let expected = expected()?;
        let Some(db) = reopen_and_verify(a, cfg, &expected, &mut out, &what)? else {
            return Ok(out);
        };
        close(db, &mut out)?;
        out.cycles += 1;
        println!(
            "{what}: {} after {} ms; verified {} keys, {} violations so far",
            if killed { "killed" } else { "exited" },
            started.elapsed().as_millis(),
            expected.len(),
            out.violations
        );
    }
    out.ops = expected()?.ops() - ops_before;
    Ok(out)
}

fn kill_point_name(p: killfs::KillPoint) -> &'static str {
    use killfs::KillPoint::*;
    match p {
        Wal => "wal",
        Manifest => "manifest",
        Current => "current",
        Flush => "flush",
        Compaction => "compaction",
        CompactionBlob => "compaction-blob",
    }
}
