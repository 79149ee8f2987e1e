//! Buffers of dropped blocks, kept per thread for that thread's next block reads.
//!
//! A block cache's memory is allocated by the threads that read and freed by the threads that
//! evict, and a reader evicts as it inserts. glibc's malloc gives each thread an arena of its
//! own, so the blocks a new thread read came from fresh pages of its arena while the blocks it
//! evicted went back to the arenas of the threads that had read them, where their pages stayed
//! resident: in `db_bench`'s sequence of benchmarks, each on new threads, a 32 MiB cache held
//! 58 MB of pages. A dropped block's buffer handed to the same thread's next read keeps the
//! memory of a cache at its capacity whatever threads come and go.

use std::cell::RefCell;

/// Most buffers a thread keeps: the evictions of one insert are a few blocks.
const MAX_KEPT: usize = 16;

/// Most bytes a thread keeps, 256 KiB: sixteen 16 KiB blocks, a bound on what a thread that
/// stops reading holds until it ends.
const MAX_KEPT_BYTES: usize = 256 << 10;

/// Largest buffer kept, 64 KiB: a quarter of a thread's share, so that one huge block (a
/// large value's) does not take all of it.
const MAX_BUFFER: usize = MAX_KEPT_BYTES / 4;

/// Buffers are allocated in steps of 256 bytes, so that blocks of about the same size share
/// a class: the data blocks of a table differ by an entry or two. A kept buffer is handed out
/// for a block at most one step shorter than it.
const STEP: usize = 256;

thread_local! {
    static KEPT: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
}

/// Capacity of the buffer [`take`] allocates for `len` bytes.
fn allocation(len: usize) -> usize {
    len.div_ceil(STEP) * STEP
}

/// An empty buffer with room for `len` bytes: one this thread kept if one fits without more
/// than a step to spare, else a new one.
pub(crate) fn take(len: usize) -> Vec<u8> {
    let want = allocation(len);
    let kept = KEPT
        .try_with(|k| {
            let mut k = k.try_borrow_mut().ok()?;
            let i = k
                .iter()
                .position(|b| b.capacity() >= len && b.capacity() <= want + STEP)?;
            Some(k.swap_remove(i))
        })
        .ok()
        .flatten();
    match kept {
        Some(mut b) => {
            b.clear();
            b
        }
        None => Vec::with_capacity(want),
    }
}

/// Keeps `buf` for this thread's next reads if there is room; frees it otherwise.
pub(crate) fn give(buf: Vec<u8>) {
    if buf.capacity() < STEP || buf.capacity() > MAX_BUFFER {
        return;
    }
    let _ = KEPT.try_with(|k| {
        if let Ok(mut k) = k.try_borrow_mut() {
            let held: usize = k.iter().map(Vec::capacity).sum();
            if k.len() < MAX_KEPT && held + buf.capacity() <= MAX_KEPT_BYTES {
                k.push(buf);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_blocks_buffer_serves_the_next_read_of_its_thread() {
        let b = take(4150);
        assert!(b.is_empty() && b.capacity() >= 4150);
        let at = b.as_ptr();
        give(b);
        // A block a few bytes longer or shorter, in the same step or the one below.
        let again = take(4100);
        assert_eq!(again.as_ptr(), at);
        assert!(again.is_empty());
    }

    #[test]
    fn a_buffer_much_larger_than_the_block_is_not_handed_out() {
        let big = take(16 * 1024);
        let at = big.as_ptr();
        give(big);
        let small = take(4096);
        assert_ne!(small.as_ptr(), at);
        assert!(small.capacity() >= 4096 && small.capacity() < 16 * 1024);
        // It is still kept for a block of its own size.
        let same = take(16 * 1024 - 10);
        assert_eq!(same.as_ptr(), at);
    }

    fn kept() -> (usize, usize) {
        KEPT.with(|k| {
            let k = k.borrow();
            (k.len(), k.iter().map(Vec::capacity).sum())
        })
    }

    #[test]
    fn a_thread_keeps_at_most_sixteen_buffers_and_256_kib() {
        let small: Vec<Vec<u8>> = (0..40).map(|_| take(4096)).collect();
        for b in small {
            give(b);
        }
        assert_eq!(kept(), (MAX_KEPT, MAX_KEPT * 4096));
        KEPT.with(|k| k.borrow_mut().clear());
        // Bytes bound the count as well: four 64 KiB buffers fill a thread's share.
        let large: Vec<Vec<u8>> = (0..6).map(|_| take(64 << 10)).collect();
        for b in large {
            give(b);
        }
        assert_eq!(kept(), (4, MAX_KEPT_BYTES));
        // Too small or too large to be worth keeping.
        KEPT.with(|k| k.borrow_mut().clear());
        give(Vec::with_capacity(100));
        give(Vec::with_capacity(MAX_BUFFER + 1));
        assert_eq!(kept(), (0, 0));
    }

    #[test]
    fn another_thread_does_not_take_them() {
        let b = take(4096);
        let at = b.as_ptr() as usize;
        give(b);
        // `at` stays allocated (this thread keeps it), so a fresh buffer cannot have its address.
        let other = std::thread::spawn(|| {
            let v = take(4096);
            v.as_ptr() as usize
        })
        .join()
        .unwrap();
        assert_ne!(other, at);
        let mine = take(4096);
        assert_eq!(mine.as_ptr() as usize, at);
    }
}
