//! `lsmlab run --until-decided` on a tiny plan: rounds added to the cells of the open claim
//! only, each stop named, a kill mid-round resumed to the same kind of stop, and the rule for
//! shards (refused on a shard; the merged directory goes on).

mod common;
use common::lsmlab;
use std::path::Path;

/// Three cells; claim 1 (Bloom against no filter, readrandom throughput within ±0.1 %) stays
/// open for many repetitions, claim 2 (every read finds its key) is decided at once.
const PLAN: &str = r#"
title = "tiny sequential"
engines = ["lsmlab"]
repetitions = 2
seed = 11
[flags]
num = 300
reads = 100
value_size = 64
seed = 1
[matrix]
bloom_bits = [0, 10, 20]
[[steps]]
bench = "fillrandom,readrandom"
[[claim]]
quote = "a filter costs reads nothing"
metric = "readrandom.ops_per_sec"
ratio = { axis = "bloom_bits", a = 10, b = 0 }
relation = "about"
tolerance = 0.001
[[claim]]
quote = "every read finds its key"
metric = "readrandom.found_fraction"
ratio = { axis = "bloom_bits", a = 20, b = 0 }
relation = "about"
"#;

fn write_plan(dir: &Path, text: &str) -> String {
    let p = dir.join("plan.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn sequential(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("sequential.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The finished runs of repetition `rep`, sorted.
fn runs_of_rep(dir: &Path, rep: u32) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir.join("runs"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(&format!("-r{rep}")))
        .filter(|n| dir.join("runs").join(n).join("result.json").exists())
        .collect();
    out.sort();
    out
}

/// Checks what a study stopped by its repetition cap of 3 holds: one round, of the open
/// claim's two cells, its stop in sequential.json, the report and the log.
fn assert_one_round_to_the_cap(out: &Path, stderr: &str) {
    let s = sequential(out);
    assert_eq!(s["stop"]["kind"], "repetitions", "{s}");
    assert_eq!(s["rounds"].as_array().unwrap().len(), 1, "{s}");
    assert_eq!(s["rounds"][0]["rep"], 2);
    assert_eq!(
        runs_of_rep(out, 2),
        ["c000-lsmlab-r2", "c001-lsmlab-r2"],
        "only the open claim's cells, both sides of its pair"
    );
    assert!(
        stderr.contains("until decided: stopped (repetitions): "),
        "{stderr}"
    );
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("| until decided | 1 rounds (repetition 3), 2 runs added"),
        "{report}"
    );
    assert!(report.contains("stopped (repetitions)"), "{report}");
    let claims = std::fs::read_to_string(out.join("claims.csv")).unwrap();
    assert!(claims
        .lines()
        .next()
        .unwrap()
        .contains(",more_repetitions,"));
    assert!(
        claims.contains(",3,inconclusive,"),
        "claim 1 at n = 3: {claims}"
    );
    // The report reads the round's runs as the study's own.
    let (code, _, stderr) = lsmlab(&["report", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn rounds_go_to_the_open_claims_cells_and_stop_with_a_named_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = write_plan(tmp.path(), PLAN);
    let out = tmp.path().join("out");
    let args = ["run", &plan, "--out", out.to_str().unwrap()];
    let (code, _, stderr) =
        lsmlab(&[&args[..], &["--until-decided", "--max-repetitions", "3"]].concat());
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains(
            "until decided: round 1 (repetition 3): 1 of 2 claims decided, 1 open; 2 runs"
        ),
        "{stderr}"
    );
    assert_one_round_to_the_cap(&out, &stderr);

    // A budget the plan's own runs already spent: no round, the budget named.
    let out2 = tmp.path().join("out2");
    let (code, _, stderr) = lsmlab(&[
        "run",
        &plan,
        "--out",
        out2.to_str().unwrap(),
        "--budget",
        "0.01s",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let s = sequential(&out2);
    assert_eq!(s["stop"]["kind"], "budget", "{s}");
    assert!(s["rounds"].as_array().unwrap().is_empty());
    assert!(
        stderr.contains("until decided: stopped (budget): the budget is spent"),
        "{stderr}"
    );

    // Bad limits are one-line errors naming the flag.
    let o4 = tmp.path().join("o4");
    let (code, _, stderr) = lsmlab(&[
        "run",
        &plan,
        "--out",
        o4.to_str().unwrap(),
        "--budget",
        "4x",
    ]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("--budget: \"4x\" is not a duration"),
        "{stderr}"
    );
    assert!(!o4.join("runs").exists(), "refused before any run");
    let (code, _, stderr) = lsmlab(&[
        "run",
        &plan,
        "--out",
        tmp.path().join("o3").to_str().unwrap(),
        "--max-repetitions",
        "1",
    ]);
    assert_ne!(code, 0);
    assert!(
        stderr
            .contains("--max-repetitions: 1 is below the study's 2 repetitions; allowed 2 or more"),
        "{stderr}"
    );
    assert!(
        !tmp.path().join("o3").join("runs").exists(),
        "refused before any run"
    );
}

#[test]
fn a_study_killed_mid_round_resumes_the_round_and_stops_alike() {
    let tmp = tempfile::tempdir().unwrap();
    // The engine is a script that kills the study as the second run of repetition 3 (the
    // round) starts: the first run of the round is finished, the second not.
    let script = tmp.path().join("engine.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncase \"$*\" in *-r2.*) n=$(cat {count} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {count}; if [ $n = 2 ]; then kill -9 $PPID; sleep 30; fi;; esac\nexec {bin} \"$@\"\n",
            count = tmp.path().join("count").display(),
            bin = env!("CARGO_BIN_EXE_lsmlab")
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let text = PLAN.replace(
        "[flags]",
        &format!(
            "[engine.lsmlab]\nbinary = \"{}\"\n[budget]\nmax_repetitions = 3\n[flags]",
            script.display()
        ),
    );
    let plan = write_plan(tmp.path(), &text);
    let out = tmp.path().join("out");
    let (code, _, _) = lsmlab(&["run", &plan, "--out", out.to_str().unwrap()]);
    assert_ne!(code, 0, "the study was to be killed");
    let s = sequential(&out);
    assert!(s["stop"].is_null(), "killed before its stop: {s}");
    assert_eq!(s["rounds"].as_array().unwrap().len(), 1);
    assert_eq!(
        runs_of_rep(&out, 2).len(),
        1,
        "one run of the round finished"
    );
    // The report of the killed study names the run of the round it has not.
    let (code, _, stderr) = lsmlab(&["report", out.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("1 run of the plan is missing: c00"),
        "{stderr}"
    );

    let (code, _, stderr) = lsmlab(&["run", "--resume", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("until decided: finishing 1 runs of round 1"),
        "{stderr}"
    );
    assert_one_round_to_the_cap(&out, &stderr);
    assert!(
        !out.join("db").exists(),
        "no database of the killed attempt is left"
    );
}

#[test]
fn shards_run_no_rounds_and_the_merged_study_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = write_plan(tmp.path(), PLAN);
    let shard = |i: usize| tmp.path().join(format!("s{i}"));
    let (code, _, stderr) = lsmlab(&[
        "run",
        &plan,
        "--shard",
        "0/2",
        "--out",
        shard(0).to_str().unwrap(),
        "--until-decided",
    ]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("--until-decided: not with shard 0/2")
            && stderr.contains("lsmlab run --resume MERGED --until-decided"),
        "{stderr}"
    );
    assert!(!shard(0).join("runs").exists(), "refused before any run");

    // A plan's [budget] on a shard: the plan's repetitions, a note, no rounds.
    let budgeted = write_plan(
        tmp.path(),
        &format!("{PLAN}[budget]\nmax_repetitions = 3\n"),
    );
    for i in 0..2 {
        let (code, _, stderr) = lsmlab(&[
            "run",
            &budgeted,
            "--shard",
            &format!("{i}/2"),
            "--out",
            shard(i).to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stderr}");
        assert!(
            stderr.contains("runs the plan's repetitions only"),
            "{stderr}"
        );
        assert!(!shard(i).join("sequential.json").exists());
    }
    let merged = tmp.path().join("merged");
    let (code, _, stderr) = lsmlab(&[
        "merge",
        "--out",
        merged.to_str().unwrap(),
        shard(0).to_str().unwrap(),
        shard(1).to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = lsmlab(&["run", "--resume", merged.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert_one_round_to_the_cap(&merged, &stderr);
}
