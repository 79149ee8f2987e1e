//! The names a plan may use, known before anything runs: the benchmarks of its steps, the
//! metrics each step can produce (docs/metrics.md, "Metrics"), and the time-series columns.
//! A misspelt name is refused with the plan line and the nearest known name, because a figure
//! or claim on a metric no run produces would silently show nothing.

use super::spec::{step_label, Plan, StepKind};
use lsmlab_drivers::engine::EngineKind;
use lsmlab_drivers::error::{CliError, CliResult};

/// LevelDB 1.23's db_bench benchmarks.
pub const LEVELDB_BENCHMARKS: &[&str] = &[
    "fillseq",
    "fillsync",
    "fillrandom",
    "overwrite",
    "fill100K",
    "deleteseq",
    "deleterandom",
    "readseq",
    "readreverse",
    "readrandom",
    "readmissing",
    "seekrandom",
    "seekordered",
    "readhot",
    "readrandomsmall",
    "readwhilewriting",
    "compact",
    "crc32c",
    "snappycomp",
    "snappyuncomp",
    "stats",
    "sstables",
];

/// The FSLSM study's metrics of the `sim` block (`STEP.sim.NAME`; docs/metrics.md).
pub const SIM: &[&str] = &["read_amp", "write_amp", "major_mb", "minor_mb", "latency_s"];

/// Benchmarks any of the engines knows (lsmlab's, the db_bench ones lsmlab refuses, LevelDB's).
fn known_benchmark(name: &str) -> bool {
    lsmlab_drivers::flags::BENCHMARKS.contains(&name)
        || lsmlab_drivers::flags::REFUSED_BENCHMARKS.contains(&name)
        || LEVELDB_BENCHMARKS.contains(&name)
}

fn all_benchmarks() -> impl Iterator<Item = &'static str> {
    lsmlab_drivers::flags::BENCHMARKS
        .iter()
        .chain(lsmlab_drivers::flags::REFUSED_BENCHMARKS)
        .chain(LEVELDB_BENCHMARKS)
        .copied()
}

/// Latency suffixes of a benchmark or histogram.
const LATENCY: &[&str] = &[
    "p50_us", "p95_us", "p99_us", "p99.9_us", "max_us", "mean_us",
];
/// Per benchmark, from its summary line.
const SUMMARY: &[&str] = &[
    "ops_per_sec",
    "micros_per_op",
    "mb_per_sec",
    "found_fraction",
];
/// Per step, from the statistics tickers.
const TICKERS: &[&str] = &[
    "fpr",
    "write_amp",
    "flush_write_mb",
    "compact_write_mb",
    "compact_read_mb",
    "filter_mb",
    "filter_bits_per_key",
    "compactions",
    "compaction_time_s",
    "compaction_cpu_s",
];
/// Per step, from statistics histograms (P50 and P99 only).
const STAT_HISTOGRAMS: &[&str] = &["sst_write", "blob_file_write", "get", "write"];
/// Histogram operations of db_bench-format output.
const HISTOGRAM_OPS: &[&str] = &["read", "write", "op", "seek", "delete"];
/// YCSB operations.
const YCSB_OPS: &[&str] = &[
    "read",
    "update",
    "insert",
    "scan",
    "readmodifywrite",
    "delete",
];
/// lsmlab's own figures (`--json`).
const LSMLAB: &[&str] = &[
    "write_amp",
    "read_amp",
    "files_checked_per_get",
    "device_time_s",
    "filter_fpr",
    "filter_mb",
    "filter_bits_per_key",
    "index_mb",
    "float_ups",
    "read_ratio",
    "level0_trigger",
    "level0_files",
    "level0_floated_files",
    "level0_flushed_files",
];
/// Per step, from the kernel's figures of its process.
const STEP_PROCESS: &[&str] = &["cpu_s", "rss_peak_mb", "cpu_us_per_op"];
/// Figures of every run.
const RUN: &[&str] = &[
    "process.rss_peak_mb",
    "process.cpu_user_s",
    "process.cpu_sys_s",
    "process.cpu_mean_pct",
    "process.disk_read_mb",
    "process.disk_write_mb",
    "process.wall_s",
    "db_size_mb",
];
/// Columns of timeseries.csv a timeseries figure draws.
pub const TIMESERIES: &[&str] = &["cpu_pct", "rss_bytes", "read_bytes", "write_bytes"];

/// The line (1-based) of the first occurrence of `needle` in `text` at or after the `nth`
/// (0-based) line that starts with `header`; else the first occurrence anywhere.
pub fn line_of(text: &str, header: &str, nth: usize, needle: &str) -> Option<usize> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with(header))
        .nth(nth)
        .map(|(i, _)| i)
        .unwrap_or(0);
    lines
        .iter()
        .enumerate()
        .skip(start)
        .chain(lines.iter().enumerate())
        .find(|(_, l)| l.contains(needle))
        .map(|(i, _)| i + 1)
}

fn at_line(text: &str, header: &str, nth: usize, needle: &str, msg: String) -> CliError {
    match line_of(text, header, nth, needle) {
        Some(l) => CliError::new(format!("plan: line {l}: {msg}")),
        None => CliError::new(format!("plan: {msg}")),
    }
}

fn suggestion<'a>(name: &str, names: impl IntoIterator<Item = &'a str>) -> String {
    lsmlab_drivers::suggest::closest(name, names)
        .map(|c| format!("; did you mean {c:?}?"))
        .unwrap_or_default()
}

/// Every metric name the runs of `plan` can produce, and those only its load produces.
pub fn metrics(plan: &Plan) -> (Vec<String>, Vec<String>) {
    let lsmlab_kind = plan.engines.iter().chain(&plan.optional_engines).any(|e| {
        let kind = plan
            .engine
            .get(e)
            .and_then(|s| s.kind.clone())
            .unwrap_or_else(|| e.clone());
        // fjall runs only through lsmlab's driver (`kind = "fjall"` is `lsmlab-fjall`).
        kind.starts_with("lsmlab") || kind == "fjall"
    });
    let load_steps = plan.load.as_ref().map_or(0, |l| l.steps);
    let (mut runs, mut load) = (Vec::new(), Vec::new());
    for (i, step) in plan.steps.iter().enumerate() {
        let out = if i < load_steps { &mut load } else { &mut runs };
        let label = step_label(step, i);
        let Ok(kind) = step.kind(i) else {
            continue;
        };
        let benches: Vec<String> = match kind {
            StepKind::Bench => step
                .bench
                .as_deref()
                .unwrap_or("")
                .split(',')
                .map(|b| b.trim().to_string())
                .filter(|b| !b.is_empty())
                .collect(),
            StepKind::Settle => vec!["waitforcompaction".into()],
            _ => Vec::new(),
        };
        let mut seen: Vec<String> = Vec::new();
        for b in benches {
            let n = seen.iter().filter(|s| **s == b).count() + 1;
            seen.push(b.clone());
            let b = if n == 1 { b } else { format!("{b}#{n}") };
            for s in SUMMARY.iter().chain(LATENCY) {
                out.push(format!("{b}.{s}"));
            }
            for op in HISTOGRAM_OPS {
                for s in LATENCY {
                    out.push(format!("{b}.{op}.{s}"));
                }
            }
            if lsmlab_kind {
                for s in LSMLAB {
                    out.push(format!("{b}.lsmlab.{s}"));
                }
                for s in SIM {
                    out.push(format!("{b}.sim.{s}"));
                }
            }
        }
        match kind {
            StepKind::YcsbLoad | StepKind::YcsbRun => {
                out.push(format!("{label}.ops_per_sec"));
                out.push(format!("{label}.compactions"));
                out.push(format!("{label}.compact_write_mb"));
                for op in YCSB_OPS {
                    for s in LATENCY {
                        out.push(format!("{label}.{op}.{s}"));
                    }
                }
                for s in LSMLAB {
                    out.push(format!("{label}.lsmlab.{s}"));
                }
                for s in SIM {
                    out.push(format!("{label}.sim.{s}"));
                }
            }
            _ => {
                for s in TICKERS {
                    out.push(format!("{label}.{s}"));
                }
                for h in STAT_HISTOGRAMS {
                    out.push(format!("{label}.{h}.p50_us"));
                    out.push(format!("{label}.{h}.p99_us"));
                }
            }
        }
        out.extend(STEP_PROCESS.iter().map(|s| format!("{label}.{s}")));
    }
    runs.extend(RUN.iter().map(|s| s.to_string()));
    (runs, load)
}

/// The step figures (`S.NAME`) a library keeps no counter for, and why: a claim on one of them
/// reads n/a on that engine, and the plan check says so before the first run.
fn lacks(driver: EngineKind, name: &str) -> Option<&'static str> {
    let latency = STAT_HISTOGRAMS.iter().any(|h| {
        name.strip_prefix(h)
            .is_some_and(|r| r == ".p50_us" || r == ".p99_us")
    });
    match driver {
        EngineKind::LevelDb => match name {
            "fpr" => Some("LevelDB counts no filter probes"),
            "filter_mb" | "filter_bits_per_key" => Some("LevelDB reports no filter sizes"),
            "compaction_cpu_s" => Some("LevelDB measures no compaction CPU time"),
            "compact_read_mb" => Some("LevelDB's log gives no compaction input bytes"),
            _ if latency => Some("LevelDB keeps no latency statistics"),
            _ => None,
        },
        EngineKind::Fjall if TICKERS.contains(&name) || latency => Some(
            "fjall counts no flush or compaction bytes, compaction CPU, filter probes or sizes, and keeps no latency statistics",
        ),
        _ => None,
    }
}

/// One note per claim and engine whose figure the engine's library has no counter for:
/// `engines` are the plan's engines by name with the library each runs.
pub fn missing_counters(plan: &Plan, engines: &[(String, EngineKind)]) -> Vec<String> {
    let mut notes = Vec::new();
    for (ci, c) in plan.claim.iter().enumerate() {
        let Some((_, name)) = c.metric.split_once('.') else {
            continue;
        };
        for (engine, driver) in engines {
            if !c.engines.is_empty() && !c.engines.contains(engine) {
                continue;
            }
            if let Some(why) = lacks(*driver, name) {
                notes.push(format!(
                    "claim {} ({}): engine {engine} has no counter for it ({why}); its row will read n/a",
                    ci + 1,
                    c.metric
                ));
            }
        }
    }
    notes
}

/// Checks the names of `plan` against `text` (its source, for line numbers): every step's
/// benchmarks, every figure's and claim's metrics, every figure's axes.
pub fn check(plan: &Plan, text: &str) -> CliResult<()> {
    for (i, step) in plan.steps.iter().enumerate() {
        for b in step
            .bench
            .as_deref()
            .unwrap_or("")
            .split(',')
            .map(str::trim)
        {
            if !b.is_empty() && !known_benchmark(b) {
                return Err(at_line(
                    text,
                    "[[steps]]",
                    i,
                    b,
                    format!(
                        "steps[{i}].bench: unknown benchmark {b:?}{}",
                        suggestion(b, all_benchmarks())
                    ),
                ));
            }
        }
    }
    let (runs, load) = metrics(plan);
    let check_metric = |m: &str, header: &str, nth: usize, what: String| -> CliResult<()> {
        if runs.iter().any(|r| r == m) {
            return Ok(());
        }
        let msg = if load.iter().any(|r| r == m) {
            format!("{what}: {m:?} is a figure of the load steps, which are measured once in loads/KEY/load.json, not in the runs")
        } else {
            format!(
                "{what}: no step produces metric {m:?}{}",
                suggestion(m, runs.iter().map(String::as_str))
            )
        };
        Err(at_line(text, header, nth, m, msg))
    };
    let axes = plan.axis_values();
    for (fi, f) in plan.figure.iter().enumerate() {
        for m in &f.metrics {
            if f.kind == "timeseries" {
                if !TIMESERIES.contains(&m.as_str()) {
                    return Err(at_line(
                        text,
                        "[[figure]]",
                        fi,
                        m,
                        format!(
                            "figure[{fi}].metrics: {m:?} is not a time series; allowed {}{}",
                            TIMESERIES.join(", "),
                            suggestion(m, TIMESERIES.iter().copied())
                        ),
                    ));
                }
                continue;
            }
            check_metric(m, "[[figure]]", fi, format!("figure[{fi}].metrics"))?;
        }
        for (what, axis) in [("x", &f.x), ("series", &f.series)] {
            let Some(a) = axis else {
                continue;
            };
            if a != "engine" && !axes.contains_key(a) {
                let names = axes.keys().map(String::as_str).chain(["engine"]);
                return Err(at_line(
                    text,
                    "[[figure]]",
                    fi,
                    a,
                    format!(
                        "figure[{fi}].{what}: {a:?} is not an axis of [matrix] nor engine{}",
                        suggestion(a, names)
                    ),
                ));
            }
        }
    }
    for (ci, c) in plan.claim.iter().enumerate() {
        check_metric(&c.metric, "[[claim]]", ci, format!("claim[{ci}].metric"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: &str = "title = \"t\"\n[matrix]\nvalue_size = [1, 2]\n[[steps]]\nbench = \"fillrandom,readrandom\"\n[[steps]]\nname = \"case2\"\nbench = \"readrandom\"\n[[figure]]\ntitle = \"f\"\nmetrics = [\"readrandom.ops_per_sec\"]\n";

    #[test]
    fn metrics_follow_the_steps() {
        let p = Plan::parse(PLAN).unwrap();
        let (runs, load) = metrics(&p);
        for m in [
            "fillrandom.ops_per_sec",
            "readrandom.p99_us",
            "readrandom.read.p99.9_us",
            "fillrandom+readrandom.fpr",
            "case2.get.p99_us",
            "fillrandom.lsmlab.write_amp",
            "process.rss_peak_mb",
            "process.cpu_user_s",
            "fillrandom+readrandom.cpu_us_per_op",
            "case2.rss_peak_mb",
        ] {
            assert!(runs.iter().any(|r| r == m), "{m}");
        }
        assert!(load.is_empty());
    }

    #[test]
    fn misspelt_names_are_refused_with_line_and_suggestion() {
        for (from, to, expect) in [
            (
                "bench = \"fillrandom,readrandom\"",
                "bench = \"fillrandon,readrandom\"",
                "plan: line 5: steps[0].bench: unknown benchmark \"fillrandon\"; did you mean \"fillrandom\"?",
            ),
            (
                "metrics = [\"readrandom.ops_per_sec\"]",
                "metrics = [\"readrandom.ops_per_se\"]",
                "plan: line 11: figure[0].metrics: no step produces metric \"readrandom.ops_per_se\"; did you mean \"readrandom.ops_per_sec\"?",
            ),
            (
                "metrics = [",
                "x = \"valuesize\"\nmetrics = [",
                "plan: line 11: figure[0].x: \"valuesize\" is not an axis of [matrix] nor engine; did you mean \"value_size\"?",
            ),
        ] {
            let text = PLAN.replace(from, to);
            let e = Plan::parse(&text).unwrap_err();
            assert_eq!(e.0, expect);
        }
    }

    #[test]
    fn a_claim_on_a_figure_a_library_cannot_give_is_named_before_the_run() {
        let text = "title = \"t\"\n[[steps]]\nbench = \"fillrandom,readrandom\"\n\
            [[claim]]\nquote = \"q\"\nmetric = \"fillrandom+readrandom.fpr\"\nrelation = \"smaller\"\nthan = 1\n\
            [[claim]]\nquote = \"w\"\nmetric = \"fillrandom+readrandom.write_amp\"\nrelation = \"smaller\"\nthan = 1\n";
        let p = Plan::parse(text).unwrap();
        let engines = [
            ("lsmlab".to_string(), EngineKind::Lsmlab),
            ("rocksdb".to_string(), EngineKind::RocksDb),
            ("leveldb".to_string(), EngineKind::LevelDb),
            ("fjall".to_string(), EngineKind::Fjall),
        ];
        let notes = missing_counters(&p, &engines);
        assert_eq!(notes.len(), 3, "{notes:?}");
        assert!(notes[0].starts_with(
            "claim 1 (fillrandom+readrandom.fpr): engine leveldb has no counter for it (LevelDB counts no filter probes)"
        ));
        assert!(notes[1].starts_with("claim 1 (fillrandom+readrandom.fpr): engine fjall"));
        assert!(notes[2].starts_with("claim 2 (fillrandom+readrandom.write_amp): engine fjall"));
        assert!(lacks(EngineKind::LevelDb, "get.p99_us").is_some());
        assert!(lacks(EngineKind::LevelDb, "write_amp").is_none());
        assert!(lacks(EngineKind::LevelDb, "compaction_time_s").is_none());
        assert!(lacks(EngineKind::RocksDb, "filter_bits_per_key").is_none());
    }

    #[test]
    fn load_figures_are_not_run_figures() {
        let text = PLAN
            .replace("[[figure]]", "[load]\nsteps = 1\n[[figure]]")
            .replace("readrandom.ops_per_sec", "fillrandom.ops_per_sec");
        let e = Plan::parse(&text).unwrap_err();
        assert!(e.0.contains("load steps"), "{e}");
    }
}
