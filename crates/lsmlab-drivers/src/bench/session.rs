//! A running db_bench session: the store, the settings it is opened with, and the benchmark
//! threads it runs (seeded and started together as db_bench's `RunBenchmark` does).

use super::random::Random64;
use super::reporter::{self, ReportSettings};
use super::stats::ThreadStats;
use super::workloads::{Method, Shared, ThreadState};
use crate::bench::pace::rate_limit::RateLimiter;
use crate::engine::{self, EngineKind, EngineSettings, Store};
use crate::error::{CliError, CliResult};
use crate::flags::BenchFlags;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};

/// A running db_bench session: the store and the thread-seed counter.
pub(super) struct Session<'a> {
    pub(super) flags: &'a BenchFlags,
    pub(super) kind: EngineKind,
    /// What the store is opened with, `--db` among it.
    pub(super) settings: EngineSettings,
    pub(super) path: String,
    pub(super) db: Option<Box<dyn Store>>,
    pub(super) seed: u64,
    pub(super) total_threads: u64,
    pub(super) progress: bool,
}

impl Session<'_> {
    pub(super) fn open(&mut self) -> CliResult<()> {
        // As db_bench: --use_existing_db reads a database that must already be there.
        // Checked here: an engine may make the directory and its LOCK before it refuses.
        if self.flags.use_existing_db && !engine::database_exists(self.kind, &self.path) {
            return Err(engine::no_database(
                self.kind,
                "--use_existing_db",
                &self.path,
                "load one first (a fill benchmark with --use_existing_db=0)",
            ));
        }
        let db = engine::open(self.kind, &self.settings, !self.flags.use_existing_db)
        .map_err(|e| {
            // The directory holds a database (it has CURRENT) that open refused: damage, or
            // options that do not match it. Never advise --use_existing_db=0 here: it would
            // delete every file of the database.
            if self.flags.use_existing_db {
                CliError::new(format!(
                    "--use_existing_db: cannot open the database at {} ({e}); run `lsmlab check {}` to see what is wrong, and keep the directory until it is understood",
                    self.path, self.path
                ))
            } else {
                e
            }
        })?;
        self.db = Some(db);
        Ok(())
    }

    pub(super) fn reopen_fresh(&mut self) -> CliResult<()> {
        match self.db.take() {
            Some(db) => {
                self.db = Some(db.reopen_fresh(&self.settings)?);
                Ok(())
            }
            None => {
                engine::destroy(self.kind, &self.settings)?;
                self.open()
            }
        }
    }

    fn report_settings(&self) -> ReportSettings {
        let f = self.flags;
        ReportSettings {
            report_interval_seconds: f.report_interval_seconds,
            report_file: f.report_file.clone(),
            stats_interval_seconds: f.stats_interval_seconds,
            stats_per_interval: f.stats_per_interval > 0,
        }
    }

    pub(super) fn db(&self) -> CliResult<&dyn Store> {
        self.db
            .as_deref()
            .ok_or_else(|| CliError::new("the database is not open"))
    }

    /// Runs `method` in `n` threads that start together; returns each thread's stats.
    pub(super) fn run_threads(
        &mut self,
        n: usize,
        key_size: usize,
        method: Method,
    ) -> CliResult<Vec<ThreadStats>> {
        // As db_bench's RunBenchmark: thread k of the run (counting from 1 over every benchmark)
        // gets `Random64(seed + 1000 + k)`.
        let first_seed = self.seed.wrapping_add(1000 + self.total_threads + 1);
        self.total_threads += n as u64;
        let progress = self.progress;
        let db = self.db()?;
        let shared = Shared {
            db,
            flags: self.flags,
            key_size,
            num_done: AtomicUsize::new(0),
            num_threads: n,
        };
        let report = self.report_settings();
        let report_file = report.open_report_file()?;
        let ops = Arc::new(AtomicU64::new(0));
        let stop_reporter = AtomicBool::new(false);
        // Every thread that writes shares the rate (readwhilewriting: its one writer).
        let writers = if n > self.flags.threads { 1 } else { n };
        // ... and every thread that reads shares the read rate (readwhilewriting: all but one).
        let readers = if n > self.flags.threads { n - 1 } else { n };
        let mut states: Vec<ThreadState> = (0..n)
            .map(|tid| {
                let mut stats = ThreadStats::new(progress && tid == n.saturating_sub(1));
                stats.ops_counter = report.active().then(|| ops.clone());
                ThreadState {
                    tid,
                    rand: Random64::new(first_seed.wrapping_add(tid as u64)),
                    stats,
                    write_limiter: RateLimiter::new(self.flags.benchmark_write_rate_limit, writers),
                    read_limiter: RateLimiter::new(self.flags.benchmark_read_rate_limit, readers),
                }
            })
            .collect();
        let barrier = Barrier::new(n);
        let results: Vec<CliResult<()>> = std::thread::scope(|scope| {
            let reporter = report.active().then(|| {
                let (report, ops, stop) = (&report, &*ops, &stop_reporter);
                scope.spawn(move || reporter::run(report, report_file, ops, stop, n, db))
            });
            let handles: Vec<_> = states
                .iter_mut()
                .map(|state| {
                    let (shared, barrier) = (&shared, &barrier);
                    scope.spawn(move || {
                        barrier.wait();
                        state.stats.start();
                        let r = method(shared, state);
                        state.stats.stop();
                        shared.num_done.fetch_add(1, Ordering::AcqRel);
                        r
                    })
                })
                .collect();
            let results = handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(CliError::new("a benchmark thread panicked")))
                })
                .collect();
            stop_reporter.store(true, Ordering::Release);
            if let Some(r) = reporter {
                let _ = r.join();
            }
            results
        });
        for r in results {
            r?;
        }
        Ok(states.into_iter().map(|s| s.stats).collect())
    }
}
