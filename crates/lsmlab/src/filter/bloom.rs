//! A cache-local Bloom filter in the manner of RocksDB's FastLocalBloom (format_version 5).
//!
//! Every key sets all of its probe bits inside one 64-byte line, so a lookup touches one cache
//! line whatever the number of probes. The 64-bit key hash is split in two independent halves:
//!
//! - the low 32 bits pick the line by multiply-shift range reduction ("fastrange": the high 32
//!   bits of `lo32 * num_lines`), which needs no division and no power-of-two size;
//! - the high 32 bits seed the probe sequence: probe `i` is the top 9 bits (0..512) of
//!   `hi32 * M^i mod 2^32`, with `M` an odd multiplier, so each probe costs one 32-bit multiply.
//!
//! Splitting the hash keeps the line choice and the in-line bit pattern independent; the price
//! is that at most 2^32 lines (256 GiB of filter) can be addressed, far beyond one table.
//!
//! Blocking costs a little accuracy against a textbook Bloom filter because lines get unequal
//! loads (Poisson around the mean). [`cache_local_fpr`] models that exactly, and the number of
//! probes is the one that minimises the model for the configured bits per key, so fractional
//! bits per key get their best probe count too.

use super::{put_trailer_header, FilterPolicy, KIND_BLOOM};

/// Bits of one line: a 64-byte cache line, the unit of memory a lookup touches.
pub const LINE_BITS: u32 = 512;
/// Bytes of one line.
pub const LINE_BYTES: usize = (LINE_BITS / 8) as usize;
/// Upper bound on probes per key. The model's optimum stays below this up to about 60 bits per
/// key; past it more probes buy almost nothing in a 512-bit line and only cost lookup time.
pub const MAX_PROBES: u32 = 30;

/// The odd multiplier that steps the probe sequence: 2^32 divided by the golden ratio
/// (Fibonacci hashing). Its powers spread the top bits of the product well, so successive
/// 9-bit probe indexes behave like independent draws.
const PROBE_MULTIPLIER: u32 = 0x9E37_79B9;

/// Bytes of the Bloom parameters between the line data and the common trailer: num_probes (u8).
const PARAM_LEN: usize = 1;

/// The bit-length of the probe index: log2(LINE_BITS).
const PROBE_SHIFT: u32 = 32 - LINE_BITS.trailing_zeros();

/// The line a hash lives in, for a filter of `num_lines` lines (`num_lines` ≤ 2^32).
#[inline(always)]
fn line_of(hash: u64, num_lines: u64) -> usize {
    (((hash as u32) as u64 * num_lines) >> 32) as usize
}

/// Bits per key (exact, after rounding up to whole lines) of a filter of `block_len` bytes for
/// `num_keys` keys; used by tests and benches to report what a filter really costs.
pub fn bits_per_key_used(block_len: usize, num_keys: usize) -> f64 {
    if num_keys == 0 {
        return 0.0;
    }
    block_len as f64 * 8.0 / num_keys as f64
}

/// ln(x!) — exact sum for small x, Stirling's series (error < 1e-10 past 16) for large x.
fn ln_factorial(x: u64) -> f64 {
    if x < 16 {
        return (2..=x).map(|i| (i as f64).ln()).sum();
    }
    let x = x as f64;
    x * x.ln() - x + 0.5 * (2.0 * std::f64::consts::PI * x).ln() + 1.0 / (12.0 * x)
        - 1.0 / (360.0 * x * x * x)
}

/// The expected false-positive rate of a cache-local Bloom filter with `bits_per_key` bits per
/// key and `num_probes` probes in 512-bit lines.
///
/// The number of keys in one line is Poisson with mean `512 / bits_per_key`; a line holding `x`
/// keys answers a foreign key falsely with probability `(1 − (1 − 1/512)^(k·x))^k`. The sum runs
/// over ±12 standard deviations of the Poisson, where the omitted mass is below 1e-30.
pub fn cache_local_fpr(bits_per_key: f64, num_probes: u32) -> f64 {
    if bits_per_key <= 0.0 || num_probes == 0 {
        return 1.0;
    }
    let mean = LINE_BITS as f64 / bits_per_key;
    let sd = mean.sqrt();
    let lo = (mean - 12.0 * sd - 10.0).max(0.0).floor() as u64;
    let hi = (mean + 12.0 * sd + 10.0).ceil() as u64;
    let k = num_probes as f64;
    let miss = (1.0 - 1.0 / LINE_BITS as f64).ln();
    let ln_mean = mean.ln();
    let mut fpr = 0.0;
    for x in lo..=hi {
        let ln_p = -mean + x as f64 * ln_mean - ln_factorial(x);
        let bit_set = 1.0 - (miss * k * x as f64).exp();
        fpr += ln_p.exp() * bit_set.powf(k);
    }
    fpr.clamp(0.0, 1.0)
}

/// The number of probes for `bits_per_key`: the fewest whose modelled FPR is within
/// [`PROBE_FPR_TOLERANCE`] of the minimum of [`cache_local_fpr`] over 1..=[`MAX_PROBES`].
/// Near the optimum the FPR curve is flat (at 10 bits per key 6 and 7 probes differ by 0.05 %)
/// while every probe costs lookup time, so a flat optimum goes to fewer probes.
pub fn choose_num_probes(bits_per_key: f64) -> u32 {
    let fprs: Vec<f64> = (1..=MAX_PROBES)
        .map(|k| cache_local_fpr(bits_per_key, k))
        .collect();
    let best = fprs.iter().copied().fold(f64::INFINITY, f64::min);
    let k = fprs
        .iter()
        .position(|&f| f <= best * (1.0 + PROBE_FPR_TOLERANCE))
        .unwrap_or(0);
    k as u32 + 1
}

/// Relative FPR given up for fewer probes in [`choose_num_probes`]: 1 %, well below what any
/// measurement of a filter resolves.
pub const PROBE_FPR_TOLERANCE: f64 = 0.01;

/// Builds cache-local Bloom filter blocks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BloomPolicy {
    bits_per_key: f64,
    num_probes: u32,
}

impl BloomPolicy {
    /// A policy with `bits_per_key` bits per key (fractions allowed; must be > 0).
    pub fn new(bits_per_key: f64) -> BloomPolicy {
        BloomPolicy {
            bits_per_key,
            num_probes: choose_num_probes(bits_per_key),
        }
    }

    /// Bits per key the policy was made with.
    pub fn bits_per_key(&self) -> f64 {
        self.bits_per_key
    }

    /// Probes per key.
    pub fn num_probes(&self) -> u32 {
        self.num_probes
    }

    /// The false-positive rate the model expects of this policy's filters.
    pub fn expected_fpr(&self) -> f64 {
        cache_local_fpr(self.bits_per_key, self.num_probes)
    }

    /// Lines of the filter for `num_keys` keys: the bits rounded up to whole lines, at least one,
    /// at most 2^32 (the reach of the 32-bit line selector).
    fn num_lines(&self, num_keys: usize) -> usize {
        let bits = num_keys as f64 * self.bits_per_key;
        let lines = (bits / LINE_BITS as f64).ceil().max(1.0);
        lines.min(u32::MAX as f64) as usize
    }

    /// Bytes of the block [`FilterPolicy::build`] writes for `num_keys` keys (> 0).
    pub fn block_len(&self, num_keys: usize) -> usize {
        self.num_lines(num_keys) * LINE_BYTES + PARAM_LEN + super::TRAILER_LEN
    }
}

impl FilterPolicy for BloomPolicy {
    fn name(&self) -> &'static str {
        "bloom"
    }

    fn build(&self, hashes: &[u64]) -> Vec<u8> {
        if hashes.is_empty() {
            return super::empty_block();
        }
        let num_lines = self.num_lines(hashes.len());
        let data_len = num_lines * LINE_BYTES;
        let mut block = vec![0u8; self.block_len(hashes.len())];
        let data = &mut block[..data_len];
        for &h in hashes {
            let base = line_of(h, num_lines as u64) * LINE_BYTES;
            let line = &mut data[base..base + LINE_BYTES];
            let mut p = (h >> 32) as u32;
            for _ in 0..self.num_probes {
                let bit = p >> PROBE_SHIFT;
                // Byte `bit / 8`, bit `bit % 8` is bit `bit % 64` of little-endian word
                // `bit / 64`: the reader's u64 view of the same line.
                line[(bit >> 3) as usize] |= 1 << (bit & 7);
                p = p.wrapping_mul(PROBE_MULTIPLIER);
            }
        }
        block[data_len] = self.num_probes as u8;
        put_trailer_header(&mut block[data_len + PARAM_LEN..], KIND_BLOOM, hashes.len());
        block
    }
}

/// One 64-byte line, aligned so that it is exactly one hardware cache line.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Line([u64; 8]);

/// A parsed Bloom block, its lines copied to cache-line-aligned memory.
pub(crate) struct BloomReader {
    lines: Box<[Line]>,
    num_probes: u32,
    num_keys: u64,
}

impl BloomReader {
    /// Parses the Bloom part of a block: `body` is the block without the common trailer.
    pub(crate) fn open(body: &[u8], num_keys: u64) -> Result<BloomReader, String> {
        let Some((&num_probes, data)) = body.split_last() else {
            return Err("bloom filter block too short for its parameters".to_string());
        };
        let num_probes = num_probes as u32;
        if !(1..=MAX_PROBES).contains(&num_probes) {
            return Err(format!(
                "bloom filter block has {num_probes} probes, expected 1..={MAX_PROBES}"
            ));
        }
        if data.is_empty() || data.len() % LINE_BYTES != 0 {
            return Err(format!(
                "bloom filter data of {} bytes is not a positive number of {LINE_BYTES}-byte lines",
                data.len()
            ));
        }
        let num_lines = data.len() / LINE_BYTES;
        if num_lines as u64 > u32::MAX as u64 {
            return Err(format!(
                "bloom filter has {num_lines} lines, at most 2^32 are addressable"
            ));
        }
        let lines: Box<[Line]> = data
            .chunks_exact(LINE_BYTES)
            .map(|chunk| {
                let mut line = Line::default();
                for (word, bytes) in line.0.iter_mut().zip(chunk.chunks_exact(8)) {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(bytes);
                    *word = u64::from_le_bytes(b);
                }
                line
            })
            .collect();
        Ok(BloomReader {
            lines,
            num_probes,
            num_keys,
        })
    }

    /// False only if the key with this hash is certainly absent.
    #[inline]
    pub(crate) fn may_match(&self, hash: u64) -> bool {
        let Some(line) = self.lines.get(line_of(hash, self.lines.len() as u64)) else {
            // Unreachable: `line_of` is below the line count; answering "maybe" is the safe side.
            return true;
        };
        let words = &line.0;
        let mut p = (hash >> 32) as u32;
        // Branch-free: all probes are tested and ANDed. An early exit would save a few probes on
        // absent keys but mispredict about once per absent key, which costs more than the
        // probes (all in one cache line) it skips.
        let mut all = 1u64;
        for _ in 0..self.num_probes {
            let bit = p >> PROBE_SHIFT;
            // `bit >> 6` is below 8: the index needs no bounds check.
            all &= words[(bit >> 6) as usize & 7] >> (bit & 63);
            p = p.wrapping_mul(PROBE_MULTIPLIER);
        }
        all & 1 == 1
    }

    /// Keys the filter was built from.
    pub(crate) fn num_keys(&self) -> u64 {
        self.num_keys
    }

    /// Probes per key.
    pub(crate) fn num_probes(&self) -> u32 {
        self.num_probes
    }

    /// Bytes held.
    pub(crate) fn memory_usage(&self) -> usize {
        std::mem::size_of::<Self>() + self.lines.len() * LINE_BYTES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_choice_follows_the_model_optimum() {
        // Known optima of the blocked model: more bits per key, more probes, always fewer
        // than the textbook ln 2 · bpk because crowded lines punish many probes.
        let ks: Vec<u32> = [2.0, 5.0, 10.0, 15.0, 20.0]
            .iter()
            .map(|&b| choose_num_probes(b))
            .collect();
        assert!(ks.windows(2).all(|w| w[0] <= w[1]), "{ks:?}");
        // RocksDB's hand-made table picks the same at these points (its model differs a little).
        assert_eq!(ks, [1, 3, 6, 9, 11]);
        for (&bpk, &k) in [2.0, 5.0, 10.0, 15.0, 20.0].iter().zip(&ks) {
            assert!(
                (k as f64) <= bpk * std::f64::consts::LN_2 + 0.5,
                "{bpk}: {k}"
            );
        }
    }

    #[test]
    fn model_fpr_is_close_to_rocksdb_figures() {
        for (bpk, rocks) in [
            (5.0, 0.0913),
            (10.0, 0.00942),
            (15.0, 0.00119),
            (20.0, 0.000196),
        ] {
            let m = BloomPolicy::new(bpk).expected_fpr();
            assert!(
                (m / rocks - 1.0).abs() < 0.1,
                "bpk {bpk}: model {m} vs {rocks}"
            );
        }
    }

    #[test]
    fn line_bytes_match_the_reader_word_view() {
        let policy = BloomPolicy::new(10.0);
        let hashes: Vec<u64> = (0..1000u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        let block = policy.build(&hashes);
        assert_eq!(block.len(), policy.block_len(hashes.len()));
        let ones: u32 = block[..block.len() - PARAM_LEN - super::super::TRAILER_LEN]
            .iter()
            .map(|b| b.count_ones())
            .sum();
        // 1000 keys × 6 probes, minus collisions: far more than half, at most all.
        assert!((3000..=6000).contains(&ones), "{ones}");
    }
}
