//! Block handles, the 5-byte block trailer (compression type + masked CRC32C) and the footer.

use crate::checksum::mask_crc;
use crate::coding::{get_fixed32, get_fixed64, put_fixed32, put_fixed64, put_varint64, Decoder};

/// Bytes after every block: 1 byte compression type + 4 bytes masked CRC32C.
pub const BLOCK_TRAILER_LEN: usize = 5;

/// Bytes of the footer at the end of every table.
pub const FOOTER_LEN: usize = 64;

/// The last 8 bytes of every table: ASCII `"LSMLABTB"` read as a little-endian u64.
pub const TABLE_MAGIC: u64 = u64::from_le_bytes(*b"LSMLABTB");

/// Table format 1: each index entry's value is the data block's handle.
pub const FORMAT_PLAIN_INDEX: u32 = 1;

/// Table format 2: each index entry's value is the data block's handle, the number of entries
/// in the block and the block's first internal key ([`IndexValue`]). Written for tables whose
/// blocks hold few entries (large values), where a seek can then stop at a block's first key
/// without reading the block.
pub const FORMAT_FIRST_KEY_INDEX: u32 = 2;

/// The stored (masked) checksum of a block and its type byte.
#[inline]
pub fn block_crc(block: &[u8], kind: u8) -> u32 {
    mask_crc(crate::checksum::crc32c_append(
        crate::checksum::crc32c(block),
        &[kind],
    ))
}

/// Where a block is: its offset and its size on disk, trailer excluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlockHandle {
    /// Offset of the block's first byte.
    pub offset: u64,
    /// Bytes of the block, without its 5-byte trailer.
    pub size: u64,
}

impl BlockHandle {
    /// Appends the handle as two varints (index entry values).
    pub fn encode_varint(&self, dst: &mut Vec<u8>) {
        put_varint64(dst, self.offset);
        put_varint64(dst, self.size);
    }

    /// Decodes a handle written by [`BlockHandle::encode_varint`]; the whole slice must be used.
    pub fn decode_varint(src: &[u8]) -> Option<BlockHandle> {
        let mut d = Decoder::new(src);
        let h = BlockHandle {
            offset: d.varint64()?,
            size: d.varint64()?,
        };
        d.is_empty().then_some(h)
    }

    /// End of the block's trailer, if it does not overflow.
    pub fn end_with_trailer(&self) -> Option<u64> {
        self.offset
            .checked_add(self.size)?
            .checked_add(BLOCK_TRAILER_LEN as u64)
    }
}

/// An index entry's value in a table of format [`FORMAT_FIRST_KEY_INDEX`]:
/// `varint64 offset, varint64 size, varint32 entries`, then the block's first internal key
/// (the rest of the value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexValue<'a> {
    /// Where the data block is.
    pub handle: BlockHandle,
    /// Entries the block holds (at least 1).
    pub entries: u32,
    /// The block's first internal key.
    pub first_key: &'a [u8],
}

impl<'a> IndexValue<'a> {
    /// Appends the encoding of a value with these fields.
    pub fn encode(handle: BlockHandle, entries: u32, first_key: &[u8], dst: &mut Vec<u8>) {
        handle.encode_varint(dst);
        crate::coding::put_varint32(dst, entries);
        dst.extend_from_slice(first_key);
    }

    /// Decodes a value written by [`IndexValue::encode`]; `None` if it is malformed (no block
    /// entries, or a first key too short to be an internal key).
    pub fn decode(src: &'a [u8]) -> Option<IndexValue<'a>> {
        let mut d = Decoder::new(src);
        let handle = BlockHandle {
            offset: d.varint64()?,
            size: d.varint64()?,
        };
        let entries = d.varint32()?;
        let first_key = d.bytes(src.len() - d.position())?;
        (entries > 0 && first_key.len() >= crate::key::TRAILER_LEN).then_some(IndexValue {
            handle,
            entries,
            first_key,
        })
    }
}

/// The fixed-size end of a table.
///
/// ```text
/// index handle (fixed64 offset, fixed64 size)
/// properties handle (fixed64 offset, fixed64 size)
/// filter handle (fixed64 offset, fixed64 size; zeros without filter)
/// format version (fixed32)
/// masked CRC32C of the 52 bytes above (fixed32)
/// magic (fixed64)
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footer {
    /// The index block.
    pub index: BlockHandle,
    /// The properties block.
    pub properties: BlockHandle,
    /// The filter block (meaningful only when the properties name a filter policy).
    pub filter: BlockHandle,
    /// [`FORMAT_PLAIN_INDEX`] or [`FORMAT_FIRST_KEY_INDEX`].
    pub version: u32,
}

/// Bytes covered by the footer's checksum: three handles and the version.
const FOOTER_CRC_COVERED: usize = 3 * 16 + 4;

impl Footer {
    /// The footer's 64 bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(FOOTER_LEN);
        for h in [self.index, self.properties, self.filter] {
            put_fixed64(&mut v, h.offset);
            put_fixed64(&mut v, h.size);
        }
        put_fixed32(&mut v, self.version);
        let crc = mask_crc(crate::checksum::crc32c(&v));
        put_fixed32(&mut v, crc);
        put_fixed64(&mut v, TABLE_MAGIC);
        debug_assert_eq!(v.len(), FOOTER_LEN);
        v
    }

    /// Decodes and checks a footer; the error says which check failed.
    pub fn decode(src: &[u8]) -> Result<Footer, String> {
        if src.len() != FOOTER_LEN {
            return Err(format!("footer is {} bytes, not {FOOTER_LEN}", src.len()));
        }
        let magic = get_fixed64(&src[FOOTER_LEN - 8..]).ok_or("footer magic unreadable")?;
        if magic != TABLE_MAGIC {
            return Err(format!(
                "bad table magic {magic:#018x}: not an lsmlab table"
            ));
        }
        let version = get_fixed32(&src[FOOTER_CRC_COVERED - 4..]).ok_or("footer unreadable")?;
        let stored = get_fixed32(&src[FOOTER_CRC_COVERED..]).ok_or("footer unreadable")?;
        if stored != mask_crc(crate::checksum::crc32c(&src[..FOOTER_CRC_COVERED])) {
            return Err("footer checksum mismatch".into());
        }
        if !(FORMAT_PLAIN_INDEX..=FORMAT_FIRST_KEY_INDEX).contains(&version) {
            return Err(format!(
                "table format version {version}, this build reads versions \
                 {FORMAT_PLAIN_INDEX} to {FORMAT_FIRST_KEY_INDEX}"
            ));
        }
        let h = |i: usize| -> Result<BlockHandle, String> {
            Ok(BlockHandle {
                offset: get_fixed64(&src[i * 16..]).ok_or("footer unreadable")?,
                size: get_fixed64(&src[i * 16 + 8..]).ok_or("footer unreadable")?,
            })
        };
        Ok(Footer {
            index: h(0)?,
            properties: h(1)?,
            filter: h(2)?,
            version,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn footer_round_trips_and_rejects_every_bit_flip() {
        let f = Footer {
            index: BlockHandle {
                offset: 1000,
                size: 77,
            },
            properties: BlockHandle {
                offset: 900,
                size: 95,
            },
            filter: BlockHandle::default(),
            version: FORMAT_FIRST_KEY_INDEX,
        };
        let enc = f.encode();
        assert_eq!(enc.len(), FOOTER_LEN);
        assert_eq!(Footer::decode(&enc), Ok(f));
        for byte in 0..FOOTER_LEN {
            for bit in 0..8 {
                let mut e = enc.clone();
                e[byte] ^= 1 << bit;
                assert!(Footer::decode(&e).is_err(), "flip {byte}.{bit} accepted");
            }
        }
        assert!(Footer::decode(&enc[1..]).is_err());
    }

    #[test]
    fn magic_is_the_documented_constant() {
        // docs/formats.md gives this value.
        assert_eq!(TABLE_MAGIC, 0x4254_4241_4c4d_534c);
    }

    #[test]
    fn handle_decoding_rejects_truncation_and_trailing_bytes() {
        let h = BlockHandle {
            offset: 1 << 40,
            size: 4096,
        };
        let mut v = Vec::new();
        h.encode_varint(&mut v);
        assert_eq!(BlockHandle::decode_varint(&v), Some(h));
        assert_eq!(BlockHandle::decode_varint(&v[..v.len() - 1]), None);
        v.push(0);
        assert_eq!(BlockHandle::decode_varint(&v), None);
        let huge = BlockHandle {
            offset: u64::MAX,
            size: 1,
        };
        assert_eq!(huge.end_with_trailer(), None);
    }
}
