//! Blob files: key-value separation as RocksDB's integrated BlobDB does it. Flush and compaction
//! move large values into blob files and leave a [`BlobIndex`] in the table in their place.
//!
//! Layout (see `docs/formats.md`, "Blob files"):
//! - header: magic (fixed64) | version (fixed32);
//! - records: masked CRC32C (fixed32) | key length (fixed32) | stored value length (fixed32) |
//!   compression (u8) | key | stored value; the CRC covers every byte after itself;
//! - footer: record count (fixed64) | record bytes (fixed64) | masked CRC32C of those 16 bytes
//!   (fixed32) | magic (fixed64).

mod cache;
mod reader;
mod writer;

pub use cache::BlobCache;
pub use reader::BlobFileReader;
pub use writer::{BlobFileBuilder, BlobFileWriter};

use crate::coding::{put_varint64, Decoder};
use crate::options::Compression;

/// First bytes of every blob file ("lsmlabBL" read as a little-endian integer).
pub const BLOB_MAGIC: u64 = u64::from_le_bytes(*b"lsmlabBL");
/// Format version written in the header; readers refuse any other.
pub const BLOB_VERSION: u32 = 1;
/// Bytes of the header: magic (8) + version (4).
pub const HEADER_LEN: u64 = 12;
/// Bytes of a record's header: CRC (4) + key length (4) + value length (4) + compression (1).
pub const RECORD_HEADER_LEN: u64 = 13;
/// Bytes of the footer: count (8) + bytes (8) + CRC (4) + magic (8).
pub const FOOTER_LEN: u64 = 28;

/// The byte naming a record's compression.
pub(crate) fn compression_byte(c: Compression) -> u8 {
    match c {
        Compression::None => 0,
        Compression::Lz4 => 1,
        Compression::Zstd => 2,
        Compression::Snappy => 3,
    }
}

/// The compression a byte names; `None` for a byte no writer produces.
pub(crate) fn compression_from_byte(b: u8) -> Option<Compression> {
    match b {
        0 => Some(Compression::None),
        1 => Some(Compression::Lz4),
        2 => Some(Compression::Zstd),
        3 => Some(Compression::Snappy),
        _ => None,
    }
}

/// Where a separated value lives: what a table stores, with kind `BlobIndex`, in its place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlobIndex {
    /// Number of the blob file.
    pub file_number: u64,
    /// Offset of the record (its CRC) in the blob file.
    pub offset: u64,
    /// Bytes of the stored (possibly compressed) value.
    pub size: u64,
    /// How the stored value is compressed.
    pub compression: Compression,
}

impl BlobIndex {
    /// Serialises the index: varint64 file number, offset and size, then the compression byte.
    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(24);
        put_varint64(&mut b, self.file_number);
        put_varint64(&mut b, self.offset);
        put_varint64(&mut b, self.size);
        b.push(compression_byte(self.compression));
        b
    }

    /// Parses an index; `None` if malformed or followed by stray bytes.
    pub fn decode(src: &[u8]) -> Option<BlobIndex> {
        let mut d = Decoder::new(src);
        let file_number = d.varint64()?;
        let offset = d.varint64()?;
        let size = d.varint64()?;
        let compression = compression_from_byte(d.u8()?)?;
        d.is_empty().then_some(BlobIndex {
            file_number,
            offset,
            size,
            compression,
        })
    }

    /// Bytes of the whole record this index names, for a key of `key_len` bytes: what garbage
    /// accounting counts when the record dies.
    pub fn record_len(&self, key_len: usize) -> u64 {
        // Saturating: a damaged index must not overflow (it fails at the read that uses it).
        RECORD_HEADER_LEN
            .saturating_add(key_len as u64)
            .saturating_add(self.size)
    }
}

#[cfg(test)]
mod tests;
