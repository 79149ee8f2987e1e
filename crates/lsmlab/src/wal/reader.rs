//! Reads the records of a log held in memory, telling a torn tail from corruption.

use super::{fragment_crc, FragmentType, BLOCK_SIZE, HEADER_SIZE};
use std::path::{Path, PathBuf};

/// How reading a log ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadOutcome {
    /// Every byte was part of a valid record (or block padding).
    Clean,
    /// The log ends in a damaged or incomplete record with nothing valid after it: the trace of
    /// a crash in the middle of a write. Records before `offset` were returned.
    TornTail {
        /// Offset of the first byte not recovered.
        offset: u64,
        /// The last record is cut short by the end of the file — the only damage a crash
        /// during an append leaves. False when it is complete but fails its checksum, which a
        /// crash can explain only for unsynced data (WAL), never for synced data (MANIFEST).
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
}

enum Fragment<'a> {
    Ok(FragmentType, &'a [u8]),
    /// A block's zero padding, or the zero-filled end of a block.
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
        if kind == 0 && len == 0 && h[..4] == [0, 0, 0, 0] {
            // Zero header: the rest of this block was padding.
            return (Fragment::Padding, at + block_left);
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

    /// Decides between torn tail and corruption: does any valid fragment start a record in a
    /// later block?
    fn fail(&mut self, start: usize, why: &str, bad_at: usize) {
        let mut block = (start / BLOCK_SIZE + 1) * BLOCK_SIZE;
        let mut valid_after = false;
        while block < self.data.len() && !valid_after {
            let mut at = block;
            while at < (block + BLOCK_SIZE).min(self.data.len()) {
                match self.read_fragment(at) {
                    (Fragment::Ok(FragmentType::Full | FragmentType::First, _), _) => {
                        valid_after = true;
                        break;
                    }
                    (Fragment::Ok(_, _), next) => at = next,
                    _ => break,
                }
            }
            block += BLOCK_SIZE;
        }
        // A damaged record that is not the last one in its block is corruption too.
        if !valid_after {
            let mut at = start;
            while at < self.data.len() && at / BLOCK_SIZE == start / BLOCK_SIZE {
                match self.read_fragment(at) {
                    (Fragment::Bad(_), _) => {
                        // Skip the damaged fragment by its declared length, if plausible.
                        let len = self
                            .data
                            .get(at + 4..at + 6)
                            .map(|b| u16::from_le_bytes([b[0], b[1]]) as usize)
                            .unwrap_or(usize::MAX);
                        let next = at.saturating_add(HEADER_SIZE).saturating_add(len);
                        if next <= at
                            || next / BLOCK_SIZE != at / BLOCK_SIZE
                            || next >= self.data.len()
                        {
                            break;
                        }
                        if let (Fragment::Ok(FragmentType::Full | FragmentType::First, _), _) =
                            self.read_fragment(next)
                        {
                            valid_after = true;
                        }
                        break;
                    }
                    (Fragment::Ok(_, _), next) => at = next,
                    _ => break,
                }
            }
        }
        self.outcome = Some(if valid_after {
            ReadOutcome::Corruption {
                file: self.path.clone(),
                offset: start as u64,
                message: why.to_string(),
            }
        } else {
            ReadOutcome::TornTail {
                offset: start as u64,
                truncated: self.runs_past_end(bad_at),
            }
        });
    }

    /// True if the fragment at `at` claims more bytes than the file holds.
    fn runs_past_end(&self, at: usize) -> bool {
        match self.data.get(at + 4..at + 6) {
            None => true,
            Some(b) => {
                at + HEADER_SIZE + u16::from_le_bytes([b[0], b[1]]) as usize > self.data.len()
            }
        }
    }

    /// How reading ended; `Clean` until the end is reached.
    pub fn outcome(&self) -> ReadOutcome {
        self.outcome.clone().unwrap_or(ReadOutcome::Clean)
    }
}
