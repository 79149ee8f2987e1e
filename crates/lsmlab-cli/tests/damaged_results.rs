//! `report`, `merge` and `compare` fed damaged results directories (a property test, bounded
//! to a few dozen cases a command so that it runs in seconds): a `result.json` truncated,
//! replaced by garbage or by bytes that are not UTF-8, a record under another run's id, cell,
//! engine or repetition, a run gone, files that are no run, `plan.json` gone or cut. Whatever
//! the damage: never a panic; either the command succeeds, or it exits 1 with one line that
//! names the damaged file (the input's, never a copy), and it leaves no output behind.

mod common;
use common::lsmlab;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const TINY: &str = r#"
title = "tiny"
engines = ["lsmlab"]
repetitions = 2
seed = 11
[flags]
num = 200
reads = 50
value_size = 32
seed = 1
[matrix]
bloom_bits = [0, 10]
[[steps]]
bench = "fillrandom"
[[steps]]
bench = "readrandom"
"#;

/// The runs of the tiny study, in id order.
const RUNS: [&str; 4] = [
    "c000-lsmlab-r0",
    "c000-lsmlab-r1",
    "c001-lsmlab-r0",
    "c001-lsmlab-r1",
];

/// One results directory of the tiny study, made once per test process by `lsmlab run` (in
/// the target's scratch directory, replaced each time).
fn pristine() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("damaged_results");
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        let plan = root.join("plan.toml");
        std::fs::write(&plan, TINY).unwrap();
        let out = root.join("study");
        let (code, _, stderr) = lsmlab(&[
            "run",
            plan.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stderr}");
        out
    })
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

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        if e.file_type().unwrap().is_dir() {
            out.extend(snapshot(&e.path()));
        } else {
            out.insert(e.path(), std::fs::read(e.path()).unwrap());
        }
    }
    out
}

/// A damage done to a results directory.
#[derive(Debug, Clone)]
enum Damage {
    /// `result.json` of run `run` cut to `keep` of its bytes (a fraction).
    Truncate { run: usize, keep: f64 },
    /// `result.json` replaced by these bytes.
    Garbage { run: usize, bytes: Vec<u8> },
    /// A byte that is never UTF-8 written into `result.json` at a fraction of its length.
    NotUtf8 { run: usize, at: f64 },
    /// A field of the record set to another value: `id`, `cell`, `engine` or `rep`.
    Field {
        run: usize,
        field: &'static str,
        value: serde_json::Value,
    },
    /// The run's directory deleted.
    MissingRun { run: usize },
    /// A file (not a run) put into `runs/`, or beside `plan.json`.
    ExtraFile { in_runs: bool, name: String },
    /// A directory with no record put into `runs/` (a run that failed before writing one).
    EmptyRunDir { name: String },
    /// `plan.json` deleted, or cut.
    PlanJson { delete: bool },
}

/// What a damage must make a reader say, when it refuses: the path it names.
enum Named {
    /// This file, by its full path.
    File(PathBuf),
    /// A run id (a run missing is named by id).
    Run(String),
    /// Nothing refusable: the command may succeed (but must not panic nor misname).
    Harmless,
}

fn apply(dir: &Path, d: &Damage) -> Named {
    let record = |run: usize| dir.join("runs").join(RUNS[run]).join("result.json");
    match d {
        Damage::Truncate { run, keep } => {
            let p = record(*run);
            let bytes = std::fs::read(&p).unwrap();
            let n = ((bytes.len() as f64 * keep) as usize).min(bytes.len() - 1);
            std::fs::write(&p, &bytes[..n]).unwrap();
            if bytes[n..].iter().all(u8::is_ascii_whitespace) {
                // Only a trailing newline cut: still the whole record.
                return Named::Harmless;
            }
            Named::File(p)
        }
        Damage::Garbage { run, bytes } => {
            std::fs::write(record(*run), bytes).unwrap();
            Named::File(record(*run))
        }
        Damage::NotUtf8 { run, at } => {
            let p = record(*run);
            let mut bytes = std::fs::read(&p).unwrap();
            let i = (bytes.len() as f64 * at) as usize;
            bytes.insert(i.min(bytes.len()), 0xff);
            std::fs::write(&p, bytes).unwrap();
            Named::File(p)
        }
        Damage::Field { run, field, value } => {
            let p = record(*run);
            let mut doc: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            if doc[*field] == *value {
                return Named::Harmless;
            }
            doc[*field] = value.clone();
            std::fs::write(&p, doc.to_string()).unwrap();
            Named::File(p)
        }
        Damage::MissingRun { run } => {
            std::fs::remove_dir_all(dir.join("runs").join(RUNS[*run])).unwrap();
            Named::Run(RUNS[*run].to_string())
        }
        Damage::ExtraFile { in_runs, name } => {
            let p = if *in_runs {
                dir.join("runs").join(name)
            } else {
                dir.join(name)
            };
            if p.exists() {
                return Named::Harmless;
            }
            std::fs::write(&p, b"not a run").unwrap();
            if *in_runs {
                Named::File(p)
            } else {
                Named::Harmless
            }
        }
        Damage::EmptyRunDir { name } => {
            std::fs::create_dir_all(dir.join("runs").join(name)).unwrap();
            Named::Harmless
        }
        Damage::PlanJson { delete } => {
            let p = dir.join("plan.json");
            if *delete {
                std::fs::remove_file(&p).unwrap();
            } else {
                let text = std::fs::read(&p).unwrap();
                std::fs::write(&p, &text[..text.len() / 2]).unwrap();
            }
            Named::File(p)
        }
    }
}

fn damage() -> impl Strategy<Value = Damage> {
    let run = 0..RUNS.len();
    let name = "[a-z]{1,8}(\\.[a-z]{1,3})?";
    prop_oneof![
        (run.clone(), 0.0..1.0f64).prop_map(|(run, keep)| Damage::Truncate { run, keep }),
        (run.clone(), prop::collection::vec(any::<u8>(), 0..64))
            .prop_map(|(run, bytes)| Damage::Garbage { run, bytes }),
        (run.clone(), 0.0..1.0f64).prop_map(|(run, at)| Damage::NotUtf8 { run, at }),
        (run.clone(), 0..RUNS.len()).prop_map(|(run, other)| Damage::Field {
            run,
            field: "id",
            value: serde_json::json!(RUNS[other]),
        }),
        (
            run.clone(),
            prop_oneof![Just(2u64), Just(99_999_999_999u64), 0..4u64]
        )
            .prop_map(|(run, cell)| Damage::Field {
                run,
                field: "cell",
                value: serde_json::json!(cell),
            }),
        (run.clone(), 0..5u32).prop_map(|(run, rep)| Damage::Field {
            run,
            field: "rep",
            value: serde_json::json!(rep),
        }),
        run.clone().prop_map(|run| Damage::Field {
            run,
            field: "engine",
            value: serde_json::json!("rocksdb"),
        }),
        run.prop_map(|run| Damage::MissingRun { run }),
        (any::<bool>(), name).prop_map(|(in_runs, name)| Damage::ExtraFile { in_runs, name }),
        "c00[0-9]-lsmlab-r[0-9]x?".prop_map(|name| Damage::EmptyRunDir { name }),
        any::<bool>().prop_map(|delete| Damage::PlanJson { delete }),
    ]
}

/// The command's outcome checked: no panic; a refusal is one line naming what `named` says.
fn check_refusal(code: i32, stderr: &str, named: &Named) -> Result<bool, TestCaseError> {
    prop_assert!(
        !stderr.contains("panicked") && code != 101,
        "panic: {stderr}"
    );
    if code == 0 {
        return Ok(false);
    }
    prop_assert_eq!(code, 1, "{}", stderr);
    let last = stderr.trim_end().lines().last().unwrap_or("");
    prop_assert!(last.starts_with("lsmlab: "), "{}", stderr);
    match named {
        Named::File(p) => {
            let p = p.display().to_string();
            let dir = Path::new(&p).parent().unwrap().display().to_string();
            // plan.json gone: the directory is named as "not a results directory".
            prop_assert!(
                last.contains(&p) || (last.contains(&dir) && last.contains("results directory")),
                "does not name {}: {}",
                p,
                stderr
            );
        }
        Named::Run(id) => prop_assert!(last.contains(id.as_str()), "{}", stderr),
        Named::Harmless => {}
    }
    Ok(true)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 24,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn report_refuses_by_name_and_writes_nothing(d in damage()) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("study");
        copy_tree(pristine(), &dir);
        let named = apply(&dir, &d);
        let before = snapshot(&dir);
        let (code, _, stderr) = lsmlab(&["report", dir.to_str().unwrap()]);
        let refused = check_refusal(code, &stderr, &named)?;
        if refused {
            prop_assert!(snapshot(&dir) == before, "a refused report wrote into {}", dir.display());
        } else {
            prop_assert!(matches!(named, Named::Harmless), "{:?} accepted", d);
        }
    }

    #[test]
    fn merge_refuses_by_the_inputs_name_and_leaves_no_output(d in damage()) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("shard");
        copy_tree(pristine(), &dir);
        let named = apply(&dir, &d);
        let before = snapshot(&dir);
        let out = tmp.path().join("merged");
        let (code, _, stderr) =
            lsmlab(&["merge", "--out", out.to_str().unwrap(), dir.to_str().unwrap()]);
        let refused = check_refusal(code, &stderr, &named)?;
        prop_assert!(snapshot(&dir) == before, "merge wrote into its input");
        prop_assert!(!tmp.path().join("merged.partial").exists());
        if refused {
            prop_assert!(!out.exists(), "a failed merge left {}", out.display());
        } else {
            prop_assert!(matches!(named, Named::Harmless), "{:?} accepted", d);
            prop_assert!(out.join("report.html").is_file());
        }
    }

    #[test]
    fn compare_refuses_by_name_and_writes_no_csv(d in damage(), damaged_first in any::<bool>()) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("study");
        copy_tree(pristine(), &dir);
        let named = apply(&dir, &d);
        let before = snapshot(&dir);
        let csv = tmp.path().join("c.csv");
        let (a, b) = if damaged_first { (&dir, &pristine().to_path_buf()) } else { (&pristine().to_path_buf(), &dir) };
        let (code, _, stderr) = lsmlab(&[
            "compare",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--csv",
            csv.to_str().unwrap(),
        ]);
        let refused = check_refusal(code, &stderr, &named)?;
        prop_assert!(snapshot(&dir) == before, "compare wrote into its input");
        if let (true, Named::Run(id)) = (refused, &named) {
            // A run missing leaves its cell with too few runs to compare: the rest is
            // compared and written, the cell named with the run, and the exit status says so.
            prop_assert!(stderr.contains("not compared") && stderr.contains(id.as_str()), "{}", stderr);
            prop_assert!(csv.is_file());
        } else if refused {
            prop_assert!(!csv.exists(), "a refused compare wrote {}", csv.display());
        } else {
            // A run missing is compared without, and said.
            if let Named::Run(id) = &named {
                prop_assert!(stderr.contains("missing") && stderr.contains(id.as_str()), "{}", stderr);
            } else {
                prop_assert!(matches!(named, Named::Harmless), "{:?} accepted", d);
            }
            prop_assert!(csv.is_file());
        }
    }
}
