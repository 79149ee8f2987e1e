//! The filter seam: one full filter per table, built from the xxh3 hashes of its user keys.
//!
//! A [`FilterPolicy`] builds a self-describing filter block; [`FilterReader::open`] reads any
//! block any policy wrote, so a database written with one filter kind reads correctly after it
//! is reopened with another setting.
//!
//! - [`bloom`]: cache-local Bloom (RocksDB's FastLocalBloom design), fast to build and probe.
//! - [`ribbon`]: Standard128 Ribbon, about 28 % smaller at the same false-positive rate, several
//!   times slower to build; `bits_per_key` means Bloom-equivalent bits.
//!
//! - [`allocation`]: how the memory is spread across levels (uniform or Monkey's), and
//!   [`levels`]: the bits per key of a table written to a level.
//!
//! A filter built from no key (an empty table) is a 9-byte "empty" block that answers "absent"
//! to every probe: with no key in the table there is nothing to find. The block format and the
//! measurements are in `docs/filters.md`.

pub mod allocation;
pub mod bloom;
pub mod levels;
pub mod ribbon;

pub use allocation::FilterAllocation;
pub use levels::{LiveLevels, TreeEntries};

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
#[derive(Debug, Clone, PartialEq)]
pub struct FilterOptions {
    /// Bloom-equivalent bits per key; 0 means no filter. Fractions allowed. 10 gives about 1 %
    /// false positives. Default: 0 (RocksDB builds no filter unless asked).
    pub bits_per_key: f64,
    /// Bloom or Ribbon. Default: Bloom.
    pub kind: FilterKind,
    /// With `kind = Ribbon`: tables written to levels below this one get Bloom instead (RocksDB's
    /// `bloom_before_level`; a flush counts as level −1, so the default 0 means Bloom for
    /// flushes and Ribbon for every compaction output). −1 = Ribbon everywhere. Default: 0.
    pub bloom_before_level: i32,
    /// Build no filter for tables written to the last level, the deepest that holds data
    /// (RocksDB's `optimize_filters_for_hits`). That level holds most entries (about 90 % in a
    /// leveled tree of ratio 10), so most filter memory goes; a get of a key that exists stops
    /// at its level anyway, and only gets of missing keys pay, one more table read each. Turn
    /// it on when nearly every get finds its key and filter memory matters. Flushes keep
    /// their filters. Default: false (RocksDB).
    pub optimize_filters_for_hits: bool,
    /// Bits per key by level, level 0 first (a flush takes level 0's; levels past the list
    /// take its last entry), overriding `bits_per_key` and `allocation`; an entry of 0 builds
    /// no filter for that level. For studies of filter memory per level, as
    /// `compression_per_level` is for compression (lsmlab's own). Default: empty.
    pub bits_per_key_per_level: Vec<f64>,
    /// How `bits_per_key`'s memory is spread across levels: uniform, or Monkey's allocation,
    /// the same memory with fewer false positives summed over the levels, so fewer table
    /// reads for gets of missing keys (`docs/filters.md`). Monkey sizes each table for the
    /// tree as it stands when the table is written. Default: uniform (RocksDB).
    pub allocation: FilterAllocation,
    /// The entries per level of the tree these options are open on (not a setting: the
    /// database keeps it; see [`LiveLevels`]).
    pub live: LiveLevels,
}

impl Default for FilterOptions {
    fn default() -> Self {
        FilterOptions {
            bits_per_key: 0.0,
            kind: FilterKind::Bloom,
            bloom_before_level: 0,
            optimize_filters_for_hits: false,
            bits_per_key_per_level: Vec::new(),
            allocation: FilterAllocation::Uniform,
            live: LiveLevels::default(),
        }
    }
}

/// Most bits per key a filter is built with.
pub const MAX_BITS_PER_KEY: f64 = 100.0;

/// The level a flush's output counts as when choosing its filter (RocksDB reports flushes as
/// level −1 to its filter policies).
pub const FLUSH_LEVEL: i32 = -1;

impl FilterOptions {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        if !(0.0..=MAX_BITS_PER_KEY).contains(&self.bits_per_key) {
            return Err(Error::invalid_option(
                "filter.bits_per_key",
                self.bits_per_key,
                "must be in [0, 100]",
            ));
        }
        if let Some(b) = self
            .bits_per_key_per_level
            .iter()
            .find(|b| !(0.0..=MAX_BITS_PER_KEY).contains(*b))
        {
            return Err(Error::invalid_option(
                "filter.bits_per_key_per_level",
                b,
                "every entry must be in [0, 100]",
            ));
        }
        if !self.bits_per_key_per_level.is_empty() && self.allocation != FilterAllocation::Uniform {
            return Err(Error::invalid_option(
                "filter.allocation",
                self.allocation.name(),
                "must be uniform when filter.bits_per_key_per_level is set (the list says every level's bits)",
            ));
        }
        Ok(())
    }

    /// The kind of filter a table written to `level` gets, or `None` when no filter is built.
    ///
    /// With `kind = Ribbon`, levels below `bloom_before_level` get Bloom (they are rewritten
    /// soon, so Bloom's cheaper construction wins there) and the rest Ribbon (long-lived, so its
    /// memory saving wins); −1 means Ribbon everywhere. As in RocksDB, a flush counts as level
    /// −1 ([`FLUSH_LEVEL`]): the default 0 gives flushes Bloom and compaction output Ribbon.
    pub fn kind_for_level(&self, level: i32) -> Option<FilterKind> {
        self.kind_with_bits(level, self.bits_for_level(level, &self.live.get()))
    }

    /// The kind for `level` when it gets `bits` bits per key.
    fn kind_with_bits(&self, level: i32, bits: f64) -> Option<FilterKind> {
        if bits <= 0.0 || bits.is_nan() {
            return None;
        }
        let ribbon = self.kind == FilterKind::Ribbon
            && (self.bloom_before_level < 0 || level >= self.bloom_before_level);
        Some(if ribbon {
            FilterKind::Ribbon
        } else {
            FilterKind::Bloom
        })
    }

    /// The policy for a table written to `level`, or `None` when no filter is built; its bits
    /// per key are [`FilterOptions::bits_for_level`]'s for the tree as it stands.
    pub fn policy_for_level(&self, level: i32) -> Option<Box<dyn FilterPolicy>> {
        let bits = self.bits_for_level(level, &self.live.get());
        match self.kind_with_bits(level, bits)? {
            FilterKind::Bloom => Some(Box::new(BloomPolicy::new(bits))),
            FilterKind::Ribbon => Some(Box::new(RibbonPolicy::new(bits))),
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn policy(kind: FilterKind, bits_per_key: f64) -> Box<dyn FilterPolicy> {
        let options = FilterOptions {
            bits_per_key,
            kind,
            bloom_before_level: -1,
            ..FilterOptions::default()
        };
        options.policy_for_level(0).expect("bits_per_key > 0")
    }

    /// Hashes of the keys `"key{i}"` for `i` in `range`: real xxh3 hashes of real keys, so
    /// present and absent sets are disjoint by construction.
    fn key_hashes(range: std::ops::Range<u64>) -> Vec<u64> {
        range
            .map(|i| key_hash(format!("key{i:012}").as_bytes()))
            .collect()
    }

    fn open(block: Vec<u8>) -> FilterReader {
        FilterReader::open(block).expect("a block a policy wrote opens")
    }

    const KINDS: [FilterKind; 2] = [FilterKind::Bloom, FilterKind::Ribbon];

    #[test]
    fn no_false_negatives_for_many_sizes_and_fractional_bits() {
        // 120–135 and 245–260 straddle Ribbon's one- and two-block edges, where slack is least.
        let sizes = [
            0, 1, 2, 3, 7, 64, 100, 120, 122, 123, 124, 127, 128, 129, 135,
        ]
        .into_iter()
        .chain(245..=260)
        .chain([500, 1000, 1747, 4096, 10_000, 100_000]);
        for n in sizes {
            let keys = key_hashes(0..n);
            for bpk in [0.7, 2.5, 5.0, 7.3, 10.0, 15.5, 23.0] {
                for kind in KINDS {
                    let reader = open(policy(kind, bpk).build(&keys));
                    assert_eq!(reader.num_keys(), n);
                    let missed = keys.iter().filter(|&&h| !reader.may_match(h)).count();
                    assert_eq!(missed, 0, "{kind:?} bpk {bpk} n {n}: false negatives");
                }
            }
        }
    }

    #[test]
    fn duplicate_hashes_are_a_consistent_set() {
        // Several versions of one user key in a table give the same hash several times.
        let distinct = key_hashes(0..20_000);
        let keys: Vec<u64> = distinct.iter().flat_map(|&h| [h, h, h]).collect();
        for kind in KINDS {
            let reader = open(policy(kind, 10.0).build(&keys));
            assert_eq!(reader.kind(), Some(kind));
            assert!(distinct.iter().all(|&h| reader.may_match(h)));
        }
    }

    #[test]
    fn zero_key_filter_matches_nothing() {
        for kind in KINDS {
            let block = policy(kind, 10.0).build(&[]);
            let reader = open(block);
            assert_eq!((reader.kind(), reader.num_keys()), (None, 0));
            assert!(key_hashes(0..1000).iter().all(|&h| !reader.may_match(h)));
        }
    }

    /// Measured FPR over `probes` absent keys of a filter of `n` keys.
    fn measured_fpr(reader: &FilterReader, n: u64, probes: u64) -> f64 {
        let absent = (n..n + probes)
            .filter(|&i| reader.may_match(key_hash(format!("key{i:012}").as_bytes())))
            .count();
        absent as f64 / probes as f64
    }

    #[test]
    fn measured_fpr_is_within_15_percent_of_rocksdb() {
        // RocksDB's figures (seed 000, db_bench): (bpk, Bloom FPR, Ribbon FPR).
        let rocksdb = [
            (5.0, 0.0913, 0.09165),
            (10.0, 0.00942, 0.00947),
            (15.0, 0.00119, 0.00122),
            (20.0, 0.000196, 0.000179),
        ];
        let n = 100_000;
        let keys = key_hashes(0..n);
        for (bpk, bloom, ribbon) in rocksdb {
            // At 0.02 % a million probes see ~200 false positives (±7 %): use 4M there.
            let probes = if bpk >= 20.0 { 4_000_000 } else { 1_000_000 };
            for (kind, expected) in [(FilterKind::Bloom, bloom), (FilterKind::Ribbon, ribbon)] {
                let reader = open(policy(kind, bpk).build(&keys));
                assert_eq!(reader.kind(), Some(kind));
                let fpr = measured_fpr(&reader, n, probes);
                assert!(
                    (fpr / expected - 1.0).abs() <= 0.15,
                    "{kind:?} bpk {bpk}: measured FPR {fpr:.6}, RocksDB {expected}"
                );
            }
        }
    }

    #[test]
    fn ribbon_needs_at_most_72_percent_of_bloom_bytes_from_10_bits() {
        // Below about 9 bits per key the minimum slack and the mix of column counts alone
        // need more than 72 % (73.3 % at 5 bits per key with 100k keys; RocksDB's own
        // Ribbon needs 73.7 % there with 1M keys).
        let n = 100_000;
        let keys = key_hashes(0..n);
        for (bpk, share) in [(5.0, 0.735), (10.0, 0.72), (15.0, 0.72), (20.0, 0.72)] {
            let bloom = policy(FilterKind::Bloom, bpk).build(&keys).len();
            let ribbon_block = policy(FilterKind::Ribbon, bpk).build(&keys);
            let ribbon = ribbon_block.len();
            assert_eq!(open(ribbon_block).kind(), Some(FilterKind::Ribbon));
            assert!(
                ribbon as f64 <= share * bloom as f64,
                "bpk {bpk}: ribbon {ribbon} B vs bloom {bloom} B"
            );
        }
    }

    #[test]
    fn blocks_say_their_kind() {
        let keys = key_hashes(0..5000);
        let bloom = open(policy(FilterKind::Bloom, 10.0).build(&keys));
        let ribbon = open(policy(FilterKind::Ribbon, 10.0).build(&keys));
        assert_eq!(bloom.kind(), Some(FilterKind::Bloom));
        assert_eq!(ribbon.kind(), Some(FilterKind::Ribbon));
        assert!(ribbon.memory_usage() < bloom.memory_usage());
        // Too few keys for Ribbon's 128-slot blocks to pay: the Ribbon policy writes Bloom.
        let tiny = open(policy(FilterKind::Ribbon, 10.0).build(&keys[..3]));
        assert_eq!(tiny.kind(), Some(FilterKind::Bloom));
        assert!(keys[..3].iter().all(|&h| tiny.may_match(h)));
    }

    #[test]
    fn policy_by_level_follows_bloom_before_level() {
        let mut o = FilterOptions::default();
        assert!(
            o.policy_for_level(0).is_none(),
            "bits_per_key 0 builds no filter"
        );
        o.bits_per_key = 10.0;
        assert_eq!(o.policy_for_level(3).map(|p| p.name()), Some("bloom"));
        o.kind = FilterKind::Ribbon;
        o.bloom_before_level = 2;
        let names: Vec<_> = (0..4)
            .map(|l| o.policy_for_level(l).map(|p| p.name()))
            .collect();
        assert_eq!(
            names,
            [Some("bloom"), Some("bloom"), Some("ribbon"), Some("ribbon")]
        );
        o.bloom_before_level = -1;
        assert_eq!(o.kind_for_level(FLUSH_LEVEL), Some(FilterKind::Ribbon));
        assert_eq!(o.kind_for_level(0), Some(FilterKind::Ribbon));
        // The default: Bloom for flushes, Ribbon for every compaction output.
        o.bloom_before_level = 0;
        assert_eq!(o.kind_for_level(FLUSH_LEVEL), Some(FilterKind::Bloom));
        assert_eq!(o.kind_for_level(0), Some(FilterKind::Ribbon));
        o.bloom_before_level = i32::MAX;
        assert_eq!(o.kind_for_level(6), Some(FilterKind::Bloom));
    }

    #[test]
    fn damaged_blocks_are_errors() {
        let keys = key_hashes(0..3000);
        for kind in KINDS {
            let block = policy(kind, 10.0).build(&keys);
            // Any truncation, and any growth, breaks the length the parameters imply.
            for cut in [1, 8, 9, 10, 16, block.len() - 1, block.len()] {
                assert!(FilterReader::open(block[..block.len() - cut].to_vec()).is_err());
            }
            let mut longer = block.clone();
            longer.insert(0, 0);
            assert!(
                FilterReader::open(longer).is_err(),
                "{kind:?}: one byte more"
            );
            let mut unknown = block.clone();
            *unknown.last_mut().unwrap() = 0x7F;
            assert!(
                FilterReader::open(unknown).is_err(),
                "{kind:?}: unknown kind"
            );
        }
        // The parameters themselves: zero probes, too many columns, zero blocks.
        let mut bloom = policy(FilterKind::Bloom, 10.0).build(&keys);
        let at = bloom.len() - TRAILER_LEN - 1;
        bloom[at] = 0;
        assert!(FilterReader::open(bloom).is_err());
        let ribbon = policy(FilterKind::Ribbon, 10.0).build(&keys);
        let params = ribbon.len() - TRAILER_LEN - 10;
        let mut cols = ribbon.clone();
        cols[params + 8] = 33;
        assert!(FilterReader::open(cols).is_err());
        let mut blocks = ribbon.clone();
        blocks[params..params + 4].copy_from_slice(&0u32.to_le_bytes());
        assert!(FilterReader::open(blocks).is_err());
        let mut huge = ribbon;
        huge[params..params + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(FilterReader::open(huge).is_err());
        let mut empty = empty_block();
        empty[0] = 1;
        assert!(
            FilterReader::open(empty).is_err(),
            "an empty filter with a key"
        );
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic(block in proptest::collection::vec(any::<u8>(), 0..600),
                                    kind in 0u8..4, probes in proptest::collection::vec(any::<u64>(), 8)) {
            // Steer a share of the inputs onto the real kinds so their parsers are exercised.
            let mut block = block;
            if let Some(last) = block.last_mut() {
                if kind < 3 {
                    *last = kind;
                }
            }
            if let Ok(reader) = FilterReader::open(block) {
                for h in probes {
                    let _ = reader.may_match(h);
                }
                let _ = (reader.memory_usage(), reader.num_keys());
            }
        }

        #[test]
        fn mutated_blocks_never_panic(n in 0u64..400, kind in 0usize..2, pos in any::<usize>(),
                                      byte in any::<u8>(), cut in 0usize..40) {
            let keys = key_hashes(0..n);
            let mut block = policy(KINDS[kind], 6.0).build(&keys);
            let len = block.len();
            block[pos % len] = byte;
            block.truncate(len.saturating_sub(cut));
            if let Ok(reader) = FilterReader::open(block) {
                for h in key_hashes(0..50) {
                    let _ = reader.may_match(h);
                }
            }
        }
    }
}
