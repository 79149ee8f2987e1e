//! Checks of the files the tree names: tables and the blob records they point to.

use super::tree::Tree;
use super::CheckReport;
use crate::blob::{BlobFileReader, BlobIndex};
use crate::env::{Env, IoCategory};
use crate::filename::{self, blob_path, table_path, FileKind};
use crate::key::{compare_internal, parse_internal_key, user_key, ValueKind};
use crate::sst::{BlockFetch, TableReader};
use crate::stats::Statistics;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

/// Blob records referenced from live tables: (count, bytes) per blob file.
type References = HashMap<u64, (u64, u64)>;

pub(super) fn check_tables(env: &Env, dir: &Path, tree: &Tree, report: &mut CheckReport) {
    let stats = Arc::new(Statistics::new());
    let mut blob_readers: BTreeMap<u64, Option<BlobFileReader>> = BTreeMap::new();
    let mut refs = References::new();
    // A table that cannot be read hides its blob references: accounting would then report
    // every file it points into.
    let mut all_read = true;
    report.tables_per_level = tree.levels.iter().map(|l| l.len() as u64).collect();
    for (level, tables) in tree.levels.iter().enumerate() {
        for f in tables.values() {
            let path = table_path(dir, f.number);
            let table = match env.open_random(&path).and_then(|file| {
                TableReader::open(file, path.clone(), f.number, None, stats.clone())
            }) {
                Ok(t) => Arc::new(t),
                Err(e) => {
                    report.problems.push(e.into());
                    all_read = false;
                    continue;
                }
            };
            if table.properties().num_entries != f.num_entries {
                report.problem(
                    &path,
                    0,
                    format!(
                        "properties count {} entries, the MANIFEST {}",
                        table.properties().num_entries,
                        f.num_entries
                    ),
                );
            }
            // A user iterator trusts a format-2 index's first keys and counts until it reads
            // the block, so they are checked against every block (a second read of the table;
            // the entry walk below still runs).
            if table.has_first_key_index() {
                if let Err(e) = table.verify_index() {
                    report.problems.push(e.into());
                }
            }
            let mut it = table.iter(IoCategory::Other, BlockFetch::SEQUENTIAL);
            it.seek_to_first();
            let mut prev: Option<Vec<u8>> = None;
            let mut count = 0u64;
            while it.valid() {
                let key = it.key();
                count += 1;
                let Some(parsed) = parse_internal_key(key) else {
                    report.problem(
                        &path,
                        0,
                        format!("entry {count} has a malformed internal key"),
                    );
                    break;
                };
                if let Some(p) = &prev {
                    if compare_internal(p, key) != Ordering::Less {
                        report.problem(&path, 0, format!("entry {count} is out of order"));
                    }
                } else if key != f.smallest.as_slice() {
                    report.problem(&path, 0, "first key differs from the MANIFEST's smallest");
                }
                if parsed.seq < f.smallest_seq || parsed.seq > f.largest_seq {
                    report.problem(
                        &path,
                        0,
                        format!(
                            "entry {count} has sequence {} outside the MANIFEST's {}..={}",
                            parsed.seq, f.smallest_seq, f.largest_seq
                        ),
                    );
                }
                if parsed.kind == ValueKind::BlobIndex {
                    check_blob_index(
                        env,
                        dir,
                        tree,
                        &path,
                        parsed.user_key,
                        it.value(),
                        &mut blob_readers,
                        &mut refs,
                        report,
                    );
                }
                prev = Some(key.to_vec());
                it.next();
            }
            if let Err(e) = it.status() {
                report.problems.push(e.into());
                all_read = false;
                continue;
            }
            if prev.as_deref() != Some(f.largest.as_slice()) && count > 0 {
                report.problem(&path, 0, "last key differs from the MANIFEST's largest");
            }
            if count != f.num_entries {
                report.problem(
                    &path,
                    0,
                    format!("holds {count} entries, the MANIFEST says {}", f.num_entries),
                );
            }
            report.entries += count;
        }
        if level > 0 {
            check_no_overlap(dir, level, tree, report);
        }
    }
    report.blob_files = tree.blobs.len() as u64;
    if !all_read && !tree.blobs.is_empty() {
        report
            .notes
            .push("blob garbage accounting not checked: a table could not be read".into());
    }
    for (n, b) in &tree.blobs {
        // Every record, referenced or garbage, and the count the MANIFEST recorded.
        let reader = blob_readers
            .remove(n)
            .unwrap_or_else(|| BlobFileReader::open(env, &blob_path(dir, *n)).ok());
        match reader.map(|r| r.scan_records(|_, _, _, _| {})) {
            Some(Ok(count)) if count != b.file.count => report.problem(
                &blob_path(dir, *n),
                0,
                format!("holds {count} records, the MANIFEST says {}", b.file.count),
            ),
            Some(Err(e)) => report.problems.push(e.into()),
            Some(Ok(_)) => {}
            None => report.problem(&blob_path(dir, *n), 0, "cannot be opened"),
        }
        let (count, bytes) = refs.get(n).copied().unwrap_or((0, 0));
        if all_read
            && (count + b.garbage_count != b.file.count || bytes + b.garbage_bytes != b.file.bytes)
        {
            report.problem(
                &blob_path(dir, *n),
                0,
                format!(
                    "garbage accounting does not add up: {count} records ({bytes} B) referenced + {} garbage ({} B) != {} in the file ({} B)",
                    b.garbage_count, b.garbage_bytes, b.file.count, b.file.bytes
                ),
            );
        }
    }
}

/// Tables of a level other than 0 hold disjoint user-key ranges.
fn check_no_overlap(dir: &Path, level: usize, tree: &Tree, report: &mut CheckReport) {
    let mut tables: Vec<_> = tree.levels[level].values().collect();
    tables.sort_by(|a, b| compare_internal(&a.smallest, &b.smallest));
    for w in tables.windows(2) {
        if user_key(&w[0].largest) >= user_key(&w[1].smallest) {
            report.problem(
                &table_path(dir, w[1].number),
                0,
                format!("overlaps table {} on level {level}", w[0].number),
            );
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn check_blob_index(
    env: &Env,
    dir: &Path,
    tree: &Tree,
    table: &Path,
    key: &[u8],
    value: &[u8],
    readers: &mut BTreeMap<u64, Option<BlobFileReader>>,
    refs: &mut References,
    report: &mut CheckReport,
) {
    let Some(idx) = BlobIndex::decode(value) else {
        report.problem(
            table,
            0,
            format!("blob index of key {key:?} does not decode"),
        );
        return;
    };
    if !tree.blobs.contains_key(&idx.file_number) {
        report.problem(
            table,
            0,
            format!(
                "key {key:?} points into blob file {}, which is not live",
                idx.file_number
            ),
        );
        return;
    }
    let r = refs.entry(idx.file_number).or_default();
    r.0 += 1;
    r.1 = r.1.saturating_add(idx.record_len(key.len()));
    let reader = readers.entry(idx.file_number).or_insert_with(|| {
        match BlobFileReader::open(env, &blob_path(dir, idx.file_number)) {
            Ok(r) => Some(r),
            Err(e) => {
                report.problems.push(e.into());
                None
            }
        }
    });
    if let Some(reader) = reader {
        match reader.get(&idx, key, IoCategory::Other) {
            Ok(_) => report.blob_records += 1,
            Err(e) => report.problems.push(e.into()),
        }
    }
}

pub(super) fn note_orphans(env: &Env, dir: &Path, tree: &Tree, report: &mut CheckReport) {
    let Ok(names) = env.fs.list_dir(dir) else {
        return;
    };
    let live = |n: u64| tree.levels.iter().any(|l| l.contains_key(&n));
    for name in names {
        let orphan = match filename::parse(&name) {
            Some((FileKind::Table, n)) => !live(n),
            Some((FileKind::Blob, n)) => !tree.blobs.contains_key(&n),
            _ => false,
        };
        if orphan {
            report.notes.push(if report.open_refused.is_some() {
                format!(
                    "{name} is not in the version the MANIFEST describes as far as it can be read; open refuses this database, so nothing is deleted"
                )
            } else {
                format!(
                    "{name} is not in the current version: left by an interrupted job or not yet purged; deleted at the next open"
                )
            });
        }
    }
}
