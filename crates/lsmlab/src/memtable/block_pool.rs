//! Full-size arena blocks: their allocation (2 MiB, aligned, offered for huge pages), the pool
//! that hands a flushed memtable's blocks to the next memtable, and the filler thread that
//! faults fresh blocks in ahead of the writer.

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::ptr::NonNull;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Largest regular block, and its alignment: one x86-64 huge page (2 MiB). A skiplist search
/// touches a node in a different 4 KiB page at almost every step, so a 64 MiB memtable of 4 KiB
/// pages misses the TLB at each step; blocks of whole huge pages (asked for with
/// `MADV_HUGEPAGE`, which the kernel may refuse) need 32 TLB entries for it. 2 MiB bounds the
/// tail a full memtable wastes to about 3 % of a 64 MiB write buffer.
pub(super) const MAX_BLOCK: usize = 2 << 20;

/// Most fresh blocks the filler keeps faulted in ahead of the writer (8 MiB; fewer for small
/// write buffers, see [`BlockPool::with_filler`]). The first touch of a
/// fresh huge page cost ~3 ms per 2 MiB on this project's VM (the kernel zeroes it, and the
/// hypervisor backs it), while a writer of 1 KB values consumes a block every ~3.5 ms: a few
/// blocks of margin let the filler keep up across bursts.
const AHEAD: usize = 4;

/// Bytes between the writes that fault a fresh block in: one per 4 KiB page (a huge page
/// faults whole on its first).
const PAGE: usize = 4 << 10;

/// After this long without a block taken, the filler hands the memory of the pooled blocks
/// beyond its mark back to the kernel. The pool saves the zeroing of fresh
/// pages for writers fast enough to outrun the filler; a writer that takes a 2 MiB block less
/// often than every 50 ms writes under 40 MB/s, which the filler's ready blocks serve
/// on their own (it faults a block in ~3 ms). A full 64 MiB pool held that much resident memory through
/// read-only phases: 56 MiB of lsmlab's 366 MiB peak RSS in the suite's LevelDB 1 KB cell,
/// whose `readrandom` follows the writes and lasts 0.24 s.
const IDLE: Duration = Duration::from_millis(50);

/// One block of the arena: uninitialised memory, freed with the layout it was allocated with.
pub(super) struct Block {
    pub(super) ptr: NonNull<u8>,
    pub(super) layout: Layout,
}

impl Block {
    /// `bytes` (a multiple of 8) of uninitialised memory; blocks of [`MAX_BLOCK`] bytes are
    /// aligned to it and offered to the kernel for a huge page.
    pub(super) fn new(bytes: usize) -> Block {
        let align = if bytes == MAX_BLOCK { MAX_BLOCK } else { 8 };
        let layout = Layout::from_size_align(bytes, align).expect("arena block layout");
        // SAFETY: the layout's size is at least 8 (callers ask for ≥ 1 word).
        let Some(ptr) = NonNull::new(unsafe { alloc(layout) }) else {
            handle_alloc_error(layout)
        };
        #[cfg(target_os = "linux")]
        if align == MAX_BLOCK {
            // SAFETY: the range is this block's own, aligned to the huge-page size. Advice only:
            // where transparent huge pages are off, the call fails and 4 KiB pages serve.
            unsafe { libc::madvise(ptr.as_ptr().cast(), bytes, libc::MADV_HUGEPAGE) };
        }
        Block { ptr, layout }
    }

    /// Returns the block's pages to the kernel, keeping its address range: the next touch of
    /// a page faults a zeroed one in. Arena memory is never read before it is written, so the
    /// contents lost do not matter.
    fn decommit(&self) {
        #[cfg(unix)]
        // SAFETY: the range is this block's own, and the block is not in use (it is in the
        // pool, owned by the thread that called this).
        unsafe {
            libc::madvise(
                self.ptr.as_ptr().cast(),
                self.layout.size(),
                libc::MADV_DONTNEED,
            );
        }
    }

    /// Writes one byte per page, so that the page faults (and the kernel's zeroing) happen
    /// here rather than in the writer that later fills the block.
    fn fault_in(&self) {
        for off in (0..self.layout.size()).step_by(PAGE) {
            // SAFETY: `off` is within the block, which this thread owns; arena memory is never
            // read before the arena writes it, so the value written does not matter.
            unsafe { self.ptr.as_ptr().add(off).write_volatile(0) };
        }
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        // SAFETY: allocated in `Block::new` with this layout, freed once.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

// SAFETY: a block is plain memory that only its owner (an arena or the pool) reaches.
unsafe impl Send for Block {}

/// Full-size blocks for the memtables of one database.
///
/// A fresh block costs a page fault per page and the kernel's zeroing of it (on this project's
/// VM, zeroing a fresh 2 MiB huge page was a third of a 1 KB fill's samples); a memtable is
/// written once and then dropped after its flush, so its blocks are handed to the next memtable
/// as they are (arena memory is never read before it is written). The pool keeps at most one
/// write buffer's worth, so it never holds more than the memtable that returned it did.
///
/// The first memtables of a database have no flushed predecessor to inherit from. With a
/// filler ([`BlockPool::with_filler`]), a background thread faults fresh blocks in once a
/// memtable has asked for one, keeping one ready per block asked for, up to its mark
/// (`min(AHEAD, a quarter of a write buffer)`, at least one block), so that
/// the writer does not take those faults itself: a sequential fill of 1 KB values spent 37 %
/// of the writer's time in them, and ran at 0.77× RocksDB's (which uses no huge pages) until
/// this.
pub(crate) struct BlockPool {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<PoolState>,
    /// Wakes the filler: a block was taken, or the pool is closing.
    wake: Condvar,
    /// Most blocks kept.
    capacity: usize,
    /// Blocks the filler keeps ready (0: no filler).
    ahead: usize,
    /// Full-size blocks the memtables can hold at once (`max_write_buffer_number` write
    /// buffers): with that many out, writes stop until a flush gives a memtable's blocks back,
    /// so a block faulted in ahead would only add to the peak.
    held_limit: usize,
}

struct PoolState {
    /// Blocks ready to use, their pages resident.
    free: Vec<Block>,
    /// Blocks whose pages went back to the kernel ([`IDLE`]): the filler faults them in again
    /// before anything else.
    cold: Vec<Block>,
    /// When an arena last took a block.
    last_take: Instant,
    /// Full-size blocks arenas have asked for (saturating). The filler keeps as many ready as
    /// were asked for, up to its mark: a small database that fills one or two blocks
    /// does not get 8 MiB of blocks faulted in that it will never use.
    asked: usize,
    /// Full-size blocks given back (saturating): `asked - returned` are held by memtables.
    returned: usize,
    /// The pool was dropped: the filler ends.
    closed: bool,
}

impl PoolState {
    /// Blocks the filler keeps ready now: one per block asked for so far, up to its mark, and
    /// none that would take the memtables past what they can hold at once.
    fn ahead(&self, shared: &Shared) -> usize {
        let held = self.asked.saturating_sub(self.returned);
        shared
            .ahead
            .min(self.asked)
            .min(shared.held_limit.saturating_sub(held))
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, PoolState> {
        // A panic under this lock leaves a list of blocks, which is still sound to use.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl BlockPool {
    /// A pool keeping up to `max_bytes` of blocks (rounded up to whole blocks), filled only by
    /// the blocks of dropped arenas (databases use [`BlockPool::with_filler`]).
    #[cfg(test)]
    pub(crate) fn new(max_bytes: usize) -> Arc<BlockPool> {
        BlockPool::build(max_bytes, 0, usize::MAX)
    }

    fn build(max_bytes: usize, ahead: usize, held_limit: usize) -> Arc<BlockPool> {
        let capacity = max_bytes.div_ceil(MAX_BLOCK);
        Arc::new(BlockPool {
            shared: Arc::new(Shared {
                state: Mutex::new(PoolState {
                    free: Vec::new(),
                    cold: Vec::new(),
                    last_take: Instant::now(),
                    asked: 0,
                    returned: 0,
                    closed: false,
                }),
                wake: Condvar::new(),
                capacity,
                ahead: ahead.min(capacity),
                held_limit,
            }),
        })
    }

    /// A pool of one write buffer (`max_bytes`) for `memtables` memtables at most
    /// (`max_write_buffer_number`), whose thread also faults fresh blocks in ahead of need (at
    /// most [`AHEAD`] and a quarter of the capacity, but at least one block, and none beyond
    /// what `memtables` full memtables hold). If the thread cannot be started, the pool works
    /// without it.
    ///
    /// With 8 MiB write buffers the mark is one block, so the idle hand-back ([`IDLE`]) now
    /// applies to them too (with 4 ready blocks in a 4-block pool it never did): a writer
    /// that resumes after a pause finds one block ready while the filler faults the others in.
    pub(crate) fn with_filler(max_bytes: usize, memtables: usize) -> Arc<BlockPool> {
        // At most a quarter of the pool (one write buffer), at least one block: with 8 MiB
        // write buffers, [`AHEAD`] blocks ready were a third write buffer held beside the
        // active and the flushing memtable (seed 000's 16 KB blob cell: peak RSS 57-58 MiB
        // against 49-51 with one block ready, RocksDB's 53; fills no slower, 3 alternated runs).
        let ahead = AHEAD.min(max_bytes.div_ceil(MAX_BLOCK) / 4).max(1);
        // A block ready beyond the blocks of `memtables` full memtables waits for a flush, as
        // the writer does: with 64 MiB buffers 4 more blocks held the peak 8 MiB above
        // RocksDB's two write buffers.
        let held_limit = max_bytes
            .div_ceil(MAX_BLOCK)
            .saturating_mul(memtables.max(1));
        let pool = BlockPool::build(max_bytes, ahead, held_limit);
        let shared = pool.shared.clone();
        let _ = std::thread::Builder::new()
            .name("lsmlab-arena".into())
            .spawn(move || fill(&shared));
        pool
    }

    /// A full-size block, if one is ready.
    pub(super) fn take(&self) -> Option<Block> {
        let mut st = self.shared.lock();
        st.asked = st.asked.saturating_add(1);
        st.last_take = Instant::now();
        let b = st.free.pop();
        // Only a filler below its mark has work: no wake-up (a system call) otherwise.
        let wake = st.free.len() < st.ahead(&self.shared);
        drop(st);
        if wake {
            self.shared.wake.notify_one();
        }
        b
    }

    /// Keeps the full-size blocks among `blocks` while there is room; frees the rest.
    pub(super) fn give_back(&self, blocks: &mut Vec<Block>) {
        let mut st = self.shared.lock();
        let mut dropped = Vec::new();
        for b in blocks.drain(..) {
            if b.layout.size() != MAX_BLOCK {
                continue;
            }
            st.returned = st.returned.saturating_add(1);
            if st.free.len() + st.cold.len() >= self.shared.capacity {
                // A resident block is worth more than a decommitted one.
                match st.cold.pop() {
                    Some(c) => dropped.push(c),
                    None => continue,
                }
            }
            st.free.push(b);
        }
        // The idle clock is not restarted: blocks of a flushed memtable that come back when no
        // writer has taken a block for [`IDLE`] are handed back at once (restarting it kept
        // the last memtable's blocks resident into a following read-only phase: LevelDB 1 KB
        // cell peak RSS 306–327 → 332–358 MiB, 3 alternated runs). A writer that was only
        // held up still finds the filler's ready blocks.
        let wake = self.shared.ahead > 0 && st.free.len() > st.ahead(&self.shared);
        drop(st);
        drop(dropped);
        if wake {
            self.shared.wake.notify_one();
        }
    }

    /// Blocks held ready.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.shared.lock().free.len()
    }

    /// Blocks held with their pages handed back.
    #[cfg(test)]
    pub(super) fn cold_len(&self) -> usize {
        self.shared.lock().cold.len()
    }
}

impl Drop for BlockPool {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.wake.notify_all();
    }
}

/// The filler: once an arena has asked for a block, keeps `shared.ahead` blocks faulted in;
/// once no block has been taken for [`IDLE`], hands the memory of the others back.
fn fill(shared: &Shared) {
    // Idle priority: the filler only uses a core nobody else wants. At normal priority, waking
    // it could preempt the writer for the milliseconds a fresh block takes, which put 16 KB
    // overwrites' P99 at 45 µs against 19 µs without the filler.
    #[cfg(target_os = "linux")]
    {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: pid 0 is the calling thread; `param` is a valid sched_param. A failure
        // leaves the thread at normal priority.
        unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) };
    }
    let mut st = shared.lock();
    loop {
        if st.closed {
            return;
        }
        let ahead = st.ahead(shared);
        if st.free.len() < ahead {
            let cold = st.cold.pop();
            drop(st);
            let b = cold.unwrap_or_else(|| Block::new(MAX_BLOCK));
            b.fault_in();
            st = shared.lock();
            if st.free.len() + st.cold.len() < shared.capacity {
                st.free.push(b);
            }
            continue;
        }
        if st.free.len() > ahead {
            let idle = st.last_take.elapsed();
            if idle >= IDLE {
                let spare: Vec<Block> = st.free.drain(ahead..).collect();
                drop(st);
                for b in &spare {
                    b.decommit();
                }
                st = shared.lock();
                let mut overflow = Vec::new();
                for b in spare {
                    // `give_back` may have filled the pool meanwhile.
                    if st.free.len() + st.cold.len() < shared.capacity {
                        st.cold.push(b);
                    } else {
                        overflow.push(b);
                    }
                }
                if !overflow.is_empty() {
                    drop(st);
                    drop(overflow);
                    st = shared.lock();
                }
                continue;
            }
            st = shared
                .wake
                .wait_timeout(st, IDLE - idle)
                .map(|(g, _)| g)
                .unwrap_or_else(|e| e.into_inner().0);
            continue;
        }
        st = shared.wake.wait(st).unwrap_or_else(|e| e.into_inner());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// Waits up to 60 s for `done`: the filler runs at idle priority, so a test run that keeps
    /// both cores busy can hold it back for a while.
    fn wait_until(done: impl Fn() -> bool) -> bool {
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(60) {
            if done() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        false
    }

    /// Waits for `pool` to hold `n` ready blocks.
    fn wait_for(pool: &BlockPool, n: usize) -> bool {
        wait_until(|| pool.len() == n)
    }

    #[test]
    fn the_filler_keeps_blocks_ready_once_asked_and_within_capacity() {
        let pool = BlockPool::with_filler(64 * MAX_BLOCK, 2);
        // Nothing is faulted in before a memtable needs a full-size block.
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(pool.len(), 0);
        assert!(pool.take().is_none(), "nothing ready on the first ask");
        // One block ready per block asked for, up to AHEAD.
        assert!(wait_for(&pool, 1), "holds {}", pool.len());
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(pool.len(), 1, "no more ready than asked for");
        for asked in 2..=AHEAD + 1 {
            let b = pool.take().expect("a ready block");
            assert_eq!(b.layout.size(), MAX_BLOCK);
            assert_eq!(b.ptr.as_ptr() as usize % MAX_BLOCK, 0);
            assert!(
                wait_for(&pool, asked.min(AHEAD)),
                "after {asked} asks: holds {}",
                pool.len()
            );
        }

        // Small pools: the filler keeps at most a quarter of the capacity ready, at least one.
        for (blocks, mark) in [(1, 1), (4, 1), (8, 2), (4 * AHEAD, AHEAD)] {
            let small = BlockPool::with_filler(blocks * MAX_BLOCK, 2);
            for asked in 1..=blocks {
                drop(small.take());
                assert!(wait_for(&small, asked.min(mark)));
            }
            std::thread::sleep(Duration::from_millis(50));
            assert_eq!(small.len(), mark, "pool of {blocks} blocks");
        }
    }

    #[test]
    fn the_filler_keeps_nothing_ready_beyond_what_the_memtables_can_hold() {
        // Write buffers of 4 blocks, 2 memtables: 8 blocks held at most, a mark of 1.
        let pool = BlockPool::with_filler(4 * MAX_BLOCK, 2);
        for asked in 1..=7 {
            drop(pool.take());
            assert!(wait_for(&pool, 1), "after {asked} asks");
        }
        // The eighth block fills both memtables: nothing more is faulted in.
        assert!(pool.take().is_some());
        std::thread::sleep(Duration::from_millis(60));
        assert_eq!((pool.len(), pool.cold_len()), (0, 0));
        // A flushed memtable gives its 4 blocks back: they serve the next one.
        let mut blocks: Vec<Block> = (0..4).map(|_| Block::new(MAX_BLOCK)).collect();
        pool.give_back(&mut blocks);
        assert_eq!(pool.len() + pool.cold_len(), 4);
    }

    #[test]
    fn idle_blocks_beyond_the_filler_s_mark_go_cold_and_are_reused_first() {
        let pool = BlockPool::with_filler(64 * MAX_BLOCK, 2);
        // A writer that has asked for AHEAD blocks: the filler's mark is AHEAD.
        for asked in 1..=AHEAD {
            drop(pool.take());
            assert!(wait_for(&pool, asked));
        }
        let n = 3;
        let mut blocks: Vec<Block> = (0..n).map(|_| Block::new(MAX_BLOCK)).collect();
        pool.give_back(&mut blocks);
        wait_until(|| pool.cold_len() >= n);
        assert_eq!((pool.len(), pool.cold_len()), (AHEAD, n));
        // A writer again: the filler tops up from the cold blocks, not from new ones.
        let b = pool.take().expect("a ready block");
        drop(b);
        wait_until(|| pool.cold_len() < n);
        assert!(wait_for(&pool, AHEAD));
        assert_eq!(pool.cold_len(), n - 1);
    }

    #[test]
    fn a_full_pool_keeps_returned_blocks_over_cold_ones() {
        let pool = BlockPool::with_filler((4 * AHEAD + 2) * MAX_BLOCK, 2);
        assert_eq!(pool.shared.ahead, AHEAD);
        for asked in 1..=AHEAD {
            drop(pool.take());
            assert!(wait_for(&pool, asked));
        }
        let cold = 3 * AHEAD + 2;
        let mut blocks: Vec<Block> = (0..cold).map(|_| Block::new(MAX_BLOCK)).collect();
        pool.give_back(&mut blocks);
        wait_until(|| pool.cold_len() >= cold);
        assert_eq!((pool.len(), pool.cold_len()), (AHEAD, cold));
        // The pool is full: the blocks of a flushed memtable replace the cold ones. (The idle
        // clock restarts first, so that the filler cannot decommit them before the check.)
        let mut blocks: Vec<Block> = (0..2).map(|_| Block::new(MAX_BLOCK)).collect();
        pool.shared.lock().last_take = Instant::now();
        pool.give_back(&mut blocks);
        assert_eq!((pool.len(), pool.cold_len()), (AHEAD + 2, cold - 2));
    }

    #[test]
    fn without_a_filler_only_returned_blocks_are_reused() {
        let pool = BlockPool::new(4 * MAX_BLOCK);
        assert!(pool.take().is_none());
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(pool.len(), 0);
        let mut blocks = vec![Block::new(MAX_BLOCK), Block::new(4096)];
        pool.give_back(&mut blocks);
        assert_eq!(pool.len(), 1, "only the full-size block is kept");
    }
}
