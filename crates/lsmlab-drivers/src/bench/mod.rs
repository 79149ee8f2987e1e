//! `lsmlab bench`: RocksDB's db_bench on the lsmlab engine — the same flags, keys, values, key
//! orders and output lines, followed by lsmlab's own block of figures after each benchmark.

pub mod header;
pub mod json;
pub mod keygen;
pub mod pace;
pub mod random;
pub mod reporter;
mod session;
pub mod stats;
pub mod valuegen;
pub mod workloads;

use crate::engine::{self, Store};
use crate::error::{CliError, CliResult};
use crate::flags::{BenchFlags, Parsed};
use crate::readout::lsm::ClientCounts;
use json::{BenchmarkRecord, RunRecord};
use session::Session;
use stats::BenchStats;
use std::io::Write;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};
use workloads::Method;

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

fn property_text(db: &dyn Store, name: &str) -> String {
    db.property(name).unwrap_or_else(|| "n/a".to_string())
}

/// The `--statistics` dump of an lsmlab database (see `engine::lsmlab::statistics_text`).
pub fn statistics_text(db: &lsmlab::Db) -> String {
    engine::lsmlab::statistics_text(db)
}

/// What one name of `--benchmarks` does.
enum Step {
    /// Runs `method` in `threads` threads with keys of `key_size` bytes, on a fresh database
    /// if `fresh_db` (the fills).
    Run {
        method: Method,
        key_size: usize,
        threads: usize,
        fresh_db: bool,
    },
    /// Waits until the background work is done.
    WaitForCompaction,
    /// Prints the property of this name.
    Property(String),
}

/// The step benchmark `name` is, as db_bench's `RunBenchmark` dispatches it.
fn step_of(name: &str, flags: &BenchFlags) -> CliResult<Step> {
    let mut key_size = flags.key_size;
    let mut threads = flags.threads;
    let mut fresh_db = false;
    let method: Method = match name {
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
        "waitforcompaction" => return Ok(Step::WaitForCompaction),
        "stats" | "levelstats" | "sstables" => {
            return Ok(Step::Property(format!("rocksdb.{name}")))
        }
        other => {
            return Err(CliError::new(format!(
                "--benchmarks: unknown benchmark {other:?}"
            )))
        }
    };
    Ok(Step::Run {
        method,
        key_size,
        threads,
        fresh_db,
    })
}

/// The seed of the run: `--seed`, or (db_bench's rule for 0) the clock's microseconds, printed.
fn run_seed(flags: &BenchFlags, out: &mut dyn Write) -> CliResult<u64> {
    if flags.seed != 0 {
        return Ok(flags.seed);
    }
    let micros = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as u64)
        .unwrap_or(1);
    writeln!(out, "Set seed to {micros} because --seed was 0").map_err(io_err)?;
    Ok(micros)
}

/// The `--json` file, created before the benchmarks run so that an unwritable path fails first.
fn create_json(flags: &BenchFlags) -> CliResult<Option<std::fs::File>> {
    if flags.json.is_empty() {
        return Ok(None);
    }
    std::fs::File::create(&flags.json)
        .map(Some)
        .map_err(|e| CliError::new(format!("--json: cannot write {}: {e}", flags.json)))
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
    let seed = run_seed(flags, out)?;
    let mut json_file = create_json(flags)?;
    let settings = flags.settings()?;
    let kind = flags.engine_kind()?;
    if !flags.use_existing_db {
        engine::destroy(kind, &settings)?;
    }
    let mut session = Session {
        flags,
        kind,
        path: settings.path.clone(),
        settings,
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
        if let Some(r) = run_one(&mut session, name, out)? {
            records.push(r);
        }
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
            db: session.path.clone(),
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

/// Runs benchmark `name` and prints its lines; its record, if it is one that measures.
fn run_one(
    session: &mut Session,
    name: &str,
    out: &mut dyn Write,
) -> CliResult<Option<BenchmarkRecord>> {
    let flags = session.flags;
    let (method, key_size, threads) = match step_of(name, flags)? {
        Step::WaitForCompaction => {
            session.db()?.wait_for_background_work()?;
            return Ok(None);
        }
        Step::Property(prop) => {
            writeln!(out, "\n{}", property_text(session.db()?, &prop)).map_err(io_err)?;
            return Ok(None);
        }
        Step::Run {
            method,
            key_size,
            threads,
            fresh_db,
        } => {
            if fresh_db {
                if flags.use_existing_db {
                    writeln!(out, "{name:<12} : skipped (--use_existing_db is true)")
                        .map_err(io_err)?;
                    return Ok(None);
                }
                session.reopen_fresh()?;
            }
            (method, key_size, threads)
        }
    };
    writeln!(out, "DB path: [{}]", session.path).map_err(io_err)?;
    let before = session.db()?.snapshot();
    let thread_stats = session.run_threads(threads, key_size, method)?;
    let merged = BenchStats::merge(&thread_stats);
    if session.progress {
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
        Path::new(&session.path),
        ClientCounts {
            bytes_written: merged.client_bytes_written,
            bytes_returned: merged.client_bytes_returned,
        },
    );
    write!(out, "{}", figures.to_text(name)).map_err(io_err)?;
    out.flush().map_err(io_err)?;
    Ok(Some(BenchmarkRecord {
        name: name.to_string(),
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
    }))
}
