//! A step that flushes before its process exits keeps its work: a fill's write amplification is
//! the same whether or not a read step follows it, and a plan whose fill ends without a flush
//! is warned of in the report.

mod common;
use common::lsmlab;
use std::path::Path;

/// A fill of 2,000 keys of 100 bytes with `fill` as its step settings (by default the data
/// stays in the memtable until a flush), and, when `read` is given, a read step after it with
/// those settings.
fn plan(fill: &str, read: Option<&str>) -> String {
    let mut p = format!(
        r#"
title = "step boundaries"
engines = ["lsmlab"]
repetitions = 1
seed = 3
[flags]
num = 2000
reads = 200
value_size = 100
seed = 1
[[steps]]
name = "fill"
bench = "fillrandom"
{fill}
"#
    );
    if let Some(settings) = read {
        let bench = if settings.contains("bench") {
            String::new()
        } else {
            "bench = \"readrandom\"\n".to_string()
        };
        p += &format!("[[steps]]\nname = \"read\"\n{bench}{settings}\n");
    }
    p
}

/// Runs the plan; returns each metric of its one run (runs.csv) and the report.
fn run(dir: &Path, text: &str) -> (Vec<(String, f64)>, String) {
    std::fs::create_dir_all(dir).unwrap();
    let p = dir.join("plan.toml");
    std::fs::write(&p, text).unwrap();
    let out = dir.join("out");
    let (code, _, stderr) = lsmlab(&["run", p.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let csv = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    let metrics = csv
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[f.len() - 2].to_string(), f[f.len() - 1].parse().unwrap())
        })
        .collect();
    (
        metrics,
        std::fs::read_to_string(out.join("report.md")).unwrap(),
    )
}

fn get(m: &[(String, f64)], name: &str) -> Option<f64> {
    m.iter().find(|(k, _)| k == name).map(|(_, v)| *v)
}

#[test]
fn a_fill_keeps_its_write_amplification_whatever_follows() {
    let tmp = tempfile::tempdir().unwrap();
    // Alone, flushed by name; then followed by a read, flushed by default.
    let (alone, _) = run(&tmp.path().join("alone"), &plan("flush = true", None));
    let (followed, report) = run(&tmp.path().join("followed"), &plan("", Some("")));
    let wa = get(&alone, "fill.write_amp").expect("the flushed fill's write_amp");
    assert!(wa > 0.0, "{wa}");
    assert_eq!(get(&followed, "fill.write_amp"), Some(wa));
    assert_eq!(get(&followed, "read.flush_write_mb"), Some(0.0));
    assert!(!report.contains("Work carried across steps"), "{report}");

    // Without the flush, with 64 KiB memtables and background work done in the benchmark's
    // thread (so that every run counts the same): 1,500 keys leave three level-0 tables and a
    // memtable, which the read step's open writes out as level 0's fourth table; that sets off
    // a compaction the read step waits for. The fill's figures leave it out; the report says so.
    let (unflushed, report) = run(
        &tmp.path().join("unflushed"),
        &plan(
            "flush = false\nflags = { num = 1500, write_buffer_size = 65536, deterministic_background = true }",
            Some("bench = \"readrandom,waitforcompaction\"\nflags = { deterministic_background = true }"),
        ),
    );
    assert!(get(&unflushed, "read.compact_write_mb").is_some_and(|mb| mb > 0.0));
    assert!(report.contains("Work carried across steps"), "{report}");
    assert!(report.contains("steps[1] (read) wrote up to"), "{report}");
}
