//! Failed runs named failed: a claim with no figure because the runs it reads failed is
//! *runs failed*, not *n/a*. "n/a" says the engine produced no such figure; more runs of the
//! same kind cannot give one either, but the reason (the runs' errors) is another, and a
//! sequential study that meets it stops `failing`, not `decided`.

use super::outcome::{Outcome, Verdict};
use crate::plan::claims::Claim;
use crate::run::records::results::RunRecord;
use crate::text::value_text;

/// The engines whose runs an outcome reads: both of an engine ratio, else its own.
fn engines_of(claim: &Claim, o: &Outcome) -> Vec<String> {
    match &claim.ratio {
        Some(r) if r.axis == "engine" => vec![value_text(&r.a), value_text(&r.b)],
        _ => vec![o.engine.clone()],
    }
}

/// Turns each *n/a* outcome whose cells (`chosen`, by index) have failed runs on its engines
/// into *runs failed*, naming how many failed and the first error.
pub fn mark(claim: &Claim, chosen: &[usize], records: &[RunRecord], outcomes: &mut [Outcome]) {
    for o in outcomes.iter_mut().filter(|o| o.verdict == Verdict::NoData) {
        if o.figure.starts_with("0/0") || o.figure.contains(" is 0 on ") {
            continue;
        }
        let engines = engines_of(claim, o);
        let read: Vec<&RunRecord> = records
            .iter()
            .filter(|r| chosen.contains(&r.cell) && engines.contains(&r.engine))
            .collect();
        let failed: Vec<&&RunRecord> = read.iter().filter(|r| r.status != "ok").collect();
        let Some(first) = failed.first() else {
            continue;
        };
        o.verdict = Verdict::RunsFailed;
        let error = first.error.lines().next().unwrap_or("").trim();
        o.figure = format!(
            "{} of {} runs failed{}",
            failed.len(),
            read.len(),
            if error.is_empty() {
                String::new()
            } else {
                format!(" (first: {}: {error})", first.id)
            }
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::claims::verdicts::{evaluate, failures};
    use crate::plan::matrix::Cell;

    #[test]
    fn a_claim_whose_runs_all_failed_says_so() {
        let cells = vec![Cell {
            index: 0,
            values: vec![],
        }];
        let mut rs = Vec::new();
        for rep in 0..3 {
            let mut r = RunRecord::ok_for_test(0, vec![], "e", rep, "m", 1.0);
            r.metrics.clear();
            r.status = "failed".into();
            r.error = "db_bench: not found".into();
            rs.push(r);
        }
        let c: Claim =
            toml::from_str("quote = \"q\"\nmetric = \"m\"\nrelation = \"at_least\"\nthan = 1\n")
                .unwrap();
        let o = evaluate(std::slice::from_ref(&c), &cells, &["e".to_string()], &rs);
        assert_eq!(o[0].verdict, Verdict::RunsFailed, "{:?}", o[0]);
        assert!(
            o[0].figure.starts_with("3 of 3 runs failed (first: "),
            "{}",
            o[0].figure
        );
        assert_eq!(o[0].verdict.text(), "runs failed");
        assert_eq!(failures(&[c], &o).len(), 1);
    }

    #[test]
    fn a_ratio_of_zeros_says_0_over_0() {
        let cells: Vec<Cell> = (0..2)
            .map(|i| Cell {
                index: i,
                values: vec![("x".into(), i.to_string())],
            })
            .collect();
        let mut rs = Vec::new();
        for rep in 0..3 {
            for c in &cells {
                rs.push(RunRecord::ok_for_test(
                    c.index,
                    c.values.clone(),
                    "e",
                    rep,
                    "cpu_s",
                    0.0,
                ));
            }
        }
        let c: Claim = toml::from_str(
            "quote = \"q\"\nmetric = \"cpu_s\"\nrelation = \"smaller\"\nratio = { axis = \"x\", a = 1, b = 0 }\n",
        )
        .unwrap();
        let o = evaluate(&[c], &cells, &["e".to_string()], &rs);
        assert_eq!(o[0].verdict, Verdict::NoData);
        assert_eq!(o[0].figure, "0/0: cpu_s is 0 on both sides in all 3 pairs");
    }
}
