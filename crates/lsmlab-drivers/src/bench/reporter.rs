//! What a benchmark reports while it runs: db_bench's `--report_interval_seconds` time series
//! (`secs_elapsed,interval_qps` rows in `--report_file`, the throughput a study plots over
//! time) and its `--stats_interval_seconds` lines (with `--stats_per_interval`, followed by
//! the engine's `rocksdb.stats`).

use crate::engine::Store;
use crate::error::{CliError, CliResult};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How often the reporter looks at the clock and the stop flag.
const TICK: Duration = Duration::from_millis(50);

/// What to report, from the flags.
#[derive(Debug, Clone, Default)]
pub struct ReportSettings {
    /// Seconds between rows of the report file; 0: no file.
    pub report_interval_seconds: u64,
    /// The report file.
    pub report_file: String,
    /// Seconds between progress lines on stdout; 0: none.
    pub stats_interval_seconds: u64,
    /// Print `rocksdb.stats` after each progress line.
    pub stats_per_interval: bool,
}

impl ReportSettings {
    /// Whether anything is reported while a benchmark runs.
    pub fn active(&self) -> bool {
        self.report_interval_seconds > 0 || self.stats_interval_seconds > 0
    }

    /// Creates the report file (truncating it), as each benchmark does in db_bench.
    pub fn open_report_file(&self) -> CliResult<Option<std::fs::File>> {
        if self.report_interval_seconds == 0 {
            return Ok(None);
        }
        let mut f = std::fs::File::create(&self.report_file).map_err(|e| {
            CliError::new(format!(
                "--report_file: cannot write {}: {e}",
                self.report_file
            ))
        })?;
        f.write_all(b"secs_elapsed,interval_qps\n")
            .map_err(|e| CliError::new(format!("--report_file {}: {e}", self.report_file)))?;
        Ok(Some(f))
    }
}

/// Runs until `stop` is set, reading the operations the threads count in `ops`.
pub fn run(
    settings: &ReportSettings,
    mut file: Option<std::fs::File>,
    ops: &AtomicU64,
    stop: &AtomicBool,
    threads: usize,
    db: &dyn Store,
) {
    let start = Instant::now();
    let (mut last_row, mut last_row_ops) = (start, 0u64);
    let (mut last_stats, mut last_stats_ops) = (start, 0u64);
    let every = |s: u64| Duration::from_secs(s);
    while !stop.load(Ordering::Acquire) {
        std::thread::sleep(TICK);
        let now = Instant::now();
        let done = ops.load(Ordering::Relaxed);
        if let Some(f) = file.as_mut() {
            if now - last_row >= every(settings.report_interval_seconds) {
                let secs = (now - last_row).as_secs_f64();
                let qps = ((done - last_row_ops) as f64 / secs).round() as u64;
                // A report that cannot be written stops being written; the benchmark goes on.
                if writeln!(f, "{},{qps}", (now - start).as_secs()).is_err() {
                    file = None;
                }
                (last_row, last_row_ops) = (now, done);
            }
        }
        if settings.stats_interval_seconds > 0
            && now - last_stats >= every(settings.stats_interval_seconds)
        {
            let (isecs, secs) = (
                (now - last_stats).as_secs_f64(),
                (now - start).as_secs_f64(),
            );
            let iops = done - last_stats_ops;
            let mut line = format!(
                "{}  ... {threads} thread{}: ({iops},{done}) ops and ({:.1},{:.1}) ops/second in ({isecs:.6},{secs:.6}) seconds\n",
                crate::bench::pace::clock::interval_stamp(),
                if threads == 1 { "" } else { "s" },
                iops as f64 / isecs,
                done as f64 / secs,
            );
            if settings.stats_per_interval {
                if let Some(s) = db.property("rocksdb.stats") {
                    line.push_str(&s);
                }
            }
            print!("{line}");
            (last_stats, last_stats_ops) = (now, done);
        }
    }
}
