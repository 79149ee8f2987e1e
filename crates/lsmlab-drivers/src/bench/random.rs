//! db_bench's two random generators, so that lsmlab draws the same numbers from the same seeds.
//!
//! - [`Random`]: RocksDB's `util/random.h` `Random`, the Park–Miller "minimal standard" generator
//!   (x ← 16807·x mod 2³¹−1). db_bench's value generator draws from it with seed 301.
//! - [`Random64`]: RocksDB's `Random64`, a 64-bit Mersenne Twister (`std::mt19937_64`); each
//!   benchmark thread owns one seeded with `--seed + 1000 + k`, k counting the threads started in
//!   the run from 1, and key numbers are `Next() % num`.

/// Park–Miller minimal standard generator over 31 bits.
#[derive(Debug, Clone)]
pub struct Random {
    seed: u32,
}

const M: u32 = 2_147_483_647; // 2^31 - 1
const A: u64 = 16_807; // bits 14, 8, 7, 5, 2, 1, 0

impl Random {
    /// A generator seeded as RocksDB seeds it (0 and 2³¹−1 are replaced by 1).
    pub fn new(seed: u32) -> Random {
        let mut s = seed & M;
        if s == 0 || s == M {
            s = 1;
        }
        Random { seed: s }
    }

    /// The next number in 1..2³¹−1.
    pub fn next_u32(&mut self) -> u32 {
        // seed * A fits 46 bits; fold the bits above 31 back in, since 2^31 ≡ 1 (mod M).
        let product = u64::from(self.seed) * A;
        let mut s = ((product >> 31) + (product & u64::from(M))) as u32;
        if s > M {
            s -= M;
        }
        self.seed = s;
        s
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn uniform(&mut self, n: u32) -> u32 {
        self.next_u32() % n
    }
}

const NN: usize = 312;
const MM: usize = 156;
const MATRIX_A: u64 = 0xB502_6F5A_A966_19E9;
const UPPER: u64 = 0xFFFF_FFFF_8000_0000;
const LOWER: u64 = 0x7FFF_FFFF;

/// The 64-bit Mersenne Twister of C++'s `std::mt19937_64`.
#[derive(Clone)]
pub struct Random64 {
    state: Box<[u64; NN]>,
    index: usize,
}

impl Random64 {
    /// Seeded as `std::mt19937_64(seed)`.
    pub fn new(seed: u64) -> Random64 {
        let mut state = Box::new([0u64; NN]);
        state[0] = seed;
        for i in 1..NN {
            let prev = state[i - 1];
            state[i] = 6_364_136_223_846_793_005u64
                .wrapping_mul(prev ^ (prev >> 62))
                .wrapping_add(i as u64);
        }
        Random64 { state, index: NN }
    }

    fn twist(&mut self) {
        let s = &mut self.state;
        for i in 0..NN {
            let x = (s[i] & UPPER) | (s[(i + 1) % NN] & LOWER);
            let mut y = x >> 1;
            if x & 1 != 0 {
                y ^= MATRIX_A;
            }
            s[i] = s[(i + MM) % NN] ^ y;
        }
        self.index = 0;
    }

    /// The next 64 random bits (RocksDB's `Random64::Next`).
    pub fn next_u64(&mut self) -> u64 {
        if self.index >= NN {
            self.twist();
        }
        let mut x = self.state[self.index];
        self.index += 1;
        x ^= (x >> 29) & 0x5555_5555_5555_5555;
        x ^= (x << 17) & 0x71D6_7FFF_EDA6_0000;
        x ^= (x << 37) & 0xFFF7_EEE0_0000_0000;
        x ^= x >> 43;
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mt19937_64_matches_the_cxx_standard_vector() {
        // C++11 [rand.predef]: the 10000th output of a default-constructed mt19937_64
        // (seed 5489) is 9981545732273789042.
        let mut r = Random64::new(5489);
        let mut last = 0;
        for _ in 0..10_000 {
            last = r.next_u64();
        }
        assert_eq!(last, 9_981_545_732_273_789_042);
        assert_eq!(Random64::new(5489).next_u64(), 14_514_284_786_278_117_030);
    }

    #[test]
    fn park_miller_matches_the_minimal_standard() {
        // Park & Miller (1988): from seed 1, the 10000th value is 1043618065.
        let mut r = Random::new(1);
        let mut last = 0;
        for _ in 0..10_000 {
            last = r.next_u32();
        }
        assert_eq!(last, 1_043_618_065);
        // Seeds 0 and 2^31-1 degenerate; RocksDB replaces them by 1.
        assert_eq!(Random::new(0).next_u32(), 16_807);
        assert_eq!(Random::new(M).next_u32(), 16_807);
    }
}
