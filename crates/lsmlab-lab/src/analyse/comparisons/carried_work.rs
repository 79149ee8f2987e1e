//! Work a step did for an earlier step: when a step ends without a flush (`flush = false`, a
//! YCSB step, or a step of LevelDB's db_bench, none of which can flush), the data it left in the memtable is written to a table by
//! the next step's process (WAL replay at its open, or its first flush), and the compactions
//! that table sets off run there too. The earlier step's write figures then leave that work
//! out and the later step's carry it. The report warns wherever a step that follows an
//! unflushed step wrote flush or compaction bytes.

use super::findings::Section;
use super::summary::SummaryRow;
use crate::plan::spec::{step_label, Plan, StepKind};
use crate::run::invoke::boundaries;
use crate::run::invoke::kind::Kind;
use crate::text::significant;

/// One warning per (step, engine) that wrote flush or compaction bytes after an unflushed
/// step: the largest mean over the cells.
pub fn warnings(plan: &Plan, summary: &[SummaryRow]) -> Vec<String> {
    let mut out = Vec::new();
    for i in 1..plan.steps.len() {
        let all_flushed = plan.flushes(i - 1);
        if all_flushed && !summary.iter().any(|r| cannot_flush(plan, &r.engine)) {
            continue;
        }
        let (before, label) = (
            step_label(&plan.steps[i - 1], i - 1),
            step_label(&plan.steps[i], i),
        );
        let mut engines: Vec<&str> = summary.iter().map(|r| r.engine.as_str()).collect();
        engines.dedup();
        engines.sort();
        engines.dedup();
        for e in engines {
            if all_flushed && !cannot_flush(plan, e) {
                continue;
            }
            let most = |suffix: &str| {
                let metric = format!("{label}.{suffix}");
                summary
                    .iter()
                    .filter(|r| r.engine == e && r.metric == metric)
                    .map(|r| r.stats.mean)
                    .fold(0.0f64, f64::max)
            };
            let (flush, compact) = (most("flush_write_mb"), most("compact_write_mb"));
            if flush > 0.0 || compact > 0.0 {
                let ycsb = matches!(
                    plan.steps[i - 1].kind(i - 1),
                    Ok(StepKind::YcsbLoad | StepKind::YcsbRun)
                );
                let remedy = if cannot_flush(plan, e) {
                    "LevelDB's db_bench cannot flush without a full compaction".to_string()
                } else if ycsb {
                    "a YCSB step cannot flush".to_string()
                } else {
                    format!("set flush = true on steps[{}] to keep it there", i - 1)
                };
                out.push(format!(
                    "{e}: steps[{i}] ({label}) wrote up to {} of flush and {} of compaction after steps[{}] ({before}) ended without a flush: part of it is {before}'s data, left in its memtable, so {before}'s write figures leave it out and {label}'s carry it; {remedy}",
                    amount(flush),
                    amount(compact),
                    i - 1,
                ));
            }
        }
    }
    out
}

/// Megabytes as a reader takes them in: none, KiB below a tenth of a MB, else MB.
fn amount(mb: f64) -> String {
    if mb <= 0.0 {
        "no bytes".into()
    } else if mb < 0.1 {
        format!("{} KiB", significant(mb * 1024.0))
    } else {
        format!("{} MB", significant(mb))
    }
}

/// An engine whose command line has no flush (`boundaries::flush_benchmark`: LevelDB's
/// db_bench, whose `compact` is a full compaction): its steps end unflushed whatever the plan
/// says.
fn cannot_flush(plan: &Plan, engine: &str) -> bool {
    let name = plan
        .engine
        .get(engine)
        .and_then(|s| s.kind.as_deref())
        .unwrap_or(engine);
    Kind::parse(name).is_some_and(|(kind, _)| boundaries::flush_benchmark(kind).is_none())
}

/// The warnings as a findings section, when there are any.
pub fn section(plan: &Plan, summary: &[SummaryRow]) -> Option<Section> {
    let items = warnings(plan, summary);
    (!items.is_empty()).then(|| Section {
        title: "Work carried across steps".into(),
        items,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::comparisons::summary::summarize;
    use crate::run::records::results::RunRecord;

    fn plan(flush: &str) -> Plan {
        Plan::parse(&format!(
            "title = \"t\"\n[[steps]]\nbench = \"fillrandom\"\n{flush}\n[[steps]]\nbench = \"readrandom\"\n"
        ))
        .unwrap()
    }

    fn runs(flush_mb: f64) -> Vec<SummaryRow> {
        let rs: Vec<RunRecord> = (0..2)
            .map(|rep| {
                RunRecord::ok_for_test(
                    0,
                    vec![],
                    "lsmlab",
                    rep,
                    "readrandom.flush_write_mb",
                    flush_mb,
                )
            })
            .collect();
        summarize(&rs)
    }

    #[test]
    fn a_step_after_an_unflushed_one_that_flushes_is_warned_of() {
        let w = warnings(&plan("flush = false"), &runs(3.5));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("lsmlab: steps[1] (readrandom) wrote up to 3.500 MB of flush"),
            "{}",
            w[0]
        );
        // Nothing written after it, or the fill flushed (by default or by name): no warning.
        assert!(warnings(&plan("flush = false"), &runs(0.0)).is_empty());
        assert!(warnings(&plan(""), &runs(3.5)).is_empty());
        assert!(warnings(&plan("flush = true"), &runs(3.5)).is_empty());
        assert!(section(&plan(""), &runs(3.5)).is_none());
        assert!(w[0].ends_with("set flush = true on steps[0] to keep it there"));
    }

    #[test]
    fn the_remedy_fits_the_step_and_engine_that_could_not_flush() {
        let ycsb = Plan::parse(
            "title = \"t\"\n[[steps]]\nycsb = \"load\"\nworkload = \"workloada\"\n[[steps]]\nbench = \"readrandom\"\n",
        )
        .unwrap();
        let w = warnings(&ycsb, &runs(0.05));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("up to 51.2 KiB of flush and no bytes of compaction"),
            "{}",
            w[0]
        );
        assert!(w[0].ends_with("a YCSB step cannot flush"), "{}", w[0]);
        // LevelDB's db_bench steps end unflushed whatever the plan says.
        let mut leveldb = plan("");
        leveldb.engine.insert(
            "lsmlab".into(),
            toml::from_str("kind = \"leveldb\"").unwrap(),
        );
        let w = warnings(&leveldb, &runs(3.5));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].ends_with("LevelDB's db_bench cannot flush without a full compaction"));
    }
}
