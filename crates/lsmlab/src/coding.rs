//! Fixed-width little-endian and LEB128 varint encoding, as every on-disk format here uses.
//!
//! Decoders return `None` on truncated input rather than panicking: the caller turns that into a
//! `Corruption` error that names its file and offset.

/// Appends `v` as 4 little-endian bytes.
pub fn put_fixed32(dst: &mut Vec<u8>, v: u32) {
    dst.extend_from_slice(&v.to_le_bytes());
}

/// Appends `v` as 8 little-endian bytes.
pub fn put_fixed64(dst: &mut Vec<u8>, v: u64) {
    dst.extend_from_slice(&v.to_le_bytes());
}

/// Reads 4 little-endian bytes at the start of `src`.
pub fn get_fixed32(src: &[u8]) -> Option<u32> {
    Some(u32::from_le_bytes(src.get(..4)?.try_into().ok()?))
}

/// Reads 8 little-endian bytes at the start of `src`.
pub fn get_fixed64(src: &[u8]) -> Option<u64> {
    Some(u64::from_le_bytes(src.get(..8)?.try_into().ok()?))
}

/// Appends `v` as a LEB128 varint (1–10 bytes).
pub fn put_varint64(dst: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        dst.push((v as u8) | 0x80);
        v >>= 7;
    }
    dst.push(v as u8);
}

/// Bytes of `v` as a LEB128 varint (1–10).
pub fn varint_len(v: u64) -> usize {
    // 7 payload bits per byte; 0 still takes one byte.
    (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
}

/// Appends `v` as a LEB128 varint (1–5 bytes).
pub fn put_varint32(dst: &mut Vec<u8>, v: u32) {
    put_varint64(dst, v as u64)
}

/// Decodes a varint at the start of `src`: the value and the bytes it took.
pub fn get_varint64(src: &[u8]) -> Option<(u64, usize)> {
    let mut v: u64 = 0;
    for (i, &b) in src.iter().enumerate().take(10) {
        v |= ((b & 0x7f) as u64) << (7 * i);
        if b < 0x80 {
            return Some((v, i + 1));
        }
    }
    None
}

/// Decodes a varint that must fit 32 bits.
pub fn get_varint32(src: &[u8]) -> Option<(u32, usize)> {
    let (v, n) = get_varint64(src)?;
    u32::try_from(v).ok().map(|v| (v, n))
}

/// Appends `data` prefixed by its length as a varint.
pub fn put_length_prefixed(dst: &mut Vec<u8>, data: &[u8]) {
    put_varint64(dst, data.len() as u64);
    dst.extend_from_slice(data);
}

/// A cursor over an encoded record; every getter returns `None` past the end.
pub struct Decoder<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Decoder<'a> {
    /// A decoder at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Decoder { buf, pos: 0 }
    }
    /// Bytes consumed so far.
    pub fn position(&self) -> usize {
        self.pos
    }
    /// True when every byte has been consumed.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }
    /// Next varint.
    pub fn varint64(&mut self) -> Option<u64> {
        let (v, n) = get_varint64(&self.buf[self.pos..])?;
        self.pos += n;
        Some(v)
    }
    /// Next varint that fits 32 bits.
    pub fn varint32(&mut self) -> Option<u32> {
        u32::try_from(self.varint64()?).ok()
    }
    /// Next fixed 32-bit integer.
    pub fn fixed32(&mut self) -> Option<u32> {
        let v = get_fixed32(&self.buf[self.pos..])?;
        self.pos += 4;
        Some(v)
    }
    /// Next fixed 64-bit integer.
    pub fn fixed64(&mut self) -> Option<u64> {
        let v = get_fixed64(&self.buf[self.pos..])?;
        self.pos += 8;
        Some(v)
    }
    /// Next byte.
    pub fn u8(&mut self) -> Option<u8> {
        let b = *self.buf.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }
    /// Next `n` raw bytes.
    pub fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.buf.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }
    /// Next length-prefixed byte string.
    pub fn length_prefixed(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.varint64()?).ok()?;
        self.bytes(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint_len_is_the_length_put_writes() {
        for shift in 0..64 {
            for v in [(1u64 << shift) - 1, 1u64 << shift, (1u64 << shift) + 1] {
                let mut buf = Vec::new();
                put_varint64(&mut buf, v);
                assert_eq!(varint_len(v), buf.len(), "varint_len({v})");
            }
        }
        assert_eq!(varint_len(u64::MAX), 10);
    }

    #[test]
    fn varints_round_trip_at_every_width() {
        let values = [0u64, 1, 127, 128, 300, 1 << 21, u32::MAX as u64, u64::MAX];
        let mut buf = Vec::new();
        for &v in &values {
            put_varint64(&mut buf, v);
        }
        let mut d = Decoder::new(&buf);
        for &v in &values {
            assert_eq!(d.varint64(), Some(v));
        }
        assert!(d.is_empty());
    }

    #[test]
    fn truncated_input_decodes_to_none() {
        let mut buf = Vec::new();
        put_varint64(&mut buf, 1 << 40);
        assert_eq!(get_varint64(&buf[..buf.len() - 1]), None);
        assert_eq!(get_fixed64(&[1, 2, 3]), None);
        let mut d = Decoder::new(&[5, 1, 2]);
        assert_eq!(d.length_prefixed(), None);
    }
}
