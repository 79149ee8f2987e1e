//! The lab loses nothing: `run --out` never writes into a directory of someone else's files,
//! `report --plan` keeps the plan the runs were made with when the report fails, and
//! `run --resume --repetitions` never records fewer repetitions than ran.

mod common;
use common::lsmlab;
use std::path::Path;

const PLAN: &str = "title = \"t\"\nrepetitions = 2\n[flags]\nnum = 100\n[matrix]\nvalue_size = [64]\n[[steps]]\nbench = \"fillseq\"\n";

fn plan(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn run_out_refuses_a_file_and_a_directory_of_other_files() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let p = plan(d, "p.toml", PLAN);
    let mine = d.join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("report.html"), "my report").unwrap();
    let (code, stdout, err) = lsmlab(&["run", &p, "--out", mine.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("holds files that are not a study's results (e.g. report.html)"),
        "{err}"
    );
    assert!(stdout.is_empty());
    assert_eq!(
        std::fs::read_to_string(mine.join("report.html")).unwrap(),
        "my report"
    );
    assert!(!mine.join("runs").exists());
    let file = d.join("file");
    std::fs::write(&file, "x").unwrap();
    let (code, _, err) = lsmlab(&["run", &p, "--out", file.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("a file, not a directory"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
}

#[test]
fn report_plan_and_resume_repetitions_keep_the_recorded_plan() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let p = plan(d, "p.toml", PLAN);
    let out = d.join("out");
    let (code, _, err) = lsmlab(&["run", &p, "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let toml = std::fs::read_to_string(out.join("plan.toml")).unwrap();
    let json = std::fs::read_to_string(out.join("plan.json")).unwrap();

    // Fewer repetitions than ran: refused, nothing rewritten, the directory still reports.
    let (code, _, err) = lsmlab(&[
        "run",
        "--resume",
        out.to_str().unwrap(),
        "--repetitions",
        "1",
    ]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("--repetitions: 1 is below the 2 the study in"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("plan.json")).unwrap(),
        json
    );

    // A report that fails (runs.csv cannot be written) leaves the recorded plan as it was.
    let edited = plan(
        d,
        "edited.toml",
        &PLAN.replace("title = \"t\"", "title = \"u\""),
    );
    std::fs::remove_file(out.join("runs.csv")).unwrap();
    std::fs::create_dir(out.join("runs.csv")).unwrap();
    let (code, _, err) = lsmlab(&["report", out.to_str().unwrap(), "--plan", &edited]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        std::fs::read_to_string(out.join("plan.toml")).unwrap(),
        toml
    );
    assert_eq!(
        std::fs::read_to_string(out.join("plan.json")).unwrap(),
        json
    );
    // Once it can be written, the edited plan is adopted.
    std::fs::remove_dir(out.join("runs.csv")).unwrap();
    let (code, _, err) = lsmlab(&["report", out.to_str().unwrap(), "--plan", &edited]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(out.join("plan.toml"))
        .unwrap()
        .contains("title = \"u\""));
    let (code, _, err) = lsmlab(&["report", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// Rewrites the result.json of `run` in `dir` by `edit`.
fn edit_run(dir: &Path, run: &str, edit: impl Fn(&mut serde_json::Value)) {
    let path = dir.join("runs").join(run).join("result.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut v);
    std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

#[test]
fn compare_names_every_cell_and_metric_it_could_not_compare() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let p = plan(
        d,
        "p.toml",
        &PLAN.replace("value_size = [64]", "value_size = [64, 128]"),
    );
    let base = d.join("base");
    let (code, _, err) = lsmlab(&["run", &p, "--out", base.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let cand = d.join("cand");
    copy_tree(&base, &cand);
    // Alike: compared, exit 0.
    let (code, out, err) = lsmlab(&["compare", base.to_str().unwrap(), cand.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("): 0 on one side"), "{out}");
    // Every run of cell 1 failed on the candidate side; a metric 0 on the baseline side.
    for r in ["c001-lsmlab-r0", "c001-lsmlab-r1"] {
        edit_run(&cand, r, |v| {
            v["status"] = "failed".into();
            v["error"] = "exit status 101".into();
        });
    }
    let metric = "fillseq.zero_in_the_baseline";
    for (dir, value) in [(&base, 0.0), (&cand, 16.0)] {
        for r in ["c000-lsmlab-r0", "c000-lsmlab-r1"] {
            edit_run(dir, r, |v| {
                v["metrics"][metric] = value.into();
            });
        }
    }
    let csv = d.join("c.csv");
    let (code, out, err) = lsmlab(&[
        "compare",
        base.to_str().unwrap(),
        cand.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("## Not compared"), "{out}");
    assert!(
        out.contains("- cell value_size=128 engine lsmlab: 2 of 2 candidate runs failed\n"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "- cell value_size=64 engine lsmlab metric {metric}: 0 → 16 (mean of 2 and 2 runs): 0 on one side\n"
        )),
        "{out}"
    );
    let last = err.trim_end().lines().last().unwrap();
    assert!(
        last.starts_with("lsmlab: compare: 2 cells or metrics not compared"),
        "{err}"
    );
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert!(
        csv.contains(&format!(
            "value_size=64,lsmlab,{metric},,,,,,,,not compared,"
        )),
        "{csv}"
    );
}

#[test]
fn resume_refuses_a_shard_an_empty_directory_and_a_negative_wall_time() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let empty = d.join("empty");
    std::fs::create_dir(&empty).unwrap();
    let (code, _, err) = lsmlab(&["run", "--resume", empty.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("--resume") && err.contains("not a results directory"),
        "{err}"
    );
    let p = plan(
        d,
        "p.toml",
        &PLAN.replace("repetitions = 2", "repetitions = 1"),
    );
    let out = d.join("out");
    let (code, _, err) = lsmlab(&["run", &p, "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = lsmlab(&["run", "--resume", out.to_str().unwrap(), "--shard", "1/2"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("--shard: not with --resume"), "{err}");
    edit_run(&out, "c000-lsmlab-r0", |v| {
        v["metrics"]["process.wall_s"] = (-3999999996.0).into();
    });
    let (code, _, err) = lsmlab(&["report", out.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("metrics.process.wall_s is -3999999996; allowed 0 or more"),
        "{err}"
    );
}
