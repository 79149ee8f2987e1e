//! db_bench flags that tune RocksDB internals lsmlab has no counterpart for.
//!
//! Scripts written for db_bench (RocksDB's `tools/benchmark.sh` above all) pass them on every
//! command line. Where the value asks for what lsmlab does anyway, or for an internal choice
//! that does not change what a benchmark measures, the flag is accepted with one line saying
//! so; a value asking for behaviour lsmlab cannot give is refused by name.

/// A flag accepted without effect: its name, what lsmlab does instead, and the values
/// accepted (`None`: any value).
pub struct NoEffect {
    /// db_bench's flag name.
    pub name: &'static str,
    /// Values accepted (compared as text after gflags' boolean spellings are normalised);
    /// `None` accepts any.
    pub accepted: Option<&'static [&'static str]>,
    /// Why the flag has no effect here.
    pub why: &'static str,
}

/// Every db_bench flag accepted without effect.
pub const NO_EFFECT: &[NoEffect] = &[
    NoEffect {
        name: "allow_concurrent_memtable_write",
        accepted: None,
        why: "lsmlab's memtable always takes concurrent inserts from a write group",
    },
    NoEffect {
        name: "cache_numshardbits",
        accepted: None,
        why: "lsmlab's block cache picks its own sharding",
    },
    NoEffect {
        name: "open_files",
        accepted: None,
        why: "lsmlab keeps every table it has opened open",
    },
    NoEffect {
        name: "verify_checksum",
        accepted: Some(&["true"]),
        why: "lsmlab always verifies block checksums",
    },
    NoEffect {
        name: "delete_obsolete_files_period_micros",
        accepted: None,
        why: "lsmlab deletes obsolete files as soon as no reader holds them",
    },
    NoEffect {
        name: "pin_l0_filter_and_index_blocks_in_cache",
        accepted: None,
        why: "lsmlab keeps every table's filter and index in memory, outside the block cache",
    },
    NoEffect {
        name: "compression_max_dict_bytes",
        accepted: Some(&["0"]),
        why: "lsmlab has no compression dictionaries",
    },
    NoEffect {
        name: "subcompactions",
        accepted: Some(&["0", "1"]),
        why: "lsmlab runs each compaction in one thread",
    },
    NoEffect {
        name: "max_background_compactions",
        accepted: Some(&["-1"]),
        why: "lsmlab sizes its threads from --max_background_jobs",
    },
    NoEffect {
        name: "max_background_flushes",
        accepted: Some(&["-1"]),
        why: "lsmlab sizes its threads from --max_background_jobs",
    },
    // A vector memtable is RocksDB's faster bulk-load memtable (unsorted until flushed); the
    // contents of the database are the same. benchmark.sh asks for it in its load jobs, so it is
    // accepted, and the line printed says the load ran on lsmlab's skip list.
    NoEffect {
        name: "memtablerep",
        accepted: Some(&["skip_list", "vector"]),
        why: "lsmlab's memtable is always a skip list (a `vector` load runs on it too)",
    },
    NoEffect {
        name: "merge_operator",
        accepted: Some(&["", "put", "PutOperator", "\"put\""]),
        why: "lsmlab has no merge benchmarks; a put merge operator changes nothing else",
    },
    NoEffect {
        name: "compaction_measure_io_stats",
        accepted: None,
        why: "lsmlab always counts compaction I/O (its block after each benchmark)",
    },
    NoEffect {
        name: "universal_compression_size_percent",
        accepted: Some(&["-1"]),
        why: "lsmlab compresses every universal compaction's output as --compression_type says",
    },
    NoEffect {
        name: "universal_incremental",
        accepted: Some(&["false"]),
        why: "lsmlab's universal size-amplification compactions always merge whole runs",
    },
];

/// The entry for `name`, if it is a no-effect flag.
pub fn find(name: &str) -> Option<&'static NoEffect> {
    NO_EFFECT.iter().find(|f| f.name == name)
}

/// Checks `raw` for the no-effect flag `f`: the line to print, or the refusal.
pub fn check(f: &NoEffect, raw: &str) -> Result<String, String> {
    let value = match raw.to_ascii_lowercase().as_str() {
        "1" | "t" | "y" | "yes" | "true" if f.accepted == Some(&["true"]) => "true".to_string(),
        _ => raw.to_string(),
    };
    match f.accepted {
        Some(ok) if !ok.contains(&value.as_str()) => Err(format!(
            "--{}={raw}: lsmlab cannot honour this value ({}); allowed: {}",
            f.name,
            f.why,
            ok.iter()
                .map(|v| if v.is_empty() { "\"\"" } else { v })
                .collect::<Vec<_>>()
                .join(", ")
        )),
        _ => Ok(format!(
            "--{}={raw} has no effect in lsmlab: {}",
            f.name, f.why
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_tuning_is_accepted_and_unhonourable_values_are_refused() {
        let ok = check(find("subcompactions").unwrap(), "1").unwrap();
        assert!(
            ok.starts_with("--subcompactions=1 has no effect in lsmlab"),
            "{ok}"
        );
        let e = check(find("subcompactions").unwrap(), "4").unwrap_err();
        assert!(
            e.starts_with("--subcompactions=4: lsmlab cannot honour"),
            "{e}"
        );
        assert!(check(find("verify_checksum").unwrap(), "1").is_ok());
        assert!(check(find("verify_checksum").unwrap(), "false").is_err());
        assert!(check(find("memtablerep").unwrap(), "vector").is_ok());
        let e = check(find("memtablerep").unwrap(), "hash_linkedlist").unwrap_err();
        assert!(e.contains("allowed: skip_list, vector"), "{e}");
        assert!(check(find("open_files").unwrap(), "-1").is_ok());
        assert!(find("num").is_none());
    }
}
