//! Verdicts: the claims of a plan (`plan::claims`) decided against the runs by the statistics,
//! never by hand.
//!
//! A claim names a metric, or the ratio of a metric between two values of an axis (or two
//! engines), the relation the seed reports (greater, smaller, about equal within a tolerance,
//! a crossover along an axis) and the seed's number. Ratios are the paired log-ratios of
//! `anytime::grouped_paired_ratio` (runs of the same repetition paired), averaged over every
//! cell the claim's `where` leaves open with each cell weighted alike, so a claim about "the
//! value sizes" is one geometric-mean ratio with one CI, whose width comes from the spread of
//! the runs within their cells (a claim that must hold in each cell says `every`). Every CI here is anytime-valid (`anytime`): a verdict may be read after any
//! number of repetitions, and more added, without raising its 5 % error. The verdict follows
//! from where that CI lies against the claim's smallest effect that matters and, for a size
//! claim, the seed's size band (`effect::Rule`; docs/verdicts.md has the table).

pub use super::outcome::{Outcome, Verdict};
use super::pooled::{no_data, pooled, Scope, Values};
use crate::analyse::claims::every_case;
use crate::plan::claims::Claim;
use crate::plan::matrix::Cell;
use crate::run::records::results::RunRecord;
use crate::text::{csv_line, csv_number, value_text};
use std::collections::BTreeMap;
use toml::Table;

fn values(records: &[RunRecord]) -> Values {
    let mut out: Values = BTreeMap::new();
    for r in records.iter().filter(|r| r.status == "ok") {
        for (m, v) in &r.metrics {
            out.entry((r.cell, r.engine.clone(), m.clone()))
                .or_default()
                .insert(r.rep, *v);
        }
    }
    out
}

pub(crate) fn matches(cell: &Cell, r#where: &Table) -> bool {
    r#where.iter().all(|(k, v)| {
        let have = cell.get(k).unwrap_or("");
        match v.as_array() {
            Some(list) => list.iter().any(|v| value_text(v) == have),
            None => value_text(v) == have,
        }
    })
}

/// Every claim on every engine of the study.
pub fn evaluate(
    claims: &[Claim],
    cells: &[Cell],
    engines: &[String],
    records: &[RunRecord],
) -> Vec<Outcome> {
    let vals = values(records);
    let mut out = Vec::new();
    for (ci, c) in claims.iter().enumerate() {
        let chosen: Vec<&Cell> = cells
            .iter()
            .filter(|cell| matches(cell, &c.cells))
            .collect();
        let of_claim: Vec<&String> = engines
            .iter()
            .filter(|e| c.engines.is_empty() || c.engines.contains(e))
            .collect();
        if chosen.is_empty() {
            out.push(no_data(
                ci,
                "–",
                "no cell of this scale matches where".into(),
            ));
            continue;
        }
        let scope = Scope {
            ci,
            claim: c,
            chosen: &chosen,
            of_claim: &of_claim,
            cells,
            vals: &vals,
            rel: c.relation(),
        };
        let mut these = if c.every || c.each.is_some() {
            every_case::decide(&scope)
        } else {
            pooled(&scope)
        };
        let idx: Vec<usize> = chosen.iter().map(|c| c.index).collect();
        super::failed::mark(c, &idx, records, &mut these);
        out.extend(these);
    }
    out
}

/// Claims that fail a gate: any verdict but "reproduced" (n/a rows aside), or a claim with no
/// verdict on any engine. Returns one line per failing claim.
pub fn failures(claims: &[Claim], outcomes: &[Outcome]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, c) in claims.iter().enumerate() {
        let rows: Vec<&Outcome> = outcomes.iter().filter(|o| o.claim == i).collect();
        let decided: Vec<&&Outcome> = rows
            .iter()
            .filter(|o| o.verdict != Verdict::NoData)
            .collect();
        if decided.is_empty() {
            out.push(format!("claim {}: not checked (no data)", i + 1));
            continue;
        }
        let bad: Vec<String> = decided
            .iter()
            .filter(|o| o.verdict != Verdict::Reproduced)
            .map(|o| format!("{} {}", o.engine, o.verdict.text()))
            .collect();
        if !bad.is_empty() {
            out.push(format!(
                "claim {} ({}): {}",
                i + 1,
                c.metric,
                bad.join(", ")
            ));
        }
    }
    out
}

/// `claims.csv`: one row per claim and engine.
pub fn claims_csv(claims: &[Claim], outcomes: &[Outcome]) -> String {
    let mut out = "claim,metric,claim_text,seed,seed_value,seed_band_lo,seed_band_hi,smallest_effect,engine,estimate,ci95_lo,ci95_hi,n,verdict,figure,more_repetitions,note\n"
        .to_string();
    for o in outcomes {
        let Some(c) = claims.get(o.claim) else {
            continue;
        };
        // The seed's size beside the measured one: its number and, for a size claim, its band.
        let rule = super::effect::Rule::of(c);
        let (band_lo, band_hi) = match rule.judged {
            super::effect::Judged::Size { lo, hi, .. } => (csv_number(lo), csv_number(hi)),
            super::effect::Judged::Direction => (String::new(), String::new()),
        };
        out.push_str(&csv_line(&[
            (o.claim + 1).to_string(),
            c.metric.clone(),
            c.describe(),
            c.seed_text(),
            c.seed_value.map(csv_number).unwrap_or_default(),
            band_lo,
            band_hi,
            csv_number(rule.e),
            o.engine.clone(),
            csv_number(o.estimate),
            csv_number(o.ci_lo),
            csv_number(o.ci_hi),
            o.n.to_string(),
            o.verdict.text().to_string(),
            o.figure.clone(),
            o.more_repetitions.map_or(String::new(), |r| r.to_string()),
            o.note.clone(),
        ]));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::pooled::verdict_of;
    use super::*;
    use crate::plan::claims::Relation;

    fn cell(index: usize, v: &[(&str, &str)]) -> Cell {
        Cell {
            index,
            values: v
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
        }
    }

    fn rec(c: &Cell, engine: &str, rep: u32, metric: &str, v: f64) -> RunRecord {
        RunRecord::ok_for_test(c.index, c.values.clone(), engine, rep, metric, v)
    }

    fn claim(text: &str) -> Claim {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn verdicts_follow_the_interval() {
        use Relation::*;
        use Verdict::*;
        assert_eq!(
            verdict_of(Relation::Smaller, 0.6, 0.9, 1.0, None, true),
            Reproduced
        );
        assert_eq!(
            verdict_of(Relation::Smaller, 1.1, 1.3, 1.0, None, true),
            Reversed
        );
        assert_eq!(
            verdict_of(Relation::Smaller, 0.9, 1.1, 1.0, None, true),
            Inconclusive
        );
        assert_eq!(
            verdict_of(Relation::Smaller, 0.99, 1.01, 1.0, Some(0.05), true),
            NoEffect,
            "inside the smallest effect: no effect, no longer lumped with not reproduced"
        );
        assert_eq!(verdict_of(Greater, 1.1, 1.2, 1.0, None, true), Reproduced);
        assert_eq!(verdict_of(Greater, 0.8, 0.9, 1.0, None, true), Reversed);
        // Above 1 but below the seed's 100×: not reproduced, not reversed.
        assert_eq!(
            verdict_of(Greater, 3.0, 9.0, 100.0, None, true),
            NotReproduced
        );
        assert_eq!(
            verdict_of(About, 0.97, 1.03, 1.0, Some(0.05), true),
            Reproduced
        );
        assert_eq!(
            verdict_of(About, 0.90, 1.03, 1.0, Some(0.05), true),
            Inconclusive
        );
        assert_eq!(
            verdict_of(About, 1.2, 1.3, 1.0, Some(0.05), true),
            NotReproduced
        );
        assert_eq!(
            verdict_of(About, f64::NAN, f64::NAN, 1.0, None, true),
            Inconclusive
        );
        // A metric (not a ratio) below the threshold is not "reversed".
        assert_eq!(
            verdict_of(Greater, 0.1, 0.2, 0.5, None, false),
            NotReproduced
        );
    }

    #[test]
    fn a_ratio_between_settings_is_paired_by_repetition_and_averaged_over_its_cells() {
        let cells = vec![
            cell(0, &[("bits", "5"), ("ribbon", "false")]),
            cell(1, &[("bits", "5"), ("ribbon", "true")]),
            cell(2, &[("bits", "10"), ("ribbon", "false")]),
            cell(3, &[("bits", "10"), ("ribbon", "true")]),
        ];
        let mut rs = Vec::new();
        for rep in 0..3 {
            // Drift by repetition cancels in the pairs: ribbon/bloom is 0.7 exactly at 10 bits.
            let d = 1.0 + rep as f64;
            rs.push(rec(&cells[2], "lsmlab", rep, "m", 10.0 * d));
            rs.push(rec(&cells[3], "lsmlab", rep, "m", 7.0 * d));
            rs.push(rec(&cells[0], "lsmlab", rep, "m", 5.0 * d));
            rs.push(rec(&cells[1], "lsmlab", rep, "m", 6.0 * d));
        }
        let c = claim("quote = \"q\"\nmetric = \"m\"\nrelation = \"smaller\"\nratio = { axis = \"ribbon\", a = true, b = false }\nwhere = { bits = 10 }\nseed_value = 0.7\n");
        let engines = vec!["lsmlab".to_string(), "rocksdb".to_string()];
        let o = evaluate(std::slice::from_ref(&c), &cells, &engines, &rs);
        assert_eq!(o.len(), 2);
        assert_eq!(o[0].verdict, Verdict::Reproduced);
        assert!((o[0].estimate - 0.7).abs() < 1e-12 && o[0].n == 3);
        assert_eq!(o[1].verdict, Verdict::NoData, "{:?}", o[1]);
        assert!(failures(std::slice::from_ref(&c), &o).is_empty());
        // Over both bit settings, 0.7 and 1.2 exactly: the claim is about these two cells, so
        // their mean ratio, √(0.7 · 1.2) = 0.917, is exact (the difference between the cells is
        // not run-to-run noise) and smaller than 1 ...
        let mut wide = c.clone();
        wide.cells.clear();
        let o = evaluate(&[wide.clone()], &cells, &engines, &rs);
        assert_eq!(o[0].n, 6);
        assert_eq!(o[0].verdict, Verdict::Reproduced, "{:?}", o[0]);
        assert!((o[0].estimate - (0.7f64 * 1.2).sqrt()).abs() < 1e-12);
        assert_eq!(o[0].ci_lo, o[0].ci_hi);
        // ... while "in every case" is not: at 5 bits Ribbon's is larger.
        let mut every = wide.clone();
        every.every = true;
        let o = evaluate(&[every], &cells, &engines, &rs);
        assert_eq!(o[0].verdict, Verdict::NotReproduced, "{:?}", o[0]);
        assert!(o[0].figure.contains("bits=5"), "{}", o[0].figure);
    }

    #[test]
    fn a_crossover_needs_the_ratio_clear_from_its_value_on_and_not_before() {
        let sizes = ["1024", "4096", "16384"];
        let mut cells = Vec::new();
        for (i, s) in sizes.iter().enumerate() {
            cells.push(cell(2 * i, &[("size", s), ("blob", "false")]));
            cells.push(cell(2 * i + 1, &[("size", s), ("blob", "true")]));
        }
        let run = |ratios: [f64; 3]| {
            let mut rs = Vec::new();
            for rep in 0..3u32 {
                let jitter = [1.0, 1.01, 0.99][rep as usize];
                for i in 0..3 {
                    rs.push(rec(&cells[2 * i], "e", rep, "ops", 100.0));
                    rs.push(rec(
                        &cells[2 * i + 1],
                        "e",
                        rep,
                        "ops",
                        100.0 * ratios[i] * jitter,
                    ));
                }
            }
            let c = claim("quote = \"q\"\nmetric = \"ops\"\nrelation = \"crossover\"\nratio = { axis = \"blob\", a = true, b = false }\nx = \"size\"\nat = 4096\n");
            evaluate(&[c], &cells, &["e".to_string()], &rs)[0].verdict
        };
        assert_eq!(run([1.0, 2.0, 3.0]), Verdict::Reproduced);
        assert_eq!(
            run([1.5, 2.0, 3.0]),
            Verdict::NotReproduced,
            "ahead before 4096"
        );
        assert_eq!(run([1.0, 0.5, 3.0]), Verdict::Reversed);
        assert_eq!(run([1.0, 1.0, 3.0]), Verdict::Inconclusive);
    }

    #[test]
    fn engine_ratios_and_metric_values() {
        let cells = vec![cell(0, &[])];
        let mut rs = Vec::new();
        for rep in 0..4 {
            rs.push(rec(&cells[0], "a", rep, "fpr", 0.0094 + rep as f64 * 1e-5));
            rs.push(rec(&cells[0], "b", rep, "fpr", 0.0188 + rep as f64 * 2e-5));
        }
        let engines = vec!["a".to_string(), "b".to_string()];
        let c = claim("quote = \"q\"\nmetric = \"fpr\"\nrelation = \"about\"\nseed_value = 0.0094\ntolerance = 0.2\n");
        let o = evaluate(std::slice::from_ref(&c), &cells, &engines, &rs);
        assert_eq!(o[0].verdict, Verdict::Reproduced);
        assert_eq!(o[1].verdict, Verdict::NotReproduced);
        let c = claim("quote = \"q\"\nmetric = \"fpr\"\nrelation = \"greater\"\nratio = { axis = \"engine\", a = \"b\", b = \"a\" }\n");
        let o = evaluate(&[c], &cells, &engines, &rs);
        assert_eq!((o.len(), o[0].engine.as_str()), (1, "b / a"));
        assert!((o[0].estimate - 2.0).abs() < 1e-9);
        assert_eq!(o[0].verdict, Verdict::Reproduced);
    }
}
