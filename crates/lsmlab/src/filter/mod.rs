//! The filter seam: one full filter per table, built from the xxh3 hashes of its user keys.
//!
//! A [`FilterPolicy`] builds a self-describing filter block; [`FilterReader::open`] reads any
//! block any policy wrote, so a database written with one filter kind reads correctly after it
//! is reopened with another setting.
//!
//! A filter of no key (an empty table) is an [`empty`](FilterReader::num_keys) block that
//! answers "absent" to every probe: with no key in the table there is nothing to find.

pub mod bloom;
pub mod ribbon;

use crate::error::{Error, Result};
use bloom::{BloomPolicy, BloomReader};
use ribbon::{RibbonPolicy, RibbonReader};

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

    /// The kind of filter a table written to `level` gets, or `None` when no filter is built.
    ///
    /// With `kind = Ribbon`, levels below `bloom_before_level` get Bloom (they are rewritten
    /// soon, so Bloom's cheaper construction wins there) and the rest Ribbon (long-lived, so its
    /// memory saving wins); −1 means Ribbon everywhere. Flushes write level 0.
    pub fn kind_for_level(&self, level: usize) -> Option<FilterKind> {
        if self.bits_per_key <= 0.0 || self.bits_per_key.is_nan() {
            return None;
        }
        let ribbon = self.kind == FilterKind::Ribbon
            && (self.bloom_before_level < 0 || level as i64 >= self.bloom_before_level as i64);
        Some(if ribbon {
            FilterKind::Ribbon
        } else {
            FilterKind::Bloom
        })
    }

    /// The policy for a table written to `level`, or `None` when no filter is built.
    pub fn policy_for_level(&self, level: usize) -> Option<Box<dyn FilterPolicy>> {
        match self.kind_for_level(level)? {
            FilterKind::Bloom => Some(Box::new(BloomPolicy::new(self.bits_per_key))),
            FilterKind::Ribbon => Some(Box::new(RibbonPolicy::new(self.bits_per_key))),
        }
    }
}

/// Builds a filter block from key hashes.
pub trait FilterPolicy: Send + Sync {
    /// Short name, e.g. `"bloom"`.
    fn name(&self) -> &'static str;
    /// The filter block for these hashes (duplicates allowed, any order).
    fn build(&self, hashes: &[u64]) -> Vec<u8>;
}

// Block format: `body | num_keys: u64 LE | kind: u8`. The kind byte, last, says how to read the
// body; each kind's body ends with its own parameters (see `docs/filters.md`).

/// Bytes of the trailer every filter block ends with: key count (u64) and kind (u8).
pub(crate) const TRAILER_LEN: usize = 8 + 1;
/// Kind byte of a filter built from no key: every probe answers "absent".
pub(crate) const KIND_EMPTY: u8 = 0;
/// Kind byte of a cache-local Bloom block ([`bloom`]).
pub(crate) const KIND_BLOOM: u8 = 1;
/// Kind byte of a Standard128 Ribbon block ([`ribbon`]).
pub(crate) const KIND_RIBBON: u8 = 2;

/// Writes the common trailer into `dst` (exactly [`TRAILER_LEN`] bytes).
pub(crate) fn put_trailer_header(dst: &mut [u8], kind: u8, num_keys: usize) {
    dst[..8].copy_from_slice(&(num_keys as u64).to_le_bytes());
    dst[8] = kind;
}

/// The block of a filter built from no key.
pub(crate) fn empty_block() -> Vec<u8> {
    let mut block = vec![0u8; TRAILER_LEN];
    put_trailer_header(&mut block, KIND_EMPTY, 0);
    block
}

/// The parsed filter, by kind.
enum Inner {
    /// No key was added: nothing can match.
    Empty,
    Bloom(BloomReader),
    Ribbon(RibbonReader),
}

/// A filter block ready to be probed; reads blocks of every kind any policy writes.
pub struct FilterReader {
    inner: Inner,
}

impl FilterReader {
    /// Parses a filter block; the error text says what is wrong (the caller adds file/offset).
    ///
    /// Any bytes are safe to pass: a block that is not exactly what a policy writes is an error,
    /// never a panic.
    pub fn open(block: Vec<u8>) -> std::result::Result<FilterReader, String> {
        let Some(body_len) = block.len().checked_sub(TRAILER_LEN) else {
            return Err(format!(
                "filter block of {} bytes is shorter than its {TRAILER_LEN}-byte trailer",
                block.len()
            ));
        };
        let (body, trailer) = block.split_at(body_len);
        let mut n = [0u8; 8];
        n.copy_from_slice(&trailer[..8]);
        let num_keys = u64::from_le_bytes(n);
        let inner = match trailer[8] {
            KIND_EMPTY if body.is_empty() && num_keys == 0 => Inner::Empty,
            KIND_EMPTY => {
                return Err(format!(
                    "empty filter block with {} body bytes and {num_keys} keys",
                    body.len()
                ))
            }
            KIND_BLOOM => Inner::Bloom(BloomReader::open(body, num_keys)?),
            KIND_RIBBON => Inner::Ribbon(RibbonReader::open(body, num_keys)?),
            kind => return Err(format!("unknown filter kind {kind}")),
        };
        Ok(FilterReader { inner })
    }

    /// False only if the key with this hash is certainly absent.
    #[inline]
    pub fn may_match(&self, hash: u64) -> bool {
        match &self.inner {
            Inner::Bloom(r) => r.may_match(hash),
            Inner::Ribbon(r) => r.may_match(hash),
            Inner::Empty => false,
        }
    }

    /// Bytes of memory the filter holds.
    pub fn memory_usage(&self) -> usize {
        std::mem::size_of::<Self>()
            + match &self.inner {
                Inner::Empty => 0,
                Inner::Bloom(r) => r.memory_usage(),
                Inner::Ribbon(r) => r.memory_usage(),
            }
    }

    /// Keys the filter was built from (duplicates counted).
    pub fn num_keys(&self) -> u64 {
        match &self.inner {
            Inner::Empty => 0,
            Inner::Bloom(r) => r.num_keys(),
            Inner::Ribbon(r) => r.num_keys(),
        }
    }

    /// The kind of the block, `None` for a filter of no key.
    pub fn kind(&self) -> Option<FilterKind> {
        match &self.inner {
            Inner::Empty => None,
            Inner::Bloom(_) => Some(FilterKind::Bloom),
            Inner::Ribbon(_) => Some(FilterKind::Ribbon),
        }
    }
}

impl std::fmt::Debug for FilterReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("FilterReader");
        d.field("kind", &self.kind())
            .field("num_keys", &self.num_keys());
        match &self.inner {
            Inner::Bloom(r) => d.field("num_probes", &r.num_probes()),
            Inner::Ribbon(r) => d.field("solution_bytes", &r.solution_bytes()),
            Inner::Empty => &mut d,
        };
        d.finish()
    }
}
