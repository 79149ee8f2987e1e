//! The log format shared by the write-ahead log and the MANIFEST.
//!
//! A log is a sequence of 32 KiB blocks. A record is split into fragments that never cross a
//! block boundary; each fragment has a 7-byte header: CRC32C (4 bytes, over type and payload),
//! payload length (2 bytes), fragment type (1 byte: full, first, middle, last). A block tail
//! shorter than a header is zero-filled. Block alignment lets a reader resynchronise after a
//! damaged fragment, which is how it tells a torn tail (nothing valid follows) from corruption
//! in the middle of the log (valid records follow).

mod reader;
mod writer;

pub use reader::{LogReader, ReadOutcome};
pub use writer::LogWriter;

/// Bytes per log block.
pub const BLOCK_SIZE: usize = 32 * 1024;
/// Bytes of a fragment header: crc (4) + length (2) + type (1).
pub const HEADER_SIZE: usize = 7;

/// Fragment types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum FragmentType {
    Full = 1,
    First = 2,
    Middle = 3,
    Last = 4,
}

impl FragmentType {
    fn from_u8(b: u8) -> Option<FragmentType> {
        match b {
            1 => Some(FragmentType::Full),
            2 => Some(FragmentType::First),
            3 => Some(FragmentType::Middle),
            4 => Some(FragmentType::Last),
            _ => None,
        }
    }
}

fn fragment_crc(kind: u8, payload: &[u8]) -> u32 {
    crc32c::crc32c_append(crc32c::crc32c(&[kind]), payload)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::{Env, IoCategory, MemFs};
    use std::path::Path;
    use std::sync::Arc;

    fn write_log(records: &[Vec<u8>]) -> (MemFs, Vec<u8>) {
        let fs = MemFs::new();
        let env = Env::new(Arc::new(fs.clone()));
        let p = Path::new("/log");
        let mut w = LogWriter::new(env.create(p, IoCategory::Wal).unwrap());
        for r in records {
            w.add_record(r).unwrap();
        }
        w.sync().unwrap();
        let data = fs.read_file_for_test(p);
        (fs, data)
    }

    fn read_all(data: &[u8]) -> (Vec<Vec<u8>>, ReadOutcome) {
        let mut r = LogReader::new(data, Path::new("/log"));
        let mut out = Vec::new();
        while let Some(rec) = r.next_record() {
            out.push(rec.to_vec());
        }
        (out, r.outcome())
    }

    fn sample() -> Vec<Vec<u8>> {
        vec![
            b"small".to_vec(),
            vec![7u8; BLOCK_SIZE * 2 + 100],
            Vec::new(),
            vec![1u8; BLOCK_SIZE - HEADER_SIZE - 3],
            b"tail".to_vec(),
        ]
    }

    #[test]
    fn records_of_every_size_round_trip() {
        let recs = sample();
        let (_, data) = write_log(&recs);
        let (got, outcome) = read_all(&data);
        assert_eq!(got, recs);
        assert_eq!(outcome, ReadOutcome::Clean);
    }

    #[test]
    fn a_torn_tail_recovers_every_complete_record() {
        let recs = sample();
        let (_, data) = write_log(&recs);
        for cut in [data.len() - 1, data.len() - 3, data.len() - 10] {
            let (got, outcome) = read_all(&data[..cut]);
            assert_eq!(got, recs[..recs.len() - 1].to_vec());
            assert!(
                matches!(outcome, ReadOutcome::TornTail { .. }),
                "{outcome:?}"
            );
        }
    }

    #[test]
    fn a_complete_last_record_with_a_bad_checksum_is_not_a_truncation() {
        let recs = sample();
        let (_, mut data) = write_log(&recs);
        let n = data.len();
        data[n - 2] ^= 1; // inside "tail", the last record, which is complete
        let (got, outcome) = read_all(&data);
        assert_eq!(got, recs[..recs.len() - 1].to_vec());
        assert!(
            matches!(
                outcome,
                ReadOutcome::TornTail {
                    truncated: false,
                    ..
                }
            ),
            "{outcome:?}"
        );
    }

    #[test]
    fn damage_followed_by_valid_records_is_corruption() {
        let recs = sample();
        let (_, mut data) = write_log(&recs);
        data[HEADER_SIZE + 1] ^= 0x10; // inside "small", the first record
        let (got, outcome) = read_all(&data);
        assert!(got.is_empty());
        assert!(
            matches!(outcome, ReadOutcome::Corruption { offset: 0, .. }),
            "{outcome:?}"
        );
    }

    #[test]
    fn every_bit_flip_gives_a_prefix_and_never_a_wrong_record() {
        let recs = vec![b"alpha".to_vec(), vec![3u8; 300], b"omega".to_vec()];
        let (_, data) = write_log(&recs);
        for i in 0..data.len() {
            for bit in [0, 3, 7] {
                let mut d = data.clone();
                d[i] ^= 1 << bit;
                let (got, _) = read_all(&d);
                assert!(got.len() <= recs.len());
                assert_eq!(got[..], recs[..got.len()], "flip at {i} bit {bit}");
            }
        }
    }
}
