//! Records, for the report header, which RocksDB and LevelDB the optional engines are built
//! against: RocksDB's version from its `version.h` (its C API has no version call), and the
//! Debian package of each library when dpkg knows it. Linking itself is `#[link]` in the FFI
//! modules (`src/engine/*_ffi.rs`); a library outside the default search path takes
//! `RUSTFLAGS="-L DIR"` and its headers' directory in `ROCKSDB_INCLUDE_DIR`.

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

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=ROCKSDB_INCLUDE_DIR");
    if std::env::var_os("CARGO_FEATURE_ROCKSDB").is_some() {
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
}
