//! Background work: one flush thread and `max_background_jobs − 1` compaction threads (at least
//! one), as RocksDB splits its jobs, plus manual compactions run by the caller's thread.
//! Concurrent compactions never share a table: the picker skips tables marked
//! `being_compacted`, which are marked under the state lock before it is released.

use super::inline_work::InlineBudget;
use super::{DbInner, LevelStats, State};
use crate::blob::BlobFileBuilder;
use crate::compaction::{
    pick_blob_gc, run_compaction, CompactionKind, CompactionOutcome, CompactionParams,
    CompactionSpec, Requested, Shadowing,
};
use crate::env::{Env, IoCategory};
use crate::error::{Error, Result};
use crate::filename::table_path;
use crate::iter::{InternalIterator, MergingIterator};
use crate::key::{append_internal_key, parse_internal_key, SequenceNumber, ValueKind};
use crate::memtable::{MemTable, MemTableIter};
use crate::options::Options;
use crate::sst::TableBuilder;
use crate::stats::{HistogramKind, Statistics, Ticker};
use crate::version::{NewBlobFile, NewFile, VersionEdit};
use parking_lot::MutexGuard;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub(crate) fn start(inner: &Arc<DbInner>) -> Result<Vec<JoinHandle<()>>> {
    let spawn = |name: &str, f: fn(&DbInner)| {
        let worker = inner.clone();
        std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || f(&worker))
            .map_err(|e| Error::io("spawn background thread", &inner.dir, e))
    };
    // RocksDB's split of max_background_jobs: one flush thread, the rest compact.
    let mut threads = Vec::new();
    if inner.opts.deterministic_background {
        // The writing thread does the work at fixed points (`run_inline`).
        return Ok(threads);
    }
    let mut spawned = spawn("lsmlab-flush", flush_loop).map(|t| threads.push(t));
    for _ in 0..inner.opts.max_background_jobs.saturating_sub(1).max(1) {
        spawned =
            spawned.and_then(|_| spawn("lsmlab-compact", compaction_loop).map(|t| threads.push(t)));
    }
    if let Err(e) = spawned {
        // Stop the threads already running: they hold the database (and its lock) alive.
        inner.shutting_down.store(true, Ordering::Release);
        inner.bg_cv.notify_all();
        for t in threads {
            let _ = t.join();
        }
        return Err(e);
    }
    Ok(threads)
}

/// CPU time of the calling thread, in microseconds.
fn thread_cpu_micros() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000 + ts.tv_nsec as u64 / 1000
}

fn flush_loop(inner: &DbInner) {
    let mut st = inner.state.lock();
    loop {
        if inner.shutting_down.load(Ordering::Acquire) {
            return;
        }
        if st.bg_error.is_some() || st.imms.is_empty() {
            inner.bg_cv.wait(&mut st);
            continue;
        }
        flush_one(inner, &mut st);
    }
}

/// Flushes every immutable memtable waiting (there must be one) into one level-0 table,
/// releasing the state lock while it is written. As RocksDB's flush takes every memtable
/// ready when it starts: when writes outrun flushes, level 0 grows by fewer, larger tables and
/// a key overwritten across memtables is written once. Flushing them one by one, 64 write
/// buffers of 8 MiB gave 19 level-0 tables of 4.4 MB and writers slowed for 55 % of their time.
fn flush_one(inner: &DbInner, st: &mut MutexGuard<'_, State>) {
    let imms: Vec<Arc<MemTable>> = st.imms.iter().cloned().collect();
    if imms.is_empty() {
        return;
    }
    let number = st.versions.new_file_number();
    st.flush_running = true;
    let t = Instant::now();
    let built = MutexGuard::unlocked(st, || {
        write_level0_table(
            &inner.env,
            &inner.dir,
            &inner.opts,
            &inner.stats,
            &imms,
            number,
            inner.smallest_snapshot(),
            &mut || inner.state.lock().versions.new_file_number(),
        )
    });
    st.flush_running = false;
    let r = built.and_then(|file| install_flush(inner, st, file, imms.len(), t));
    if let Err(e) = r {
        inner.set_bg_error(st, e);
    }
    inner.bg_cv.notify_all();
    MutexGuard::unlocked(st, || inner.reaper.purge());
}

/// `deterministic_background`: the calling thread does, now, the flushes and compactions that
/// are due, in the order the background threads would pick them, within the budget of one call
/// (`inline_work`): the memtables full when it began, the compactions writes made due, and a
/// bounded number of float-ups. Called after each write, after a get that asked for work, and
/// where the engine would wait for the background threads. Another thread already doing this
/// work is left to finish it.
pub(crate) fn run_inline(inner: &DbInner) -> Result<()> {
    let mut st = inner.state.lock();
    let mut budget = InlineBudget::new(st.imms.len());
    let r = run_inline_within(inner, &mut st, &mut budget);
    drop(st);
    inner.longest_inline.record(&budget);
    r
}

fn run_inline_within(
    inner: &DbInner,
    st: &mut MutexGuard<'_, State>,
    budget: &mut InlineBudget,
) -> Result<()> {
    loop {
        DbInner::check_bg_error(st)?;
        if st.flush_running || st.compactions_running > 0 || st.manual_running {
            return Ok(());
        }
        if !st.imms.is_empty() && budget.take_flush() {
            flush_one(inner, st);
            continue;
        }
        if inner.opts.disable_auto_compactions || st.manual_compaction_waiting > 0 {
            return Ok(());
        }
        let Some(spec) = pick(inner, st, &st.versions.current(), budget.requested()) else {
            return Ok(());
        };
        budget.count(&spec);
        run_job(inner, st, spec);
    }
}

/// Runs one picked compaction as a job: counted as running until its inputs are purged, so
/// that `wait_idle` sees it done only then; a failure becomes the background error.
fn run_job(inner: &DbInner, st: &mut MutexGuard<'_, State>, spec: CompactionSpec) {
    st.compactions_running += 1;
    let r = run_picked(inner, st, &spec);
    // Recorded before the lock is let go for the purge: a failed MANIFEST write leaves the
    // version set refusing edits, and a flush that took the lock in between would otherwise
    // find no background error, try its edit and record that refusal in place of the fault.
    if let Err(e) = r {
        inner.set_bg_error(st, e);
    }
    // The spec holds the last references to the input tables: dropped before the purge, so
    // that their files go (and, with `mmap_read`, their pages leave the RSS) now, not after
    // the next job.
    drop(spec);
    MutexGuard::unlocked(st, || {
        #[cfg(test)]
        super::test_pause_point();
        inner.reaper.purge()
    });
    st.compactions_running -= 1;
    inner.bg_cv.notify_all();
}

/// Installs the table of a flush of the `flushed` oldest immutable memtables.
fn install_flush(
    inner: &DbInner,
    st: &mut MutexGuard<'_, State>,
    out: FlushOutput,
    flushed: usize,
    started: Instant,
) -> Result<()> {
    let mut edit = VersionEdit::default();
    // As RocksDB, flush bytes count the blob files the flush wrote.
    let written = out.table.as_ref().map_or(0, |f| f.size) + out.blob_bytes;
    edit.blob_added = out.blobs;
    // The MANIFEST's last sequence is the newest write in a table: the first record of the
    // first WAL still needed follows it, which is how recovery notices an older WAL that lost
    // every record while a newer one kept some.
    let flushed_seq = out.table.as_ref().map_or(0, |f| f.largest_seq);
    let created = out.table.as_ref().map(|f| f.number);
    if let Some(f) = out.table {
        edit.added.push((0, f));
    }
    // Once these memtables are in a table, only WALs from the next memtable on are needed.
    let next_wal = st
        .imms
        .get(flushed)
        .map_or(st.mem_wal_number, |m| m.wal_number);
    edit.log_number = Some(next_wal);
    DbInner::check_bg_error(st)?;
    // New tables' directory entries are durable before the MANIFEST names them.
    inner.env.fs.sync_dir(&inner.dir)?;
    st.versions.last_sequence = st.versions.last_sequence.max(flushed_seq);
    st.versions.log_and_apply(edit)?;
    st.imms.drain(..flushed);
    let mem = inner.current_mem();
    inner.install_super_version(st, mem);
    if let Some(number) = created {
        inner.policy.on_table_created(0, number);
    }
    inner.stats.add(Ticker::FlushWriteBytes, written);
    inner.stats.add(Ticker::Flushes, 1);
    inner.stats.record(
        HistogramKind::FlushTime,
        started.elapsed().as_micros() as u64,
    );
    let ls = &mut st.level_stats[0];
    ls.written += written;
    ls.blob_written += out.blob_bytes;
    ls.count += 1;
    ls.micros += started.elapsed().as_micros() as u64;
    delete_obsolete_wals(inner, next_wal);
    Ok(())
}

/// Removes WAL files numbered below `keep_from`.
pub(crate) fn delete_obsolete_wals(inner: &DbInner, keep_from: u64) {
    if let Ok(names) = inner.env.fs.list_dir(&inner.wal_dir) {
        for name in names {
            if let Some((crate::filename::FileKind::Wal, n)) = crate::filename::parse(&name) {
                if n < keep_from {
                    let _ = inner.env.fs.remove_file(&inner.wal_dir.join(name));
                }
            }
        }
    }
}

/// What a flush wrote: a table (none for an empty memtable) and the blob files it references.
#[derive(Default)]
pub(crate) struct FlushOutput {
    pub(crate) table: Option<NewFile>,
    /// Finished and synced, like the table.
    pub(crate) blobs: Vec<NewBlobFile>,
    /// Bytes written to the blob files.
    pub(crate) blob_bytes: u64,
}

/// Writes memtables (oldest first: a flush takes every one waiting) as one table `number`,
/// values of at least `min_blob_size` bytes into blob files numbered by `new_blob_number` when
/// blob files are enabled.
///
/// A version shadowed by a newer version of its key at or below `smallest_snapshot` is left
/// out, as a compaction would drop it: no reader can see it. RocksDB's flush does the same;
/// writing every version made a flush of overwritten keys write a fifth more (16 KB values,
/// overwrite) and each later compaction read it again. Deletions are kept: older versions of
/// their keys may sit in tables.
/// Merged, the versions of a key from all the memtables meet, so shadowed ones go once.
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_level0_table(
    env: &Env,
    dir: &Path,
    opts: &Options,
    stats: &Arc<Statistics>,
    mems: &[Arc<MemTable>],
    number: u64,
    smallest_snapshot: SequenceNumber,
    new_blob_number: &mut dyn FnMut() -> u64,
) -> Result<FlushOutput> {
    if mems.iter().all(|m| m.is_empty()) {
        return Ok(FlushOutput::default());
    }
    write_entries(
        env,
        dir,
        opts,
        stats,
        number,
        smallest_snapshot,
        new_blob_number,
        |add| {
            if let [mem] = mems {
                return mem.for_each(add);
            }
            let children: Vec<Box<dyn InternalIterator>> = mems
                .iter()
                .map(|m| Box::new(MemTableIter::new(m.clone())) as Box<dyn InternalIterator>)
                .collect();
            let mut it = MergingIterator::new(children);
            it.seek_to_first();
            while it.valid() {
                add(it.key(), it.value())?;
                it.next();
            }
            it.status()
        },
    )
}

/// Writes the entries `feed` gives (in internal-key order) as level-0 table `number`.
#[allow(clippy::too_many_arguments)]
fn write_entries(
    env: &Env,
    dir: &Path,
    opts: &Options,
    stats: &Arc<Statistics>,
    number: u64,
    smallest_snapshot: SequenceNumber,
    new_blob_number: &mut dyn FnMut() -> u64,
    feed: impl FnOnce(&mut dyn FnMut(&[u8], &[u8]) -> Result<()>) -> Result<()>,
) -> Result<FlushOutput> {
    let mut out = FlushOutput::default();
    let path = table_path(dir, number);
    let file = env.create(&path, IoCategory::Flush)?;
    let mut b = TableBuilder::new(file, path, opts.flush_table_options()).with_stats(stats.clone());
    let mut blobs = BlobFileBuilder::new(env, dir, opts, stats, IoCategory::Blob);
    let (mut lo_seq, mut hi_seq, mut dels) = (u64::MAX, 0, 0);
    let mut separated_key = Vec::new();
    let mut shadowing = Shadowing::new(smallest_snapshot);
    feed(&mut |k, v| {
        if let Some(p) = parse_internal_key(k) {
            if shadowing.next(p.user_key, p.seq).shadowed {
                return Ok(());
            }
            lo_seq = lo_seq.min(p.seq);
            hi_seq = hi_seq.max(p.seq);
            if p.kind == ValueKind::Deletion {
                dels += 1;
            }
            if p.kind == ValueKind::Value && blobs.separates(v.len()) {
                let index = blobs.add(p.user_key, v, new_blob_number)?;
                separated_key.clear();
                append_internal_key(&mut separated_key, p.user_key, p.seq, ValueKind::BlobIndex);
                return b.add(&separated_key, &index);
            }
        }
        b.add(k, v)
    })?;
    // Blob files are finished (synced) first: the table is useless without them.
    (out.blobs, out.blob_bytes) = blobs.finish()?;
    let oldest_blob_file = out.blobs.iter().map(|b| b.number).min().unwrap_or(0);
    let s = b.finish()?;
    out.table = Some(NewFile {
        number,
        size: s.file_size,
        smallest: s.smallest,
        largest: s.largest,
        smallest_seq: lo_seq,
        largest_seq: hi_seq,
        num_entries: s.properties.num_entries,
        num_deletions: dels,
        oldest_blob_file,
        shadowed_below: 0,
    });
    Ok(out)
}

fn compaction_loop(inner: &DbInner) {
    let mut st = inner.state.lock();
    loop {
        if inner.shutting_down.load(Ordering::Acquire) {
            return;
        }
        let spec = if st.bg_error.is_some()
            || st.manual_running
            || st.manual_compaction_waiting > 0
            || inner.opts.disable_auto_compactions
        {
            None
        } else {
            pick(inner, &st, &st.versions.current(), Requested::Allowed)
        };
        let Some(spec) = spec else {
            // Tables whose last reader (an iterator, a get's version) let go after the job
            // that replaced them: deleted here, within one wake-up of an idle database.
            if inner.reaper.has_queued() {
                MutexGuard::unlocked(&mut st, || inner.reaper.purge());
                continue;
            }
            inner.bg_cv.wait_for(&mut st, Duration::from_millis(500));
            continue;
        };
        run_job(inner, &mut st, spec);
    }
}

/// The compaction the layout policy asks for, else one that blob garbage collection forces —
/// if the policy lets it start beside the running jobs (`LayoutPolicy::may_start`: a policy
/// whose own jobs must not overlap some compactions says so there).
fn pick(
    inner: &DbInner,
    st: &State,
    v: &crate::version::Version,
    requested: Requested,
) -> Option<CompactionSpec> {
    let spec = inner
        .policy
        .pick_compaction(v, &inner.opts, requested)
        .or_else(|| pick_blob_gc(v, &inner.opts))?;
    inner
        .policy
        .may_start(&spec, v, &st.running)
        .then_some(spec)
}

/// Runs a compaction picked under the state lock; releases the lock while merging.
fn run_picked(
    inner: &DbInner,
    st: &mut MutexGuard<'_, State>,
    spec: &CompactionSpec,
) -> Result<()> {
    let started = Instant::now();
    let mut edit = VersionEdit::default();
    for (level, f) in spec.inputs_with_level() {
        edit.deleted.push((level, f.number));
    }
    if spec.trivial_move {
        for (_, f) in spec.inputs_with_level() {
            edit.added.push((spec.output_level, f.to_new_file()));
        }
        // A move writes nothing, but the policy sees its inputs leave their level (FSLSM: a
        // floated table moved out of level 0 undoes its float-up).
        inner
            .policy
            .apply_result(spec, &CompactionOutcome::default(), &mut edit);
        DbInner::check_bg_error(st)?;
        st.versions.log_and_apply(edit)?;
        let mem = inner.current_mem();
        inner.install_super_version(st, mem);
        inner.stats.add(Ticker::TrivialMoves, 1);
        st.level_stats[spec.output_level].moved += spec.all_inputs().map(|f| f.size).sum::<u64>();
        return Ok(());
    }
    for f in spec.all_inputs() {
        f.being_compacted.store(true, Ordering::Relaxed);
    }
    let job = st.running.start(spec);
    let version = st.versions.current();
    let smallest_snapshot = inner.smallest_snapshot();
    let cpu0 = thread_cpu_micros();
    let outcome = MutexGuard::unlocked(st, || {
        let mut next_number = || inner.state.lock().versions.new_file_number();
        let mut params = CompactionParams {
            spec,
            version: &version,
            tables: &inner.tables,
            blobs: &inner.blobs,
            env: &inner.env,
            dir: &inner.dir,
            opts: &inner.opts,
            smallest_snapshot,
            new_file_number: &mut next_number,
            stats: &inner.stats,
            category: IoCategory::Compaction,
        };
        // A job of the policy's own kind is the policy's to run.
        inner
            .policy
            .run_job(&mut params)
            .unwrap_or_else(|| run_compaction(&mut params))
    });
    let installed = outcome.and_then(|outcome| {
        let cpu = thread_cpu_micros().saturating_sub(cpu0);
        install_compaction(inner, st, spec, edit, &outcome)?;
        Ok((outcome, cpu))
    });
    // Cleared only after the install: until then a policy may rely on the inputs and the
    // running job staying as they were (FSLSM: the levels a float-up crosses must not change).
    for f in spec.all_inputs() {
        f.being_compacted.store(false, Ordering::Relaxed);
    }
    st.running.finish(job);
    let (outcome, cpu) = installed?;
    let micros = started.elapsed().as_micros() as u64;
    let s = &inner.stats;
    if inner.policy.record_job(spec, &outcome, micros, s) {
        return Ok(());
    }
    s.add(Ticker::Compactions, 1);
    if spec.output_level == 0 && spec.start_level() == 0 {
        s.add(Ticker::IntraL0Compactions, 1);
    }
    s.add(Ticker::CompactReadBytes, outcome.bytes_read);
    s.add(Ticker::CompactWriteBytes, outcome.bytes_written);
    s.record(HistogramKind::CompactionTime, micros);
    s.record(HistogramKind::CompactionCpuTime, cpu);
    let ls: &mut LevelStats = &mut st.level_stats[spec.output_level];
    ls.count += 1;
    for (level, f) in spec.inputs_with_level() {
        if level == spec.output_level {
            ls.read_next += f.size;
        } else {
            ls.read_level += f.size;
        }
    }
    ls.written += outcome.bytes_written;
    ls.blob_written += outcome.blobs.bytes_written;
    ls.blob_read += outcome.blobs.gc_bytes_written;
    ls.micros += micros;
    ls.cpu_micros += cpu;
    ls.keys_in += outcome.entries_in;
    ls.keys_dropped += outcome.entries_dropped;
    Ok(())
}

/// Installs what a job wrote, each table in the level the policy gives it
/// (`LayoutPolicy::apply_result`): `edit` already deletes the inputs.
fn install_compaction(
    inner: &DbInner,
    st: &mut MutexGuard<'_, State>,
    spec: &CompactionSpec,
    mut edit: VersionEdit,
    outcome: &CompactionOutcome,
) -> Result<()> {
    edit.blob_added.clone_from(&outcome.blobs.added);
    edit.blob_garbage.clone_from(&outcome.blobs.garbage);
    let added_before = edit.added.len();
    inner.policy.apply_result(spec, outcome, &mut edit);
    let created: Vec<(usize, u64)> = edit.added[added_before..]
        .iter()
        .map(|(level, f)| (*level, f.number))
        .collect();
    DbInner::check_bg_error(st)?;
    inner.env.fs.sync_dir(&inner.dir)?;
    st.versions.log_and_apply(edit)?;
    let mem = inner.current_mem();
    inner.install_super_version(st, mem);
    for (level, number) in created {
        inner.policy.on_table_created(level, number);
    }
    Ok(())
}

/// Compacts `[begin, end]` level by level down to the deepest level holding data.
pub(crate) fn compact_range(
    inner: &DbInner,
    begin: Option<&[u8]>,
    end: Option<&[u8]>,
) -> Result<()> {
    let mut st = inner.state.lock();
    st.manual_compaction_waiting += 1;
    while st.compactions_running > 0 || st.manual_running {
        inner.bg_cv.wait(&mut st);
    }
    st.manual_running = true;
    let r = (|| -> Result<()> {
        let n = st.versions.current().levels.len();
        let deepest = (0..n)
            .rev()
            .find(|&l| !st.versions.current().levels[l].is_empty())
            .unwrap_or(0);
        for level in 0..deepest.max(1).min(n - 1) {
            DbInner::check_bg_error(&st)?;
            let v = st.versions.current();
            let inputs0 = v.compaction_inputs(level, begin, end);
            if inputs0.is_empty() {
                continue;
            }
            let lo = inputs0
                .iter()
                .map(|f| f.smallest_user())
                .min()
                .unwrap_or_default()
                .to_vec();
            let hi = inputs0
                .iter()
                .map(|f| f.largest_user())
                .max()
                .unwrap_or_default()
                .to_vec();
            let inputs1 = v.overlapping(level + 1, Some(&lo), Some(&hi));
            let spec = CompactionSpec::two_levels(
                CompactionKind::Manual,
                level,
                level + 1,
                inputs0,
                inputs1,
                "manual",
            );
            run_picked(inner, &mut st, &spec)?;
        }
        Ok(())
    })();
    st.manual_running = false;
    st.manual_compaction_waiting -= 1;
    if let Err(e) = &r {
        inner.set_bg_error(&mut st, e.clone());
    }
    inner.bg_cv.notify_all();
    drop(st);
    inner.reaper.purge();
    r
}

/// Waits until there is nothing to flush or compact. Of the float-ups a policy asks for, it
/// waits for at most [`InlineBudget::FLOAT_UPS`] more (the pending queue's length): no write
/// made them due, and another thread's reads can ask for more of them for as long as they
/// read. Writes from other threads while it waits can keep it waiting, as in RocksDB.
pub(crate) fn wait_idle(inner: &DbInner) -> Result<()> {
    let floats_before = inner.stats.ticker(Ticker::FloatUps);
    let mut budget = InlineBudget::for_wait();
    let mut st = inner.state.lock();
    loop {
        DbInner::check_bg_error(&st)?;
        if inner.opts.deterministic_background {
            run_inline_within(inner, &mut st, &mut budget)?;
        }
        let floated = inner.stats.ticker(Ticker::FloatUps) - floats_before;
        let requested = if floated < InlineBudget::FLOAT_UPS {
            budget.requested()
        } else {
            Requested::Withheld
        };
        let busy = !st.imms.is_empty()
            || st.flush_running
            || st.compactions_running > 0
            || st.manual_running
            || (!inner.opts.disable_auto_compactions
                && pick(inner, &st, &st.versions.current(), requested).is_some());
        if !busy {
            return Ok(());
        }
        if inner.shutting_down.load(Ordering::Acquire) {
            return Err(Error::Closed);
        }
        inner.bg_cv.notify_all();
        inner.bg_cv.wait_for(&mut st, Duration::from_millis(50));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::MemFs;

    /// Entries of the level-0 table a memtable of `(seq, kind, key)` flushes to, with every
    /// snapshot at or above `smallest_snapshot`.
    fn flushed_entries(
        writes: &[(u64, ValueKind, &[u8])],
        smallest_snapshot: SequenceNumber,
    ) -> u64 {
        let env = Env::new(Arc::new(MemFs::new()));
        env.fs.create_dir_all(Path::new("/db")).unwrap();
        let mem = MemTable::new(1);
        for &(seq, kind, key) in writes {
            mem.add(seq, kind, key, b"value");
        }
        let out = write_level0_table(
            &env,
            Path::new("/db"),
            &Options::default(),
            &Arc::new(Statistics::new()),
            &[Arc::new(mem)],
            7,
            smallest_snapshot,
            &mut || unreachable!("no blob files without key-value separation"),
        )
        .unwrap();
        out.table
            .expect("a non-empty memtable gives a table")
            .num_entries
    }

    #[test]
    fn a_flush_leaves_out_versions_no_snapshot_can_read() {
        use ValueKind::{Deletion, Value};
        let writes: &[(u64, ValueKind, &[u8])] = &[
            (1, Value, b"a"),
            (2, Value, b"a"),
            (3, Value, b"b"),
            (4, Value, b"a"),
            (5, Deletion, b"b"),
            (6, Value, b"c"),
        ];
        // No snapshot: the newest version of each key, the deletion of b included.
        assert_eq!(flushed_entries(writes, 6), 3);
        // Recovery flushes with no snapshot at all: the newest versions, none lost.
        assert_eq!(flushed_entries(writes, crate::key::MAX_SEQUENCE), 3);
        // A snapshot at 2 still reads a@2 (shadowed by a@4, above it) but not a@1, and b@3.
        assert_eq!(flushed_entries(writes, 2), 5);
        // A snapshot older than every write keeps every version.
        assert_eq!(flushed_entries(writes, 0), 6);
    }

    #[test]
    fn a_flush_of_several_memtables_keeps_one_version_of_a_key_written_in_each() {
        use ValueKind::{Deletion, Value};
        let env = Env::new(Arc::new(MemFs::new()));
        env.fs.create_dir_all(Path::new("/db")).unwrap();
        // Oldest first, as the memtables wait for flush.
        let batches: [&[(u64, ValueKind, &[u8])]; 3] = [
            &[(1, Value, b"a"), (2, Value, b"b")],
            &[(3, Value, b"a"), (4, Deletion, b"b"), (5, Value, b"c")],
            &[(6, Value, b"a"), (7, Value, b"d")],
        ];
        let mems: Vec<Arc<MemTable>> = batches
            .iter()
            .enumerate()
            .map(|(wal, writes)| {
                let mem = MemTable::new(wal as u64 + 1);
                for &(seq, kind, key) in writes.iter() {
                    mem.add(seq, kind, key, b"value");
                }
                Arc::new(mem)
            })
            .collect();
        let flushed = |smallest_snapshot| {
            write_level0_table(
                &env,
                Path::new("/db"),
                &Options::default(),
                &Arc::new(Statistics::new()),
                &mems,
                9,
                smallest_snapshot,
                &mut || unreachable!("no blob files without key-value separation"),
            )
            .unwrap()
            .table
            .expect("a table")
        };
        // a@6, the deletion of b, c@5, d@7: one version of each key across the memtables.
        let t = flushed(7);
        assert_eq!((t.num_entries, t.num_deletions), (4, 1));
        assert_eq!((t.smallest_seq, t.largest_seq), (4, 7));
        // A snapshot at 3 still reads a@3 and b@2.
        assert_eq!(flushed(3).num_entries, 6);
    }
}
