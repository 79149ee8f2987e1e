//! A Standard Ribbon filter with 128-bit coefficient rows, in the manner of RocksDB's
//! Standard128Ribbon (Dillinger & Walzer, "Ribbon filter: practically smaller than Bloom and
//! Xor", 2021).
//!
//! # How it works
//! A Ribbon filter stores a solution `S` (a `num_slots × r` bit matrix) of the linear system over
//! GF(2) that has one equation per key: `row(key) · S = fingerprint(key)`, where `row(key)` is a
//! random 128-bit coefficient vector placed at a random start slot, and `fingerprint(key)` is `r`
//! random bits. A lookup recomputes `row · S` and compares it with the fingerprint: a key of the
//! set always matches, a foreign key matches with probability 2^-r. Unlike Bloom, whose space per
//! key is 1.44·log2(1/fpr) bits, Ribbon needs about `(1 + ε)·log2(1/fpr)` bits, ε a few percent.
//!
//! - **Banding** (construction, part 1): each key's row is reduced on the fly against the rows
//!   already stored (Gaussian elimination restricted to a band of width 128), until its leading
//!   bit lands in an empty slot. A row that reduces to zero with a non-zero result means the
//!   system is unsolvable for this hashing; the build retries with the next seed (the seed
//!   remixes every hash) and, after [`MAX_SEEDS`] failures, writes a Bloom block instead.
//! - **Back-substitution** (construction, part 2): the upper-triangular band is solved from the
//!   last slot to the first, free slots set to zero, straight into the *interleaved* layout:
//!   slots are grouped in blocks of 128, and a block stores one 128-bit word per result column
//!   (bit `k` of word `j` is column `j` of slot `128·block + k`). A lookup then reads
//!   `columns` words of the key's start block and of the next block, and computes each result
//!   bit as the parity of two masked words.
//! - **Fractional bits**: the blocks `< upper_start` keep `upper_columns − 1` columns, the later
//!   ones `upper_columns`. Mixing the two in the right proportion hits any target FPR between
//!   2^-(u) and 2^-(u−1), not just powers of two. Columns never decrease from one block to the
//!   next, so the next block always holds the columns a lookup needs.
//!
//! # Bloom-equivalent bits per key
//! As in RocksDB, `bits_per_key` names the Bloom filter whose FPR Ribbon should match: the target
//! is [`cache_local_fpr`](super::bloom::cache_local_fpr) of that many bits with the chosen probe
//! count, and Ribbon spends what that FPR needs plus spare slack that makes construction
//! cheaper, within 72 % of Bloom's bytes ([`SPARE_SLACK_BYTES_SHARE`]). Block format and
//! measurements: `docs/filters.md`.

use super::bloom::BloomPolicy;
use super::{put_trailer_header, FilterPolicy, KIND_RIBBON};

mod banding;
mod reader;
mod solve;
#[cfg(test)]
mod tests;

use banding::Banding;
pub(crate) use reader::RibbonReader;

/// Coefficient width and block size, in slots: one `u128` row, one `u128` word per column.
const WIDTH: usize = 128;
/// Bytes of one solution word.
const WORD_BYTES: usize = WIDTH / 8;
/// At most this many result columns: the fingerprint is a `u32`. 2^-32 is a false-positive rate
/// Bloom reaches only past about 60 bits per key; beyond that the cap binds.
pub const MAX_COLUMNS: u32 = 32;
/// Seeds tried before giving up on Ribbon and writing a Bloom block. With the slot overhead of
/// [`num_blocks_for`] one seed fails rarely (well under 10 %), so 8 failures in a row do not
/// happen in practice; the bound only keeps a pathological input from looping.
pub const MAX_SEEDS: u32 = 8;
/// Bytes of the Ribbon parameters before the common trailer:
/// num_blocks (u32), upper_start (u32), upper_columns (u8), seed (u8).
const PARAM_LEN: usize = 4 + 4 + 1 + 1;

/// The hash a seed bands with. Seed 0, which succeeds in about 95 % of builds, uses the key
/// hash as it is: xxh3 is already a full-avalanche hash, and skipping the remix takes a chain of
/// three dependent multiplies off every lookup. Later seeds remix the hash with Stafford's
/// "Mix13" finaliser of SplitMix64, a bijection, so each seed gives an independent hashing.
#[inline(always)]
fn remix(hash: u64, seed: u32) -> u64 {
    if seed == 0 {
        return hash;
    }
    // The seed offset is the 64-bit golden-ratio increment of SplitMix64: distinct seeds land
    // far apart before mixing.
    let mut x = hash ^ (seed as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The first slot of the key's row: multiply-shift range reduction of the high bits of `x`.
#[inline(always)]
fn start_of(x: u64, num_starts: u64) -> usize {
    ((x as u128 * num_starts as u128) >> 64) as usize
}

/// The key's 128 coefficient bits, bit 0 (the start slot) forced on so every row has a pivot.
///
/// A 64×128-bit multiply by an odd 128-bit constant spreads `x` over 128 bits; the low bits,
/// which matter most for elimination, come from the low bits of `x`, unrelated to the start
/// (chosen by the high bits).
#[inline(always)]
fn coeff_of(x: u64) -> u128 {
    // Odd, with dense and irregular bits (the first 32 hex digits of the fractional part of π).
    const K: u128 = 0x243F_6A88_85A3_08D3_1319_8A2E_0370_7345;
    (x as u128).wrapping_mul(K) | 1
}

/// The key's fingerprint: 32 bits of a second multiply of a rotated `x`, unrelated to the
/// start and the coefficients; a block with `c` columns compares the low `c` bits.
#[inline(always)]
fn fingerprint_of(x: u64) -> u32 {
    // An odd multiplier with good bit spread (the MurmurHash3 64-bit finaliser's first constant).
    (x.rotate_left(29).wrapping_mul(0xFF51_AFD7_ED55_8CCD) >> 32) as u32
}

/// The low `columns` bits set.
#[inline(always)]
fn column_mask(columns: u32) -> u32 {
    ((1u64 << columns) - 1) as u32
}

/// Parity of the set bits of a 128-bit word.
#[inline(always)]
fn parity(v: u128) -> u32 {
    ((v as u64) ^ ((v >> 64) as u64)).count_ones() & 1
}

/// Slots per key, minus one, to allocate so that banding succeeds with one seed in about 95 % of
/// builds or more. Standard Ribbon fails when some stretch of the band gets more keys than
/// slots; that needs a little slack, more for more keys (longer bands have larger local
/// excesses). Measured with `ribbon_failure_rate_by_overhead` (an ignored test below): one seed
/// fails in about 3 % of builds at 3k keys with 2 % slack, 30k with 3.5 %, 100k with 4.2 %,
/// 300k–1M with 4.7 %, and in 0 of 24 at 1M with 5 %. Small sets need about 2 %.
pub fn slot_overhead(num_keys: usize) -> f64 {
    let lg = (num_keys.max(1) as f64).log2();
    // From 4k keys the need grows by 0.45 % per doubling; past 2^18 it levels off (0.15 % per
    // doubling keeps a margin for tables larger than measured).
    let eps = if lg <= 18.0 {
        0.0045 * lg - 0.032
    } else {
        0.049 + 0.0015 * (lg - 18.0)
    };
    eps.clamp(0.022, 0.08)
}

/// Slots added to every filter whatever its size: with a single block all keys share one start
/// and 128 slots, and the chance that `n` random rows are dependent is about 2^-(128 − n), so a
/// few spare slots keep tiny filters as reliable as large ones.
const EXTRA_SLOTS: f64 = 6.0;

/// Spare slack is added only while the Ribbon block stays within this share of the Bloom
/// block's bytes: the space target is 72 % of Bloom's bytes at the same false-positive rate
/// (RocksDB's Standard128Ribbon measures 71.0 % at 10 bits per key on 1M keys). The budget is
/// computed from the exact block lengths for each key count, so it needs no margin for
/// rounding. Where the minimum slack alone already needs more (below about 9 Bloom bits per
/// key: 73.3 % at 5 and 72.0 % at 7 with 100k keys), no spare is added. At 100k keys the
/// minimum slack (4.3 %) gives 71 %, 68 %, 65 % at 10, 15, 20 bits per key; the spare then
/// brings the slack to 6.2 %, 10.3 % and 15.3 % (the 12 % cap on spare blocks at 20, and
/// beyond). A share of 74.5 % (the earlier setting) buys about 1.5 fewer
/// elimination steps per key at 10 bits per key for 2.5 points of memory;
/// [`RibbonPolicy::with_bytes_share`] chooses another trade.
pub const SPARE_SLACK_BYTES_SHARE: f64 = 0.72;

/// At most this many spare blocks per needed block: past about 12 % the steps saved per slot
/// added fall off (3.5 steps per key at 12 %, 3.1 at 15 %), while the back-substitution and
/// the memory grow with every slot.
const MAX_SPARE_SLACK: f64 = 0.12;

/// Blocks of 128 slots for `num_keys` keys.
pub fn num_blocks_for(num_keys: usize) -> usize {
    let slots = num_keys as f64 * (1.0 + slot_overhead(num_keys)) + EXTRA_SLOTS;
    ((slots / WIDTH as f64).ceil() as usize).max(1)
}

/// The shape of a Ribbon solution: blocks, and how many columns each has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    num_blocks: usize,
    /// Columns of the blocks at and after `upper_start`; the earlier ones have one fewer.
    upper_columns: u32,
    upper_start: usize,
}

impl Layout {
    fn num_slots(&self) -> usize {
        self.num_blocks * WIDTH
    }

    /// Start slots: a row of 128 bits starting at slot `s` must end by the last slot.
    fn num_starts(&self) -> u64 {
        (self.num_slots() - (WIDTH - 1)) as u64
    }

    fn columns(&self, block: usize) -> u32 {
        self.upper_columns - (block < self.upper_start) as u32
    }

    /// Index of the first word of `block` in the interleaved solution.
    fn word_offset(&self, block: usize) -> usize {
        block * self.upper_columns as usize - block.min(self.upper_start)
    }

    fn num_words(&self) -> usize {
        self.word_offset(self.num_blocks)
    }

    fn block_len(&self) -> usize {
        self.num_words() * WORD_BYTES + PARAM_LEN + super::TRAILER_LEN
    }
}

/// Builds Ribbon filter blocks (Bloom blocks when Bloom is smaller or Ribbon cannot be built).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RibbonPolicy {
    bits_per_key: f64,
    /// Spare slack is added while the block stays within this share of Bloom's bytes.
    bytes_share: f64,
    target_fpr: f64,
    upper_columns: u32,
    /// Share of the blocks (where keys start) that get `upper_columns` columns.
    upper_share: f64,
    bloom: BloomPolicy,
}

impl RibbonPolicy {
    /// A policy matching the FPR of a Bloom filter with `bits_per_key` bits per key (> 0),
    /// within [`SPARE_SLACK_BYTES_SHARE`] of its bytes where the minimum slack allows.
    pub fn new(bits_per_key: f64) -> RibbonPolicy {
        RibbonPolicy::with_bytes_share(bits_per_key, SPARE_SLACK_BYTES_SHARE)
    }

    /// [`RibbonPolicy::new`] adding spare slack while the block stays within `bytes_share` of
    /// the Bloom block's bytes (0 or less: never). The FPR is the same at every share; more
    /// share buys fewer elimination steps per key (faster construction) with memory. For
    /// studies of that trade; the blocks read like any other.
    pub fn with_bytes_share(bits_per_key: f64, bytes_share: f64) -> RibbonPolicy {
        let bloom = BloomPolicy::new(bits_per_key);
        let target_fpr = bloom.expected_fpr().clamp(f64::MIN_POSITIVE, 1.0);
        let bits = -target_fpr.log2();
        let upper_columns = (bits.ceil() as u32).clamp(1, MAX_COLUMNS);
        // A key in a block of c columns matches falsely with probability 2^-c; the share q of
        // upper blocks solves q·2^-u + (1 − q)·2^-(u−1) = target.
        let upper_share = if bits >= MAX_COLUMNS as f64 {
            1.0
        } else {
            (2.0 - target_fpr * (upper_columns as f64).exp2()).clamp(0.0, 1.0)
        };
        RibbonPolicy {
            bits_per_key,
            bytes_share,
            target_fpr,
            upper_columns,
            upper_share,
            bloom,
        }
    }

    /// The Bloom-equivalent bits per key the policy was made with.
    pub fn bits_per_key(&self) -> f64 {
        self.bits_per_key
    }

    /// The false-positive rate the policy aims at (that of the equivalent Bloom filter).
    pub fn target_fpr(&self) -> f64 {
        self.target_fpr
    }

    /// The layout for `num_keys` keys: the blocks [`num_blocks_for`] needs, plus spare blocks
    /// while the block stays within the policy's share of the Bloom block's bytes
    /// ([`SPARE_SLACK_BYTES_SHARE`] unless made [`RibbonPolicy::with_bytes_share`]).
    ///
    /// Slack beyond what banding needs makes it cheaper: a row is reduced once per occupied
    /// slot it meets before a free one, and the stretch of occupied slots ahead of the rows
    /// being added shrinks fast with slack. Measured at 100k keys (`steps_by_slack`): 7.7
    /// elimination steps per key at 4.3 % slack, 5.7 at 6 %, 3.9 at 10 %, 3.1 at 15 %. The
    /// column mix is shared out over the new block count, so the FPR does not change.
    fn layout(&self, num_keys: usize) -> Layout {
        let base = num_blocks_for(num_keys);
        let layout = self.layout_with_blocks(base);
        let budget = self.bytes_share * self.bloom.block_len(num_keys) as f64;
        let spare_bytes = budget - layout.block_len() as f64;
        // A block costs at most `upper_columns` words.
        let block_bytes = (self.upper_columns as usize * WORD_BYTES) as f64;
        let cap = (base as f64 * MAX_SPARE_SLACK).floor();
        let spare = (spare_bytes / block_bytes).floor().clamp(0.0, cap) as usize;
        if spare == 0 {
            return layout;
        }
        self.layout_with_blocks(base + spare)
    }

    /// The layout over `num_blocks` (≥ 1) blocks, columns shared out to hit the target FPR.
    fn layout_with_blocks(&self, num_blocks: usize) -> Layout {
        // Keys start in the first num_blocks − 1 blocks (the last one only holds the tails of
        // rows, but for a single start), so the share applies to those.
        let upper = (self.upper_share * (num_blocks - 1) as f64).round() as usize;
        let upper_start = if num_blocks == 1 {
            (self.upper_share < 0.5) as usize
        } else {
            num_blocks - 1 - upper
        };
        Layout {
            num_blocks,
            upper_columns: self.upper_columns,
            upper_start,
        }
    }

    /// Bytes of a Ribbon block for `num_keys` keys (> 0), were Ribbon chosen.
    pub fn ribbon_block_len(&self, num_keys: usize) -> usize {
        self.layout(num_keys).block_len()
    }

    /// Bytes of the block [`FilterPolicy::build`] writes for `num_keys` distinct keys: the
    /// smaller of Ribbon and Bloom (Bloom also if Ribbon construction failed).
    pub fn block_len(&self, num_keys: usize) -> usize {
        self.ribbon_block_len(num_keys)
            .min(self.bloom.block_len(num_keys))
    }

    /// Tries to build a Ribbon block; `None` when every seed failed.
    pub fn try_build_ribbon(&self, hashes: &[u64]) -> Option<Vec<u8>> {
        self.try_build_with(hashes, self.layout(hashes.len()), MAX_SEEDS)
    }

    /// Tries seeds `0..seeds` on `layout`; the block of the first that bands.
    fn try_build_with(&self, hashes: &[u64], layout: Layout, seeds: u32) -> Option<Vec<u8>> {
        let mut banding = Banding::new(layout);
        for seed in 0..seeds {
            if banding.add_all(hashes, seed) {
                return Some(banding.solve(seed, hashes.len()));
            }
        }
        None
    }

    /// Ribbon on `layout`, or Bloom when no seed bands.
    fn build_with(&self, hashes: &[u64], layout: Layout) -> Vec<u8> {
        match self.try_build_with(hashes, layout, MAX_SEEDS) {
            Some(block) => block,
            None => self.bloom.build(hashes),
        }
    }
}

impl FilterPolicy for RibbonPolicy {
    fn name(&self) -> &'static str {
        "ribbon"
    }

    fn build(&self, hashes: &[u64]) -> Vec<u8> {
        if hashes.is_empty() {
            return super::empty_block();
        }
        // Tiny filters: Ribbon's 128-slot granularity can cost more than Bloom's 64-byte lines.
        if self.bloom.block_len(hashes.len()) <= self.ribbon_block_len(hashes.len()) {
            return self.bloom.build(hashes);
        }
        let layout = self.layout(hashes.len());
        if layout.num_blocks > u32::MAX as usize {
            // Beyond what the block's 32-bit block count can say (over 5·10^11 keys).
            return self.bloom.build(hashes);
        }
        self.build_with(hashes, layout)
    }
}
