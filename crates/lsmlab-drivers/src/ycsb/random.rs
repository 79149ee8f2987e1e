//! The random source of one YCSB client thread.
//!
//! YCSB draws from Java's `ThreadLocalRandom`, which cannot be seeded, so its sequences are not
//! reproducible; lsmlab uses SplitMix64 seeded from the `lsmlab.seed` property plus the thread
//! number, so that a run can be repeated exactly. Only the distributions must match YCSB's.

/// SplitMix64 (Steele, Lea and Flood, 2014).
#[derive(Debug, Clone)]
pub struct YcsbRandom {
    state: u64,
}

impl YcsbRandom {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> YcsbRandom {
        YcsbRandom { state: seed }
    }

    /// 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 bits, as Java's `nextDouble`.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A non-negative 63-bit number (Java's `Math.abs(nextLong())` without its MIN_VALUE quirk).
    pub fn next_nonneg(&mut self) -> u64 {
        self.next_u64() >> 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_reference_vector() {
        // First outputs of SplitMix64 from seed 0 (reference implementation by Vigna).
        let mut r = YcsbRandom::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn doubles_are_in_unit_interval() {
        let mut r = YcsbRandom::new(42);
        let mean = (0..10_000).map(|_| r.next_f64()).sum::<f64>() / 10_000.0;
        assert!((0.48..0.52).contains(&mean), "{mean}");
    }
}
