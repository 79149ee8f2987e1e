//! RocksDB behind the driver's interface: the library Debian ships (`librocksdb-dev`), through
//! its C API, with the settings mapped onto RocksDB's options as db_bench 7.8 maps its flags.

use super::rocksdb_ffi::{self as ffi, compression};
use super::settings::EngineSettings;
use super::{EngineKind, Store};
use crate::error::{CliError, CliResult};
use crate::readout::block::{Figures, Snapshot};
use crate::readout::counters::CounterSnapshot;
use crate::readout::foreign::ForeignFigures;
use crate::readout::lsm::ClientCounts;
use lsmlab::Compression;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// The RocksDB version of the headers this program was built against.
pub const VERSION: &str = env!("LSMLAB_ROCKSDB_VERSION");

/// `rocksdb 7.8.3 (librocksdb, C API; Debian package librocksdb-dev 7.8.3-2)`, or the
/// bundled release build.
pub fn describe() -> String {
    if cfg!(feature = "rocksdb-bundled") {
        // librocksdb-sys compiles RocksDB for the target features this crate is compiled for:
        // without SSE4.2 RocksDB computes CRC32C in software, on every WAL record and block.
        let crc = if cfg!(any(not(target_arch = "x86_64"), target_feature = "sse4.2")) {
            "CRC32C in hardware"
        } else {
            "no SSE4.2: CRC32C in software, slower than RocksDB's own build; \
             build with scripts/build-rocksdb-bundled.sh"
        };
        return format!(
            "rocksdb {VERSION} (release build from source by the librocksdb-sys crate, \
             linked statically, through rocksdb/c.h; {crc})"
        );
    }
    let package = env!("LSMLAB_ROCKSDB_PACKAGE");
    let how = if package.is_empty() {
        "system library".to_string()
    } else {
        format!("Debian package librocksdb-dev {package}")
    };
    format!("rocksdb {VERSION} (librocksdb through rocksdb/c.h, linked dynamically; {how})")
}

fn compression_of(c: Compression) -> i32 {
    match c {
        Compression::None => compression::NONE,
        Compression::Lz4 => compression::LZ4,
        Compression::Zstd => compression::ZSTD,
        Compression::Snappy => compression::SNAPPY,
    }
}

/// RocksDB's options for `s`, as db_bench 7.8's `InitializeOptionsFromFlags` sets them.
fn options(s: &EngineSettings, create_if_missing: bool) -> CliResult<ffi::Options> {
    let mut o = ffi::Options::new();
    // No setter in c.h 7.8: set by RocksDB's option-string syntax, first (it copies the rest).
    o.apply_string(&format!("delayed_write_rate={}", s.delayed_write_rate))
        .map_err(|e| CliError::new(format!("--delayed_write_rate: RocksDB refused it: {e}")))?;
    o.set_create_if_missing(create_if_missing);
    o.set_write_buffer_size(s.write_buffer_size);
    o.set_max_write_buffer_number(clamp_i32(s.max_write_buffer_number));
    o.set_db_write_buffer_size(s.db_write_buffer_size);
    o.set_level0_file_num_compaction_trigger(clamp_i32(s.level0_file_num_compaction_trigger));
    o.set_level0_slowdown_writes_trigger(clamp_i32(s.level0_slowdown_writes_trigger));
    o.set_level0_stop_writes_trigger(clamp_i32(s.level0_stop_writes_trigger));
    o.set_target_file_size_base(s.target_file_size_base);
    o.set_max_bytes_for_level_base(s.max_bytes_for_level_base);
    o.set_max_bytes_for_level_multiplier(s.max_bytes_for_level_multiplier);
    o.set_level_compaction_dynamic_level_bytes(s.level_compaction_dynamic_level_bytes);
    o.set_optimize_filters_for_hits(s.optimize_filters_for_hits);
    o.set_num_levels(clamp_i32(s.num_levels));
    o.set_max_background_jobs(clamp_i32(s.max_background_jobs));
    o.set_disable_auto_compactions(s.disable_auto_compactions);
    let c = compression_of(s.compression_type);
    o.set_compression(c);
    if let Some(min) = s.min_level_to_compress {
        let levels: Vec<i32> = (0..s.num_levels)
            .map(|l| if l < min { compression::NONE } else { c })
            .collect();
        o.set_compression_per_level(&levels);
    }
    o.set_bytes_per_sync(s.bytes_per_sync);
    o.set_allow_mmap_reads(s.mmap_read);
    if let Some(wal_dir) = &s.wal_dir {
        o.set_wal_dir(wal_dir)
            .map_err(|e| CliError::new(format!("--wal_dir: {e}")))?;
    }
    if s.statistics {
        o.enable_statistics();
    }
    o.set_enable_blob_files(s.enable_blob_files);
    o.set_min_blob_size(s.min_blob_size);
    o.set_blob_file_size(s.blob_file_size);
    o.set_blob_compression_type(compression_of(s.blob_compression_type));
    o.set_enable_blob_gc(s.enable_blob_garbage_collection);
    o.set_blob_gc_age_cutoff(s.blob_garbage_collection_age_cutoff);
    o.set_blob_gc_force_threshold(s.blob_garbage_collection_force_threshold);
    let mut t = ffi::TableOptions::new();
    t.set_block_size(s.block_size);
    t.set_block_restart_interval(clamp_i32(s.block_restart_interval));
    if s.cache_size > 0 {
        t.set_lru_cache(s.cache_size);
    } else {
        t.set_no_block_cache();
    }
    if s.bloom_bits > 0.0 {
        if s.use_ribbon_filter {
            t.set_ribbon(s.bloom_bits, s.bloom_before_level);
        } else {
            t.set_bloom(s.bloom_bits);
        }
    }
    o.set_table_options(&t);
    Ok(o)
}

fn clamp_i32(v: usize) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

/// Removes the RocksDB database at `path`.
pub fn destroy(path: &str) -> CliResult<()> {
    ffi::destroy_db(&ffi::Options::new(), path)
        .map_err(|e| CliError::new(format!("destroy {path}: {e}")))
}

/// An open RocksDB database.
pub struct RocksDbStore {
    // Declared first: dropped (closed) before the options that hold its statistics.
    db: ffi::Db,
    options: ffi::Options,
    disable_auto_compactions: bool,
    num_levels: usize,
    layout: String,
}

impl RocksDbStore {
    /// Opens (or with `create_if_missing` creates) the database at `s.path`.
    pub fn open(s: &EngineSettings, create_if_missing: bool) -> CliResult<RocksDbStore> {
        let path = &s.path;
        let options = options(s, create_if_missing)?;
        let db = ffi::Db::open(&options, path, s.sync, s.disable_wal)
            .map_err(|e| CliError::new(format!("open {path}: {e}")))?;
        let layout = format!(
            "leveled (RocksDB{})",
            if s.level_compaction_dynamic_level_bytes {
                ", dynamic level bytes"
            } else {
                ""
            }
        );
        Ok(RocksDbStore {
            db,
            options,
            disable_auto_compactions: s.disable_auto_compactions,
            num_levels: s.num_levels,
            layout,
        })
    }

    fn property_u64(&self, name: &str) -> Option<u64> {
        self.db.property(name)?.trim().parse().ok()
    }
}

/// RocksDB's statistics dump as counters: `name COUNT : n` tickers by name, histograms as
/// `name COUNT` and `name SUM`.
pub fn parse_statistics(text: &str) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let Some((name, rest)) = line.split_once(' ') else {
            continue;
        };
        let field = |key: &str| -> Option<f64> {
            let at = rest.find(key)? + key.len();
            rest[at..].split_whitespace().next()?.parse().ok()
        };
        if rest.starts_with("COUNT : ") {
            if let Some(v) = field("COUNT : ") {
                out.insert(name.to_string(), v);
            }
        } else if rest.starts_with("P50 : ") {
            if let (Some(c), Some(s)) = (field("COUNT : "), field("SUM : ")) {
                out.insert(format!("{name} COUNT"), c);
                out.insert(format!("{name} SUM"), s);
            }
        }
    }
    out
}

/// The filter bytes and filter keys of every live table, from RocksDB's
/// `rocksdb.aggregated-table-properties` (`…; filter block size=N; # entries for filter=K; …`;
/// a version without the filter count gives `# entries`, every key a table holds).
pub fn parse_aggregated_properties(text: &str) -> Option<(u64, u64)> {
    let mut fields = BTreeMap::new();
    for part in text.split(';') {
        if let Some((k, v)) = part.split_once('=') {
            if let Ok(v) = v.trim().parse::<u64>() {
                fields.insert(k.trim(), v);
            }
        }
    }
    let bytes = *fields.get("filter block size")?;
    let keys = fields
        .get("# entries for filter")
        .or_else(|| fields.get("# entries"))?;
    Some((bytes, *keys))
}

super::pass_through::batch_writer!(RocksDbWriter, ffi);

struct RocksDbIter<'a>(ffi::Iter<'a>);

super::pass_through::pass_through_iter!(RocksDbIter<'_>);

impl Store for RocksDbStore {
    fn kind(&self) -> EngineKind {
        EngineKind::RocksDb
    }

    super::pass_through::c_api_store_calls!(RocksDbWriter, RocksDbIter, ffi);

    fn flush(&self) -> CliResult<()> {
        self.db
            .flush()
            .map_err(|e| CliError::new(format!("flush error: {e}")))
    }

    fn compact_all(&self) -> CliResult<()> {
        self.db.compact_all();
        Ok(())
    }

    fn wait_for_background_work(&self) -> CliResult<()> {
        // c.h 7.8 has no WaitForCompact: poll RocksDB's own properties, as db_bench's
        // waitforcompaction does. With auto compactions off a pending compaction never runs, so
        // only running work is waited for.
        let mut names = vec![
            "rocksdb.num-running-compactions",
            "rocksdb.num-running-flushes",
        ];
        if !self.disable_auto_compactions {
            names.extend([
                "rocksdb.compaction-pending",
                "rocksdb.mem-table-flush-pending",
            ]);
        }
        loop {
            // A background error stops compactions for good: waiting would never end.
            if self
                .property_u64("rocksdb.background-errors")
                .is_some_and(|e| e > 0)
            {
                return Err(CliError::new(
                    "waitforcompaction: RocksDB reports a background error (see its LOG)",
                ));
            }
            let busy = names
                .iter()
                .any(|n| self.property_u64(n).is_some_and(|v| v > 0));
            if !busy {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn property(&self, name: &str) -> Option<String> {
        self.db.property(name)
    }

    fn statistics_text(&self) -> String {
        self.options
            .statistics_string()
            .unwrap_or_else(|| "(RocksDB statistics are off; run with --statistics)\n".into())
    }

    fn snapshot(&self) -> Snapshot {
        let counters = self
            .options
            .statistics_string()
            .map(|s| parse_statistics(&s))
            .unwrap_or_default();
        Snapshot::Counters(CounterSnapshot::now(counters))
    }

    fn figures(
        &self,
        before: &Snapshot,
        after: &Snapshot,
        db_path: &Path,
        client: ClientCounts,
    ) -> Figures {
        let (Snapshot::Counters(b), Snapshot::Counters(a)) = (before, after) else {
            return Figures::Foreign(Box::default());
        };
        let d = |name: &str| a.delta(b, name).map(|v| v.round() as u64);
        let mut f = ForeignFigures::common("rocksdb", b, a, db_path, client);
        f.flush_bytes = d("rocksdb.flush.write.bytes");
        f.compaction_write_bytes = d("rocksdb.compact.write.bytes");
        f.compaction_read_bytes = d("rocksdb.compact.read.bytes");
        f.wal_bytes = d("rocksdb.wal.bytes");
        f.filter_useful = d("rocksdb.bloom.filter.useful");
        f.filter_positive = d("rocksdb.bloom.filter.full.positive");
        f.filter_true_positive = d("rocksdb.bloom.filter.full.true.positive");
        f.compactions = d("rocksdb.compaction.times.micros COUNT");
        f.compaction_cpu_micros = d("rocksdb.compaction.times.cpu_micros SUM");
        f.compaction_seconds = d("rocksdb.compaction.times.micros SUM").map(|us| us as f64 / 1e6);
        f.sst_files_bytes = self.property_u64("rocksdb.total-sst-files-size");
        f.table_readers_bytes = self.property_u64("rocksdb.estimate-table-readers-mem");
        f.block_cache_bytes = self.property_u64("rocksdb.block-cache-usage");
        f.memtable_bytes = self.property_u64("rocksdb.cur-size-all-mem-tables");
        if let Some((bytes, keys)) = self
            .db
            .property("rocksdb.aggregated-table-properties")
            .and_then(|t| parse_aggregated_properties(&t))
        {
            f.filter_bytes = Some(bytes);
            f.filter_keys = Some(keys);
        }
        f.files_per_level = (0..self.num_levels)
            .map_while(|l| self.property_u64(&format!("rocksdb.num-files-at-level{l}")))
            .collect();
        f.layout = self.layout.clone();
        Figures::Foreign(Box::new(f.finish()))
    }

    fn close(self: Box<Self>) -> CliResult<()> {
        drop(self);
        Ok(())
    }

    fn reopen_fresh(self: Box<Self>, s: &EngineSettings) -> CliResult<Box<dyn Store>> {
        let path = &s.path;
        // The same options object: its statistics accumulate over the run, as db_bench's.
        let RocksDbStore {
            db,
            mut options,
            disable_auto_compactions,
            num_levels,
            layout,
        } = *self;
        drop(db);
        ffi::destroy_db(&options, path)
            .map_err(|e| CliError::new(format!("destroy {path}: {e}")))?;
        options.set_create_if_missing(true);
        let db = ffi::Db::open(&options, path, s.sync, s.disable_wal)
            .map_err(|e| CliError::new(format!("open {path}: {e}")))?;
        Ok(Box::new(RocksDbStore {
            db,
            options,
            disable_auto_compactions,
            num_levels,
            layout,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_dump_becomes_counters() {
        let c = parse_statistics(
            "rocksdb.block.cache.miss COUNT : 123\nrocksdb.compaction.times.micros P50 : 1.0 P95 : 2.0 P99 : 3.0 P100 : 4.0 COUNT : 7 SUM : 99\n",
        );
        assert_eq!(c["rocksdb.block.cache.miss"], 123.0);
        assert_eq!(c["rocksdb.compaction.times.micros COUNT"], 7.0);
        assert_eq!(c["rocksdb.compaction.times.micros SUM"], 99.0);
    }

    #[test]
    fn aggregated_table_properties_give_the_filters() {
        // RocksDB 7.8's text of TableProperties::ToString, abridged.
        let t = "# data blocks=12; # entries=2000; # deletions=0; raw key size=64000; \
                 data block size=1100000; index block size (user-key? 1, delta-value? 1)=300; \
                 filter block size=2560; # entries for filter=1998; (estimated) table size=1102860; ";
        assert_eq!(parse_aggregated_properties(t), Some((2560, 1998)));
        let old = "# entries=800; filter block size=1000; ";
        assert_eq!(parse_aggregated_properties(old), Some((1000, 800)));
        assert_eq!(parse_aggregated_properties("# entries=8; "), None);
        assert_eq!(parse_aggregated_properties(""), None);
    }
}
