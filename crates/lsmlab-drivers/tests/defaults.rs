//! Two tables of defaults, compared flag by flag:
//! - `lsmlab bench`'s flag defaults against db_bench's, from the table of `db_bench --help`
//!   checked in as `tests/data/db_bench-11.9.0-defaults.tsv` (made by
//!   `scripts/db-bench-defaults.py`), so that a db_bench command line that leaves a flag out
//!   measures the same configuration on both tools;
//! - the flags' defaults translated to the engine's `Options` against `Options::default()`,
//!   except where db_bench's own default differs from RocksDB's `Options` (listed below, each
//!   with its reason), so a flag and an option of one name never disagree by accident.

use lsmlab::{Compression, Options};
use lsmlab_drivers::engine::lsmlab::options;
use lsmlab_drivers::flags::{BenchFlags, SUPPORTED};
use std::collections::BTreeMap;

/// The db_bench table: flag name → (gflags type, default as `--help` prints it).
fn db_bench_defaults() -> (String, BTreeMap<String, (String, String)>) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/db_bench-11.9.0-defaults.tsv"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let source = lines.next().unwrap().to_string();
    let table = lines
        .map(|l| {
            let mut f = l.splitn(3, '\t');
            let (name, ty, default) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
            (name.to_string(), (ty.to_string(), default.to_string()))
        })
        .collect();
    (source, table)
}

/// lsmlab's flags db_bench does not have: nothing to compare.
const LSMLAB_ONLY: &[&str] = &[
    "bloom_before_level",
    "bloom_bits_per_level",
    "bloom_allocation",
    "layout",
    "fslsm_read_ratio_window",
    "fslsm_frequency_window",
    "fslsm_gamma",
    "fslsm_stretch_increments",
    "fslsm_float_target",
    "fslsm_max_float_overlap_files",
    "fslsm_device_read_micros",
    "fslsm_device_write_micros",
    "max_files_for_level_base",
    "max_obsolete_percent",
    "compaction_victims",
    "deterministic_background",
    "shape",
    "json",
    "engine",
];

/// Flags whose default differs from db_bench's on purpose, and why.
const DELIBERATE: &[(&str, &str)] = &[(
    "benchmarks",
    "db_bench's list holds some 50 benchmarks, many of which lsmlab refuses \
     (fillseqdeterministic, multireadrandom, …); lsmlab's is its core (fills, gets, seeks, \
     scans, mixes), in db_bench's order (checked below)",
)];

/// True if lsmlab's default (as serde writes it) is db_bench's `--help` default of type `ty`.
fn same_default(lsmlab: &serde_json::Value, ty: &str, db_bench: &str) -> bool {
    use serde_json::Value;
    match lsmlab {
        Value::Bool(b) => ty == "bool" && db_bench == b.to_string(),
        Value::Number(n) => db_bench.parse::<f64>().is_ok_and(|d| n.as_f64() == Some(d)),
        Value::String(s) => ty == "string" && s == db_bench,
        _ => false,
    }
}

#[test]
fn bench_flag_defaults_are_db_benchs() {
    let (source, table) = db_bench_defaults();
    assert!(source.starts_with("# db_bench 11.9.0"), "{source}");
    assert!(table.len() > 400, "{} flags", table.len());
    let defaults = serde_json::to_value(BenchFlags::default()).unwrap();
    let mut differ = Vec::new();
    for &name in SUPPORTED {
        let Some((ty, theirs)) = table.get(name) else {
            assert!(
                LSMLAB_ONLY.contains(&name),
                "--{name} is neither db_bench's nor listed as lsmlab's own"
            );
            continue;
        };
        assert!(!LSMLAB_ONLY.contains(&name), "--{name} is db_bench's too");
        let ours = &defaults[name];
        if !same_default(ours, ty, theirs) {
            differ.push(name);
            assert!(
                DELIBERATE.iter().any(|(n, _)| *n == name),
                "--{name}: lsmlab's default {ours} is not db_bench 11.9's {theirs:?}"
            );
        }
    }
    // Every deliberate difference is still one (an entry that no longer differs is removed).
    let listed: Vec<&str> = DELIBERATE.iter().map(|(n, _)| *n).collect();
    assert_eq!(differ, listed);
    // The ones the two tools' users notice first.
    let d = BenchFlags::default();
    assert_eq!(d.compression().unwrap(), Compression::Snappy);
    assert_eq!(d.cache_size, 32 << 20);
    // lsmlab's default benchmarks are db_bench's, less those lsmlab does not run, in order.
    let theirs: Vec<&str> = table["benchmarks"].1.split(',').collect();
    let mut at = 0;
    for b in d.benchmarks.split(',') {
        match theirs[at..].iter().position(|t| *t == b) {
            Some(p) => at += p + 1,
            None => panic!("default benchmark {b} is not in db_bench's list, in order"),
        }
    }
}

#[test]
fn bench_flag_defaults_are_the_engines_option_defaults() {
    let from_flags = options(&BenchFlags::default().settings().unwrap());
    let engine = Options::default();
    macro_rules! same {
        ($($field:ident),* $(,)?) => {
            $(assert_eq!(
                from_flags.$field, engine.$field,
                concat!("--", stringify!($field), " and Options::", stringify!($field))
            );)*
        };
    }
    same!(
        write_buffer_size,
        max_write_buffer_number,
        db_write_buffer_size,
        level0_file_num_compaction_trigger,
        level0_slowdown_writes_trigger,
        level0_stop_writes_trigger,
        max_bytes_for_level_base,
        max_bytes_for_level_multiplier,
        level_compaction_dynamic_level_bytes,
        target_file_size_base,
        num_levels,
        max_background_jobs,
        block_size,
        block_restart_interval,
        bytes_per_sync,
        allow_mmap_reads,
        disable_auto_compactions,
        enable_blob_files,
        min_blob_size,
        blob_file_size,
        blob_compression_type,
        enable_blob_garbage_collection,
        blob_garbage_collection_age_cutoff,
        blob_garbage_collection_force_threshold,
        layout,
        wal_recovery_mode,
        paranoid_checks,
        max_files_for_level_base,
        max_obsolete_percent,
        compaction_victims,
        deterministic_background,
    );
    // The FSLSM-Tree's parameters: every `--fslsm_*` flag's default is FslsmOptions's.
    let (f, e) = (&from_flags.fslsm, &engine.fslsm);
    assert_eq!(f.read_ratio_window, e.read_ratio_window);
    assert_eq!(f.frequency_window, e.frequency_window);
    assert_eq!(f.gamma, e.gamma);
    assert_eq!(f.stretch_increments, e.stretch_increments);
    assert_eq!(f.float_target, e.float_target);
    assert_eq!(f.max_float_overlap_files, e.max_float_overlap_files);
    assert_eq!(f.device_read_micros, e.device_read_micros);
    assert_eq!(f.device_write_micros, e.device_write_micros);
    // db_bench's own defaults, kept so that a db_bench command line means the same here:
    // --delayed_write_rate is 8 MiB/s in db_bench, 16 MiB/s in RocksDB's Options.
    assert_eq!(from_flags.delayed_write_rate, 8 << 20);
    assert_eq!(engine.delayed_write_rate, 16 << 20);
    // --compression_type is snappy in db_bench; RocksDB's `Options` default is snappy too, but
    // the engine's is none: the studies measure uncompressed trees unless they ask.
    assert_eq!(from_flags.compression, Compression::Snappy);
    assert_eq!(engine.compression, Compression::None);
    // --cache_size is 32 MiB in db_bench 11 (8 MiB in 7.8); the engine keeps 7.8's 8 MiB.
    assert_eq!(from_flags.block_cache_size, 32 << 20);
    assert_eq!(engine.block_cache_size, 8 << 20);
}
