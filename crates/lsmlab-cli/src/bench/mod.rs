//! `lsmlab bench`: RocksDB's db_bench on the lsmlab engine — the same flags, keys, values, key
//! orders and output lines, followed by lsmlab's own block of figures after each benchmark.

pub mod budget;
pub mod clock;
pub mod header;
pub mod json;
pub mod keygen;
pub mod random;
pub mod rate_limit;
pub mod reporter;
pub mod stats;
pub mod valuegen;
pub mod workloads;

use crate::engine::{self, EngineKind, EngineSettings, Store};
use crate::error::{CliError, CliResult};
use crate::flags::{BenchFlags, Parsed};
use crate::readout::lsm::ClientCounts;
use json::{BenchmarkRecord, RunRecord};
use random::Random64;
use rate_limit::RateLimiter;
use reporter::ReportSettings;
use stats::{BenchStats, ThreadStats};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{SystemTime, UNIX_EPOCH};
use workloads::{Method, Shared, ThreadState};

/// Entry point of `lsmlab bench ARGS`.
pub fn main(args: &[String]) -> CliResult<()> {
    match crate::flags::parse(args)? {
        Parsed::Help => {
            print!("{}", BenchFlags::help());
            Ok(())
        }
        Parsed::Run {
            flags,
            explicit,
            notes,
        } => {
            // On stderr: stdout stays exactly db_bench's, for the parsers that read it.
            for n in &notes {
                eprintln!("lsmlab: {n}");
            }
            // Not locked for the whole run: the interval reporter prints between the lines.
            let mut out = std::io::stdout();
            run(&flags, &explicit, &mut out, true).map(|_| ())
        }
    }
}

fn io_err(e: std::io::Error) -> CliError {
    CliError::new(format!("writing output: {e}"))
}

/// A running db_bench session: the store and the thread-seed counter.
struct Session<'a> {
    flags: &'a BenchFlags,
    kind: EngineKind,
    /// What the store is opened with, `--db` among it.
    settings: EngineSettings,
    path: String,
    db: Option<Box<dyn Store>>,
    seed: u64,
    total_threads: u64,
    progress: bool,
}

impl Session<'_> {
    fn open(&mut self) -> CliResult<()> {
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

    fn reopen_fresh(&mut self) -> CliResult<()> {
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

    fn db(&self) -> CliResult<&dyn Store> {
        self.db
            .as_deref()
            .ok_or_else(|| CliError::new("the database is not open"))
    }

    /// Runs `method` in `n` threads that start together; returns each thread's stats.
    fn run_threads(
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

fn property_text(db: &dyn Store, name: &str) -> String {
    db.property(name).unwrap_or_else(|| "n/a".to_string())
}

/// The `--statistics` dump of an lsmlab database (see `engine::lsmlab::statistics_text`).
pub fn statistics_text(db: &lsmlab::Db) -> String {
    engine::lsmlab::statistics_text(db)
}

/// Runs every benchmark of `flags`, printing to `out`; returns the figures of each.
pub fn run(
    flags: &BenchFlags,
    explicit: &[String],
    out: &mut dyn Write,
    progress: bool,
) -> CliResult<Vec<BenchmarkRecord>> {
    let list = flags.benchmark_list()?;
    let started_unix = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let seed = if flags.seed == 0 {
        let micros = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_micros() as u64)
            .unwrap_or(1);
        writeln!(out, "Set seed to {micros} because --seed was 0").map_err(io_err)?;
        micros
    } else {
        flags.seed
    };
    // Fail on an unwritable --json before the benchmarks run, not after.
    let mut json_file = if flags.json.is_empty() {
        None
    } else {
        Some(
            std::fs::File::create(&flags.json)
                .map_err(|e| CliError::new(format!("--json: cannot write {}: {e}", flags.json)))?,
        )
    };
    let settings = flags.settings()?;
    let path = settings.path.clone();
    let kind = flags.engine_kind()?;
    if !flags.use_existing_db {
        engine::destroy(kind, &settings)?;
    }
    let mut session = Session {
        flags,
        kind,
        settings,
        path: path.clone(),
        db: None,
        seed,
        total_threads: 0,
        progress,
    };
    session.open()?;
    // As db_bench: the environment on stderr, the header on stdout.
    if progress {
        eprint!("{}", header::environment());
    }
    write!(out, "{}", header::header(flags)).map_err(io_err)?;
    let mut records = Vec::new();
    for name in &list {
        let mut key_size = flags.key_size;
        let mut threads = flags.threads;
        let mut fresh_db = false;
        let method: Method = match name.as_str() {
            "fillseq" => {
                fresh_db = true;
                workloads::fill_seq
            }
            "fillrandom" => {
                fresh_db = true;
                workloads::fill_random
            }
            "overwrite" => workloads::fill_random,
            "readrandom" => workloads::read_random,
            "readmissing" => {
                key_size += 1;
                workloads::read_random
            }
            "readseq" => workloads::read_seq,
            "readreverse" => workloads::read_reverse,
            "seekrandom" => workloads::seek_random,
            "deleterandom" => workloads::delete_random,
            "readwhilewriting" => {
                threads += 1;
                workloads::read_while_writing
            }
            "seekrandomwhilewriting" => {
                threads += 1;
                workloads::seek_while_writing
            }
            "readrandomwriterandom" => workloads::read_random_write_random,
            "flush" => {
                threads = 1;
                workloads::flush
            }
            "compact" => {
                threads = 1;
                workloads::compact
            }
            "waitforcompaction" => {
                session.db()?.wait_for_background_work()?;
                continue;
            }
            "stats" | "levelstats" | "sstables" => {
                let prop = format!("rocksdb.{name}");
                writeln!(out, "\n{}", property_text(session.db()?, &prop)).map_err(io_err)?;
                continue;
            }
            other => {
                return Err(CliError::new(format!(
                    "--benchmarks: unknown benchmark {other:?}"
                )))
            }
        };
        if fresh_db {
            if flags.use_existing_db {
                writeln!(out, "{name:<12} : skipped (--use_existing_db is true)")
                    .map_err(io_err)?;
                continue;
            }
            session.reopen_fresh()?;
        }
        writeln!(out, "DB path: [{path}]").map_err(io_err)?;
        let before = session.db()?.snapshot();
        let thread_stats = session.run_threads(threads, key_size, method)?;
        let merged = BenchStats::merge(&thread_stats);
        if progress {
            // Clear the progress line, if any was drawn.
            use std::io::IsTerminal;
            if std::io::stderr().is_terminal() {
                eprint!("{:60}\r", "");
            }
        }
        writeln!(out, "{}", merged.report_line(name)).map_err(io_err)?;
        if flags.histogram {
            write!(out, "{}", merged.histogram_text()).map_err(io_err)?;
        }
        let db = session.db()?;
        let after = db.snapshot();
        let figures = db.figures(
            &before,
            &after,
            Path::new(&path),
            ClientCounts {
                bytes_written: merged.client_bytes_written,
                bytes_returned: merged.client_bytes_returned,
            },
        );
        write!(out, "{}", figures.to_text(name)).map_err(io_err)?;
        out.flush().map_err(io_err)?;
        records.push(BenchmarkRecord {
            name: name.clone(),
            threads,
            ops: merged.reported_ops(),
            seconds: merged.elapsed_seconds,
            micros_per_op: merged.micros_per_op(),
            ops_per_sec: merged.ops_per_sec(),
            mb_per_sec: merged.mb_per_sec(),
            message: merged.message.trim().to_string(),
            reads: merged.reads,
            found: merged.found,
            writer_ops: merged.excluded_ops,
            latency_us: merged
                .hist
                .iter()
                .map(|(op, h)| (op.name().to_string(), h.summary()))
                .collect(),
            lsmlab: figures,
        });
    }
    let db = session.db()?;
    if flags.statistics {
        writeln!(out, "STATISTICS:\n{}", db.statistics_text()).map_err(io_err)?;
    }
    if let Some(file) = json_file.as_mut() {
        let doc = RunRecord {
            tool: "lsmlab bench",
            version: env!("CARGO_PKG_VERSION"),
            engine: kind.describe(),
            started_unix,
            db: path.clone(),
            seed,
            flags: flags.clone(),
            flags_set: explicit.to_vec(),
            benchmarks: records.clone(),
        };
        let text = serde_json::to_string_pretty(&doc)
            .map_err(|e| CliError::new(format!("--json: {e}")))?;
        file.write_all(text.as_bytes())
            .map_err(|e| CliError::new(format!("--json: cannot write {}: {e}", flags.json)))?;
    }
    if let Some(db) = session.db.take() {
        db.close()?;
    }
    Ok(records)
}
