//! The round planner of a sequential study (`lsmlab run --until-decided`): after the runs so
//! far, which runs the next round adds, or why the study stops.
//!
//! Every claim is decided by the real verdict code (`verdicts`), whose intervals are
//! anytime-valid, so looking after every round keeps each verdict's 5 % error. A round is one
//! new repetition — a repetition number no run has yet, so that both sides of every pair run
//! in it and pair — of the runs the still-open claims read, in the seeded order the runner
//! gives that repetition. A claim whose projected need (`open_claims`: "needs ≈ N more") does
//! not fit in what the budget leaves gets no more runs; the study stops when no claim is open,
//! when the next round would not fit in the wall time left, when the cells have run
//! `max_repetitions` times, when no open claim's need fits, or when a round's runs all failed.

use crate::analyse::claims::open_claims::{self, OUT_OF_REACH, TRUSTED_N};
use crate::analyse::claims::verdicts::{self, matches, Outcome, Verdict};
use crate::plan::budget::Budget;
use crate::plan::claims::Claim;
use crate::plan::matrix::{self, Cell, RunKey};
use crate::run::records::results::RunRecord;
use crate::run::records::sequential::{Stop, StopKind};
use crate::text::value_text;
use std::collections::{BTreeMap, BTreeSet};

/// What the planner reads: the study's claims, cells and engines, its runs so far, and the
/// limits.
pub struct Study<'a> {
    /// The plan's claims.
    pub claims: &'a [Claim],
    /// Every cell of the study.
    pub cells: &'a [Cell],
    /// The engines that run.
    pub engines: &'a [String],
    /// Every run so far.
    pub records: &'a [RunRecord],
    /// The limits.
    pub budget: Budget,
    /// The seed of the run order.
    pub seed: u64,
    /// Seconds a run takes when no run has recorded its time yet.
    pub default_run_s: f64,
    /// The last round's runs all failed.
    pub last_round_failed: bool,
}

/// The next round.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundPlan {
    /// Its repetition number.
    pub rep: u32,
    /// Its runs, in the order they run.
    pub runs: Vec<RunKey>,
    /// Claims (per engine) open and decided now.
    pub open: usize,
    /// See `open`.
    pub decided: usize,
    /// The round's estimated seconds.
    pub seconds: f64,
    /// Estimated seconds until the claims that get runs are decided (projected, within the
    /// budget); `None` while a claim has too few runs to project.
    pub eta_s: Option<f64>,
}

/// A round to run, or the stop.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Run these runs, then plan again.
    Round(RoundPlan),
    /// Stop adding runs.
    Stop(Stop),
}

/// What deciding one open outcome would take.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Need {
    /// About this many more repetitions.
    Repetitions(usize),
    /// Too few runs to project.
    Unknown,
    /// Beyond any budget (or no run can help).
    Never,
}

/// An open claim on one engine, what it reads and what it needs.
struct OpenClaim<'o> {
    outcome: &'o Outcome,
    runs: BTreeSet<(usize, String)>,
    /// Seconds of one repetition of its runs.
    cost_s: f64,
    need: Need,
}

impl OpenClaim<'_> {
    fn label(&self) -> String {
        format!(
            "claim {} on {}",
            self.outcome.claim + 1,
            self.outcome.engine
        )
    }

    fn need_text(&self) -> String {
        match self.need {
            Need::Repetitions(r) => format!(
                "needs ≈ {r} more repetitions (≈ {})",
                duration(r as f64 * self.cost_s)
            ),
            Need::Unknown => "too few runs to project".into(),
            Need::Never if self.runs.is_empty() => "no runs to repeat".into(),
            Need::Never => OUT_OF_REACH.into(),
        }
    }
}

/// `95 s`, `12 min`, `3.4 h`.
pub fn duration(seconds: f64) -> String {
    if !seconds.is_finite() {
        "?".into()
    } else if seconds < 120.0 {
        format!("{seconds:.0} s")
    } else if seconds < 7200.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

/// The cell equal to `c` but for `axis` = `value`.
fn partner<'c>(cells: &'c [Cell], c: &Cell, axis: &str, value: &str) -> Option<&'c Cell> {
    cells.iter().find(|o| {
        o.values.len() == c.values.len()
            && o.values
                .iter()
                .zip(&c.values)
                .all(|((k, x), (_, y))| if k == axis { x == value } else { x == y })
    })
}

/// The (cell, engine) runs an outcome is decided on: both sides of every pair of a ratio; of an
/// "in every case" claim, only the cells of the cases still open.
fn runs_read(claim: &Claim, o: &Outcome, cells: &[Cell]) -> BTreeSet<(usize, String)> {
    let chosen = cells.iter().filter(|c| {
        matches(c, &claim.cells) && (o.open_cells.is_empty() || o.open_cells.contains(&c.index))
    });
    let mut out = BTreeSet::new();
    match &claim.ratio {
        Some(r) if r.axis == "engine" => {
            for c in chosen {
                out.insert((c.index, value_text(&r.a)));
                out.insert((c.index, value_text(&r.b)));
            }
        }
        Some(r) => {
            let (a, b) = (value_text(&r.a), value_text(&r.b));
            for c in chosen.filter(|c| c.get(&r.axis) == Some(a.as_str())) {
                if let Some(p) = partner(cells, c, &r.axis, &b) {
                    out.insert((c.index, o.engine.clone()));
                    out.insert((p.index, o.engine.clone()));
                }
            }
        }
        None => {
            for c in chosen {
                out.insert((c.index, o.engine.clone()));
            }
        }
    }
    out
}

/// Mean recorded seconds of each (cell, engine), and of all runs; and the seconds spent.
struct Times {
    by_run: BTreeMap<(usize, String), (f64, usize)>,
    mean: f64,
    spent: f64,
}

impl Times {
    fn of(records: &[RunRecord], default_run_s: f64) -> Times {
        let mut by_run: BTreeMap<(usize, String), (f64, usize)> = BTreeMap::new();
        let (mut spent, mut n) = (0.0, 0usize);
        for r in records {
            if let Some(w) = r.metrics.get("process.wall_s").filter(|w| w.is_finite()) {
                let e = by_run.entry((r.cell, r.engine.clone())).or_default();
                e.0 += w;
                e.1 += 1;
                spent += w;
                n += 1;
            }
        }
        let mean = if n > 0 {
            spent / n as f64
        } else {
            default_run_s
        };
        Times {
            by_run,
            mean,
            spent,
        }
    }

    fn run(&self, key: &(usize, String)) -> f64 {
        match self.by_run.get(key) {
            Some((s, n)) if *n > 0 => s / *n as f64,
            _ => self.mean,
        }
    }
}

/// What an open outcome needs. Below `TRUSTED_N` values its projection rests on a spread from
/// too few runs to stop on (unknown: it gets runs); from there, the fewest repetitions the
/// spread's 90 % range allows, so a study stops "out of reach" only when even the optimistic
/// projection does not fit.
fn need_of(o: &Outcome, runs: &BTreeSet<(usize, String)>) -> Need {
    if runs.is_empty() {
        return Need::Never;
    }
    if o.n < TRUSTED_N {
        return Need::Unknown;
    }
    if o.note.contains(OUT_OF_REACH) {
        return Need::Never;
    }
    match (o.fewest_repetitions, o.more_repetitions) {
        (Some(r), _) | (None, Some(r)) => Need::Repetitions(r),
        (None, None) => Need::Unknown,
    }
}

/// The verdicts of the runs so far, with their notes (what `finish` writes into claims.csv).
pub fn outcomes(s: &Study) -> Vec<Outcome> {
    let mut out = verdicts::evaluate(s.claims, s.cells, s.engines, s.records);
    open_claims::annotate(s.claims, s.cells, s.records, &mut out);
    out
}

/// The next round of `s`, or why it stops.
pub fn next(s: &Study) -> Next {
    let outcomes = outcomes(s);
    let times = Times::of(s.records, s.default_run_s);
    let open: Vec<OpenClaim> = outcomes
        .iter()
        .filter(|o| o.verdict == Verdict::Inconclusive)
        .filter_map(|o| {
            let claim = s.claims.get(o.claim)?;
            let runs = runs_read(claim, o, s.cells);
            let cost_s = runs.iter().map(|k| times.run(k)).sum();
            let need = need_of(o, &runs);
            Some(OpenClaim {
                outcome: o,
                runs,
                cost_s,
                need,
            })
        })
        .collect();
    let no_data = outcomes
        .iter()
        .filter(|o| o.verdict == Verdict::NoData)
        .count();
    let failed = outcomes
        .iter()
        .filter(|o| o.verdict == Verdict::RunsFailed)
        .count();
    let decided = outcomes.len() - open.len() - no_data - failed;
    let stop = |kind, reason| Next::Stop(Stop { kind, reason });
    if outcomes.is_empty() {
        return stop(StopKind::Decided, "the plan has no claims to decide".into());
    }
    if open.is_empty() && failed > 0 {
        return stop(
            StopKind::Failing,
            format!(
                "{failed} claims have no figure because their runs failed (their errors are in the report); {decided} decided"
            ),
        );
    }
    if open.is_empty() {
        let na = if no_data > 0 {
            format!(", {no_data} n/a (no figure: more runs cannot give one)")
        } else {
            String::new()
        };
        return stop(
            StopKind::Decided,
            format!("every claim is decided ({decided} decided{na})"),
        );
    }
    if s.last_round_failed {
        return stop(
            StopKind::Failing,
            format!(
                "every run of the last round failed (their errors are in the report); {} claims still open",
                open.len()
            ),
        );
    }
    let rep = s.records.iter().map(|r| r.rep + 1).max().unwrap_or(0);
    if rep >= s.budget.max_repetitions {
        return stop(
            StopKind::Repetitions,
            format!(
                "the open claims' cells have run {} times (max_repetitions); {} claims still open",
                s.budget.max_repetitions,
                open.len()
            ),
        );
    }
    let reps_left = (s.budget.max_repetitions - rep) as usize;
    let left_s = s.budget.wall_s.map(|w| w - times.spent);
    let cheapest = open.iter().map(|c| c.cost_s).fold(f64::INFINITY, f64::min);
    if let (Some(left), Some(wall)) = (left_s, s.budget.wall_s) {
        if left < cheapest {
            return stop(
                StopKind::Budget,
                format!(
                    "the budget is spent: the runs took {} of {}, and the cheapest open claim's next repetition takes ≈ {}; {} claims still open",
                    duration(times.spent),
                    duration(wall),
                    duration(cheapest),
                    open.len()
                ),
            );
        }
    }
    let room = left_s.unwrap_or(f64::INFINITY);
    let fits = |c: &&OpenClaim| {
        c.cost_s <= room
            && match c.need {
                Need::Repetitions(r) => r <= reps_left && r as f64 * c.cost_s <= room,
                Need::Unknown => true,
                Need::Never => false,
            }
    };
    let mut chosen: Vec<&OpenClaim> = open.iter().filter(fits).collect();
    if chosen.is_empty() {
        let left = match left_s {
            Some(l) => format!("{reps_left} more repetitions and {}", duration(l)),
            None => format!("{reps_left} more repetitions"),
        };
        let needs: Vec<String> = open
            .iter()
            .map(|c| format!("{} {}", c.label(), c.need_text()))
            .collect();
        return stop(
            StopKind::OutOfReach,
            format!(
                "no open claim can be decided in what is left ({left}): {}",
                needs.join("; ")
            ),
        );
    }
    // The claims nearest a decision first, while their runs fit in the time left.
    chosen.sort_by_key(|c| match c.need {
        Need::Unknown => 0,
        Need::Repetitions(r) => r,
        Need::Never => usize::MAX,
    });
    let mut wanted: BTreeSet<(usize, String)> = BTreeSet::new();
    let mut eta_reps = Some(0usize);
    for c in chosen {
        let mut with = wanted.clone();
        with.extend(c.runs.iter().cloned());
        if with.iter().map(|k| times.run(k)).sum::<f64>() > room {
            continue;
        }
        wanted = with;
        eta_reps = match (eta_reps, c.need) {
            (Some(e), Need::Repetitions(r)) => Some(e.max(r)),
            _ => None,
        };
    }
    let seconds: f64 = wanted.iter().map(|k| times.run(k)).sum();
    Next::Round(RoundPlan {
        rep,
        runs: round_order(s, rep, &wanted),
        open: open.len(),
        decided,
        seconds,
        eta_s: eta_reps.map(|r| (r as f64 * seconds).min(room)),
    })
}

/// The `wanted` runs in repetition `rep`'s order as the runner gives it (the plan's seeded
/// shuffle of that repetition), so which side of a pair runs first changes from round to round.
fn round_order(s: &Study, rep: u32, wanted: &BTreeSet<(usize, String)>) -> Vec<RunKey> {
    let in_round: BTreeSet<usize> = wanted.iter().map(|(c, _)| *c).collect();
    matrix::order(s.cells, s.engines, rep + 1, s.seed, |c| {
        in_round.contains(&c)
    })
    .into_iter()
    .filter(|k| k.rep == rep && wanted.contains(&(k.cell, k.engine.clone())))
    .collect()
}

#[cfg(test)]
#[path = "sequential_tests.rs"]
mod tests;
