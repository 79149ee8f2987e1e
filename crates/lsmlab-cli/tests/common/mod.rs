//! What the CLI's integration tests share.

use std::process::Command;

/// Runs the `lsmlab` binary with `args`: (exit status, stdout, stderr).
pub fn lsmlab(args: &[&str]) -> (i32, String, String) {
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
