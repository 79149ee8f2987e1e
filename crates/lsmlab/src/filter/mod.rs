//! The filter seam: one full filter per table, built from the xxh3 hashes of its user keys.
//!
//! A [`FilterPolicy`] builds a self-describing filter block; [`FilterReader::open`] reads any
//! block any policy wrote, so a database written with one filter kind reads correctly after it
//! is reopened with another setting.

use crate::error::{Error, Result};

/// The 64-bit hash every filter is built from and probed with.
#[inline]
pub fn key_hash(user_key: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(user_key)
}

/// Which filter a table gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FilterKind {
    /// Cache-local Bloom filter (RocksDB's FastLocalBloom).
    #[default]
    Bloom,
    /// Standard128 Ribbon filter; `bits_per_key` means Bloom-equivalent bits.
    Ribbon,
}

/// Filter settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FilterOptions {
    /// Bloom-equivalent bits per key; 0 means no filter. Fractions allowed. 10 gives about 1 %
    /// false positives. Default: 0 (RocksDB builds no filter unless asked).
    pub bits_per_key: f64,
    /// Bloom or Ribbon. Default: Bloom.
    pub kind: FilterKind,
    /// With `kind = Ribbon`: tables written to levels below this one get Bloom instead (RocksDB's
    /// `bloom_before_level`; flushes write level 0). −1 = Ribbon everywhere. Default: 0.
    pub bloom_before_level: i32,
}

impl Default for FilterOptions {
    fn default() -> Self {
        FilterOptions {
            bits_per_key: 0.0,
            kind: FilterKind::Bloom,
            bloom_before_level: 0,
        }
    }
}

impl FilterOptions {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        if !(0.0..=100.0).contains(&self.bits_per_key) {
            return Err(Error::InvalidArgument(format!(
                "filter bits_per_key = {}: must be in [0, 100]",
                self.bits_per_key
            )));
        }
        Ok(())
    }

    /// The policy for a table written to `level`, or `None` when no filter is built.
    pub fn policy_for_level(&self, level: usize) -> Option<Box<dyn FilterPolicy>> {
        if self.bits_per_key <= 0.0 {
            return None;
        }
        let _ribbon = self.kind == FilterKind::Ribbon
            && (self.bloom_before_level < 0 || level as i64 >= self.bloom_before_level as i64);
        None
    }
}

/// Builds a filter block from key hashes.
pub trait FilterPolicy: Send + Sync {
    /// Short name, e.g. `"bloom"`.
    fn name(&self) -> &'static str;
    /// The filter block for these hashes (duplicates allowed, any order).
    fn build(&self, hashes: &[u64]) -> Vec<u8>;
}

/// A filter block ready to be probed.
pub struct FilterReader {
    block: Vec<u8>,
}

impl FilterReader {
    /// Parses a filter block; the error text says what is wrong (the caller adds file/offset).
    pub fn open(block: Vec<u8>) -> std::result::Result<FilterReader, String> {
        Err(format!("unknown filter block ({} bytes)", block.len()))
    }
    /// False only if the key with this hash is certainly absent.
    pub fn may_match(&self, _hash: u64) -> bool {
        true
    }
    /// Bytes of memory the filter holds.
    pub fn memory_usage(&self) -> usize {
        self.block.len()
    }
}
