//! Banding: each key's row reduced against the rows stored so far until it finds an empty slot
//! (construction, part 1).

use super::solve::back_substitute;
use super::*;

/// A row being banded: its leading slot, coefficients from there, and result bits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Row {
    pub(super) c: u128,
    pub(super) slot: usize,
    pub(super) r: u32,
}

/// What one elimination step did.
pub(super) enum Step {
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
pub(super) const LANES: usize = 2;

/// The row of a remixed hash: start slot, coefficients, and the result bits of the start
/// block's columns (the others must be 0, so that a duplicate or dependent row with different
/// unused bits is no conflict).
#[inline(always)]
pub(super) fn row_for(layout: Layout, x: u64, num_starts: u64) -> Row {
    let start = start_of(x, num_starts);
    Row {
        slot: start,
        c: coeff_of(x),
        r: fingerprint_of(x) & column_mask(layout.columns(start / WIDTH)),
    }
}

/// The band under construction: per slot, the stored row (0 = empty) and its result bits.
pub(super) struct Banding {
    pub(super) layout: Layout,
    pub(super) coeff: Vec<u128>,
    pub(super) result: Vec<u32>,
    /// The rows of the current seed, grouped by start block.
    pub(super) rows: Vec<Row>,
    /// Scratch: keys per start block, then each block's next write position.
    pub(super) bucket: Vec<usize>,
    /// Rows were added since the arrays were zeroed (a fresh band needs no clearing).
    pub(super) dirty: bool,
}

/// Largest grouping buffers (bytes of capacity) a thread keeps for its next build: 8 MiB holds
/// the 32-byte rows of about 260,000 keys, more than a 64 MiB table of 1 KB values has.
pub(super) const KEEP_BYTES: usize = 8 << 20;

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
pub(super) struct Buffers {
    rows: Vec<Row>,
    bucket: Vec<usize>,
}

impl Buffers {
    pub(super) fn capacity_bytes(&self) -> usize {
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
    pub(super) fn new(layout: Layout) -> Banding {
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
    pub(super) fn add_all(&mut self, hashes: &[u64], seed: u32) -> bool {
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
    pub(super) fn add_lanes(&mut self, rows: &[Row]) -> bool {
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
    pub(super) fn step(&mut self, row: &mut Row) -> Step {
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
    pub(super) fn solve(&self, seed: u32, num_keys: usize) -> Vec<u8> {
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
        block.resize(at + crate::filter::TRAILER_LEN, 0);
        put_trailer_header(&mut block[at..], KIND_RIBBON, num_keys);
        block
    }
}
