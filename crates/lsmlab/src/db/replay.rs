//! Replaying the WALs at open into level-0 tables, as [`WalRecoveryMode`] says, counting what
//! is not replayed.

use super::background::write_level0_table;
use super::DbInner;
use crate::env::{Env, IoCategory};
use crate::error::{Error, Result};
use crate::filename::wal_path;
use crate::key::MAX_SEQUENCE;
use crate::memtable::MemTable;
use crate::options::{Options, WalRecoveryMode};
use crate::stats::Statistics;
use crate::version::{VersionEdit, VersionSet};
use crate::wal::{LogReader, ReadOutcome};
use crate::WriteBatch;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What WAL replay did, for the `LOG` and the `lsmlab.recovery.*` properties.
#[derive(Debug, Clone, Default)]
pub(crate) struct RecoveryReport {
    /// WALs read.
    pub(crate) wals: u64,
    /// Records (write batches) replayed.
    pub(crate) records: u64,
    /// Whole records not replayed: those found after the point where replay stopped, and each
    /// WAL's last record that is whole but fails its checksum (`failed_last_records`).
    pub(crate) dropped_records: u64,
    /// WALs whose last record is whole but fails its checksum, with its offset: a crash cuts
    /// an append short, so such a record was written and damaged afterwards (or lost pages of
    /// an unsynced write in a power cut); either way a write that may have been acknowledged
    /// is not replayed, and is counted in `dropped_records`.
    pub(crate) failed_last_records: Vec<(PathBuf, u64)>,
    /// Damaged stretches of WAL skipped (`SkipAnyCorruptedRecords`) or at which replay
    /// stopped (point in time without `paranoid_checks`).
    pub(crate) damaged_regions: u64,
    /// Why replay stopped before the end of the last WAL, if it did.
    pub(crate) stopped: Option<String>,
    /// WALs holding dropped records or damage: moved to `lost/`, never deleted.
    pub(crate) keep_aside: Vec<u64>,
    /// Level-0 tables (and their blob files) that replay wrote, and their bytes: a flush the
    /// opening process does for the last one's data, counted as a flush as RocksDB counts its
    /// recovery flush, so a step that opens a database with a full WAL owns that write.
    pub(crate) flushes: u64,
    /// Bytes of those tables and blob files.
    pub(crate) flush_bytes: u64,
    /// The blob files' share of `flush_bytes`.
    pub(crate) flush_blob_bytes: u64,
}

impl RecoveryReport {
    /// Whole records found after the point where replay stopped: the dropped records less
    /// the last records that failed their checksum.
    pub(crate) fn dropped_after_stop(&self) -> u64 {
        self.dropped_records - self.failed_last_records.len() as u64
    }
}

/// Replays the WALs numbered `wals` (oldest first) on top of `versions`, flushing what they
/// hold into level-0 tables added to `edit`. Returns the newest sequence number replayed.
///
/// With `write` false it is a dry run for `check`: every record is read, decoded and judged
/// exactly as at open, and nothing is applied or written.
#[allow(clippy::too_many_arguments)]
pub(crate) fn replay_wals(
    env: &Env,
    dir: &Path,
    wal_dir: &Path,
    opts: &Options,
    versions: &mut VersionSet,
    edit: &mut VersionEdit,
    wals: &[u64],
    report: &mut RecoveryReport,
    write: bool,
) -> Result<u64> {
    let mode = opts.wal_recovery_mode;
    let mut last_seq = versions.last_sequence;
    let mut mem = Arc::new(MemTable::new(0));
    // Batches are logged with consecutive sequence numbers. A gap means an older WAL lost its
    // unsynced tail at a record boundary (it reads as complete) while a newer one kept data:
    // replay stops at the gap, so the database is the state after a prefix of the writes, as
    // RocksDB's point-in-time recovery does. (Writes with `disable_wal` leave gaps too; they
    // are not durable, and neither is what follows them in the WAL until a flush.) The first
    // record must follow the newest write the tables hold: a later one means an older WAL lost
    // every record while a newer one kept some.
    let mut next_seq: Option<u64> = None;
    for (i, &num) in wals.iter().enumerate() {
        let path = wal_path(wal_dir, num);
        let data = env.read_file(&path, IoCategory::Other)?;
        let mut reader = LogReader::new(&data, &path);
        report.wals += 1;
        let (dropped_before, damaged_before) = (report.dropped_records, report.damaged_regions);
        loop {
            let at = reader.position();
            if let Some(rec) = reader.next_record() {
                if report.stopped.is_some() {
                    report.dropped_records += 1;
                    continue;
                }
                let Some((seq, batch)) = WriteBatch::decode(rec) else {
                    let why = "WAL record is not a valid write batch";
                    match mode {
                        WalRecoveryMode::SkipAnyCorruptedRecords => report.damaged_regions += 1,
                        WalRecoveryMode::PointInTimeRecovery if !opts.paranoid_checks => {
                            report.damaged_regions += 1;
                            report.stopped = Some(format!("{why} ({} at {at})", path.display()));
                        }
                        _ => return Err(Error::corruption(&path, at, why)),
                    }
                    continue;
                };
                let expected = next_seq.unwrap_or(versions.last_sequence + 1);
                let gap = seq > expected || (next_seq.is_some() && seq != expected);
                if gap && mode != WalRecoveryMode::SkipAnyCorruptedRecords {
                    let why = format!(
                        "sequence gap: record {seq} follows {} ({} at {at})",
                        expected - 1,
                        path.display()
                    );
                    if mode == WalRecoveryMode::AbsoluteConsistency {
                        return Err(Error::corruption(&path, at, why));
                    }
                    report.stopped = Some(why);
                    report.dropped_records += 1;
                    continue;
                }
                next_seq = Some(seq + batch.len() as u64);
                if write {
                    DbInner::apply_batch(&mem, &batch, seq);
                }
                last_seq = last_seq.max(seq + batch.len() as u64 - 1);
                report.records += 1;
                if write && opts.memtable_full(mem.approximate_size(), 0) {
                    flush_recovered(env, dir, opts, versions, edit, report, &mem)?;
                    mem = Arc::new(MemTable::new(0));
                }
                continue;
            }
            match reader.outcome() {
                ReadOutcome::Clean => break,
                ReadOutcome::TornTail { offset, truncated } => {
                    torn_tail(report, mode, &path, offset, truncated)?
                }
                ReadOutcome::Corruption {
                    file,
                    offset,
                    message,
                } => match mode {
                    WalRecoveryMode::SkipAnyCorruptedRecords => report.damaged_regions += 1,
                    _ if report.stopped.is_some() => report.damaged_regions += 1,
                    WalRecoveryMode::PointInTimeRecovery if !opts.paranoid_checks => {
                        report.damaged_regions += 1;
                        report.stopped =
                            Some(format!("{message} ({} at {offset})", file.display()));
                    }
                    _ => {
                        return Err(refuse(
                            env,
                            wal_dir,
                            &wals[i + 1..],
                            &mut reader,
                            file,
                            offset,
                            message,
                        ))
                    }
                },
            }
            // Go on after the damage: to replay (skip any) or to count what is dropped.
            if !reader.skip_damage() {
                break;
            }
        }
        if report.dropped_records > dropped_before || report.damaged_regions > damaged_before {
            report.keep_aside.push(num);
        }
    }
    if write && !mem.is_empty() {
        flush_recovered(env, dir, opts, versions, edit, report, &mem)?;
    }
    Ok(last_seq)
}

/// Judges a WAL's torn tail at `offset`. A whole record that fails its checksum is not what an
/// interrupted append leaves: it may be an acknowledged write, so it is counted and its WAL
/// kept, never ignored.
fn torn_tail(
    report: &mut RecoveryReport,
    mode: WalRecoveryMode,
    path: &Path,
    offset: u64,
    truncated: bool,
) -> Result<()> {
    if !truncated {
        report.dropped_records += 1;
        report
            .failed_last_records
            .push((path.to_path_buf(), offset));
    }
    if report.stopped.is_some() {
        return Ok(());
    }
    match mode {
        WalRecoveryMode::AbsoluteConsistency => {
            return Err(Error::corruption(
                path,
                offset,
                if truncated {
                    "WAL ends in an incomplete record (absolute consistency)"
                } else {
                    "WAL's last record fails its checksum (absolute consistency)"
                },
            ))
        }
        // A torn tail ends this WAL; the next one goes on.
        WalRecoveryMode::SkipAnyCorruptedRecords => {}
        // A crash leaves the end of any WAL not yet synced torn — older WALs are synced only
        // by a later `sync` write, so they may be torn too. Stopping here keeps the state a
        // prefix of the writes (no later synced write is lost: it synced the older WALs first).
        _ if truncated => {
            report.stopped = Some(format!("torn tail ({} at {offset})", path.display()));
        }
        _ => {
            report.stopped = Some(format!(
                "the last record is whole but fails its checksum ({} at {offset})",
                path.display()
            ));
        }
    }
    Ok(())
}

/// The error that refuses a damaged WAL, with the count of the whole records after the
/// damage (in this WAL and in the later ones) that recovering up to the damage would drop:
/// what a person needs to judge the damage, and why open does not go on without them.
fn refuse(
    env: &Env,
    wal_dir: &Path,
    later: &[u64],
    reader: &mut LogReader,
    file: std::path::PathBuf,
    offset: u64,
    message: String,
) -> Error {
    let here = reader.count_records_to_end();
    let mut after = 0;
    for &n in later {
        if let Ok(data) = env.read_file(&wal_path(wal_dir, n), IoCategory::Other) {
            after += LogReader::new(&data, &wal_path(wal_dir, n)).count_records_to_end();
        }
    }
    let later = match later.len() {
        0 => String::new(),
        n => format!(" and {after} in the {n} later WAL(s)"),
    };
    Error::corruption(
        file,
        offset,
        format!(
            "{message}; {here} whole records follow the damage in this WAL{later}, which recovery up to the damage would drop"
        ),
    )
}

fn flush_recovered(
    env: &Env,
    dir: &Path,
    opts: &Options,
    versions: &mut VersionSet,
    edit: &mut VersionEdit,
    report: &mut RecoveryReport,
    mem: &Arc<MemTable>,
) -> Result<()> {
    let number = versions.new_file_number();
    let stats = Arc::new(Statistics::new());
    // No snapshot exists while the database opens: only the newest version of a key counts.
    let out = write_level0_table(
        env,
        dir,
        opts,
        &stats,
        std::slice::from_ref(mem),
        number,
        MAX_SEQUENCE,
        &mut || versions.new_file_number(),
    )?;
    report.flushes += 1;
    report.flush_bytes += out.table.as_ref().map_or(0, |f| f.size) + out.blob_bytes;
    report.flush_blob_bytes += out.blob_bytes;
    // Blob files before the table that references them, as in every edit.
    edit.blob_added.extend(out.blobs);
    if let Some(f) = out.table {
        edit.added.push((0, f));
    }
    Ok(())
}
