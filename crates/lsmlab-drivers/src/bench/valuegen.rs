//! Values as db_bench's `RandomGenerator` makes them.
//!
//! A buffer of at least 1 MiB (or one value) is built once from `Random(301)`: pieces of 100
//! bytes, each made of `max(1, 100 · compression_ratio)` random printable characters repeated to
//! fill the piece, so a compressor shrinks values to about `compression_ratio`. Values are
//! consecutive slices of that buffer, wrapping to its start when the next one would not fit.

use super::random::Random;

/// The value source of one benchmark thread.
pub struct ValueGenerator {
    data: Vec<u8>,
    pos: usize,
}

/// One piece: `len` bytes of which the first `len · fraction` are random (at least 1) and the
/// rest repeat them (RocksDB's `test::CompressibleString`).
fn compressible_piece(rnd: &mut Random, fraction: f64, len: usize, out: &mut Vec<u8>) {
    let raw = ((len as f64 * fraction) as usize).max(1);
    let random: Vec<u8> = (0..raw).map(|_| b' ' + rnd.uniform(95) as u8).collect();
    let start = out.len();
    while out.len() - start < len {
        out.extend_from_slice(&random);
    }
    out.truncate(start + len);
}

impl ValueGenerator {
    /// The generator for values of up to `value_size` bytes at `compression_ratio`.
    pub fn new(compression_ratio: f64, value_size: usize) -> ValueGenerator {
        let mut rnd = Random::new(301);
        let target = (1usize << 20).max(value_size);
        let mut data = Vec::with_capacity(target + 100);
        while data.len() < target {
            compressible_piece(&mut rnd, compression_ratio, 100, &mut data);
        }
        ValueGenerator { data, pos: 0 }
    }

    /// The next value of `len` bytes.
    pub fn generate(&mut self, len: usize) -> &[u8] {
        if self.pos + len > self.data.len() {
            self.pos = 0;
        }
        let start = self.pos;
        self.pos += len;
        &self.data[start..start + len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_printable_and_repeat_at_the_ratio() {
        let mut g = ValueGenerator::new(0.5, 100);
        let v = g.generate(100).to_vec();
        assert!(v.iter().all(|&c| (b' '..=b'~').contains(&c)));
        // Each 100-byte piece is 50 random bytes written twice.
        assert_eq!(v[..50], v[50..]);
        let w = g.generate(100).to_vec();
        assert_ne!(v, w);
    }

    #[test]
    fn ratio_one_has_no_repetition_inside_a_piece() {
        let mut g = ValueGenerator::new(1.0, 2000);
        let v = g.generate(100).to_vec();
        assert_ne!(v[..50], v[50..]);
        assert!(g.data.len() >= 1 << 20);
    }

    #[test]
    fn generator_wraps_instead_of_overrunning() {
        let mut g = ValueGenerator::new(0.5, 100);
        let n = g.data.len();
        for _ in 0..(n / 1000 + 5) {
            assert_eq!(g.generate(1000).len(), 1000);
        }
    }

    /// Compressed bytes over raw bytes of 4 KiB blocks of consecutive values, as the engine's
    /// table builder compresses them.
    fn achieved_ratio(c: lsmlab::Compression, ratio: f64, value_size: usize) -> f64 {
        use lsmlab::sst::codec::{BlockCompressor, NO_COMPRESSION};
        let mut g = ValueGenerator::new(ratio, value_size);
        let mut comp = BlockCompressor::default();
        let (mut raw, mut stored, mut out) = (0, 0, Vec::new());
        let mut block = Vec::new();
        for _ in 0..(4 << 20) / value_size {
            block.extend_from_slice(g.generate(value_size));
            if block.len() >= 4096 {
                let kind = comp.compress(c, &block, &mut out);
                raw += block.len();
                stored += if kind == NO_COMPRESSION {
                    block.len()
                } else {
                    out.len()
                };
                block.clear();
            }
        }
        stored as f64 / raw as f64
    }

    #[test]
    fn values_compress_to_the_requested_ratio_with_each_codec() {
        use lsmlab::Compression::{Lz4, Snappy, Zstd};
        for value_size in [100, 1024, 16384] {
            for ratio in [0.25, 0.5, 0.75] {
                for c in [Snappy, Lz4] {
                    // Byte-oriented codecs remove the repetition and keep the random part.
                    let got = achieved_ratio(c, ratio, value_size);
                    assert!(
                        (got - ratio).abs() < 0.1,
                        "{c:?} {value_size} B at {ratio}: {got:.3}"
                    );
                }
                // zstd also entropy-codes the random part (95 symbols: 6.6 of 8 bits), as it
                // does with db_bench's values.
                let got = achieved_ratio(Zstd, ratio, value_size);
                assert!(
                    got < ratio + 0.05 && got > ratio * 0.75,
                    "Zstd {value_size} B at {ratio}: {got:.3}"
                );
            }
        }
        // Incompressible values are stored as they are.
        assert_eq!(achieved_ratio(Snappy, 1.0, 1024), 1.0);
    }

    #[test]
    fn first_bytes_follow_random_301() {
        let mut rnd = Random::new(301);
        let first = b' ' + rnd.uniform(95) as u8;
        let mut g = ValueGenerator::new(0.5, 100);
        assert_eq!(g.generate(1)[0], first);
    }
}
