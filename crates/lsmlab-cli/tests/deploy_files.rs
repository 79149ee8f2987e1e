//! The files that run studies on other machines name commands this lsmlab accepts: the
//! Kubernetes Job (`experiments/kubernetes/study-job.yaml`), the Containerfile its image is
//! built from, and the Slurm batch script (`experiments/slurm/study.sbatch`). A flag renamed in
//! the runner, a plan moved, or an image path changed fails here, not on a cluster. The manifest's
//! schema is checked by `scripts/k8s-validate.sh` (in `.ci/run`).

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The lsmlab command lines a shell text runs (`exec PROGRAM …` up to `;` or the end of its
/// line; `folded`: the text is a YAML folded block, whose lines are one), as words, with `vars`
/// put in for the shell variables they name.
fn exec_lines(shell: &str, program: &str, folded: bool, vars: &[(&str, &str)]) -> Vec<Vec<String>> {
    let text = if folded {
        shell.split_whitespace().collect::<Vec<_>>().join(" ")
    } else {
        shell.to_string()
    };
    let marker = format!("exec {program} ");
    text.split(&marker)
        .skip(1)
        .map(|rest| {
            let mut line = rest.split([';', '\n']).next().unwrap().to_string();
            for (name, value) in vars {
                line = line.replace(name, value);
            }
            line.split_whitespace()
                .map(|w| w.trim_matches('"').to_string())
                .filter(|w| !w.is_empty())
                .collect()
        })
        .collect()
}

#[test]
fn the_kubernetes_jobs_commands_are_ones_the_runner_takes() {
    let manifest = read("experiments/kubernetes/study-job.yaml");
    let lines = exec_lines(&manifest, "lsmlab", true, &[("$JOB_COMPLETION_INDEX", "3")]);
    assert_eq!(lines.len(), 2, "a resume and a first start: {lines:?}");
    for words in &lines {
        let parsed = lsmlab_cli::cli::parse(words);
        assert!(matches!(parsed, Ok(Some(_))), "{words:?}: {parsed:?}");
    }
    assert_eq!(lines[0][..2], ["run", "--resume"]);
    // The first start, as the pod would run it: the plan at its path in the image
    // (Containerfile: experiments/ → /lsmlab/experiments), its scale, the shard from the
    // completion index. --dry-run checks the plan, scale and shard without running anything.
    let start: Vec<String> = lines[1]
        .iter()
        .map(|w| match w.strip_prefix("/lsmlab/") {
            Some(rel) => root().join(rel).to_string_lossy().into_owned(),
            None => w.clone(),
        })
        .chain(["--dry-run".to_string()])
        .collect();
    assert!(start.iter().any(|w| w == "--shard"), "{start:?}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lsmlab"))
        .args(&start)
        .env("JOB_COMPLETION_INDEX", "3")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{start:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("shard 3/8") || stdout.contains("3/8"),
        "{stdout}"
    );
}

#[test]
fn the_image_holds_the_binary_and_the_plans_where_the_job_looks() {
    let manifest = read("experiments/kubernetes/study-job.yaml");
    let containerfile = read("Containerfile");
    let image = manifest
        .lines()
        .find_map(|l| l.trim().strip_prefix("image:"))
        .expect("the manifest names an image")
        .trim();
    assert!(
        containerfile.contains(&format!("-t {image} ")),
        "the Containerfile's build command tags {image}"
    );
    assert!(containerfile.contains("cargo build --release -p lsmlab-cli"));
    assert!(containerfile.contains("/src/target/release/lsmlab /usr/local/bin/lsmlab"));
    assert!(containerfile.contains("COPY experiments /lsmlab/experiments"));
    let cargo = read("crates/lsmlab-cli/Cargo.toml");
    assert!(
        cargo.contains("name = \"lsmlab\""),
        "the binary the image copies"
    );
    // Every plan the manifest names is in experiments/.
    for w in manifest.split_whitespace() {
        if let Some(rel) = w.strip_prefix("/lsmlab/") {
            assert!(root().join(rel).is_file(), "{w}: not in the repository");
        }
    }
}

#[test]
fn the_slurm_tasks_commands_are_ones_the_runner_takes() {
    let script = read("experiments/slurm/study.sbatch");
    let lines = exec_lines(
        &script,
        "\"$lsmlab\"",
        false,
        &[
            ("$SLURM_ARRAY_TASK_ID", "1"),
            ("$count", "4"),
            ("$dir", "/results/shard-1"),
            ("$plan", "experiments/smoke.toml"),
            ("$@", ""),
        ],
    );
    assert_eq!(lines.len(), 2, "{lines:?}");
    for words in &lines {
        let parsed = lsmlab_cli::cli::parse(words);
        assert!(matches!(parsed, Ok(Some(_))), "{words:?}: {parsed:?}");
    }
    assert_eq!(
        lines[1],
        [
            "run",
            "experiments/smoke.toml",
            "--shard",
            "1/4",
            "--out",
            "/results/shard-1"
        ]
    );
    // A flag the runner does not have is refused by the same parse (the check can fail).
    let renamed: Vec<String> = ["run", "p.toml", "--shards", "1/4"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert!(lsmlab_cli::cli::parse(&renamed).is_err());
}
