//! Writing blob files: one file ([`BlobFileWriter`]) and the rolling set a flush or compaction
//! writes ([`BlobFileBuilder`]).

use super::{compression_byte, BlobIndex, BLOB_MAGIC, BLOB_VERSION, RECORD_HEADER_LEN};
use crate::checksum::mask_crc;
use crate::coding::{put_fixed32, put_fixed64};
use crate::env::{CountedWritable, Env, IoCategory};
use crate::error::Result;
use crate::filename::blob_path;
use crate::options::{Compression, Options};
use crate::stats::{HistogramKind, Statistics, Ticker};
use crate::version::NewBlobFile;
use std::path::Path;
use std::time::Instant;

/// zstd level for blob values: the library's default, as for table blocks.
const ZSTD_LEVEL: i32 = 3;

/// One blob file being written from start to end.
pub struct BlobFileWriter {
    file: CountedWritable,
    number: u64,
    count: u64,
    record_bytes: u64,
    buf: Vec<u8>,
}

/// `value` compressed as `c`, or `None` when compression does not make it smaller (the record
/// is then stored uncompressed, and its index says so).
fn compress(value: &[u8], c: Compression) -> Option<Vec<u8>> {
    let out = match c {
        Compression::None => return None,
        Compression::Lz4 => lz4_flex::block::compress_prepend_size(value),
        Compression::Zstd => zstd::bulk::compress(value, ZSTD_LEVEL).ok()?,
        Compression::Snappy => snap::raw::Encoder::new().compress_vec(value).ok()?,
    };
    (out.len() < value.len()).then_some(out)
}

impl BlobFileWriter {
    /// Creates blob file `number` in `dir` and writes its header.
    pub fn create(env: &Env, dir: &Path, number: u64, cat: IoCategory) -> Result<BlobFileWriter> {
        let mut file = env.create(&blob_path(dir, number), cat)?;
        let mut h = Vec::with_capacity(super::HEADER_LEN as usize);
        put_fixed64(&mut h, BLOB_MAGIC);
        put_fixed32(&mut h, BLOB_VERSION);
        file.append(&h)?;
        Ok(BlobFileWriter {
            file,
            number,
            count: 0,
            record_bytes: 0,
            buf: Vec::new(),
        })
    }

    /// Appends the record `(key, value)` and returns where it lives.
    pub fn add(&mut self, key: &[u8], value: &[u8], c: Compression) -> Result<BlobIndex> {
        let compressed = compress(value, c);
        let (stored, c) = match &compressed {
            Some(v) => (v.as_slice(), c),
            None => (value, Compression::None),
        };
        // Lengths are fixed32: a key or value of 4 GiB or more cannot be stored (the write batch
        // format already refuses them).
        let key_len = u32::try_from(key.len()).map_err(|_| too_large("key"))?;
        let val_len = u32::try_from(stored.len()).map_err(|_| too_large("value"))?;
        let b = &mut self.buf;
        b.clear();
        b.extend_from_slice(&[0; 4]);
        put_fixed32(b, key_len);
        put_fixed32(b, val_len);
        b.push(compression_byte(c));
        b.extend_from_slice(key);
        b.extend_from_slice(stored);
        let crc = mask_crc(crate::checksum::crc32c(&b[4..]));
        b[..4].copy_from_slice(&crc.to_le_bytes());
        let offset = self.file.len();
        self.file.append(b)?;
        self.count += 1;
        self.record_bytes += b.len() as u64;
        debug_assert_eq!(
            b.len() as u64,
            RECORD_HEADER_LEN + key.len() as u64 + stored.len() as u64
        );
        Ok(BlobIndex {
            file_number: self.number,
            offset,
            size: stored.len() as u64,
            compression: c,
        })
    }

    /// Bytes written so far.
    pub fn file_size(&self) -> u64 {
        self.file.len()
    }

    /// Writes the footer and syncs the file: it must be durable before a MANIFEST edit names it.
    pub fn finish(mut self) -> Result<NewBlobFile> {
        let mut f = Vec::with_capacity(super::FOOTER_LEN as usize);
        put_fixed64(&mut f, self.count);
        put_fixed64(&mut f, self.record_bytes);
        let crc = mask_crc(crate::checksum::crc32c(&f));
        put_fixed32(&mut f, crc);
        put_fixed64(&mut f, BLOB_MAGIC);
        self.file.append(&f)?;
        self.file.sync()?;
        Ok(NewBlobFile {
            number: self.number,
            count: self.count,
            bytes: self.record_bytes,
        })
    }
}

fn too_large(what: &str) -> crate::error::Error {
    crate::error::Error::InvalidRequest(format!("a blob {what} must be smaller than 4 GiB"))
}

/// The blob files one flush or compaction writes: values go to the current file until it
/// reaches `blob_file_size`, then a new one starts.
pub struct BlobFileBuilder<'a> {
    env: &'a Env,
    dir: &'a Path,
    opts: &'a Options,
    stats: &'a Statistics,
    cat: IoCategory,
    current: Option<BlobFileWriter>,
    finished: Vec<NewBlobFile>,
    bytes_written: u64,
}

impl<'a> BlobFileBuilder<'a> {
    /// A builder writing under `cat` (`Blob` for separation, `Gc` for relocation).
    pub fn new(
        env: &'a Env,
        dir: &'a Path,
        opts: &'a Options,
        stats: &'a Statistics,
        cat: IoCategory,
    ) -> BlobFileBuilder<'a> {
        BlobFileBuilder {
            env,
            dir,
            opts,
            stats,
            cat,
            current: None,
            finished: Vec::new(),
            bytes_written: 0,
        }
    }

    /// True if a value of `len` bytes goes to a blob file.
    pub fn separates(&self, len: usize) -> bool {
        self.opts.enable_blob_files && len as u64 >= self.opts.min_blob_size
    }

    /// Writes `(key, value)` to a blob file and returns the encoded [`BlobIndex`] to store in
    /// the table; `new_number` names a new file when one starts.
    pub fn add(
        &mut self,
        key: &[u8],
        value: &[u8],
        new_number: &mut dyn FnMut() -> u64,
    ) -> Result<Vec<u8>> {
        if self
            .current
            .as_ref()
            .is_some_and(|w| w.file_size() >= self.opts.blob_file_size)
        {
            self.finish_current()?;
        }
        if self.current.is_none() {
            let n = new_number();
            let w = BlobFileWriter::create(self.env, self.dir, n, self.cat)?;
            self.count(w.file_size());
            self.current = Some(w);
        }
        let Some(w) = self.current.as_mut() else {
            unreachable!("a blob file was just opened")
        };
        let before = w.file_size();
        let t = self.opts.statistics.then(Instant::now);
        let idx = w.add(key, value, self.opts.blob_compression_type)?;
        if let Some(t) = t {
            self.stats
                .record(HistogramKind::BlobFileWrite, t.elapsed().as_micros() as u64);
        }
        let written = w.file_size() - before;
        self.count(written);
        Ok(idx.encode())
    }

    fn count(&mut self, n: u64) {
        self.bytes_written += n;
        self.stats.add(Ticker::BlobFileBytesWritten, n);
    }

    fn finish_current(&mut self) -> Result<()> {
        if let Some(w) = self.current.take() {
            let before = w.file_size();
            let f = w.finish()?;
            self.count(f.file_size() - before);
            self.finished.push(f);
        }
        Ok(())
    }

    /// Finishes (and syncs) every file; returns them and the bytes written to them.
    pub fn finish(mut self) -> Result<(Vec<NewBlobFile>, u64)> {
        self.finish_current()?;
        Ok((self.finished, self.bytes_written))
    }
}
