//! Block compression: what each compression type byte in a block trailer means, how a data
//! block is compressed under it, and how it is decoded.
//!
//! Every compressed block starts with its uncompressed length as a varint32. For Snappy that
//! varint is the Snappy raw format's own preamble, so a Snappy block is byte for byte the block
//! LevelDB and RocksDB store; LZ4 and zstd follow it with an LZ4 block or a zstd frame.

use crate::coding::{get_varint32, put_varint32};
use crate::options::Compression;
use std::cell::RefCell;

/// Compression type byte: block stored as is.
pub const NO_COMPRESSION: u8 = 0;
/// Compression type byte: varint32 uncompressed length, then an LZ4 block (lz4_flex).
pub const LZ4_COMPRESSION: u8 = 1;
/// Compression type byte: varint32 uncompressed length, then a zstd frame (level 3).
pub const ZSTD_COMPRESSION: u8 = 2;
/// Compression type byte: a Snappy raw block (its preamble is the varint32 uncompressed length).
///
/// Not RocksDB's number for Snappy (1): lsmlab's tables gave 1 to LZ4 before Snappy came, and
/// renumbering would make existing tables unreadable. The table format is lsmlab's own, so no
/// other reader depends on the numbers.
pub const SNAPPY_COMPRESSION: u8 = 3;

/// Largest decoded block a reader accepts, 1 GiB: a bound on what a corrupt length may make
/// the reader allocate. Writers cut blocks far below it.
pub const MAX_BLOCK_BYTES: usize = 1 << 30;

/// zstd level for `Compression::Zstd` (RocksDB's default level is 3 as well).
const ZSTD_LEVEL: i32 = 3;

thread_local! {
    /// One zstd decompression context per thread: creating one per block costs more than
    /// decompressing a 4 KiB block.
    static ZSTD: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
}

/// A table builder's compression state: the contexts are made once per table, not per block
/// (a zstd context and Snappy's hash table cost more to set up than a 4 KiB block to compress).
#[derive(Default)]
pub struct BlockCompressor {
    zstd: Option<zstd::bulk::Compressor<'static>>,
    snappy: Option<snap::raw::Encoder>,
}

impl BlockCompressor {
    /// Compresses `raw` under `c` into `out` (cleared first) and returns the type byte to store;
    /// [`NO_COMPRESSION`] when `c` is `None`, the codec fails, or it saves less than 12.5 %
    /// (RocksDB's rule), and then the caller stores `raw` itself.
    pub fn compress(&mut self, c: Compression, raw: &[u8], out: &mut Vec<u8>) -> u8 {
        out.clear();
        let kind = match c {
            Compression::None => return NO_COMPRESSION,
            Compression::Lz4 => {
                put_varint32(out, raw.len() as u32);
                let start = out.len();
                out.resize(
                    start + lz4_flex::block::get_maximum_output_size(raw.len()),
                    0,
                );
                match lz4_flex::block::compress_into(raw, &mut out[start..]) {
                    Ok(n) => out.truncate(start + n),
                    Err(_) => return NO_COMPRESSION,
                }
                LZ4_COMPRESSION
            }
            Compression::Zstd => {
                if self.zstd.is_none() {
                    self.zstd = zstd::bulk::Compressor::new(ZSTD_LEVEL).ok();
                }
                let Some(z) = self.zstd.as_mut() else {
                    return NO_COMPRESSION;
                };
                put_varint32(out, raw.len() as u32);
                match z.compress(raw) {
                    Ok(c) => out.extend_from_slice(&c),
                    Err(_) => return NO_COMPRESSION,
                }
                ZSTD_COMPRESSION
            }
            Compression::Snappy => {
                let enc = self.snappy.get_or_insert_with(snap::raw::Encoder::new);
                out.resize(snap::raw::max_compress_len(raw.len()), 0);
                match enc.compress(raw, out) {
                    Ok(n) => out.truncate(n),
                    Err(_) => return NO_COMPRESSION,
                }
                SNAPPY_COMPRESSION
            }
        };
        if out.len() < raw.len() - raw.len() / 8 {
            kind
        } else {
            NO_COMPRESSION
        }
    }
}

/// Decodes `block`, stored with compression type `kind` (not [`NO_COMPRESSION`]); the error
/// says what is wrong, for the caller to report with the file and offset.
pub fn decompress(kind: u8, block: &[u8]) -> Result<Vec<u8>, String> {
    let (raw_len, n) = get_varint32(block)
        .ok_or_else(|| "compressed block without its uncompressed length".to_string())?;
    let raw_len = raw_len as usize;
    if raw_len > MAX_BLOCK_BYTES {
        return Err("compressed block claims more than 1 GiB".to_string());
    }
    let payload = &block[n..];
    // A kept buffer of this thread when one fits (see `env::block_buffers`): the decoded block
    // is what a block cache holds.
    let mut out = crate::env::block_buffers::take(raw_len);
    out.resize(raw_len, 0);
    let produced = match kind {
        LZ4_COMPRESSION => lz4_flex::block::decompress_into(payload, &mut out).ok(),
        ZSTD_COMPRESSION => ZSTD.with(|z| {
            let mut z = z.borrow_mut();
            if z.is_none() {
                *z = zstd::bulk::Decompressor::new().ok();
            }
            z.as_mut()?.decompress_to_buffer(payload, &mut out[..]).ok()
        }),
        // The Snappy decoder reads the length preamble itself.
        SNAPPY_COMPRESSION => snap::raw::Decoder::new().decompress(block, &mut out).ok(),
        _ => return Err(format!("unknown block compression type {kind}")),
    };
    if produced != Some(raw_len) {
        return Err(format!(
            "block does not decompress to its recorded length ({})",
            kind_name(kind)
        ));
    }
    Ok(out)
}

/// The codec a type byte names, for messages.
fn kind_name(kind: u8) -> &'static str {
    match kind {
        NO_COMPRESSION => "none",
        LZ4_COMPRESSION => "lz4",
        ZSTD_COMPRESSION => "zstd",
        SNAPPY_COMPRESSION => "snappy",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Text that compresses: every codec must pick it up.
    fn compressible() -> Vec<u8> {
        (0..4096u32)
            .flat_map(|i| format!("key{:06} value {}\n", i % 97, i % 13).into_bytes())
            .take(4096)
            .collect()
    }

    #[test]
    fn each_codec_round_trips_a_block() {
        let raw = compressible();
        let mut c = BlockCompressor::default();
        let mut out = Vec::new();
        for (codec, kind) in [
            (Compression::Lz4, LZ4_COMPRESSION),
            (Compression::Zstd, ZSTD_COMPRESSION),
            (Compression::Snappy, SNAPPY_COMPRESSION),
        ] {
            assert_eq!(c.compress(codec, &raw, &mut out), kind, "{codec:?}");
            assert!(out.len() < raw.len() / 2, "{codec:?}: {}", out.len());
            assert_eq!(decompress(kind, &out).unwrap(), raw, "{codec:?}");
        }
    }

    /// Blocks of any length and make-up, from runs of one byte to noise: whatever a codec
    /// stores must decode to the block. LZ4 is encoded by `lz4_flex`'s unchecked encoder,
    /// so its output is checked here on inputs it was not written for.
    fn block_strategy() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        // (byte, run length) pieces: runs compress, single bytes do not.
        proptest::collection::vec((any::<u8>(), 1usize..300), 0..400).prop_map(|pieces| {
            pieces
                .into_iter()
                .flat_map(|(b, n)| std::iter::repeat_n(b, n))
                .collect()
        })
    }

    proptest::proptest! {
        #[test]
        fn any_block_round_trips_through_every_codec(raw in block_strategy()) {
            let mut c = BlockCompressor::default();
            let mut out = Vec::new();
            for codec in [Compression::Lz4, Compression::Zstd, Compression::Snappy] {
                let kind = c.compress(codec, &raw, &mut out);
                if kind != NO_COMPRESSION {
                    proptest::prop_assert_eq!(&decompress(kind, &out).unwrap(), &raw, "{:?}", codec);
                }
            }
        }
    }

    #[test]
    fn a_snappy_block_is_the_snappy_raw_format() {
        // What LevelDB stores: any conforming Snappy decoder reads the block as it is.
        let raw = compressible();
        let mut out = Vec::new();
        let kind = BlockCompressor::default().compress(Compression::Snappy, &raw, &mut out);
        assert_eq!(kind, SNAPPY_COMPRESSION);
        assert_eq!(snap::raw::Decoder::new().decompress_vec(&out).unwrap(), raw);
        assert_eq!(get_varint32(&out).unwrap().0 as usize, raw.len());
    }

    #[test]
    fn incompressible_blocks_are_stored_raw() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let raw: Vec<u8> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let mut c = BlockCompressor::default();
        let mut out = Vec::new();
        for codec in [Compression::None, Compression::Snappy, Compression::Lz4] {
            assert_eq!(
                c.compress(codec, &raw, &mut out),
                NO_COMPRESSION,
                "{codec:?}"
            );
        }
    }

    #[test]
    fn damaged_snappy_blocks_are_errors() {
        let raw = compressible();
        let mut good = Vec::new();
        BlockCompressor::default().compress(Compression::Snappy, &raw, &mut good);
        // Every single-byte change, cut and a preamble claiming too much: an error or (where
        // the change happens to keep the stream valid) some output, never a panic.
        for i in 0..good.len() {
            let mut b = good.clone();
            b[i] ^= 0x5a;
            if let Ok(v) = decompress(SNAPPY_COMPRESSION, &b) {
                assert_eq!(v.len(), get_varint32(&b).unwrap().0 as usize);
            }
            assert!(
                decompress(SNAPPY_COMPRESSION, &good[..i]).is_err(),
                "cut at {i}"
            );
        }
        let mut huge = Vec::new();
        put_varint32(&mut huge, u32::MAX);
        huge.extend_from_slice(&good[5..]);
        let e = decompress(SNAPPY_COMPRESSION, &huge).unwrap_err();
        assert!(e.contains("1 GiB"), "{e}");
        let e = decompress(9, &good).unwrap_err();
        assert!(e.contains("unknown block compression type 9"), "{e}");
    }
}
