//! A value handed out without a copy: the bytes of a get, either owned or still inside the data
//! block they were read from (RocksDB's `PinnableSlice`).
//!
//! A get that hits a table finds its value inside a block that the block cache (or the read)
//! already holds: copying it out costs an allocation and a copy per get, ~10 % of a 16 KiB
//! `readrandom`. A [`PinnedValue`] keeps the block alive instead, so a caller that only looks at
//! the bytes, or copies them into a buffer it reuses, pays neither.

use crate::sst::block::Block;
use std::ops::Deref;
use std::sync::Arc;

/// The value of a get: dereferences to its bytes.
///
/// While it lives it holds the data block it points into (a few KiB, or the value's size for
/// large values): keep it for the length of a read, not as long-lived storage — call
/// [`PinnedValue::into_vec`] for that.
#[derive(Clone)]
pub struct PinnedValue(Repr);

#[derive(Clone)]
enum Repr {
    Owned(Vec<u8>),
    /// The bytes from `start` on of a buffer read whole (a blob record after its header and
    /// key): moving the value to the buffer's front was a 16 KiB `memmove` per blob get.
    OwnedFrom {
        buf: Vec<u8>,
        start: usize,
    },
    InBlock {
        block: Arc<Block>,
        start: usize,
        end: usize,
    },
}

impl PinnedValue {
    /// The bytes `start..end` of `block`; an empty value if the range lies outside it (the
    /// block's own checks produced the range, so that cannot happen short of a bug).
    pub(crate) fn in_block(block: Arc<Block>, start: usize, end: usize) -> PinnedValue {
        PinnedValue(Repr::InBlock { block, start, end })
    }

    /// The bytes from `start` on of `buf` (all of it if `start` is past its end: none).
    pub(crate) fn owned_from(buf: Vec<u8>, start: usize) -> PinnedValue {
        let start = start.min(buf.len());
        PinnedValue(Repr::OwnedFrom { buf, start })
    }

    /// The value as an owned vector: free if it was owned, one move or copy otherwise.
    pub fn into_vec(self) -> Vec<u8> {
        match self.0 {
            Repr::Owned(v) => v,
            Repr::OwnedFrom { mut buf, start } => {
                buf.drain(..start);
                buf
            }
            Repr::InBlock { .. } => self.deref().to_vec(),
        }
    }
}

impl Deref for PinnedValue {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            Repr::Owned(v) => v,
            Repr::OwnedFrom { buf, start } => &buf[*start..],
            Repr::InBlock { block, start, end } => block.data().get(*start..*end).unwrap_or(&[]),
        }
    }
}

impl From<Vec<u8>> for PinnedValue {
    fn from(v: Vec<u8>) -> PinnedValue {
        PinnedValue(Repr::Owned(v))
    }
}

impl PartialEq for PinnedValue {
    fn eq(&self, other: &PinnedValue) -> bool {
        **self == **other
    }
}

impl Eq for PinnedValue {}

impl std::fmt::Debug for PinnedValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("PinnedValue").field(&&**self).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_behind_a_header_reads_and_converts_without_its_header() {
        let buf = b"HEADERkeyvalue".to_vec();
        let v = PinnedValue::owned_from(buf.clone(), 9);
        assert_eq!(&*v, b"value");
        assert_eq!(v, PinnedValue::from(b"value".to_vec()));
        assert_eq!(v.clone().into_vec(), b"value");
        // A start at or past the end leaves an empty value, never a panic.
        assert!(PinnedValue::owned_from(buf.clone(), buf.len()).is_empty());
        assert!(PinnedValue::owned_from(buf, 99).into_vec().is_empty());
    }
}
