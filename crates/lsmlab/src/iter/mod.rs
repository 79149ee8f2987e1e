//! The internal iterator: the one cursor interface of the read path.
//!
//! Data blocks, tables, memtables, levels and the merge of them all are internal iterators over
//! internal keys in [`compare_internal`](crate::key::compare_internal) order; the user-facing
//! iterator sits on top and hides versions and deletions.

mod level;
mod merge;
#[cfg(test)]
mod tests;

pub use level::LevelIterator;
pub use merge::MergingIterator;

use crate::error::Result;

/// A bidirectional cursor over internal keys and their values.
///
/// After any positioning call, either `valid()` is true and `key()`/`value()` are the current
/// entry, or the cursor is exhausted (or failed: `status()` tells).
pub trait InternalIterator: Send {
    /// True when positioned at an entry.
    fn valid(&self) -> bool;
    /// Moves to the first entry.
    fn seek_to_first(&mut self);
    /// Moves to the last entry.
    fn seek_to_last(&mut self);
    /// Moves to the first entry whose internal key is ≥ `target`.
    fn seek(&mut self, target: &[u8]);
    /// Moves to the next entry. Requires `valid()`.
    fn next(&mut self);
    /// Moves to the previous entry. Requires `valid()`.
    fn prev(&mut self);
    /// The current internal key. Requires `valid()`.
    fn key(&self) -> &[u8];
    /// The current value. Requires `valid()`, and for iterators over tables read through the
    /// block cache a `prepare_value()` since the last move: a table iterator may stand at an
    /// entry known from its index alone, its data block not yet read.
    fn value(&self) -> &[u8];
    /// Makes `value()` available at the current entry (reads the data block a table iterator
    /// deferred). False if that failed: the iterator is then invalid and `status()` says why.
    /// Requires `valid()`.
    fn prepare_value(&mut self) -> bool {
        self.valid()
    }
    /// The first error met, if any; a failed iterator is not valid.
    fn status(&self) -> Result<()>;
}
