//! Hostile and mistaken plans given to `lsmlab run`: each is refused before anything runs (or,
//! for a run that fails, after the report), with a one-line error and exit status 1 — never an
//! abort, an endless read or an expansion of a billion cells.

mod common;
use common::lsmlab;
use std::path::Path;

const BASE: &str = "title = \"t\"\n[flags]\nnum = 200\n[[steps]]\nbench = \"fillseq\"\n";

fn plan(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// Runs `lsmlab run ARGS --dry-run` and asserts a one-line error containing `expect`.
fn refused(args: &[&str], expect: &str) {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.push("--dry-run");
    let (code, stdout, stderr) = lsmlab(&all);
    assert_eq!(code, 1, "{args:?}: {stdout}{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(
        stderr.contains(expect),
        "{args:?}: wanted {expect:?}, got {stderr}"
    );
    assert!(!stderr.contains("panicked"));
}

#[test]
fn hostile_inputs_are_one_line_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    refused(&["/dev/zero"], "larger than 1024 KiB");
    refused(
        &[&plan(
            d,
            "title.toml",
            &format!("title = \"{}\"\n", "x".repeat(3 << 20)),
        )],
        "larger than 1024 KiB",
    );
    refused(
        &[&plan(
            d,
            "long.toml",
            &BASE.replace("\"t\"", &format!("\"{}\"", "x".repeat(100_000))),
        )],
        "title: a string of 100000 bytes; allowed up to 4096",
    );
    refused(
        &[&plan(
            d,
            "nan.toml",
            &format!("{BASE}[engine.lsmlab]\n[scale.q]\nflags = {{ compression_ratio = nan }}\n"),
        )],
        "scale.q.flags.compression_ratio: NaN is not a finite number",
    );
    refused(
        &[&plan(
            d,
            "inf.toml",
            &BASE.replace("num = 200", "num = 200\ncompression_ratio = inf"),
        )],
        "plan: line 4: flags.compression_ratio: inf is not a finite number",
    );
    let mut axes = String::from("[matrix]\n");
    for i in 0..12 {
        axes += &format!("unknown{i} = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n");
    }
    refused(
        &[&plan(d, "twelve.toml", &format!("{BASE}{axes}"))],
        "matrix: 1000000000000 cells (unknown0 10 × ",
    );
    refused(
        &[&plan(d, "base.toml", BASE), "--scale", "nope"],
        "the plan has no [scale.NAME] sections",
    );
    refused(
        &[
            &plan(
                d,
                "scales.toml",
                &format!("{BASE}[scale.quick]\n[scale.paper]\n"),
            ),
            "--scale",
            "papr",
        ],
        "allowed: paper, quick; did you mean \"paper\"?",
    );
    refused(
        &[&plan(d, "load.toml", &format!("{BASE}[load]\nsteps = 1\n"))],
        "load.steps: the plan has one step",
    );
    refused(
        &[&plan(d, "reps.toml", BASE), "--repetitions", "4000000000"],
        "the limit is 1000000",
    );
}

#[test]
fn misspelt_names_are_refused_before_any_run_with_the_line() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let fig = "[matrix]\nvalue_size = [64, 128]\n[[figure]]\ntitle = \"f\"\nmetrics = [\"fillseq.ops_per_sec\"]\nx = \"value_size\"\n";
    let good = format!("{BASE}{fig}");
    let (code, _, stderr) = lsmlab(&["run", &plan(d, "good.toml", &good), "--dry-run"]);
    assert_eq!(code, 0, "{stderr}");
    for (from, to, expect) in [
        ("bench = \"fillseq\"", "bench = \"fillrandon\"", "plan: line 5: steps[0].bench: unknown benchmark \"fillrandon\"; did you mean \"fillrandom\"?"),
        ("\"fillseq.ops_per_sec\"", "\"fillseq.ops_per_sex\"", "plan: line 10: figure[0].metrics: no step produces metric \"fillseq.ops_per_sex\"; did you mean \"fillseq.ops_per_sec\"?"),
        ("x = \"value_size\"", "x = \"valuesize\"", "plan: line 11: figure[0].x: \"valuesize\" is not an axis of [matrix] nor engine; did you mean \"value_size\"?"),
    ] {
        let text = good.replace(from, to);
        let out = d.join("o");
        let (code, stdout, stderr) = lsmlab(&["run", &plan(d, "bad.toml", &text), "--out", out.to_str().unwrap()]);
        assert_eq!(code, 1, "{to}");
        assert!(stderr.trim().ends_with(expect), "{expect}\n{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stdout.is_empty() && !out.exists(), "nothing may run");
    }
}

#[test]
fn a_study_with_a_failed_run_exits_non_zero_after_its_report() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let p = plan(
        d,
        "p.toml",
        &BASE.replace("title = \"t\"", "title = \"t\"\nrepetitions = 1"),
    );
    let out = d.join("out");
    // Every run's program exits 1 at once.
    let (code, stdout, stderr) = lsmlab(&[
        "run",
        &p,
        "--out",
        out.to_str().unwrap(),
        "--lsmlab",
        "/bin/false",
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.trim().ends_with("report.html"), "{stdout}");
    assert!(
        stderr.lines().last().unwrap().contains("1 runs failed"),
        "{stderr}"
    );
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("## Failed runs"));
}
