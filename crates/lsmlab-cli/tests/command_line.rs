//! The `lsmlab` binary: errors are one line on stderr with exit status 1, never a panic.

use std::process::Command;

fn lsmlab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lsmlab"))
        .args(args)
        .output()
        .expect("run lsmlab");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn bad_input_gives_one_line_and_status_1() {
    for (args, expected) in [
        (&["bench", "--valu_size=5"][..], "lsmlab: unknown flag --valu_size; did you mean --value_size?\n"),
        (&["bench", "--threads=-2"][..], "lsmlab: --threads: invalid value \"-2\": expected a non-negative integer\n"),
        (&["bench", "--use_direct_reads=1"][..], "lsmlab: --use_direct_reads: a db_bench flag lsmlab does not support yet; remove it (see `lsmlab bench --help`)\n"),
        (&["ycsb", "run", "-P", "workloada", "-p", "scanlengthdistribution=normal", "--db=/tmp/x"][..], "lsmlab: property scanlengthdistribution: invalid value \"normal\": allowed uniform, zipfian\n"),
        (&["frob"][..], "lsmlab: unknown command \"frob\"; commands: bench, ycsb, stress, check, dump\n"),
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
