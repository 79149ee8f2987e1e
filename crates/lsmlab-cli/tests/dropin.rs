//! `lsmlab bench` as a drop-in `db_bench`: gflags' `--flagfile` and `--undefok`, flags accepted
//! without effect, the flags that change what is measured, a link named `db_bench`, and
//! RocksDB's own `tools/benchmark.sh` run unchanged against it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn run(program: &Path, args: &[String], cwd: &Path) -> (i32, String, String) {
    let out = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run lsmlab");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn bench(dir: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "bench".to_string(),
        format!("--db={}", dir.join("db").display()),
        "--seed=7".to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    run(Path::new(env!("CARGO_BIN_EXE_lsmlab")), &args, dir)
}

/// The number of operations of `name`'s summary line.
fn ops_of(stdout: &str, name: &str) -> u64 {
    let line = stdout
        .lines()
        .find(|l| l.starts_with(&format!("{name:<12} :")))
        .unwrap_or_else(|| panic!("no {name} line in\n{stdout}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "operations;").unwrap();
    words[at - 1].parse().unwrap()
}

#[test]
fn flagfile_undefok_and_no_effect_flags() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("flags");
    std::fs::write(
        &file,
        "# db_bench flags\n--num=300\n\n--benchmarks=fillseq,readrandom\n--subcompactions=1\n",
    )
    .unwrap();
    let (code, stdout, stderr) = bench(
        dir.path(),
        &[
            &format!("--flagfile={}", file.display()),
            "--undefok=some_future_flag,prepopulate_block_cache",
            "--some_future_flag=3",
            "--cache_numshardbits=6",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("(300 of 300 found)"), "{stdout}");
    assert!(
        stderr.contains("lsmlab: --subcompactions=1 has no effect in lsmlab"),
        "{stderr}"
    );
    assert!(
        stderr.contains("--cache_numshardbits=6 has no effect"),
        "{stderr}"
    );
    assert!(!stdout.contains("no effect"), "notes stay off stdout");
    // undefok does not cover a misspelt flag, and a value lsmlab cannot honour is refused.
    let (code, _, stderr) = bench(dir.path(), &["--undefok=other", "--some_future_flag=3"]);
    assert_eq!(code, 1);
    assert!(
        stderr.starts_with("lsmlab: unknown flag --some_future_flag"),
        "{stderr}"
    );
    let (code, _, stderr) = bench(dir.path(), &["--subcompactions=4"]);
    assert_eq!(code, 1);
    assert!(
        stderr.starts_with("lsmlab: --subcompactions=4: lsmlab cannot honour this value"),
        "{stderr}"
    );
    let (code, _, stderr) = bench(dir.path(), &["--compaction_style=2"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("--compaction_style: invalid value 2: allowed 0 (leveled), 1 (universal)"),
        "{stderr}"
    );
    let (code, _, stderr) = bench(dir.path(), &["--flagfile=/nonexistent/flags"]);
    assert_eq!(code, 1);
    assert!(
        stderr.starts_with("lsmlab: --flagfile=/nonexistent/flags: cannot read"),
        "{stderr}"
    );
}

#[test]
fn duration_runs_past_the_count_and_reports_each_second() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("r.csv");
    let (code, stdout, stderr) = bench(
        dir.path(),
        &[
            "--benchmarks=fillrandom",
            "--num=10",
            "--duration=2",
            "--report_interval_seconds=1",
            &format!("--report_file={}", report.display()),
            "--stats_interval_seconds=1",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(ops_of(&stdout, "fillrandom") > 10, "{stdout}");
    let csv = std::fs::read_to_string(&report).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("secs_elapsed,interval_qps"));
    let rows: Vec<(u64, u64)> = lines
        .map(|l| {
            let (s, q) = l.split_once(',').unwrap();
            (s.parse().unwrap(), q.parse().unwrap())
        })
        .collect();
    assert!(!rows.is_empty(), "{csv}");
    assert!(rows.iter().all(|&(_, q)| q > 0), "{csv}");
    assert_eq!(rows[0].0, 1, "{csv}");
    assert!(stdout.contains(" ops and ("), "interval lines: {stdout}");
}

#[test]
fn reverse_seeks_and_seeks_while_writing_find_every_key() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = bench(
        dir.path(),
        &[
            "--benchmarks=fillseq,seekrandom,seekrandomwhilewriting",
            "--num=500",
            "--seek_nexts=3",
            "--reverse_iterator=true",
            "--benchmark_write_rate_limit=10000000",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("(500 of 500 found)"), "{stdout}");
    assert_eq!(ops_of(&stdout, "seekrandomwhilewriting"), 500, "{stdout}");
}

#[test]
fn a_link_named_db_bench_is_lsmlab_bench() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("db_bench");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_lsmlab"), &link).unwrap();
    let args = [
        "--benchmarks=fillseq,stats".to_string(),
        "--num=200".to_string(),
        format!("--db={}", dir.path().join("db").display()),
    ];
    let (code, stdout, stderr) = run(&link, &args, dir.path());
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("fillseq      :"), "{stdout}");
    assert!(stdout.contains(" Sum "), "{stdout}");
    let log = std::fs::read_to_string(dir.path().join("db/LOG")).unwrap();
    let version = log
        .lines()
        .find(|l| l.contains("RocksDB version:"))
        .expect("a version line");
    // benchmark.sh takes the fifth field.
    let field5 = version.split_whitespace().nth(4).unwrap();
    assert!(field5.starts_with("lsmlab-"), "{version}");
}

/// RocksDB's own `tools/benchmark.sh`, as RocksDB 11.8.1 ships it in the `librocksdb-sys` crate
/// that the `rocksdb-bundled` feature pins in Cargo.lock: `cargo metadata` with that feature
/// fetches the crate (about 8 MB, once) and names its directory.
fn rocksdb_benchmark_sh() -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(&cargo)
        .args(["metadata", "--format-version", "1", "--features"])
        .arg("lsmlab-cli/rocksdb-bundled")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .map_err(|e| format!("{cargo} metadata: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!("cargo metadata failed: {}", err.trim()));
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata: {e}"))?;
    let manifest = meta["packages"]
        .as_array()
        .and_then(|p| p.iter().find(|p| p["name"] == "librocksdb-sys"))
        .and_then(|p| p["manifest_path"].as_str())
        .ok_or("cargo metadata names no librocksdb-sys package")?;
    let script = Path::new(manifest).with_file_name("rocksdb/tools/benchmark.sh");
    if script.exists() {
        Ok(script)
    } else {
        Err(format!("{} is absent", script.display()))
    }
}

/// RocksDB's tools/benchmark.sh, unchanged, against lsmlab: every job the issue lists runs and
/// fills every column of report.tsv.
#[test]
fn rocksdb_benchmark_sh_runs_unchanged_and_fills_its_report() {
    let script = match rocksdb_benchmark_sh() {
        Ok(script) => script,
        Err(why) => {
            eprintln!("skipped: RocksDB's tools/benchmark.sh: {why}");
            return;
        }
    };
    for tool in ["/usr/bin/time", "/usr/bin/bc"] {
        if !Path::new(tool).exists() {
            eprintln!("skipped: benchmark.sh needs {tool} (apt-get install -y time bc)");
            return;
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_lsmlab"), d.join("db_bench")).unwrap();
    std::fs::copy(&script, d.join("benchmark.sh")).unwrap();
    let jobs = "fillseq_disable_wal,overwrite,readrandom,fwdrange,revrange,readwhilewriting";
    let out = Command::new("bash")
        .arg("./benchmark.sh")
        .arg(jobs)
        .current_dir(d)
        .env("NUM_KEYS", "300000")
        .env("DB_DIR", d.join("db"))
        .env("WAL_DIR", d.join("wal"))
        .env("OUTPUT_DIR", d.join("out"))
        .env("NUM_THREADS", "2")
        .env("DURATION", "2")
        .env("WRITE_BUFFER_SIZE_MB", "4")
        .env("TARGET_FILE_SIZE_BASE_MB", "4")
        .env("MAX_BYTES_FOR_LEVEL_BASE_MB", "16")
        .env("CACHE_SIZE", "8388608")
        .env("MAX_BACKGROUND_JOBS", "2")
        .env("DB_BENCH_NO_SYNC", "1")
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{log}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = std::fs::read_to_string(d.join("out/report.tsv")).unwrap();
    let mut rows = report.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = rows.next().unwrap().split('\t').collect();
    let rows: Vec<Vec<&str>> = rows.map(|r| r.split('\t').collect()).collect();
    assert_eq!(rows.len(), 6, "{report}");
    let col = |row: &[&str], name: &str| -> String {
        row[header.iter().position(|h| *h == name).unwrap()].to_string()
    };
    for row in &rows {
        let test = col(row, "test");
        assert_ne!(col(row, "ops_sec"), "failed", "{test}: {report}");
        for name in &header {
            // job_id is the user's (empty unless JOB_ID is set). rss is the script's own sample
            // of `ps aux | grep db_bench`, started beside the process: a run over before the
            // first sample leaves it empty, which says nothing about the engine.
            if *name != "job_id" && *name != "rss" {
                assert!(!col(row, name).is_empty(), "{test}: empty {name}\n{report}");
            }
        }
        assert!(col(row, "ops_sec").parse::<f64>().unwrap() > 0.0, "{test}");
        assert!(col(row, "lsm_sz").ends_with('B'), "{test}: {report}");
        assert!(col(row, "version").starts_with("lsmlab-"), "{test}");
        assert!(col(row, "p99").parse::<f64>().is_ok(), "{test}: {report}");
        assert!(
            col(row, "c_wsecs").parse::<f64>().is_ok(),
            "{test}: {report}"
        );
    }
    // The load wrote enough that write amplification is a number, not NA.
    let load = &rows[0];
    assert!(col(load, "test").starts_with("fillseq.wal_disabled"));
    assert!(col(load, "w_amp").parse::<f64>().is_ok(), "{report}");
}

/// docs/bench.md's table of every db_bench flag says what the code does with each.
#[test]
fn the_flag_table_in_the_docs_matches_the_code() {
    use lsmlab_drivers::flags::{self, compat};
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/bench.md"))
            .unwrap();
    let table: std::collections::HashMap<String, String> = doc
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let name = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            (cells.len() == 6).then(|| (name.to_string(), cells[4].to_string()))
        })
        .collect();
    let says = |name: &str| {
        table
            .get(name)
            .unwrap_or_else(|| panic!("--{name} is missing from docs/bench.md's flag table"))
    };
    for name in flags::SUPPORTED {
        assert!(
            says(name).starts_with("implemented"),
            "--{name}: {}",
            says(name)
        );
    }
    for f in compat::NO_EFFECT {
        assert!(
            says(f.name).contains("no effect"),
            "--{}: {}",
            f.name,
            says(f.name)
        );
    }
    for name in flags::REFUSED {
        assert!(
            says(name).starts_with("refused by name"),
            "--{name}: {}",
            says(name)
        );
    }
    for (name, what) in &table {
        if what.starts_with("implemented") && !["flagfile", "undefok"].contains(&name.as_str()) {
            assert!(
                flags::SUPPORTED.contains(&name.as_str()),
                "--{name} is not implemented"
            );
        }
    }
}
