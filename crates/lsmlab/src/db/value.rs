//! The value seam: every read turns a stored value into the user's value here, so that blob
//! files (key-value separation) plug in at one place.

use crate::error::{Error, Result};
use crate::key::ValueKind;

/// The user's value for a stored `(kind, raw)` pair.
pub fn resolve(kind: ValueKind, raw: &[u8]) -> Result<Vec<u8>> {
    match kind {
        ValueKind::Value => Ok(raw.to_vec()),
        ValueKind::BlobIndex => Err(Error::InvalidArgument(
            "this database holds a blob index, but blob files are not supported by this build"
                .into(),
        )),
        ValueKind::Deletion => Err(Error::InvalidArgument("a deletion has no value".into())),
    }
}
