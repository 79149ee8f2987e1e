//! Keys as db_bench makes them, and the orders in which benchmarks visit them.
//!
//! `GenerateKeyFromInt` with `keys_per_prefix = 0`: the first `min(key_size, 8)` bytes are the
//! key number in big-endian order (its low bytes when the key is shorter than 8), and the rest
//! is ASCII `'0'` padding. Sequential order counts up from 0; random order is
//! `Random64::Next() % num` (duplicates and all, as in db_bench).

use super::random::Random64;

/// Writes the key of number `v` with `key_size` bytes into `out` (replacing its contents).
pub fn generate_key(v: u64, key_size: usize, out: &mut Vec<u8>) {
    out.clear();
    let fill = key_size.min(8);
    for i in 0..fill {
        out.push((v >> ((fill - i - 1) * 8)) as u8);
    }
    out.resize(key_size, b'0');
}

/// The key of number `v`.
pub fn key_of(v: u64, key_size: usize) -> Vec<u8> {
    let mut k = Vec::with_capacity(key_size);
    generate_key(v, key_size, &mut k);
    k
}

/// Which key numbers a write or delete benchmark visits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyOrder {
    /// 0, 1, 2, … (fillseq).
    Sequential,
    /// `Random64::Next() % num` (fillrandom, overwrite, deleterandom).
    Random,
}

/// db_bench's `KeyGenerator` for the two orders lsmlab runs.
pub struct KeyGenerator {
    order: KeyOrder,
    num: u64,
    next: u64,
}

impl KeyGenerator {
    /// Key numbers in `0..num` in `order`.
    pub fn new(order: KeyOrder, num: u64) -> KeyGenerator {
        KeyGenerator {
            order,
            num: num.max(1),
            next: 0,
        }
    }

    /// The next key number; random orders draw from the thread's generator.
    pub fn next(&mut self, rand: &mut Random64) -> u64 {
        match self.order {
            KeyOrder::Sequential => {
                let v = self.next;
                self.next += 1;
                v
            }
            KeyOrder::Random => rand.next_u64() % self.num,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_is_big_endian_number_then_ascii_zero_padding() {
        assert_eq!(
            key_of(0x0102_0304_0506_0708, 16),
            b"\x01\x02\x03\x04\x05\x06\x07\x0800000000".to_vec()
        );
        assert_eq!(
            key_of(1, 10),
            b"\x00\x00\x00\x00\x00\x00\x00\x0100".to_vec()
        );
        // Shorter than 8 bytes: the low bytes of the number, still big-endian.
        assert_eq!(key_of(0x0102_0304, 2), vec![0x03, 0x04]);
        assert_eq!(key_of(7, 8), vec![0, 0, 0, 0, 0, 0, 0, 7]);
    }

    #[test]
    fn sequential_keys_sort_in_number_order() {
        let keys: Vec<Vec<u8>> = (0..300u64).map(|v| key_of(v, 16)).collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn random_order_is_next_mod_num_of_the_thread_generator() {
        let mut a = Random64::new(1000);
        let mut b = Random64::new(1000);
        let mut g = KeyGenerator::new(KeyOrder::Random, 1000);
        for _ in 0..100 {
            assert_eq!(g.next(&mut a), b.next_u64() % 1000);
        }
        let mut s = KeyGenerator::new(KeyOrder::Sequential, 10);
        assert_eq!(
            (0..3).map(|_| s.next(&mut a)).collect::<Vec<_>>(),
            [0, 1, 2]
        );
    }
}
