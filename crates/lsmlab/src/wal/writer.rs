//! Appends records to a log.

use super::{fragment_crc, FragmentType, BLOCK_SIZE, HEADER_SIZE};
use crate::env::CountedWritable;
use crate::error::Result;

/// Writes records in the log format.
pub struct LogWriter {
    file: CountedWritable,
    block_offset: usize,
}

impl LogWriter {
    /// A writer appending to an empty file.
    pub fn new(file: CountedWritable) -> LogWriter {
        LogWriter {
            file,
            block_offset: 0,
        }
    }

    /// Appends one record (its fragments), leaving it in the file's buffer.
    pub fn add_record(&mut self, mut data: &[u8]) -> Result<()> {
        let mut first = true;
        loop {
            let left = BLOCK_SIZE - self.block_offset;
            if left < HEADER_SIZE {
                // Too small for a header: pad the block with zeros, as readers expect.
                self.file.append(&[0u8; HEADER_SIZE][..left])?;
                self.block_offset = 0;
            }
            let avail = BLOCK_SIZE - self.block_offset - HEADER_SIZE;
            let n = data.len().min(avail);
            let last = n == data.len();
            let kind = match (first, last) {
                (true, true) => FragmentType::Full,
                (true, false) => FragmentType::First,
                (false, true) => FragmentType::Last,
                (false, false) => FragmentType::Middle,
            };
            self.emit(kind, &data[..n])?;
            data = &data[n..];
            first = false;
            if last {
                return Ok(());
            }
        }
    }

    fn emit(&mut self, kind: FragmentType, payload: &[u8]) -> Result<()> {
        let mut header = [0u8; HEADER_SIZE];
        header[..4].copy_from_slice(&fragment_crc(kind as u8, payload).to_le_bytes());
        // A fragment never exceeds a block, so its length fits 16 bits.
        header[4..6].copy_from_slice(&(payload.len() as u16).to_le_bytes());
        header[6] = kind as u8;
        self.file.append(&header)?;
        self.file.append(payload)?;
        self.block_offset += HEADER_SIZE + payload.len();
        Ok(())
    }

    /// Hands buffered records to the operating system.
    pub fn flush(&mut self) -> Result<()> {
        self.file.flush()
    }

    /// Makes every record durable.
    pub fn sync(&mut self) -> Result<()> {
        self.file.sync()
    }

    /// Bytes written so far.
    pub fn len(&self) -> u64 {
        self.file.len()
    }

    /// True if nothing was written.
    pub fn is_empty(&self) -> bool {
        self.file.is_empty()
    }
}
