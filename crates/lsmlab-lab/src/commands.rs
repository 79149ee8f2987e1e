//! The study commands: `lsmlab run` (plan → expanded runs → results → report), `lsmlab report`
//! (the report again from a results directory) and `lsmlab merge` (shards joined, then reported).
//! The only place that uses every stage (with `until_decided`, the sequential rounds it calls).

use super::analyse::claims::{open_claims, verdicts};
use super::analyse::comparisons::{compare_inputs, summary};
use super::analyse::rounds::sequential;
use super::plan::limits;
use super::plan::matrix;
use super::plan::spec::Plan;
use super::render::document;
use super::run::estimate::guess_seconds;
use super::run::executor::{choice, groups, slurm, Executor, ExecutorKind, Local};
use super::run::invoke::{engines, runnable};
use super::run::measure::environment;
use super::run::records::{audit, merge, results, shard, staged_dir};
use super::run::{load, runner, steps};
use super::until_decided;
use crate::args::RunArgs;
use crate::run::records::expanded::{fingerprint, EngineRecord, Expanded};
use crate::run::records::utc::utc_stamp;
use engines::Engine;
use lsmlab_drivers::error::{CliError, CliResult};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn write(path: &Path, text: &str) -> CliResult<()> {
    std::fs::write(path, text).map_err(|e| CliError::new(format!("{}: {e}", path.display())))
}

fn json<T: Serialize>(v: &T) -> CliResult<String> {
    serde_json::to_string_pretty(v).map_err(|e| CliError::new(format!("json: {e}")))
}

/// A path given on the command line or in the environment: relative to the working directory
/// (not to the plan, as the plan's own paths are); a bare name stays a name for PATH.
fn from_cwd(path: &str) -> String {
    if path.contains('/') && Path::new(path).is_relative() {
        if let Ok(cwd) = std::env::current_dir() {
            return cwd.join(path).display().to_string();
        }
    }
    path.to_string()
}

/// Where a study comes from: a plan file, or a results directory that `--resume` continues.
struct Source {
    /// The results directory.
    dir: PathBuf,
    /// The plan's text, as given or as the directory recorded it.
    plan_text: String,
    /// The scale run.
    scale: Option<String>,
    /// The run order's seed a resumed study was started with.
    seed: Option<u64>,
    /// The shard this directory runs.
    shard: Option<shard::Shard>,
    /// Where the plan's relative engine binaries start.
    plan_dir: PathBuf,
    /// The repetitions a resumed study was started with.
    repetitions: Option<u32>,
}

/// A study expanded: its plan at its scale, cells, engines resolved and run order.
struct Prepared {
    /// The plan as written.
    given: Plan,
    /// The plan at its scale, with the command line's repetitions and binaries.
    plan: Plan,
    cells: Vec<matrix::Cell>,
    engines: Vec<Engine>,
    order: Vec<matrix::RunKey>,
    seed: u64,
    /// What `plan.json` records.
    expanded: Expanded,
    /// The plan hash of results directories written before the hash left repetitions out.
    legacy_hash: String,
    /// Estimated seconds per run and per load.
    per_run: f64,
    per_load: f64,
}

/// `lsmlab run`: the plan read, expanded into runs, the runs run, the results finished.
pub fn run_main(args: &RunArgs) -> CliResult<()> {
    let lsmlab_bin = match &args.lsmlab {
        Some(p) => p.clone(),
        None => std::env::current_exe()
            .map_err(|e| CliError::new(format!("cannot find the lsmlab program: {e}")))?,
    };
    let src = source(args)?;
    let prepared = expand(args, &src, &lsmlab_bin)?;
    if args.dry_run {
        dry_run(args, &src, prepared)?;
        return Ok(());
    }
    if let Some(ids) = &args.run_ids {
        return run_task(ids, &src, prepared);
    }
    run_all(args, &src, prepared)?;
    finish(&src.dir)?.conclude(args.check_claims)
}

/// The plan and results directory of `lsmlab run`: from `--resume`'s directory, else from the
/// plan file, `--scale`, `--out` and `--shard`.
fn source(args: &RunArgs) -> CliResult<Source> {
    let (dir, plan_text, scale, seed, shard, plan_dir, repetitions) = match &args.resume {
        Some(dir) => {
            if args.shard.is_some() {
                // The shard is the study's, recorded in plan.json: another would be ignored.
                return Err(CliError::new(format!(
                    "--shard: not with --resume; {} resumes the shard it was started with",
                    dir.display()
                )));
            }
            let e: Expanded = serde_json::from_str(
                &std::fs::read_to_string(dir.join("plan.json")).map_err(|e| {
                    CliError::new(format!(
                        "--resume {}: not a results directory (plan.json: {e}); start a study with lsmlab run PLAN --out DIR",
                        dir.display()
                    ))
                })?,
            )
            .map_err(|e| CliError::new(format!("--resume {}: plan.json: {e}", dir.display())))?;
            let text = std::fs::read_to_string(dir.join("plan.toml"))
                .map_err(|e| CliError::new(format!("--resume {}: {e}", dir.display())))?;
            (
                dir.clone(),
                text,
                e.scale,
                Some(e.seed),
                e.shard,
                PathBuf::from(e.plan_dir),
                Some(e.repetitions),
            )
        }
        None => {
            let path = args
                .plan
                .as_ref()
                .ok_or_else(|| CliError::new("run: name a plan"))?;
            let (_, text) = Plan::load(path)?;
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let plan = Plan::parse(&text)?;
            let scale = plan.pick_scale(args.scale.as_deref())?;
            if let Some(out) = &args.out {
                check_out_dir(out)?;
            }
            let dir = args.out.clone().unwrap_or_else(|| {
                PathBuf::from("results").join(format!(
                    "{stem}-{}-{}",
                    scale.as_deref().unwrap_or("base"),
                    utc_stamp()
                ))
            });
            let shard = shard::resolve(args.shard.as_deref(), &|k| std::env::var(k).ok())?;
            let plan_dir = path
                .parent()
                .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf()))
                .unwrap_or_default();
            (dir, text, scale, None, shard, plan_dir, None)
        }
    };
    Ok(Source {
        dir,
        plan_text,
        scale,
        seed,
        shard,
        plan_dir,
        repetitions,
    })
}

/// `run --out DIR`: a new directory, an empty one, or a results directory (its `plan.json`
/// says whether it holds this study); never a file, nor a directory of other files, which the
/// study's own files (`report.html`, `runs/`, ...) would replace.
fn check_out_dir(out: &Path) -> CliResult<()> {
    let Ok(meta) = std::fs::metadata(out) else {
        return Ok(());
    };
    if !meta.is_dir() {
        return Err(CliError::new(format!(
            "--out {}: a file, not a directory; give a new or empty directory",
            out.display()
        )));
    }
    if out.join("plan.json").is_file() {
        return Ok(());
    }
    let mut entries = std::fs::read_dir(out)
        .map_err(|e| CliError::new(format!("--out {}: {e}", out.display())))?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        // An interrupted first run leaves `runs/` before its plan.json.
        .filter(|n| n != "runs");
    match entries.next() {
        None => Ok(()),
        Some(first) => Err(CliError::new(format!(
            "--out {}: holds files that are not a study's results (e.g. {first}); give a new or empty directory, or a results directory to resume",
            out.display()
        ))),
    }
}

/// The plan at its scale expanded into cells, engines and the run order.
fn expand(args: &RunArgs, src: &Source, lsmlab_bin: &Path) -> CliResult<Prepared> {
    let (plan_text, scale_arg, seed_arg) = (&src.plan_text, &src.scale, src.seed);
    let (shard_arg, plan_dir, reps_recorded) = (src.shard, &src.plan_dir, src.repetitions);
    let given = Plan::parse(plan_text)?;
    let mut plan = given.scaled(scale_arg.as_deref());
    if let Some(r) = args.repetitions {
        if r == 0 {
            return Err(CliError::new("--repetitions: 0; allowed 1 or more"));
        }
        if let Some(ran) = reps_recorded.filter(|ran| r < *ran) {
            // The results directory records the repetitions; fewer would leave its runs
            // outside the study and every later command on it failing.
            return Err(CliError::new(format!(
                "--repetitions: {r} is below the {ran} the study in {} was started with; allowed {ran} or more",
                src.dir.display()
            )));
        }
        plan.repetitions = r;
    } else if let Some(r) = reps_recorded {
        // Resumed: as many repetitions as the study was started with.
        plan.repetitions = r;
    }
    limits::check_runs(
        limits::cell_count(&plan.matrix) as usize,
        plan.engines.len() + plan.optional_engines.len(),
        plan.repetitions,
    )?;
    let seed = seed_arg.unwrap_or(if plan.seed != 0 {
        plan.seed
    } else {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    });
    // Binaries: the plan's, else an engine's environment variable, else --binary, last wins.
    for n in plan
        .engines
        .clone()
        .iter()
        .chain(&plan.optional_engines.clone())
    {
        if let Ok(v) = std::env::var(engines::env_var(n)) {
            if !v.is_empty() {
                plan.engine.entry(n.clone()).or_default().binary = Some(from_cwd(&v));
            }
        }
    }
    for b in &args.binaries {
        let (name, path) = b.split_once('=').ok_or_else(|| {
            CliError::new(format!(
                "--binary: {b:?}; expected ENGINE=PATH, e.g. rocksdb=/usr/bin/db_bench"
            ))
        })?;
        plan.engine.entry(name.to_string()).or_default().binary = Some(from_cwd(path));
    }
    let cells = matrix::expand(&plan);
    let mut engines: Vec<Engine> = plan
        .engines
        .iter()
        .map(|n| Engine::resolve(&plan, n, lsmlab_bin, plan_dir))
        .collect::<CliResult<_>>()?;
    for n in plan.optional_engines.clone() {
        match Engine::resolve(&plan, &n, lsmlab_bin, plan_dir) {
            Ok(e) => {
                engines.push(e);
                plan.engines.push(n);
            }
            Err(e) => eprintln!("optional {e}: the study runs without it"),
        }
    }
    if engines.is_empty() {
        return Err(CliError::new(
            "engines: none of the plan's engines can run here",
        ));
    }
    let engines = runnable::keep(&mut plan, engines, &cells, &mut |n| eprintln!("{n}"))?;
    let libraries: Vec<_> = engines.iter().map(|e| (e.name.clone(), e.driver)).collect();
    for note in crate::plan::vocabulary::missing_counters(&plan, &libraries) {
        eprintln!("note: {note}");
    }
    let keep = |c: usize| shard_arg.is_none_or(|s| s.has(c));
    let order = matrix::order(&cells, &plan.engines, plan.repetitions, seed, keep);
    // The plan and scale make a study; its repetitions may grow on --resume --repetitions N.
    let plan_hash = fingerprint(&[plan_text, scale_arg.as_deref().unwrap_or("")]);
    // Results directories written before the hash left repetitions out.
    let legacy_hash = fingerprint(&[
        plan_text,
        scale_arg.as_deref().unwrap_or(""),
        &plan.repetitions.to_string(),
    ]);
    let expanded = Expanded {
        plan_hash,
        title: plan.title.clone(),
        scale: scale_arg.clone(),
        seed,
        repetitions: plan.repetitions,
        engines: engines
            .iter()
            .map(|e| EngineRecord {
                name: e.name.clone(),
                binary: e.binary.clone(),
            })
            .collect(),
        axes: plan.matrix.keys().cloned().collect(),
        cells: cells.clone(),
        shard: shard_arg,
        order: order.iter().map(|k| k.id()).collect(),
        plan: plan.clone(),
        plan_dir: plan_dir.display().to_string(),
    };
    // With a load and no measured time per run, runs cost the steps after the load and each
    // load its own steps once.
    let given_per_run = scale_arg
        .as_deref()
        .and_then(|s| given.scale.get(s))
        .and_then(|s| s.seconds_per_run);
    let load_steps = plan.load.as_ref().map_or(0, |l| l.steps);
    let per_run =
        given_per_run.unwrap_or_else(|| guess_seconds(&plan, load_steps..plan.steps.len()));
    let per_load = match given_per_run {
        Some(_) => 0.0,
        None => guess_seconds(&plan, 0..load_steps),
    };
    Ok(Prepared {
        given,
        plan,
        cells,
        engines,
        order,
        seed,
        expanded,
        legacy_hash,
        per_run,
        per_load,
    })
}

/// `--dry-run`: what would run, in which order, and about how long it would take.
fn dry_run(args: &RunArgs, src: &Source, p: Prepared) -> CliResult<()> {
    let scale_arg = &src.scale;
    let Prepared {
        given,
        plan,
        cells,
        engines,
        order,
        seed,
        per_run,
        per_load,
        expanded,
        ..
    } = p;
    println!(
        "plan: {} (scale {}, {} repetitions, seed {seed})",
        plan.title,
        scale_arg.as_deref().unwrap_or("none"),
        plan.repetitions
    );
    for e in &engines {
        println!("engine {}: {}", e.name, e.binary);
    }
    println!("{} cells:", cells.len());
    for c in &cells {
        println!("  {} {}", c.id(), c.label());
    }
    if let Some(l) = &plan.load {
        let loads = load::Loads::new(&plan, &cells, &engines, &order)?;
        println!(
                "load: steps 0-{}, {} loads, built once each; every run starts from a copy of its cell's load{}",
                l.steps - 1,
                loads.count(),
                if l.skip_axes.is_empty() {
                    String::new()
                } else {
                    format!(" (the load leaves out {})", l.skip_axes.join(", "))
                }
            );
        let mut by_key: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
        for c in &cells {
            for e in &engines {
                if let Some(k) = loads.key_of(c.index, &e.name) {
                    by_key
                        .entry((k.to_string(), e.name.clone()))
                        .or_default()
                        .push(c.id());
                }
            }
        }
        for ((k, e), cs) in &by_key {
            println!("  load {k} {e}: {}", cs.join(" "));
        }
    }
    match &expanded.shard {
        Some(sh) => println!(
            "{} runs of shard {}/{} (its cells: every {}th from c{:03}) in this order:",
            order.len(),
            sh.index,
            sh.count,
            sh.count,
            sh.index
        ),
        None => println!("{} runs in this order:", order.len()),
    }
    for (i, k) in order.iter().enumerate() {
        println!("  {:>4} {}", i + 1, k.id());
    }
    if args.executor == Some(ExecutorKind::Slurm) {
        let batch: Vec<(usize, matrix::RunKey)> = order.iter().cloned().enumerate().collect();
        let tasks = groups::groups(&batch, &cells, &groups::links(&plan));
        println!(
            "--executor slurm: the plan's runs as one job array of {} tasks (the runs a claim pairs run in one task):",
            tasks.len()
        );
        for (i, t) in tasks.iter().enumerate() {
            println!(
                "  task {i}: {}",
                t.iter().map(|(_, k)| k.id()).collect::<Vec<_>>().join(" ")
            );
        }
    }
    let loads = load::Loads::new(&plan, &cells, &engines, &order)?.count();
    println!(
        "estimate: {:.0} s per run, {:.1} min in all{}",
        per_run,
        (per_run * order.len() as f64 + per_load * loads as f64) / 60.0,
        if given.scale.values().any(|s| s.seconds_per_run.is_some()) {
            ""
        } else {
            " (guessed from operation counts)"
        }
    );
    if let Some(b) = until_decided::budget(args, &src.dir, &plan, expanded.shard)? {
        println!(
            "then sequential rounds: one more repetition of the cells the open claims read, until every claim is decided, {}, or a cell has run {} times (--until-decided)",
            match b.wall_s {
                Some(w) => format!("the budget of {} (these runs included) is spent", sequential::duration(w)),
                None => "with no time limit".to_string(),
            },
            b.max_repetitions
        );
    }
    Ok(())
}

/// What the command line asks of the executor.
fn asked(args: &RunArgs) -> choice::Asked<'_> {
    let mut pass_on = Vec::new();
    if let Some(l) = &args.lsmlab {
        pass_on.push(format!("--lsmlab={}", l.display()));
    }
    for b in &args.binaries {
        pass_on.push(format!("--binary={b}"));
    }
    choice::Asked {
        kind: args.executor,
        slurm_opts: args.slurm_opts.as_deref(),
        pass_on,
    }
}

/// A task of the Slurm executor (`--run-ids`): the named runs of the study in `--resume DIR`,
/// here, one after another; nothing else (no rounds, no report: the controller makes those).
fn run_task(ids: &str, src: &Source, p: Prepared) -> CliResult<()> {
    let batch = slurm::parse_task_arg(ids)?;
    for (_, k) in &batch {
        if k.cell >= p.cells.len() || !p.engines.iter().any(|e| e.name == k.engine) {
            return Err(CliError::new(format!(
                "--run-ids: {} is not a run of the study in {}",
                k.id(),
                src.dir.display()
            )));
        }
    }
    let db_dir = runner::db_dir(&p.plan, &src.dir);
    let ctx = steps::Context {
        dir: &src.dir,
        db_dir: &db_dir,
        plan: &p.plan,
        cells: &p.cells,
        engines: &p.engines,
    };
    let mut progress = runner::Progress::new(batch.len(), 0);
    Local.run(&ctx, &batch, &mut progress)?;
    progress.close();
    Ok(())
}

/// Runs the study's runs that are not done yet, recording them in the results directory.
fn run_all(args: &RunArgs, src: &Source, p: Prepared) -> CliResult<()> {
    let (dir, plan_text) = (&src.dir, &src.plan_text);
    let Prepared {
        plan,
        cells,
        engines,
        order,
        expanded,
        legacy_hash,
        per_run,
        per_load,
        ..
    } = p;
    let budget = until_decided::budget(args, dir, &plan, expanded.shard)?;
    // Refused before the results directory is made.
    let mut executor = choice::choose(asked(args), dir, &plan, expanded.shard)?;
    std::fs::create_dir_all(dir.join("runs"))
        .map_err(|e| CliError::new(format!("{}: {e}", dir.display())))?;
    // A killed controller's jobs first: what they finish is done, and their databases are
    // theirs until then.
    executor.settle(dir)?;
    if let Ok(text) = std::fs::read_to_string(dir.join("plan.json")) {
        if let Ok(old) = serde_json::from_str::<Expanded>(&text) {
            if old.plan_hash != expanded.plan_hash && old.plan_hash != legacy_hash {
                return Err(CliError::new(format!(
                    "--out {}: holds results of another plan or scale; give a new directory",
                    dir.display()
                )));
            }
        }
    }
    results::write_atomic(&dir.join("plan.toml"), plan_text)?;
    results::write_atomic(&dir.join("plan.json"), &json(&expanded)?)?;
    let db_dir = runner::db_dir(&plan, dir);
    let versions: BTreeMap<String, String> = engines
        .iter()
        .map(|e| (e.name.clone(), engines::version_of(e)))
        .collect();
    let env = environment::Environment::collect(dir.as_path(), versions);
    write(&dir.join("environment.json"), &json(&env)?)?;
    for e in &engines {
        if e.kind == engines::Kind::Lsmlab
            && e.driver == lsmlab_drivers::engine::EngineKind::Lsmlab
            && args.lsmlab.is_none()
        {
            eprintln!("engine {}: {} (this program)", e.name, e.binary);
        } else {
            eprintln!(
                "engine {}: {} ({})",
                e.name,
                e.binary,
                env.engines.get(&e.name).map(String::as_str).unwrap_or("")
            );
        }
    }
    let ctx = steps::Context {
        dir,
        db_dir: &db_dir,
        plan: &plan,
        cells: &cells,
        engines: &engines,
    };
    let pending: Vec<(usize, &matrix::RunKey)> = order
        .iter()
        .enumerate()
        .filter(|(_, k)| results::finished(dir, &k.id()).is_none())
        .collect();
    let skipped = order.len() - pending.len();
    let loads = load::Loads::new(&plan, &cells, &engines, pending.iter().map(|(_, k)| *k))?;
    eprintln!(
        "{} runs ({} done before), about {:.1} min; results in {}",
        order.len(),
        skipped,
        (per_run * pending.len() as f64 + per_load * loads.count() as f64) / 60.0,
        dir.display()
    );
    runner::clear_stale_databases(&db_dir, &order);
    let batch: Vec<(usize, matrix::RunKey)> =
        pending.into_iter().map(|(i, k)| (i, k.clone())).collect();
    let mut progress = runner::Progress::new(order.len(), skipped);
    executor.run(&ctx, &batch, &mut progress)?;
    progress.close();
    if let Some(b) = budget {
        until_decided::rounds(&ctx, &expanded, b, per_run, executor.as_mut())?;
    }
    let _ = std::fs::remove_dir(&db_dir);
    Ok(())
}

/// What `finish` made of a results directory.
pub struct Finished {
    /// report.html.
    pub report: PathBuf,
    /// Runs that failed.
    pub failed_runs: usize,
    /// One line per claim that is not reproduced (see `verdicts::failures`).
    pub claim_failures: Vec<String>,
}

impl Finished {
    /// Prints the report's path; an error when runs failed, or, with `check_claims`, when a
    /// claim is not reproduced.
    pub fn conclude(&self, check_claims: bool) -> CliResult<()> {
        println!("{}", self.report.display());
        let mut why = Vec::new();
        if self.failed_runs > 0 {
            why.push(format!(
                "{} runs failed (their errors are in the report and runs/*/result.json)",
                self.failed_runs
            ));
        }
        if check_claims && !self.claim_failures.is_empty() {
            why.push(format!(
                "--check-claims: {}",
                self.claim_failures.join("; ")
            ));
        }
        if why.is_empty() {
            Ok(())
        } else {
            Err(CliError::new(why.join("; ")))
        }
    }
}

/// Writes runs.csv, summary and comparisons, claims, plots and the report; refuses a directory
/// with runs of its plan missing.
pub fn finish(dir: &Path) -> CliResult<Finished> {
    finish_allowing(dir, false)
}

/// `finish`, drawing a directory with runs missing when `allow_missing` (the report's setup
/// names them).
pub fn finish_allowing(dir: &Path, allow_missing: bool) -> CliResult<Finished> {
    let expanded: Expanded = read_expanded(dir)?;
    finish_with(dir, allow_missing, expanded)
}

fn read_expanded(dir: &Path) -> CliResult<Expanded> {
    serde_json::from_str(
        &std::fs::read_to_string(dir.join("plan.json")).map_err(|e| {
            CliError::new(format!("{}: not a results directory ({e})", dir.display()))
        })?,
    )
    .map_err(|e| CliError::new(format!("{}/plan.json: {e}", dir.display())))
}

/// `finish_allowing` with the plan `expanded` in place of the directory's own.
fn finish_with(dir: &Path, allow_missing: bool, expanded: Expanded) -> CliResult<Finished> {
    let env: environment::Environment = std::fs::read_to_string(dir.join("environment.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let records = results::load_all(dir)?;
    let missing = audit::check(dir, &expanded, &records)?;
    if !missing.is_empty() && !allow_missing {
        return Err(audit::missing_error(dir, &missing));
    }
    write(
        &dir.join("runs.csv"),
        &results::runs_csv(&records, &expanded.axes),
    )?;
    let summary = summary::summarize(&records);
    write(
        &dir.join("summary.csv"),
        &summary::summary_csv(&summary, &expanded.cells),
    )?;
    write(&dir.join("summary.json"), &json(&summary)?)?;
    let engine_names: Vec<String> = expanded.engines.iter().map(|e| e.name.clone()).collect();
    let compare = summary::compare(
        &records,
        &expanded.cells,
        &engine_names,
        &summary,
        expanded.plan.compare.as_deref(),
    );
    write(&dir.join("compare.csv"), &summary::compare_csv(&compare))?;
    let mut outcomes = verdicts::evaluate(
        &expanded.plan.claim,
        &expanded.cells,
        &engine_names,
        &records,
    );
    open_claims::annotate(
        &expanded.plan.claim,
        &expanded.cells,
        &records,
        &mut outcomes,
    );
    if !expanded.plan.claim.is_empty() {
        write(
            &dir.join("claims.csv"),
            &verdicts::claims_csv(&expanded.plan.claim, &outcomes),
        )?;
    }
    let input = document::Input {
        dir,
        expanded: &expanded,
        env: &env,
        records: &records,
        summary: &summary,
        compare: &compare,
        claims: &outcomes,
    };
    let report = document::write_all(&input)?;
    Ok(Finished {
        report,
        failed_runs: records.iter().filter(|r| r.status != "ok").count(),
        claim_failures: verdicts::failures(&expanded.plan.claim, &outcomes),
    })
}

/// `lsmlab report DIR [--plan EDITED.toml]`.
pub fn report_main(
    dir: &Path,
    check_claims: bool,
    allow_missing: bool,
    plan: Option<&Path>,
) -> CliResult<()> {
    let Some(path) = plan else {
        return finish_allowing(dir, allow_missing)?.conclude(check_claims);
    };
    let (x, text) = revised_plan(dir, path)?;
    let finished = finish_with(dir, allow_missing, x.clone())?;
    // Recorded last, once the report of it is written: a report that fails keeps the plan
    // the runs were made with. plan.json first, as `run --resume` reads it first.
    results::write_atomic(&dir.join("plan.json"), &json(&x)?)?;
    results::write_atomic(&dir.join("plan.toml"), &text)?;
    finished.conclude(check_claims)
}

/// `report --plan`: the edited plan checked against the one the runs were made with
/// (`revision::revise`), to be recorded in `plan.json` and `plan.toml` in its place, so a later
/// `report DIR` or `run --resume DIR` reads the same plan; and the edited plan's text.
fn revised_plan(dir: &Path, path: &Path) -> CliResult<(Expanded, String)> {
    let mut x = read_expanded(dir)?;
    let (edited, text) = Plan::load(path)?;
    x.plan = super::plan::revision::revise(&x.plan, &edited, x.scale.as_deref())
        .map_err(|e| CliError::new(format!("{}: {e}", path.display())))?;
    x.title = x.plan.title.clone();
    x.plan_hash = fingerprint(&[&text, x.scale.as_deref().unwrap_or("")]);
    Ok((x, text))
}

/// `lsmlab merge DIR... --out OUT`: built in `OUT.partial` and renamed to OUT once merged,
/// then reported; a merge or report that fails leaves no OUT (`staged_dir`).
pub fn merge_main(dirs: &[PathBuf], out: &Path, opts: merge::MergeOptions) -> CliResult<()> {
    let inputs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
    compare_inputs::refuse_inside("--out", out, &inputs)?;
    let staged = staged_dir::Staged::new(out)?;
    let opts_allow_missing = opts.allow_missing;
    let (record, warnings) = merge::merge(dirs, staged.path(), opts)?;
    for w in warnings {
        eprintln!("warning: {w}");
    }
    eprintln!(
        "merged {} runs from {} of {} shards, {} machine{}{}",
        record.runs,
        record.dirs.len(),
        record.shards,
        record.machines,
        if record.machines == 1 { "" } else { "s" },
        if record.missing.is_empty() {
            String::new()
        } else {
            format!("; {} runs missing", record.missing.len())
        }
    );
    // Reported in place, so the report names OUT, not the directory it was built in.
    let was_empty = staged.out_was_empty_dir();
    let out = staged.commit()?;
    match finish_allowing(&out, opts_allow_missing) {
        Ok(f) => f.conclude(false),
        Err(e) => {
            staged_dir::Staged::undo(&out, was_empty);
            Err(e)
        }
    }
}
