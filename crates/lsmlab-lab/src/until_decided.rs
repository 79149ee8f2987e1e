//! `lsmlab run --until-decided` (or a plan's `[budget]`): after the plan's own repetitions,
//! rounds of one more repetition of the cells the still-open claims read, planned by
//! `analyse::sequential` and run by `run::runner`, until a stop. A driver like `commands`: it
//! uses the run and analyse stages, and `commands` calls it.
//!
//! The rounds are recorded in `sequential.json` (`run::sequential`) before they run, so a
//! killed study's `--resume` finishes the round it was in and goes on with the same limits.
//! Each batch of runs (an unfinished round, then each new round) goes to the study's executor
//! (`run::executor`): here, or as Slurm job arrays. A sharded study runs no rounds: a claim's
//! cells lie on several shards, so no shard alone can decide it; `--executor slurm` runs the
//! whole study's rounds on a cluster instead.

use super::plan::budget::{parse_duration, Budget, DEFAULT_MAX_REPETITIONS};
use super::plan::matrix::RunKey;
use super::plan::spec::Plan;
use super::run::executor::Executor;
use super::run::records::results;
use super::run::runner;
use super::run::steps::Context;
use crate::analyse::rounds::sequential::{self as planner, duration, Next, RoundPlan, Study};
use crate::args::RunArgs;
use crate::run::records::expanded::Expanded;
use crate::run::records::sequential::{self, Record, Round, Stop};
use crate::run::records::shard::Shard;
use lsmlab_drivers::error::{CliError, CliResult};
use std::path::Path;

/// The limits the study's rounds run under, or `None` when it runs the plan's repetitions
/// only: the command line's (`--budget` and `--max-repetitions` imply `--until-decided`), else
/// those a resumed study recorded, else the plan's `[budget]`.
pub fn budget(
    args: &RunArgs,
    dir: &Path,
    plan: &Plan,
    shard: Option<Shard>,
) -> CliResult<Option<Budget>> {
    let asked = args.until_decided || args.budget.is_some() || args.max_repetitions.is_some();
    if let Some(s) = shard {
        if asked {
            return Err(CliError::new(format!(
                "--until-decided: not with shard {}/{} (a claim's cells lie on several shards, so no shard can decide it alone); run the study with `--executor slurm` instead (its rounds run as Slurm jobs), or run the shards with the plan's repetitions, `lsmlab merge` them, then `lsmlab run --resume MERGED --until-decided`",
                s.index, s.count
            )));
        }
        if plan.budget.as_ref().and_then(|b| b.budget()).is_some() {
            eprintln!(
                "budget: shard {}/{} runs the plan's repetitions only; the plan's sequential rounds run on the merged directory (`lsmlab run --resume MERGED`)",
                s.index, s.count
            );
        }
        return Ok(None);
    }
    let recorded = sequential::read(dir)?.map(|r| r.budget);
    let planned = plan.budget.as_ref().and_then(|b| b.budget());
    let Some(mut b) = recorded.or(planned).or(asked.then_some(Budget {
        wall_s: None,
        max_repetitions: DEFAULT_MAX_REPETITIONS,
    })) else {
        return Ok(None);
    };
    if let Some(w) = &args.budget {
        b.wall_s = Some(parse_duration(w).map_err(|e| CliError::new(format!("--budget: {e}")))?);
    }
    if let Some(m) = args.max_repetitions {
        b.max_repetitions = m;
    }
    if b.max_repetitions < plan.repetitions {
        return Err(CliError::new(format!(
            "--max-repetitions: {} is below the study's {} repetitions; allowed {} or more",
            b.max_repetitions, plan.repetitions, plan.repetitions
        )));
    }
    Ok(Some(b))
}

/// Runs rounds until a stop, which it records, prints and returns.
pub fn rounds(
    ctx: &Context,
    x: &Expanded,
    budget: Budget,
    per_run: f64,
    executor: &mut dyn Executor,
) -> CliResult<Stop> {
    let mut record = sequential::read(ctx.dir)?.unwrap_or_else(|| Record::new(budget));
    record.budget = budget;
    record.stop = None;
    sequential::write(ctx.dir, &record)?;
    let mut order = x.order.len() + record.run_ids().count();
    // A killed study's round first: its runs not finished (or failed) run again.
    let unfinished: Vec<RunKey> = record
        .run_ids()
        .filter(|id| results::finished(ctx.dir, id).is_none())
        .filter_map(sequential::key_of)
        .collect();
    if !unfinished.is_empty() {
        eprintln!(
            "until decided: finishing {} runs of round {}",
            unfinished.len(),
            record.rounds.len()
        );
        run_keys(ctx, executor, &unfinished, order, "the unfinished round")?;
    }
    let engines: Vec<String> = x.engines.iter().map(|e| e.name.clone()).collect();
    loop {
        let records = results::load_all(ctx.dir)?;
        let last_round_failed = record.rounds.last().is_some_and(|r| {
            !r.runs.is_empty()
                && r.runs
                    .iter()
                    .all(|id| records.iter().any(|x| x.id == *id && x.status != "ok"))
        });
        let study = Study {
            claims: &x.plan.claim,
            cells: ctx.cells,
            engines: &engines,
            records: &records,
            budget,
            seed: x.seed,
            default_run_s: per_run,
            last_round_failed,
        };
        let plan = match planner::next(&study) {
            Next::Stop(stop) => {
                eprintln!(
                    "until decided: stopped ({}): {}",
                    stop.kind.name(),
                    stop.reason
                );
                record.stop = Some(stop.clone());
                sequential::write(ctx.dir, &record)?;
                return Ok(stop);
            }
            Next::Round(p) => p,
        };
        record.rounds.push(Round {
            rep: plan.rep,
            runs: plan.runs.iter().map(RunKey::id).collect(),
            open: plan.open,
            decided: plan.decided,
        });
        sequential::write(ctx.dir, &record)?;
        let header = round_header(record.rounds.len(), &plan, &budget);
        run_keys(ctx, executor, &plan.runs, order, &header)?;
        order += plan.runs.len();
    }
}

/// `round 2 (repetition 5): 3 of 5 claims decided, 2 open; 4 runs, ≈ 40 s; ETA ≈ 6 min …`.
fn round_header(n: usize, p: &RoundPlan, b: &Budget) -> String {
    let eta = match p.eta_s {
        Some(s) => format!("ETA ≈ {} (projected)", duration(s)),
        None => "ETA unknown until the open claims have 10 pairs (a projection from fewer is not trusted)".into(),
    };
    let cap = format!("at most {} repetitions", b.max_repetitions);
    format!(
        "round {n} (repetition {}): {} of {} claims decided, {} open; {} runs, ≈ {}; {eta}; {cap}",
        p.rep + 1,
        p.decided,
        p.decided + p.open,
        p.open,
        p.runs.len(),
        duration(p.seconds),
    )
}

/// Runs `keys` as ordinary runs (`order` the position of the first) on `executor`, with a
/// bar on a terminal and a line per run otherwise.
fn run_keys(
    ctx: &Context,
    executor: &mut dyn Executor,
    keys: &[RunKey],
    order: usize,
    header: &str,
) -> CliResult<()> {
    eprintln!("until decided: {header}");
    let batch: Vec<(usize, RunKey)> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (order + i, k.clone()))
        .collect();
    let mut progress = runner::Progress::new(keys.len(), 0);
    executor.run(ctx, &batch, &mut progress)?;
    progress.close();
    Ok(())
}
