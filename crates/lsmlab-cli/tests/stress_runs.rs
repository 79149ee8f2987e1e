//! `lsmlab stress` on the real file system: clean reopens, SIGKILL crash cycles at random
//! moments and at each kill point, all verified; and a verifier that does report what is wrong.

use std::path::Path;
use std::process::Command;

fn stress(args: &[String]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lsmlab"))
        .arg("stress")
        .args(args)
        .output()
        .expect("run lsmlab stress");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn args(db: &Path, extra: &[&str]) -> Vec<String> {
    let mut v = vec![
        format!("--db={}", db.display()),
        "--keys=600".into(),
        "--groups=60".into(),
        "--threads=3".into(),
    ];
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

/// The numbers of the summary line.
fn summary(stdout: &str) -> (u64, u64, u64) {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("stress: "))
        .unwrap_or_else(|| panic!("no summary in {stdout}"));
    let num = |after: &str| -> u64 {
        let i = line
            .find(after)
            .unwrap_or_else(|| panic!("{after:?} in {line}"));
        line[..i]
            .rsplit(' ')
            .nth(1)
            .unwrap()
            .trim_start_matches('(')
            .parse()
            .unwrap()
    };
    (
        num("cycles"),
        num("violations"),
        num("acknowledged values verified"),
    )
}

#[test]
fn clean_reopens_verify_every_key() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let (code, out, err) = stress(&args(&db, &["--seed=5", "--ops=1500", "--reopens=2"]));
    assert_eq!(code, 0, "{out}{err}");
    let (cycles, violations, verified) = summary(&out);
    assert_eq!((cycles, violations), (3, 0), "{out}");
    assert!(verified > 100, "{out}");
}

#[test]
fn sigkill_cycles_lose_no_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    // Random moments, then each kill point, each on a database of its own and other options.
    let runs: &[&[&str]] = &[
        &["--seed=1", "--cycles=4", "--kill-after-ms=50..600"],
        &[
            "--seed=2",
            "--cycles=2",
            "--kill-point=wal",
            "--kill-odds=40",
        ],
        &[
            "--seed=3",
            "--cycles=2",
            "--kill-point=manifest",
            "--kill-odds=3",
        ],
        &[
            "--seed=4",
            "--cycles=2",
            "--kill-point=flush",
            "--kill-odds=5",
        ],
        &[
            "--seed=6",
            "--cycles=2",
            "--kill-point=compaction",
            "--kill-odds=5",
        ],
        &[
            "--seed=11",
            "--cycles=2",
            "--kill-point=compaction-blob",
            "--kill-odds=3",
        ],
        &[
            "--seed=8",
            "--cycles=2",
            "--kill-point=current",
            "--kill-odds=2",
        ],
    ];
    for (i, extra) in runs.iter().enumerate() {
        let db = dir.path().join(format!("db{i}"));
        let mut a = args(&db, &["--crash", "--kill-after-ms=300..900"]);
        a.extend(extra.iter().map(|s| s.to_string()));
        let (code, out, err) = stress(&a);
        assert_eq!(code, 0, "{extra:?}: {out}{err}");
        let (cycles, violations, _) = summary(&out);
        assert_eq!(violations, 0, "{extra:?}: {out}");
        assert!(cycles >= 2, "{extra:?}: {out}");
        assert!(
            out.contains("killed"),
            "{extra:?}: no child was killed: {out}"
        );
    }
}

#[test]
fn a_write_the_database_does_not_hold_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let (code, out, _) = stress(&args(&db, &["--seed=9", "--ops=500", "--reopens=0"]));
    assert_eq!(code, 0, "{out}");
    // Claim that slot 5 acknowledged a version the database never saw.
    let expected = dir.path().join("db.expected");
    let mut bytes = std::fs::read(&expected).unwrap();
    let at = 64 + 8 * 5;
    bytes[at..at + 8].copy_from_slice(&(0xffffu64).to_le_bytes());
    std::fs::write(&expected, &bytes).unwrap();
    let (code, out, err) = stress(&args(&db, &["--seed=9", "--ops=0", "--reopens=0"]));
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("VIOLATION slot 5: expected version 65535"),
        "{out}"
    );
    assert!(
        err.starts_with("lsmlab: stress: 2 violations") || err.contains("violations"),
        "{err}"
    );
    assert!(!err.trim().contains('\n'), "one line: {err}");
}

#[test]
fn a_database_without_its_expected_state_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let (code, ..) = stress(&args(&db, &["--seed=9", "--ops=10", "--reopens=0"]));
    assert_eq!(code, 0);
    std::fs::remove_file(dir.path().join("db.expected")).unwrap();
    let (code, _, err) = stress(&args(&db, &["--ops=10"]));
    assert_eq!(code, 1);
    assert!(
        err.contains("holds a database but") && err.contains("db.expected is missing"),
        "{err}"
    );
}

/// The float-ups of a run, from its summary line.
fn float_ups(stdout: &str) -> u64 {
    let line = stdout.lines().find(|l| l.starts_with("stress: ")).unwrap();
    let i = line.find(" float-ups").unwrap_or_else(|| panic!("{line}"));
    line[..i].rsplit(' ').next().unwrap().parse().unwrap()
}

#[test]
fn the_summary_counts_float_ups_and_only_under_fslsm() {
    let dir = tempfile::tempdir().unwrap();
    // Seed 5 draws the FSLSM layout, seed 4 the leveled one.
    for (seed, fslsm) in [(5, true), (4, false)] {
        let db = dir.path().join(format!("db{seed}"));
        let (code, out, err) = stress(&args(
            &db,
            &[&format!("--seed={seed}"), "--ops=1500", "--reopens=1"],
        ));
        assert_eq!(code, 0, "{out}{err}");
        assert_eq!(out.contains("layout fslsm"), fslsm, "{out}");
        assert_eq!(float_ups(&out) > 0, fslsm, "{out}");
    }
}
