//! What the lab cannot run is refused before anything runs, with one line naming the flag,
//! property or key and what is allowed: engine properties of `lsmlab ycsb`, contradictions of
//! `lsmlab bench`, and the values of every cell of a plan's matrix.

mod common;
use common::lsmlab;
use std::path::Path;

fn plan(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// Asserts exit 1 and one line on stderr containing each of `expect`.
fn one_line(args: &[&str], code: i32, err: &str, expect: &[&str]) {
    assert_eq!(code, 1, "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    for e in expect {
        assert!(err.contains(e), "{args:?}: expected {e:?} in {err}");
    }
}

#[test]
fn ycsb_refuses_unknown_and_invalid_engine_properties() {
    let tmp = tempfile::tempdir().unwrap();
    let db = format!("--db={}", tmp.path().join("db").display());
    for (p, expect) in [
        (
            "compaction_style=2",
            &[
                "-p compaction_style: invalid value 2",
                "allowed 0 (leveled), 1 (universal)",
            ][..],
        ),
        (
            "universal_size_ratio=-1",
            &["-p universal_size_ratio: invalid value -1"][..],
        ),
        (
            "universal_size_ration=5",
            &["-p universal_size_ration: unknown property; did you mean universal_size_ratio?"][..],
        ),
        (
            "lsmlab.compaction_style=2",
            &["-p lsmlab.compaction_style: invalid value 2"][..],
        ),
        (
            "recordcont=10",
            &["-p recordcont: unknown property; did you mean recordcount?"][..],
        ),
    ] {
        let args = ["ycsb", "load", "-P", "workloada", &db, "-p", p];
        let (code, _, err) = lsmlab(&args);
        one_line(&args, code, &err, expect);
        assert!(!tmp.path().join("db").exists(), "{p}: a database was made");
    }
    // A bare engine option is honoured as `lsmlab.<name>` is, without a warning: universal
    // compaction's flags are refused under leveled compaction, so the style took.
    let json = tmp.path().join("load.json");
    let (code, _, err) = lsmlab(&[
        "ycsb",
        "load",
        "-P",
        "workloada",
        &db,
        "-p",
        "recordcount=50",
        "-p",
        "compaction_style=1",
        "-p",
        "universal_size_ratio=5",
        &format!("--json={}", json.display()),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("warning"), "{err}");
    assert!(json.exists());
}

#[test]
fn bench_refuses_contradictions() {
    let tmp = tempfile::tempdir().unwrap();
    let db = format!("--db={}", tmp.path().join("db").display());
    for (flags, expect) in [
        (
            &["--compaction_style=0", "--universal_size_ratio=5"][..],
            "--universal_size_ratio: applies to universal compaction only",
        ),
        (
            &["--universal_max_merge_width=4"][..],
            "--universal_max_merge_width: applies to universal compaction only",
        ),
        (
            &["--compaction_style=0", "--layout=universal"][..],
            "--compaction_style: 0 (leveled) contradicts --layout=universal",
        ),
        (
            &["--bloom_allocation=monkey"][..],
            "--bloom_allocation: invalid value monkey: monkey spreads --bloom_bits' memory",
        ),
        (
            &["--bloom_bits_per_level=10,10,10,10", "--num_levels=3"][..],
            "--bloom_bits_per_level: invalid value \"10,10,10,10\": 4 entries for --num_levels=3",
        ),
    ] {
        let mut args = vec!["bench", db.as_str(), "--benchmarks=fillseq", "--num=10"];
        args.extend(flags);
        let (code, _, err) = lsmlab(&args);
        one_line(&args, code, &err, &[expect]);
        assert!(
            !tmp.path().join("db").exists(),
            "{flags:?}: a database was made"
        );
    }
    // Universal flags with universal compaction, by style or by layout: accepted.
    for style in ["--compaction_style=1", "--layout=universal"] {
        let args = [
            "bench",
            db.as_str(),
            "--benchmarks=fillseq",
            "--num=10",
            style,
            "--universal_size_ratio=5",
        ];
        let (code, _, err) = lsmlab(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
    }
}

const YCSB_PLAN: &str = "title = \"t\"\nrepetitions = 1\n[properties]\nrecordcount = 50\noperationcount = 50\n[matrix]\nAXIS\n[[steps]]\nycsb = \"load\"\nworkload = \"workloada\"\n";

const BENCH_PLAN: &str =
    "title = \"t\"\nrepetitions = 1\n[flags]\nnum = 100\n[matrix]\nAXIS\n[[steps]]\nbench = \"fillrandom\"\n";

#[test]
fn a_ycsb_step_takes_engine_axes_and_refuses_others() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let good = plan(
        d,
        "good.toml",
        &YCSB_PLAN.replace("AXIS", "compaction_style = [0, 1]"),
    );
    let (code, _, err) = lsmlab(&["run", &good, "--dry-run"]);
    assert_eq!(code, 0, "{err}");
    for (axis, expect) in [
        (
            "compaction_styel = [0, 1]",
            "-p compaction_styel: unknown property; did you mean compaction_style?",
        ),
        (
            "compaction_style = [0, 2]",
            "-p compaction_style: invalid value 2",
        ),
    ] {
        let p = plan(d, "bad.toml", &YCSB_PLAN.replace("AXIS", axis));
        let out = d.join("out");
        let args = ["run", p.as_str(), "--out", out.to_str().unwrap()];
        let (code, stdout, err) = lsmlab(&args);
        one_line(&args, code, &err, &["engine lsmlab: ", expect]);
        assert!(stdout.is_empty() && !out.exists(), "{axis}: something ran");
    }
}

#[test]
fn every_cell_is_checked_as_lsmlab_bench_checks_it_before_the_results_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    for (axis, expect) in [
        (
            "compaction_style = [0, 1, 2]",
            "--compaction_style: invalid value 2",
        ),
        (
            "universal_size_ratio = [-1]\ncompaction_style = [1]",
            "--universal_size_ratio: invalid value -1",
        ),
        (
            "bloom_bits_per_level = [\"10,-1\"]",
            "--bloom_bits_per_level: invalid value \"10,-1\"",
        ),
        (
            "bloom_allocation = [\"monkey\"]\nbloom_bits = [10]\nbloom_bits_per_level = [\"10,8\"]",
            "bloom",
        ),
        (
            "layout = [\"fslsm\"]\ncompaction_style = [1]",
            "--compaction_style: invalid value 1: universal compaction cannot be combined with --layout=fslsm",
        ),
        (
            "compaction_style = [1]\nuniversal_min_merge_width = [8]\nuniversal_max_merge_width = [4]",
            "universal_m",
        ),
    ] {
        let p = plan(d, "bad.toml", &BENCH_PLAN.replace("AXIS", axis));
        let out = d.join("out");
        let args = ["run", p.as_str(), "--out", out.to_str().unwrap()];
        let (code, stdout, err) = lsmlab(&args);
        one_line(&args, code, &err, &["engine lsmlab: ", expect, "(steps[0], cell "]);
        assert!(stdout.is_empty() && !out.exists(), "{axis}: something ran");
    }
}

#[test]
fn a_missing_lsmlab_program_is_named_before_the_results_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let p = plan(
        d,
        "p.toml",
        &BENCH_PLAN.replace("AXIS", "value_size = [64]"),
    );
    let out = d.join("out");
    let args = [
        "run",
        p.as_str(),
        "--out",
        out.to_str().unwrap(),
        "--lsmlab",
        "/nonexistent/lsmlab",
    ];
    let (code, _, err) = lsmlab(&args);
    one_line(
        &args,
        code,
        &err,
        &["/nonexistent/lsmlab does not exist", "--lsmlab"],
    );
    assert!(!out.exists());
    let text = BENCH_PLAN.replace("AXIS", "value_size = [64]")
        + "[engine.lsmlab]\nbinary = \"/nonexistent/lsmlab\"\n";
    let p = plan(d, "q.toml", &text);
    let args = ["run", p.as_str(), "--out", out.to_str().unwrap()];
    let (code, _, err) = lsmlab(&args);
    one_line(&args, code, &err, &["[engine.lsmlab] binary"]);
    assert!(!out.exists());
}

#[test]
fn budget_keys_are_named_and_whole_seconds_are_a_wall() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    for (budget, expect) in [
        ("wall = -5", "budget.wall: -5; allowed a duration"),
        ("wall = true", "budget.wall: true; allowed a duration"),
        (
            "max_repetitions = -3",
            "budget.max_repetitions: -3; allowed 1 or more",
        ),
    ] {
        let text = BENCH_PLAN.replace("AXIS", "value_size = [64]") + "[budget]\n" + budget + "\n";
        let p = plan(d, "b.toml", &text);
        let args = ["run", p.as_str(), "--dry-run"];
        let (code, _, err) = lsmlab(&args);
        one_line(&args, code, &err, &[expect]);
    }
    // A whole number of seconds is a duration: the error, if any, is not about `wall`.
    let text = BENCH_PLAN.replace("AXIS", "value_size = [64]") + "[budget]\nwall = 600\n";
    let p = plan(d, "b.toml", &text);
    let (_, _, err) = lsmlab(&["run", p.as_str(), "--dry-run"]);
    assert!(!err.contains("wall"), "{err}");
}

#[test]
fn dump_limit_caps_a_manifest_too() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    let (code, _, err) = lsmlab(&[
        "bench",
        &format!("--db={}", db.display()),
        "--benchmarks=fillrandom,flush,compact",
        "--num=2000",
    ]);
    assert_eq!(code, 0, "{err}");
    let manifest = std::fs::read_dir(&db)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("MANIFEST-")
        })
        .unwrap();
    let m = manifest.to_str().unwrap();
    let (code, all, err) = lsmlab(&["dump", m]);
    assert_eq!(code, 0, "{err}");
    let edits = all.lines().filter(|l| l.starts_with("  edit ")).count();
    assert!(edits > 1, "{all}");
    let (code, one, err) = lsmlab(&["dump", m, "--limit=1"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        one.lines().filter(|l| l.starts_with("  edit ")).count(),
        1,
        "{one}"
    );
    assert!(one.contains(&format!("{edits} edits; end: ")), "{one}");
}

#[test]
fn the_lsmlab_block_shows_inline_work_with_deterministic_background_only() {
    let tmp = tempfile::tempdir().unwrap();
    let db = format!("--db={}", tmp.path().join("db").display());
    let json = tmp.path().join("b.json");
    let (code, out, err) = lsmlab(&[
        "bench",
        &db,
        "--benchmarks=fillrandom",
        "--num=20000",
        "--write_buffer_size=65536",
        "--deterministic_background=true",
        &format!("--json={}", json.display()),
    ]);
    assert_eq!(code, 0, "{err}");
    let line = out
        .lines()
        .find(|l| l.starts_with("lsmlab inline_work          : longest "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains("run inline by one call since open"), "{line}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let text = v.to_string();
    assert!(text.contains("\"inline_work\":{\"float_ups\""), "{text}");
    let (code, out, err) = lsmlab(&["bench", &db, "--benchmarks=fillseq", "--num=100"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("lsmlab inline_work          : n/a (background threads"),
        "{out}"
    );
}

#[test]
fn a_heatmap_baseline_is_a_series_value_as_the_matrix_writes_it() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let text = |baseline: &str| {
        BENCH_PLAN.replace(
            "AXIS",
            "value_size = [64, 128]\nuse_ribbon_filter = [false, true]",
        ) + &format!(
            "[[figure]]\ntitle = \"h\"\nkind = \"heatmap\"\nmetrics = [\"fillrandom.ops_per_sec\"]\nx = \"value_size\"\nseries = \"use_ribbon_filter\"\nbaseline = {baseline}\n"
        )
    };
    let p = plan(d, "h.toml", &text("true"));
    let (code, _, err) = lsmlab(&["run", p.as_str(), "--dry-run"]);
    assert_eq!(code, 0, "{err}");
    let p = plan(d, "h.toml", &text("[1]"));
    let args = ["run", p.as_str(), "--dry-run"];
    let (code, _, err) = lsmlab(&args);
    one_line(
        &args,
        code,
        &err,
        &["figure.baseline: [1]; allowed one value"],
    );
}

#[test]
fn the_slurm_executor_refuses_what_it_cannot_run_before_the_results_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let simple = plan(
        tmp.path(),
        "simple.toml",
        "title = \"t\"\n[flags]\nnum = 100\n[[steps]]\nbench = \"fillrandom\"\n",
    );
    let loaded = plan(
        tmp.path(),
        "loaded.toml",
        "title = \"t\"\n[flags]\nnum = 100\n[load]\nsteps = 1\n[[steps]]\nbench = \"fillrandom\"\n[[steps]]\nbench = \"readrandom\"\n",
    );
    let out = tmp.path().join("out");
    let o = out.to_str().unwrap();
    for (args, expect) in [
        (
            vec!["run", &simple, "--out", o, "--slurm-opts", "--partition=x"],
            &["--slurm-opts: only with --executor slurm"][..],
        ),
        (
            vec![
                "run",
                &simple,
                "--out",
                o,
                "--executor",
                "slurm",
                "--shard",
                "0/2",
            ],
            &["--executor slurm: not with shard 0/2"][..],
        ),
        (
            vec!["run", &loaded, "--out", o, "--executor", "slurm"],
            &["--executor slurm: not for a plan with [load]"][..],
        ),
    ] {
        let (code, _, err) = lsmlab(&args);
        one_line(&args, code, &err, expect);
        assert!(!out.exists(), "{args:?} made {}", out.display());
    }
    let (code, _, err) = lsmlab(&["run", &simple, "--out", o, "--executor", "pbs"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("--executor") && err.contains("local") && err.contains("slurm"),
        "{err}"
    );
}
