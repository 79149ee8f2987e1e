//! The machine a study ran on, recorded with its results: a number means little without the
//! CPU, memory, kernel, frequency governor, file system and the versions that produced it.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The environment of a results directory.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Environment {
    /// Host name.
    pub hostname: String,
    /// CPU model.
    pub cpu_model: String,
    /// Logical CPUs.
    pub cores: usize,
    /// Memory, bytes.
    pub memory_bytes: u64,
    /// Kernel release.
    pub kernel: String,
    /// CPU frequency governor, when the kernel exposes one.
    pub governor: String,
    /// File system type and device of the database directory.
    pub db_filesystem: String,
    /// lsmlab's version.
    pub lsmlab_version: String,
    /// git commit this lsmlab was built from (`-dirty`: with uncommitted changes), when built
    /// from a checkout.
    pub git_commit: String,
    /// Version of each engine binary, by engine name.
    pub engines: BTreeMap<String, String>,
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path)
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// The file system and device holding `path`: the longest mount point that prefixes it.
fn filesystem_of(path: &Path) -> String {
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mounts = read("/proc/mounts");
    mounts
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 3 && abs.starts_with(f[1]))
                .then(|| (f[1].len(), format!("{} on {} ({})", f[2], f[1], f[0])))
        })
        .max_by_key(|(n, _)| *n)
        .map(|(_, s)| s)
        .unwrap_or_default()
}

impl Environment {
    /// Collects what this machine tells about itself; missing pieces stay empty.
    pub fn collect(db_dir: &Path, engines: BTreeMap<String, String>) -> Environment {
        let cpuinfo = read("/proc/cpuinfo");
        let cpu_model = cpuinfo
            .lines()
            .find_map(|l| l.strip_prefix("model name").and_then(|r| r.split_once(':')))
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_default();
        let memory_bytes = read("/proc/meminfo")
            .lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            .map(|kb| kb * 1024)
            .unwrap_or(0);
        // The commit this program was built from (build.rs), not the working directory's.
        let git_commit = env!("LSMLAB_GIT_COMMIT").to_string();
        Environment {
            hostname: read("/proc/sys/kernel/hostname"),
            cpu_model,
            cores: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(0),
            memory_bytes,
            kernel: read("/proc/sys/kernel/osrelease"),
            governor: read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
            db_filesystem: filesystem_of(db_dir),
            lsmlab_version: env!("CARGO_PKG_VERSION").to_string(),
            git_commit,
            engines,
        }
    }

    /// Whether two records describe the same machine (for merged shards).
    pub fn same_machine(&self, other: &Environment) -> bool {
        self.hostname == other.hostname
            && self.cpu_model == other.cpu_model
            && self.cores == other.cores
            && self.memory_bytes == other.memory_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collects_this_machine() {
        let e = Environment::collect(Path::new("/tmp"), BTreeMap::new());
        assert!(e.cores > 0);
        assert!(e.memory_bytes > 0);
        assert!(!e.db_filesystem.is_empty());
        assert!(e.same_machine(&e.clone()));
    }
}
