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

/// CRC32C (Castagnoli, reflected polynomial 0x82F63B78) of the one byte `b`, bit by bit, so
/// that the CRC of each fragment type is a constant.
const fn crc32c_of_byte(b: u8) -> u32 {
    let mut crc = !0u32 ^ b as u32;
    let mut i = 0;
    while i < 8 {
        crc = if crc & 1 != 0 {
            (crc >> 1) ^ 0x82F6_3B78
        } else {
            crc >> 1
        };
        i += 1;
    }
    !crc
}

/// The CRC of each fragment type byte (types are 0–4), the start of every fragment's CRC:
/// computing it per record was a second call into the CRC library, a tenth of a WAL append of
/// a 100-byte write.
const KIND_CRC: [u32; 5] = [
    crc32c_of_byte(0),
    crc32c_of_byte(1),
    crc32c_of_byte(2),
    crc32c_of_byte(3),
    crc32c_of_byte(4),
];

fn fragment_crc(kind: u8, payload: &[u8]) -> u32 {
    let start = match KIND_CRC.get(kind as usize) {
        Some(&c) => c,
        None => crate::checksum::crc32c(&[kind]),
    };
    crate::checksum::crc32c_append(start, payload)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::{Env, IoCategory, MemFs};

    #[test]
    fn the_constant_type_crcs_are_the_library_crcs() {
        for kind in 0..=255u8 {
            assert_eq!(
                crc32c_of_byte(kind),
                crate::checksum::crc32c(&[kind]),
                "type byte {kind}"
            );
        }
        assert_eq!(
            fragment_crc(1, b"abc"),
            crate::checksum::crc32c(&[1, b'a', b'b', b'c'])
        );
    }
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
    fn a_last_record_ending_in_zeros_from_a_sector_boundary_is_a_truncation() {
        // One record spanning several sectors, its end zeroed from a sector boundary: the
        // pages of an unsynced append that a power cut lost.
        let recs = vec![b"first".to_vec(), vec![9u8; 3000]];
        let (_, data) = write_log(&recs);
        let mut d = data.clone();
        d[2048..].fill(0);
        let (got, outcome) = read_all(&d);
        assert_eq!(got, recs[..1].to_vec());
        assert!(
            matches!(
                outcome,
                ReadOutcome::TornTail {
                    truncated: true,
                    ..
                }
            ),
            "{outcome:?}"
        );
        // Zeros at the end that start after the last sector boundary: a damaged byte.
        let mut d = data.clone();
        let n = d.len();
        assert_ne!(n % 512, 0);
        d[n - 1] = 0;
        let (_, outcome) = read_all(&d);
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

    /// Offsets of the fragment headers of a single-block log.
    fn headers(data: &[u8]) -> Vec<usize> {
        let mut at = 0;
        let mut out = Vec::new();
        while at + HEADER_SIZE <= data.len() {
            out.push(at);
            at += HEADER_SIZE + u16::from_le_bytes([data[at + 4], data[at + 5]]) as usize;
        }
        out
    }

    fn small() -> Vec<Vec<u8>> {
        (0..8u8).map(|i| vec![i; 20 + i as usize]).collect()
    }

    #[test]
    fn a_complete_last_record_with_a_grown_length_is_corruption() {
        let (_, mut data) = write_log(&small());
        let last = *headers(&data).last().unwrap();
        data[last + 5] ^= 1; // +256 bytes: past the end, as a torn append would look
        let (got, outcome) = read_all(&data);
        assert_eq!(got, small()[..7].to_vec());
        assert!(
            matches!(outcome, ReadOutcome::Corruption { offset, .. } if offset == last as u64),
            "{outcome:?}"
        );
        // A real torn append of the same record is still a torn tail.
        let (_, data) = write_log(&small());
        let (_, outcome) = read_all(&data[..data.len() - 5]);
        assert!(
            matches!(
                outcome,
                ReadOutcome::TornTail {
                    truncated: true,
                    ..
                }
            ),
            "{outcome:?}"
        );
    }

    #[test]
    fn a_damaged_header_followed_by_records_in_its_own_block_is_corruption() {
        let (_, mut data) = write_log(&small());
        let h = headers(&data);
        data[h[5] + 4] ^= 0x08; // the length of record 5: it no longer leads to record 6
        let (got, outcome) = read_all(&data);
        assert_eq!(got, small()[..5].to_vec());
        assert!(
            matches!(outcome, ReadOutcome::Corruption { offset, .. } if offset == h[5] as u64),
            "{outcome:?}"
        );
    }

    #[test]
    fn zeros_to_the_end_are_a_torn_tail_zeros_before_records_are_corruption() {
        let (_, data) = write_log(&small());
        let h = headers(&data);
        // Zeros to the end: the file grew but its last bytes never reached the disk.
        let mut d = data.clone();
        d[h[6]..].fill(0);
        let (got, outcome) = read_all(&d);
        assert_eq!(got, small()[..6].to_vec());
        assert!(
            matches!(
                outcome,
                ReadOutcome::TornTail {
                    truncated: true,
                    ..
                }
            ),
            "{outcome:?}"
        );
        // Zeros before intact records: those records were written whole, and dropping them
        // would lose them; only a crash that lost pages of unsynced writes could explain the
        // zeros, and nothing here tells that apart from damage.
        let mut d = data.clone();
        d[h[3]..h[5]].fill(0);
        let (got, outcome) = read_all(&d);
        assert_eq!(got, small()[..3].to_vec());
        assert!(
            matches!(outcome, ReadOutcome::Corruption { offset, .. } if offset == h[3] as u64),
            "{outcome:?}"
        );
    }

    #[test]
    fn garbage_over_several_records_to_the_end_is_corruption() {
        let (_, data) = write_log(&small());
        let h = headers(&data);
        // From inside record 5 to the end: more than the last record, and not zeros.
        let mut d = data.clone();
        d[h[5] + 9..].fill(0xAB);
        let (got, outcome) = read_all(&d);
        assert_eq!(got, small()[..5].to_vec());
        assert!(
            matches!(outcome, ReadOutcome::Corruption { offset, .. } if offset == h[5] as u64),
            "{outcome:?}"
        );
        // From the header of record 5: a length no writer writes is not a cut-short append.
        let mut d = data.clone();
        d[h[5]..].fill(0xAB);
        let (_, outcome) = read_all(&d);
        assert!(
            matches!(outcome, ReadOutcome::Corruption { offset, .. } if offset == h[5] as u64),
            "{outcome:?}"
        );
    }

    #[test]
    fn skip_damage_resumes_at_the_next_whole_record() {
        let recs = sample();
        let (_, mut data) = write_log(&recs);
        data[HEADER_SIZE + 1] ^= 0x10; // inside "small", the first record
        let mut r = LogReader::new(&data, Path::new("/log"));
        assert!(r.next_record().is_none());
        assert!(matches!(r.outcome(), ReadOutcome::Corruption { .. }));
        assert!(r.skip_damage());
        let mut rest = Vec::new();
        while let Some(rec) = r.next_record() {
            rest.push(rec.to_vec());
        }
        assert_eq!(rest, recs[1..].to_vec());
        assert_eq!(r.outcome(), ReadOutcome::Clean);
        assert!(!r.skip_damage(), "nothing to skip after a clean end");
    }
}
