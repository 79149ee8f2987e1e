//! Version edits: the records of the MANIFEST. Each says which tables appeared and which
//! disappeared, plus the counters recovery needs.
//!
//! Encoding: a sequence of `tag: varint` fields; see `docs/formats.md`.

use crate::coding::{put_length_prefixed, put_varint64, Decoder};

const TAG_LOG_NUMBER: u64 = 1;
const TAG_NEXT_FILE: u64 = 2;
const TAG_LAST_SEQUENCE: u64 = 3;
const TAG_DELETED_FILE: u64 = 4;
const TAG_NEW_FILE: u64 = 5;

/// What the MANIFEST records of a table.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NewFile {
    /// File number.
    pub number: u64,
    /// Bytes of the file.
    pub size: u64,
    /// Smallest internal key.
    pub smallest: Vec<u8>,
    /// Largest internal key.
    pub largest: Vec<u8>,
    /// Smallest sequence number of its entries.
    pub smallest_seq: u64,
    /// Largest sequence number of its entries.
    pub largest_seq: u64,
    /// Entries in the table.
    pub num_entries: u64,
    /// Deletion entries in the table.
    pub num_deletions: u64,
}

/// A change to the set of tables.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VersionEdit {
    /// WALs numbered below this are fully flushed and can be deleted.
    pub log_number: Option<u64>,
    /// The next file number to hand out.
    pub next_file_number: Option<u64>,
    /// The last sequence number used.
    pub last_sequence: Option<u64>,
    /// Tables removed: (level, number).
    pub deleted: Vec<(usize, u64)>,
    /// Tables added: (level, table).
    pub added: Vec<(usize, NewFile)>,
}

impl VersionEdit {
    /// Serialises the edit.
    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::new();
        for (tag, v) in [
            (TAG_LOG_NUMBER, self.log_number),
            (TAG_NEXT_FILE, self.next_file_number),
            (TAG_LAST_SEQUENCE, self.last_sequence),
        ] {
            if let Some(v) = v {
                put_varint64(&mut b, tag);
                put_varint64(&mut b, v);
            }
        }
        for &(level, number) in &self.deleted {
            put_varint64(&mut b, TAG_DELETED_FILE);
            put_varint64(&mut b, level as u64);
            put_varint64(&mut b, number);
        }
        for (level, f) in &self.added {
            put_varint64(&mut b, TAG_NEW_FILE);
            put_varint64(&mut b, *level as u64);
            for v in [
                f.number,
                f.size,
                f.smallest_seq,
                f.largest_seq,
                f.num_entries,
                f.num_deletions,
            ] {
                put_varint64(&mut b, v);
            }
            put_length_prefixed(&mut b, &f.smallest);
            put_length_prefixed(&mut b, &f.largest);
        }
        b
    }

    /// Parses an edit; the error says which field is malformed.
    pub fn decode(data: &[u8]) -> Result<VersionEdit, String> {
        let mut d = Decoder::new(data);
        let mut e = VersionEdit::default();
        while !d.is_empty() {
            let tag = d.varint64().ok_or("bad tag")?;
            match tag {
                TAG_LOG_NUMBER => e.log_number = Some(d.varint64().ok_or("bad log number")?),
                TAG_NEXT_FILE => e.next_file_number = Some(d.varint64().ok_or("bad next file")?),
                TAG_LAST_SEQUENCE => {
                    e.last_sequence = Some(d.varint64().ok_or("bad last sequence")?)
                }
                TAG_DELETED_FILE => {
                    let level = d.varint32().ok_or("bad deleted-file level")? as usize;
                    let n = d.varint64().ok_or("bad deleted-file number")?;
                    e.deleted.push((level, n));
                }
                TAG_NEW_FILE => {
                    let level = d.varint32().ok_or("bad new-file level")? as usize;
                    let mut v = [0u64; 6];
                    for x in &mut v {
                        *x = d.varint64().ok_or("bad new-file field")?;
                    }
                    let smallest = d.length_prefixed().ok_or("bad smallest key")?.to_vec();
                    let largest = d.length_prefixed().ok_or("bad largest key")?.to_vec();
                    e.added.push((
                        level,
                        NewFile {
                            number: v[0],
                            size: v[1],
                            smallest_seq: v[2],
                            largest_seq: v[3],
                            num_entries: v[4],
                            num_deletions: v[5],
                            smallest,
                            largest,
                        },
                    ));
                }
                other => return Err(format!("unknown tag {other}")),
            }
        }
        Ok(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_round_trip_and_truncations_fail() {
        let e = VersionEdit {
            log_number: Some(4),
            next_file_number: Some(9),
            last_sequence: Some(1 << 40),
            deleted: vec![(1, 5), (0, 6)],
            added: vec![(
                2,
                NewFile {
                    number: 8,
                    size: 4096,
                    smallest: b"a\0\0\0\0\0\0\0\0".to_vec(),
                    largest: b"z\0\0\0\0\0\0\0\0".to_vec(),
                    smallest_seq: 1,
                    largest_seq: 7,
                    num_entries: 10,
                    num_deletions: 2,
                },
            )],
        };
        let enc = e.encode();
        assert_eq!(VersionEdit::decode(&enc).unwrap(), e);
        for cut in 1..enc.len() {
            // Every strict prefix either fails or decodes to something other than `e`.
            if let Ok(d) = VersionEdit::decode(&enc[..cut]) {
                assert_ne!(d, e);
            }
        }
    }
}
