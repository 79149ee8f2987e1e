//! The runs of a results directory checked against its `plan.json` before anything is drawn
//! from them: each record's id, cell, engine and repetition consistent with each other and with
//! the plan (the rounds of `sequential.json` included), and the plan's runs that have no record
//! (missing), so a report never counts a run twice, makes up a cell, or draws a study with runs
//! gone without saying so.

use super::expanded::Expanded;
use super::results::{run_dir, RunRecord};
use super::sequential;
use crate::plan::matrix::RunKey;
use lsmlab_drivers::error::{CliError, CliResult};
use std::collections::BTreeSet;
use std::path::Path;

/// Refuses the first record of `records` (read from `dir`) that does not belong to the plan
/// of `x`, naming its file; returns the ids of the plan's runs that have no record, in run order.
pub fn check(dir: &Path, x: &Expanded, records: &[RunRecord]) -> CliResult<Vec<String>> {
    // A sequential study's rounds add runs beyond the plan's repetitions.
    let rounds = sequential::read(dir)?;
    let planned: BTreeSet<&str> = x
        .order
        .iter()
        .map(String::as_str)
        .chain(rounds.iter().flat_map(sequential::Record::run_ids))
        .collect();
    for r in records {
        let file = run_dir(dir, &r.id).join("result.json");
        let bad = |what: String| CliError::new(format!("{}: {what}", file.display()));
        if r.cell >= x.cells.len() {
            return Err(bad(format!(
                "cell {} is not a cell of plan.json (it has {})",
                r.cell,
                x.cells.len()
            )));
        }
        if !x.engines.iter().any(|e| e.name == r.engine) {
            return Err(bad(format!(
                "engine {:?} is not an engine of plan.json",
                r.engine
            )));
        }
        let key = RunKey {
            cell: r.cell,
            engine: r.engine.clone(),
            rep: r.rep,
        };
        if key.id() != r.id {
            return Err(bad(format!(
                "id {:?} does not match its cell {}, engine {} and repetition {} ({})",
                r.id,
                r.cell,
                r.engine,
                r.rep,
                key.id()
            )));
        }
        if !planned.contains(r.id.as_str()) {
            return Err(bad(format!("run {} is not a run of plan.json", r.id)));
        }
        if x.cells[r.cell].values != r.axes {
            return Err(bad(format!(
                "the axes of run {} differ from those of cell {} in plan.json",
                r.id, r.cell
            )));
        }
    }
    let present: BTreeSet<&str> = records.iter().map(|r| r.id.as_str()).collect();
    let mut seen = BTreeSet::new();
    Ok(x.order
        .iter()
        .map(String::as_str)
        .chain(rounds.iter().flat_map(sequential::Record::run_ids))
        .filter(|id| !present.contains(id) && seen.insert(*id))
        .map(str::to_string)
        .collect())
}

/// The one-line refusal of a directory whose runs `missing` are gone.
pub fn missing_error(dir: &Path, missing: &[String]) -> CliError {
    let shown: Vec<&str> = missing.iter().take(10).map(String::as_str).collect();
    let more = if missing.len() > shown.len() {
        format!(" and {} more", missing.len() - shown.len())
    } else {
        String::new()
    };
    CliError::new(format!(
        "{}: {} run{} of the plan {} missing: {}{more} (run `lsmlab run --resume` to finish them, or --allow-missing to draw without them)",
        dir.display(),
        missing.len(),
        if missing.len() == 1 { "" } else { "s" },
        if missing.len() == 1 { "is" } else { "are" },
        shown.join(", ")
    ))
}
