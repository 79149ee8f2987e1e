//! A range of a memory-mapped file, readable without a copy for as long as it lives.

use super::RandomAccessFile;
use std::ops::Deref;
use std::sync::Arc;

/// Bytes of a file mapped into memory ([`RandomAccessFile::mapped`]), kept alive by a
/// reference to the file: a table's data block read in place, as RocksDB reads blocks of
/// tables opened with `allow_mmap_reads`.
pub struct MappedBytes {
    /// Keeps the map alive.
    _file: Arc<dyn RandomAccessFile>,
    ptr: *const u8,
    len: usize,
}

// SAFETY: the bytes are a read-only map that stays at its address until the file (held here)
// is dropped, so reads from any thread see the same immutable bytes.
unsafe impl Send for MappedBytes {}
// SAFETY: as for Send.
unsafe impl Sync for MappedBytes {}

impl MappedBytes {
    /// `len` bytes from `offset` of `file`'s map; `None` if the file is not mapped or the
    /// range does not lie within it.
    pub(crate) fn new(
        file: &Arc<dyn RandomAccessFile>,
        offset: u64,
        len: usize,
    ) -> Option<MappedBytes> {
        let all = file.mapped()?;
        let start = usize::try_from(offset).ok()?;
        let bytes = all.get(start..start.checked_add(len)?)?;
        Some(MappedBytes {
            ptr: bytes.as_ptr(),
            len,
            _file: file.clone(),
        })
    }

    /// The first `len` bytes (all of them if `len` is larger).
    pub(crate) fn truncate(mut self, len: usize) -> MappedBytes {
        self.len = self.len.min(len);
        self
    }
}

impl Deref for MappedBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: `ptr..ptr + len` lay within the file's map when made (checked in `new`), and
        // `RandomAccessFile::mapped` promises the map stays there while the file lives.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}
