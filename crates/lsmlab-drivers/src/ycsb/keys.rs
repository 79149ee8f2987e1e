//! YCSB's record keys: `user` followed by the key number, hashed with FNV-1a-64 unless inserts
//! are ordered (CoreWorkload's `buildKeyName` and `Utils.fnvhash64`).

const FNV_OFFSET_BASIS_64: u64 = 0xCBF2_9CE4_8422_2325;
const FNV_PRIME_64: u64 = 1_099_511_628_211;

/// YCSB's `Utils.fnvhash64`: FNV-1a over the 8 little-endian bytes of `val`, then Java's
/// `Math.abs` of the signed result (which leaves `i64::MIN` negative, as Java does).
pub fn fnv_hash64(val: u64) -> i64 {
    let mut hash = FNV_OFFSET_BASIS_64;
    for byte in val.to_le_bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(FNV_PRIME_64);
    }
    (hash as i64).wrapping_abs()
}

/// The key of record number `keynum`: `user<number>`, the number hashed unless `ordered`,
/// left-padded with zeros to `zero_padding` digits.
pub fn build_key_name(keynum: u64, ordered: bool, zero_padding: usize) -> String {
    let n: i64 = if ordered {
        keynum as i64
    } else {
        fnv_hash64(keynum)
    };
    let digits = n.to_string();
    let fill = zero_padding.saturating_sub(digits.len());
    format!("user{}{}", "0".repeat(fill), digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_vectors_match_ycsb() {
        assert_eq!(build_key_name(0, false, 1), "user6284781860667377211");
        assert_eq!(build_key_name(1, false, 1), "user8517097267634966620");
        assert_eq!(build_key_name(2, false, 1), "user1820151046732198393");
        assert_eq!(build_key_name(999, false, 1), "user2071219101098386137");
    }

    #[test]
    fn ordered_keys_are_the_number_zero_padded() {
        assert_eq!(build_key_name(42, true, 1), "user42");
        assert_eq!(build_key_name(42, true, 6), "user000042");
    }
}
