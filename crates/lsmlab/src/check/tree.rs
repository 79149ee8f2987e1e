//! The tree as the MANIFEST describes it: replayed into plain maps.

use super::CheckReport;
use crate::env::{Env, IoCategory};
use crate::filename::current_path;
use crate::version::{NewBlobFile, NewFile, VersionEdit};
use crate::wal::{LogReader, ReadOutcome};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A blob file and its garbage.
#[derive(Debug, Clone, Default)]
pub(super) struct Blob {
    pub(super) file: NewBlobFile,
    pub(super) garbage_count: u64,
    pub(super) garbage_bytes: u64,
}

/// The recovered tree.
#[derive(Debug, Default)]
pub(super) struct Tree {
    pub(super) manifest: PathBuf,
    /// Per level: table number → table.
    pub(super) levels: Vec<BTreeMap<u64, NewFile>>,
    pub(super) blobs: BTreeMap<u64, Blob>,
}

impl Tree {
    /// Replays CURRENT's MANIFEST; `None` (with the problem reported) if it cannot be read.
    pub(super) fn read(env: &Env, dir: &Path, report: &mut CheckReport) -> Option<Tree> {
        let cur = current_path(dir);
        let current = match env.read_file(&cur, IoCategory::Other) {
            Ok(c) => c,
            Err(e) => {
                report.problems.push(e.into());
                return None;
            }
        };
        let Some(name) = std::str::from_utf8(&current)
            .ok()
            .and_then(|s| s.strip_suffix('\n'))
            .filter(|s| s.starts_with("MANIFEST-") && !s.contains('/'))
        else {
            report.problem(&cur, 0, "CURRENT does not name a MANIFEST");
            return None;
        };
        let manifest = dir.join(name);
        let data = match env.read_file(&manifest, IoCategory::Other) {
            Ok(d) => d,
            Err(e) => {
                report.problems.push(e.into());
                return None;
            }
        };
        let mut tree = Tree {
            manifest: manifest.clone(),
            ..Tree::default()
        };
        let mut reader = LogReader::new(&data, &manifest);
        loop {
            let at = reader.position();
            let Some(rec) = reader.next_record() else {
                break;
            };
            match VersionEdit::decode(rec) {
                Ok(edit) => tree.apply(&edit, at, report),
                Err(m) => {
                    report.problem(&manifest, at, format!("MANIFEST edit does not decode: {m}"));
                    return None;
                }
            }
            report.manifest_edits += 1;
        }
        match reader.outcome() {
            ReadOutcome::Clean => {}
            ReadOutcome::TornTail {
                offset,
                truncated: true,
            } => report.notes.push(format!(
                "{} ends in an edit cut short at offset {offset}: a crash's trace, ignored at open",
                manifest.display()
            )),
            ReadOutcome::TornTail { offset, .. } => {
                report.problem(&manifest, offset, "last MANIFEST edit fails its checksum")
            }
            ReadOutcome::Corruption {
                file,
                offset,
                message,
            } => report.problem(&file, offset, message),
        }
        if report.manifest_edits == 0 {
            report.problem(&manifest, 0, "MANIFEST holds no version");
            return None;
        }
        Some(tree)
    }

    fn apply(&mut self, edit: &VersionEdit, at: u64, report: &mut CheckReport) {
        for b in &edit.blob_added {
            self.blobs.insert(
                b.number,
                Blob {
                    file: *b,
                    ..Blob::default()
                },
            );
        }
        for &(level, number) in &edit.deleted {
            let gone = self.levels.get_mut(level).and_then(|l| l.remove(&number));
            if gone.is_none() {
                report.problem(
                    &self.manifest,
                    at,
                    format!(
                        "edit deletes table {number} from level {level}, which does not hold it"
                    ),
                );
            }
        }
        for (level, f) in &edit.added {
            if self.levels.len() <= *level {
                self.levels.resize_with(level + 1, BTreeMap::new);
            }
            self.levels[*level].insert(f.number, f.clone());
        }
        for g in &edit.blob_garbage {
            match self.blobs.get_mut(&g.number) {
                Some(b) => {
                    b.garbage_count = b.garbage_count.saturating_add(g.count);
                    b.garbage_bytes = b.garbage_bytes.saturating_add(g.bytes);
                    if b.garbage_count >= b.file.count {
                        // All garbage: the file leaves the version.
                        self.blobs.remove(&g.number);
                    }
                }
                None => report.problem(
                    &self.manifest,
                    at,
                    format!(
                        "edit adds garbage to blob file {}, which is not live",
                        g.number
                    ),
                ),
            }
        }
    }
}
