//! `lsmlab ycsb load|run -P FILE [-p key=value]... --db=DIR [--json=FILE]`: YCSB's
//! CoreWorkload on the lsmlab engine, with YCSB's report lines followed by the lsmlab block.

pub mod builtin;
pub mod engine_options;
pub mod generator;
pub mod keys;
pub mod measure;
pub mod properties;
pub mod random;
pub mod workload;

use crate::engine::{self, EngineKind, Store};
use crate::error::{CliError, CliResult};
use crate::readout::block::Figures;
use crate::readout::lsm::ClientCounts;
use measure::{Measurements, OpRecord};
use properties::Properties;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::time::Instant;
use workload::CoreWorkload;

/// Usage of `lsmlab ycsb`.
pub const USAGE: &str = "usage: lsmlab ycsb load|run -P FILE [-P FILE]... [-p key=value]... --db=DIR [--engine=E] [--json=FILE] [-threads N]
  -P FILE      a YCSB workload properties file, or a built-in name: workloada..workloadf,
               fslsm-workload0..fslsm-workload14 (the 15 mixes of the FSLSM-Tree study)
  -p key=value override one property (recordcount, operationcount, readproportion,
               updateproportion, insertproportion, scanproportion, readmodifywriteproportion,
               requestdistribution=uniform|zipfian|latest|hotspot, insertorder=hashed|ordered,
               fieldcount, fieldlength, minscanlength, maxscanlength,
               scanlengthdistribution=uniform|zipfian, threadcount, lsmlab.seed, ...)
  -p layout=leveldb|wisckey|fslsm|fslsm-nostretch|fslsm-nofloat|universal
               seed 003's engines and FSLSM's ablations (see lsmlab bench --layout)
  -p lsmlab.OPTION=value
               any engine option by its lsmlab bench flag name, e.g.
               lsmlab.write_buffer_size=4194304, lsmlab.min_blob_size=0, lsmlab.fslsm_gamma=5
  --db=DIR     the database directory (load creates it; run uses it)
  --engine=E   lsmlab (default), rocksdb, leveldb or fjall (when built with the cargo
               feature of that name); load and run must name the same engine
  --json=FILE  write every figure as JSON";

/// Load or run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Insert `recordcount` records.
    Load,
    /// Run `operationcount` transactions.
    Run,
}

/// The parsed command line.
#[derive(Debug, Clone)]
pub struct YcsbArgs {
    /// Load or run.
    pub phase: Phase,
    /// The properties, files first, then overrides.
    pub props: Properties,
    /// The database directory.
    pub db: String,
    /// Where to write the JSON record, if anywhere.
    pub json: Option<String>,
    /// The engine.
    pub engine: EngineKind,
}

fn value_of(args: &[String], i: &mut usize, flag: &str, inline: Option<&str>) -> CliResult<String> {
    if let Some(v) = inline {
        return Ok(v.to_string());
    }
    *i += 1;
    args.get(*i)
        .cloned()
        .ok_or_else(|| CliError::new(format!("{flag}: missing value")))
}

fn load_workload_file(props: &mut Properties, name: &str) -> CliResult<()> {
    match std::fs::read_to_string(name) {
        Ok(text) => {
            props.load_str(&text);
            Ok(())
        }
        Err(e) => match builtin::find(name) {
            Some(text) => {
                props.load_str(text);
                Ok(())
            }
            None => Err(CliError::new(format!(
                "-P {name}: cannot read it ({e}) and it is not a built-in workload (workloada..workloadf, fslsm-workload0..fslsm-workload14)"
            ))),
        },
    }
}

/// Parses `load|run` and its flags.
pub fn parse(args: &[String]) -> CliResult<Option<YcsbArgs>> {
    let phase = match args.first().map(String::as_str) {
        Some("load") => Phase::Load,
        Some("run") => Phase::Run,
        Some("-h") | Some("--help") | Some("help") => return Ok(None),
        None => {
            return Err(CliError::new(
                "ycsb: expected load or run (usage: lsmlab ycsb load|run -P FILE [-p key=value]... --db=DIR; see lsmlab ycsb --help)",
            ))
        }
        Some(other) => {
            return Err(CliError::new(format!(
                "ycsb: expected load or run, got {other:?}"
            )))
        }
    };
    let mut props = Properties::default();
    let mut overrides = Vec::new();
    let (mut db, mut json) = (None, None);
    let mut engine = EngineKind::Lsmlab;
    let mut i = 1;
    while i < args.len() {
        let arg = args[i].as_str();
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v)),
            _ => (arg, None),
        };
        match flag {
            "-P" => load_workload_file(&mut props, &value_of(args, &mut i, "-P", inline)?)?,
            "-p" => overrides.push(value_of(args, &mut i, "-p", inline)?),
            "--db" | "-db" => db = Some(value_of(args, &mut i, "--db", inline)?),
            "--json" => json = Some(value_of(args, &mut i, "--json", inline)?),
            "--engine" | "-engine" => {
                engine = EngineKind::parse("--engine", &value_of(args, &mut i, "--engine", inline)?)?
            }
            "-threads" | "--threads" => {
                let v = value_of(args, &mut i, "-threads", inline)?;
                overrides.push(format!("threadcount={v}"));
            }
            "-h" | "--help" => return Ok(None),
            "-target" | "-s" | "-t" | "-load" => {
                return Err(CliError::new(format!(
                    "{flag}: a YCSB client flag lsmlab does not support yet"
                )))
            }
            other => {
                return Err(CliError::new(format!(
                    "ycsb: unknown argument {other:?}; expected -P FILE, -p key=value, --db=DIR, --engine=E, --json=FILE, -threads N"
                )))
            }
        }
        i += 1;
    }
    for o in &overrides {
        props.set_pair(o)?;
        if let Some((k, _)) = o.split_once('=') {
            properties::check_known(k.trim())?;
        }
    }
    let db = db
        .ok_or_else(|| CliError::new("--db: missing; give the database directory with --db=DIR"))?;
    if db.is_empty() {
        return Err(CliError::new(
            "--db: empty; give the database directory with --db=DIR",
        ));
    }
    Ok(Some(YcsbArgs {
        phase,
        props,
        db,
        json,
        engine,
    }))
}

/// What one phase measured.
pub struct PhaseResult {
    /// Operations done by every thread.
    pub operations: u64,
    /// Wall milliseconds.
    pub runtime_ms: u64,
    /// Latency and return codes per operation type.
    pub measurements: Measurements,
    /// Key + value bytes written.
    pub bytes_written: u64,
    /// Key + value bytes returned.
    pub bytes_returned: u64,
}

/// Runs `phase` of `w` on `db` with `w.thread_count` client threads.
pub fn run_phase(db: &dyn Store, w: &CoreWorkload, phase: Phase) -> CliResult<PhaseResult> {
    let total = match phase {
        Phase::Load => w.insert_count,
        Phase::Run => w.operation_count,
    };
    if phase == Phase::Run && w.has_no_operations() && total > 0 {
        return Err(CliError::new(
            "properties: every operation proportion is 0; set readproportion, updateproportion, ...",
        ));
    }
    let threads = w.thread_count;
    let start = Instant::now();
    let results: Vec<CliResult<(u64, Measurements, u64, u64)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|tid| {
                let ops = total / threads as u64 + u64::from((tid as u64) < total % threads as u64);
                scope.spawn(move || {
                    let mut c = w.client(db, tid);
                    for _ in 0..ops {
                        match phase {
                            Phase::Load => c.do_insert()?,
                            Phase::Run => c.do_transaction()?,
                        }
                    }
                    Ok((ops, c.measurements, c.bytes_written, c.bytes_returned))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(CliError::new("a YCSB client thread panicked")))
            })
            .collect()
    });
    let runtime_ms = start.elapsed().as_millis() as u64;
    let mut out = PhaseResult {
        operations: 0,
        runtime_ms,
        measurements: Measurements::default(),
        bytes_written: 0,
        bytes_returned: 0,
    };
    for r in results {
        let (ops, m, w, rd) = r?;
        out.operations += ops;
        out.measurements.merge(&m);
        out.bytes_written += w;
        out.bytes_returned += rd;
    }
    Ok(out)
}

#[derive(Serialize)]
struct YcsbRecord<'a> {
    tool: &'static str,
    version: &'static str,
    engine: String,
    phase: Phase,
    db: &'a str,
    properties: &'a BTreeMap<String, String>,
    operations: u64,
    runtime_ms: u64,
    throughput_ops_per_sec: f64,
    per_operation: BTreeMap<String, OpRecord>,
    lsmlab: Figures,
}

/// Runs a parsed command line, printing to `out`; returns the phase's figures.
pub fn execute(args: &YcsbArgs, out: &mut dyn Write) -> CliResult<PhaseResult> {
    for w in args.props.unknown_warnings() {
        eprintln!("{w}");
    }
    let w = CoreWorkload::from_properties(&args.props)?;
    // Fail on an unwritable --json before the phase runs, not after.
    let mut json_file = match &args.json {
        Some(path) => Some(
            std::fs::File::create(path)
                .map_err(|e| CliError::new(format!("--json: cannot write {path}: {e}")))?,
        ),
        None => None,
    };
    // As YCSB against a real store: run needs the database that load made. Checked before
    // opening: the engine makes the directory and its LOCK before it refuses.
    if args.phase == Phase::Run && !engine::database_exists(args.engine, &args.db) {
        return Err(engine::no_database(
            args.engine,
            "ycsb run",
            &args.db,
            "run `lsmlab ycsb load` first",
        ));
    }
    let (mut settings, set) = engine_options::settings(&args.props, &args.db)?;
    // RocksDB's figures come from its statistics object; YCSB has no db_bench run to stay
    // faithful to, so it is on unless a property turns it off.
    if args.engine == EngineKind::RocksDb && !set.iter().any(|n| n == "statistics") {
        settings.statistics = true;
    }
    engine::check_flags(args.engine, &settings, &set, engine_options::property_name)?;
    let db =
        engine::open(args.engine, &settings, args.phase == Phase::Load).map_err(|e| match args
            .phase
        {
            Phase::Run => CliError::new(format!(
                "ycsb run: no loaded database at {} ({e}); run `lsmlab ycsb load` first",
                args.db
            )),
            Phase::Load => e,
        })?;
    eprintln!("lsmlab ycsb: engine {}", args.engine.describe());
    let settle = match args.props.get("lsmlab.settle") {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => {
            return Err(CliError::new(format!(
                "-p lsmlab.settle: invalid value {other:?}: allowed: true, false"
            )))
        }
    };
    let before = db.snapshot();
    let result = run_phase(db.as_ref(), &w, args.phase)?;
    if settle && args.phase == Phase::Load {
        // The load's background work belongs to the load: the run starts from a tree with
        // nothing left to flush or compact.
        db.flush()?;
        db.wait_for_background_work()?;
    }
    let io = |e: std::io::Error| CliError::new(format!("writing output: {e}"));
    write!(
        out,
        "{}",
        result
            .measurements
            .report(result.runtime_ms, result.operations)
    )
    .map_err(io)?;
    let after = db.snapshot();
    let figures = db.figures(
        &before,
        &after,
        Path::new(&args.db),
        ClientCounts {
            bytes_written: result.bytes_written,
            bytes_returned: result.bytes_returned,
        },
    );
    let title = match args.phase {
        Phase::Load => "ycsb load",
        Phase::Run => "ycsb run",
    };
    write!(out, "{}", figures.to_text(title)).map_err(io)?;
    if let (Some(path), Some(file)) = (&args.json, json_file.as_mut()) {
        let rec = YcsbRecord {
            tool: "lsmlab ycsb",
            version: env!("CARGO_PKG_VERSION"),
            engine: args.engine.describe(),
            phase: args.phase,
            db: &args.db,
            properties: args.props.all(),
            operations: result.operations,
            runtime_ms: result.runtime_ms,
            throughput_ops_per_sec: if result.runtime_ms > 0 {
                1000.0 * result.operations as f64 / result.runtime_ms as f64
            } else {
                0.0
            },
            per_operation: result.measurements.records(),
            lsmlab: figures,
        };
        let text = serde_json::to_string_pretty(&rec)
            .map_err(|e| CliError::new(format!("--json: {e}")))?;
        file.write_all(text.as_bytes())
            .map_err(|e| CliError::new(format!("--json: cannot write {path}: {e}")))?;
    }
    db.close()?;
    Ok(result)
}

/// Entry point of `lsmlab ycsb ARGS`.
pub fn main(args: &[String]) -> CliResult<()> {
    match parse(args)? {
        None => {
            println!("{USAGE}");
            Ok(())
        }
        Some(a) => {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            execute(&a, &mut out).map(|_| ())
        }
    }
}
