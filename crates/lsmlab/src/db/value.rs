//! The value seam: every read turns a stored value into the user's value here, so that blob
//! files (key-value separation) plug in at one place.

use crate::blob::BlobCache;
use crate::env::IoCategory;
use crate::error::{Error, Result};
use crate::key::ValueKind;
use crate::pinned::PinnedValue;

/// The user's value for a stored `(kind, raw)` pair of `user_key`, owned: a copy of the value
/// itself, or for a blob index the value read (and checked) from its blob file.
pub fn resolve(
    kind: ValueKind,
    user_key: &[u8],
    raw: &[u8],
    blobs: &BlobCache,
) -> Result<PinnedValue> {
    match kind {
        ValueKind::Value => Ok(raw.to_vec().into()),
        ValueKind::BlobIndex => blobs.read_pinned(raw, user_key, IoCategory::UserRead),
        ValueKind::Deletion => Err(Error::InvalidRequest("a deletion has no value".into())),
    }
}

/// As [`resolve`], for a stored value a get found: an inline value is returned as it is, still
/// in its data block, not copied (a 16 KiB value was copied twice per get).
pub fn resolve_pinned(
    kind: ValueKind,
    user_key: &[u8],
    raw: PinnedValue,
    blobs: &BlobCache,
) -> Result<PinnedValue> {
    match kind {
        ValueKind::Value => Ok(raw),
        _ => resolve(kind, user_key, &raw, blobs),
    }
}
