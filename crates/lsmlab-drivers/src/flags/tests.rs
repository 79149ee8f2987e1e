//! The flags: parsing, defaults, refusals, the settings they give, and each engine's refusals.

use super::validate::check_layout;
use super::*;
use crate::engine::EngineKind;
use crate::error::{CliError, CliResult};
use lsmlab::{Compression, Layout};

/// lsmlab's options for the flags' settings.
fn options(f: &BenchFlags) -> lsmlab::Options {
    crate::engine::lsmlab::options(&f.settings().unwrap())
}

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

fn run(a: &[&str]) -> CliResult<BenchFlags> {
    match parse(&args(a))? {
        Parsed::Run { flags, .. } => Ok(*flags),
        Parsed::Help => Err(CliError::new("help")),
    }
}

#[test]
fn defaults_are_db_bench_11() {
    // tests/defaults.rs checks every default against db_bench 11.9's --help.
    let f = BenchFlags::default();
    assert_eq!(f.num, 1_000_000);
    assert_eq!(f.key_size, 16);
    assert_eq!(f.value_size, 100);
    assert_eq!(f.compression_ratio, 0.5);
    assert_eq!(f.cache_size, 32 << 20);
    assert_eq!(options(&f).compression, Compression::Snappy);
    assert_eq!(f.bloom_bits, -1.0);
    assert_eq!(f.threads, 1);
    assert_eq!(f.write_buffer_size, 64 << 20);
    assert_eq!(f.readwritepercent, 90);
    assert_eq!(f.reads_per_thread(), 1_000_000);
    assert_eq!(options(&f).filter.bits_per_key, 0.0);
}

#[test]
fn all_value_syntaxes_parse() {
    let f = run(&[
        "--num=500",
        "--value_size",
        "1024",
        "-key_size=32",
        "--statistics",
        "--histogram=1",
        "--use_ribbon_filter=true",
        "--bloom_bits=10",
        "--compression_type=none",
    ])
    .unwrap();
    assert_eq!(f.num, 500);
    assert_eq!(f.value_size, 1024);
    assert_eq!(f.key_size, 32);
    assert!(f.statistics && f.histogram && f.use_ribbon_filter);
    assert_eq!(options(&f).filter.kind, lsmlab::filter::FilterKind::Ribbon);
    assert_eq!(options(&f).filter.bits_per_key, 10.0);
    assert_eq!(options(&f).filter.bloom_before_level, 0);
    let f = run(&[
        "--use_ribbon_filter",
        "--bloom_bits=7.5",
        "--bloom_before_level=-1",
    ])
    .unwrap();
    assert_eq!(options(&f).filter.bloom_before_level, -1);
    assert_eq!(options(&f).filter.bits_per_key, 7.5);
}

#[test]
fn booleans_take_gflags_forms() {
    assert!(!run(&["--statistics=false"]).unwrap().statistics);
    assert!(run(&["--statistics=1"]).unwrap().statistics);
    assert!(!run(&["--statistics", "--nostatistics"]).unwrap().statistics);
    assert!(run(&["--use_existing_db=0"])
        .map(|f| !f.use_existing_db)
        .unwrap());
}

#[test]
fn unknown_flag_suggests_the_closest_name() {
    let e = run(&["--bloom_bit=10"]).unwrap_err().0;
    assert_eq!(e, "unknown flag --bloom_bit; did you mean --bloom_bits?");
    let e = run(&["--valuesize=10"]).unwrap_err().0;
    assert!(e.contains("did you mean --value_size?"), "{e}");
}

#[test]
fn unsupported_flags_are_refused_by_name() {
    let e = run(&["--use_direct_reads=true"]).unwrap_err().0;
    assert!(e.starts_with("--use_direct_reads: a db_bench flag lsmlab does not support"));
    let e = run(&["--use_blob_cache=true"]).unwrap_err().0;
    assert!(e.starts_with("--use_blob_cache: a db_bench flag lsmlab does not support"));
}

#[test]
fn blob_flags_reach_the_options_and_bad_values_name_the_flag() {
    let f = run(&[
        "--enable_blob_files=true",
        "--min_blob_size=4096",
        "--blob_file_size=1048576",
        "--blob_compression_type=lz4",
        "--enable_blob_garbage_collection=true",
        "--blob_garbage_collection_age_cutoff=0.5",
        "--blob_garbage_collection_force_threshold=0.8",
    ])
    .unwrap();
    let o = options(&f);
    assert!(o.enable_blob_files && o.enable_blob_garbage_collection);
    assert_eq!((o.min_blob_size, o.blob_file_size), (4096, 1 << 20));
    assert_eq!(o.blob_compression_type, Compression::Lz4);
    assert_eq!(o.blob_garbage_collection_age_cutoff, 0.5);
    assert_eq!(o.blob_garbage_collection_force_threshold, 0.8);
    // db_bench's defaults.
    let d = options(&BenchFlags::default());
    assert!(!d.enable_blob_files && !d.enable_blob_garbage_collection);
    assert_eq!((d.min_blob_size, d.blob_file_size), (0, 256 << 20));
    assert_eq!(d.blob_garbage_collection_age_cutoff, 0.25);
    assert_eq!(d.blob_garbage_collection_force_threshold, 1.0);
    let e = run(&["--blob_compression_type=zlib"]).unwrap_err().0;
    assert!(
        e.starts_with("--blob_compression_type") && e.contains("none, snappy, lz4, zstd"),
        "{e}"
    );
    let o = options(&run(&["--blob_compression_type=snappy"]).unwrap());
    assert_eq!(o.blob_compression_type, Compression::Snappy);
    let e = run(&["--blob_garbage_collection_age_cutoff=2"])
        .unwrap_err()
        .0;
    assert!(
        e.starts_with("--blob_garbage_collection_age_cutoff: invalid value 2"),
        "{e}"
    );
    let e = run(&["--blob_file_size=10"]).unwrap_err().0;
    assert!(e.starts_with("--blob_file_size: invalid value 10"), "{e}");
}

#[test]
fn bad_values_name_the_flag_and_what_is_allowed() {
    let e = run(&["--num=abc"]).unwrap_err().0;
    assert_eq!(
        e,
        "--num: invalid value \"abc\": expected a non-negative integer"
    );
    let e = run(&["--statistics=maybe"]).unwrap_err().0;
    assert!(
        e.contains("--statistics") && e.contains("true/false"),
        "{e}"
    );
    let e = run(&["--readwritepercent=101"]).unwrap_err().0;
    assert!(
        e.starts_with("--readwritepercent: invalid value 101"),
        "{e}"
    );
    let e = run(&["--compression_type=zlib"]).unwrap_err().0;
    assert!(
        e.starts_with("--compression_type") && e.contains("none, snappy, lz4, zstd"),
        "{e}"
    );
    let e = run(&["--write_buffer_size=10"]).unwrap_err().0;
    assert_eq!(
        e,
        "--write_buffer_size: invalid value 10: must be at least 4096 bytes"
    );
    let e = run(&["--threads"]).unwrap_err().0;
    assert!(e.starts_with("--threads: missing value"), "{e}");
    let e = run(&["num=5"]).unwrap_err().0;
    assert!(e.contains("flags look like --name=value"), "{e}");
}

#[test]
fn benchmarks_are_checked_by_name() {
    let e = run(&["--benchmarks=fillrandom,readrandm"]).unwrap_err().0;
    assert!(e.contains("did you mean readrandom?"), "{e}");
    let e = run(&["--benchmarks=mixgraph"]).unwrap_err().0;
    assert!(e.contains("does not support yet"), "{e}");
    let f = run(&["--benchmarks=fillseq,,stats"]).unwrap();
    assert_eq!(f.benchmark_list().unwrap(), vec!["fillseq", "stats"]);
}

/// The flag engine `kind` refuses in `args`, as `lsmlab bench --engine=` would.
fn refusal(kind: EngineKind, args: &[&str]) -> Option<String> {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let Ok(Parsed::Run {
        flags, explicit, ..
    }) = parse(&args)
    else {
        panic!("{args:?} does not parse");
    };
    let settings = flags.settings().unwrap();
    flags
        .engine_refusal(kind, &settings, &explicit)
        .err()
        .map(|(n, _)| n)
}

#[test]
fn each_engine_refuses_what_it_cannot_honour_by_name() {
    use EngineKind::*;
    assert_eq!(
        refusal(LevelDb, &["--use_ribbon_filter=true"]).as_deref(),
        Some("use_ribbon_filter")
    );
    assert_eq!(refusal(LevelDb, &["--use_ribbon_filter=false"]), None);
    assert_eq!(
        refusal(LevelDb, &["--enable_blob_files"]).as_deref(),
        Some("enable_blob_files")
    );
    assert_eq!(
        refusal(LevelDb, &["--min_blob_size=10"]).as_deref(),
        Some("min_blob_size")
    );
    assert_eq!(
        refusal(LevelDb, &["--bloom_bits=7.5"]).as_deref(),
        Some("bloom_bits")
    );
    assert_eq!(
        refusal(LevelDb, &["--bloom_bits=10", "--num_levels=7"]),
        None
    );
    assert_eq!(
        refusal(LevelDb, &["--compression_type=lz4"]).as_deref(),
        Some("compression_type")
    );
    assert_eq!(
        refusal(LevelDb, &["--disable_wal"]).as_deref(),
        Some("disable_wal")
    );
    assert_eq!(
        refusal(
            RocksDb,
            &[
                "--use_ribbon_filter",
                "--bloom_bits=10",
                "--enable_blob_files"
            ]
        ),
        None
    );
    assert_eq!(
        refusal(RocksDb, &["--layout=fslsm"]).as_deref(),
        Some("layout")
    );
    assert_eq!(refusal(Lsmlab, &["--layout=fslsm"]), None);
    // LevelDB waits by reading its tables (engine/leveldb_settle.rs); fjall cannot.
    assert_eq!(
        refusal(LevelDb, &["--benchmarks=fillseq,waitforcompaction"]),
        None
    );
}

#[test]
fn layout_sets_the_preset_and_fslsm_flags_reach_the_engine() {
    let mut f = BenchFlags::default();
    f.set_raw("layout", "fslsm").unwrap();
    f.set_raw("fslsm_gamma", "0.5").unwrap();
    f.set_raw("fslsm_stretch_increments", "4,2").unwrap();
    check_layout(&f).unwrap();
    let o = options(&f);
    assert_eq!(
        (o.layout, o.enable_blob_files, o.min_blob_size),
        (Layout::Fslsm, true, 0)
    );
    assert_eq!(o.fslsm.gamma, 0.5);
    assert_eq!(o.fslsm.stretch_increments, vec![4, 2]);
    f.set_raw("layout", "leveldb").unwrap();
    assert!(!options(&f).enable_blob_files);
    // Victims and limits in tables reach the engine under any layout.
    f.set_raw("compaction_victims", "frequency").unwrap();
    f.set_raw("max_files_for_level_base", "10").unwrap();
    check_layout(&f).unwrap();
    let o = options(&f);
    assert_eq!(
        (o.compaction_victims, o.max_files_for_level_base),
        (lsmlab::CompactionVictims::LowestFrequency, 10)
    );
}

#[test]
fn an_ablation_preset_wins_over_the_fslsm_flags_defaults() {
    let mut f = BenchFlags::default();
    f.set_raw("layout", "fslsm-nofloat").unwrap();
    check_layout(&f).unwrap();
    let o = options(&f);
    assert_eq!(o.layout, Layout::Fslsm);
    assert_eq!(o.fslsm.float_target, lsmlab::options::FloatTarget::Off);
    f.set_raw("layout", "fslsm-nostretch").unwrap();
    let o = options(&f);
    assert!(o.fslsm.stretch_increments.iter().all(|&i| i == 0));
    assert_eq!(o.fslsm.float_target, lsmlab::options::FloatTarget::Level0);
}

#[test]
fn bad_layout_values_are_one_line_errors_naming_the_flag() {
    for (name, raw) in [
        ("layout", "rocks"),
        ("fslsm_stretch_increments", "20,x"),
        ("fslsm_float_target", "level3"),
        ("compaction_victims", "hottest"),
    ] {
        let mut f = BenchFlags::default();
        f.set_raw(name, raw).unwrap();
        let e = check_layout(&f).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("--{name}: invalid value")) && !e.contains('\n'),
            "{e}"
        );
    }
    let mut f = BenchFlags::default();
    f.set_raw("fslsm_gamma", "0").unwrap();
    let e = f.validate().unwrap_err().to_string();
    assert!(e.starts_with("--fslsm_gamma: invalid value 0"), "{e}");
}

#[test]
fn engine_options_by_name_refuse_benchmark_flags_and_unknown_names() {
    let mut f = BenchFlags::default();
    set_engine_option(&mut f, "-p lsmlab.", "min_blob_size", "0").unwrap();
    set_engine_option(&mut f, "-p lsmlab.", "write_buffer_size", "4194304").unwrap();
    assert_eq!(options(&f).write_buffer_size, 4 << 20);
    let e = set_engine_option(&mut f, "-p lsmlab.", "num", "5")
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown engine option"), "{e}");
    let e = set_engine_option(&mut f, "-p lsmlab.", "write_bufer_size", "5")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("did you mean -p lsmlab.write_buffer_size"),
        "{e}"
    );
    let e = set_engine_option(&mut f, "-p lsmlab.", "block_size", "big")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("-p lsmlab.block_size: invalid value"), "{e}");
}

#[test]
fn filter_flags_by_level_reach_the_options() {
    use lsmlab::filter::FilterAllocation;
    let f = BenchFlags::default();
    let o = options(&f);
    assert!(!o.filter.optimize_filters_for_hits);
    assert!(o.filter.bits_per_key_per_level.is_empty());
    assert_eq!(o.filter.allocation, FilterAllocation::Uniform);
    let f = run(&[
        "--bloom_bits=10",
        "--optimize_filters_for_hits=1",
        "--bloom_allocation=monkey",
    ])
    .unwrap();
    let o = options(&f);
    assert!(o.filter.optimize_filters_for_hits);
    assert_eq!(o.filter.allocation, FilterAllocation::Monkey);
    let f = run(&["--bloom_bits_per_level=14, 10,8,0"]).unwrap();
    assert_eq!(
        options(&f).filter.bits_per_key_per_level,
        [14.0, 10.0, 8.0, 0.0]
    );
}

#[test]
fn bad_filter_flags_by_level_name_the_flag() {
    for (flag, named) in [
        (
            "--bloom_bits_per_level=10,x",
            "--bloom_bits_per_level: invalid value \"10,x\": allowed: comma-separated",
        ),
        (
            "--bloom_bits_per_level=10,,8",
            "--bloom_bits_per_level: invalid value",
        ),
        (
            "--bloom_bits_per_level=101",
            "--bloom_bits_per_level: invalid value",
        ),
        (
            "--bloom_allocation=Monkey",
            "--bloom_allocation: invalid value \"Monkey\": allowed: uniform, monkey",
        ),
    ] {
        let e = run(&[flag])
            .and_then(|f| f.settings().map(|_| ()))
            .unwrap_err();
        assert!(e.to_string().starts_with(named), "{flag}: {e}");
    }
}

#[test]
fn filters_by_level_are_refused_where_an_engine_lacks_them() {
    use EngineKind::*;
    for kind in [LevelDb, Fjall] {
        assert_eq!(
            refusal(kind, &["--optimize_filters_for_hits=1"]).as_deref(),
            Some("optimize_filters_for_hits")
        );
        assert_eq!(refusal(kind, &["--optimize_filters_for_hits=0"]), None);
    }
    assert_eq!(refusal(RocksDb, &["--optimize_filters_for_hits=1"]), None);
    for kind in [RocksDb, LevelDb, Fjall] {
        assert_eq!(
            refusal(kind, &["--bloom_allocation=monkey", "--bloom_bits=10"]).as_deref(),
            Some("bloom_allocation")
        );
        assert_eq!(
            refusal(kind, &["--bloom_bits_per_level=10,8"]).as_deref(),
            Some("bloom_bits_per_level")
        );
    }
}

#[test]
fn compaction_style_1_runs_universal_with_db_bench_s_zero_defaults() {
    let f = run(&["--compaction_style=1"]).unwrap();
    f.validate().unwrap();
    let o = options(&f);
    assert_eq!(o.layout, Layout::Universal);
    assert_eq!(o.universal, lsmlab::options::UniversalOptions::default());
    let f = run(&[
        "--compaction_style=1",
        "--universal_size_ratio=10",
        "--universal_min_merge_width=3",
        "--universal_max_merge_width=8",
        "--universal_max_size_amplification_percent=50",
        "--universal_allow_trivial_move=true",
    ])
    .unwrap();
    f.validate().unwrap();
    let u = options(&f).universal;
    assert_eq!(
        (u.size_ratio, u.min_merge_width, u.max_merge_width),
        (10, 3, 8)
    );
    assert_eq!(u.max_size_amplification_percent, 50);
    assert!(u.allow_trivial_move);
    // The preset gives the same layout without the db_bench flag.
    let f = run(&["--layout=universal"]).unwrap();
    f.validate().unwrap();
    assert_eq!(options(&f).layout, Layout::Universal);
    assert!(!options(&f).enable_blob_files);
}

#[test]
fn universal_refusals_name_the_flag() {
    for (a, flag, says) in [
        (
            &["--compaction_style=2"][..],
            "compaction_style",
            "allowed 0 (leveled), 1 (universal)",
        ),
        (
            &["--compaction_style=1", "--layout=fslsm"][..],
            "compaction_style",
            "--layout=fslsm",
        ),
        (
            &["--compaction_style=1", "--universal_size_ratio=-1"][..],
            "universal_size_ratio",
            "at least 0",
        ),
        (
            &["--compaction_style=1", "--universal_max_merge_width=1"][..],
            "universal_max_merge_width",
            "at least 2",
        ),
        (
            &[
                "--compaction_style=1",
                "--level_compaction_dynamic_level_bytes=true",
            ][..],
            "level_compaction_dynamic_level_bytes",
            "universal",
        ),
    ] {
        let e = run(a).and_then(|f| f.validate()).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("--{flag}: invalid value")) && e.contains(says),
            "{a:?}: {e}"
        );
        assert!(!e.contains('\n'), "{e}");
    }
    use EngineKind::*;
    for kind in [RocksDb, LevelDb, Fjall] {
        assert_eq!(
            refusal(kind, &["--compaction_style=1"]).as_deref(),
            Some("compaction_style")
        );
        assert_eq!(
            refusal(kind, &["--compaction_style=1", "--universal_size_ratio=5"]).as_deref(),
            Some("compaction_style")
        );
    }
    // Universal flags under leveled compaction contradict it, whatever the engine.
    let e = parse(&["--universal_size_ratio=5".to_string()])
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.starts_with("--universal_size_ratio: applies to universal compaction only"),
        "{e}"
    );
    assert_eq!(refusal(RocksDb, &["--compaction_style=0"]), None);
    assert_eq!(refusal(Lsmlab, &["--compaction_style=1"]), None);
}
