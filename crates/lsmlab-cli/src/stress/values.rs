//! Keys and values of the stress test: each value names its key and version and carries filler
//! derived from both, so any value read can be checked on its own, whoever wrote it.

/// The key of slot `k`: 16 bytes, ordered as the slots.
pub fn key(k: u32) -> Vec<u8> {
    format!("key{k:013}").into_bytes()
}

/// The slot a key names, if it is a stress key.
pub fn slot_of(key: &[u8]) -> Option<u32> {
    std::str::from_utf8(key.strip_prefix(b"key")?)
        .ok()?
        .parse()
        .ok()
}

fn mix(mut x: u64) -> u64 {
    // splitmix64's finaliser: every input bit moves every output bit.
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The value of version `version` of slot `k`, between 16 and about `max_len` bytes long (the
/// length varies with the version, so that some values cross `min_blob_size` and some don't).
pub fn value(k: u32, version: u32, max_len: usize) -> Vec<u8> {
    let h = mix((u64::from(k) << 32) | u64::from(version));
    let mut v = format!("{k}:{version}:").into_bytes();
    let len = 16 + (h as usize) % max_len.max(1);
    let mut x = h;
    while v.len() < len {
        x = mix(x);
        v.push(b'a' + (x % 26) as u8);
    }
    v
}

/// The version a value holds for slot `k`, or why it cannot be a value of that slot.
pub fn version_of(k: u32, v: &[u8], max_len: usize) -> Result<u32, String> {
    let text = String::from_utf8_lossy(&v[..v.len().min(32)]).into_owned();
    let mut parts = text.splitn(3, ':');
    let (Some(ks), Some(vs)) = (parts.next(), parts.next()) else {
        return Err(format!("value {text:?} is not a stress value"));
    };
    let (Ok(got_k), Ok(version)) = (ks.parse::<u32>(), vs.parse::<u32>()) else {
        return Err(format!("value {text:?} is not a stress value"));
    };
    if got_k != k {
        return Err(format!("value of slot {got_k} read for slot {k}"));
    }
    if value(k, version, max_len) != v {
        return Err(format!(
            "value of slot {k} version {version} has wrong bytes ({} long)",
            v.len()
        ));
    }
    Ok(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_check_themselves() {
        for k in [0, 7, 123_456] {
            for ver in [1, 2, 99] {
                let v = value(k, ver, 300);
                assert!(v.len() >= 16 && v.len() < 16 + 300 + 16);
                assert_eq!(version_of(k, &v, 300), Ok(ver));
                assert!(version_of(k + 1, &v, 300).is_err());
                let mut bad = v.clone();
                let last = bad.len() - 1;
                bad[last] ^= 1;
                assert!(version_of(k, &bad, 300).is_err());
            }
        }
        assert_eq!(slot_of(&key(42)), Some(42));
        assert!(key(9) < key(10));
    }
}
