//! Reads the records of a log held in memory, telling a torn tail from corruption.

use super::{fragment_crc, FragmentType, BLOCK_SIZE, HEADER_SIZE};
use std::path::{Path, PathBuf};

/// The smallest unit a disk writes whole: a power cut loses unsynced data in whole sectors.
const SECTOR: usize = 512;

/// How reading a log ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadOutcome {
    /// Every byte was part of a valid record (or block padding).
    Clean,
    /// The log ends in a damaged or incomplete record with nothing valid after it (or with only
    /// zeros between it and valid data: unsynced pages lost in a power cut): the trace of a
    /// crash in the middle of a write. Records before `offset` were returned.
    TornTail {
        /// Offset of the first byte not recovered.
        offset: u64,
        /// The last record is cut short by the end of the file, or the file ends in zeros
        /// from a sector boundary inside it (pages of an unsynced append lost in a power cut):
        /// the damage a crash during an append leaves. False when the last record is complete
        /// and fails its checksum with no such zeros: it was written whole and damaged
        /// afterwards, and the write it holds may have been acknowledged.
        truncated: bool,
    },
    /// A damaged record is followed by valid ones: the file was corrupted after it was written.
    Corruption {
        /// The log file.
        file: PathBuf,
        /// Offset of the first damaged fragment.
        offset: u64,
        /// What was wrong.
        message: String,
    },
}

/// Iterates over the records of a log.
pub struct LogReader<'a> {
    data: &'a [u8],
    path: PathBuf,
    pos: usize,
    scratch: Vec<u8>,
    outcome: Option<ReadOutcome>,
    /// Where the last damage found starts.
    damage_at: Option<usize>,
}

enum Fragment<'a> {
    Ok(FragmentType, &'a [u8]),
    /// The zero-filled tail of a block, too short for a header.
    Padding,
    Bad(&'static str),
    End,
}

impl<'a> LogReader<'a> {
    /// A reader over the whole content of a log file.
    pub fn new(data: &'a [u8], path: &Path) -> LogReader<'a> {
        LogReader {
            data,
            path: path.to_path_buf(),
            pos: 0,
            scratch: Vec::new(),
            outcome: None,
            damage_at: None,
        }
    }

    /// Offset just past the last record returned.
    pub fn position(&self) -> u64 {
        self.pos as u64
    }

    fn read_fragment(&self, at: usize) -> (Fragment<'a>, usize) {
        let block_left = BLOCK_SIZE - at % BLOCK_SIZE;
        if at >= self.data.len() {
            return (Fragment::End, at);
        }
        if block_left < HEADER_SIZE {
            return (Fragment::Padding, at + block_left);
        }
        let Some(h) = self.data.get(at..at + HEADER_SIZE) else {
            return (Fragment::Bad("truncated fragment header"), at);
        };
        let len = u16::from_le_bytes([h[4], h[5]]) as usize;
        let kind = h[6];
        if h.iter().all(|&b| b == 0) {
            // Writers pad only block tails too short for a header: zeros here are bytes that
            // were never written.
            return (
                Fragment::Bad("zeroed bytes where a fragment should start"),
                at,
            );
        }
        if HEADER_SIZE + len > block_left {
            return (Fragment::Bad("fragment crosses its block"), at);
        }
        let Some(payload) = self.data.get(at + HEADER_SIZE..at + HEADER_SIZE + len) else {
            return (Fragment::Bad("truncated fragment"), at);
        };
        let crc = u32::from_le_bytes([h[0], h[1], h[2], h[3]]);
        if crc != fragment_crc(kind, payload) {
            return (Fragment::Bad("checksum mismatch"), at);
        }
        match FragmentType::from_u8(kind) {
            Some(t) => (Fragment::Ok(t, payload), at + HEADER_SIZE + len),
            None => (Fragment::Bad("unknown fragment type"), at),
        }
    }

    /// The next whole record, or `None` at the end or at the first damage (see [`outcome`]).
    ///
    /// [`outcome`]: LogReader::outcome
    pub fn next_record(&mut self) -> Option<&[u8]> {
        if self.outcome.is_some() {
            return None;
        }
        let start = self.pos;
        let mut at = self.pos;
        let mut in_record = false;
        self.scratch.clear();
        loop {
            let (frag, next) = self.read_fragment(at);
            match frag {
                Fragment::End => {
                    self.outcome = Some(if in_record {
                        ReadOutcome::TornTail {
                            offset: start as u64,
                            truncated: true,
                        }
                    } else {
                        ReadOutcome::Clean
                    });
                    return None;
                }
                // Padding ends a block only between records; inside one it is damage.
                Fragment::Padding if in_record => {
                    self.fail(start, "padding inside a record", at);
                    return None;
                }
                Fragment::Padding => at = next,
                Fragment::Bad(why) => {
                    self.fail(start, why, next);
                    return None;
                }
                Fragment::Ok(t, payload) => {
                    let ok = match t {
                        FragmentType::Full | FragmentType::First => !in_record,
                        FragmentType::Middle | FragmentType::Last => in_record,
                    };
                    if !ok {
                        self.fail(start, "fragment out of sequence", at);
                        return None;
                    }
                    self.scratch.extend_from_slice(payload);
                    at = next;
                    match t {
                        FragmentType::Full | FragmentType::Last => {
                            self.pos = at;
                            return Some(&self.scratch);
                        }
                        _ => in_record = true,
                    }
                }
            }
        }
    }

    /// Decides between torn tail and damage for a bad fragment at `bad_at` in the record that
    /// starts at `start`. Logs are only ever appended to, so a crash can leave just one trace:
    /// the end of the file is missing or, for unsynced pages after a power cut, reads as zeros.
    /// So the damage is a torn tail only if no valid fragment follows it anywhere (wherever it
    /// lies relative to the block boundaries) and the file ends in one of the ways an
    /// interrupted append ends it: the bad fragment runs past the end of the file, only zeros
    /// follow from it, or it is the last fragment (complete, failing its checksum) with only
    /// zeros after it. Anything else was written whole and damaged afterwards. The last of
    /// these is a cut (`truncated`) only if the file ends in zeros from a sector boundary;
    /// otherwise the record was whole, and the caller counts what it drops.
    fn fail(&mut self, start: usize, why: &str, bad_at: usize) {
        self.damage_at = Some(bad_at);
        let rest = self.data.get(bad_at..).unwrap_or_default();
        let hole = rest.iter().take(HEADER_SIZE).all(|&b| b == 0);
        let torn = if self.complete_with_damaged_length(bad_at) {
            Err("fragment length does not match its complete, checksummed payload".to_string())
        } else if let Some(next) = self.find_fragment(bad_at + 1, |_| true) {
            Err(if hole {
                format!("zeroed bytes where a fragment should start, yet a valid fragment follows at offset {next}")
            } else {
                format!("{why}, yet a valid fragment follows at offset {next}")
            })
        } else if rest.iter().all(|&b| b == 0) {
            // The file was extended but its last bytes never written: an interrupted append.
            Ok(true)
        } else if !hole && self.cut_by_the_end(bad_at) {
            // The append of the last fragment was cut short.
            Ok(true)
        } else if !hole && self.last_fragment_then_zeros(bad_at) {
            // The last fragment is whole but fails its checksum. Zeros from a sector boundary
            // to the end are pages of an unsynced append lost in a power cut; otherwise the
            // record was written whole and damaged afterwards.
            Ok(self.zeros_from_a_sector(bad_at))
        } else {
            Err(format!(
                "{why}, and the bytes after it are neither records nor zeros (a crash leaves neither)"
            ))
        };
        self.outcome = Some(match torn {
            Ok(truncated) => ReadOutcome::TornTail {
                offset: start as u64,
                truncated,
            },
            Err(message) => ReadOutcome::Corruption {
                file: self.path.clone(),
                offset: start as u64,
                message,
            },
        });
    }

    /// True if the fragment at `at` has a header a writer could have written (a known type, a
    /// length within its block), lies whole inside the file, and is followed only by zeros.
    fn last_fragment_then_zeros(&self, at: usize) -> bool {
        let Some(h) = self.data.get(at..at + HEADER_SIZE) else {
            return false;
        };
        let len = u16::from_le_bytes([h[4], h[5]]) as usize;
        let end = at + HEADER_SIZE + len;
        FragmentType::from_u8(h[6]).is_some()
            && end <= (at / BLOCK_SIZE + 1) * BLOCK_SIZE
            && self
                .data
                .get(end..)
                .is_some_and(|tail| tail.iter().all(|&b| b == 0))
    }

    /// True if the file ends in zeros that start at or before a sector boundary past `at`
    /// (and before the end). A power cut loses whole sectors of unsynced data, so a lost
    /// stretch inside a record begins at a sector boundary; a flipped byte that happens to
    /// read as zero at the end of the file rarely does.
    fn zeros_from_a_sector(&self, at: usize) -> bool {
        let len = self.data.len();
        let zeros_from = len - self.data.iter().rev().take_while(|&&b| b == 0).count();
        let boundary = zeros_from.max(at + 1).next_multiple_of(SECTOR);
        boundary < len
    }

    /// True if the fragment at `at` claims more bytes than its block or the file holds, yet its
    /// checksum matches the bytes that are there: the record was written whole and only its
    /// length was damaged (a crash cuts the payload, never the length).
    fn complete_with_damaged_length(&self, at: usize) -> bool {
        let Some(h) = self.data.get(at..at + HEADER_SIZE) else {
            return false;
        };
        let len = u16::from_le_bytes([h[4], h[5]]) as usize;
        let block_end = (at / BLOCK_SIZE + 1) * BLOCK_SIZE;
        let end = block_end.min(self.data.len());
        if at + HEADER_SIZE + len <= end || FragmentType::from_u8(h[6]).is_none() {
            return false;
        }
        let crc = u32::from_le_bytes([h[0], h[1], h[2], h[3]]);
        // The record may be followed by the zero padding of its block's short tail.
        let mut payload_end = end;
        for _ in 0..HEADER_SIZE {
            if payload_end < at + HEADER_SIZE {
                break;
            }
            if fragment_crc(h[6], &self.data[at + HEADER_SIZE..payload_end]) == crc {
                return true;
            }
            if payload_end == at + HEADER_SIZE || self.data[payload_end - 1] != 0 {
                break;
            }
            payload_end -= 1;
        }
        false
    }

    /// Offset of the first valid fragment at or after `from` whose type `want` accepts.
    ///
    /// From `from` to the end of its block every offset is tried (a damaged header hides where
    /// the next fragment starts; a chance match needs a CRC32C collision). Later blocks are
    /// walked fragment by fragment from their start, where a fragment always begins; where a
    /// walk meets a bad fragment (damage that runs on across a block boundary, or starts in a
    /// later block), every offset after it in that block is tried again. So valid data after
    /// damage is found wherever the damage lies relative to the block boundaries.
    fn find_fragment(&self, from: usize, want: impl Fn(FragmentType) -> bool) -> Option<usize> {
        let mut p = from;
        let mut scan = true;
        while p < self.data.len() {
            let block_end = (p / BLOCK_SIZE + 1) * BLOCK_SIZE;
            if scan {
                scan = false;
                let last = block_end.min(self.data.len()).saturating_sub(HEADER_SIZE);
                p = (p..=last)
                    .find(|&q| self.plausible_header(q) && self.valid_at(q))
                    .unwrap_or(block_end);
                continue;
            }
            match self.read_fragment(p) {
                (Fragment::Ok(t, _), _) if want(t) => return Some(p),
                (Fragment::Ok(..) | Fragment::Padding, next) => p = next,
                (Fragment::End, _) => return None,
                (Fragment::Bad(_), _) => {
                    p += 1;
                    scan = true;
                }
            }
        }
        None
    }

    /// A cheap test before the checksum when every offset of a block is tried: a known type
    /// and a length within the block.
    fn plausible_header(&self, at: usize) -> bool {
        self.data.get(at..at + HEADER_SIZE).is_some_and(|h| {
            (1..=4).contains(&h[6])
                && HEADER_SIZE + u16::from_le_bytes([h[4], h[5]]) as usize
                    <= BLOCK_SIZE - at % BLOCK_SIZE
        })
    }

    fn valid_at(&self, at: usize) -> bool {
        matches!(self.read_fragment(at).0, Fragment::Ok(..))
    }

    /// Whole records from the current position to the end, going on after every damaged
    /// stretch: how many valid records a stop here would drop. Consumes the reader.
    pub fn count_records_to_end(&mut self) -> u64 {
        let mut n = 0;
        loop {
            while self.next_record().is_some() {
                n += 1;
            }
            if !self.skip_damage() {
                return n;
            }
        }
    }

    /// After damage or a torn tail, moves on to the next record that starts after the damage,
    /// for recovery modes that skip damaged records or count what a stop drops. False if no
    /// record starts after it.
    pub fn skip_damage(&mut self) -> bool {
        let Some(bad_at) = self.damage_at.take() else {
            return false;
        };
        match self.find_fragment(bad_at + 1, |t| {
            matches!(t, FragmentType::Full | FragmentType::First)
        }) {
            Some(next) => {
                self.pos = next;
                self.outcome = None;
                true
            }
            None => false,
        }
    }

    /// True if the fragment at `at` is what an append cut short by the end of the file leaves:
    /// its header is cut, or it is a header a writer could have written (a known type, a
    /// length within its block) whose payload runs past the end of the file.
    fn cut_by_the_end(&self, at: usize) -> bool {
        match self.data.get(at..at + HEADER_SIZE) {
            None => true,
            Some(h) => {
                let end = at + HEADER_SIZE + u16::from_le_bytes([h[4], h[5]]) as usize;
                FragmentType::from_u8(h[6]).is_some()
                    && end <= (at / BLOCK_SIZE + 1) * BLOCK_SIZE
                    && end > self.data.len()
            }
        }
    }

    /// How reading ended; `Clean` until the end is reached.
    pub fn outcome(&self) -> ReadOutcome {
        self.outcome.clone().unwrap_or(ReadOutcome::Clean)
    }
}
