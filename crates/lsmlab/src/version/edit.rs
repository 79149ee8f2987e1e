//! Version edits: the records of the MANIFEST. Each says which tables and blob files appeared,
//! which tables disappeared and how much of each blob file became garbage, plus the counters
//! recovery needs. Tags 1–5 are LevelDB's and read as before; 6 and 7 are the blob tags.
//!
//! Encoding: a sequence of `tag: varint` fields; see `docs/formats.md`.

use crate::coding::{put_length_prefixed, put_varint64, Decoder};

const TAG_LOG_NUMBER: u64 = 1;
const TAG_NEXT_FILE: u64 = 2;
const TAG_LAST_SEQUENCE: u64 = 3;
const TAG_DELETED_FILE: u64 = 4;
const TAG_NEW_FILE: u64 = 5;
/// A blob file was written: number, record count, record bytes.
const TAG_NEW_BLOB_FILE: u64 = 6;
/// Blob records became garbage: number, record count, record bytes (added to what it had).
const TAG_BLOB_GARBAGE: u64 = 7;
/// The oldest blob file a table references: table number, blob file number. Follows the table's
/// tag 5 in the same edit; tables without it reference no blob file.
const TAG_TABLE_OLDEST_BLOB: u64 = 8;
/// The entries of deeper levels a table's keys are estimated to hide: table number, entries.
/// Follows the table's tag 5 in the same edit; tables without it hide none that are known.
const TAG_TABLE_SHADOWED: u64 = 9;

/// What the MANIFEST records of a blob file when it is added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NewBlobFile {
    /// File number.
    pub number: u64,
    /// Records in the file.
    pub count: u64,
    /// Bytes of the records (the file less its header and footer).
    pub bytes: u64,
}

impl NewBlobFile {
    /// Bytes of the whole file.
    pub fn file_size(&self) -> u64 {
        self.bytes
            .saturating_add(crate::blob::HEADER_LEN + crate::blob::FOOTER_LEN)
    }
}

/// Records of a blob file that no table references any more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlobGarbage {
    /// File number.
    pub number: u64,
    /// Records that became garbage.
    pub count: u64,
    /// Bytes of those records.
    pub bytes: u64,
}

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
    /// Number of the oldest blob file the table references; 0 for none.
    pub oldest_blob_file: u64,
    /// Entries of deeper levels that this table's keys hide, estimated when it was written
    /// (`compaction/obsolete.rs`): the obsolete versions a compaction of it down would drop.
    pub shadowed_below: u64,
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
    /// Blob files added (before any table that references them is).
    pub blob_added: Vec<NewBlobFile>,
    /// Garbage added to blob files; a file whose records are all garbage leaves the version.
    pub blob_garbage: Vec<BlobGarbage>,
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
        for f in &self.blob_added {
            put_varint64(&mut b, TAG_NEW_BLOB_FILE);
            for v in [f.number, f.count, f.bytes] {
                put_varint64(&mut b, v);
            }
        }
        for g in &self.blob_garbage {
            put_varint64(&mut b, TAG_BLOB_GARBAGE);
            for v in [g.number, g.count, g.bytes] {
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
            if f.oldest_blob_file != 0 {
                put_varint64(&mut b, TAG_TABLE_OLDEST_BLOB);
                put_varint64(&mut b, f.number);
                put_varint64(&mut b, f.oldest_blob_file);
            }
            if f.shadowed_below != 0 {
                put_varint64(&mut b, TAG_TABLE_SHADOWED);
                put_varint64(&mut b, f.number);
                put_varint64(&mut b, f.shadowed_below);
            }
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
                    let v: [u64; 6] = varints(&mut d, "bad new-file field")?;
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
                            oldest_blob_file: 0,
                            shadowed_below: 0,
                        },
                    ));
                }
                TAG_TABLE_OLDEST_BLOB => {
                    let n = d.varint64().ok_or("bad table-oldest-blob number")?;
                    let blob = d.varint64().ok_or("bad table-oldest-blob file")?;
                    added_table(&mut e, n, "table-oldest-blob")?.oldest_blob_file = blob;
                }
                TAG_TABLE_SHADOWED => {
                    let n = d.varint64().ok_or("bad table-shadowed number")?;
                    let entries = d.varint64().ok_or("bad table-shadowed entries")?;
                    added_table(&mut e, n, "table-shadowed")?.shadowed_below = entries;
                }
                TAG_NEW_BLOB_FILE => {
                    let v: [u64; 3] = varints(&mut d, "bad new-blob-file field")?;
                    e.blob_added.push(NewBlobFile {
                        number: v[0],
                        count: v[1],
                        bytes: v[2],
                    });
                }
                TAG_BLOB_GARBAGE => {
                    let v: [u64; 3] = varints(&mut d, "bad blob-garbage field")?;
                    e.blob_garbage.push(BlobGarbage {
                        number: v[0],
                        count: v[1],
                        bytes: v[2],
                    });
                }
                other => return Err(format!("unknown tag {other}")),
            }
        }
        Ok(e)
    }
}

/// The table numbered `n` that `e` adds, which a field of `tag` describes further.
fn added_table<'a>(e: &'a mut VersionEdit, n: u64, tag: &str) -> Result<&'a mut NewFile, String> {
    e.added
        .iter_mut()
        .rev()
        .find(|(_, f)| f.number == n)
        .map(|(_, f)| f)
        .ok_or_else(|| format!("{tag} names a table the edit does not add"))
}

/// `N` varint64 fields in a row; `what` is the error if one is malformed.
fn varints<const N: usize>(d: &mut Decoder<'_>, what: &str) -> Result<[u64; N], String> {
    let mut v = [0u64; N];
    for x in &mut v {
        *x = d.varint64().ok_or(what)?;
    }
    Ok(v)
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
                    oldest_blob_file: 7,
                    shadowed_below: 6,
                },
            )],
            blob_added: vec![NewBlobFile {
                number: 7,
                count: 3,
                bytes: 300,
            }],
            blob_garbage: vec![BlobGarbage {
                number: 6,
                count: 1,
                bytes: 40,
            }],
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

    #[test]
    fn edits_without_blob_tags_decode_as_before() {
        // An edit of a MANIFEST written before blob files existed: tags 1–5 only.
        let old = VersionEdit {
            log_number: Some(3),
            deleted: vec![(0, 4)],
            ..Default::default()
        };
        let d = VersionEdit::decode(&old.encode()).unwrap();
        assert!(d.blob_added.is_empty() && d.blob_garbage.is_empty());
        assert_eq!(d, old);
    }
}
