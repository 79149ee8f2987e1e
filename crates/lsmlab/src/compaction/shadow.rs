//! Which versions no reader can see: the rule flushes and compactions share to drop them.

use crate::key::SequenceNumber;

/// Walks entries in internal-key order (user key ascending, newest version first) and tells,
/// for each, whether it starts a new user key and whether a newer version of its key at or
/// below the oldest snapshot hides it from every reader (snapshots see the newest version at
/// or below their sequence; later reads see the newest of all).
pub(crate) struct Shadowing {
    smallest_snapshot: SequenceNumber,
    /// The user key of the previous entry; kept in one buffer, not allocated per key.
    last_user_key: Vec<u8>,
    /// The sequence of the previous version of the current user key, if one came before.
    newer_seq: Option<SequenceNumber>,
}

/// What [`Shadowing::next`] says of an entry.
pub(crate) struct Visibility {
    /// The entry is the newest version of its user key (the first one seen).
    pub first_of_key: bool,
    /// A newer version at or below the oldest snapshot hides it from every reader.
    pub shadowed: bool,
}

impl Shadowing {
    /// A walk for readers at `smallest_snapshot` and later.
    pub(crate) fn new(smallest_snapshot: SequenceNumber) -> Shadowing {
        Shadowing {
            smallest_snapshot,
            last_user_key: Vec::new(),
            newer_seq: None,
        }
    }

    /// The next entry, the version `seq` of `user_key`.
    pub(crate) fn next(&mut self, user_key: &[u8], seq: SequenceNumber) -> Visibility {
        let first_of_key = self.newer_seq.is_none() || user_key != self.last_user_key.as_slice();
        if first_of_key {
            self.last_user_key.clear();
            self.last_user_key.extend_from_slice(user_key);
            self.newer_seq = None;
        }
        let shadowed = self.newer_seq.is_some_and(|s| s <= self.smallest_snapshot);
        self.newer_seq = Some(seq);
        Visibility {
            first_of_key,
            shadowed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (user key, seq) in internal-key order → (first of key, shadowed) for each.
    fn walk(entries: &[(&[u8], u64)], smallest_snapshot: u64) -> Vec<(bool, bool)> {
        let mut s = Shadowing::new(smallest_snapshot);
        entries
            .iter()
            .map(|&(k, seq)| {
                let v = s.next(k, seq);
                (v.first_of_key, v.shadowed)
            })
            .collect()
    }

    #[test]
    fn a_version_is_shadowed_by_a_newer_one_at_or_below_the_oldest_snapshot() {
        let entries: &[(&[u8], u64)] = &[(b"a", 9), (b"a", 5), (b"a", 2), (b"b", 7), (b"", 1)];
        // No snapshot below the newest write: only the newest version of each key is seen.
        assert_eq!(
            walk(entries, 9),
            [
                (true, false),
                (false, true),
                (false, true),
                (true, false),
                (true, false)
            ]
        );
        // A snapshot at 5 still reads a@5; a@2 is hidden by it.
        assert_eq!(
            walk(entries, 5),
            [
                (true, false),
                (false, false),
                (false, true),
                (true, false),
                (true, false)
            ]
        );
        // The largest sequence (a recovery flush, no snapshot at all) hides no newest version,
        // and an empty user key after a non-empty one is a new key.
        assert_eq!(
            walk(entries, crate::key::MAX_SEQUENCE),
            [
                (true, false),
                (false, true),
                (false, true),
                (true, false),
                (true, false)
            ]
        );
        // A snapshot older than every write keeps every version.
        assert!(walk(entries, 0).iter().all(|&(_, shadowed)| !shadowed));
    }
}
