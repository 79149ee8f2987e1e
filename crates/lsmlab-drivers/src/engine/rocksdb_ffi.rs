//! RocksDB's C API (`rocksdb/c.h`, the 7.8 series Debian ships), declared by hand for the
//! calls the driver makes, with safe wrappers. The only `unsafe` code of the RocksDB engine.
//!
//! Ownership follows `c.h`: every object made by a `*_create` is freed by its `*_destroy` in the
//! wrapper's `Drop`; strings the library returns (`errptr`, property values, the statistics
//! dump) are freed with `rocksdb_free`. A filter policy passed to the table options is owned by
//! them; caches and table options are copied (reference-counted) by the calls that take them.
#![allow(non_camel_case_types)]

use super::copy_value;
use std::ffi::{c_char, c_double, c_int, c_uchar, c_void, CStr, CString};
use std::ptr;

#[repr(C)]
pub struct rocksdb_t {
    _private: [u8; 0],
}
#[repr(C)]
pub struct rocksdb_options_t {
    _private: [u8; 0],
}
#[repr(C)]
pub struct rocksdb_block_based_table_options_t {
    _private: [u8; 0],
}
#[repr(C)]
pub struct rocksdb_cache_t {
    _private: [u8; 0],
}
#[repr(C)]
pub struct rocksdb_filterpolicy_t {
    _private: [u8; 0],
}
#[repr(C)]
pub struct rocksdb_readoptions_t {
    _private: [u8; 0],
}
#[repr(C)]
pub struct rocksdb_writeoptions_t {
    _private: [u8; 0],
}
#[repr(C)]
pub struct rocksdb_flushoptions_t {
    _private: [u8; 0],
}
#[repr(C)]
pub struct rocksdb_writebatch_t {
    _private: [u8; 0],
}
#[repr(C)]
pub struct rocksdb_iterator_t {
    _private: [u8; 0],
}
#[repr(C)]
pub struct rocksdb_pinnableslice_t {
    _private: [u8; 0],
}

#[cfg_attr(not(feature = "rocksdb-bundled"), link(name = "rocksdb"))]
extern "C" {
    fn rocksdb_options_create() -> *mut rocksdb_options_t;
    fn rocksdb_options_destroy(o: *mut rocksdb_options_t);
    fn rocksdb_options_set_create_if_missing(o: *mut rocksdb_options_t, v: c_uchar);
    fn rocksdb_options_set_write_buffer_size(o: *mut rocksdb_options_t, v: usize);
    fn rocksdb_options_set_max_write_buffer_number(o: *mut rocksdb_options_t, v: c_int);
    fn rocksdb_options_set_db_write_buffer_size(o: *mut rocksdb_options_t, v: usize);
    fn rocksdb_options_set_level0_file_num_compaction_trigger(o: *mut rocksdb_options_t, v: c_int);
    fn rocksdb_options_set_level0_slowdown_writes_trigger(o: *mut rocksdb_options_t, v: c_int);
    fn rocksdb_options_set_level0_stop_writes_trigger(o: *mut rocksdb_options_t, v: c_int);
    fn rocksdb_options_set_target_file_size_base(o: *mut rocksdb_options_t, v: u64);
    fn rocksdb_options_set_max_bytes_for_level_base(o: *mut rocksdb_options_t, v: u64);
    fn rocksdb_options_set_max_bytes_for_level_multiplier(o: *mut rocksdb_options_t, v: c_double);
    fn rocksdb_options_set_level_compaction_dynamic_level_bytes(
        o: *mut rocksdb_options_t,
        v: c_uchar,
    );
    fn rocksdb_options_set_num_levels(o: *mut rocksdb_options_t, v: c_int);
    fn rocksdb_options_set_optimize_filters_for_hits(o: *mut rocksdb_options_t, v: c_int);
    fn rocksdb_options_set_max_background_jobs(o: *mut rocksdb_options_t, v: c_int);
    fn rocksdb_options_set_disable_auto_compactions(o: *mut rocksdb_options_t, v: c_int);
    fn rocksdb_options_set_compression(o: *mut rocksdb_options_t, v: c_int);
    fn rocksdb_options_set_compression_per_level(
        o: *mut rocksdb_options_t,
        levels: *const c_int,
        n: usize,
    );
    fn rocksdb_options_set_bytes_per_sync(o: *mut rocksdb_options_t, v: u64);
    fn rocksdb_options_set_allow_mmap_reads(o: *mut rocksdb_options_t, v: c_uchar);
    fn rocksdb_options_set_wal_dir(o: *mut rocksdb_options_t, dir: *const c_char);
    fn rocksdb_options_enable_statistics(o: *mut rocksdb_options_t);
    fn rocksdb_options_statistics_get_string(o: *mut rocksdb_options_t) -> *mut c_char;
    fn rocksdb_options_set_enable_blob_files(o: *mut rocksdb_options_t, v: c_uchar);
    fn rocksdb_options_set_min_blob_size(o: *mut rocksdb_options_t, v: u64);
    fn rocksdb_options_set_blob_file_size(o: *mut rocksdb_options_t, v: u64);
    fn rocksdb_options_set_blob_compression_type(o: *mut rocksdb_options_t, v: c_int);
    fn rocksdb_options_set_enable_blob_gc(o: *mut rocksdb_options_t, v: c_uchar);
    fn rocksdb_options_set_blob_gc_age_cutoff(o: *mut rocksdb_options_t, v: c_double);
    fn rocksdb_options_set_blob_gc_force_threshold(o: *mut rocksdb_options_t, v: c_double);
    fn rocksdb_options_set_block_based_table_factory(
        o: *mut rocksdb_options_t,
        t: *mut rocksdb_block_based_table_options_t,
    );
    fn rocksdb_get_options_from_string(
        base: *const rocksdb_options_t,
        text: *const c_char,
        out: *mut rocksdb_options_t,
        errptr: *mut *mut c_char,
    );

    fn rocksdb_block_based_options_create() -> *mut rocksdb_block_based_table_options_t;
    fn rocksdb_block_based_options_destroy(t: *mut rocksdb_block_based_table_options_t);
    fn rocksdb_block_based_options_set_block_size(
        t: *mut rocksdb_block_based_table_options_t,
        v: usize,
    );
    fn rocksdb_block_based_options_set_block_restart_interval(
        t: *mut rocksdb_block_based_table_options_t,
        v: c_int,
    );
    fn rocksdb_block_based_options_set_filter_policy(
        t: *mut rocksdb_block_based_table_options_t,
        p: *mut rocksdb_filterpolicy_t,
    );
    fn rocksdb_block_based_options_set_block_cache(
        t: *mut rocksdb_block_based_table_options_t,
        c: *mut rocksdb_cache_t,
    );
    fn rocksdb_block_based_options_set_no_block_cache(
        t: *mut rocksdb_block_based_table_options_t,
        v: c_uchar,
    );
    fn rocksdb_cache_create_lru(capacity: usize) -> *mut rocksdb_cache_t;
    fn rocksdb_cache_destroy(c: *mut rocksdb_cache_t);
    fn rocksdb_filterpolicy_create_bloom_full(bits: c_double) -> *mut rocksdb_filterpolicy_t;
    fn rocksdb_filterpolicy_create_ribbon_hybrid(
        bits: c_double,
        bloom_before_level: c_int,
    ) -> *mut rocksdb_filterpolicy_t;

    fn rocksdb_open(
        o: *const rocksdb_options_t,
        name: *const c_char,
        errptr: *mut *mut c_char,
    ) -> *mut rocksdb_t;
    fn rocksdb_close(db: *mut rocksdb_t);
    fn rocksdb_destroy_db(
        o: *const rocksdb_options_t,
        name: *const c_char,
        errptr: *mut *mut c_char,
    );
    fn rocksdb_free(p: *mut c_void);

    fn rocksdb_writeoptions_create() -> *mut rocksdb_writeoptions_t;
    fn rocksdb_writeoptions_destroy(w: *mut rocksdb_writeoptions_t);
    fn rocksdb_writeoptions_set_sync(w: *mut rocksdb_writeoptions_t, v: c_uchar);
    fn rocksdb_writeoptions_disable_WAL(w: *mut rocksdb_writeoptions_t, v: c_int);
    fn rocksdb_readoptions_create() -> *mut rocksdb_readoptions_t;
    fn rocksdb_readoptions_destroy(r: *mut rocksdb_readoptions_t);
    fn rocksdb_flushoptions_create() -> *mut rocksdb_flushoptions_t;
    fn rocksdb_flushoptions_destroy(f: *mut rocksdb_flushoptions_t);
    fn rocksdb_flushoptions_set_wait(f: *mut rocksdb_flushoptions_t, v: c_uchar);

    fn rocksdb_writebatch_create() -> *mut rocksdb_writebatch_t;
    fn rocksdb_writebatch_destroy(b: *mut rocksdb_writebatch_t);
    fn rocksdb_writebatch_clear(b: *mut rocksdb_writebatch_t);
    fn rocksdb_writebatch_put(
        b: *mut rocksdb_writebatch_t,
        k: *const c_char,
        klen: usize,
        v: *const c_char,
        vlen: usize,
    );
    fn rocksdb_writebatch_delete(b: *mut rocksdb_writebatch_t, k: *const c_char, klen: usize);
    fn rocksdb_write(
        db: *mut rocksdb_t,
        w: *const rocksdb_writeoptions_t,
        b: *mut rocksdb_writebatch_t,
        errptr: *mut *mut c_char,
    );
    fn rocksdb_get_pinned(
        db: *mut rocksdb_t,
        r: *const rocksdb_readoptions_t,
        k: *const c_char,
        klen: usize,
        errptr: *mut *mut c_char,
    ) -> *mut rocksdb_pinnableslice_t;
    fn rocksdb_pinnableslice_value(
        p: *const rocksdb_pinnableslice_t,
        len: *mut usize,
    ) -> *const c_char;
    fn rocksdb_pinnableslice_destroy(p: *mut rocksdb_pinnableslice_t);

    fn rocksdb_create_iterator(
        db: *mut rocksdb_t,
        r: *const rocksdb_readoptions_t,
    ) -> *mut rocksdb_iterator_t;
    fn rocksdb_iter_destroy(i: *mut rocksdb_iterator_t);
    fn rocksdb_iter_valid(i: *const rocksdb_iterator_t) -> c_uchar;
    fn rocksdb_iter_seek_to_first(i: *mut rocksdb_iterator_t);
    fn rocksdb_iter_seek_to_last(i: *mut rocksdb_iterator_t);
    fn rocksdb_iter_seek(i: *mut rocksdb_iterator_t, k: *const c_char, klen: usize);
    fn rocksdb_iter_seek_for_prev(i: *mut rocksdb_iterator_t, k: *const c_char, klen: usize);
    fn rocksdb_iter_next(i: *mut rocksdb_iterator_t);
    fn rocksdb_iter_prev(i: *mut rocksdb_iterator_t);
    fn rocksdb_iter_key(i: *const rocksdb_iterator_t, len: *mut usize) -> *const c_char;
    fn rocksdb_iter_value(i: *const rocksdb_iterator_t, len: *mut usize) -> *const c_char;
    fn rocksdb_iter_get_error(i: *const rocksdb_iterator_t, errptr: *mut *mut c_char);

    fn rocksdb_property_value(db: *mut rocksdb_t, name: *const c_char) -> *mut c_char;
    fn rocksdb_flush(
        db: *mut rocksdb_t,
        f: *const rocksdb_flushoptions_t,
        errptr: *mut *mut c_char,
    );
    fn rocksdb_compact_range(
        db: *mut rocksdb_t,
        start: *const c_char,
        start_len: usize,
        limit: *const c_char,
        limit_len: usize,
    );
}

/// Compression types of `c.h` (`rocksdb_no_compression` …).
pub mod compression {
    /// None.
    pub const NONE: i32 = 0;
    /// Snappy.
    pub const SNAPPY: i32 = 1;
    /// LZ4.
    pub const LZ4: i32 = 4;
    /// Zstandard.
    pub const ZSTD: i32 = 7;
}

fn c_string(what: &str, s: &str) -> Result<CString, String> {
    CString::new(s).map_err(|_| format!("{what} {s:?} contains a NUL byte"))
}

/// `rocksdb_block_based_table_options_t`.
pub struct TableOptions(*mut rocksdb_block_based_table_options_t);

impl TableOptions {
    /// RocksDB's defaults.
    pub fn new() -> TableOptions {
        // SAFETY: no preconditions; freed in Drop.
        TableOptions(unsafe { rocksdb_block_based_options_create() })
    }
    /// `block_size`.
    pub fn set_block_size(&mut self, v: usize) {
        // SAFETY: self.0 is live.
        unsafe { rocksdb_block_based_options_set_block_size(self.0, v) }
    }
    /// `block_restart_interval`.
    pub fn set_block_restart_interval(&mut self, v: i32) {
        // SAFETY: self.0 is live.
        unsafe { rocksdb_block_based_options_set_block_restart_interval(self.0, v) }
    }
    /// A new LRU block cache of `capacity` bytes.
    pub fn set_lru_cache(&mut self, capacity: usize) {
        // SAFETY: the table options take their own reference to the cache, so ours is
        // released right away.
        unsafe {
            let c = rocksdb_cache_create_lru(capacity);
            rocksdb_block_based_options_set_block_cache(self.0, c);
            rocksdb_cache_destroy(c);
        }
    }
    /// No block cache at all.
    pub fn set_no_block_cache(&mut self) {
        // SAFETY: self.0 is live.
        unsafe { rocksdb_block_based_options_set_no_block_cache(self.0, 1) }
    }
    /// A full Bloom filter of `bits` per key.
    pub fn set_bloom(&mut self, bits: f64) {
        // SAFETY: the table options take ownership of the policy.
        unsafe {
            rocksdb_block_based_options_set_filter_policy(
                self.0,
                rocksdb_filterpolicy_create_bloom_full(bits),
            )
        }
    }
    /// A Ribbon filter of `bits` Bloom-equivalent bits per key, Bloom below
    /// `bloom_before_level`.
    pub fn set_ribbon(&mut self, bits: f64, bloom_before_level: i32) {
        // SAFETY: the table options take ownership of the policy.
        unsafe {
            rocksdb_block_based_options_set_filter_policy(
                self.0,
                rocksdb_filterpolicy_create_ribbon_hybrid(bits, bloom_before_level),
            )
        }
    }
}

impl Drop for TableOptions {
    fn drop(&mut self) {
        // SAFETY: created by us, destroyed once.
        unsafe { rocksdb_block_based_options_destroy(self.0) }
    }
}

/// `rocksdb_options_t`. Kept alive as long as the database: it holds the statistics object.
pub struct Options(*mut rocksdb_options_t);

// SAFETY: the options are only read (the statistics dump) after open; RocksDB's Statistics
// object is thread-safe.
unsafe impl Send for Options {}
// SAFETY: as above.
unsafe impl Sync for Options {}

macro_rules! setter {
    ($(#[$m:meta])* $name:ident, $ffi:ident, $t:ty, $ct:ty) => {
        $(#[$m])*
        pub fn $name(&mut self, v: $t) {
            // SAFETY: self.0 is live; the setter copies the value.
            unsafe { $ffi(self.0, v as $ct) }
        }
    };
}

impl Options {
    /// RocksDB's defaults.
    pub fn new() -> Options {
        // SAFETY: no preconditions; freed in Drop.
        Options(unsafe { rocksdb_options_create() })
    }
    setter!(/** `create_if_missing`. */ set_create_if_missing, rocksdb_options_set_create_if_missing, bool, c_uchar);
    setter!(/** `write_buffer_size`. */ set_write_buffer_size, rocksdb_options_set_write_buffer_size, usize, usize);
    setter!(/** `max_write_buffer_number`. */ set_max_write_buffer_number, rocksdb_options_set_max_write_buffer_number, i32, c_int);
    setter!(/** `db_write_buffer_size`. */ set_db_write_buffer_size, rocksdb_options_set_db_write_buffer_size, usize, usize);
    setter!(/** `level0_file_num_compaction_trigger`. */ set_level0_file_num_compaction_trigger, rocksdb_options_set_level0_file_num_compaction_trigger, i32, c_int);
    setter!(/** `level0_slowdown_writes_trigger`. */ set_level0_slowdown_writes_trigger, rocksdb_options_set_level0_slowdown_writes_trigger, i32, c_int);
    setter!(/** `level0_stop_writes_trigger`. */ set_level0_stop_writes_trigger, rocksdb_options_set_level0_stop_writes_trigger, i32, c_int);
    setter!(/** `target_file_size_base`. */ set_target_file_size_base, rocksdb_options_set_target_file_size_base, u64, u64);
    setter!(/** `max_bytes_for_level_base`. */ set_max_bytes_for_level_base, rocksdb_options_set_max_bytes_for_level_base, u64, u64);
    setter!(/** `max_bytes_for_level_multiplier`. */ set_max_bytes_for_level_multiplier, rocksdb_options_set_max_bytes_for_level_multiplier, f64, c_double);
    setter!(/** `level_compaction_dynamic_level_bytes`. */ set_level_compaction_dynamic_level_bytes, rocksdb_options_set_level_compaction_dynamic_level_bytes, bool, c_uchar);
    setter!(/** `num_levels`. */ set_num_levels, rocksdb_options_set_num_levels, i32, c_int);
    setter!(/** `optimize_filters_for_hits`. */ set_optimize_filters_for_hits, rocksdb_options_set_optimize_filters_for_hits, bool, c_int);
    setter!(/** `max_background_jobs`. */ set_max_background_jobs, rocksdb_options_set_max_background_jobs, i32, c_int);
    setter!(/** `disable_auto_compactions`. */ set_disable_auto_compactions, rocksdb_options_set_disable_auto_compactions, bool, c_int);
    setter!(/** `compression` (a [`compression`] constant). */ set_compression, rocksdb_options_set_compression, i32, c_int);
    setter!(/** `bytes_per_sync`. */ set_bytes_per_sync, rocksdb_options_set_bytes_per_sync, u64, u64);
    setter!(/** `allow_mmap_reads`. */ set_allow_mmap_reads, rocksdb_options_set_allow_mmap_reads, bool, c_uchar);
    setter!(/** `enable_blob_files`. */ set_enable_blob_files, rocksdb_options_set_enable_blob_files, bool, c_uchar);
    setter!(/** `min_blob_size`. */ set_min_blob_size, rocksdb_options_set_min_blob_size, u64, u64);
    setter!(/** `blob_file_size`. */ set_blob_file_size, rocksdb_options_set_blob_file_size, u64, u64);
    setter!(/** `blob_compression_type` (a [`compression`] constant). */ set_blob_compression_type, rocksdb_options_set_blob_compression_type, i32, c_int);
    setter!(/** `enable_blob_garbage_collection`. */ set_enable_blob_gc, rocksdb_options_set_enable_blob_gc, bool, c_uchar);
    setter!(/** `blob_garbage_collection_age_cutoff`. */ set_blob_gc_age_cutoff, rocksdb_options_set_blob_gc_age_cutoff, f64, c_double);
    setter!(/** `blob_garbage_collection_force_threshold`. */ set_blob_gc_force_threshold, rocksdb_options_set_blob_gc_force_threshold, f64, c_double);

    /// `compression_per_level`.
    pub fn set_compression_per_level(&mut self, levels: &[i32]) {
        // SAFETY: the call copies `levels.len()` ints from a live slice.
        unsafe { rocksdb_options_set_compression_per_level(self.0, levels.as_ptr(), levels.len()) }
    }

    /// `wal_dir`.
    pub fn set_wal_dir(&mut self, dir: &str) -> Result<(), String> {
        let d = c_string("wal_dir", dir)?;
        // SAFETY: the call copies the NUL-terminated string.
        unsafe { rocksdb_options_set_wal_dir(self.0, d.as_ptr()) };
        Ok(())
    }

    /// Creates the statistics object (`options.statistics = CreateDBStatistics()`).
    pub fn enable_statistics(&mut self) {
        // SAFETY: self.0 is live.
        unsafe { rocksdb_options_enable_statistics(self.0) }
    }

    /// The statistics dump (`Statistics::ToString`), if statistics are on.
    pub fn statistics_string(&self) -> Option<String> {
        // SAFETY: self.0 is live; the string returned is ours to free.
        take_string(unsafe { rocksdb_options_statistics_get_string(self.0) })
    }

    /// The block-based table options (copied).
    pub fn set_table_options(&mut self, t: &TableOptions) {
        // SAFETY: both live; the call copies the table options into a new factory.
        unsafe { rocksdb_options_set_block_based_table_factory(self.0, t.0) }
    }

    /// Sets options by RocksDB's option-string syntax (`delayed_write_rate=8388608`), for the
    /// options `c.h` has no setter for.
    pub fn apply_string(&mut self, text: &str) -> Result<(), String> {
        let t = c_string("option string", text)?;
        // SAFETY: reads self.0 as the base and writes a complete copy into `out`, which then
        // replaces self.0 (the old one is destroyed once).
        unsafe {
            let out = rocksdb_options_create();
            match with_err(|e| rocksdb_get_options_from_string(self.0, t.as_ptr(), out, e)) {
                Ok(()) => {
                    rocksdb_options_destroy(self.0);
                    self.0 = out;
                    Ok(())
                }
                Err(e) => {
                    rocksdb_options_destroy(out);
                    Err(e)
                }
            }
        }
    }
}

impl Drop for Options {
    fn drop(&mut self) {
        // SAFETY: created by us, destroyed once, after the database that used it.
        unsafe { rocksdb_options_destroy(self.0) }
    }
}

/// Removes the database at `path` (`DestroyDB`).
pub fn destroy_db(options: &Options, path: &str) -> Result<(), String> {
    let p = c_string("path", path)?;
    // SAFETY: both pointers live for the call.
    with_err(|e| unsafe { rocksdb_destroy_db(options.0, p.as_ptr(), e) })
}

/// An open database with the read, write and flush options of the run, made once.
pub struct Db {
    db: *mut rocksdb_t,
    read: *mut rocksdb_readoptions_t,
    write: *mut rocksdb_writeoptions_t,
}

// SAFETY: `rocksdb_t` is a `DB*`, safe to use from many threads; the read and write options
// are only read after they are made.
unsafe impl Send for Db {}
// SAFETY: as above.
unsafe impl Sync for Db {}

impl Db {
    /// Opens the database at `path` with `options`; writes with `sync` and `disable_wal`.
    pub fn open(
        options: &Options,
        path: &str,
        sync: bool,
        disable_wal: bool,
    ) -> Result<Db, String> {
        let p = c_string("path", path)?;
        // SAFETY: options and path live for the call; a non-NULL handle is closed in Drop.
        let db = with_err(|e| unsafe { rocksdb_open(options.0, p.as_ptr(), e) })?;
        if db.is_null() {
            return Err("open returned no database".into());
        }
        // SAFETY: plain constructors and setters on fresh objects, freed in Drop.
        unsafe {
            let write = rocksdb_writeoptions_create();
            rocksdb_writeoptions_set_sync(write, sync as c_uchar);
            rocksdb_writeoptions_disable_WAL(write, disable_wal as c_int);
            Ok(Db {
                db,
                read: rocksdb_readoptions_create(),
                write,
            })
        }
    }

    /// Writes `batch` atomically.
    pub fn write(&self, batch: &mut WriteBatch) -> Result<(), String> {
        // SAFETY: all live; the batch is only read.
        with_err(|e| unsafe { rocksdb_write(self.db, self.write, batch.0, e) })
    }

    /// Looks `key` up through a pinned slice and hands its value to `read` (`None` when
    /// absent); the slice is released after `read`.
    fn lookup<T>(&self, key: &[u8], read: impl FnOnce(&[u8]) -> T) -> Result<Option<T>, String> {
        // SAFETY: the key slice lives for the call; the value's bytes are read only while the
        // pinned slice lives, and it is destroyed before returning.
        unsafe {
            let p = with_err(|e| {
                rocksdb_get_pinned(self.db, self.read, key.as_ptr().cast(), key.len(), e)
            })?;
            if p.is_null() {
                return Ok(None);
            }
            let mut len = 0usize;
            let v = rocksdb_pinnableslice_value(p, &mut len);
            let bytes = if v.is_null() {
                &[][..]
            } else {
                std::slice::from_raw_parts(v.cast::<u8>(), len)
            };
            let out = read(bytes);
            rocksdb_pinnableslice_destroy(p);
            Ok(Some(out))
        }
    }

    /// Looks `key` up; on a hit replaces `out`'s contents with the value.
    pub fn get(&self, key: &[u8], out: &mut Vec<u8>) -> Result<bool, String> {
        Ok(self.lookup(key, |v| copy_value(out, v))?.is_some())
    }

    /// Looks `key` up and gives its value's length; the pinned value is released unread.
    pub fn get_len(&self, key: &[u8]) -> Result<Option<usize>, String> {
        self.lookup(key, <[u8]>::len)
    }

    /// A new iterator with the run's read options.
    pub fn iter(&self) -> Iter<'_> {
        // SAFETY: the iterator borrows the database (lifetime 'a) and is destroyed in Drop.
        Iter {
            it: unsafe { rocksdb_create_iterator(self.db, self.read) },
            _db: std::marker::PhantomData,
        }
    }

    /// A property's text (`rocksdb.stats`); `None` if RocksDB does not know it.
    pub fn property(&self, name: &str) -> Option<String> {
        let n = CString::new(name).ok()?;
        // SAFETY: live handle and NUL-terminated name; the result is ours to free.
        take_string(unsafe { rocksdb_property_value(self.db, n.as_ptr()) })
    }

    /// Flushes the memtable and waits for the flush.
    pub fn flush(&self) -> Result<(), String> {
        // SAFETY: flush options made, used and destroyed here.
        unsafe {
            let f = rocksdb_flushoptions_create();
            rocksdb_flushoptions_set_wait(f, 1);
            let r = with_err(|e| rocksdb_flush(self.db, f, e));
            rocksdb_flushoptions_destroy(f);
            r
        }
    }

    /// Compacts the whole key range (`CompactRange(nullptr, nullptr)`).
    pub fn compact_all(&self) {
        // SAFETY: NULL bounds mean the whole range.
        unsafe { rocksdb_compact_range(self.db, ptr::null(), 0, ptr::null(), 0) }
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        // SAFETY: every iterator borrowed the database and is gone; each handle freed once.
        unsafe {
            rocksdb_close(self.db);
            rocksdb_readoptions_destroy(self.read);
            rocksdb_writeoptions_destroy(self.write);
        }
    }
}

super::c_api::c_api_wrappers! {
    free: rocksdb_free,
    batch: rocksdb_writebatch_t {
        create: rocksdb_writebatch_create,
        put: rocksdb_writebatch_put,
        delete: rocksdb_writebatch_delete,
        clear: rocksdb_writebatch_clear,
        destroy: rocksdb_writebatch_destroy,
    },
    iter: rocksdb_iterator_t {
        seek_to_first: rocksdb_iter_seek_to_first,
        seek_to_last: rocksdb_iter_seek_to_last,
        seek: rocksdb_iter_seek,
        next: rocksdb_iter_next,
        prev: rocksdb_iter_prev,
        valid: rocksdb_iter_valid,
        key: rocksdb_iter_key,
        value: rocksdb_iter_value,
        get_error: rocksdb_iter_get_error,
        destroy: rocksdb_iter_destroy,
    },
}

impl Iter<'_> {
    /// `SeekForPrev`.
    pub fn seek_for_prev(&mut self, key: &[u8]) {
        // SAFETY: live iterator; the key is read during the call.
        unsafe { rocksdb_iter_seek_for_prev(self.it, key.as_ptr().cast(), key.len()) }
    }
}
