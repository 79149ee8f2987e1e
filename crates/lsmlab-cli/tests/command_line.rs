//! The `lsmlab` binary: errors are one line on stderr with exit status 1, never a panic.

mod common;
use common::lsmlab;
use std::process::Command;

#[test]
fn bad_input_gives_one_line_and_status_1() {
    for (args, expected) in [
        (&["bench", "--valu_size=5"][..], "lsmlab: unknown flag --valu_size; did you mean --value_size?\n"),
        (&["bench", "--threads=-2"][..], "lsmlab: --threads: invalid value \"-2\": expected a non-negative integer\n"),
        (&["bench", "--use_direct_reads=1"][..], "lsmlab: --use_direct_reads: a db_bench flag lsmlab does not support yet; remove it (see `lsmlab bench --help`)\n"),
        (&["ycsb", "run", "-P", "workloada", "-p", "scanlengthdistribution=normal", "--db=/tmp/x"][..], "lsmlab: property scanlengthdistribution: invalid value \"normal\": allowed uniform, zipfian\n"),
        (&["ycsb"][..], "lsmlab: ycsb: expected load or run (usage: lsmlab ycsb load|run -P FILE [-p key=value]... --db=DIR; see lsmlab ycsb --help)\n"),
        (&["bench", "--db="][..], "lsmlab: --db: empty; give a directory, or leave --db out for db_bench's default under /tmp\n"),
        (&["ycsb", "load", "-P", "workloada", "--db="][..], "lsmlab: --db: empty; give the database directory with --db=DIR\n"),
        (&["run", "--bogus"][..], "lsmlab: unexpected argument '--bogus' found\n"),
        (&["frob"][..], "lsmlab: unknown command \"frob\"; commands: bench, ycsb, run, report, merge, compare, stress, check, dump\n"),
    ] {
        let (code, stdout, stderr) = lsmlab(args);
        assert_eq!(code, 1, "{args:?}");
        assert_eq!(stderr, expected, "{args:?}");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
    }
}

#[test]
fn bench_runs_end_to_end_and_writes_json() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let (code, stdout, stderr) = lsmlab(&[
        "bench",
        "--benchmarks=fillseq,readrandom",
        "--num=100",
        "--seed=3",
        &format!("--db={}", dir.path().join("db").display()),
        &format!("--json={}", json.display()),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("Keys:       16 bytes each"), "{stdout}");
    assert!(stdout.contains("(100 of 100 found)"), "{stdout}");
    // Not a terminal: no progress lines.
    assert!(!stderr.contains("... finished"), "{stderr}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    assert_eq!(doc["benchmarks"][1]["found"], 100);
}

#[test]
fn ycsb_load_prints_ycsb_lines() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = lsmlab(&[
        "ycsb",
        "load",
        "-P",
        "workloada",
        "-p",
        "recordcount=200",
        &format!("--db={}", dir.path().join("db").display()),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("[OVERALL], RunTime(ms), "), "{stdout}");
    assert!(stdout.contains("[INSERT], Operations, 200\n"), "{stdout}");
    assert!(stdout.contains("[INSERT], Return=OK, 200\n"), "{stdout}");
    assert!(stdout.contains("-- lsmlab: ycsb load --\n"), "{stdout}");
}

#[test]
fn existing_database_flags_refuse_a_missing_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("never-made");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    for path in [&db, &empty] {
        let (code, stdout, stderr) = lsmlab(&[
            "bench",
            "--use_existing_db=1",
            "--benchmarks=readrandom",
            "--num=10",
            &format!("--db={}", path.display()),
        ]);
        assert_eq!(code, 1, "{stdout}");
        assert!(
            stderr.starts_with("lsmlab: --use_existing_db: no database at "),
            "{stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        // Nothing was created.
        assert!(!path.join("CURRENT").exists());
    }
    assert!(!db.exists());
    let (code, _, stderr) = lsmlab(&[
        "ycsb",
        "run",
        "-P",
        "workloada",
        &format!("--db={}", db.display()),
    ]);
    assert_eq!(code, 1);
    assert!(
        stderr.starts_with("lsmlab: ycsb run: no database at "),
        "{stderr}"
    );
    assert!(!db.exists());
}

#[test]
fn an_unwritable_json_path_fails_before_the_benchmark_runs() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let json = dir.path().join("no-such-dir").join("r.json");
    let (code, stdout, stderr) = lsmlab(&[
        "bench",
        "--benchmarks=fillseq",
        "--num=100",
        &format!("--db={}", db.display()),
        &format!("--json={}", json.display()),
    ]);
    assert_eq!(code, 1);
    assert!(
        stderr.starts_with("lsmlab: --json: cannot write "),
        "{stderr}"
    );
    // Failed before: no summary line, no database.
    assert!(!stdout.contains("fillseq"), "{stdout}");
    assert!(!db.exists());
    let (code, stdout, stderr) = lsmlab(&[
        "ycsb",
        "load",
        "-P",
        "workloada",
        "-p",
        "recordcount=10",
        &format!("--db={}", db.display()),
        &format!("--json={}", json.display()),
    ]);
    assert_eq!(code, 1);
    assert!(
        stderr.starts_with("lsmlab: --json: cannot write "),
        "{stderr}"
    );
    assert!(stdout.is_empty(), "{stdout}");
    assert!(!db.exists());
}

#[test]
fn an_empty_db_flag_leaves_nothing_in_the_working_directory() {
    let cwd = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lsmlab"))
        .args(["bench", "--db=", "--benchmarks=fillseq", "--num=10"])
        .current_dir(cwd.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_dir(cwd.path()).unwrap().count(), 0);
}

#[test]
fn help_of_the_passed_through_tools_is_their_own() {
    let (code, stdout, _) = lsmlab(&["bench", "--help"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("--value_size"), "{stdout}");
    let (code, stdout, _) = lsmlab(&["ycsb", "--help"]);
    assert_eq!(code, 0);
    assert!(
        stdout.starts_with("usage: lsmlab ycsb load|run"),
        "{stdout}"
    );
    let (code, stdout, _) = lsmlab(&["--help"]);
    assert_eq!(code, 0);
    for c in [
        "bench", "ycsb", "run", "report", "merge", "stress", "check", "dump",
    ] {
        assert!(stdout.contains(c), "{c}: {stdout}");
    }
}
