//! A plan edited after its runs (`lsmlab report DIR --plan EDITED.toml`): what it may change
//! (what the report reads from the runs: figures, claims, title, question, compared axes) and
//! what it may not (what the runs did: engines, matrix, flags, properties, steps, load). The
//! first difference of the second kind is refused, named in one line, so a report never
//! describes runs with settings they did not have.

use super::spec::{Plan, Table};
use crate::text::value_text;
use lsmlab_drivers::error::{CliError, CliResult};

/// What an edited plan may change, as a refusal names it.
const MAY_CHANGE: &str = "only title, question, compare, [[figure]] and [[claim]] may change";

/// The plan to report `ran`'s runs with: `ran` (as run, at `scale`) with the title, question,
/// compared axes, figures and claims of `edited`. Refuses an `edited` whose engines, matrix,
/// flags, properties, steps or load at `scale` differ from those of `ran`.
pub fn revise(ran: &Plan, edited: &Plan, scale: Option<&str>) -> CliResult<Plan> {
    let e = edited.scaled(scale);
    let diff = engines_difference(ran, &e)
        .or_else(|| table_difference("matrix", &ran.matrix, &e.matrix))
        .or_else(|| table_difference("flags", &ran.flags, &e.flags))
        .or_else(|| table_difference("properties", &ran.properties, &e.properties))
        .or_else(|| steps_difference(ran, &e))
        .or_else(|| load_difference(ran, &e));
    if let Some(d) = diff {
        return Err(CliError::new(format!(
            "--plan: {d}; the runs were made with the plan in plan.json, and {MAY_CHANGE}"
        )));
    }
    let mut out = ran.clone();
    out.title = edited.title.clone();
    out.question = edited.question.clone();
    out.compare = edited.compare.clone();
    out.figure = edited.figure.clone();
    out.claim = edited.claim.clone();
    // The claims carry these already (`Claim::inherit`); kept so plan.json says where from.
    out.size_band = edited.size_band;
    out.smallest_effect = edited.smallest_effect;
    Ok(out)
}

fn shown(v: Option<&toml::Value>) -> String {
    v.map(value_text).unwrap_or_else(|| "(not set)".into())
}

/// The first key of `a` or `b` whose values differ: `flags.num is 200000, was 100000`.
fn table_difference(what: &str, ran: &Table, edited: &Table) -> Option<String> {
    let keys = ran
        .keys()
        .chain(edited.keys().filter(|k| !ran.contains_key(*k)));
    for k in keys {
        let (a, b) = (ran.get(k), edited.get(k));
        if a != b {
            return Some(format!("{what}.{k} is {}, was {}", shown(b), shown(a)));
        }
    }
    None
}

/// Engines: every engine that ran must still be named (required or optional), and no required
/// engine may be added; an engine's kind may not change.
fn engines_difference(ran: &Plan, e: &Plan) -> Option<String> {
    if let Some(n) = e.engines.iter().find(|n| !ran.engines.contains(n)) {
        return Some(format!("engines: {n:?} added (it has no runs)"));
    }
    let named = |n: &String| e.engines.contains(n) || e.optional_engines.contains(n);
    if let Some(n) = ran.engines.iter().find(|n| !named(n)) {
        return Some(format!("engines: {n:?} removed (it has runs)"));
    }
    for n in &ran.engines {
        let kind = |p: &Plan| p.engine.get(n).and_then(|s| s.kind.clone());
        if kind(ran) != kind(e) {
            return Some(format!(
                "engine.{n}.kind is {:?}, was {:?}",
                kind(e).unwrap_or_default(),
                kind(ran).unwrap_or_default()
            ));
        }
    }
    None
}

/// Steps compared whole, by their TOML (every key of a step decides what a run did).
fn steps_difference(ran: &Plan, e: &Plan) -> Option<String> {
    if ran.steps.len() != e.steps.len() {
        return Some(format!(
            "steps: {} steps, was {}",
            e.steps.len(),
            ran.steps.len()
        ));
    }
    for (i, (a, b)) in ran.steps.iter().zip(&e.steps).enumerate() {
        let (a, b) = (
            toml::Table::try_from(a).unwrap_or_default(),
            toml::Table::try_from(b).unwrap_or_default(),
        );
        if let Some(d) = table_difference(&format!("steps[{i}]"), &a, &b) {
            return Some(d);
        }
    }
    None
}

fn load_difference(ran: &Plan, e: &Plan) -> Option<String> {
    let table = |p: &Plan| {
        p.load
            .as_ref()
            .and_then(|l| toml::Table::try_from(l).ok())
            .unwrap_or_default()
    };
    table_difference("load", &table(ran), &table(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: &str = r#"title = "t"
[flags]
num = 1000
[matrix]
bloom_bits = [5, 10]
[[steps]]
bench = "fillrandom,readrandom"
[[figure]]
title = "Throughput"
metrics = ["fillrandom.ops_per_sec"]
"#;

    fn plan(text: &str) -> Plan {
        Plan::parse(text).unwrap()
    }

    #[test]
    fn figures_claims_and_title_may_change() {
        let edited = PLAN.replace("title = \"t\"", "title = \"t2\"\nquestion = \"q\"")
            + "[[figure]]\ntitle = \"Reads\"\nmetrics = [\"readrandom.ops_per_sec\"]\n";
        let p = revise(&plan(PLAN), &plan(&edited), None).unwrap();
        assert_eq!((p.title.as_str(), p.question.as_str()), ("t2", "q"));
        let titles: Vec<&str> = p.figure.iter().map(|f| f.title.as_str()).collect();
        assert_eq!(titles, ["Throughput", "Reads"]);
    }

    #[test]
    fn a_changed_flag_axis_or_step_is_refused_by_name() {
        let refused = |edited: String| {
            revise(&plan(PLAN), &plan(&edited), None)
                .unwrap_err()
                .to_string()
        };
        let e = refused(PLAN.replace("num = 1000", "num = 2000"));
        assert!(e.contains("flags.num is 2000, was 1000"), "{e}");
        assert!(!e.contains('\n'), "{e}");
        let e = refused(PLAN.replace("num = 1000", "num = 1000\nvalue_size = 64"));
        assert!(e.contains("flags.value_size is 64, was (not set)"), "{e}");
        let e = refused(PLAN.replace("[5, 10]", "[5, 10, 15]"));
        assert!(e.contains("matrix.bloom_bits"), "{e}");
        let e = refused(PLAN.replace("fillrandom,readrandom", "fillrandom"));
        assert!(e.contains("steps[0].bench is fillrandom"), "{e}");
        let e = refused(PLAN.replace("title = \"t\"", "title = \"t\"\nengines = [\"rocksdb\"]"));
        assert!(e.contains("engines: \"rocksdb\" added"), "{e}");
    }

    #[test]
    fn the_scale_that_ran_is_the_one_compared() {
        let scaled = format!("{PLAN}[scale.quick]\nflags = {{ num = 10 }}\n");
        let ran = plan(&scaled).scaled(Some("quick"));
        assert!(revise(&ran, &plan(&scaled), Some("quick")).is_ok());
        // The same plan read at another scale ran with other flags.
        assert!(revise(&ran, &plan(&scaled), None).is_err());
    }
}
