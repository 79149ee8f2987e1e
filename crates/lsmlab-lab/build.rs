//! Records the git commit the program is built from (`LSMLAB_GIT_COMMIT`, with `-dirty` when
//! tracked files differ from it), so a study's results name the build that ran them, not
//! whatever checkout the study happened to be started in.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    Command::new("git")
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// The commit being built, and the files whose change means another commit.
fn git_commit() {
    let Some(commit) = git(&["rev-parse", "HEAD"]) else {
        println!("cargo:rustc-env=LSMLAB_GIT_COMMIT=");
        return;
    };
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    println!(
        "cargo:rustc-env=LSMLAB_GIT_COMMIT={commit}{}",
        if dirty { "-dirty" } else { "" }
    );
    // A new commit moves HEAD or the branch it points to; the index changes with staging.
    for path in ["HEAD", "index"] {
        if let Some(p) = git(&["rev-parse", "--git-path", path]) {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        if let Some(p) = git(&["rev-parse", "--git-path", &branch]) {
            println!("cargo:rerun-if-changed={p}");
        }
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    git_commit();
}
