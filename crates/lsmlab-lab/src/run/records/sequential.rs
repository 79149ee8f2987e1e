//! `sequential.json`: the record of a sequential study's rounds (`lsmlab run --until-decided`).
//!
//! A round's runs are ordinary runs with repetition numbers beyond the plan's; the record names
//! them before they start, so that a killed study's `--resume` finishes the round, the report
//! counts its runs as the plan's (`audit`), and the limits the study was started with hold on
//! resume. It also holds why the rounds stopped.

use super::results::write_atomic;
use crate::plan::budget::Budget;
use crate::plan::matrix::RunKey;
use lsmlab_drivers::error::{CliError, CliResult};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The file in a results directory.
pub const FILE: &str = "sequential.json";

/// Why a sequential study stopped adding rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopKind {
    /// No claim is open any more.
    Decided,
    /// The next round would not fit in the wall-time budget.
    Budget,
    /// The cells of the open claims have run `max_repetitions` times.
    Repetitions,
    /// Every open claim's projected need exceeds what the budget leaves.
    OutOfReach,
    /// Every run of the last round failed: more rounds would fail alike.
    Failing,
}

impl StopKind {
    /// As printed and in the report's setup.
    pub fn name(self) -> &'static str {
        match self {
            StopKind::Decided => "decided",
            StopKind::Budget => "budget",
            StopKind::Repetitions => "repetitions",
            StopKind::OutOfReach => "out-of-reach",
            StopKind::Failing => "failing",
        }
    }
}

/// A stop and its reason in words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stop {
    /// The kind of stop.
    pub kind: StopKind,
    /// The reason, with the figures behind it.
    pub reason: String,
}

/// One round: a repetition of the cells the open claims read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Round {
    /// Its repetition number (every run of the round has it, so that its pairs pair).
    pub rep: u32,
    /// Its runs' ids, in the order they run.
    pub runs: Vec<String>,
    /// Claims (per engine) open and decided when the round was planned.
    pub open: usize,
    /// See `open`.
    pub decided: usize,
}

/// `sequential.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The limits the study runs under.
    pub budget: Budget,
    /// The rounds planned, in order; the last may be unfinished.
    pub rounds: Vec<Round>,
    /// Why the rounds stopped; `None` while they go on.
    pub stop: Option<Stop>,
}

impl Record {
    /// A record of no rounds yet.
    pub fn new(budget: Budget) -> Record {
        Record {
            budget,
            rounds: Vec::new(),
            stop: None,
        }
    }

    /// Every run id the rounds planned.
    pub fn run_ids(&self) -> impl Iterator<Item = &str> {
        self.rounds
            .iter()
            .flat_map(|r| r.runs.iter().map(String::as_str))
    }
}

/// The report's setup row of a sequential study: its rounds, limits and stop.
pub fn setup_row(dir: &Path) -> Option<(String, String)> {
    let r = read(dir).ok()??;
    let runs = r.run_ids().count();
    let reps = match (r.rounds.first(), r.rounds.last()) {
        (Some(a), Some(b)) if a.rep == b.rep => format!(" (repetition {})", a.rep + 1),
        (Some(a), Some(b)) => format!(" (repetitions {}–{})", a.rep + 1, b.rep + 1),
        _ => String::new(),
    };
    let wall = r
        .budget
        .wall_s
        .map_or("no wall-time limit".to_string(), |w| {
            format!("wall time {:.0} min", w / 60.0)
        });
    let stop = match &r.stop {
        Some(s) => format!("stopped ({}): {}", s.kind.name(), s.reason),
        None => "not stopped yet (the study was interrupted; `lsmlab run --resume` goes on)".into(),
    };
    Some((
        "until decided".into(),
        format!(
            "{} rounds{reps}, {runs} runs added to the cells of open claims; budget: {wall}, at most {} repetitions; {stop}",
            r.rounds.len(),
            r.budget.max_repetitions
        ),
    ))
}

/// The run an id names (`c003-rocksdb-r12`: cell 3, engine rocksdb, repetition 12).
pub fn key_of(id: &str) -> Option<RunKey> {
    let (head, rep) = id.rsplit_once("-r")?;
    let (cell, engine) = head.strip_prefix('c')?.split_once('-')?;
    let key = RunKey {
        cell: cell.parse().ok()?,
        engine: engine.to_string(),
        rep: rep.parse().ok()?,
    };
    (key.id() == id && !key.engine.is_empty()).then_some(key)
}

/// The record of `dir`, if the study there ran sequentially; an unreadable record is an error
/// naming the file (its runs would otherwise be taken for runs of no plan).
pub fn read(dir: &Path) -> CliResult<Option<Record>> {
    let path = dir.join(FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(CliError::new(format!("{}: {e}", path.display()))),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| CliError::new(format!("{}: {e}", path.display())))
}

/// Writes the record whole or not at all (a kill leaves the previous one).
pub fn write(dir: &Path, record: &Record) -> CliResult<()> {
    let text =
        serde_json::to_string_pretty(record).map_err(|e| CliError::new(format!("{FILE}: {e}")))?;
    write_atomic(&dir.join(FILE), &text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_id_gives_back_its_key() {
        let k = key_of("c003-lsmlab-rocksdb-r12").unwrap();
        assert_eq!(
            (k.cell, k.engine.as_str(), k.rep),
            (3, "lsmlab-rocksdb", 12)
        );
        for bad in [
            "",
            "c003",
            "x003-lsmlab-r1",
            "c003-lsmlab-rx",
            "c3-lsmlab-r1",
            "c003--r1",
        ] {
            assert_eq!(key_of(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_record_survives_a_round_trip_and_a_damaged_one_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(read(tmp.path()).unwrap(), None);
        let mut r = Record::new(Budget {
            wall_s: Some(600.0),
            max_repetitions: 9,
        });
        r.rounds.push(Round {
            rep: 3,
            runs: vec!["c000-lsmlab-r3".into(), "c001-lsmlab-r3".into()],
            open: 1,
            decided: 4,
        });
        r.stop = Some(Stop {
            kind: StopKind::OutOfReach,
            reason: "why".into(),
        });
        write(tmp.path(), &r).unwrap();
        assert_eq!(read(tmp.path()).unwrap(), Some(r.clone()));
        assert_eq!(
            r.run_ids().collect::<Vec<_>>(),
            ["c000-lsmlab-r3", "c001-lsmlab-r3"]
        );
        let text = std::fs::read_to_string(tmp.path().join(FILE)).unwrap();
        assert!(text.contains("\"out-of-reach\""), "{text}");
        std::fs::write(tmp.path().join(FILE), "{").unwrap();
        let e = read(tmp.path()).unwrap_err().to_string();
        assert!(e.contains("sequential.json"), "{e}");
    }
}
