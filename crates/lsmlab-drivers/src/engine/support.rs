//! Which settings each engine honours, by their names (db_bench's flag names). A setting the
//! command line gave that the engine cannot honour is refused by name before anything runs; a
//! setting left at its default never is (the engine then runs with its own default, listed in
//! docs/engines.md).
//!
//! A setting given the value that is the engine's only behaviour (`--use_ribbon_filter=false`,
//! `--num_levels=7` on LevelDB) is accepted: it asks for nothing the engine does not do.

use super::settings::EngineSettings;
use super::EngineKind;
use lsmlab::Compression;

/// Why a setting cannot be honoured: (its name, reason).
pub type Refusal = (String, String);

/// Settings of lsmlab's own layouts (seed 003's engines): lsmlab only.
const LSMLAB_ONLY: &[&str] = &[
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
    "shape",
    "deterministic_background",
];

/// lsmlab's own filter settings: per-level bits per key and Monkey's allocation.
const LSMLAB_FILTERS: &[&str] = &["bloom_bits_per_level", "bloom_allocation"];

/// Why an engine other than lsmlab refuses `name` if it is one of lsmlab's own settings.
fn lsmlab_only(name: &str) -> Option<String> {
    if LSMLAB_ONLY.contains(&name) {
        return Some("an lsmlab layout option (seed 003's engines)".into());
    }
    LSMLAB_FILTERS
        .contains(&name)
        .then(|| "an lsmlab filter option (per-level bits, Monkey's allocation)".into())
}

/// The smallest journal limit fjall takes (its builder asserts it): a smaller
/// `--db_write_buffer_size` holds fjall's journal to this.
pub const FJALL_MIN_JOURNAL: u64 = 64 << 20;

/// LevelDB 1.23's fixed shape (`db/dbformat.h`, `db/version_set.cc`).
pub const LEVELDB_LEVELS: usize = 7;
/// LevelDB's level-0 compaction, slowdown and stop triggers.
pub const LEVELDB_L0_TRIGGERS: [usize; 3] = [4, 8, 12];
/// LevelDB's level-1 target size (10 MiB; each level below ×10).
pub const LEVELDB_LEVEL1_BYTES: u64 = 10 * 1_048_576;

/// The first setting named in `explicit` that `kind` cannot honour with its value in `s`.
pub fn check(kind: EngineKind, s: &EngineSettings, explicit: &[String]) -> Result<(), Refusal> {
    let shape = &s.lsmlab.shape;
    if !shape.is_empty() {
        if let Some(name) = explicit
            .iter()
            .find(|n| lsmlab::options::SHAPE_FLAGS.contains(&n.as_str()))
        {
            return Err((
                name.clone(),
                format!("set by shape {shape} as well, give one or the other"),
            ));
        }
    }
    for name in explicit {
        if !matches!(kind, EngineKind::Lsmlab) {
            if let Some(why) = universal_refusal(name, s) {
                return Err((name.clone(), why));
            }
        }
        let why = match kind {
            EngineKind::Lsmlab => None,
            EngineKind::RocksDb => rocksdb_refuses(name),
            EngineKind::LevelDb => leveldb_refuses(name, s),
            EngineKind::Fjall => fjall_refuses(name, s),
        };
        if let Some(why) = why {
            return Err((name.clone(), why));
        }
    }
    Ok(())
}

/// Universal compaction's settings: the engines but lsmlab run leveled compaction here (the
/// RocksDB adapter opens its trees leveled), so they refuse universal compaction and its
/// parameters by name.
fn universal_refusal(name: &str, s: &EngineSettings) -> Option<String> {
    let why = "universal compaction runs on lsmlab only here";
    match name {
        "compaction_style" if s.lsmlab.universal_compaction => Some(format!("{why}; allowed 0")),
        n if n.starts_with("universal_") => Some(why.to_string()),
        _ => None,
    }
}

/// fjall's answer to `waitforcompaction`: it counts running compactions, not the ones it has
/// yet to pick, so "none running" would not mean "none pending".
pub const FJALL_CANNOT_WAIT: &str = "fjall has no way to wait for its background compactions";

/// fjall's fixed number of levels.
pub const FJALL_LEVELS: usize = 7;
/// Level-0 runs from which fjall slows writes, and at which it stops them.
pub const FJALL_L0_TRIGGERS: [usize; 2] = [20, 30];
/// fjall stops writes at 4 sealed memtables: with the active one, 5.
pub const FJALL_MEMTABLES: usize = 5;
/// The block sizes fjall takes (it panics outside them).
pub const FJALL_BLOCK_SIZES: std::ops::RangeInclusive<usize> = 1024..=1_048_576;

/// Why `kind` cannot wait until its background work is done (`Store::wait_for_background_work`,
/// db_bench's `waitforcompaction`), if it cannot.
pub fn cannot_wait_for_background_work(kind: EngineKind) -> Option<&'static str> {
    match kind {
        EngineKind::Fjall => Some(FJALL_CANNOT_WAIT),
        _ => None,
    }
}

fn rocksdb_refuses(name: &str) -> Option<String> {
    lsmlab_only(name)
}

fn leveldb_refuses(name: &str, f: &EngineSettings) -> Option<String> {
    if let Some(why) = lsmlab_only(name) {
        return Some(why);
    }
    let fixed = |ok: bool, what: &str| (!ok).then(|| what.to_string());
    match name {
        "use_ribbon_filter" => fixed(!f.use_ribbon_filter, "LevelDB has Bloom filters only"),
        "optimize_filters_for_hits" => fixed(
            !f.optimize_filters_for_hits,
            "LevelDB builds a filter for every table",
        ),
        "bloom_before_level" => Some("LevelDB has Bloom filters only".into()),
        "bloom_bits" => fixed(
            f.bloom_bits <= 0.0 || f.bloom_bits.fract() == 0.0,
            "LevelDB takes whole bits per key",
        ),
        "enable_blob_files" => fixed(!f.enable_blob_files, "LevelDB has no blob files"),
        "min_blob_size"
        | "blob_file_size"
        | "blob_compression_type"
        | "enable_blob_garbage_collection"
        | "blob_garbage_collection_age_cutoff"
        | "blob_garbage_collection_force_threshold" => Some("LevelDB has no blob files".into()),
        "compression_type" => fixed(
            matches!(f.compression_type, Compression::None | Compression::Snappy),
            "LevelDB compresses with snappy or not at all; allowed none, snappy",
        ),
        "min_level_to_compress" => fixed(
            f.min_level_to_compress.is_none(),
            "LevelDB compresses every level alike",
        ),
        "num_levels" => fixed(
            f.num_levels == LEVELDB_LEVELS,
            "LevelDB has 7 levels; allowed 7",
        ),
        "max_bytes_for_level_base" => fixed(
            f.max_bytes_for_level_base == LEVELDB_LEVEL1_BYTES,
            "LevelDB's level 1 holds 10 MiB; allowed 10485760",
        ),
        "max_bytes_for_level_multiplier" => fixed(
            f.max_bytes_for_level_multiplier == 10.0,
            "LevelDB's levels grow by 10; allowed 10",
        ),
        "level0_file_num_compaction_trigger" => fixed(
            f.level0_file_num_compaction_trigger == LEVELDB_L0_TRIGGERS[0],
            "LevelDB compacts level 0 at 4 files; allowed 4",
        ),
        "level0_slowdown_writes_trigger" => fixed(
            f.level0_slowdown_writes_trigger == LEVELDB_L0_TRIGGERS[1],
            "LevelDB slows writes at 8 level-0 files; allowed 8",
        ),
        "level0_stop_writes_trigger" => fixed(
            f.level0_stop_writes_trigger == LEVELDB_L0_TRIGGERS[2],
            "LevelDB stops writes at 12 level-0 files; allowed 12",
        ),
        "max_write_buffer_number" => fixed(
            f.max_write_buffer_number == 2,
            "LevelDB has one memtable and one being flushed; allowed 2",
        ),
        "db_write_buffer_size" => fixed(
            f.db_write_buffer_size == 0,
            "LevelDB has no database-wide write-buffer budget; allowed 0",
        ),
        "max_background_jobs" => fixed(
            f.max_background_jobs == 1,
            "LevelDB has one background thread; allowed 1",
        ),
        "disable_auto_compactions" => fixed(
            !f.disable_auto_compactions,
            "LevelDB always compacts in the background",
        ),
        "level_compaction_dynamic_level_bytes" => fixed(
            !f.level_compaction_dynamic_level_bytes,
            "LevelDB's level sizes are fixed",
        ),
        "delayed_write_rate" => Some(
            "LevelDB delays each write by 1 ms over the slowdown trigger, not by a rate".into(),
        ),
        "bytes_per_sync" => fixed(f.bytes_per_sync == 0, "LevelDB has no incremental sync"),
        "wal_dir" => fixed(
            f.wal_dir.is_none(),
            "LevelDB keeps its log in the database directory",
        ),
        "disable_wal" => fixed(!f.disable_wal, "LevelDB always writes its log"),
        // LevelDB 1.23 maps up to 1000 tables on a 64-bit machine; no option turns it off.
        "mmap_read" => fixed(
            f.mmap_read,
            "LevelDB reads its tables through memory maps; allowed true",
        ),
        _ => None,
    }
}

fn fjall_refuses(name: &str, f: &EngineSettings) -> Option<String> {
    if let Some(why) = lsmlab_only(name) {
        return Some(why);
    }
    let fixed = |ok: bool, what: &str| (!ok).then(|| what.to_string());
    let byte = |v: usize| (1..=255).contains(&v);
    match name {
        "use_ribbon_filter" => fixed(!f.use_ribbon_filter, "fjall has Bloom filters only"),
        "optimize_filters_for_hits" => fixed(
            !f.optimize_filters_for_hits,
            "fjall builds a filter for every table",
        ),
        "bloom_before_level" => Some("fjall has Bloom filters only".into()),
        "compression_type" => fixed(
            matches!(f.compression_type, Compression::None | Compression::Lz4),
            "fjall has lz4 only; allowed none, lz4",
        ),
        "blob_compression_type" => fixed(
            matches!(
                f.blob_compression_type,
                Compression::None | Compression::Lz4
            ),
            "fjall has lz4 only; allowed none, lz4",
        ),
        "blob_garbage_collection_force_threshold" => Some(
            "fjall has no forced blob garbage collection (its staleness threshold only filters)"
                .into(),
        ),
        "min_blob_size" => fixed(
            u32::try_from(f.min_blob_size).is_ok(),
            "fjall's separation threshold is at most 4294967295 bytes",
        ),
        "num_levels" => fixed(
            f.num_levels == FJALL_LEVELS,
            "fjall has 7 levels; allowed 7",
        ),
        "max_bytes_for_level_base" => {
            let l1 = f
                .target_file_size_base
                .saturating_mul(f.level0_file_num_compaction_trigger as u64);
            fixed(
                f.max_bytes_for_level_base == l1,
                &format!("fjall's level 1 holds target_file_size_base x level0_file_num_compaction_trigger bytes; allowed {l1}"),
            )
        }
        "level0_file_num_compaction_trigger" => fixed(
            byte(f.level0_file_num_compaction_trigger),
            "fjall takes 1 to 255 level-0 tables",
        ),
        "level0_slowdown_writes_trigger" => fixed(
            f.level0_slowdown_writes_trigger == FJALL_L0_TRIGGERS[0],
            "fjall slows writes from 20 level-0 runs; allowed 20",
        ),
        "level0_stop_writes_trigger" => fixed(
            f.level0_stop_writes_trigger == FJALL_L0_TRIGGERS[1],
            "fjall stops writes at 30 level-0 runs; allowed 30",
        ),
        "max_write_buffer_number" => fixed(
            f.max_write_buffer_number == FJALL_MEMTABLES,
            "fjall stops writes at 4 sealed memtables besides the active one; allowed 5",
        ),
        "max_background_jobs" => fixed(
            f.max_background_jobs >= 1,
            "fjall needs at least 1 worker thread",
        ),
        "disable_auto_compactions" => fixed(
            !f.disable_auto_compactions,
            "fjall always compacts in the background",
        ),
        "level_compaction_dynamic_level_bytes" => fixed(
            !f.level_compaction_dynamic_level_bytes,
            "fjall sizes its levels from level 1 down",
        ),
        "delayed_write_rate" => Some("fjall slows writes by level-0 runs, not by a rate".into()),
        "bytes_per_sync" => fixed(f.bytes_per_sync == 0, "fjall has no incremental sync"),
        "wal_dir" => fixed(
            f.wal_dir.is_none(),
            "fjall keeps its journal in the database directory",
        ),
        "disable_wal" => fixed(!f.disable_wal, "fjall always writes its journal"),
        "mmap_read" => fixed(
            !f.mmap_read,
            "fjall reads tables through file descriptors, not memory maps",
        ),
        "cache_size" => fixed(
            f.cache_size > 0,
            "fjall always has a block cache; allowed > 0",
        ),
        "block_size" => fixed(
            FJALL_BLOCK_SIZES.contains(&f.block_size),
            "fjall takes blocks of 1024 to 1048576 bytes",
        ),
        "block_restart_interval" => fixed(
            byte(f.block_restart_interval),
            "fjall takes a restart interval of 1 to 255",
        ),
        _ => None,
    }
}
