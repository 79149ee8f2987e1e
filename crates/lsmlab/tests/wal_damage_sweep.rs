//! Damage swept over a real WAL, wherever it lies relative to the 32 KiB block boundaries:
//! 1, 2, 7, 150 or 4,096 bytes flipped, overwritten with 0xAB or zeroed, at every offset
//! within 100 bytes of each block boundary and of the end of the file and at a stepped set of
//! offsets over the last two blocks (`LSMLAB_SWEEP_STEP=1` tries every offset). Recovery must refuse the WAL, naming the
//! first record not recovered, or give back every acknowledged write with its newest value;
//! the one exception is what a crash can leave — damage confined to the last record, or zeros
//! from the damage to the end of the file — which rolls back to the writes before it.

mod common;

use common::*;
use lsmlab::env::{FileSystem, MemFs};
use lsmlab::wal::{LogReader, ReadOutcome, BLOCK_SIZE, HEADER_SIZE};
use lsmlab::{Db, Error, Options, WalRecoveryMode};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// A WAL of a little under three blocks: small writes of many sizes over 60 keys (each
/// overwritten several times) and two values large enough to span a block boundary.
struct Wal {
    fs: MemFs,
    path: PathBuf,
    data: Vec<u8>,
    writes: Vec<(Vec<u8>, Vec<u8>)>,
    /// Per record (one per write): where it starts (after any block padding) and ends.
    extents: Vec<(usize, usize)>,
}

fn options(fs: &MemFs) -> Options {
    Options {
        write_buffer_size: 4 << 20,
        ..small_options(fs)
    }
}

fn build() -> Wal {
    let fs = MemFs::new();
    let db = Db::open(DIR, options(&fs)).unwrap();
    let mut writes = Vec::new();
    for i in 0..300u32 {
        let k = (i * 7) % 60;
        let len = if i == 100 || i == 230 {
            12_000
        } else {
            20 + (i as usize * 37) % 380
        };
        let (k, v) = (key(k), value(k, i, len));
        db.put(&k, &v).unwrap();
        writes.push((k, v));
    }
    drop(db);
    let (path, _) = fs
        .files()
        .into_iter()
        .find(|(p, _)| p.extension().is_some_and(|e| e == "log"))
        .unwrap();
    let data = fs.read_file_for_test(&path);
    assert!(
        data.len() > 2 * BLOCK_SIZE + 4096 && data.len() < 3 * BLOCK_SIZE,
        "{} bytes",
        data.len()
    );
    let mut extents = Vec::new();
    let mut r = LogReader::new(&data, &path);
    loop {
        let end_before = r.position() as usize;
        if r.next_record().is_none() {
            break;
        }
        // A record starts after the zero padding of a block tail too short for a header.
        let left = BLOCK_SIZE - end_before % BLOCK_SIZE;
        let start = if left < HEADER_SIZE {
            end_before + left
        } else {
            end_before
        };
        extents.push((start, r.position() as usize));
    }
    assert_eq!(r.outcome(), ReadOutcome::Clean);
    assert_eq!(extents.len(), writes.len());
    // The large values span the boundaries: the sweep covers fragments of every type there.
    for b in [BLOCK_SIZE, 2 * BLOCK_SIZE] {
        assert!(extents.iter().any(|&(s, e)| s < b && e > b), "{b}");
    }
    Wal {
        fs,
        path,
        data,
        writes,
        extents,
    }
}

#[derive(Clone, Copy, Debug)]
enum Pattern {
    Flip,
    Overwrite,
    Zero,
}

const PATTERNS: [Pattern; 3] = [Pattern::Flip, Pattern::Overwrite, Pattern::Zero];
const LENGTHS: [usize; 5] = [1, 2, 7, 150, 4096];

fn damage(data: &[u8], at: usize, len: usize, p: Pattern) -> Vec<u8> {
    let mut d = data.to_vec();
    let end = (at + len).min(d.len());
    for b in &mut d[at..end] {
        *b = match p {
            Pattern::Flip => *b ^ 0xFF,
            Pattern::Overwrite => 0xAB,
            Pattern::Zero => 0,
        };
    }
    d
}

/// What recovery may do with one damaged copy, judged from the bytes that changed alone.
#[derive(Debug)]
struct Oracle {
    /// First record with a changed byte (`None`: only block padding changed).
    first: Option<usize>,
    /// Where the reader must say recovery stopped: the end of the record before `first`.
    offset: u64,
    /// A crash could have left this: damage only in the last record, or zeros to the end.
    crash_shaped: bool,
    /// Records after `first` with no changed byte: what a stop at the damage drops.
    intact_after: u64,
}

fn oracle(w: &Wal, damaged: &[u8]) -> Oracle {
    let changed = |s: usize, e: usize| w.data[s..e] != damaged[s..e];
    let first = w.extents.iter().position(|&(s, e)| changed(s, e));
    let offset = match first {
        Some(0) | None => 0,
        Some(j) => w.extents[j - 1].1 as u64,
    };
    let last = w.extents.len() - 1;
    let first_byte = (0..w.data.len()).find(|&i| w.data[i] != damaged[i]);
    let crash_shaped =
        first == Some(last) || first_byte.is_some_and(|b| damaged[b..].iter().all(|&x| x == 0));
    let intact_after = first.map_or(0, |j| {
        w.extents[j + 1..]
            .iter()
            .filter(|&&(s, e)| !changed(s, e))
            .count() as u64
    });
    Oracle {
        first,
        offset,
        crash_shaped,
        intact_after,
    }
}

/// Offsets to damage: every one within `dense` bytes of each block boundary and of the end
/// of the file, and every `step`th over the last two blocks.
fn offsets(len: usize, dense: usize, step: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (BLOCK_SIZE..len).step_by(step).collect();
    for b in [BLOCK_SIZE, 2 * BLOCK_SIZE, len] {
        v.extend(b.saturating_sub(dense)..(b + dense).min(len));
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// The step of the reader's sweep: 97 in CI (with every offset within 100 bytes of a
/// boundary or the end), `LSMLAB_SWEEP_STEP=1` for every offset of the last two blocks.
fn step() -> usize {
    std::env::var("LSMLAB_SWEEP_STEP")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|&s| s > 0)
        .unwrap_or(97)
}

#[test]
fn the_reader_refuses_damage_followed_by_records_wherever_it_lies() {
    let w = build();
    let (mut trials, mut refused, mut torn, mut whole) = (0u64, 0u64, 0u64, 0u64);
    for at in offsets(w.data.len(), 100, step()) {
        for len in LENGTHS {
            for p in PATTERNS {
                let d = damage(&w.data, at, len, p);
                let o = oracle(&w, &d);
                let what = format!("{p:?} of {len} bytes at {at}: {o:?}");
                let mut r = LogReader::new(&d, &w.path);
                let mut got = 0;
                while r.next_record().is_some() {
                    got += 1;
                }
                trials += 1;
                match (r.outcome(), o.first) {
                    (ReadOutcome::Clean, None) => assert_eq!(got, w.extents.len(), "{what}"),
                    (ReadOutcome::Corruption { offset, file, .. }, Some(j)) => {
                        assert_eq!((offset, got), (o.offset, j), "{what}");
                        assert_eq!(file, w.path);
                        refused += 1;
                    }
                    (ReadOutcome::TornTail { offset, truncated }, Some(j)) => {
                        assert!(o.crash_shaped, "{what}: a torn tail drops records");
                        // A power cut loses whole sectors: only zeros from a sector boundary
                        // to the end make a whole record failing its checksum a cut.
                        let zeros = d.iter().rev().take_while(|&&b| b == 0).count();
                        let lost_sector = (d.len() - zeros).next_multiple_of(512) < d.len();
                        if !truncated {
                            assert!(!lost_sector, "{what}");
                            whole += 1;
                        }
                        assert_eq!((offset, got), (o.offset, j), "{what}");
                        // Nothing valid follows a torn tail: a stop there drops nothing.
                        assert_eq!(r.count_records_to_end(), 0, "{what}");
                        torn += 1;
                    }
                    (outcome, _) => panic!("{what}: {outcome:?} after {got} records"),
                }
            }
        }
    }
    println!(
        "reader sweep: {trials} trials, {refused} refused, {torn} torn tails \
         ({whole} of them a whole last record failing its checksum)"
    );
    assert!(
        refused > trials / 2 && torn > whole && whole > 0,
        "{refused} {torn} {whole} of {trials}"
    );
}

fn model_of(writes: &[(Vec<u8>, Vec<u8>)]) -> Model {
    writes.iter().cloned().collect()
}

fn open_image(w: &Wal, d: &[u8], paranoid: bool) -> (MemFs, lsmlab::Result<Db>) {
    let image = w.fs.crash_image(|_, n| n);
    image.set_file_for_test(&w.path, d);
    let db = Db::open(
        DIR,
        Options {
            paranoid_checks: paranoid,
            wal_recovery_mode: WalRecoveryMode::PointInTimeRecovery,
            ..options(&image)
        },
    );
    (image, db)
}

fn log_of(fs: &MemFs) -> String {
    String::from_utf8(fs.read_file_for_test(&Path::new(DIR).join("LOG"))).unwrap()
}

#[test]
fn open_refuses_damage_followed_by_records_or_reads_every_write() {
    let w = build();
    let full = model_of(&w.writes);
    let (mut trials, mut refused, mut rolled_back, mut whole_last) = (0u64, 0u64, 0u64, 0u64);
    let offsets = offsets(w.data.len(), 12, 149);
    for (i, &at) in offsets.iter().enumerate() {
        for (l, len) in [1, 7, 150, 4096].into_iter().enumerate() {
            let p = PATTERNS[(i + l) % PATTERNS.len()];
            let d = damage(&w.data, at, len, p);
            let o = oracle(&w, &d);
            let what = format!("{p:?} of {len} bytes at {at}: {o:?}");
            trials += 1;
            let (image, db) = open_image(&w, &d, true);
            match db {
                Err(Error::Corruption {
                    file,
                    offset,
                    message,
                }) => {
                    assert_eq!((file, offset), (w.path.clone(), o.offset), "{what}");
                    let count = format!("{} whole records follow the damage", o.intact_after);
                    assert!(message.contains(&count), "{what}: {message}");
                    assert_eq!(image.read_file_for_test(&w.path), d, "{what}: WAL touched");
                    refused += 1;
                    // Point in time without paranoid checks: the writes before the damage,
                    // the rest counted and kept aside, never deleted.
                    if refused % 8 == 1 {
                        let (image, db) = open_image(&w, &d, false);
                        let db = db.unwrap();
                        let j = o.first.unwrap();
                        assert_eq!(scan(&db, &Default::default()), model_of(&w.writes[..j]));
                        assert_eq!(
                            db.property_int("lsmlab.recovery.dropped-records"),
                            Some(o.intact_after),
                            "{what}"
                        );
                        let log = log_of(&image);
                        let dropped = format!("dropped {} records after it", o.intact_after);
                        assert!(log.contains(&dropped), "{what}: {log}");
                        let lost = Path::new(DIR)
                            .join("lost")
                            .join(w.path.file_name().unwrap());
                        assert_eq!(image.read_file_for_test(&lost), d, "{what}");
                    }
                }
                Err(e) => panic!("{what}: open failed without Corruption: {e}"),
                Ok(db) => {
                    let got = scan(&db, &Default::default());
                    if got != full {
                        let j = o.first.expect("nothing changed, yet writes are missing");
                        assert!(o.crash_shaped, "{what}: acknowledged writes lost");
                        assert_eq!(got, model_of(&w.writes[..j]), "{what}");
                        rolled_back += 1;
                    }
                    // A whole last record failing its checksum is no crash's cut: counted,
                    // named in the LOG and kept; a record cut short is not counted.
                    let whole = last_record_fails_checksum(&w, &d);
                    assert_eq!(
                        db.property_int("lsmlab.recovery.dropped-records"),
                        Some(whole as u64),
                        "{what}"
                    );
                    let named = log_of(&image).contains("is whole but fails its checksum");
                    assert_eq!(named, whole, "{what}");
                    assert_eq!(image.exists(&lost_wal(&w)), whole, "{what}");
                    whole_last += whole as u64;
                    // The LOG never says nothing was dropped where records follow.
                    assert!(!log_of(&image).contains("dropped 0 records") || o.intact_after == 0);
                }
            }
        }
    }
    println!(
        "open sweep: {trials} trials, {refused} refused, {rolled_back} rolled back \
         ({whole_last} of them a whole last record failing its checksum)"
    );
    assert!(refused > trials / 2, "{refused} of {trials}");
    assert!(
        whole_last > 0,
        "the sweep never damaged a whole last record"
    );
}

/// True if the reader ends `d` at a last record that is whole but fails its checksum.
fn last_record_fails_checksum(w: &Wal, d: &[u8]) -> bool {
    let mut r = LogReader::new(d, &w.path);
    while r.next_record().is_some() {}
    r.outcome()
        == ReadOutcome::TornTail {
            offset: w.extents[w.extents.len() - 2].1 as u64,
            truncated: false,
        }
}

fn lost_wal(w: &Wal) -> PathBuf {
    Path::new(DIR)
        .join("lost")
        .join(w.path.file_name().unwrap())
}

/// The lost write: bit 0 of a byte inside the last record's payload flipped. Open replays
/// every record before it, counts it in `dropped-records`, names it in the LOG and keeps the
/// WAL in `lost/`; `check` reports it as a problem, naming the WAL and the record's offset.
#[test]
fn a_flipped_bit_in_the_last_record_is_counted_kept_and_a_check_problem() {
    let w = build();
    let (start, end) = *w.extents.last().unwrap();
    // Where the reader says the record starts: the end of the one before it.
    let at = w.extents[w.extents.len() - 2].1;
    let mut d = w.data.clone();
    d[(start + HEADER_SIZE + end) / 2] ^= 1;
    let r = lsmlab::check::check_db(DIR.as_ref(), {
        let image = w.fs.crash_image(|_, n| n);
        image.set_file_for_test(&w.path, &d);
        std::sync::Arc::new(image)
    })
    .unwrap();
    assert!(r.open_refused.is_none(), "{:?}", r.open_refused);
    assert_eq!(r.wal_records_dropped, 1);
    assert_eq!(r.problems.len(), 1, "{:?}", r.problems);
    let p = &r.problems[0];
    assert_eq!((&p.file, p.offset), (&w.path, at as u64));
    assert!(p.message.contains("fails its checksum"), "{}", p.message);

    let (image, db) = open_image(&w, &d, true);
    let db = db.unwrap();
    let n = w.writes.len();
    assert_eq!(scan(&db, &Default::default()), model_of(&w.writes[..n - 1]));
    assert_eq!(db.property_int("lsmlab.recovery.dropped-records"), Some(1));
    let log = log_of(&image);
    let named = format!(
        "Dropped the last record of {} at offset {at}: it is whole but fails its checksum",
        w.path.display()
    );
    assert!(log.contains(&named), "{log}");
    assert!(!log.contains("dropped 0 records") || log.contains(&named));
    assert_eq!(image.read_file_for_test(&lost_wal(&w)), d);
    assert!(
        !image.exists(&w.path),
        "the WAL was copied to lost/, not moved"
    );

    // The same WAL cut short inside that record is a crash's torn tail: nothing counted.
    let (image, db) = open_image(&w, &w.data[..end - 1], true);
    let db = db.unwrap();
    assert_eq!(db.property_int("lsmlab.recovery.dropped-records"), Some(0));
    assert!(!image.exists(&lost_wal(&w)));
}

/// The case that was lost: a bit flipped on each side of the last block boundary, in a
/// record that spans it.
#[test]
fn a_flip_on_each_side_of_a_block_boundary_is_refused_with_the_count() {
    let w = build();
    let b = 2 * BLOCK_SIZE;
    let j = w.extents.iter().position(|&(s, e)| s < b && e > b).unwrap();
    let mut d = w.data.clone();
    d[b - 1] ^= 1;
    d[b] ^= 1;
    let (_, db) = open_image(&w, &d, true);
    match db {
        Err(Error::Corruption {
            file,
            offset,
            message,
        }) => {
            assert_eq!(file, w.path);
            assert_eq!(offset, w.extents[j - 1].1 as u64);
            let n = w.extents.len() - j - 1;
            assert!(n > 10, "{n}");
            assert!(
                message.contains(&format!("{n} whole records follow")),
                "{message}"
            );
        }
        other => panic!("not refused: {:?}", other.err()),
    }
}
