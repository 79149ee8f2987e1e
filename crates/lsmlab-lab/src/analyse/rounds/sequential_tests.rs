//! The round planner on synthetic runs: which runs a round adds, and each kind of stop.

use super::*;

/// Cells of `use_ribbon_filter` × `bloom_bits` (5, 10), as a plan would expand them.
fn cells() -> Vec<Cell> {
    let mut out = Vec::new();
    for bits in ["5", "10"] {
        for ribbon in ["false", "true"] {
            out.push(Cell {
                index: out.len(),
                values: vec![
                    ("bloom_bits".into(), bits.into()),
                    ("use_ribbon_filter".into(), ribbon.into()),
                ],
            });
        }
    }
    out
}

fn claim(text: &str) -> Claim {
    toml::from_str(&format!("quote = \"q\"\n{text}")).unwrap()
}

/// A counted figure, the same in every run: decided from two repetitions.
fn counted() -> Claim {
    claim("metric = \"bits\"\nrelation = \"smaller\"\nratio = { axis = \"use_ribbon_filter\", a = true, b = false }\nwhere = { bloom_bits = 5 }\n")
}

/// A timing "about equal within 0.1 %": open for a long time at a 10 % spread.
fn timing(tolerance: f64) -> Claim {
    claim(&format!("metric = \"ops\"\nrelation = \"about\"\ntolerance = {tolerance}\nratio = {{ axis = \"use_ribbon_filter\", a = true, b = false }}\nwhere = {{ bloom_bits = 10 }}\n"))
}

/// A spread of about ±10 %, different in every run, the same in every test.
fn noise(i: usize) -> f64 {
    1.0 + 0.2 * (((i * 7919 + 13) % 101) as f64 / 101.0 - 0.5)
}

/// `reps` repetitions of every cell on `engines`: bits 10 (Bloom) or 8.8 (Ribbon), ops noisy,
/// each run 2 s.
fn runs(reps: u32, engines: &[&str]) -> Vec<RunRecord> {
    let mut out = Vec::new();
    for rep in 0..reps {
        for c in cells() {
            for e in engines {
                let ribbon = c.get("use_ribbon_filter") == Some("true");
                let bits = if ribbon { 8.8 } else { 10.0 };
                let mut r = RunRecord::ok_for_test(c.index, c.values.clone(), e, rep, "bits", bits);
                r.metrics.insert("ops".into(), 1000.0 * noise(out.len()));
                r.metrics.insert("process.wall_s".into(), 2.0);
                out.push(r);
            }
        }
    }
    out
}

fn study<'a>(
    claims: &'a [Claim],
    cells: &'a [Cell],
    engines: &'a [String],
    records: &'a [RunRecord],
    budget: Budget,
) -> Study<'a> {
    Study {
        claims,
        cells,
        engines,
        records,
        budget,
        seed: 7,
        default_run_s: 10.0,
        last_round_failed: false,
    }
}

const ROOMY: Budget = Budget {
    wall_s: None,
    max_repetitions: 100_000,
};

fn lsmlab() -> Vec<String> {
    vec!["lsmlab".to_string()]
}

fn stop_of(n: Next) -> Stop {
    match n {
        Next::Stop(s) => s,
        Next::Round(r) => panic!("a round, not a stop: {r:?}"),
    }
}

fn round_of(n: Next) -> RoundPlan {
    match n {
        Next::Round(r) => r,
        Next::Stop(s) => panic!("a stop, not a round: {s:?}"),
    }
}

#[test]
fn a_round_repeats_both_sides_of_the_open_claims_pairs_and_nothing_else() {
    let (cells, engines) = (cells(), lsmlab());
    let claims = [counted(), timing(0.001)];
    let records = runs(3, &["lsmlab"]);
    let r = round_of(next(&study(&claims, &cells, &engines, &records, ROOMY)));
    assert_eq!(r.rep, 3, "a repetition number no run has yet");
    let mut got: Vec<(usize, u32)> = r.runs.iter().map(|k| (k.cell, k.rep)).collect();
    got.sort();
    // bloom_bits = 10: cells 2 (Bloom) and 3 (Ribbon); the decided counted claim's cells 0 and
    // 1 get nothing.
    assert_eq!(got, [(2, 3), (3, 3)]);
    assert_eq!((r.open, r.decided), (1, 1));
    assert!((r.seconds - 4.0).abs() < 1e-9, "{}", r.seconds);
    // The order is the runner's seeded order of that repetition, restricted to the round.
    let runner: Vec<RunKey> = matrix::order(&cells, &engines, 4, 7, |_| true)
        .into_iter()
        .filter(|k| k.rep == 3 && k.cell >= 2)
        .collect();
    assert_eq!(r.runs, runner);
}

#[test]
fn which_side_runs_first_changes_from_round_to_round() {
    let (cells, engines) = (cells(), lsmlab());
    let claims = [timing(0.001)];
    let records = runs(3, &["lsmlab"]);
    let s = study(&claims, &cells, &engines, &records, ROOMY);
    let pair: BTreeSet<(usize, String)> = [(2, "lsmlab".into()), (3, "lsmlab".into())].into();
    let mut firsts = BTreeSet::new();
    for rep in 3..15 {
        let order = round_order(&s, rep, &pair);
        assert_eq!(order.len(), 2);
        assert!(order.iter().all(|k| k.rep == rep));
        firsts.insert(order[0].cell);
    }
    assert_eq!(firsts.into_iter().collect::<Vec<_>>(), [2, 3]);
}

#[test]
fn an_engine_ratio_repeats_its_cells_on_both_engines() {
    let cells = cells();
    let engines = vec!["lsmlab".to_string(), "rocksdb".to_string()];
    let claims = [claim("metric = \"ops\"\nrelation = \"about\"\ntolerance = 0.001\nratio = { axis = \"engine\", a = \"lsmlab\", b = \"rocksdb\" }\nwhere = { bloom_bits = 5, use_ribbon_filter = true }\n")];
    let records = runs(4, &["lsmlab", "rocksdb"]);
    let r = round_of(next(&study(&claims, &cells, &engines, &records, ROOMY)));
    let mut got: Vec<(usize, String)> = r.runs.iter().map(|k| (k.cell, k.engine.clone())).collect();
    got.sort();
    assert_eq!(got, [(1, "lsmlab".into()), (1, "rocksdb".into())]);
}

#[test]
fn too_few_runs_to_project_still_get_a_round() {
    let (cells, engines) = (cells(), lsmlab());
    let claims = [timing(0.05)];
    // Two noisy repetitions give no interval yet: the need cannot be projected.
    let records = runs(2, &["lsmlab"]);
    let o = outcomes(&study(&claims, &cells, &engines, &records, ROOMY));
    assert_eq!(
        (o[0].verdict, o[0].more_repetitions),
        (Verdict::Inconclusive, None)
    );
    let r = round_of(next(&study(&claims, &cells, &engines, &records, ROOMY)));
    assert_eq!((r.rep, r.runs.len(), r.eta_s), (2, 2, None));
}

#[test]
fn every_claim_decided_stops() {
    let (cells, engines) = (cells(), lsmlab());
    let claims = [counted()];
    let records = runs(2, &["lsmlab"]);
    let s = stop_of(next(&study(&claims, &cells, &engines, &records, ROOMY)));
    assert_eq!(s.kind, StopKind::Decided);
    assert_eq!(s.reason, "every claim is decided (1 decided)");
    let s = stop_of(next(&study(&[], &cells, &engines, &records, ROOMY)));
    assert_eq!(
        (s.kind, s.reason.as_str()),
        (StopKind::Decided, "the plan has no claims to decide")
    );
}

#[test]
fn the_repetition_cap_stops() {
    let (cells, engines) = (cells(), lsmlab());
    let claims = [counted(), timing(0.001)];
    let records = runs(5, &["lsmlab"]);
    let cap = Budget {
        wall_s: None,
        max_repetitions: 5,
    };
    let s = stop_of(next(&study(&claims, &cells, &engines, &records, cap)));
    assert_eq!(s.kind, StopKind::Repetitions, "{}", s.reason);
    assert!(s.reason.contains("run 5 times"), "{}", s.reason);
}

#[test]
fn a_spent_budget_stops_before_a_round_that_would_not_fit() {
    let (cells, engines) = (cells(), lsmlab());
    let claims = [timing(0.001)];
    // 12 repetitions of 4 cells at 2 s: 96 s spent; a round of the 2 open cells takes 4 s.
    let records = runs(12, &["lsmlab"]);
    let budget = |wall| Budget {
        wall_s: Some(wall),
        max_repetitions: 100_000,
    };
    let s = stop_of(next(&study(
        &claims,
        &cells,
        &engines,
        &records,
        budget(99.0),
    )));
    assert_eq!(s.kind, StopKind::Budget, "{}", s.reason);
    assert!(
        s.reason
            .starts_with("the budget is spent: the runs took 96 s of 99 s"),
        "{}",
        s.reason
    );
    // Room for the round, but not for the projected need: out of reach.
    let s = stop_of(next(&study(
        &claims,
        &cells,
        &engines,
        &records,
        budget(101.0),
    )));
    assert_eq!(s.kind, StopKind::OutOfReach, "{}", s.reason);
}

#[test]
fn a_projected_need_beyond_what_is_left_stops_and_names_the_need() {
    let (cells, engines) = (cells(), lsmlab());
    let claims = [timing(0.05)];
    let records = runs(12, &["lsmlab"]);
    let o = outcomes(&study(&claims, &cells, &engines, &records, ROOMY));
    assert_eq!(o[0].verdict, Verdict::Inconclusive, "{:?}", o[0]);
    let need = o[0].more_repetitions.expect("a projection at n = 12");
    // The stop reads the low end of the spread's range: the fewest repetitions that might do.
    let fewest = o[0].fewest_repetitions.expect("a projection at n = 12");
    assert!(fewest <= need && fewest > 1, "{fewest} {need} {:?}", o[0]);
    assert!(
        o[0].note.contains("over the spread's 90 % range"),
        "{}",
        o[0].note
    );
    // Fewer repetitions left than even that: stop, naming the need.
    let cap = Budget {
        wall_s: None,
        max_repetitions: 12 + fewest as u32 - 1,
    };
    let s = stop_of(next(&study(&claims, &cells, &engines, &records, cap)));
    assert_eq!(s.kind, StopKind::OutOfReach, "{}", s.reason);
    assert!(
        s.reason.contains(&format!(
            "claim 1 on lsmlab needs ≈ {fewest} more repetitions"
        )),
        "{}",
        s.reason
    );
    // Exactly enough left: the round runs, with its projected end.
    let enough = Budget {
        wall_s: None,
        max_repetitions: 12 + fewest as u32,
    };
    let r = round_of(next(&study(&claims, &cells, &engines, &records, enough)));
    assert_eq!(r.eta_s, Some(fewest as f64 * 4.0));
}

#[test]
fn a_projection_from_fewer_than_ten_pairs_never_stops_a_study() {
    // Five repetitions: a projection exists, but from a spread of five pairs; the claim gets
    // rounds even when it projects past the cap, until it has ten pairs.
    let (cells, engines) = (cells(), lsmlab());
    let claims = [timing(0.001)];
    let records = runs(5, &["lsmlab"]);
    let o = outcomes(&study(&claims, &cells, &engines, &records, ROOMY));
    assert_eq!(o[0].verdict, Verdict::Inconclusive, "{:?}", o[0]);
    assert!(o[0].note.contains("trusted from 10"), "{}", o[0].note);
    let cap = Budget {
        wall_s: None,
        max_repetitions: 6,
    };
    let r = round_of(next(&study(&claims, &cells, &engines, &records, cap)));
    assert_eq!(r.rep, 5);
}

#[test]
fn an_exact_figure_on_its_threshold_is_decided_at_once() {
    // 1.000× exactly, n = 20: no effect (inside the smallest effect), not an open claim that
    // takes every round with "too few to measure the spread".
    let (cells, engines) = (cells(), lsmlab());
    let same = claim("metric = \"bits\"\nrelation = \"smaller\"\nratio = { axis = \"bloom_bits\", a = 5, b = 10 }\nwhere = { use_ribbon_filter = false }\n");
    let claims = [same];
    let records = runs(20, &["lsmlab"]);
    let o = outcomes(&study(&claims, &cells, &engines, &records, ROOMY));
    assert_eq!(
        (o[0].verdict, o[0].estimate),
        (Verdict::NoEffect, 1.0),
        "{:?}",
        o[0]
    );
    let s = stop_of(next(&study(&claims, &cells, &engines, &records, ROOMY)));
    assert_eq!(s.kind, StopKind::Decided, "{}", s.reason);
}

#[test]
fn claims_whose_runs_failed_stop_failing_not_decided() {
    let (cells, engines) = (cells(), lsmlab());
    let claims = [counted()];
    let mut records = runs(2, &["lsmlab"]);
    for r in &mut records {
        r.status = "failed".into();
        r.error = "exit status 1".into();
        r.metrics.clear();
    }
    let o = outcomes(&study(&claims, &cells, &engines, &records, ROOMY));
    assert_eq!(o[0].verdict, Verdict::RunsFailed, "{:?}", o[0]);
    let s = stop_of(next(&study(&claims, &cells, &engines, &records, ROOMY)));
    assert_eq!(s.kind, StopKind::Failing, "{}", s.reason);
}

#[test]
fn a_claim_whose_need_does_not_fit_gets_no_runs_while_another_does() {
    let (cells, engines) = (cells(), lsmlab());
    // Claim 1 (about equal, a noisy ratio) needs many repetitions; claim 2 (a metric near its
    // threshold) a few.
    let near = claim("metric = \"ops\"\nrelation = \"greater\"\nthan = 900\nwhere = { bloom_bits = 5, use_ribbon_filter = false }\n");
    let claims = [timing(0.001), near];
    let records = runs(12, &["lsmlab"]);
    let o = outcomes(&study(&claims, &cells, &engines, &records, ROOMY));
    let open: Vec<_> = o
        .iter()
        .filter(|o| o.verdict == Verdict::Inconclusive)
        .collect();
    assert_eq!(open.len(), 2, "{o:?}");
    let (far, close) = (
        open[0].fewest_repetitions.unwrap(),
        open[1].fewest_repetitions.unwrap(),
    );
    assert!(close < far, "{close} {far}");
    let cap = Budget {
        wall_s: None,
        max_repetitions: 12 + close as u32,
    };
    let r = round_of(next(&study(&claims, &cells, &engines, &records, cap)));
    let got: Vec<usize> = r.runs.iter().map(|k| k.cell).collect();
    assert_eq!(got, [0], "only the claim that fits gets a run");
}

#[test]
fn a_round_whose_runs_all_failed_stops() {
    let (cells, engines) = (cells(), lsmlab());
    let claims = [timing(0.001)];
    let records = runs(3, &["lsmlab"]);
    let mut s = study(&claims, &cells, &engines, &records, ROOMY);
    s.last_round_failed = true;
    assert_eq!(stop_of(next(&s)).kind, StopKind::Failing);
}

#[test]
fn an_every_case_claim_repeats_only_its_open_cases() {
    // "Ribbon's m is smaller in every case": at 5 bits it is half of Bloom's in every run
    // (decided), at 10 bits 1 % apart under ±10 % noise (open).
    let (cells, engines) = (cells(), lsmlab());
    let claims = [claim("metric = \"m\"\nrelation = \"smaller\"\nratio = { axis = \"use_ribbon_filter\", a = true, b = false }\nevery = true\n")];
    let mut records = runs(3, &["lsmlab"]);
    for (i, r) in records.iter_mut().enumerate() {
        let ribbon = r.cell % 2 == 1;
        let m = match (r.cell < 2, ribbon) {
            (true, false) => 10.0,
            (true, true) => 5.0,
            (false, false) => 1000.0 * noise(i),
            (false, true) => 990.0 * noise(i * i * 37 + 17),
        };
        r.metrics.insert("m".into(), m);
    }
    let s = study(&claims, &cells, &engines, &records, ROOMY);
    let o = outcomes(&s);
    assert_eq!(o[0].verdict, Verdict::Inconclusive, "{:?}", o[0]);
    assert_eq!(o[0].open_cells, [2, 3], "{}", o[0].figure);
    let r = round_of(next(&s));
    let mut got: Vec<usize> = r.runs.iter().map(|k| k.cell).collect();
    got.sort();
    assert_eq!(got, [2, 3], "the decided case (cells 0 and 1) gets no run");
}
