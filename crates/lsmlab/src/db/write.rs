//! The write path: group commit into the WAL and the memtable, memtable switches, and stalls.

use super::write_queue::{Turn, Writer};
use super::{DbInner, WalState};
use crate::env::IoCategory;
use crate::error::{Error, Result};
use crate::filename::wal_path;
use crate::memtable::MemTable;
use crate::options::WriteOptions;
use crate::stats::{HistogramKind, StallCause, Ticker};
use crate::wal::LogWriter;
use crate::WriteBatch;
use parking_lot::MutexGuard;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Largest group a leader commits in one WAL record: a bound on the latency a small write pays
/// for riding along with large ones.
const MAX_GROUP_BYTES: usize = 1 << 20;

pub(crate) fn write(inner: &DbInner, opts: &WriteOptions, batch: WriteBatch) -> Result<()> {
    if batch.is_empty() {
        return Ok(());
    }
    if inner.shutting_down.load(Ordering::Acquire) {
        return Err(Error::Closed);
    }
    if opts.sync && opts.disable_wal {
        return Err(Error::InvalidRequest(
            "WriteOptions: sync and disable_wal cannot both be set (nothing would be synced)"
                .into(),
        ));
    }
    // Only a batch this large can hold a key or value too long for a memtable entry.
    if batch.approximate_size() > crate::memtable::MAX_ENTRY_LEN {
        if let Some(r) = batch.records().find(|r| {
            r.key.len() > crate::memtable::MAX_ENTRY_LEN
                || r.value.len() > crate::memtable::MAX_ENTRY_LEN
        }) {
            return Err(Error::InvalidRequest(format!(
                "write: a key of {} bytes or value of {} bytes; at most {} bytes each",
                r.key.len(),
                r.value.len(),
                crate::memtable::MAX_ENTRY_LEN
            )));
        }
    }
    let me = Writer::new(batch, opts.sync, opts.disable_wal);
    if let Turn::Done(result) = inner.queue.join(&me) {
        return result;
    }
    let (group, bytes) = inner.queue.take_group(&me, MAX_GROUP_BYTES);
    let logged = log_group(inner, &group, bytes);
    inner.queue.pass_on(&group);
    let result = logged.map(|g| insert_group(inner, g));
    inner.queue.complete(&group, &result);
    inner.stats.add(Ticker::WriteDoneBySelf, 1);
    inner
        .stats
        .add(Ticker::WriteDoneByOther, group.len() as u64 - 1);
    result
}

/// A group whose WAL record is written, holding the memtable's insert turn.
///
/// The commit of a group has two stages: the WAL record (under the WAL lock) and the memtable
/// insert (under `DbInner::memtable_turn`). A group takes the insert turn before it lets go of
/// the WAL lock, so groups insert in the order of their records, and the next group writes its
/// record while this one inserts. Why: with two writer threads and 100-byte values, each
/// commit is one write (the other thread is still making its next batch when a commit starts),
/// so one thread waited out the other's whole commit, spinning: 23 % of all CPU samples in
/// `WriteQueue::join`. RocksDB's `enable_pipelined_write` overlaps the same two stages.
struct LoggedGroup<'a> {
    mem: Arc<MemTable>,
    batch: WriteBatch,
    first: u64,
    _turn: MutexGuard<'a, ()>,
}

/// Stage one of a group's commit: makes room in the memtable (delaying or stopping for
/// background work), gives the group its sequence numbers and writes its WAL record.
fn log_group<'a>(
    inner: &'a DbInner,
    group: &[Arc<Writer>],
    bytes: usize,
) -> Result<LoggedGroup<'a>> {
    let mut wal = inner.wal.lock();
    delay_write(inner, &mut wal, bytes as u64);
    make_room_for_write(inner, &mut wal, false)?;
    let mut batch = group[0].batch.lock().take().unwrap_or_default();
    for w in &group[1..] {
        if let Some(b) = w.batch.lock().take() {
            batch.append(&b);
        }
    }
    let leader = &group[0];
    let first = wal.last_seq_logged + 1;
    let record = batch.encode(first);
    if !leader.disable_wal {
        let record_len = record.len() as u64;
        let r = append_to_wal(inner, &mut wal, record, leader.sync);
        if let Err(e) = r {
            // The log may now end in a partial record: refuse every later write.
            let mut st = inner.state.lock();
            inner.set_bg_error(&mut st, e.clone());
            return Err(e);
        }
        inner.stats.add(Ticker::WalFileBytes, record_len);
        inner.stats.add(Ticker::WriteWithWal, group.len() as u64);
    } else {
        // Only a flush makes these durable; close flushes when this is set.
        inner.unlogged_writes.store(true, Ordering::Release);
    }
    wal.last_seq_logged = first + batch.len() as u64 - 1;
    let turn = inner.memtable_turn.lock();
    Ok(LoggedGroup {
        mem: wal.mem.clone(),
        batch,
        first,
        _turn: turn,
    })
}

/// Stage two: inserts a logged group into the memtable and makes it visible to readers.
fn insert_group(inner: &DbInner, g: LoggedGroup<'_>) {
    let count = g.batch.len() as u64;
    #[cfg(test)]
    super::test_pause_point();
    let user_bytes = DbInner::apply_batch(&g.mem, &g.batch, g.first);
    // Groups insert in sequence order (see `LoggedGroup`), so `last_seq` only grows and every
    // write at or below it is in the memtable.
    inner.last_seq.store(g.first + count - 1, Ordering::Release);
    inner.stats.add(Ticker::NumberKeysWritten, count);
    inner.policy.on_writes(count);
    inner.stats.add(Ticker::BytesWritten, user_bytes);
}

/// Appends one record to the WAL: synced (with every older unsynced WAL first) or handed to the
/// operating system.
fn append_to_wal(inner: &DbInner, wal: &mut WalState, record: &[u8], sync: bool) -> Result<()> {
    let Some(log) = wal.log.as_mut() else {
        return Err(Error::Closed);
    };
    log.add_record(record)?;
    if !sync {
        return log.flush();
    }
    let t = Instant::now();
    if !wal.dir_synced {
        inner.env.fs.sync_dir(&inner.wal_dir)?;
        wal.dir_synced = true;
    }
    for (_, old) in wal.unsynced.iter_mut() {
        old.sync()?;
    }
    wal.unsynced.clear();
    log.sync()?;
    inner.stats.add(Ticker::WalFileSynced, 1);
    inner
        .stats
        .record(HistogramKind::WalSync, t.elapsed().as_micros() as u64);
    Ok(())
}

/// While level 0 or the compaction debt is over its slowdown trigger, holds writes to the
/// pace of [`super::write_pacer::WritePacer`]: each write adds its bytes to a debt, paid by
/// sleeping once the debt is worth a quantum.
fn delay_write(inner: &DbInner, wal: &mut WalState, bytes: u64) {
    let opts = &inner.opts;
    if opts.deterministic_background {
        // No background thread to catch up: the writer itself compacts after this write.
        return;
    }
    // The policy's trigger, not the static one: a stretched level 0 must not slow writers.
    let slowdown = inner.policy.level0_triggers(opts).slowdown;
    let l0 = inner.l0_files.load(Ordering::Relaxed);
    let pending = inner.pending_compaction_bytes.load(Ordering::Relaxed);
    let (pressure, cause) = if l0 >= slowdown {
        (l0 as u64, StallCause::L0Slowdown)
    } else if pending >= opts.soft_pending_compaction_bytes_limit {
        (pending, StallCause::PendingSlowdown)
    } else {
        wal.pacer.release();
        return;
    };
    if let Some(wait) = wal.pacer.delay(bytes, pressure, opts.delayed_write_rate) {
        let t = Instant::now();
        std::thread::sleep(wait);
        record_stall(inner, cause, t.elapsed().as_micros() as u64);
    }
}

/// Bytes of the memtables waiting for flush, as the published super version lists them.
fn immutable_bytes(inner: &DbInner) -> usize {
    inner
        .super_version
        .load()
        .imms
        .iter()
        .map(|m| m.approximate_size())
        .sum()
}

/// Counts one wait of a writer, of `micros`, for `cause`.
fn record_stall(inner: &DbInner, cause: StallCause, micros: u64) {
    inner.stats.add(cause.count_ticker(), 1);
    inner.stats.add(cause.micros_ticker(), micros);
    inner.stats.add(Ticker::StallMicros, micros);
    inner.stats.record(HistogramKind::WriteStall, micros);
}

/// Makes sure the active memtable has room, switching to a new one (and a new WAL) when it is
/// full; delays or stops the writer while flushes or level 0 are behind. With `force`, switches
/// even a memtable that is not full (if it holds anything).
fn make_room_for_write(inner: &DbInner, wal: &mut WalState, force: bool) -> Result<()> {
    let opts = &inner.opts;
    loop {
        // Fast path without the state lock, which background threads hold across MANIFEST syncs.
        let healthy = !inner.bg_failed.load(Ordering::Acquire)
            && !inner.shutting_down.load(Ordering::Acquire);
        let active = wal.mem.approximate_size();
        if !force && healthy && active < opts.memtable_never_full_below() {
            return Ok(());
        }
        // Past half of a database-wide budget: whether the memtables waiting for flush make it
        // full, read from the published super version, still without the lock.
        if !force && healthy && !opts.memtable_full(active, immutable_bytes(inner)) {
            return Ok(());
        }
        let l0 = inner.l0_files.load(Ordering::Relaxed);
        let pending = inner.pending_compaction_bytes.load(Ordering::Relaxed);
        let mut st = inner.state.lock();
        DbInner::check_bg_error(&st)?;
        if inner.shutting_down.load(Ordering::Acquire) {
            return Err(Error::Closed);
        }
        let immutable = st.imms.iter().map(|m| m.approximate_size()).sum();
        let full = opts.memtable_full(wal.mem.approximate_size(), immutable);
        if !full && (!force || wal.mem.is_empty()) {
            return Ok(());
        }
        let stop = inner.policy.level0_triggers(opts).stop;
        // With deterministic background work nobody else would make room, and this thread
        // holds the WAL: the writer switches and flushes (and compacts) itself after this
        // write, within its call's budget, instead of waiting.
        if !opts.deterministic_background
            && (st.imms.len() + 1 >= opts.max_write_buffer_number
                || (!force && l0 >= stop)
                || (!force && pending >= opts.hard_pending_compaction_bytes_limit))
        {
            let cause = if st.imms.len() + 1 >= opts.max_write_buffer_number {
                StallCause::MemtableStop
            } else if l0 >= opts.level0_stop_writes_trigger {
                StallCause::L0Stop
            } else {
                StallCause::PendingStop
            };
            let t = Instant::now();
            inner.bg_cv.wait_for(&mut st, Duration::from_millis(100));
            record_stall(inner, cause, t.elapsed().as_micros() as u64);
            continue;
        }
        // Switch to a new WAL and memtable.
        let number = st.versions.new_file_number();
        let new_log = inner
            .env
            .create(&wal_path(&inner.wal_dir, number), IoCategory::Wal)
            .map(LogWriter::new);
        // The old WAL goes to the OS now and is synced by the next `sync` write (or close).
        let synced = match wal.log.as_mut() {
            Some(log) => log.flush(),
            None => Ok(()),
        };
        let new_log = match (new_log, synced) {
            (Ok(l), Ok(())) => l,
            (Err(e), _) | (_, Err(e)) => {
                inner.set_bg_error(&mut st, e.clone());
                return Err(e);
            }
        };
        // Its directory entry is made durable by the first `sync` write to it, as RocksDB does.
        wal.dir_synced = false;
        if let Some(old) = wal.log.replace(new_log) {
            wal.unsynced.push((wal.number, old));
        }
        // WALs below log_number are in synced tables already: nothing left to sync there.
        let flushed_below = st.versions.log_number;
        wal.unsynced.retain(|(n, _)| *n >= flushed_below);
        wal.number = number;
        // A group may still be inserting into the old memtable: a flush must not read it
        // before that ends.
        drop(inner.memtable_turn.lock());
        let old = std::mem::replace(
            &mut wal.mem,
            Arc::new(MemTable::with_pool(number, &inner.memtable_blocks)),
        );
        wal.pacer
            .memtable_switched(old.approximate_size() as u64, Instant::now(), full);
        st.imms.push_back(old);
        st.mem_wal_number = number;
        inner.install_super_version(&st, wal.mem.clone());
        inner.bg_cv.notify_all();
        return Ok(());
    }
}

/// Switches the memtable (if it holds anything) and waits until it and every older memtable is
/// flushed. Memtables that other threads fill meanwhile are not waited for, so the wait ends
/// whatever they write. With deterministic background work the caller flushes them itself,
/// one bounded call at a time (another thread may be at that work: then it waits for it).
pub(crate) fn flush_memtable(inner: &DbInner) -> Result<()> {
    let target = {
        let mut wal = inner.wal.lock();
        make_room_for_write(inner, &mut wal, true)?;
        // Memtables with a WAL below the active one's are the ones to flush.
        inner.state.lock().mem_wal_number
    };
    loop {
        if inner.opts.deterministic_background {
            super::background::run_inline(inner)?;
        }
        let mut st = inner.state.lock();
        DbInner::check_bg_error(&st)?;
        let waiting = st.imms.front().is_some_and(|m| m.wal_number < target);
        if !waiting && !st.flush_running {
            return Ok(());
        }
        if inner.shutting_down.load(Ordering::Acquire) {
            return Err(Error::Closed);
        }
        inner.bg_cv.wait_for(&mut st, Duration::from_millis(100));
    }
}
