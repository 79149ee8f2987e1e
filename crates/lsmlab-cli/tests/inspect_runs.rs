//! `lsmlab check` and `lsmlab dump` on a database written by `lsmlab bench`.

mod common;
use common::lsmlab;
use std::path::{Path, PathBuf};

/// A database with tables on two levels, blob files and a WAL.
fn build(dir: &Path) -> PathBuf {
    let db = dir.join("db");
    let (code, _, err) = lsmlab(&[
        "bench",
        &format!("--db={}", db.display()),
        "--num=3000",
        "--value_size=200",
        "--write_buffer_size=65536",
        "--target_file_size_base=65536",
        "--max_bytes_for_level_base=262144",
        "--enable_blob_files=true",
        "--min_blob_size=100",
        "--compression_type=none",
        "--benchmarks=fillrandom,overwrite",
    ]);
    assert_eq!(code, 0, "{err}");
    db
}

fn first(db: &Path, suffix: &str) -> PathBuf {
    let mut v: Vec<PathBuf> = std::fs::read_dir(db)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_str().unwrap().ends_with(suffix))
        .collect();
    v.sort();
    v.pop().unwrap_or_else(|| panic!("no {suffix} in {db:?}"))
}

fn listing(db: &Path) -> Vec<(String, u64, std::time::SystemTime)> {
    let mut v: Vec<_> = std::fs::read_dir(db)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let m = e.metadata().unwrap();
            (
                e.file_name().into_string().unwrap(),
                m.len(),
                m.modified().unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn check_passes_a_healthy_database_without_writing_and_names_damage() {
    let dir = tempfile::tempdir().unwrap();
    let db = build(dir.path());
    let before = listing(&db);
    let (code, out, err) = lsmlab(&["check", db.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("0 problems") && out.contains("blob files"),
        "{out}"
    );
    assert_eq!(listing(&db), before, "check wrote to the database");

    // Damage the middle of the newest table: its block checksum fails, and check says where.
    let table = first(&db, ".sst");
    let mut bytes = std::fs::read(&table).unwrap();
    let at = bytes.len() / 3;
    bytes[at] ^= 0x20;
    std::fs::write(&table, &bytes).unwrap();
    let (code, out, err) = lsmlab(&["check", db.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!("PROBLEM: {} at offset", table.display())),
        "{out}"
    );
    assert_eq!(
        err.trim(),
        format!("lsmlab: check: 1 problems in {}", db.display())
    );
}

#[test]
fn dump_prints_every_kind_of_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = build(dir.path());
    let manifest = std::fs::read_dir(&db)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("MANIFEST-")
        })
        .unwrap();
    for (file, expect) in [
        (
            first(&db, ".sst"),
            vec!["properties: entries", "index:", "=> blob"],
        ),
        (first(&db, ".blob"), vec!["records, every checksum valid"]),
        (first(&db, ".log"), vec!["batch seq", "end: clean"]),
        (manifest, vec!["edit 1 @0", "+ L0", "edits; end: clean"]),
    ] {
        let (code, out, err) = lsmlab(&["dump", file.to_str().unwrap(), "--limit=5"]);
        assert_eq!(code, 0, "{file:?}: {err}");
        for e in expect {
            assert!(out.contains(e), "{file:?}: no {e:?} in\n{out}");
        }
    }
}

#[test]
fn dump_into_a_reader_that_stops_ends_quietly() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let (code, _, err) = lsmlab(&[
        "bench",
        &format!("--db={}", db.display()),
        "--num=20000",
        "--value_size=16",
        "--compression_type=none",
        "--benchmarks=fillseq",
    ]);
    assert_eq!(code, 0, "{err}");
    // The largest table or log: 20,000 entries print far more than a pipe holds (64 KiB).
    let file = std::fs::read_dir(&db)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sst" || e == "log"))
        .max_by_key(|p| std::fs::metadata(p).unwrap().len())
        .unwrap();
    assert!(
        std::fs::metadata(&file).unwrap().len() > 300_000,
        "{file:?}"
    );
    // As `lsmlab dump FILE | head -c 100`: the reader takes a little and closes the pipe.
    let mut child = Command::new(env!("CARGO_BIN_EXE_lsmlab"))
        .args(["dump", file.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0u8; 100];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn bad_input_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    for (args, expect) in [
        (vec!["check"], "lsmlab: check: give one database directory"),
        (
            vec!["check", dir.path().to_str().unwrap()],
            "is not a database (no CURRENT file)",
        ),
        (vec!["dump"], "lsmlab: dump: give one file"),
        (
            vec!["dump", "/etc/hostname"],
            "not a table (.sst), blob file",
        ),
        (
            vec!["dump", "x.sst", "--limit=many"],
            "'many' for '--limit <LIMIT>': allowed: a whole number",
        ),
        (
            vec!["check", "x", "--paranoid_checks=2"],
            "'2' for '--paranoid_checks <PARANOID_CHECKS>': allowed: 0, 1",
        ),
        (
            vec!["check", "x", "--walrecovery_mode=1"],
            "tip: a similar argument exists: '--wal_recovery_mode'",
        ),
        (vec!["dump", "/nonexistent/000001.sst"], "lsmlab: dump:"),
    ] {
        let (code, _, err) = lsmlab(&args);
        assert_eq!(code, 1, "{args:?}");
        assert!(err.contains(expect), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn dump_says_a_file_named_as_a_log_is_not_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let bytes: Vec<u8> = (0..70_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    for name in ["000042.log", "MANIFEST-000042"] {
        let f = dir.path().join(name);
        std::fs::write(&f, &bytes).unwrap();
        let (code, out, err) = lsmlab(&["dump", f.to_str().unwrap()]);
        assert_eq!(code, 1, "{name}: {out}");
        assert!(
            err.contains("not a") && err.contains("none of its 70000 bytes"),
            "{err}"
        );
        assert!(!out.contains("crash's trace"), "{out}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

/// A flip on each side of the last block boundary of the WAL: valid records follow.
fn damage_wal_across_its_last_boundary(db: &Path) -> PathBuf {
    let wal = first(db, ".log");
    let mut d = std::fs::read(&wal).unwrap();
    let b = (d.len() - 1) / 32768 * 32768;
    assert!(b > 0 && d.len() - b > 2000, "{} bytes", d.len());
    d[b - 1] ^= 1;
    d[b] ^= 1;
    std::fs::write(&wal, &d).unwrap();
    wal
}

#[test]
fn damage_open_refuses_fails_check_with_open_error_and_bench_points_at_check() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    // One large memtable: every write is still in the WAL, several blocks of it.
    let (code, _, err) = lsmlab(&[
        "bench",
        &format!("--db={}", db.display()),
        "--num=3000",
        "--value_size=200",
        "--write_buffer_size=8388608",
        "--benchmarks=fillrandom",
    ]);
    assert_eq!(code, 0, "{err}");
    let wal = damage_wal_across_its_last_boundary(&db);
    let before = listing(&db);
    let (code, out, _) = lsmlab(&["check", db.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    let refused = out
        .lines()
        .find(|l| l.starts_with("open: REFUSED: "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        refused.contains(&format!("{} at offset", wal.display()))
            && refused.contains("whole records follow the damage"),
        "{refused}"
    );
    assert!(!out.contains("deleted at the next open"), "{out}");
    assert_eq!(listing(&db), before, "check wrote to the database");
    let (code, _, err) = lsmlab(&[
        "bench",
        &format!("--db={}", db.display()),
        "--use_existing_db=1",
        "--num=3000",
        "--benchmarks=readseq",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("lsmlab check"), "{err}");
    assert!(!err.contains("use_existing_db=0"), "{err}");
    assert_eq!(
        std::fs::read(&wal).unwrap().len() as u64,
        before_len(&before, &wal)
    );
    // Without CURRENT the directory is still a damaged database, not a place to load one.
    std::fs::remove_file(db.join("CURRENT")).unwrap();
    let (code, _, err) = lsmlab(&[
        "bench",
        &format!("--db={}", db.display()),
        "--use_existing_db=1",
        "--benchmarks=readseq",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("holds database files") && err.contains("lsmlab check"),
        "{err}"
    );
    assert!(!err.contains("use_existing_db=0"), "{err}");
}

#[test]
fn a_flipped_bit_in_the_last_wal_record_is_a_check_problem_and_kept_in_lost() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    // One large memtable: every write is still in the WAL.
    let (code, _, err) = lsmlab(&[
        "bench",
        &format!("--db={}", db.display()),
        "--num=500",
        "--value_size=200",
        "--write_buffer_size=8388608",
        "--benchmarks=fillrandom",
    ]);
    assert_eq!(code, 0, "{err}");
    let wal = first(&db, ".log");
    let mut d = std::fs::read(&wal).unwrap();
    let n = d.len();
    d[n - 10] ^= 1; // inside the value of the last write
    std::fs::write(&wal, &d).unwrap();
    let (code, out, _) = lsmlab(&["check", db.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.lines().any(|l| l.starts_with("PROBLEM: ")
            && l.contains(&wal.display().to_string())
            && l.contains("fails its checksum")),
        "{out}"
    );
    assert!(out.contains("dropping 1 (kept in lost/)"), "{out}");
    let (code, _, err) = lsmlab(&[
        "bench",
        &format!("--db={}", db.display()),
        "--use_existing_db=1",
        "--num=500",
        "--benchmarks=readseq",
    ]);
    assert_eq!(code, 0, "{err}");
    let kept = db.join("lost").join(wal.file_name().unwrap());
    assert_eq!(std::fs::read(&kept).unwrap(), d);
    let log = std::fs::read_to_string(db.join("LOG")).unwrap();
    assert!(log.contains("is whole but fails its checksum"), "{log}");
}

fn before_len(listing: &[(String, u64, std::time::SystemTime)], file: &Path) -> u64 {
    let name = file.file_name().unwrap().to_str().unwrap();
    listing.iter().find(|(n, _, _)| n == name).unwrap().1
}
