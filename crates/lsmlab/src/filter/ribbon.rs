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
//! cheaper, within 74.5 % of Bloom's bytes ([`SPARE_SLACK_BYTES_SHARE`]). Block format and
//! measurements: `docs/filters.md`.

use super::bloom::BloomPolicy;
use super::{put_trailer_header, FilterPolicy, KIND_RIBBON};

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
/// block's bytes. The Ribbon space target is 75 %, and the budget is computed from the exact
/// block lengths for each key count, so it needs no margin for rounding; half a point is kept
/// so that float rounding of the product never lands on the wrong side. At 100k keys and 5,
/// 10, 15, 20 Bloom bits per key the minimum slack gives 73 %, 71 %, 68 %, 65 %: about 2 %
/// more slots at 5, 6 % at 10, the 12 % cap at 15 and 20. (Until the Ribbon construction
/// target was pursued this was 72 %: 2.5 points more memory saved, about 1.5 more elimination
/// steps per key at 10 bits per key.)
pub const SPARE_SLACK_BYTES_SHARE: f64 = 0.745;

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
    target_fpr: f64,
    upper_columns: u32,
    /// Share of the blocks (where keys start) that get `upper_columns` columns.
    upper_share: f64,
    bloom: BloomPolicy,
}

impl RibbonPolicy {
    /// A policy matching the FPR of a Bloom filter with `bits_per_key` bits per key (> 0).
    pub fn new(bits_per_key: f64) -> RibbonPolicy {
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
    /// while the block stays within [`SPARE_SLACK_BYTES_SHARE`] of the Bloom block's bytes.
    ///
    /// Slack beyond what banding needs makes it cheaper: a row is reduced once per occupied
    /// slot it meets before a free one, and the stretch of occupied slots ahead of the rows
    /// being added shrinks fast with slack. Measured at 100k keys (`steps_by_slack`): 7.7
    /// elimination steps per key at 4.3 % slack, 5.7 at 6 %, 3.9 at 10 %, 3.1 at 15 %. The
    /// column mix is shared out over the new block count, so the FPR does not change.
    fn layout(&self, num_keys: usize) -> Layout {
        let base = num_blocks_for(num_keys);
        let layout = self.layout_with_blocks(base);
        let budget = SPARE_SLACK_BYTES_SHARE * self.bloom.block_len(num_keys) as f64;
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

/// A row being banded: its leading slot, coefficients from there, and result bits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Row {
    c: u128,
    slot: usize,
    r: u32,
}

/// What one elimination step did.
enum Step {
    /// The row needs more steps.
    More,
    /// The row is stored, or was redundant.
    Placed,
    /// The row contradicts the stored ones: this seed fails.
    Conflict,
}

/// Rows banded side by side, one step of each in turn (see [`Banding::add_lanes`]).
///
/// A row's reduction is a chain of dependent load, XOR, count and add; independent chains
/// keep the core busier. Measured at 100k keys: 2 lanes band in 19 ns/key at 5 bits per key,
/// 1 lane 25, 3 lanes 20, 4 lanes 22 (each lane's placement branch mispredicts once per key
/// and flushes the others' work in flight). Branch-free lanes, which write every visited
/// slot back so that no branch depends on whether the slot was empty, measured 1.6× slower
/// than branchy ones: the next row revisits those slots and its loads wait on the stores.
const LANES: usize = 2;

/// The row of a remixed hash: start slot, coefficients, and the result bits of the start
/// block's columns (the others must be 0, so that a duplicate or dependent row with different
/// unused bits is no conflict).
#[inline(always)]
fn row_for(layout: Layout, x: u64, num_starts: u64) -> Row {
    let start = start_of(x, num_starts);
    Row {
        slot: start,
        c: coeff_of(x),
        r: fingerprint_of(x) & column_mask(layout.columns(start / WIDTH)),
    }
}

/// The band under construction: per slot, the stored row (0 = empty) and its result bits.
struct Banding {
    layout: Layout,
    coeff: Vec<u128>,
    result: Vec<u32>,
    /// The rows of the current seed, grouped by start block.
    rows: Vec<Row>,
    /// Scratch: keys per start block, then each block's next write position.
    bucket: Vec<usize>,
    /// Rows were added since the arrays were zeroed (a fresh band needs no clearing).
    dirty: bool,
}

/// Largest grouping buffers (bytes of capacity) a thread keeps for its next build: 8 MiB holds
/// the 32-byte rows of about 260,000 keys, more than a 64 MiB table of 1 KB values has.
const KEEP_BYTES: usize = 8 << 20;

thread_local! {
    /// Each thread's grouping buffers from its previous build (a compaction builds table after
    /// table). Allocated afresh, the rows (the largest buffer, 32 bytes per key) came back from
    /// glibc as new pages after many builds, and faulting them in cost more than the banding:
    /// `filter_times` at 20 bits per key, from keys, 60 ns per key against 26 from hashes on
    /// one machine (282k page faults in a run, against 4.8k at 10 bits per key); 35 against 23
    /// at 7,900 keys on another. The band itself (`coeff`, `result`) is allocated zeroed for
    /// each build: kept and cleared instead, its banding ran 5 ns per key slower at 7,900 keys
    /// (2026-11-25, Xeon: 33.4 against 28.6 at 5 bits per key, cause not found; clearing it
    /// element by element instead of by `memset` was no faster).
    static SPARE_ROWS: std::cell::Cell<Option<Buffers>> = const { std::cell::Cell::new(None) };
}

/// The grouping allocations of a [`Banding`], kept between builds.
#[derive(Default)]
struct Buffers {
    rows: Vec<Row>,
    bucket: Vec<usize>,
}

impl Buffers {
    fn capacity_bytes(&self) -> usize {
        self.rows.capacity() * std::mem::size_of::<Row>()
            + self.bucket.capacity() * std::mem::size_of::<usize>()
    }
}

impl Drop for Banding {
    /// Hands the grouping buffers to the thread's next build, unless they are larger than
    /// [`KEEP_BYTES`] (a rare huge filter should not pin its memory).
    fn drop(&mut self) {
        let b = Buffers {
            rows: std::mem::take(&mut self.rows),
            bucket: std::mem::take(&mut self.bucket),
        };
        if b.capacity_bytes() <= KEEP_BYTES {
            SPARE_ROWS.with(|c| c.set(Some(b)));
        }
    }
}

impl Banding {
    /// An empty band for `layout`, grouping in this thread's kept buffers if it has any.
    fn new(layout: Layout) -> Banding {
        let b = SPARE_ROWS.with(|c| c.take()).unwrap_or_default();
        Banding {
            layout,
            coeff: vec![0; layout.num_slots()],
            result: vec![0; layout.num_slots()],
            rows: b.rows,
            bucket: b.bucket,
            dirty: false,
        }
    }

    /// Adds every key with this seed; false if the system became unsolvable.
    ///
    /// Keys are first grouped by start block (a counting sort, two linear passes) and turned
    /// into rows on the way: banding in that order walks the band front to back, so the rows
    /// it reduces against are in L1 instead of a cache miss away. Whether the system is
    /// solvable does not depend on the order, and grouping by block instead of sorting by slot
    /// costs no extra elimination steps (measured: the same 6.86 per key at 100k keys).
    fn add_all(&mut self, hashes: &[u64], seed: u32) -> bool {
        if self.dirty {
            self.coeff.fill(0);
            self.result.fill(0);
        }
        self.dirty = true;
        let layout = self.layout;
        let num_starts = layout.num_starts();
        self.bucket.clear();
        self.bucket.resize(layout.num_blocks + 1, 0);
        for &h in hashes {
            let x = remix(h, seed);
            if let Some(count) = self.bucket.get_mut(start_of(x, num_starts) / WIDTH + 1) {
                *count += 1;
            }
        }
        for b in 1..self.bucket.len() {
            self.bucket[b] += self.bucket[b - 1];
        }
        self.rows.clear();
        self.rows.reserve(hashes.len());
        // Written straight into the spare capacity: zero-filling 32 bytes per key first (what
        // `resize` does) costs as much as the scatter itself.
        let spare = &mut self.rows.spare_capacity_mut()[..hashes.len()];
        let mut written = 0;
        for &h in hashes {
            // Remixing again costs less than a buffer of remixed hashes (seed 0 is free).
            let row = row_for(layout, remix(h, seed), num_starts);
            if let Some(pos) = self.bucket.get_mut(row.slot / WIDTH) {
                if let Some(dst) = spare.get_mut(*pos) {
                    dst.write(row);
                    written += 1;
                }
                *pos += 1;
            }
        }
        if written == hashes.len() {
            // SAFETY: the positions are a permutation of 0..len (each block's range starts at
            // the count of the blocks before it and takes exactly its own count, both passes
            // computing the same block per hash), so every one of the `written == len` writes
            // went to a distinct element of the first `len`: all are initialised.
            unsafe { self.rows.set_len(hashes.len()) };
        } else {
            return false;
        }
        let rows = std::mem::take(&mut self.rows);
        let ok = self.add_lanes(&rows);
        self.rows = rows;
        ok
    }

    /// Bands `rows` split in [`LANES`] contiguous lanes, one step of each lane in turn.
    ///
    /// Any interleaving of single steps is a valid elimination (stored rows never change), so
    /// the lanes need no coordination; keeping them in disjoint stretches of the band keeps
    /// each one's working set small.
    fn add_lanes(&mut self, rows: &[Row]) -> bool {
        let n = rows.len();
        let mut idx = [0usize; LANES];
        let mut end = [0usize; LANES];
        let mut cur = [Row::default(); LANES];
        for l in 0..LANES {
            idx[l] = n * l / LANES;
            end[l] = n * (l + 1) / LANES;
            cur[l] = rows.get(idx[l]).copied().unwrap_or_default();
        }
        'lockstep: loop {
            for l in 0..LANES {
                if idx[l] >= end[l] {
                    break 'lockstep;
                }
            }
            for l in 0..LANES {
                match self.step(&mut cur[l]) {
                    Step::More => {}
                    Step::Placed => {
                        idx[l] += 1;
                        cur[l] = rows.get(idx[l]).copied().unwrap_or_default();
                    }
                    Step::Conflict => return false,
                }
            }
        }
        // A lane ran dry: finish the others one row at a time.
        for l in 0..LANES {
            if idx[l] >= end[l] {
                continue;
            }
            let rest = rows.get(idx[l] + 1..end[l]).unwrap_or_default();
            for &row in std::iter::once(&cur[l]).chain(rest) {
                let mut row = row;
                loop {
                    match self.step(&mut row) {
                        Step::More => {}
                        Step::Placed => break,
                        Step::Conflict => return false,
                    }
                }
            }
        }
        true
    }

    /// One elimination step of a row: store it if its leading slot is free, else reduce it by
    /// the row stored there. The row's bits stay inside the band: it spans slots
    /// `start..start + 128` and every step only moves its leading bit right.
    #[inline(always)]
    fn step(&mut self, row: &mut Row) -> Step {
        let (Some(existing), Some(existing_r)) =
            (self.coeff.get_mut(row.slot), self.result.get_mut(row.slot))
        else {
            return Step::Conflict;
        };
        if *existing == 0 {
            *existing = row.c;
            *existing_r = row.r;
            return Step::Placed;
        }
        row.c ^= *existing;
        row.r ^= *existing_r;
        let lo = row.c as u64;
        if lo != 0 {
            // The common case (the low half of a random row is 0 with probability 2^-64): the
            // next set bit is in the low half, found with one 64-bit count instead of the
            // u128 one's two counts and a select, which sit on the step-to-step dependency
            // chain (load, XOR, count, add). `tz` < 64, so the shift needs no select either.
            let tz = lo.trailing_zeros();
            let hi = (row.c >> 64) as u64;
            row.slot += tz as usize;
            // `(hi << 1) << (63 − tz)` is `hi << (64 − tz)` without the overflow at tz = 0.
            let new_lo = (lo >> tz) | ((hi << 1) << (63 - tz));
            row.c = ((hi >> tz) as u128) << 64 | new_lo as u128;
            return Step::More;
        }
        if row.c == 0 {
            // The row was a combination of stored rows: fine if the results agree too (a
            // duplicate key), a contradiction otherwise.
            return if row.r == 0 {
                Step::Placed
            } else {
                Step::Conflict
            };
        }
        let tz = row.c.trailing_zeros();
        row.slot += tz as usize;
        row.c >>= tz;
        Step::More
    }

    /// Back-substitution into the interleaved layout, and the finished block.
    fn solve(&self, seed: u32, num_keys: usize) -> Vec<u8> {
        let layout = self.layout;
        let mut words = vec![0u128; layout.num_words()];
        back_substitute(&self.coeff, &self.result, layout, &mut words);
        let mut block = Vec::with_capacity(layout.block_len());
        for w in &words {
            block.extend_from_slice(&w.to_le_bytes());
        }
        block.extend_from_slice(&(layout.num_blocks as u32).to_le_bytes());
        block.extend_from_slice(&(layout.upper_start as u32).to_le_bytes());
        block.push(layout.upper_columns as u8);
        block.push(seed as u8);
        let at = block.len();
        block.resize(at + super::TRAILER_LEN, 0);
        put_trailer_header(&mut block[at..], KIND_RIBBON, num_keys);
        block
    }
}

/// Up to this many columns the scalar solver is as fast as the AVX-512 one (one register's
/// worth of columns; at 100k keys, 4 columns: scalar 3.2 ns per key, AVX-512 4.0), which pays
/// a fixed latency per slot whatever the column count (4.4 ns at 7 columns, 5.7 at 13).
const SCALAR_MAX_COLUMNS: u32 = 4;

/// The AVX-512 solver when it pays and the CPU has it, else [`back_substitute_impl`] in its
/// POPCNT variant when the CPU has the instruction.
fn back_substitute(coeff: &[u128], result: &[u32], layout: Layout, words: &mut [u128]) {
    #[cfg(target_arch = "x86_64")]
    if layout.upper_columns > SCALAR_MAX_COLUMNS && avx512::available() {
        // SAFETY: `available` checked every feature the callee is compiled with.
        return unsafe { avx512::back_substitute(coeff, result, layout, words) };
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has POPCNT (checked just above), the one requirement of the callee.
        return unsafe { back_substitute_popcnt(coeff, result, layout, words) };
    }
    back_substitute_impl(coeff, result, layout, words)
}

/// [`back_substitute_impl`] compiled with POPCNT: each parity is one instruction instead of a
/// fold of shifts and XORs, which is most of the work.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn back_substitute_popcnt(coeff: &[u128], result: &[u32], layout: Layout, words: &mut [u128]) {
    back_substitute_impl(coeff, result, layout, words)
}

/// The stored rows and result bits of the 128 slots of `block`; `None` past the band.
#[inline(always)]
fn block_rows<'a>(
    coeff: &'a [u128],
    result: &'a [u32],
    block: usize,
) -> Option<(&'a [u128], &'a [u32])> {
    let base = block * WIDTH;
    Some((
        coeff.get(base..base + WIDTH)?,
        result.get(base..base + WIDTH)?,
    ))
}

/// Solves the banded system from the last slot to the first into `words` (interleaved).
///
/// `window[j]` holds column `j` of the solution for the 128 slots from the current one: bit 0
/// is the current slot, bit `k` the slot `k` after it. Moving one slot down shifts every window
/// left by one; the new bit is the row's result XOR the parity of the row's other bits against
/// the window. When the current slot is the first of a block, the window is exactly that
/// block's word. Free slots (row 0, result 0) get solution 0 through the same arithmetic.
#[inline(always)]
fn back_substitute_impl(coeff: &[u128], result: &[u32], layout: Layout, words: &mut [u128]) {
    let mut window = [0u128; MAX_COLUMNS as usize];
    for block in (0..layout.num_blocks).rev() {
        // Columns only shrink going down, so the windows of this block's columns are complete.
        let cols = layout.columns(block) as usize;
        let Some((rows, results)) = block_rows(coeff, result, block) else {
            return;
        };
        solve_block(cols, rows, results, &mut window);
        let off = layout.word_offset(block);
        if let Some(dst) = words.get_mut(off..off + cols) {
            dst.copy_from_slice(&window[..cols]);
        }
    }
}

/// Columns solved together in one pass over a block's slots. Each column's 128-bit window
/// takes two of x86-64's 16 general registers; with all 7 columns of 10 bits per key in one
/// pass the windows spilled to the stack, and a slot cost about 106 instructions (15 per
/// column). In passes of at most 4 columns the windows stay in registers, and re-reading a
/// slot's row and result once per pass (from L1) costs less than the spills did.
const SOLVE_GROUP: usize = 4;

/// Moves the windows of the block's `cols` columns down through one block (`rows`,
/// `results`: its 128 slots), in passes of at most [`SOLVE_GROUP`] columns. Columns are
/// independent of each other, so the passes may run in any order.
#[inline(always)]
fn solve_block(
    cols: usize,
    rows: &[u128],
    results: &[u32],
    window: &mut [u128; MAX_COLUMNS as usize],
) {
    let mut first = 0;
    while first < cols {
        let group = (cols - first).min(SOLVE_GROUP);
        let Some(w) = window.get_mut(first..first + group) else {
            return;
        };
        match group {
            1 => solve_columns::<1>(rows, results, first, w),
            2 => solve_columns::<2>(rows, results, first, w),
            3 => solve_columns::<3>(rows, results, first, w),
            _ => solve_columns::<SOLVE_GROUP>(rows, results, first, w),
        }
        first += group;
    }
}

/// Moves the windows of columns `first..first + C` (`window`) down through one block, from
/// its last slot to its first. `C` is a constant in each instance, so the windows live in
/// registers.
///
/// `parity((w << 1) & c)` is computed as `parity(w & (c >> 1))`: the same bits (slot `k + 1`'s
/// bit against coefficient `k + 1`), but the shift of `c` is shared by all columns and the
/// shift of `w` leaves each column's dependency chain.
#[inline(always)]
fn solve_columns<const C: usize>(
    rows: &[u128],
    results: &[u32],
    first: usize,
    window: &mut [u128],
) {
    let mut w = [0u128; C];
    w.copy_from_slice(&window[..C]);
    for (&c, &r) in rows.iter().zip(results).rev() {
        let c1 = c >> 1;
        let r = r >> first;
        for (j, wj) in w.iter_mut().enumerate() {
            let bit = ((r >> j) ^ parity(*wj & c1)) & 1;
            *wj = (*wj << 1) | bit as u128;
        }
    }
    window[..C].copy_from_slice(&w);
}

/// Back-substitution with AVX-512: four columns per 512-bit register.
///
/// The scalar solver spends about ten instructions per column and slot (two ANDs, a fold, a
/// POPCNT, the result bit, a 128-bit shift, an OR); at 13 columns that is 13 ns per key. Here a
/// register holds the 128-bit windows of four columns (lanes `lo, hi` per column, the `u128`
/// memory order), and one slot costs per register: AND with the broadcast `c >> 1`, VPOPCNTQ,
/// a lane swap and a three-way XOR (the two halves' parities and the result bit), the 128-bit
/// shift by one (VPSHLDQ with a byte-shifted copy) and an AND-OR of the new bits. All of it
/// stays in vector registers: a first version that went through mask registers and back
/// (test, mask XORs, masked OR) measured 10–12 ns per key at any column count, the latency of
/// that round trip on every slot.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{Layout, MAX_COLUMNS, WIDTH};
    use std::arch::x86_64::*;

    /// Columns per 512-bit register: four 128-bit windows.
    const COLS_PER_REG: usize = 4;
    /// Registers for [`MAX_COLUMNS`] columns.
    const MAX_REGS: usize = MAX_COLUMNS as usize / COLS_PER_REG;

    /// The CPU has every feature [`back_substitute`] is compiled with.
    pub(super) fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vpopcntdq")
            && std::arch::is_x86_feature_detected!("avx512vbmi2")
            && std::arch::is_x86_feature_detected!("bmi2")
    }

    /// Same result as [`super::back_substitute_impl`] (checked by
    /// `avx512_back_substitution_matches_scalar`).
    ///
    /// # Safety
    /// The CPU must have the features [`available`] checks.
    #[target_feature(enable = "avx512f,avx512bw,avx512vpopcntdq,avx512vbmi2,bmi2")]
    pub(super) unsafe fn back_substitute(
        coeff: &[u128],
        result: &[u32],
        layout: Layout,
        words: &mut [u128],
    ) {
        let regs = (layout.upper_columns as usize).div_ceil(COLS_PER_REG);
        macro_rules! dispatch {
            ($($n:literal)*) => {
                match regs {
                    $($n => solve::<$n>(coeff, result, layout, words),)*
                    _ => {}
                }
            };
        }
        dispatch!(1 2 3 4 5 6 7 8);
    }

    /// [`back_substitute`] with `R` registers of windows, a constant so that they stay in
    /// registers.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vpopcntdq,avx512vbmi2,bmi2")]
    fn solve<const R: usize>(coeff: &[u128], result: &[u32], layout: Layout, words: &mut [u128]) {
        let mut win = [_mm512_setzero_si512(); R];
        let one = _mm512_set1_epi64(1);
        // 1 in the low lane of each column (even lanes), 0 in the high lanes.
        let low_one = _mm512_maskz_mov_epi64(0x55, one);
        // VPTERNLOG truth tables over inputs a = 0xF0, b = 0xCC, c = 0xAA.
        const XOR3: i32 = 0xF0 ^ 0xCC ^ 0xAA;
        const OR_AND: i32 = 0xF0 | (0xCC & 0xAA);
        // `c >> 1` of each slot of the block, so that the loop broadcasts it from memory.
        let mut shifted = [0u128; WIDTH];
        for block in (0..layout.num_blocks).rev() {
            let cols = layout.columns(block) as usize;
            let Some((rows, results)) = super::block_rows(coeff, result, block) else {
                return;
            };
            for (dst, &c) in shifted.iter_mut().zip(rows) {
                *dst = c >> 1;
            }
            for (c1, &r) in shifted.iter().zip(results).rev() {
                // SAFETY: `c1` is a valid 16-byte location (unaligned load).
                let cb =
                    _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128((c1 as *const u128).cast()) });
                // Result bit j at bit 2j: the position of column j's low lane in a mask.
                let spread = _pdep_u64(r as u64, 0x5555_5555_5555_5555);
                for (z, w) in win.iter_mut().enumerate() {
                    // Result bit j in bit 0 of column j's low lane; off the dependency chain.
                    let rv = _mm512_maskz_mov_epi64((spread >> (COLS_PER_REG * 2 * z)) as u8, one);
                    let pc = _mm512_popcnt_epi64(_mm512_and_si512(*w, cb));
                    // Each lane's count XOR its partner's (the two halves of a column): bit 0
                    // is the column's parity.
                    let partner = _mm512_shuffle_epi32::<0b0100_1110>(pc);
                    let bit = _mm512_ternarylogic_epi64::<XOR3>(pc, partner, rv);
                    // (w << 1) per 128-bit lane: the high lane takes the low lane's top bit.
                    let w1 = _mm512_shldi_epi64::<1>(*w, _mm512_bslli_epi128::<8>(*w));
                    *w = _mm512_ternarylogic_epi64::<OR_AND>(w1, bit, low_one);
                }
            }
            // Registers in memory order are the columns' `u128` windows, column 0 first.
            let mut cols_out = [0u128; MAX_REGS * COLS_PER_REG];
            for (z, w) in win.iter().enumerate() {
                // SAFETY: four `u128` are exactly 64 bytes, written unaligned.
                unsafe {
                    _mm512_storeu_si512(cols_out[z * COLS_PER_REG..].as_mut_ptr().cast(), *w)
                };
            }
            let off = layout.word_offset(block);
            if let (Some(dst), Some(src)) = (words.get_mut(off..off + cols), cols_out.get(..cols)) {
                dst.copy_from_slice(src);
            }
        }
    }
}

/// A parsed Ribbon block.
pub(crate) struct RibbonReader {
    /// The interleaved solution followed by `upper_columns` zero words: the "next block" of the
    /// last block, so a lookup never needs a bounds branch.
    words: Box<[u128]>,
    layout: Layout,
    num_starts: u64,
    seed: u32,
    num_keys: u64,
    /// The CPU has POPCNT: lookups use the variant compiled for it.
    #[cfg(target_arch = "x86_64")]
    popcnt: bool,
}

impl RibbonReader {
    /// Parses the Ribbon part of a block: `body` is the block without the common trailer.
    pub(crate) fn open(body: &[u8], num_keys: u64) -> Result<RibbonReader, String> {
        let Some(data_len) = body.len().checked_sub(PARAM_LEN) else {
            return Err("ribbon filter block too short for its parameters".to_string());
        };
        let (data, params) = body.split_at(data_len);
        let u32_at = |i: usize| {
            let mut b = [0u8; 4];
            b.copy_from_slice(&params[i..i + 4]);
            u32::from_le_bytes(b) as usize
        };
        let num_blocks = u32_at(0);
        let upper_start = u32_at(4);
        let upper_columns = params[8] as u32;
        let seed = params[9] as u32;
        if num_blocks == 0 || upper_start > num_blocks {
            return Err(format!(
                "ribbon filter has {num_blocks} blocks and upper start {upper_start}"
            ));
        }
        if !(1..=MAX_COLUMNS).contains(&upper_columns) {
            return Err(format!(
                "ribbon filter has {upper_columns} columns, expected 1..={MAX_COLUMNS}"
            ));
        }
        let layout = Layout {
            num_blocks,
            upper_columns,
            upper_start,
        };
        // Checked: a corrupt block count must not overflow into a plausible length.
        let words = num_blocks
            .checked_mul(upper_columns as usize)
            .map(|w| w - upper_start)
            .filter(|w| w.checked_mul(WORD_BYTES) == Some(data.len()));
        let Some(num_words) = words else {
            return Err(format!(
                "ribbon filter data is {} bytes, its parameters ({num_blocks} blocks, \
                 {upper_columns} columns from block {upper_start}) need another size",
                data.len()
            ));
        };
        let mut words = Vec::with_capacity(num_words + upper_columns as usize);
        words.extend(data.chunks_exact(WORD_BYTES).map(|chunk| {
            let mut b = [0u8; WORD_BYTES];
            b.copy_from_slice(chunk);
            u128::from_le_bytes(b)
        }));
        words.resize(num_words + upper_columns as usize, 0);
        Ok(RibbonReader {
            words: words.into_boxed_slice(),
            num_starts: layout.num_starts(),
            layout,
            seed,
            num_keys,
            #[cfg(target_arch = "x86_64")]
            popcnt: std::arch::is_x86_feature_detected!("popcnt"),
        })
    }

    /// False only if the key with this hash is certainly absent.
    #[inline]
    pub(crate) fn may_match(&self, hash: u64) -> bool {
        #[cfg(target_arch = "x86_64")]
        if self.popcnt {
            // SAFETY: `popcnt` is true only if the CPU has the POPCNT instruction (checked at
            // open), the one requirement of `may_match_popcnt`.
            return unsafe { self.may_match_popcnt(hash) };
        }
        self.may_match_impl(hash)
    }

    /// [`Self::may_match_impl`] compiled with the POPCNT instruction: the parities of the
    /// column loop are then one instruction each instead of a fold of shifts and XORs.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    fn may_match_popcnt(&self, hash: u64) -> bool {
        self.may_match_impl(hash)
    }

    #[inline(always)]
    fn may_match_impl(&self, hash: u64) -> bool {
        let x = remix(hash, self.seed);
        let start = start_of(x, self.num_starts);
        let block = start / WIDTH;
        let k = start % WIDTH;
        let cols = self.layout.columns(block);
        let off = self.layout.word_offset(block);
        let n = cols as usize;
        // In range by construction (start < num_starts, a zero block pads the end); answering
        // "maybe" is the safe side should that ever not hold.
        let (Some(cur), Some(next)) = (
            self.words.get(off..off + n),
            self.words.get(off + n..off + 2 * n),
        ) else {
            return true;
        };
        // The row's bits in the start block and in the next one; `(c >> 1) >> (127 − k)` is
        // `c >> (128 − k)` without the overflow at k = 0.
        let c = coeff_of(x);
        let lo = c << k;
        let hi = (c >> 1) >> (WIDTH - 1 - k);
        let mut got = 0u32;
        for (j, (w, nx)) in cur.iter().zip(next).enumerate() {
            got |= parity((w & lo) ^ (nx & hi)) << j;
        }
        got == fingerprint_of(x) & column_mask(cols)
    }

    /// Keys the filter was built from.
    pub(crate) fn num_keys(&self) -> u64 {
        self.num_keys
    }

    /// Bytes held.
    pub(crate) fn memory_usage(&self) -> usize {
        std::mem::size_of::<Self>() + self.words.len() * WORD_BYTES
    }

    /// Solution bits per key stored (without the padding block).
    pub(crate) fn solution_bytes(&self) -> usize {
        self.layout.num_words() * WORD_BYTES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distinct pseudo-random hashes: a SplitMix64 stream from `seed`.
    fn hashes(n: usize, seed: u64) -> Vec<u64> {
        (0..n as u64)
            .map(|i| remix(i, seed as u32 ^ 0x5EED))
            .collect()
    }

    #[test]
    fn layout_shares_columns_to_hit_the_target() {
        let p = RibbonPolicy::new(10.0);
        let l = p.layout(100_000);
        assert_eq!(l.upper_columns, 7, "0.94 % lies between 2^-7 and 2^-6");
        assert!(l.upper_start > 0 && l.upper_start < l.num_blocks);
        // The realised mix of column counts gives the target FPR within 1 %.
        let starts = (l.num_blocks - 1) as f64;
        let upper = (l.num_blocks - 1 - l.upper_start) as f64 / starts;
        let fpr = upper * (-7f64).exp2() + (1.0 - upper) * (-6f64).exp2();
        assert!(
            (fpr / p.target_fpr() - 1.0).abs() < 0.01,
            "{fpr} vs {}",
            p.target_fpr()
        );
        assert_eq!(l.num_words(), l.word_offset(l.num_blocks));
        assert_eq!(
            l.word_offset(l.upper_start + 1) - l.word_offset(l.upper_start),
            7
        );
    }

    #[test]
    fn unsolvable_layouts_fall_back_to_bloom() {
        // 300 keys cannot be banded into 128 slots under any seed.
        let p = RibbonPolicy::new(10.0);
        let keys = hashes(300, 1);
        let layout = p.layout_with_blocks(1);
        assert!(p.try_build_with(&keys, layout, MAX_SEEDS).is_none());
        let block = p.build_with(&keys, layout);
        let reader = super::super::FilterReader::open(block).unwrap();
        assert_eq!(reader.kind(), Some(super::super::FilterKind::Bloom));
        assert!(keys.iter().all(|&h| reader.may_match(h)));
    }

    #[test]
    fn later_seeds_and_failed_attempts_read_back() {
        let p = RibbonPolicy::new(10.0);
        // One block: 300 keys cannot fit, 60 can. The failed attempt must leave nothing
        // behind in the reused band.
        let mut band = Banding::new(p.layout_with_blocks(1));
        assert!(!band.add_all(&hashes(300, 1), 0));
        let keys = hashes(60, 2);
        assert!(band.add_all(&keys, 5));
        let reader = super::super::FilterReader::open(band.solve(5, keys.len())).unwrap();
        assert!(keys.iter().all(|&h| reader.may_match(h)));
        // A remixed seed on a real layout: no false negatives, and the FPR of a fresh seed.
        let keys = hashes(20_000, 3);
        let mut band = Banding::new(p.layout(keys.len()));
        assert!(band.add_all(&keys, 7));
        let reader = super::super::FilterReader::open(band.solve(7, keys.len())).unwrap();
        assert!(keys.iter().all(|&h| reader.may_match(h)));
        let absent = hashes(200_000, 4);
        let fpr = absent.iter().filter(|&&h| reader.may_match(h)).count() as f64 / 2e5;
        assert!(
            (fpr / p.target_fpr() - 1.0).abs() < 0.2,
            "{fpr} vs {}",
            p.target_fpr()
        );
    }

    /// Prints the one-seed banding failure rate by key count and slot overhead; the data behind
    /// [`slot_overhead`]. `cargo test --release -p lsmlab ribbon_failure_rate -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn ribbon_failure_rate_by_overhead() {
        let p = RibbonPolicy::new(10.0);
        let sizes = [
            (3000usize, 400u64),
            (30_000, 200),
            (300_000, 40),
            (1_000_000, 24),
        ];
        for &(n, trials) in &sizes {
            let mut line = format!("n={n:>8} model={:.4}:", slot_overhead(n));
            for eps in [0.02, 0.025, 0.03, 0.035, 0.04, 0.045, 0.05] {
                let blocks = ((n as f64 * (1.0 + eps) / WIDTH as f64).ceil() as usize).max(1);
                let mut banding = Banding::new(p.layout_with_blocks(blocks));
                let fails = (0..trials)
                    .filter(|&t| !banding.add_all(&hashes(n, t), 0))
                    .count();
                line += &format!(" {eps:.3}:{:>5.1}%", 100.0 * fails as f64 / trials as f64);
            }
            println!("{line}");
        }
        // Small filters, where rounding up to whole blocks dominates: the worst one-seed
        // failure rate with the model's overhead, and where it happens.
        let mut worst = (0.0, 0);
        for n in (1..2000).chain((2000..20_000).step_by(97)) {
            let mut banding = Banding::new(p.layout(n));
            let fails = (0..100)
                .filter(|&t| !banding.add_all(&hashes(n, t), 0))
                .count();
            if fails > 5 {
                print!("{n}:{fails}% ");
            }
            if fails as f64 > worst.0 {
                worst = (fails as f64, n);
            }
        }
        println!(
            "worst one-seed failure rate below 20k keys: {}% at {}",
            worst.0, worst.1
        );
    }
    /// Plain Gaussian elimination of the keys in input order, one row at a time, with the
    /// 128-bit arithmetic spelled out: the reference the grouped, two-lane banding must agree
    /// with. Solvability does not depend on the order rows are added in.
    fn reference_bands(layout: Layout, keys: &[u64], seed: u32) -> bool {
        let mut coeff = vec![0u128; layout.num_slots()];
        let mut result = vec![0u32; layout.num_slots()];
        let num_starts = layout.num_starts();
        for &h in keys {
            let x = remix(h, seed);
            let mut slot = start_of(x, num_starts);
            let mut c = coeff_of(x);
            let mut r = fingerprint_of(x) & column_mask(layout.columns(slot / WIDTH));
            loop {
                if coeff[slot] == 0 {
                    coeff[slot] = c;
                    result[slot] = r;
                    break;
                }
                c ^= coeff[slot];
                r ^= result[slot];
                if c == 0 {
                    if r != 0 {
                        return false;
                    }
                    break;
                }
                let tz = c.trailing_zeros();
                slot += tz as usize;
                c >>= tz;
            }
        }
        true
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]

        /// The banding (grouped by block, two lanes, 64-bit fast path) succeeds exactly when
        /// plain elimination does, on layouts from hopelessly tight to roomy so that both
        /// outcomes occur, with duplicates; and when it succeeds no key is missed.
        #[test]
        fn banding_agrees_with_plain_elimination(
            n in 1usize..3000,
            key_seed in 0u64..1000,
            seed in 0u32..MAX_SEEDS,
            fill in 0.85f64..1.15,
            dup_every in 0usize..20,
            bpk in 1.0f64..24.0,
        ) {
            let p = RibbonPolicy::new(bpk);
            let mut keys = hashes(n, key_seed);
            if dup_every > 0 {
                let dups: Vec<u64> = keys.iter().step_by(dup_every).copied().collect();
                keys.extend(dups);
            }
            let blocks = ((n as f64 * fill / WIDTH as f64).ceil() as usize).max(1);
            let layout = p.layout_with_blocks(blocks);
            let mut band = Banding::new(layout);
            let ok = band.add_all(&keys, seed);
            proptest::prop_assert_eq!(ok, reference_bands(layout, &keys, seed));
            if ok {
                let block = band.solve(seed, keys.len());
                let reader = super::super::FilterReader::open(block).unwrap();
                proptest::prop_assert!(keys.iter().all(|&h| reader.may_match(h)));
            }
        }
    }

    /// Random bands: rows and results at random (all 32 result bits, beyond the columns too),
    /// so back-substitution, plain arithmetic on whatever the band holds, is exercised at every
    /// column count and with the fewer-column blocks first, last, or absent.
    fn random_band(layout: Layout) -> (Vec<u128>, Vec<u32>) {
        let seed = layout.upper_columns as u64 * 100
            + layout.num_blocks as u64 * 10
            + layout.upper_start as u64;
        let coeff = hashes(2 * layout.num_slots(), seed)
            .chunks_exact(2)
            .map(|p| (p[0] as u128) << 64 | p[1] as u128)
            .collect();
        let result = hashes(layout.num_slots(), seed + 7)
            .iter()
            .map(|&h| h as u32)
            .collect();
        (coeff, result)
    }

    /// Every (column count, block shape) the solvers are checked on.
    fn solver_layouts() -> impl Iterator<Item = Layout> {
        (1..=MAX_COLUMNS).flat_map(|upper_columns| {
            [(1, 0), (1, 1), (3, 1), (7, 0), (7, 7), (9, 4)].map(|(num_blocks, upper_start)| {
                Layout {
                    num_blocks,
                    upper_columns,
                    upper_start,
                }
            })
        })
    }

    #[test]
    fn grouped_back_substitution_matches_slot_by_slot() {
        // The definition, one slot and one column at a time over the whole solution: slot s's
        // bit of column j is its result bit XOR the parity of its row's other bits against the
        // solution of the slots after it. Free slots (row 0) would get their result bit; a real
        // band has result 0 there, and random bands hold no free slot anyway.
        for layout in solver_layouts() {
            let (coeff, result) = random_band(layout);
            let n = layout.num_slots();
            let cols = |slot: usize| layout.columns(slot / WIDTH) as usize;
            let mut sol = vec![0u32; n];
            for s in (0..n).rev() {
                let mut bits = result[s];
                for k in 1..WIDTH.min(n - s) {
                    if coeff[s] >> k & 1 == 1 {
                        bits ^= sol[s + k];
                    }
                }
                sol[s] = bits & column_mask(cols(s) as u32);
            }
            let mut expected = vec![0u128; layout.num_words()];
            for (s, &bits) in sol.iter().enumerate() {
                let off = layout.word_offset(s / WIDTH);
                for j in 0..cols(s) {
                    expected[off + j] |= ((bits >> j & 1) as u128) << (s % WIDTH);
                }
            }
            let mut grouped = vec![0u128; layout.num_words()];
            back_substitute_impl(&coeff, &result, layout, &mut grouped);
            assert!(grouped == expected, "{layout:?}");
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx512_back_substitution_matches_scalar() {
        if !avx512::available() {
            return;
        }
        for layout in solver_layouts() {
            let (coeff, result) = random_band(layout);
            let mut scalar = vec![0u128; layout.num_words()];
            back_substitute_impl(&coeff, &result, layout, &mut scalar);
            let mut simd = vec![0u128; layout.num_words()];
            // SAFETY: the CPU has the features (checked above).
            unsafe { avx512::back_substitute(&coeff, &result, layout, &mut simd) };
            assert!(scalar == simd, "{layout:?}");
        }
    }

    #[test]
    fn step_handles_a_zero_low_half() {
        // A reduction that clears the whole low half takes the 128-bit path: the stored row
        // at slot 0 is 1 + 7·2^64, the new row 1 + 5·2^64; their XOR is 2·2^65, so the row
        // moves 65 slots on with coefficient 1.
        let p = RibbonPolicy::new(10.0);
        let mut band = Banding::new(p.layout_with_blocks(2));
        band.coeff[0] = 1 | (7u128 << 64);
        let mut row = Row {
            c: 1 | (5u128 << 64),
            slot: 0,
            r: 0,
        };
        assert!(matches!(band.step(&mut row), Step::More));
        assert_eq!((row.slot, row.c), (65, 1));
        // And the fast path agrees with u128 arithmetic at every shift 1..=63.
        for tz in 1..64u32 {
            let stored = 1 | (0xDEAD_BEEF_u128 << 64);
            let c = stored ^ (1u128 << tz) ^ (0xF00D_u128 << 70);
            band.coeff[10] = stored;
            let mut row = Row { c, slot: 10, r: 0 };
            assert!(matches!(band.step(&mut row), Step::More));
            let x = c ^ stored;
            assert_eq!((row.slot, row.c), (10 + tz as usize, x >> tz));
        }
    }

    #[test]
    fn spare_slack_stays_within_the_bytes_budget() {
        for bpk in [1.0, 2.0, 5.0, 7.3, 10.0, 15.0, 20.0, 25.0] {
            let p = RibbonPolicy::new(bpk);
            for n in [130, 1000, 4096, 10_000, 100_000, 1_000_000, 10_000_000] {
                let base = num_blocks_for(n);
                let layout = p.layout(n);
                let spare = layout.num_blocks - base;
                assert!(
                    spare as f64 <= base as f64 * MAX_SPARE_SLACK,
                    "bpk {bpk} n {n}"
                );
                let share = p.ribbon_block_len(n) as f64 / p.bloom.block_len(n) as f64;
                if spare > 0 {
                    assert!(share <= SPARE_SLACK_BYTES_SHARE, "bpk {bpk} n {n}: {share}");
                }
                if n >= 10_000 && bpk >= 5.0 {
                    assert!(share <= 0.75, "bpk {bpk} n {n}: {share}");
                }
            }
        }
        // Where the budget allows, slack is added: 20 bits per key at 100k keys.
        let p = RibbonPolicy::new(20.0);
        assert!(p.layout(100_000).num_blocks > num_blocks_for(100_000));
    }

    /// Prints, per Bloom bits per key, the Ribbon block's bits per key, its share of the Bloom
    /// block's bytes and its slack over the keys, at 100k and 7,900 keys: the space table of
    /// `docs/filters.md`. `cargo test --release -p lsmlab space_by_bits_per_key -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn space_by_bits_per_key() {
        for n in [100_000usize, 7_900] {
            for bpk in [
                1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 12.0, 15.0, 20.0, 25.0,
            ] {
                let p = RibbonPolicy::new(bpk);
                let layout = p.layout(n);
                let len = p.ribbon_block_len(n);
                println!(
                    "n {n} bpk {bpk:>4}: {:.2} bits/key, {:.1} % of Bloom, slack {:.1} % (minimum {:.1} %)",
                    len as f64 * 8.0 / n as f64,
                    100.0 * len as f64 / p.bloom.block_len(n) as f64,
                    100.0 * (layout.num_slots() as f64 / n as f64 - 1.0),
                    100.0 * ((num_blocks_for(n) * WIDTH) as f64 / n as f64 - 1.0),
                );
            }
        }
    }

    /// Prints elimination steps per key by slot slack, the data behind
    /// [`MAX_SPARE_SLACK`]: `cargo test --release -p lsmlab steps_by_slack -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn steps_by_slack() {
        let p = RibbonPolicy::new(10.0);
        let n = 100_000;
        let keys = hashes(n, 77);
        for eps in [0.043, 0.05, 0.06, 0.08, 0.10, 0.12, 0.15] {
            let layout =
                p.layout_with_blocks((n as f64 * (1.0 + eps) / WIDTH as f64).ceil() as usize);
            let mut band = Banding::new(layout);
            let mut steps = 0u64;
            let num_starts = layout.num_starts();
            // In start order, as `add_all` bands them.
            let mut keys = keys.clone();
            keys.sort_by_key(|&h| start_of(h, num_starts));
            for &h in &keys {
                let mut row = row_for(layout, h, num_starts);
                loop {
                    steps += 1;
                    match band.step(&mut row) {
                        Step::More => {}
                        Step::Placed | Step::Conflict => break,
                    }
                }
            }
            println!("slack {eps:.3}: {:.2} steps/key", steps as f64 / n as f64);
        }
    }
}
