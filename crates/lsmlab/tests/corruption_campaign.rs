//! The corruption campaign of docs/reliability.md: bit flips, truncations, overwritten and
//! zeroed ranges in every kind of file, 400 trials per kind (2,000 in all). Every trial ends in
//! a clean `Corruption` error or in correct answers: no panic, no wrong value, and an open that
//! refuses a damaged database changes no file. `check`, run on each damaged copy first, agrees
//! with open: it says open refuses exactly when open refuses (same file and offset), it finds
//! a problem wherever a read meets one, and when it passes every read is right (or, for a
//! crash-shaped WAL end, the state after a prefix of the writes). Run with `--nocapture` to
//! see the tallies.

mod common;

use common::*;
use lsmlab::env::MemFs;
use lsmlab::{Db, Options, WriteOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// Writes made after the last flush, so that the WAL holds them alone; with the state after
/// each of them.
const WAL_WRITES: usize = 30;

/// Trials per kind of file and kind of damage: 5 × 4 × 100 = 2,000.
const TRIALS: u32 = 100;

fn options(fs: &MemFs) -> Options {
    Options {
        enable_blob_files: true,
        min_blob_size: 50,
        blob_file_size: 16 << 10,
        ..small_options(fs)
    }
}

/// A database with tables on several levels, blob files, and a WAL; `states[i]` is the state
/// after the first `i` writes held by the WAL only. Every write is synced.
fn build() -> (MemFs, Vec<Model>) {
    let fs = MemFs::new();
    let db = Db::open(DIR, options(&fs)).unwrap();
    let sync = WriteOptions {
        sync: true,
        ..Default::default()
    };
    let mut model = Model::new();
    let put = |db: &Db, model: &mut Model, k: u32, v: Vec<u8>| {
        let mut b = lsmlab::WriteBatch::new();
        b.put(&key(k), &v);
        db.write(&sync, b).unwrap();
        model.insert(key(k), v);
    };
    for i in 0..900u32 {
        let k = (i * 7919) % 300;
        put(&db, &mut model, k, value(k, i, 30 + (i % 4) as usize * 25));
    }
    db.flush().unwrap();
    db.wait_for_background_work().unwrap();
    let mut states = vec![model.clone()];
    for i in 0..WAL_WRITES as u32 {
        let k = (i * 31) % 300;
        put(&db, &mut model, k, value(k, 10_000 + i, 40));
        states.push(model.clone());
    }
    drop(db);
    (fs, states)
}

#[derive(Default, Debug)]
struct Tally {
    trials: u32,
    refused: u32,
    right: u32,
    /// Opened; some reads reported corruption, every other read was right.
    errors_on_read: u32,
    /// Opened as the state after a prefix of the WAL's writes (damage at a WAL's end).
    rolled_back: u32,
    /// Of `right`: a flip in a live blob file that no read touched, which `check` reported.
    check_found: u32,
    /// Of the opens that succeeded: `check` reported a problem (damage no open reads).
    check_problems: u32,
}

/// Tables, blob files, WALs, MANIFEST and CURRENT with their bytes.
fn data_files(fs: &MemFs) -> BTreeMap<PathBuf, Vec<u8>> {
    fs.files()
        .into_iter()
        .filter(|(p, _)| kind_of(p).is_some())
        .map(|(p, _)| {
            let d = fs.read_file_for_test(&p);
            (p, d)
        })
        .collect()
}

fn kind_of(p: &Path) -> Option<&'static str> {
    let n = p.file_name()?.to_str()?;
    Some(if n.ends_with(".sst") {
        "table"
    } else if n.ends_with(".blob") {
        "blob"
    } else if n.ends_with(".log") {
        "wal"
    } else if n.starts_with("MANIFEST-") {
        "manifest"
    } else if n == "CURRENT" {
        "current"
    } else {
        return None;
    })
}

/// Opens the damaged image and judges it; panics on anything but a clean outcome.
fn judge(image: &MemFs, states: &[Model], kind: &str, damaged: &Path, what: &str, t: &mut Tally) {
    t.trials += 1;
    let before = data_files(image);
    let check = lsmlab::check::check_db_with_options(Path::new(DIR), &options(image));
    assert_eq!(data_files(image), before, "{what}: check changed files");
    let db = match Db::open(DIR, options(image)) {
        Err(e) => {
            assert!(
                e.is_corruption(),
                "{what}: open failed without Corruption: {e}"
            );
            // A database without CURRENT is no database to check at all; otherwise check
            // says open refuses, with open's file and offset, and promises no deletion.
            match (&e, check) {
                (_, Err(c)) => assert!(kind == "current", "{what}: check failed: {c}"),
                (lsmlab::Error::Corruption { file, offset, .. }, Ok(c)) => {
                    let p = c.open_refused.as_ref().unwrap_or_else(|| {
                        panic!("{what}: open refuses ({e}), check says it succeeds")
                    });
                    assert_eq!((&p.file, p.offset), (file, *offset), "{what}");
                    assert!(
                        !c.notes
                            .iter()
                            .any(|n| n.contains("deleted at the next open")),
                        "{what}: {:?}",
                        c.notes
                    );
                }
                _ => unreachable!(),
            }
            assert_eq!(
                data_files(image),
                before,
                "{what}: a refused open changed files ({e})"
            );
            t.refused += 1;
            return;
        }
        Ok(db) => db,
    };
    let check = check.unwrap_or_else(|e| panic!("{what}: open succeeds, check fails: {e}"));
    assert!(
        check.open_refused.is_none(),
        "{what}: open succeeds, check says it refuses: {:?}",
        check.open_refused
    );
    if !check.ok() {
        t.check_problems += 1;
    }
    let full = states.last().unwrap();
    // What each key reads (None = an error), never a value the key never had.
    let mut read = Model::new();
    let mut errors = 0;
    for k in full.keys() {
        match db.get(k) {
            Ok(Some(v)) => {
                read.insert(k.clone(), v);
            }
            Ok(None) => {}
            Err(e) => {
                assert!(
                    e.is_corruption(),
                    "{what}: get failed without Corruption: {e}"
                );
                errors += 1;
            }
        }
    }
    // A scan reads every block, also those holding only older versions.
    match db.iter(&Default::default()) {
        Err(e) => {
            assert!(
                e.is_corruption(),
                "{what}: iterator failed without Corruption: {e}"
            );
            errors += 1;
        }
        Ok(mut it) => {
            it.seek_to_first();
            while it.valid() {
                assert_eq!(
                    read.get(it.key()),
                    Some(&it.value().to_vec()),
                    "{what}: scan differs from gets"
                );
                it.next();
            }
            if let Err(e) = it.status() {
                assert!(
                    e.is_corruption(),
                    "{what}: scan failed without Corruption: {e}"
                );
                errors += 1;
            }
        }
    }
    if errors == 0 && &read == full {
        // Damage no read touched (a garbage blob record, an older version): `check` reads
        // every record and must still see a flipped bit — in a live file. A blob file that
        // was obsolete when the image was taken (its deletion waited on a reader) is an
        // orphan that open deletes, damage and all; and a compaction that ran after open may
        // have left every record of the file garbage, making it obsolete too. So liveness is
        // judged when `check` runs, from the version it reads: a file it names as not in the
        // current version is not live.
        if kind == "blob" && what.starts_with("flip") {
            drop(db);
            let r = lsmlab::check::check_db(Path::new(DIR), std::sync::Arc::new(image.clone()))
                .unwrap();
            let name = damaged.file_name().unwrap().to_str().unwrap();
            let orphan = r
                .notes
                .iter()
                .any(|n| n.starts_with(name) && n.contains("not in the current version"));
            let exists = image.files().iter().any(|(p, _)| p == damaged);
            if exists && !orphan {
                assert!(!r.ok(), "{what}: check missed the flip");
                t.check_found += 1;
            }
        }
        t.right += 1;
    } else if errors == 0 && kind == "wal" && states.contains(&read) && wal_end_only(&check) {
        // A cut last WAL record looks like a torn, unsynced write; a whole one that fails its
        // checksum is dropped too, but counted, and `check` reports it.
        t.rolled_back += 1;
    } else {
        for (k, v) in &read {
            assert_eq!(full.get(k), Some(v), "{what}: wrong value for {k:?}");
        }
        assert!(
            errors > 0,
            "{what}: keys missing without an error: {} of {}",
            full.len() - read.len(),
            full.len()
        );
        assert!(!check.ok(), "{what}: reads meet damage that check passed");
        t.errors_on_read += 1;
    }
}

/// True if `check` found nothing, or only a WAL's last record that is whole but fails its
/// checksum, which open drops and counts.
fn wal_end_only(check: &lsmlab::check::CheckReport) -> bool {
    check.problems.iter().all(|p| {
        p.message
            .contains("last record is whole but fails its checksum")
    }) && check.problems.len() as u64 <= check.wal_records_dropped
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

#[test]
fn every_damaged_file_gives_a_clean_error_or_the_right_answer() {
    let (fs, states) = build();
    let files: Vec<(PathBuf, usize)> = fs
        .files()
        .into_iter()
        .filter(|(p, _)| kind_of(p).is_some())
        .collect();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut tallies: BTreeMap<(&str, &str), Tally> = BTreeMap::new();
    for kind in ["table", "blob", "wal", "manifest", "current"] {
        let of_kind: Vec<&(PathBuf, usize)> = files
            .iter()
            .filter(|(p, _)| kind_of(p) == Some(kind))
            .collect();
        assert!(!of_kind.is_empty(), "no {kind} file to damage");
        for damage in ["flip", "truncate", "overwrite", "zero"] {
            for trial in 0..TRIALS {
                let (path, len) = of_kind[rng.below(of_kind.len())];
                let image = fs.crash_image(|_, n| n);
                let mut data = image.read_file_for_test(path);
                let at = rng.below(*len);
                match damage {
                    "flip" => data[at] ^= 1 << rng.below(8),
                    "truncate" => data.truncate(at),
                    _ => {
                        let end = (at + 1 + rng.below(64)).min(data.len());
                        for b in &mut data[at..end] {
                            *b = if damage == "zero" {
                                0
                            } else {
                                rng.below(256) as u8
                            };
                        }
                    }
                }
                image.set_file_for_test(path, &data);
                let what = format!("{damage} #{trial} of {} at {at}", path.display());
                judge(
                    &image,
                    &states,
                    kind,
                    path,
                    &what,
                    tallies.entry((kind, damage)).or_default(),
                );
            }
        }
    }
    println!("kind      damage     trials refused right read-errors rolled-back check-found check-problems");
    for ((kind, damage), t) in &tallies {
        println!(
            "{kind:9} {damage:10} {:6} {:7} {:5} {:11} {:11} {:11} {:14}",
            t.trials,
            t.refused,
            t.right,
            t.errors_on_read,
            t.rolled_back,
            t.check_found,
            t.check_problems
        );
    }
    // The check above must have had something to find: flips in live blob files' garbage.
    assert!(
        tallies[&("blob", "flip")].check_found > 0,
        "no flip in a live blob file was left to check"
    );
    for kind in ["table", "blob", "wal", "manifest", "current"] {
        let n: u32 = tallies
            .iter()
            .filter(|((k, _), _)| *k == kind)
            .map(|(_, t)| t.trials)
            .sum();
        assert!(n >= 4 * TRIALS, "{kind}: {n} trials");
    }
    // Checksums catch damage: most trials on tables and MANIFESTs end in an error.
    for kind in ["table", "manifest"] {
        let (caught, n) = tallies
            .iter()
            .filter(|((k, d), _)| *k == kind && *d == "flip")
            .map(|(_, t)| (t.refused + t.errors_on_read, t.trials))
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        assert!(caught * 10 >= n * 7, "{kind}: {caught} of {n} flips caught");
    }
}
