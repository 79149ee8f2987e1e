//! `lsmlab run`, `report` and `merge` on tiny plans: the results directory, resume after a
//! killed study, shards merged, loads built once and copied (and resumed), and refusals before
//! anything runs.

mod common;
use common::lsmlab;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

const TINY: &str = r#"
title = "tiny"
question = "Does a filter change anything at 100 keys?"
engines = ["lsmlab"]
repetitions = 2
seed = 11
[flags]
num = 300
reads = 100
value_size = 64
seed = 1
[matrix]
bloom_bits = [0, 10]
[[steps]]
bench = "fillrandom"
[[steps]]
bench = "readrandom"
[[figure]]
title = "Reads"
kind = "bar"
metrics = ["readrandom.ops_per_sec"]
x = "bloom_bits"
"#;

fn write_plan(dir: &Path, text: &str) -> String {
    let p = dir.join("plan.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

type Pairs = BTreeSet<(String, String)>;

/// (run id, metric) of every row of runs.csv, and the found fraction of each run.
fn runs_set(dir: &Path) -> (Pairs, Pairs) {
    let text = std::fs::read_to_string(dir.join("runs.csv")).unwrap();
    let mut keys = BTreeSet::new();
    let mut found = BTreeSet::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let (run, metric, value) = (f[1], f[f.len() - 2], f[f.len() - 1]);
        // Process figures are the kernel's, but their values are timing, not results.
        if metric.starts_with("process.") {
            continue;
        }
        keys.insert((run.to_string(), metric.to_string()));
        if metric.ends_with("found_fraction") {
            found.insert((run.to_string(), value.to_string()));
        }
    }
    (keys, found)
}

/// Every run's `result.json` without its metrics: id, status and error.
fn records(dir: &Path) -> String {
    let mut out = String::new();
    for e in std::fs::read_dir(dir.join("runs")).unwrap().flatten() {
        let text = std::fs::read_to_string(e.path().join("result.json")).unwrap_or_default();
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        out += &format!(
            "{}: {} {}\n",
            e.file_name().to_string_lossy(),
            doc["status"],
            doc["error"]
        );
    }
    out
}

#[test]
fn a_study_writes_its_results_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = write_plan(tmp.path(), TINY);
    let out = tmp.path().join("out");
    let (code, stdout, stderr) = lsmlab(&["run", &plan, "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim(), out.join("report.html").display().to_string());
    for f in [
        "plan.toml",
        "plan.json",
        "environment.json",
        "runs.csv",
        "summary.csv",
        "summary.json",
        "compare.csv",
        "report.md",
        "report.html",
    ] {
        assert!(out.join(f).is_file(), "{f}");
    }
    // 2 cells x 1 engine x 2 repetitions, each with its commands, outputs and time series.
    let runs: Vec<_> = std::fs::read_dir(out.join("runs"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(runs.len(), 4);
    let r = out.join("runs").join("c001-lsmlab-r0");
    for f in [
        "step0.cmd",
        "step0.stdout",
        "step1.stdout",
        "step1.json",
        "timeseries.csv",
        "result.json",
    ] {
        assert!(r.join(f).is_file(), "{f}");
    }
    let cmd = std::fs::read_to_string(r.join("step1.cmd")).unwrap();
    assert!(
        cmd.contains("--bloom_bits=10") && cmd.contains("--use_existing_db=1"),
        "{cmd}"
    );
    let (keys, found) = runs_set(&out);
    assert!(keys.contains(&(
        "c000-lsmlab-r1".to_string(),
        "readrandom.ops_per_sec".to_string()
    )));
    assert!(keys.contains(&(
        "c001-lsmlab-r0".to_string(),
        "readrandom.p99_us".to_string()
    )));
    let rows = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    // The kernel's figures of every run, however short: a peak of at least a MiB, its CPU.
    for metric in [
        "process.rss_peak_mb",
        "process.cpu_user_s",
        "readrandom.rss_peak_mb",
        "readrandom.cpu_us_per_op",
    ] {
        let values: Vec<f64> = rows
            .lines()
            .filter(|l| l.contains(&format!(",{metric},")))
            .map(|l| l.rsplit(',').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(values.len(), 4, "{metric}: {rows}");
        // A run this short may spend less CPU than the kernel's accounting resolves.
        let ok = |v: f64| {
            if metric.ends_with("_mb") {
                v > 1.0
            } else {
                v >= 0.0
            }
        };
        assert!(values.iter().all(|&v| ok(v)), "{metric}: {values:?}");
    }
    assert_eq!(found.len(), 4);
    let compare = std::fs::read_to_string(out.join("compare.csv")).unwrap();
    assert!(
        compare.contains("variant,readrandom.ops_per_sec,c001,c000,lsmlab,bloom_bits: 10 vs 0,2,"),
        "{compare}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert_well_formed_and_offline(&html);
    assert!(html.contains("Does a filter change anything at 100 keys?"));
    assert!(html.contains("<svg"), "plots are inline");
    assert!(out.join("plots").join("01-reads-0.png").is_file());
    // `report` rebuilds without running anything.
    std::fs::remove_file(out.join("report.html")).unwrap();
    let (code, stdout, stderr) = lsmlab(&["report", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.trim().ends_with("report.html"));
    assert!(out.join("report.html").is_file());
}

#[test]
fn report_checks_the_runs_it_reads_against_the_plan() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = write_plan(tmp.path(), TINY);
    let out = tmp.path().join("out");
    assert_eq!(lsmlab(&["run", &plan, "--out", out.to_str().unwrap()]).0, 0);
    let dir = out.to_str().unwrap();
    let runs = out.join("runs");
    let record = |id: &str| runs.join(id).join("result.json");
    // A run being built is not a run, even with a result.json in it.
    let gone = "c001-lsmlab-r1";
    std::fs::rename(runs.join(gone), runs.join(format!("{gone}.partial"))).unwrap();
    let (code, _, stderr) = lsmlab(&["report", dir]);
    assert_ne!(code, 0);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("1 run of the plan is missing: c001-lsmlab-r1"),
        "{stderr}"
    );
    let (code, _, stderr) = lsmlab(&["report", dir, "--allow-missing"]);
    assert_eq!(code, 0, "{stderr}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("1 of 4 runs of the plan missing (drawn with --allow-missing): c001-lsmlab-r1"),
        "{md}"
    );
    std::fs::rename(runs.join(format!("{gone}.partial")), runs.join(gone)).unwrap();
    assert_eq!(lsmlab(&["report", dir]).0, 0);
    // A record that does not belong where it is, or to the plan, is refused by its file.
    let good = std::fs::read_to_string(record("c000-lsmlab-r0")).unwrap();
    for (from, to, expect) in [
        (
            "\"cell\": 0,",
            "\"cell\": 99999999999,",
            "is not a cell of plan.json",
        ),
        (
            "\"id\": \"c000-lsmlab-r0\"",
            "\"id\": \"c000-lsmlab-r1\"",
            "is not its directory's name",
        ),
        ("\"rep\": 0,", "\"rep\": 1,", "does not match its cell"),
        (
            "\"engine\": \"lsmlab\"",
            "\"engine\": \"rocksdb\"",
            "is not an engine of plan.json",
        ),
    ] {
        assert!(good.contains(from), "{from}: {good}");
        std::fs::write(record("c000-lsmlab-r0"), good.replace(from, to)).unwrap();
        let (code, _, stderr) = lsmlab(&["report", dir]);
        assert_ne!(code, 0, "{to}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains("c000-lsmlab-r0/result.json") && stderr.contains(expect),
            "{to}: {stderr}"
        );
    }
    // Not UTF-8 is not skipped.
    let mut bytes = good.clone().into_bytes();
    bytes.push(0xff);
    std::fs::write(record("c000-lsmlab-r0"), bytes).unwrap();
    let (code, _, stderr) = lsmlab(&["report", dir]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("c000-lsmlab-r0/result.json: not UTF-8"),
        "{stderr}"
    );
}

#[test]
fn report_with_an_edited_plan_draws_its_figures_and_refuses_other_settings() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = write_plan(tmp.path(), TINY);
    let out = tmp.path().join("out");
    assert_eq!(lsmlab(&["run", &plan, "--out", out.to_str().unwrap()]).0, 0);
    let dir = out.to_str().unwrap();
    let edited = tmp.path().join("edited.toml");
    let added = "[[figure]]\ntitle = \"Writes added later\"\nkind = \"bar\"\nmetrics = [\"fillrandom.ops_per_sec\"]\nx = \"bloom_bits\"\n";
    std::fs::write(&edited, format!("{TINY}{added}")).unwrap();
    let (code, _, stderr) = lsmlab(&["report", dir, "--plan", edited.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("## Writes added later"), "{md}");
    assert!(out
        .join("plots")
        .join("02-writes-added-later-0.svg")
        .is_file());
    // The directory keeps the edited plan: a plain `report` draws the figure again.
    std::fs::remove_file(out.join("plots").join("02-writes-added-later-0.svg")).unwrap();
    assert_eq!(lsmlab(&["report", dir]).0, 0);
    assert!(out
        .join("plots")
        .join("02-writes-added-later-0.svg")
        .is_file());
    // A flag the runs did not have is refused, named, and changes nothing.
    std::fs::write(&edited, TINY.replace("reads = 100", "reads = 200")).unwrap();
    let before = std::fs::read_to_string(out.join("plan.json")).unwrap();
    let (code, _, stderr) = lsmlab(&["report", dir, "--plan", edited.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("flags.reads is 200, was 100"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(out.join("plan.json")).unwrap(),
        before
    );
}

#[test]
fn a_heatmap_figure_is_drawn_with_its_table_in_the_markdown() {
    let tmp = tempfile::tempdir().unwrap();
    let text = TINY.replace("bloom_bits = [0, 10]", "bloom_bits = [0, 10]\nvalue_size = [64, 128]")
        .replace("value_size = 64\n", "")
        + "[[figure]]\ntitle = \"Reads against no filter\"\nkind = \"heatmap\"\nmetrics = [\"readrandom.ops_per_sec\"]\nx = \"value_size\"\nseries = \"bloom_bits\"\nbaseline = \"0\"\n";
    let plan = write_plan(tmp.path(), &text);
    let out = tmp.path().join("out");
    let (code, _, stderr) = lsmlab(&["run", &plan, "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("## Reads against no filter: readrandom.ops_per_sec"),
        "{md}"
    );
    assert!(
        md.contains("| value_size | 10 |"),
        "a column per series value but the baseline: {md}"
    );
    assert!(
        md.contains("| 64 B | ") && md.contains("| 128 B | "),
        "byte sizes in units: {md}"
    );
    let plot = out.join("plots").join("02-reads-against-no-filter-0.png");
    assert!(std::fs::read(plot).unwrap().starts_with(b"\x89PNG"));
}

#[test]
fn resume_after_a_killed_study_gives_the_same_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = write_plan(tmp.path(), TINY);
    let whole = tmp.path().join("whole");
    assert_eq!(
        lsmlab(&["run", &plan, "--out", whole.to_str().unwrap()]).0,
        0
    );
    let cut = tmp.path().join("cut");
    let mut child = Command::new(env!("CARGO_BIN_EXE_lsmlab"))
        .args(["run", &plan, "--out", cut.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once the first run is done (or it finished: resume must then do nothing).
    loop {
        let done = std::fs::read_dir(cut.join("runs"))
            .map(|rd| {
                rd.flatten()
                    .any(|e| !e.file_name().to_string_lossy().ends_with(".partial"))
            })
            .unwrap_or(false);
        if done || child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    let (code, _, stderr) = lsmlab(&["run", "--resume", cut.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        runs_set(&whole),
        runs_set(&cut),
        "resume printed:\n{stderr}\nrecords of the resumed study:\n{}",
        records(&cut)
    );
    // No database of the killed attempt is left behind.
    assert!(!cut.join("db").exists());
    assert!(!std::fs::read_dir(cut.join("runs"))
        .unwrap()
        .flatten()
        .any(|e| e.file_name().to_string_lossy().ends_with(".partial")));
}

#[test]
fn shards_merged_equal_the_whole_study() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = write_plan(tmp.path(), TINY);
    let whole = tmp.path().join("whole");
    assert_eq!(
        lsmlab(&["run", &plan, "--out", whole.to_str().unwrap()]).0,
        0
    );
    let mut dirs = Vec::new();
    for i in 0..2 {
        let d = tmp.path().join(format!("shard{i}"));
        let (code, _, stderr) = lsmlab(&[
            "run",
            &plan,
            "--shard",
            &format!("{i}/2"),
            "--out",
            d.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stderr}");
        dirs.push(d.display().to_string());
    }
    let merged = tmp.path().join("merged");
    let mut args = vec!["merge", "--out", merged.to_str().unwrap()];
    args.extend(dirs.iter().map(String::as_str));
    let (code, _, stderr) = lsmlab(&args);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(runs_set(&whole).0, runs_set(&merged).0);
    // Shards of another plan are refused.
    let other = write_plan(
        tmp.path(),
        &TINY.replace("repetitions = 2", "repetitions = 1"),
    );
    let o = tmp.path().join("other");
    assert_eq!(
        lsmlab(&[
            "run",
            &other,
            "--shard",
            "0/2",
            "--out",
            o.to_str().unwrap()
        ])
        .0,
        0
    );
    let (code, _, stderr) = lsmlab(&[
        "merge",
        "--out",
        tmp.path().join("m2").to_str().unwrap(),
        &dirs[0],
        o.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(stderr.contains("another plan"), "{stderr}");
    // The order is one numbering again: every run's position, each once.
    let mut orders: Vec<u64> = std::fs::read_dir(merged.join("runs"))
        .unwrap()
        .flatten()
        .map(|e| {
            let doc: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(e.path().join("result.json")).unwrap(),
            )
            .unwrap();
            doc["order"].as_u64().unwrap()
        })
        .collect();
    orders.sort();
    assert_eq!(orders, (0..orders.len() as u64).collect::<Vec<_>>());
    // A shard given twice: refused, not counted twice (merge_refuses_missing_and_duplicate_runs_
    // and_renumbers_the_order covers missing shards and runs).
    let (code, _, stderr) = lsmlab(&[
        "merge",
        "--out",
        tmp.path().join("twice").to_str().unwrap(),
        &dirs[0],
        &dirs[0],
    ]);
    assert_eq!(code, 1);
    assert!(stderr.contains("shard 0/2 given twice"), "{stderr}");
}

#[test]
fn merge_refuses_missing_and_duplicate_runs_and_renumbers_the_order() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = write_plan(tmp.path(), TINY);
    let out = |name: &str| tmp.path().join(name).display().to_string();
    let s0 = out("s0");
    let (code, _, stderr) = lsmlab(&["run", &plan, "--shard", "0/2", "--out", &s0]);
    assert_eq!(code, 0, "{stderr}");
    // Shard 1 of 2 (cell c001: 2 runs) is not given: refused, naming the shard and cell.
    let (code, _, stderr) = lsmlab(&["merge", "--out", &out("m1"), &s0]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("2 of 4 runs missing")
            && stderr.contains("shard 1/2 was not given (2 runs of cells c001)"),
        "{stderr}"
    );
    // With --allow-missing it merges, says so, and records what is missing.
    let (code, _, stderr) = lsmlab(&["merge", "--allow-missing", "--out", &out("m2"), &s0]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("merged 2 runs from 1 of 2 shards, 1 machine; 2 runs missing"),
        "{stderr}"
    );
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.path().join("m2/merge.json")).unwrap())
            .unwrap();
    assert_eq!(record["missing"].as_array().unwrap().len(), 2);
    let report = std::fs::read_to_string(tmp.path().join("m2/report.md")).unwrap();
    assert!(
        report.contains("merged from 1 of 2 shards, run on 1 machine; 2 runs missing"),
        "the report says what the merge lacks"
    );
    // A copy of shard 0 claiming to be shard 1 of 2: every run's order is its place in the
    // merged order; the same shard twice, and a run in two directories, are refused.
    let copy = out("s1");
    std::fs::create_dir_all(&copy).unwrap();
    for f in ["plan.json", "plan.toml", "environment.json"] {
        std::fs::copy(Path::new(&s0).join(f), Path::new(&copy).join(f)).unwrap();
    }
    let (code, _, stderr) = lsmlab(&["merge", "--out", &out("m3"), &s0, &copy]);
    assert_eq!(code, 1);
    assert!(stderr.contains("shard 0/2 given twice"), "{stderr}");
    let plan_json = Path::new(&s0).join("plan.json");
    let mut other: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&plan_json).unwrap()).unwrap();
    other["shard"]["index"] = serde_json::Value::from(1);
    other["order"] = serde_json::json!(["c001-lsmlab-r1", "c001-lsmlab-r0"]);
    std::fs::write(Path::new(&copy).join("plan.json"), other.to_string()).unwrap();
    let mut runs: Vec<_> = std::fs::read_dir(Path::new(&s0).join("runs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    runs.sort();
    for (rep, run) in runs.iter().enumerate() {
        let dup = Path::new(&copy)
            .join("runs")
            .join(format!("c001-lsmlab-r{rep}"));
        std::fs::create_dir_all(&dup).unwrap();
        // Shard 1's runs, made from shard 0's: a record names its own run, cell and axes.
        let mut rec: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(run.join("result.json")).unwrap())
                .unwrap();
        rec["id"] = serde_json::Value::from(format!("c001-lsmlab-r{rep}"));
        rec["cell"] = serde_json::Value::from(1);
        rec["rep"] = serde_json::Value::from(rep);
        rec["axes"] = other["cells"][1]["values"].clone();
        std::fs::write(dup.join("result.json"), rec.to_string()).unwrap();
    }
    let (code, _, stderr) = lsmlab(&["merge", "--out", &out("m4"), &s0, &copy]);
    assert_eq!(code, 0, "{stderr}");
    let order_of = |run: &str| -> u64 {
        let text =
            std::fs::read_to_string(tmp.path().join("m4/runs").join(run).join("result.json"))
                .unwrap();
        serde_json::from_str::<serde_json::Value>(&text).unwrap()["order"]
            .as_u64()
            .unwrap()
    };
    // Shard 0's two runs take places 0 and 1, shard 1's follow in the order it ran.
    let mut first: Vec<u64> = ["c000-lsmlab-r0", "c000-lsmlab-r1"].map(order_of).to_vec();
    first.sort();
    assert_eq!(first, [0, 1]);
    assert_eq!(
        (order_of("c001-lsmlab-r1"), order_of("c001-lsmlab-r0")),
        (2, 3)
    );
    let dup = Path::new(&copy).join("runs").join("c000-lsmlab-r0");
    std::fs::create_dir_all(&dup).unwrap();
    std::fs::copy(runs[0].join("result.json"), dup.join("result.json")).unwrap();
    // A run of shard 0's cell in shard 1 is not a run of shard 1's plan: refused by its file
    // there, before anything is merged.
    let (code, _, stderr) = lsmlab(&["merge", "--out", &out("m5"), &s0, &copy]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains(&dup.join("result.json").display().to_string())
            && stderr.contains("run c000-lsmlab-r0 is not a run of plan.json"),
        "{stderr}"
    );
    assert!(!tmp.path().join("m5").exists());
}

#[test]
fn a_failed_merge_leaves_nothing_names_the_shards_file_and_a_retry_works() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = write_plan(tmp.path(), TINY);
    let mut dirs = Vec::new();
    for i in 0..2 {
        let d = tmp.path().join(format!("s{i}"));
        let (code, _, stderr) = lsmlab(&[
            "run",
            &plan,
            "--shard",
            &format!("{i}/2"),
            "--out",
            d.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stderr}");
        dirs.push(d.display().to_string());
    }
    let out = tmp.path().join("merged");
    let merge = |extra: &[&str]| {
        let mut args = vec!["merge", "--out", out.to_str().unwrap()];
        args.extend(dirs.iter().map(String::as_str));
        args.extend(extra);
        lsmlab(&args)
    };
    // A record of shard 1 made to claim a cell the plan lacks.
    let file = Path::new(&dirs[1]).join("runs/c001-lsmlab-r0/result.json");
    let good = std::fs::read_to_string(&file).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&good).unwrap();
    doc["cell"] = serde_json::json!(99_999_999_999u64);
    std::fs::write(&file, doc.to_string()).unwrap();
    let (code, _, stderr) = merge(&[]);
    assert_eq!(code, 1);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&file.display().to_string()) && stderr.contains("not a cell of plan.json"),
        "{stderr}"
    );
    assert!(!out.exists(), "a failed merge leaves no --out");
    assert!(!tmp.path().join("merged.partial").exists());
    // Mended, the same command merges.
    std::fs::write(&file, &good).unwrap();
    let (code, _, stderr) = merge(&[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(out.join("report.html").is_file() && !tmp.path().join("merged.partial").exists());
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(!md.contains("merged.partial"), "the report names --out");
    // Not over a merge already there, and never inside a shard.
    let (code, _, stderr) = merge(&[]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("already exists and is not empty"),
        "{stderr}"
    );
    let inside = Path::new(&dirs[0]).join("merged");
    let (code, _, stderr) = lsmlab(&[
        "merge",
        "--out",
        inside.to_str().unwrap(),
        &dirs[0],
        &dirs[1],
    ]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("inside the input results directory"),
        "{stderr}"
    );
    assert!(!inside.exists());
}

#[test]
fn dry_run_prints_cells_order_and_estimate() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = write_plan(tmp.path(), TINY);
    let (code, stdout, stderr) = lsmlab(&[
        "run",
        &plan,
        "--dry-run",
        "--out",
        tmp.path().join("o").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("c001 bloom_bits=10"), "{stdout}");
    assert!(stdout.contains("4 runs in this order:"), "{stdout}");
    assert!(stdout.contains("estimate: "), "{stdout}");
    assert!(!tmp.path().join("o").exists());
}

#[test]
fn bad_plans_are_refused_before_anything_runs() {
    let tmp = tempfile::tempdir().unwrap();
    for (text, expect) in [
        (
            TINY.replace("repetitions = 2", "repetitons = 2"),
            "repetitons",
        ),
        (
            TINY.replace("value_size = 64", "valu_size = 64"),
            "--valu_size",
        ),
        (
            TINY.replace("engines = [\"lsmlab\"]", "engines = [\"leveldb\"]"),
            "engine leveldb",
        ),
        (
            TINY.replace("engines = [\"lsmlab\"]", "engines = [\"lsmlab\", \"x\"]")
                + "[engine.x]\nbinary = \"/bin/true\"\nkind = \"leveldb\"\n",
            "engine x: --seed=1",
        ),
    ] {
        let out = tmp.path().join("o");
        let plan = write_plan(tmp.path(), &text);
        let (code, stdout, stderr) = lsmlab(&["run", &plan, "--out", out.to_str().unwrap()]);
        assert_eq!(code, 1, "{text}");
        assert!(stderr.contains(expect), "{expect}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stdout.is_empty());
        assert!(!out.exists(), "nothing may run");
    }
}

/// Every opened element is closed in order (void elements and `/>` aside), and nothing is
/// fetched: no script, no external URL, no stylesheet or image link.
fn assert_well_formed_and_offline(html: &str) {
    assert!(html.starts_with("<!DOCTYPE html>"));
    for bad in [
        "<script", "http://", "https://", "src=", "<link", "@import", "url(",
    ] {
        assert!(!html.contains(bad), "{bad}");
    }
    let void = ["meta", "br", "img", "hr", "input"];
    let mut stack: Vec<String> = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let end = rest.find('>').expect("tag closed");
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if tag.starts_with('!') || tag.starts_with('?') || tag.ends_with('/') {
            continue;
        }
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if void.contains(&name.as_str()) {
            continue;
        }
        if tag.starts_with('/') {
            assert_eq!(
                stack.pop().as_deref(),
                Some(name.as_str()),
                "closing {name}"
            );
        } else {
            stack.push(name);
        }
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
}

/// Two value sizes (the load differs) × two read counts (only the reads differ; the load
/// leaves `reads` out): four cells, two loads.
const LOADED: &str = r#"
title = "loaded"
engines = ["lsmlab"]
repetitions = 2
seed = 5
[flags]
num = 300
seed = 1
[matrix]
reads = [50, 100]
value_size = [64, 100]
[load]
steps = 1
skip_axes = ["reads"]
[[steps]]
bench = "fillrandom"
[[steps]]
bench = "readrandom"
"#;

/// Lines of `loads/built.log`: one per load built.
fn loads_built(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("loads").join("built.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The `load` of each run's result.json, by run id.
fn run_loads(dir: &Path) -> std::collections::BTreeMap<String, String> {
    std::fs::read_dir(dir.join("runs"))
        .unwrap()
        .flatten()
        .map(|e| {
            let text = std::fs::read_to_string(e.path().join("result.json")).unwrap();
            let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
            (
                doc["id"].as_str().unwrap().to_string(),
                doc["load"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// Every run's found fraction is 1: the reads after a copied load find every loaded key.
fn assert_all_found(dir: &Path, runs: usize) {
    let (_, found) = runs_set(dir);
    assert_eq!(found.len(), runs, "{found:?}");
    for (run, v) in &found {
        assert_eq!(v.parse::<f64>().unwrap(), 1.0, "{run}");
    }
}

#[test]
fn cells_that_load_alike_share_one_load_and_read_every_key_from_its_copy() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = write_plan(tmp.path(), LOADED);
    let out = tmp.path().join("out");
    let (code, _, stderr) = lsmlab(&["run", &plan, "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    // Two loads built, once each, for eight runs.
    let built = loads_built(&out);
    assert_eq!(built.len(), 2, "{built:?}");
    let loads = run_loads(&out);
    assert_eq!(loads.len(), 8);
    // c000/c002 differ only in reads, c000/c001 in value_size.
    let of = |run: &str| loads[run].clone();
    assert!(!of("c000-lsmlab-r0").is_empty());
    for r in 0..2 {
        assert_eq!(of(&format!("c000-lsmlab-r{r}")), of("c000-lsmlab-r0"));
        assert_eq!(of(&format!("c002-lsmlab-r{r}")), of("c000-lsmlab-r0"));
        assert_eq!(of(&format!("c001-lsmlab-r{r}")), of("c001-lsmlab-r0"));
        assert_eq!(of(&format!("c003-lsmlab-r{r}")), of("c001-lsmlab-r0"));
    }
    assert_ne!(of("c000-lsmlab-r0"), of("c001-lsmlab-r0"));
    for key in [of("c000-lsmlab-r0"), of("c001-lsmlab-r0")] {
        let l = out.join("loads").join(&key);
        for f in ["step0.cmd", "step0.stdout", "load.json", "timeseries.csv"] {
            assert!(l.join(f).is_file(), "{key}/{f}");
        }
        let cmd = std::fs::read_to_string(l.join("step0.cmd")).unwrap();
        assert!(cmd.contains("--benchmarks=fillrandom"), "{cmd}");
        assert!(!cmd.contains("--reads"), "the load leaves reads out: {cmd}");
        assert!(built.iter().filter(|b| b.starts_with(&key)).count() == 1);
    }
    // A run keeps the steps after the load, on the existing (copied) database, and says where
    // its load is.
    let r = out.join("runs").join("c002-lsmlab-r1");
    assert!(!r.join("step0.cmd").exists());
    let cmd = std::fs::read_to_string(r.join("step1.cmd")).unwrap();
    assert!(
        cmd.contains("--reads=100") && cmd.contains("--use_existing_db=1"),
        "{cmd}"
    );
    let note = std::fs::read_to_string(r.join("load.txt")).unwrap();
    assert!(
        note.contains(&format!("loads/{}/", of("c002-lsmlab-r1"))),
        "{note}"
    );
    let (keys, _) = runs_set(&out);
    assert!(keys.contains(&("c002-lsmlab-r1".into(), "readrandom.ops_per_sec".into())));
    assert!(
        !keys.iter().any(|(_, m)| m.starts_with("fillrandom.")),
        "load figures are the load's"
    );
    assert_all_found(&out, 8);
    // No database is left: loads go once their last run is done.
    assert!(!out.join("db").exists());
    // Shards build the loads of their cells; merged, the runs find the loads they name.
    let mut shards = Vec::new();
    for i in 0..2 {
        let d = tmp.path().join(format!("shard{i}"));
        let (code, _, stderr) = lsmlab(&[
            "run",
            &plan,
            "--shard",
            &format!("{i}/2"),
            "--out",
            d.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stderr}");
        shards.push(d.display().to_string());
    }
    let merged = tmp.path().join("merged");
    let (code, _, stderr) = lsmlab(&[
        "merge",
        "--out",
        merged.to_str().unwrap(),
        &shards[0],
        &shards[1],
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(loads_built(&merged).len(), 2);
    for key in run_loads(&merged).values() {
        assert!(
            merged.join("loads").join(key).join("load.json").is_file(),
            "{key}"
        );
    }
    // --dry-run shows the loads.
    let (code, stdout, stderr) = lsmlab(&["run", &plan, "--dry-run"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("load: steps 0-0, 2 loads"), "{stdout}");
    assert!(
        stdout.contains(&format!("load {} lsmlab: c000 c002", of("c000-lsmlab-r0"))),
        "{stdout}"
    );
}

/// A plan of one load shared by two cells, run through `script` as the lsmlab binary.
fn scripted(dir: &Path, script: &str) -> String {
    let path = dir.join("engine.sh");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nMARK={mark}\n{script}\nexec {bin} \"$@\"\n",
            mark = dir.join("killed").display(),
            bin = env!("CARGO_BIN_EXE_lsmlab")
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let text = LOADED.replace("value_size = [64, 100]\n", "").replace(
        "[load]",
        &format!("[engine.lsmlab]\nbinary = \"{}\"\n[load]", path.display()),
    );
    write_plan(dir, &text)
}

/// Kills the study the first time a command line contains `pattern`: before the step runs, or
/// (with `after`) once it ran.
fn kill_study_at(pattern: &str, after: bool) -> String {
    let run_first = if after {
        format!("{} \"$@\"; ", env!("CARGO_BIN_EXE_lsmlab"))
    } else {
        String::new()
    };
    format!(
        "case \"$*\" in *{pattern}*) if [ ! -e \"$MARK\" ]; then touch \"$MARK\"; {run_first}kill -9 $PPID; sleep 30; fi;; esac"
    )
}

#[test]
fn resume_reuses_a_whole_load_and_rebuilds_a_partial_one() {
    // Killed as the first read starts: the load is whole, and resume starts from it.
    let tmp = tempfile::tempdir().unwrap();
    let plan = scripted(tmp.path(), &kill_study_at("--benchmarks=readrandom", false));
    let out = tmp.path().join("out");
    let (code, _, _) = lsmlab(&["run", &plan, "--out", out.to_str().unwrap()]);
    assert_ne!(code, 0, "the study was to be killed");
    assert_eq!(loads_built(&out).len(), 1);
    let (code, _, stderr) = lsmlab(&["run", "--resume", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(loads_built(&out).len(), 1, "the whole load was built again");
    assert_all_found(&out, 4);
    assert!(!out.join("db").exists());

    // Killed once the load's step ran but before the load was marked whole: resume builds it
    // again and removes the partial one.
    let tmp = tempfile::tempdir().unwrap();
    let plan = scripted(tmp.path(), &kill_study_at("--benchmarks=fillrandom", true));
    let out = tmp.path().join("out");
    let (code, _, _) = lsmlab(&["run", &plan, "--out", out.to_str().unwrap()]);
    assert_ne!(code, 0, "the study was to be killed");
    assert!(loads_built(&out).is_empty());
    let partial: Vec<String> = std::fs::read_dir(out.join("db"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        partial.len() == 1 && partial[0].starts_with("load-") && partial[0].contains('.'),
        "{partial:?}"
    );
    let (code, _, stderr) = lsmlab(&["run", "--resume", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(loads_built(&out).len(), 1);
    assert_all_found(&out, 4);
    assert!(!out.join("db").exists());
}

#[test]
fn claims_are_decided_in_the_report_and_gate_the_exit() {
    let tmp = tempfile::tempdir().unwrap();
    // Every read finds its key in every run: a CI of exactly [1, 1].
    let text = format!(
        "{TINY}[[claim]]\nquote = \"reads find every key, filter or not\"\nseed_value = 1.0\nmetric = \"readrandom.found_fraction\"\nratio = {{ axis = \"bloom_bits\", a = 10, b = 0 }}\nrelation = \"about\"\ntolerance = 0.01\n[[claim]]\nquote = \"reads find twice the keys\"\nmetric = \"readrandom.found_fraction\"\nrelation = \"greater\"\nthan = 2\n"
    );
    let plan = write_plan(tmp.path(), &text);
    let out = tmp.path().join("out");
    let (code, stdout, stderr) = lsmlab(&[
        "run",
        &plan,
        "--out",
        out.to_str().unwrap(),
        "--check-claims",
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stdout.trim().ends_with("report.html"),
        "the report is written first"
    );
    let last = stderr.lines().last().unwrap_or("");
    assert!(
        last.contains("--check-claims: claim 2 (readrandom.found_fraction): lsmlab not reproduced"),
        "{stderr}"
    );
    assert!(!last.contains("claim 1"), "{last}");
    let csv = std::fs::read_to_string(out.join("claims.csv")).unwrap();
    assert!(
        csv.contains(",lsmlab,1.000000,1.000000,1.000000,2,reproduced,"),
        "{csv}"
    );
    assert!(csv.contains(",not reproduced,"), "{csv}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert_well_formed_and_offline(&html);
    let claims_at = html.find("Claims of the seed").unwrap();
    assert!(
        claims_at < html.find("Findings").unwrap(),
        "claims come first"
    );
    // `report` decides the same; only --check-claims makes it an error.
    let (code, _, stderr) = lsmlab(&["report", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, _) = lsmlab(&["report", out.to_str().unwrap(), "--check-claims"]);
    assert_eq!(code, 1);
}

#[test]
fn an_engine_built_with_assertions_is_marked_wherever_it_appears() {
    let tmp = tempfile::tempdir().unwrap();
    // A db_bench that lists its flags and warns, as a Debian build with assertions does.
    let fake = tmp.path().join("db_bench");
    std::fs::write(
        &fake,
        "#!/bin/sh\nif [ \"$1\" = --help ]; then for f in num reads value_size seed histogram statistics benchmarks db use_existing_db bloom_bits; do echo \"    -$f (x) type: int32\"; done; exit 0; fi\necho 'RocksDB:    version 7.8.3'\necho 'WARNING: Assertions are enabled; benchmarks unnecessarily slow'\necho 'fillrandom   :      10.000 micros/op 100000 ops/sec;'\necho 'readrandom   :      10.000 micros/op 100000 ops/sec; (100 of 100 found)'\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let text = TINY.replace("engines = [\"lsmlab\"]", "engines = [\"lsmlab\", \"rocksdb\"]")
        + "[[claim]]\nquote = \"q\"\nmetric = \"readrandom.found_fraction\"\nrelation = \"about\"\nseed_value = 1\n";
    let plan = write_plan(tmp.path(), &text);
    let out = tmp.path().join("out");
    let binary = format!("rocksdb={}", fake.display());
    let (code, _, stderr) = lsmlab(&[
        "run",
        &plan,
        "--out",
        out.to_str().unwrap(),
        "--binary",
        &binary,
    ]);
    assert_eq!(code, 0, "{stderr}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("(not a release build)") && md.contains("WARNING: Assertions are enabled"),
        "setup says so: {md}"
    );
    assert!(
        md.contains("| rocksdb\u{a0}† |") && md.contains("\n† an engine whose own output warned"),
        "the claims table marks it: {md}"
    );
    assert_eq!(
        md.matches("Assertions are enabled").count(),
        1,
        "the warning itself once, in the setup: {md}"
    );
    assert!(
        !md.contains("lsmlab [lsmlab:"),
        "only the engine that warned"
    );
}

#[test]
fn compare_says_same_for_a_study_against_itself_and_flags_a_slowdown() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = write_plan(tmp.path(), TINY);
    let base = tmp.path().join("base");
    assert_eq!(
        lsmlab(&["run", &plan, "--out", base.to_str().unwrap()]).0,
        0
    );
    let csv = tmp.path().join("c.csv");
    let (code, stdout, stderr) = lsmlab(&[
        "compare",
        base.to_str().unwrap(),
        base.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        !stdout.contains("slower") && !stdout.contains("faster"),
        "{stdout}"
    );
    assert!(!stderr.contains("warning"), "one plan, all runs: {stderr}");
    // Against itself every change is 0: "same" where the runs agree closely enough to say so,
    // "undetermined" (with its cost) where two tiny debug runs spread too much, and "not
    // compared" (listed, not failing) where a side has fewer than two values above 0, as the
    // disk reads of runs served from the page cache can.
    let rows = std::fs::read_to_string(&csv).unwrap();
    assert!(rows.lines().count() > 10);
    assert!(
        rows.lines().skip(1).all(|l| l.ends_with(",same,")
            || l.contains(",undetermined,")
            || l.contains(",not compared,")),
        "{rows}"
    );
    assert!(
        rows.lines()
            .any(|l| l.contains("found_fraction") && l.ends_with(",same,")),
        "a count that repeats exactly is the same: {rows}"
    );
    // --csv inside an input is refused before anything is read or written.
    let inside = base.join("runs.csv");
    let before = std::fs::read(&inside).unwrap();
    let (code, _, stderr) = lsmlab(&[
        "compare",
        base.to_str().unwrap(),
        base.to_str().unwrap(),
        "--csv",
        inside.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("--csv") && stderr.contains("inside the input"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&inside).unwrap(), before);
    // The same runs, their readrandom throughput set to 1000 and 1010 (the timings of tiny
    // debug runs spread too much for two of them to separate anything), and a candidate with
    // half of it: slower, and the gate fails.
    let copy = |to: &Path, scale: f64| {
        std::fs::create_dir_all(to.join("runs")).unwrap();
        std::fs::copy(base.join("plan.json"), to.join("plan.json")).unwrap();
        for e in std::fs::read_dir(base.join("runs")).unwrap().flatten() {
            let text = std::fs::read_to_string(e.path().join("result.json")).unwrap();
            let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
            let v = 1000.0 + 10.0 * doc["rep"].as_f64().unwrap();
            doc["metrics"]["readrandom.ops_per_sec"] = serde_json::json!(v * scale);
            let dir = to.join("runs").join(e.file_name());
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("result.json"), doc.to_string()).unwrap();
        }
    };
    let (steady, cand) = (tmp.path().join("steady"), tmp.path().join("cand"));
    copy(&steady, 1.0);
    copy(&cand, 0.5);
    let (code, stdout, stderr) =
        lsmlab(&["compare", steady.to_str().unwrap(), cand.to_str().unwrap()]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("| readrandom.ops_per_sec | -50.0 % |"),
        "{stdout}"
    );
    assert!(
        stderr.contains("slower by more than their smallest effect"),
        "{stderr}"
    );
}

#[test]
fn compare_never_calls_figures_cut_by_40_percent_same_and_warns_on_another_plan() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = write_plan(tmp.path(), TINY);
    let (base, cand) = (tmp.path().join("base"), tmp.path().join("cand"));
    for d in [&base, &cand] {
        let (code, _, stderr) = lsmlab(&["run", &plan, "--out", d.to_str().unwrap()]);
        assert_eq!(code, 0, "{stderr}");
    }
    // Every figure of the candidate's runs scaled down by 40 %: a slowdown (or a change of a
    // count) of 40 % that three-run timings may not resolve, but that must never be "same".
    for e in std::fs::read_dir(cand.join("runs")).unwrap().flatten() {
        let file = e.path().join("result.json");
        let mut doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for v in doc["metrics"].as_object_mut().unwrap().values_mut() {
            *v = serde_json::json!(v.as_f64().unwrap() * 0.6);
        }
        std::fs::write(&file, doc.to_string()).unwrap();
    }
    let csv = tmp.path().join("c.csv");
    let (code, stdout, stderr) = lsmlab(&[
        "compare",
        base.to_str().unwrap(),
        cand.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(!stderr.contains("ran different plans"), "{stderr}");
    let rows = std::fs::read_to_string(&csv).unwrap();
    let verdicts: Vec<&str> = rows
        .lines()
        .skip(1)
        .map(|l| l.rsplit(',').nth(1).unwrap())
        .collect();
    assert!(verdicts.len() > 10, "{rows}");
    assert!(!verdicts.contains(&"same"), "{rows}");
    // Counts repeat exactly across runs: their 40 % drop is certain.
    assert!(
        rows.lines()
            .any(|l| l.contains("found_fraction") && l.contains(",lower,")),
        "{rows}"
    );
    if verdicts.contains(&"slower") {
        assert_eq!(code, 1, "{stdout}");
        assert!(
            stderr.contains("slower by more than their smallest effect"),
            "{stderr}"
        );
    }
    if verdicts.contains(&"undetermined") {
        assert!(stdout.contains("## Undetermined"), "{stdout}");
    }
    // A candidate whose plan differs: compared, with one warning naming the difference.
    let plan_json = cand.join("plan.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&plan_json).unwrap()).unwrap();
    doc["plan"]["flags"]["value_size"] = serde_json::json!(128);
    std::fs::write(&plan_json, doc.to_string()).unwrap();
    let (_, _, stderr) = lsmlab(&["compare", base.to_str().unwrap(), cand.to_str().unwrap()]);
    let warned: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("ran different plans"))
        .collect();
    assert_eq!(warned.len(), 1, "{stderr}");
    assert!(
        warned[0].contains("plan.flags.value_size: 64 vs 128")
            || warned[0].contains("flags.value_size: 64 vs 128"),
        "{stderr}"
    );
}

#[test]
fn runs_record_their_times_load_and_the_build_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = write_plan(tmp.path(), TINY);
    let out = tmp.path().join("out");
    // Started outside any checkout: the commit is the build's, not the working directory's.
    let code = Command::new(env!("CARGO_BIN_EXE_lsmlab"))
        .args(["run", &plan, "--out", out.to_str().unwrap()])
        .current_dir(tmp.path())
        .status()
        .unwrap()
        .code();
    assert_eq!(code, Some(0));
    let doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("runs/c000-lsmlab-r0/result.json")).unwrap(),
    )
    .unwrap();
    let (a, b) = (
        doc["started"].as_str().unwrap(),
        doc["ended"].as_str().unwrap(),
    );
    assert!(a.len() == 16 && a <= b, "{a} {b}");
    assert_eq!(doc["load_average"].as_array().unwrap().len(), 2);
    let env: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("environment.json")).unwrap())
            .unwrap();
    assert_eq!(env["git_commit"].as_str().unwrap(), lsmlab_lab::GIT_COMMIT);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("| time (UTC) | first run started "), "{md}");
    assert!(md.contains("| load average | "), "{md}");
}

#[test]
fn resume_with_more_repetitions_runs_only_the_new_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = write_plan(tmp.path(), TINY);
    let out = tmp.path().join("out");
    assert_eq!(lsmlab(&["run", &plan, "--out", out.to_str().unwrap()]).0, 0);
    let before = std::fs::read_to_string(out.join("runs/c000-lsmlab-r0/result.json")).unwrap();
    let (code, _, stderr) = lsmlab(&[
        "run",
        "--resume",
        out.to_str().unwrap(),
        "--repetitions",
        "3",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("6 runs (4 done before)"), "{stderr}");
    assert!(out.join("runs/c001-lsmlab-r2").is_dir());
    let after = std::fs::read_to_string(out.join("runs/c000-lsmlab-r0/result.json")).unwrap();
    assert_eq!(before, after, "finished runs are kept");
    // Resumed again without the flag: the 3 repetitions it now has, nothing to run.
    let (code, _, stderr) = lsmlab(&["run", "--resume", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("6 runs (6 done before)"), "{stderr}");
}
