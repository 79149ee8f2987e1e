//! Records, for the report header, which RocksDB, LevelDB and fjall the optional engines are
//! built against: RocksDB's version from its `version.h` (its C API has no version call), the
//! Debian package of each library when dpkg knows it, and the fjall crate's version from the
//! workspace's `Cargo.lock` (fjall exports none). Linking itself is `#[link]` in the FFI
//! modules (`src/engine/*_ffi.rs`); a library outside the default search path takes
//! `RUSTFLAGS="-L DIR"` and its headers' directory in `ROCKSDB_INCLUDE_DIR`.
//!
//! The git commit a study records is lsmlab-lab's build script's, so that a new commit
//! rebuilds the lab, not the engines.

use std::process::Command;

fn package_version(name: &str) -> String {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Version}", name])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

fn rocksdb_version() -> String {
    let dir = std::env::var("ROCKSDB_INCLUDE_DIR").unwrap_or_else(|_| "/usr/include".into());
    let text = std::fs::read_to_string(format!("{dir}/rocksdb/version.h")).unwrap_or_default();
    let part = |name: &str| {
        text.lines()
            .filter_map(|l| l.strip_prefix("#define "))
            .find_map(|l| {
                let (n, v) = l.split_once(char::is_whitespace)?;
                (n == name).then(|| v.trim().to_string())
            })
            .unwrap_or_else(|| "?".into())
    };
    format!(
        "{}.{}.{}",
        part("ROCKSDB_MAJOR"),
        part("ROCKSDB_MINOR"),
        part("ROCKSDB_PATCH")
    )
}

/// The RocksDB a `rocksdb-bundled` build compiles: the `+` part of `librocksdb-sys`'s version
/// in the workspace's Cargo.lock (`0.19.0+11.8.1` → `11.8.1`).
fn bundled_rocksdb_version() -> String {
    let lock = format!("{}/../../Cargo.lock", env!("CARGO_MANIFEST_DIR"));
    println!("cargo:rerun-if-changed={lock}");
    let text = std::fs::read_to_string(&lock).unwrap_or_default();
    let mut lines = text.lines();
    while let Some(l) = lines.next() {
        if l == "name = \"librocksdb-sys\"" {
            if let Some(v) = lines.next().and_then(|v| v.strip_prefix("version = \"")) {
                let v = v.trim_end_matches('"');
                return v.split_once('+').map_or(v, |(_, r)| r).to_string();
            }
        }
    }
    "?".into()
}

/// The version of the fjall crate `Cargo.lock` resolved (`3.1.13`), or `?`.
fn fjall_version() -> String {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let lock = std::path::Path::new(&manifest).join("../../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let text = std::fs::read_to_string(&lock).unwrap_or_default();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "name = \"fjall\"" {
            if let Some(v) = lines
                .next()
                .and_then(|l| l.trim().strip_prefix("version = "))
            {
                return v.trim_matches('"').to_string();
            }
        }
    }
    "?".into()
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=ROCKSDB_INCLUDE_DIR");
    if std::env::var_os("CARGO_FEATURE_ROCKSDB_BUNDLED").is_some() {
        println!(
            "cargo:rustc-env=LSMLAB_ROCKSDB_VERSION={}",
            bundled_rocksdb_version()
        );
        println!("cargo:rustc-env=LSMLAB_ROCKSDB_PACKAGE=");
    } else if std::env::var_os("CARGO_FEATURE_ROCKSDB").is_some() {
        println!(
            "cargo:rustc-env=LSMLAB_ROCKSDB_VERSION={}",
            rocksdb_version()
        );
        println!(
            "cargo:rustc-env=LSMLAB_ROCKSDB_PACKAGE={}",
            package_version("librocksdb-dev")
        );
    }
    if std::env::var_os("CARGO_FEATURE_LEVELDB").is_some() {
        println!(
            "cargo:rustc-env=LSMLAB_LEVELDB_PACKAGE={}",
            package_version("libleveldb-dev")
        );
    }
    if std::env::var_os("CARGO_FEATURE_FJALL").is_some() {
        println!("cargo:rustc-env=LSMLAB_FJALL_VERSION={}", fjall_version());
    }
}
