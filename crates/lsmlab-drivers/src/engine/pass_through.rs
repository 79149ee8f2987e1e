//! The adapters that hand the driver's calls straight to an engine's own cursor or write
//! batch, written once: every engine's cursor has the [`StoreIter`](super::StoreIter) calls
//! under the same names; LevelDB's and RocksDB's batches are written and cleared alike, and
//! their stores' reads go straight to their `Db`.

/// `impl StoreIter for $wrapper`, a one-field tuple struct around an engine's cursor with
/// inherent methods of the same names; `status` errors read `iterator error: …`.
macro_rules! pass_through_iter {
    ($wrapper:ty) => {
        impl $crate::engine::StoreIter for $wrapper {
            fn seek_to_first(&mut self) {
                self.0.seek_to_first();
            }
            fn seek_to_last(&mut self) {
                self.0.seek_to_last();
            }
            fn seek(&mut self, key: &[u8]) {
                self.0.seek(key);
            }
            fn seek_for_prev(&mut self, key: &[u8]) {
                self.0.seek_for_prev(key);
            }
            fn next(&mut self) {
                self.0.next();
            }
            fn prev(&mut self) {
                self.0.prev();
            }
            fn valid(&self) -> bool {
                self.0.valid()
            }
            fn key(&self) -> &[u8] {
                self.0.key()
            }
            fn value(&self) -> &[u8] {
                self.0.value()
            }
            fn status(&self) -> $crate::error::CliResult<()> {
                self.0
                    .status()
                    .map_err(|e| $crate::error::CliError::new(format!("iterator error: {e}")))
            }
        }
    };
}

/// `struct $name<'a>`, a [`Writer`](super::Writer) over the C API module `$ffi`'s `Db` and
/// `WriteBatch`: puts and deletes go into the batch, a commit writes it and clears it for reuse.
#[cfg(any(feature = "leveldb", feature = "rocksdb"))]
macro_rules! batch_writer {
    ($name:ident, $ffi:ident) => {
        struct $name<'a> {
            db: &'a $ffi::Db,
            batch: $ffi::WriteBatch,
        }

        impl $crate::engine::Writer for $name<'_> {
            fn put(&mut self, key: &[u8], value: &[u8]) {
                self.batch.put(key, value);
            }

            fn delete(&mut self, key: &[u8]) {
                self.batch.delete(key);
            }

            fn commit(&mut self) -> $crate::error::CliResult<()> {
                let r = self.db.write(&mut self.batch);
                self.batch.clear();
                r.map_err(|e| $crate::error::CliError::new(format!("write error: {e}")))
            }
        }
    };
}

/// The [`Store`](super::Store) calls a C API engine hands straight to its `Db`: `writer` (a
/// `$writer` of [`batch_writer!`]), `get`, `get_len` and `iter` (a `$iter` of
/// [`pass_through_iter!`]). Expanded inside the engine's `impl Store`.
#[cfg(any(feature = "leveldb", feature = "rocksdb"))]
macro_rules! c_api_store_calls {
    ($writer:ident, $iter:ident, $ffi:ident) => {
        fn writer(&self) -> Box<dyn $crate::engine::Writer + '_> {
            Box::new($writer {
                db: &self.db,
                batch: $ffi::WriteBatch::new(),
            })
        }

        fn get(
            &self,
            key: &[u8],
            value: &mut Vec<u8>,
        ) -> $crate::error::CliResult<$crate::engine::Found> {
            self.db
                .get(key, value)
                .map_err(|e| $crate::error::CliError::new(format!("get error: {e}")))
        }

        fn get_len(&self, key: &[u8]) -> $crate::error::CliResult<Option<usize>> {
            self.db
                .get_len(key)
                .map_err(|e| $crate::error::CliError::new(format!("get error: {e}")))
        }

        fn iter(&self) -> $crate::error::CliResult<Box<dyn $crate::engine::StoreIter + '_>> {
            Ok(Box::new($iter(self.db.iter())))
        }
    };
}

#[cfg(any(feature = "leveldb", feature = "rocksdb"))]
pub(super) use batch_writer;
#[cfg(any(feature = "leveldb", feature = "rocksdb"))]
pub(super) use c_api_store_calls;
pub(super) use pass_through_iter;
