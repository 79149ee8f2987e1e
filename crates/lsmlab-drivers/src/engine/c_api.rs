//! The safe wrappers LevelDB's and RocksDB's C APIs share: the two `c.h` files name the same
//! calls alike (`leveldb_iter_seek`, `rocksdb_iter_seek`, …) with the same contracts, so one
//! macro writes the error-string handling, the write batch and the iterator for both, given
//! each library's functions. Expanded inside `leveldb_ffi.rs` and `rocksdb_ffi.rs`, next to
//! the declarations it calls, so the `unsafe` code of each engine stays in its own file.

/// Writes `take_string`, `with_err`, `WriteBatch` and `Iter<'a>` (borrowing the invoking
/// module's `Db`) over one library's C functions.
macro_rules! c_api_wrappers {
    (
        free: $free:ident,
        batch: $batch_t:ident {
            create: $batch_create:ident,
            put: $batch_put:ident,
            delete: $batch_delete:ident,
            clear: $batch_clear:ident,
            destroy: $batch_destroy:ident $(,)?
        },
        iter: $iter_t:ident {
            seek_to_first: $seek_to_first:ident,
            seek_to_last: $seek_to_last:ident,
            seek: $seek:ident,
            next: $next:ident,
            prev: $prev:ident,
            valid: $valid:ident,
            key: $key:ident,
            value: $value:ident,
            get_error: $get_error:ident,
            destroy: $iter_destroy:ident $(,)?
        } $(,)?
    ) => {
        /// Takes ownership of a C string the library allocated; `None` for NULL.
        fn take_string(p: *mut c_char) -> Option<String> {
            if p.is_null() {
                return None;
            }
            // SAFETY: a non-NULL string from the library is NUL-terminated and ours to free.
            let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
            // SAFETY: allocated by the library, freed once, with its own free.
            unsafe { $free(p.cast()) };
            Some(s)
        }

        /// Runs `f` with an `errptr`; the error string it set, if any.
        fn with_err<T>(f: impl FnOnce(*mut *mut c_char) -> T) -> Result<T, String> {
            let mut err: *mut c_char = ptr::null_mut();
            let v = f(&mut err);
            match take_string(err) {
                Some(e) => Err(e),
                None => Ok(v),
            }
        }

        /// A write batch, cleared after each write and reused.
        pub struct WriteBatch(*mut $batch_t);

        impl WriteBatch {
            /// An empty batch.
            pub fn new() -> WriteBatch {
                // SAFETY: no preconditions; freed in Drop.
                WriteBatch(unsafe { $batch_create() })
            }
            /// Adds a put.
            pub fn put(&mut self, key: &[u8], value: &[u8]) {
                // SAFETY: the batch copies both slices.
                unsafe {
                    $batch_put(
                        self.0,
                        key.as_ptr().cast(),
                        key.len(),
                        value.as_ptr().cast(),
                        value.len(),
                    )
                }
            }
            /// Adds a delete.
            pub fn delete(&mut self, key: &[u8]) {
                // SAFETY: the batch copies the key.
                unsafe { $batch_delete(self.0, key.as_ptr().cast(), key.len()) }
            }
            /// Empties the batch, keeping its buffer.
            pub fn clear(&mut self) {
                // SAFETY: live batch.
                unsafe { $batch_clear(self.0) }
            }
        }

        impl Drop for WriteBatch {
            fn drop(&mut self) {
                // SAFETY: created by us, destroyed once.
                unsafe { $batch_destroy(self.0) }
            }
        }

        /// An iterator borrowing its database.
        pub struct Iter<'a> {
            it: *mut $iter_t,
            _db: std::marker::PhantomData<&'a Db>,
        }

        impl Iter<'_> {
            /// `SeekToFirst`.
            pub fn seek_to_first(&mut self) {
                // SAFETY: live iterator.
                unsafe { $seek_to_first(self.it) }
            }
            /// `SeekToLast`.
            pub fn seek_to_last(&mut self) {
                // SAFETY: live iterator.
                unsafe { $seek_to_last(self.it) }
            }
            /// `Seek`.
            pub fn seek(&mut self, key: &[u8]) {
                // SAFETY: live iterator; the key is read during the call.
                unsafe { $seek(self.it, key.as_ptr().cast(), key.len()) }
            }
            /// `Next` (nothing when not valid: both libraries require a valid iterator).
            pub fn next(&mut self) {
                if self.valid() {
                    // SAFETY: valid iterator.
                    unsafe { $next(self.it) }
                }
            }
            /// `Prev` (nothing when not valid).
            pub fn prev(&mut self) {
                if self.valid() {
                    // SAFETY: valid iterator.
                    unsafe { $prev(self.it) }
                }
            }
            /// `Valid`.
            pub fn valid(&self) -> bool {
                // SAFETY: live iterator.
                unsafe { $valid(self.it) != 0 }
            }
            /// The key (empty when not valid).
            pub fn key(&self) -> &[u8] {
                if !self.valid() {
                    return &[];
                }
                let mut len = 0;
                // SAFETY: valid iterator: the slice stays until the next move, which needs
                // &mut self.
                unsafe {
                    let p = $key(self.it, &mut len);
                    std::slice::from_raw_parts(p.cast(), len)
                }
            }
            /// The value (empty when not valid).
            pub fn value(&self) -> &[u8] {
                if !self.valid() {
                    return &[];
                }
                let mut len = 0;
                // SAFETY: as for key.
                unsafe {
                    let p = $value(self.it, &mut len);
                    std::slice::from_raw_parts(p.cast(), len)
                }
            }
            /// The error that stopped the iteration.
            pub fn status(&self) -> Result<(), String> {
                // SAFETY: live iterator.
                with_err(|e| unsafe { $get_error(self.it, e) })
            }
        }

        impl Drop for Iter<'_> {
            fn drop(&mut self) {
                // SAFETY: created by us, destroyed once, before its database (lifetime).
                unsafe { $iter_destroy(self.it) }
            }
        }
    };
}

pub(super) use c_api_wrappers;
