//! The figures of one run, named and computed the same way for every engine (see the metric
//! table in docs/metrics.md): from the parsed db_bench-format output, the engine's JSON where it
//! has more (lsmlab), the kernel's figures of each step's process (`process`), and the database directory.

use super::output::{Histogram, Output};
use crate::plan::vocabulary::SIM;
use std::collections::BTreeMap;

/// Metric name → value, for one run.
pub type Metrics = BTreeMap<String, f64>;

/// Percentiles every latency gets, with the suffix of their metric name.
pub const PERCENTILES: &[(f64, &str)] =
    &[(50.0, "p50"), (95.0, "p95"), (99.0, "p99"), (99.9, "p99.9")];

fn latency(m: &mut Metrics, prefix: &str, h: &Histogram) {
    for &(p, name) in PERCENTILES {
        if let Some(v) = h.percentile(p) {
            m.insert(format!("{prefix}.{name}_us"), v);
        }
    }
    if h.count > 0 {
        m.insert(format!("{prefix}.max_us"), h.max);
        m.insert(format!("{prefix}.mean_us"), h.average);
    }
}

/// Figures of a db_bench-format output. `threads` turns LevelDB's micros/op into ops/sec.
pub fn from_bench_output(m: &mut Metrics, step_label: &str, out: &Output, threads: f64) {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for b in &out.benchmarks {
        let n = seen.entry(b.name.clone()).or_insert(0);
        *n += 1;
        let name = if *n == 1 {
            b.name.clone()
        } else {
            format!("{}#{n}", b.name)
        };
        m.insert(format!("{name}.micros_per_op"), b.micros_per_op);
        // LevelDB prints no ops/sec: its micros/op is summed thread time per op.
        let ops = b
            .ops_per_sec
            .or_else(|| (b.micros_per_op > 0.0).then(|| threads.max(1.0) * 1e6 / b.micros_per_op));
        if let Some(v) = ops {
            m.insert(format!("{name}.ops_per_sec"), v);
        }
        if let Some(v) = b.mb_per_sec {
            m.insert(format!("{name}.mb_per_sec"), v);
        }
        if let Some(found) = found_fraction(&b.message) {
            m.insert(format!("{name}.found_fraction"), found);
        }
        for (i, h) in b.histograms.iter().enumerate() {
            if i == 0 {
                latency(m, &name, h);
            }
            latency(m, &format!("{name}.{}", h.op), h);
        }
    }
    from_statistics(m, step_label, out);
}

/// `(1284 of 2000 found)` → 0.642.
fn found_fraction(msg: &str) -> Option<f64> {
    let inner = msg.trim().strip_prefix('(')?.strip_suffix(" found)")?;
    let (a, b) = inner.split_once(" of ")?;
    let (a, b): (f64, f64) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
    (b > 0.0).then(|| a / b)
}

fn from_statistics(m: &mut Metrics, step: &str, out: &Output) {
    if out.tickers.is_empty() {
        return;
    }
    let t = |name: &str| out.tickers.get(name).copied().unwrap_or(0) as f64;
    let useful = t("rocksdb.bloom.filter.useful");
    let positive = t("rocksdb.bloom.filter.full.positive");
    let true_positive = t("rocksdb.bloom.filter.full.true.positive");
    let negatives = useful + positive - true_positive;
    if negatives > 0.0 {
        m.insert(
            format!("{step}.fpr"),
            (positive - true_positive) / negatives,
        );
    }
    let user = t("rocksdb.bytes.written");
    // Flush and compaction bytes already hold the blob files they wrote (RocksDB counts every
    // file a flush or compaction writes; lsmlab the same): adding
    // `rocksdb.blobdb.blob.file.bytes.written` would count blob bytes twice.
    let device = t("rocksdb.flush.write.bytes") + t("rocksdb.compact.write.bytes");
    // With nothing flushed or compacted yet, no byte reached a table: the amplification is
    // not 0, it is not measured, and the figure is absent (n/a) rather than 0.0000.
    if user > 0.0 && device > 0.0 {
        m.insert(format!("{step}.write_amp"), device / user);
    }
    let mb = 1024.0 * 1024.0;
    m.insert(
        format!("{step}.flush_write_mb"),
        t("rocksdb.flush.write.bytes") / mb,
    );
    m.insert(
        format!("{step}.compact_write_mb"),
        t("rocksdb.compact.write.bytes") / mb,
    );
    m.insert(
        format!("{step}.compact_read_mb"),
        t("rocksdb.compact.read.bytes") / mb,
    );
    if let Some(v) = out.tickers.get("lsmlab.filter.bytes") {
        m.insert(format!("{step}.filter_mb"), *v as f64 / mb);
        let keys = out.tickers.get("lsmlab.filter.keys").copied().unwrap_or(0);
        if let Some(bpk) = lsmlab_drivers::readout::formulas::filter_bits_per_key(*v, keys) {
            m.insert(format!("{step}.filter_bits_per_key"), bpk);
        }
    }
    let hist = |name: &str| out.stat_histograms.get(name);
    if let Some(h) = hist("rocksdb.compaction.times.micros") {
        m.insert(
            format!("{step}.compactions"),
            h.get("COUNT").copied().unwrap_or(0.0),
        );
        m.insert(
            format!("{step}.compaction_time_s"),
            h.get("SUM").copied().unwrap_or(0.0) / 1e6,
        );
    }
    if let Some(h) = hist("rocksdb.compaction.times.cpu_micros") {
        m.insert(
            format!("{step}.compaction_cpu_s"),
            h.get("SUM").copied().unwrap_or(0.0) / 1e6,
        );
    }
    for (stat, name) in [
        ("rocksdb.sst.write.micros", "sst_write"),
        ("rocksdb.blobdb.blob.file.write.micros", "blob_file_write"),
        ("rocksdb.db.get.micros", "get"),
        ("rocksdb.db.write.micros", "write"),
    ] {
        if let Some(h) = hist(stat) {
            if h.get("COUNT").copied().unwrap_or(0.0) > 0.0 {
                for (k, suffix) in [("P50", "p50_us"), ("P99", "p99_us")] {
                    if let Some(v) = h.get(k) {
                        m.insert(format!("{step}.{name}.{suffix}"), *v);
                    }
                }
            }
        }
    }
}

/// lsmlab's own figures from its `--json` (bench: per benchmark; ycsb: the phase).
pub fn from_lsmlab_json(m: &mut Metrics, step_label: &str, doc: &serde_json::Value) {
    let lsm_fields = [
        "write_amp",
        "read_amp",
        "files_checked_per_get",
        "device_time_s",
        "filter_fpr",
    ];
    let put_block = |m: &mut Metrics, prefix: &str, block: &serde_json::Value| {
        for f in lsm_fields {
            if let Some(v) = block.get(f).and_then(|v| v.as_f64()) {
                m.insert(format!("{prefix}.lsmlab.{f}"), v);
            }
        }
        for (f, out) in [("filter_bytes", "filter_mb"), ("index_bytes", "index_mb")] {
            if let Some(v) = block.get(f).and_then(|v| v.as_f64()) {
                m.insert(format!("{prefix}.lsmlab.{out}"), v / (1024.0 * 1024.0));
            }
        }
        let whole = |f: &str| block.get(f).and_then(|v| v.as_u64());
        if let (Some(bytes), Some(keys)) = (whole("filter_bytes"), whole("filter_keys")) {
            if let Some(bpk) = lsmlab_drivers::readout::formulas::filter_bits_per_key(bytes, keys) {
                m.insert(format!("{prefix}.lsmlab.filter_bits_per_key"), bpk);
            }
        }
        // The layout's figures at the end of the step (FSLSM's float-ups and level 0).
        for f in ["float_ups", "read_ratio"] {
            if let Some(v) = block.get(f).and_then(|v| v.as_f64()) {
                m.insert(format!("{prefix}.lsmlab.{f}"), v);
            }
        }
        if let Some(t) = block
            .get("level0_triggers")
            .and_then(|t| t.get(0))
            .and_then(|v| v.as_f64())
        {
            m.insert(format!("{prefix}.lsmlab.level0_trigger"), t);
        }
        if let Some(all) = whole("level0_files") {
            // A policy without float-ups floats nothing: all of its level 0 was flushed.
            let floated = whole("level0_floated_files").unwrap_or(0);
            m.insert(format!("{prefix}.lsmlab.level0_files"), all as f64);
            m.insert(
                format!("{prefix}.lsmlab.level0_floated_files"),
                floated as f64,
            );
            m.insert(
                format!("{prefix}.lsmlab.level0_flushed_files"),
                all.saturating_sub(floated) as f64,
            );
        }
        // The FSLSM study's own definitions, under their own names.
        if let Some(sim) = block.get("sim") {
            for f in SIM {
                if let Some(v) = sim.get(f).and_then(|v| v.as_f64()) {
                    m.insert(format!("{prefix}.sim.{f}"), v);
                }
            }
        }
    };
    if let Some(list) = doc.get("benchmarks").and_then(|b| b.as_array()) {
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for b in list {
            let name = b
                .get("name")
                .and_then(|n| n.as_str())
                .unwrap_or("?")
                .to_string();
            let n = seen.entry(name.clone()).or_insert(0);
            *n += 1;
            let name = if *n == 1 { name } else { format!("{name}#{n}") };
            if let Some(block) = b.get("lsmlab") {
                put_block(m, &name, block);
            }
        }
        return;
    }
    // A YCSB phase.
    if let Some(tp) = doc.get("throughput_ops_per_sec").and_then(|v| v.as_f64()) {
        m.insert(format!("{step_label}.ops_per_sec"), tp);
    }
    if let Some(ops) = doc.get("per_operation").and_then(|v| v.as_object()) {
        for (op, rec) in ops {
            let op = op.to_lowercase();
            if let Some(l) = rec.get("latency_us") {
                for (k, out) in [
                    ("p50_us", "p50_us"),
                    ("p95_us", "p95_us"),
                    ("p99_us", "p99_us"),
                    ("p99_9_us", "p99.9_us"),
                    ("max_us", "max_us"),
                    ("mean_us", "mean_us"),
                ] {
                    if let Some(v) = l.get(k).and_then(|v| v.as_f64()) {
                        m.insert(format!("{step_label}.{op}.{out}"), v);
                    }
                }
            }
        }
    }
    if let Some(block) = doc.get("lsmlab") {
        put_block(m, step_label, block);
        if let Some(v) = block.get("compactions").and_then(|v| v.as_f64()) {
            m.insert(format!("{step_label}.compactions"), v);
        }
        if let Some(v) = block.get("compaction_write_bytes").and_then(|v| v.as_f64()) {
            m.insert(
                format!("{step_label}.compact_write_mb"),
                v / (1024.0 * 1024.0),
            );
        }
    }
}

/// Bytes under `dir` (files only), for the DB size after a run.
pub fn dir_bytes(dir: &std::path::Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.flatten()
        .map(|e| match e.metadata() {
            Ok(md) if md.is_dir() => dir_bytes(&e.path()),
            Ok(md) => md.len(),
            Err(_) => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::figures::output::parse;

    #[test]
    fn leveldb_ops_per_sec_comes_from_micros_per_op_and_threads() {
        let out = parse("fillrandom   :       4.000 micros/op;   27.6 MB/s\n");
        let mut m = Metrics::new();
        from_bench_output(&mut m, "s", &out, 2.0);
        assert_eq!(m["fillrandom.ops_per_sec"], 500_000.0);
        assert_eq!(m["fillrandom.mb_per_sec"], 27.6);
    }

    #[test]
    fn fpr_and_write_amp_from_tickers() {
        let out = parse(
            "rocksdb.bloom.filter.useful COUNT : 90\nrocksdb.bloom.filter.full.positive COUNT : 30\nrocksdb.bloom.filter.full.true.positive COUNT : 20\nrocksdb.bytes.written COUNT : 1000\nrocksdb.flush.write.bytes COUNT : 1500\nrocksdb.compact.write.bytes COUNT : 1500\n",
        );
        let mut m = Metrics::new();
        from_bench_output(&mut m, "fill", &out, 1.0);
        // 10 false positives among 100 probes of absent keys.
        assert!((m["fill.fpr"] - 0.1).abs() < 1e-12);
        assert_eq!(m["fill.write_amp"], 3.0);
        assert!(
            !m.contains_key("fill.filter_bits_per_key"),
            "no filter tickers: no figure"
        );
    }

    #[test]
    fn filter_bits_per_key_from_the_filter_tickers() {
        let out = parse("lsmlab.filter.bytes COUNT : 1250\nlsmlab.filter.keys COUNT : 1000\n");
        let mut m = Metrics::new();
        from_bench_output(&mut m, "fill", &out, 1.0);
        assert_eq!(m["fill.filter_bits_per_key"], 10.0);
        let out = parse("lsmlab.filter.bytes COUNT : 0\nlsmlab.filter.keys COUNT : 0\n");
        let mut m = Metrics::new();
        from_bench_output(&mut m, "fill", &out, 1.0);
        assert!(
            !m.contains_key("fill.filter_bits_per_key"),
            "no table yet: n/a, not 0"
        );
    }

    #[test]
    fn write_amp_is_absent_when_nothing_was_flushed() {
        let out =
            parse("rocksdb.bytes.written COUNT : 1000\nrocksdb.flush.write.bytes COUNT : 0\n");
        let mut m = Metrics::new();
        from_bench_output(&mut m, "fill", &out, 1.0);
        assert!(!m.contains_key("fill.write_amp"), "{m:?}");
        assert_eq!(m["fill.flush_write_mb"], 0.0);
    }

    #[test]
    fn repeated_benchmarks_get_numbered() {
        let out = parse("readrandom : 2.0 micros/op 500000 ops/sec\nreadrandom : 4.0 micros/op 250000 ops/sec\n");
        let mut m = Metrics::new();
        from_bench_output(&mut m, "s", &out, 1.0);
        assert_eq!(m["readrandom.ops_per_sec"], 500000.0);
        assert_eq!(m["readrandom#2.ops_per_sec"], 250000.0);
    }

    #[test]
    fn a_ycsb_phase_gives_the_layout_figures_and_the_studys_metrics() {
        let doc = serde_json::json!({
            "throughput_ops_per_sec": 1000.0,
            "lsmlab": {
                "read_amp": 1.5,
                "float_ups": 7,
                "read_ratio": 0.8,
                "level0_triggers": [116, 132, 148],
                "level0_files": 10,
                "level0_floated_files": 6,
                "sim": {"read_amp": 9.0, "write_amp": 2.5, "major_mb": 3.0, "minor_mb": 1.0, "latency_s": 4.0}
            }
        });
        let mut m = Metrics::new();
        from_lsmlab_json(&mut m, "run", &doc);
        assert_eq!(m["run.lsmlab.read_amp"], 1.5);
        assert_eq!(m["run.sim.read_amp"], 9.0);
        assert_eq!(m["run.sim.latency_s"], 4.0);
        assert_eq!(m["run.lsmlab.float_ups"], 7.0);
        assert_eq!(m["run.lsmlab.level0_trigger"], 116.0);
        assert_eq!(m["run.lsmlab.level0_floated_files"], 6.0);
        assert_eq!(m["run.lsmlab.level0_flushed_files"], 4.0);
        // A leveled tree: no read ratio, and every level-0 table was flushed.
        let doc = serde_json::json!({"lsmlab": {"read_ratio": null, "level0_files": 3, "level0_floated_files": null}});
        let mut m = Metrics::new();
        from_lsmlab_json(&mut m, "run", &doc);
        assert!(!m.contains_key("run.lsmlab.read_ratio"));
        assert_eq!(m["run.lsmlab.level0_flushed_files"], 3.0);
        assert_eq!(m["run.lsmlab.level0_floated_files"], 0.0);
        // Every name given is one a plan may use.
        for name in m.keys() {
            assert!(
                name.starts_with("run.lsmlab.") || name.starts_with("run.sim."),
                "{name}"
            );
        }
    }

    #[test]
    fn found_fraction_reads_the_message() {
        assert_eq!(found_fraction("(5 of 10 found)"), Some(0.5));
        assert_eq!(found_fraction("(0 of 0 found)"), None);
        assert_eq!(found_fraction(""), None);
    }
}
