//! The properties block: a block (same format as data blocks, restart interval 1) whose keys
//! are property names in ascending byte order and whose values are varint64 numbers, or raw
//! bytes for the filter policy name. Readers ignore names they do not know and take 0 (or "")
//! for names that are missing, so that properties can be added without a format version bump.

use super::block::{Block, BlockBuilder, Cursor};
use super::TableProperties;
use crate::coding::{get_varint64, put_varint64};

const DATA_SIZE: &[u8] = b"rocksdb.data.size";
const DELETED_KEYS: &[u8] = b"rocksdb.deleted.keys";
const FILTER_POLICY: &[u8] = b"rocksdb.filter.policy";
const FILTER_SIZE: &[u8] = b"rocksdb.filter.size";
const INDEX_SIZE: &[u8] = b"rocksdb.index.size";
const NUM_DATA_BLOCKS: &[u8] = b"rocksdb.num.data.blocks";
const NUM_ENTRIES: &[u8] = b"rocksdb.num.entries";
const RAW_KEY_SIZE: &[u8] = b"rocksdb.raw.key.size";
const RAW_VALUE_SIZE: &[u8] = b"rocksdb.raw.value.size";

/// The properties block's bytes (before its trailer).
pub fn encode(p: &TableProperties) -> Vec<u8> {
    let mut b = BlockBuilder::new(1);
    let num = |b: &mut BlockBuilder, name: &[u8], v: u64| {
        let mut buf = Vec::with_capacity(10);
        put_varint64(&mut buf, v);
        b.add(name, &buf);
    };
    // Ascending name order.
    num(&mut b, DATA_SIZE, p.data_size);
    num(&mut b, DELETED_KEYS, p.num_deletions);
    b.add(FILTER_POLICY, p.filter_policy.as_bytes());
    num(&mut b, FILTER_SIZE, p.filter_size);
    num(&mut b, INDEX_SIZE, p.index_size);
    num(&mut b, NUM_DATA_BLOCKS, p.num_data_blocks);
    num(&mut b, NUM_ENTRIES, p.num_entries);
    num(&mut b, RAW_KEY_SIZE, p.raw_key_size);
    num(&mut b, RAW_VALUE_SIZE, p.raw_value_size);
    b.finish().to_vec()
}

/// Decodes a properties block; the error says what is wrong.
pub fn decode(block: &Block) -> Result<TableProperties, &'static str> {
    let mut p = TableProperties::default();
    let mut c = Cursor::new(Vec::new());
    c.seek_to_first(block)?;
    while c.valid(block) {
        let v = c.value(block);
        let num = || -> Result<u64, &'static str> {
            match get_varint64(v) {
                Some((n, len)) if len == v.len() => Ok(n),
                _ => Err("bad number in properties"),
            }
        };
        match c.key.as_slice() {
            DATA_SIZE => p.data_size = num()?,
            DELETED_KEYS => p.num_deletions = num()?,
            FILTER_POLICY => {
                p.filter_policy =
                    String::from_utf8(v.to_vec()).map_err(|_| "filter policy name is not UTF-8")?
            }
            FILTER_SIZE => p.filter_size = num()?,
            INDEX_SIZE => p.index_size = num()?,
            NUM_DATA_BLOCKS => p.num_data_blocks = num()?,
            NUM_ENTRIES => p.num_entries = num()?,
            RAW_KEY_SIZE => p.raw_key_size = num()?,
            RAW_VALUE_SIZE => p.raw_value_size = num()?,
            _ => {} // a property from a newer writer
        }
        c.next(block)?;
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_round_trip_and_unknown_names_are_skipped() {
        let p = TableProperties {
            num_entries: 1,
            num_deletions: 2,
            raw_key_size: 3,
            raw_value_size: u64::MAX,
            data_size: 5,
            index_size: 6,
            filter_size: 7,
            num_data_blocks: 8,
            filter_policy: "bloom".into(),
        };
        let blk = Block::new(encode(&p)).unwrap();
        assert_eq!(decode(&blk), Ok(p));

        let mut b = BlockBuilder::new(1);
        b.add(b"aaa.unknown", b"whatever");
        b.add(NUM_ENTRIES, &[42]);
        let got = decode(&Block::new(b.finish().to_vec()).unwrap()).unwrap();
        assert_eq!(got.num_entries, 42);
        assert_eq!(got.data_size, 0);

        let mut b = BlockBuilder::new(1);
        b.add(NUM_ENTRIES, &[0x80]); // truncated varint
        assert!(decode(&Block::new(b.finish().to_vec()).unwrap()).is_err());
    }
}
