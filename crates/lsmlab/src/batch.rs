//! Atomic groups of writes.
//!
//! Encoding (also the WAL record payload): `sequence: u64 LE | count: u32 LE | records`, each
//! record `kind: u8 | key: varint-prefixed | value: varint-prefixed (not for deletions)`.

use crate::coding::{put_length_prefixed, varint_len, Decoder};
use crate::key::{SequenceNumber, ValueKind};

/// Bytes of the batch header (sequence and count).
pub const HEADER_LEN: usize = 12;

/// A set of puts and deletes applied atomically by [`Db::write`](crate::Db::write).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteBatch {
    rep: Vec<u8>,
    count: u32,
}

impl Default for WriteBatch {
    fn default() -> Self {
        WriteBatch::new()
    }
}

/// One decoded record of a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchRecord<'a> {
    /// Put, delete or blob index.
    pub kind: ValueKind,
    /// The user key.
    pub key: &'a [u8],
    /// The value (empty for deletions).
    pub value: &'a [u8],
}

impl WriteBatch {
    /// An empty batch.
    pub fn new() -> WriteBatch {
        WriteBatch::with_capacity(0)
    }

    /// An empty batch with room for `bytes` of records (a put of key `k` and value `v` takes
    /// at most `k + v + 21` bytes), so that building it allocates once.
    pub fn with_capacity(bytes: usize) -> WriteBatch {
        // Not `vec![0; HEADER_LEN]`: glibc's calloc skips its per-thread cache, and a batch per
        // write made it a tenth of a small-value write's instructions.
        let mut rep = Vec::with_capacity(HEADER_LEN + bytes);
        rep.resize(HEADER_LEN, 0);
        WriteBatch { rep, count: 0 }
    }

    /// Sets `key` to `value`.
    pub fn put(&mut self, key: &[u8], value: &[u8]) {
        // One growth for the whole record rather than one per field, and exactly its size: a
        // worst-case reserve (10-byte varints) overshot a batch allocated at the size of the
        // previous one, and every put reallocated (a tenth of a 100-byte fill's instructions).
        self.rep.reserve(
            1 + varint_len(key.len() as u64)
                + key.len()
                + varint_len(value.len() as u64)
                + value.len(),
        );
        self.rep.push(ValueKind::Value as u8);
        put_length_prefixed(&mut self.rep, key);
        put_length_prefixed(&mut self.rep, value);
        self.count += 1;
    }

    /// Deletes `key`.
    pub fn delete(&mut self, key: &[u8]) {
        self.rep
            .reserve(1 + varint_len(key.len() as u64) + key.len());
        self.rep.push(ValueKind::Deletion as u8);
        put_length_prefixed(&mut self.rep, key);
        self.count += 1;
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.count as usize
    }

    /// True when the batch holds no record.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Removes every record.
    pub fn clear(&mut self) {
        self.rep.truncate(HEADER_LEN);
        self.count = 0;
    }

    /// Bytes of the encoded batch.
    pub fn approximate_size(&self) -> usize {
        self.rep.len()
    }

    /// Appends every record of `other`.
    pub fn append(&mut self, other: &WriteBatch) {
        self.rep.extend_from_slice(&other.rep[HEADER_LEN..]);
        self.count += other.count;
    }

    /// Stamps the first sequence number and count into the header; returns the encoding.
    pub(crate) fn encode(&mut self, seq: SequenceNumber) -> &[u8] {
        self.rep[..8].copy_from_slice(&seq.to_le_bytes());
        self.rep[8..12].copy_from_slice(&self.count.to_le_bytes());
        &self.rep
    }

    /// Decodes a batch read from the WAL: its first sequence number and the batch; `None` if
    /// the bytes are not a well-formed batch.
    pub fn decode(data: &[u8]) -> Option<(SequenceNumber, WriteBatch)> {
        let mut d = Decoder::new(data);
        let seq = d.fixed64()?;
        let count = d.fixed32()?;
        // An empty batch is never logged, and every sequence must fit the trailer's 56 bits.
        if count == 0 || seq == 0 || seq.checked_add(count as u64 - 1)? > crate::key::MAX_SEQUENCE {
            return None;
        }
        let batch = WriteBatch {
            rep: data.to_vec(),
            count,
        };
        // Validate every record now so that replay cannot meet a malformed one.
        if batch.records().count() != count as usize || !batch.records_well_formed() {
            return None;
        }
        Some((seq, batch))
    }

    fn records_well_formed(&self) -> bool {
        let mut d = Decoder::new(&self.rep[HEADER_LEN..]);
        let mut n = 0;
        while !d.is_empty() {
            if Self::next_record(&mut d).is_none() {
                return false;
            }
            n += 1;
        }
        n == self.count
    }

    fn next_record<'a>(d: &mut Decoder<'a>) -> Option<BatchRecord<'a>> {
        let kind = ValueKind::from_u8(d.u8()?)?;
        let key = d.length_prefixed()?;
        let value = match kind {
            ValueKind::Deletion => &[][..],
            _ => d.length_prefixed()?,
        };
        Some(BatchRecord { kind, key, value })
    }

    /// The records in order (stops at the first malformed one).
    pub fn records(&self) -> impl Iterator<Item = BatchRecord<'_>> {
        let mut d = Decoder::new(&self.rep[HEADER_LEN..]);
        std::iter::from_fn(move || {
            if d.is_empty() {
                None
            } else {
                Self::next_record(&mut d)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_sized_like_the_previous_one_does_not_grow() {
        for (k, v) in [(16, 100), (16, 1024), (200, 20_000)] {
            let (key, value) = (vec![b'k'; k], vec![b'v'; v]);
            let mut first = WriteBatch::new();
            first.put(&key, &value);
            let mut next = WriteBatch::with_capacity(first.approximate_size());
            let capacity = next.rep.capacity();
            next.put(&key, &value);
            next.delete(&key[..1]);
            assert_eq!(next.rep.capacity(), capacity, "key {k} B, value {v} B");
        }
    }

    #[test]
    fn encode_decode_round_trips_records_and_sequence() {
        let mut b = WriteBatch::new();
        b.put(b"a", b"1");
        b.delete(b"b");
        b.put(b"", b"");
        let enc = b.encode(42).to_vec();
        let (seq, d) = WriteBatch::decode(&enc).unwrap();
        assert_eq!(seq, 42);
        let recs: Vec<_> = d.records().collect();
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[1].kind, ValueKind::Deletion);
        assert_eq!(recs[1].key, b"b");
    }

    #[test]
    fn truncated_or_miscounted_batches_do_not_decode() {
        let mut b = WriteBatch::new();
        b.put(b"key", b"value");
        let enc = b.encode(1).to_vec();
        assert!(WriteBatch::decode(&enc[..enc.len() - 1]).is_none());
        let mut wrong = enc.clone();
        wrong[8] = 2;
        assert!(WriteBatch::decode(&wrong).is_none());
    }
}
