//! Reading values out of a blob file. Every check that fails gives `Corruption` naming the file
//! and the offset of what failed; a value is returned only if its record's CRC, key, length and
//! compression all match the index that named it.

use super::RECORD_HEADER_LEN;
use super::{compression_from_byte, BlobIndex, BLOB_MAGIC, BLOB_VERSION, FOOTER_LEN, HEADER_LEN};
use crate::checksum::{mask_crc, unmask_crc};
use crate::coding::{get_fixed32, get_fixed64};
use crate::env::{CountedRandom, Env, IoCategory};
use crate::error::{Error, Result};
use crate::options::Compression;
use crate::pinned::PinnedValue;
use std::path::{Path, PathBuf};

/// An open, finished blob file.
pub struct BlobFileReader {
    file: CountedRandom,
    path: PathBuf,
    len: u64,
}

impl std::fmt::Debug for BlobFileReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlobFileReader")
            .field("path", &self.path)
            .field("len", &self.len)
            .finish()
    }
}

impl BlobFileReader {
    /// Opens blob file `path`, checking its header and footer.
    pub fn open(env: &Env, path: &Path) -> Result<BlobFileReader> {
        let file = env.open_random(path)?;
        let len = file.len();
        let bad = |offset: u64, m: &str| Error::corruption(path, offset, m.to_string());
        if len < HEADER_LEN + FOOTER_LEN {
            return Err(bad(0, "blob file is shorter than a header and a footer"));
        }
        let mut h = [0u8; HEADER_LEN as usize];
        file.read_at(0, &mut h, IoCategory::Other)?;
        if get_fixed64(&h) != Some(BLOB_MAGIC) {
            return Err(bad(0, "not a blob file (bad magic)"));
        }
        if get_fixed32(&h[8..]) != Some(BLOB_VERSION) {
            return Err(bad(8, "unsupported blob file version"));
        }
        let at = len - FOOTER_LEN;
        let mut f = [0u8; FOOTER_LEN as usize];
        file.read_at(at, &mut f, IoCategory::Other)?;
        let stored = get_fixed32(&f[16..]).unwrap_or(0);
        if get_fixed64(&f[20..]) != Some(BLOB_MAGIC) {
            return Err(bad(at, "blob file footer is missing (file not finished?)"));
        }
        if unmask_crc(stored) != crate::checksum::crc32c(&f[..16]) {
            return Err(bad(at, "blob file footer fails its checksum"));
        }
        let record_bytes = get_fixed64(&f[8..]).unwrap_or(u64::MAX);
        if record_bytes != len - HEADER_LEN - FOOTER_LEN {
            return Err(bad(at, "blob file footer disagrees with the file size"));
        }
        Ok(BlobFileReader {
            file,
            path: path.to_path_buf(),
            len,
        })
    }

    /// Path of the file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The value `idx` names for `user_key`, read under `cat`; also returns the bytes read.
    pub fn get(&self, idx: &BlobIndex, user_key: &[u8], cat: IoCategory) -> Result<(Vec<u8>, u64)> {
        let (value, n) = self.get_pinned(idx, user_key, cat)?;
        Ok((value.into_vec(), n))
    }

    /// As [`get`](Self::get), leaving an uncompressed value in the buffer the record was read
    /// into, behind its header and key.
    pub fn get_pinned(
        &self,
        idx: &BlobIndex,
        user_key: &[u8],
        cat: IoCategory,
    ) -> Result<(PinnedValue, u64)> {
        let at = idx.offset;
        let bad = |m: &str| Error::corruption(&self.path, at, m.to_string());
        let end = RECORD_HEADER_LEN
            .checked_add(user_key.len() as u64)
            .and_then(|n| n.checked_add(idx.size))
            .and_then(|n| n.checked_add(at))
            .filter(|&end| at >= HEADER_LEN && end <= self.len - FOOTER_LEN)
            .ok_or_else(|| bad("blob index points outside the file's records"))?;
        let n = usize::try_from(end - at).map_err(|_| bad("blob record too large"))?;
        let buf = self.file.read_vec_at(at, n, cat)?;
        let stored_crc = get_fixed32(&buf).unwrap_or(0);
        if mask_crc(crate::checksum::crc32c(&buf[4..])) != stored_crc {
            return Err(bad("blob record fails its checksum"));
        }
        let key_len = get_fixed32(&buf[4..]).unwrap_or(u32::MAX) as usize;
        let val_len = get_fixed32(&buf[8..]).unwrap_or(u32::MAX) as u64;
        if key_len != user_key.len() || val_len != idx.size {
            return Err(bad("blob record lengths disagree with its index"));
        }
        if compression_from_byte(buf[12]) != Some(idx.compression) {
            return Err(bad("blob record compression disagrees with its index"));
        }
        let hl = RECORD_HEADER_LEN as usize;
        if &buf[hl..hl + key_len] != user_key {
            return Err(bad("blob record holds another key"));
        }
        let stored = &buf[hl + key_len..];
        let value = match idx.compression {
            // The record's buffer holds the value: no second allocation, no copy.
            Compression::None => PinnedValue::owned_from(buf, hl + key_len),
            Compression::Lz4 => lz4_flex::block::decompress_size_prepended(stored)
                .map_err(|_| bad("blob record fails to decompress (lz4)"))?
                .into(),
            Compression::Zstd => zstd::stream::decode_all(stored)
                .map_err(|_| bad("blob record fails to decompress (zstd)"))?
                .into(),
            // The preamble's length (< 4 GiB) is what the decoder allocates; the record's
            // checksum has already vouched for it.
            Compression::Snappy => snap::raw::Decoder::new()
                .decompress_vec(stored)
                .map_err(|_| bad("blob record fails to decompress (snappy)"))?
                .into(),
        };
        Ok((value, n as u64))
    }

    /// Reads every record in file order, checks its checksum and lengths, and hands `each` its
    /// offset, key, stored value length and compression; returns the number of records. For
    /// `check`, which must see damage in records no table references, and `dump`.
    pub fn scan_records(&self, mut each: impl FnMut(u64, &[u8], u64, Compression)) -> Result<u64> {
        let end = self.len - FOOTER_LEN;
        let mut data = vec![0u8; (end - HEADER_LEN) as usize];
        self.file
            .read_at(HEADER_LEN, &mut data, IoCategory::Other)?;
        let mut at = 0usize;
        let mut count = 0;
        let hl = RECORD_HEADER_LEN as usize;
        while at < data.len() {
            let bad =
                |m: &str| Error::corruption(&self.path, HEADER_LEN + at as u64, m.to_string());
            let h = data
                .get(at..at + hl)
                .ok_or_else(|| bad("blob record header cut short"))?;
            let key_len = get_fixed32(&h[4..]).unwrap_or(u32::MAX) as usize;
            let val_len = get_fixed32(&h[8..]).unwrap_or(u32::MAX) as usize;
            let n = hl.saturating_add(key_len).saturating_add(val_len);
            let rec = data
                .get(at..at.saturating_add(n))
                .ok_or_else(|| bad("blob record runs past the records' end"))?;
            if mask_crc(crate::checksum::crc32c(&rec[4..])) != get_fixed32(rec).unwrap_or(0) {
                return Err(bad("blob record fails its checksum"));
            }
            let compression = compression_from_byte(rec[12])
                .ok_or_else(|| bad("blob record names an unknown compression"))?;
            each(
                HEADER_LEN + at as u64,
                &rec[hl..hl + key_len],
                val_len as u64,
                compression,
            );
            at += n;
            count += 1;
        }
        Ok(count)
    }
}
