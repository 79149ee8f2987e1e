//! LevelDB's C API (`leveldb/c.h`, 1.23 as Debian ships it), declared by hand for the calls the
//! driver makes, with safe wrappers. The only `unsafe` code of the LevelDB engine.
//!
//! Ownership follows `c.h`: the options only point at the block cache and the filter policy,
//! so [`Options`] owns both and frees them after the options; strings and values the library
//! returns are freed with `leveldb_free`.
#![allow(non_camel_case_types)]

use super::copy_value;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::ptr;

#[repr(C)]
pub struct leveldb_t {
    _private: [u8; 0],
}
#[repr(C)]
pub struct leveldb_options_t {
    _private: [u8; 0],
}
#[repr(C)]
pub struct leveldb_cache_t {
    _private: [u8; 0],
}
#[repr(C)]
pub struct leveldb_filterpolicy_t {
    _private: [u8; 0],
}
#[repr(C)]
pub struct leveldb_readoptions_t {
    _private: [u8; 0],
}
#[repr(C)]
pub struct leveldb_writeoptions_t {
    _private: [u8; 0],
}
#[repr(C)]
pub struct leveldb_writebatch_t {
    _private: [u8; 0],
}
#[repr(C)]
pub struct leveldb_iterator_t {
    _private: [u8; 0],
}

#[link(name = "leveldb")]
extern "C" {
    fn leveldb_options_create() -> *mut leveldb_options_t;
    fn leveldb_options_destroy(o: *mut leveldb_options_t);
    fn leveldb_options_set_create_if_missing(o: *mut leveldb_options_t, v: u8);
    fn leveldb_options_set_write_buffer_size(o: *mut leveldb_options_t, v: usize);
    fn leveldb_options_set_max_file_size(o: *mut leveldb_options_t, v: usize);
    fn leveldb_options_set_block_size(o: *mut leveldb_options_t, v: usize);
    fn leveldb_options_set_block_restart_interval(o: *mut leveldb_options_t, v: c_int);
    fn leveldb_options_set_compression(o: *mut leveldb_options_t, v: c_int);
    fn leveldb_options_set_cache(o: *mut leveldb_options_t, c: *mut leveldb_cache_t);
    fn leveldb_options_set_filter_policy(o: *mut leveldb_options_t, p: *mut leveldb_filterpolicy_t);
    fn leveldb_cache_create_lru(capacity: usize) -> *mut leveldb_cache_t;
    fn leveldb_cache_destroy(c: *mut leveldb_cache_t);
    fn leveldb_filterpolicy_create_bloom(bits_per_key: c_int) -> *mut leveldb_filterpolicy_t;
    fn leveldb_filterpolicy_destroy(p: *mut leveldb_filterpolicy_t);

    fn leveldb_open(
        o: *const leveldb_options_t,
        name: *const c_char,
        errptr: *mut *mut c_char,
    ) -> *mut leveldb_t;
    fn leveldb_close(db: *mut leveldb_t);
    fn leveldb_destroy_db(
        o: *const leveldb_options_t,
        name: *const c_char,
        errptr: *mut *mut c_char,
    );
    fn leveldb_free(p: *mut c_void);
    fn leveldb_major_version() -> c_int;
    fn leveldb_minor_version() -> c_int;

    fn leveldb_readoptions_create() -> *mut leveldb_readoptions_t;
    fn leveldb_readoptions_destroy(r: *mut leveldb_readoptions_t);
    fn leveldb_writeoptions_create() -> *mut leveldb_writeoptions_t;
    fn leveldb_writeoptions_destroy(w: *mut leveldb_writeoptions_t);
    fn leveldb_writeoptions_set_sync(w: *mut leveldb_writeoptions_t, v: u8);

    fn leveldb_writebatch_create() -> *mut leveldb_writebatch_t;
    fn leveldb_writebatch_destroy(b: *mut leveldb_writebatch_t);
    fn leveldb_writebatch_clear(b: *mut leveldb_writebatch_t);
    fn leveldb_writebatch_put(
        b: *mut leveldb_writebatch_t,
        k: *const c_char,
        klen: usize,
        v: *const c_char,
        vlen: usize,
    );
    fn leveldb_writebatch_delete(b: *mut leveldb_writebatch_t, k: *const c_char, klen: usize);
    fn leveldb_write(
        db: *mut leveldb_t,
        w: *const leveldb_writeoptions_t,
        b: *mut leveldb_writebatch_t,
        errptr: *mut *mut c_char,
    );
    fn leveldb_get(
        db: *mut leveldb_t,
        r: *const leveldb_readoptions_t,
        k: *const c_char,
        klen: usize,
        vlen: *mut usize,
        errptr: *mut *mut c_char,
    ) -> *mut c_char;

    fn leveldb_create_iterator(
        db: *mut leveldb_t,
        r: *const leveldb_readoptions_t,
    ) -> *mut leveldb_iterator_t;
    fn leveldb_iter_destroy(i: *mut leveldb_iterator_t);
    fn leveldb_iter_valid(i: *const leveldb_iterator_t) -> u8;
    fn leveldb_iter_seek_to_first(i: *mut leveldb_iterator_t);
    fn leveldb_iter_seek_to_last(i: *mut leveldb_iterator_t);
    fn leveldb_iter_seek(i: *mut leveldb_iterator_t, k: *const c_char, klen: usize);
    fn leveldb_iter_next(i: *mut leveldb_iterator_t);
    fn leveldb_iter_prev(i: *mut leveldb_iterator_t);
    fn leveldb_iter_key(i: *const leveldb_iterator_t, len: *mut usize) -> *const c_char;
    fn leveldb_iter_value(i: *const leveldb_iterator_t, len: *mut usize) -> *const c_char;
    fn leveldb_iter_get_error(i: *const leveldb_iterator_t, errptr: *mut *mut c_char);

    fn leveldb_property_value(db: *mut leveldb_t, name: *const c_char) -> *mut c_char;
    fn leveldb_compact_range(
        db: *mut leveldb_t,
        start: *const c_char,
        start_len: usize,
        limit: *const c_char,
        limit_len: usize,
    );
}

/// `leveldb_no_compression`.
pub const NO_COMPRESSION: i32 = 0;
/// `leveldb_snappy_compression`.
pub const SNAPPY_COMPRESSION: i32 = 1;

/// The library's version (`leveldb_major_version`.`leveldb_minor_version`).
pub fn version() -> String {
    // SAFETY: constant getters without preconditions.
    unsafe { format!("{}.{}", leveldb_major_version(), leveldb_minor_version()) }
}

fn c_string(s: &str) -> Result<CString, String> {
    CString::new(s).map_err(|_| format!("path {s:?} contains a NUL byte"))
}

/// `leveldb_options_t` with the cache and filter policy it points at.
pub struct Options {
    o: *mut leveldb_options_t,
    cache: *mut leveldb_cache_t,
    filter: *mut leveldb_filterpolicy_t,
}

// SAFETY: only read by LevelDB after open; the cache and filter policy are thread-safe.
unsafe impl Send for Options {}
// SAFETY: as above.
unsafe impl Sync for Options {}

impl Options {
    /// LevelDB's defaults.
    pub fn new() -> Options {
        Options {
            // SAFETY: no preconditions; freed in Drop.
            o: unsafe { leveldb_options_create() },
            cache: ptr::null_mut(),
            filter: ptr::null_mut(),
        }
    }
    /// `create_if_missing`.
    pub fn set_create_if_missing(&mut self, v: bool) {
        // SAFETY: live options.
        unsafe { leveldb_options_set_create_if_missing(self.o, v as u8) }
    }
    /// `write_buffer_size`.
    pub fn set_write_buffer_size(&mut self, v: usize) {
        // SAFETY: live options.
        unsafe { leveldb_options_set_write_buffer_size(self.o, v) }
    }
    /// `max_file_size`.
    pub fn set_max_file_size(&mut self, v: usize) {
        // SAFETY: live options.
        unsafe { leveldb_options_set_max_file_size(self.o, v) }
    }
    /// `block_size`.
    pub fn set_block_size(&mut self, v: usize) {
        // SAFETY: live options.
        unsafe { leveldb_options_set_block_size(self.o, v) }
    }
    /// `block_restart_interval`.
    pub fn set_block_restart_interval(&mut self, v: i32) {
        // SAFETY: live options.
        unsafe { leveldb_options_set_block_restart_interval(self.o, v) }
    }
    /// `compression` (`NO_COMPRESSION` or snappy).
    pub fn set_compression(&mut self, v: i32) {
        // SAFETY: live options.
        unsafe { leveldb_options_set_compression(self.o, v) }
    }
    /// An LRU block cache of `capacity` bytes, owned here.
    pub fn set_lru_cache(&mut self, capacity: usize) {
        // SAFETY: the options point at the cache, which lives until Drop (after the database).
        unsafe {
            if !self.cache.is_null() {
                leveldb_cache_destroy(self.cache);
            }
            self.cache = leveldb_cache_create_lru(capacity);
            leveldb_options_set_cache(self.o, self.cache);
        }
    }
    /// LevelDB's Bloom filter of `bits` per key, owned here.
    pub fn set_bloom(&mut self, bits: i32) {
        // SAFETY: the options point at the policy, which lives until Drop.
        unsafe {
            if !self.filter.is_null() {
                leveldb_filterpolicy_destroy(self.filter);
            }
            self.filter = leveldb_filterpolicy_create_bloom(bits);
            leveldb_options_set_filter_policy(self.o, self.filter);
        }
    }
}

impl Drop for Options {
    fn drop(&mut self) {
        // SAFETY: each freed once, after the database that used them is closed.
        unsafe {
            leveldb_options_destroy(self.o);
            if !self.cache.is_null() {
                leveldb_cache_destroy(self.cache);
            }
            if !self.filter.is_null() {
                leveldb_filterpolicy_destroy(self.filter);
            }
        }
    }
}

/// Removes the database at `path` (`DestroyDB`).
pub fn destroy_db(path: &str) -> Result<(), String> {
    let p = c_string(path)?;
    let o = Options::new();
    // SAFETY: options and path live for the call.
    with_err(|e| unsafe { leveldb_destroy_db(o.o, p.as_ptr(), e) })
}

/// An open database with the read and write options of the run, made once.
pub struct Db {
    db: *mut leveldb_t,
    read: *mut leveldb_readoptions_t,
    write: *mut leveldb_writeoptions_t,
}

// SAFETY: a LevelDB `DB*` is safe for concurrent use; the options are only read.
unsafe impl Send for Db {}
// SAFETY: as above.
unsafe impl Sync for Db {}

impl Db {
    /// Opens the database at `path`; writes with `sync`.
    pub fn open(options: &Options, path: &str, sync: bool) -> Result<Db, String> {
        let p = c_string(path)?;
        // SAFETY: options and path live for the call; a non-NULL handle is closed in Drop.
        let db = with_err(|e| unsafe { leveldb_open(options.o, p.as_ptr(), e) })?;
        if db.is_null() {
            return Err("open returned no database".into());
        }
        // SAFETY: fresh objects, freed in Drop.
        unsafe {
            let write = leveldb_writeoptions_create();
            leveldb_writeoptions_set_sync(write, sync as u8);
            Ok(Db {
                db,
                read: leveldb_readoptions_create(),
                write,
            })
        }
    }

    /// Writes `batch` atomically.
    pub fn write(&self, batch: &mut WriteBatch) -> Result<(), String> {
        // SAFETY: all live; the batch is only read.
        with_err(|e| unsafe { leveldb_write(self.db, self.write, batch.0, e) })
    }

    /// Looks `key` up and hands its value to `read` (`None` when absent). LevelDB's C API
    /// returns the value in a fresh `malloc`, freed here after `read`.
    fn lookup<T>(&self, key: &[u8], read: impl FnOnce(&[u8]) -> T) -> Result<Option<T>, String> {
        let mut len = 0usize;
        // SAFETY: the key lives for the call; the value is malloc()ed, read, then freed.
        unsafe {
            let v = with_err(|e| {
                leveldb_get(
                    self.db,
                    self.read,
                    key.as_ptr().cast(),
                    key.len(),
                    &mut len,
                    e,
                )
            })?;
            if v.is_null() {
                return Ok(None);
            }
            let out = read(std::slice::from_raw_parts(v.cast::<u8>(), len));
            leveldb_free(v.cast());
            Ok(Some(out))
        }
    }

    /// Looks `key` up and gives its value's length; the value (still copied by LevelDB's C
    /// API, as its C++ db_bench copies it into a string) is freed unread.
    pub fn get_len(&self, key: &[u8]) -> Result<Option<usize>, String> {
        self.lookup(key, <[u8]>::len)
    }

    /// Looks `key` up; on a hit replaces `out`'s contents with the value.
    pub fn get(&self, key: &[u8], out: &mut Vec<u8>) -> Result<bool, String> {
        Ok(self.lookup(key, |v| copy_value(out, v))?.is_some())
    }

    /// A new iterator.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            // SAFETY: the iterator borrows the database and is destroyed in Drop.
            it: unsafe { leveldb_create_iterator(self.db, self.read) },
            _db: std::marker::PhantomData,
        }
    }

    /// A property's text (`leveldb.stats`); `None` if LevelDB does not know it.
    pub fn property(&self, name: &str) -> Option<String> {
        let n = CString::new(name).ok()?;
        // SAFETY: live handle and NUL-terminated name; the result is ours to free.
        take_string(unsafe { leveldb_property_value(self.db, n.as_ptr()) })
    }

    /// `CompactRange(begin, end)`; `None` bounds mean the whole range.
    pub fn compact_range(&self, begin: Option<&[u8]>, end: Option<&[u8]>) {
        let (b, bl) = begin.map_or((ptr::null(), 0), |b| (b.as_ptr().cast(), b.len()));
        let (e, el) = end.map_or((ptr::null(), 0), |e| (e.as_ptr().cast(), e.len()));
        // SAFETY: the bounds live for the call.
        unsafe { leveldb_compact_range(self.db, b, bl, e, el) }
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        // SAFETY: every iterator borrowed the database and is gone; each handle freed once.
        unsafe {
            leveldb_close(self.db);
            leveldb_readoptions_destroy(self.read);
            leveldb_writeoptions_destroy(self.write);
        }
    }
}

super::c_api::c_api_wrappers! {
    free: leveldb_free,
    batch: leveldb_writebatch_t {
        create: leveldb_writebatch_create,
        put: leveldb_writebatch_put,
        delete: leveldb_writebatch_delete,
        clear: leveldb_writebatch_clear,
        destroy: leveldb_writebatch_destroy,
    },
    iter: leveldb_iterator_t {
        seek_to_first: leveldb_iter_seek_to_first,
        seek_to_last: leveldb_iter_seek_to_last,
        seek: leveldb_iter_seek,
        next: leveldb_iter_next,
        prev: leveldb_iter_prev,
        valid: leveldb_iter_valid,
        key: leveldb_iter_key,
        value: leveldb_iter_value,
        get_error: leveldb_iter_get_error,
        destroy: leveldb_iter_destroy,
    },
}

impl Iter<'_> {
    /// RocksDB's `SeekForPrev`, which LevelDB lacks: the first key ≥ `key`, then one step
    /// back unless it is `key`; past the end, the last key.
    pub fn seek_for_prev(&mut self, key: &[u8]) {
        self.seek(key);
        if !self.valid() {
            self.seek_to_last();
        } else if self.key() != key {
            self.prev();
        }
    }
}
