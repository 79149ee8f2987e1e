//! Damage must never destroy data: a damaged MANIFEST or WAL makes open fail with
//! `Corruption{file, offset}` and leaves every file in place, or open succeeds and every
//! acknowledged write reads back. A torn tail — the only trace a crash leaves — is recovered.

mod common;

use common::*;
use lsmlab::env::MemFs;
use lsmlab::{Db, Error, Options, WalRecoveryMode, WriteOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn synced() -> WriteOptions {
    WriteOptions {
        sync: true,
        ..Default::default()
    }
}

/// A database whose MANIFEST holds many flush and compaction edits after its first snapshot,
/// and whose WAL holds the last writes, all synced: any write missing later was lost by damage.
fn build() -> (MemFs, BTreeMap<Vec<u8>, Vec<u8>>) {
    let fs = MemFs::new();
    let db = Db::open(DIR, small_options(&fs)).unwrap();
    let mut model = BTreeMap::new();
    for i in 0..500u32 {
        let k = (i * 7919) % 400;
        let v = value(k, i, 40);
        db.write(&synced(), {
            let mut b = lsmlab::WriteBatch::new();
            b.put(&key(k), &v);
            b
        })
        .unwrap();
        model.insert(key(k), v);
        if i == 300 {
            db.wait_for_background_work().unwrap();
        }
    }
    db.wait_for_background_work().unwrap();
    // Dropping the handle, not `close`, keeps the MANIFEST as the running DB left it (with all
    // its edits) and the last writes in the WAL only.
    drop(db);
    (fs, model)
}

fn file_of(fs: &MemFs, prefix: &str, suffix: &str) -> (PathBuf, Vec<u8>) {
    let (p, _) = fs
        .files()
        .into_iter()
        .filter(|(p, _)| {
            let n = p.file_name().unwrap().to_str().unwrap();
            n.starts_with(prefix) && n.ends_with(suffix)
        })
        .max()
        .expect("file present");
    let data = fs.read_file_for_test(&p);
    (p, data)
}

/// Tables, blob files, WALs and MANIFESTs with their contents.
fn data_files(fs: &MemFs) -> BTreeMap<PathBuf, Vec<u8>> {
    fs.files()
        .into_iter()
        .filter(|(p, _)| {
            let n = p.file_name().unwrap().to_str().unwrap();
            n.ends_with(".sst")
                || n.ends_with(".blob")
                || n.ends_with(".log")
                || n.starts_with("MANIFEST")
        })
        .map(|(p, _)| {
            let d = fs.read_file_for_test(&p);
            (p, d)
        })
        .collect()
}

#[derive(Debug, PartialEq)]
enum Verdict {
    Refused,
    ReadRight,
}

/// Opens the damaged image. A refusal must be a corruption error that deleted nothing; an
/// open that succeeds must read every acknowledged write exactly.
fn judge(image: &MemFs, model: &BTreeMap<Vec<u8>, Vec<u8>>, what: &str) -> Verdict {
    let before = data_files(image);
    match Db::open(DIR, small_options(image)) {
        Err(e) => {
            assert!(
                e.is_corruption(),
                "{what}: open failed without Corruption: {e}"
            );
            let after = data_files(image);
            for (p, d) in &before {
                assert_eq!(
                    after.get(p),
                    Some(d),
                    "{what}: refused open touched {p:?} ({e})"
                );
            }
            Verdict::Refused
        }
        Ok(db) => {
            let got = scan(&db, &Default::default());
            if &got != model {
                let missing = model.keys().filter(|k| !got.contains_key(*k)).count();
                panic!(
                    "{what}: open succeeded but the data differs: {} keys read, {} expected, {missing} missing",
                    got.len(),
                    model.len()
                );
            }
            Verdict::ReadRight
        }
    }
}

#[test]
fn every_bit_flip_in_the_manifest_is_refused_or_harmless() {
    let (fs, model) = build();
    let (manifest, data) = file_of(&fs, "MANIFEST", "");
    assert!(data.len() > 200, "the MANIFEST should hold many edits");
    let mut refused = 0;
    for offset in 0..data.len() {
        let image = fs.crash_image(|_, n| n);
        image.flip_bit(&manifest, offset, (offset % 8) as u8);
        if judge(&image, &model, &format!("flip at {offset}")) == Verdict::Refused {
            refused += 1;
        }
    }
    // Every edit is checksummed: nearly all flips must be caught.
    assert!(
        refused * 10 >= data.len() * 9,
        "{refused} of {}",
        data.len()
    );
}

#[test]
fn every_truncation_of_the_manifest_is_refused_or_harmless() {
    let (fs, model) = build();
    let (manifest, data) = file_of(&fs, "MANIFEST", "");
    for len in 0..data.len() {
        let image = fs.crash_image(|_, n| n);
        image.set_file_for_test(&manifest, &data[..len]);
        judge(&image, &model, &format!("truncated to {len}"));
    }
}

#[test]
fn a_grown_length_in_the_last_manifest_record_is_corruption_not_a_torn_tail() {
    let (fs, model) = build();
    let (manifest, mut data) = file_of(&fs, "MANIFEST", "");
    // Find the last record's header: walk the fragments of the (single-block) log.
    let mut at = 0;
    let mut last = 0;
    while at + 7 <= data.len() {
        let len = u16::from_le_bytes([data[at + 4], data[at + 5]]) as usize;
        last = at;
        at += 7 + len;
    }
    data[last + 5] ^= 0x01; // the length's high byte: +256, past the end of the file
    fs.set_file_for_test(&manifest, &data);
    match Db::open(DIR, small_options(&fs)) {
        Err(Error::Corruption { file, offset, .. }) => {
            assert_eq!(file, manifest);
            assert_eq!(offset, last as u64);
        }
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("a damaged MANIFEST opened"),
    }
    // Nothing was deleted: mending the byte gives back every write.
    data[last + 5] ^= 0x01;
    fs.set_file_for_test(&manifest, &data);
    assert_eq!(judge(&fs, &model, "mended"), Verdict::ReadRight);
}

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// A database whose WAL holds `n` synced records in its first block, nothing flushed; with the
/// WAL's path and bytes.
fn wal_db(n: u32) -> (MemFs, Model, PathBuf, Vec<u8>) {
    let fs = MemFs::new();
    let opts = Options {
        write_buffer_size: 1 << 20,
        ..small_options(&fs)
    };
    let db = Db::open(DIR, opts).unwrap();
    let mut model = BTreeMap::new();
    for i in 0..n {
        let mut b = lsmlab::WriteBatch::new();
        b.put(&key(i), &value(i, 0, 30));
        db.write(&synced(), b).unwrap();
        model.insert(key(i), value(i, 0, 30));
    }
    drop(db);
    let (wal, data) = file_of(&fs, "", ".log");
    (fs, model, wal, data)
}

/// Offsets of the fragment headers of a single-block log.
fn headers(data: &[u8]) -> Vec<usize> {
    let mut at = 0;
    let mut out = Vec::new();
    while at + 7 <= data.len() {
        out.push(at);
        at += 7 + u16::from_le_bytes([data[at + 4], data[at + 5]]) as usize;
    }
    out
}

fn open_with(fs: &MemFs, mode: WalRecoveryMode, paranoid: bool) -> lsmlab::Result<Db> {
    Db::open(
        DIR,
        Options {
            wal_recovery_mode: mode,
            paranoid_checks: paranoid,
            write_buffer_size: 1 << 20,
            ..small_options(fs)
        },
    )
}

#[test]
fn a_damaged_wal_header_followed_by_intact_records_is_corruption() {
    let (fs, model, wal, mut data) = wal_db(20);
    let h = headers(&data);
    let victim = h[10];
    data[victim + 4] ^= 0x40; // the record's length: its successors are intact
    fs.set_file_for_test(&wal, &data);
    for mode in [
        WalRecoveryMode::PointInTimeRecovery,
        WalRecoveryMode::TolerateCorruptedTailRecords,
        WalRecoveryMode::AbsoluteConsistency,
    ] {
        match open_with(&fs, mode, true) {
            Err(Error::Corruption { file, offset, .. }) => {
                assert_eq!(file, wal, "{mode:?}");
                assert_eq!(offset, victim as u64, "{mode:?}");
            }
            Err(e) => panic!("{mode:?}: wrong error {e}"),
            Ok(_) => panic!("{mode:?}: damage in the WAL was silently rolled back"),
        }
        assert_eq!(
            fs.read_file_for_test(&wal),
            data,
            "{mode:?} touched the WAL"
        );
    }
    // Skipping damaged records recovers every other record.
    let db = open_with(&fs, WalRecoveryMode::SkipAnyCorruptedRecords, true).unwrap();
    let got = scan(&db, &Default::default());
    assert_eq!(got.len(), model.len() - 1);
    assert!(!got.contains_key(&key(10)));
    assert_eq!(db.property_int("lsmlab.recovery.dropped-records"), Some(0));
    assert_eq!(db.property_int("lsmlab.recovery.damaged-regions"), Some(1));
}

#[test]
fn point_in_time_without_paranoid_checks_stops_at_damage_and_keeps_the_rest_aside() {
    let (fs, model, wal, mut data) = wal_db(20);
    let h = headers(&data);
    data[h[10] + 8] ^= 0x02; // a payload byte of record 10: a checksum mismatch
    fs.set_file_for_test(&wal, &data);
    let db = open_with(&fs, WalRecoveryMode::PointInTimeRecovery, false).unwrap();
    let got = scan(&db, &Default::default());
    let expected: BTreeMap<_, _> = model.into_iter().filter(|(k, _)| *k < key(10)).collect();
    assert_eq!(got, expected);
    // Records 11..19 were whole: counted, and their WAL kept aside rather than deleted.
    assert_eq!(db.property_int("lsmlab.recovery.dropped-records"), Some(9));
    let lost = Path::new(DIR).join("lost").join(wal.file_name().unwrap());
    assert_eq!(fs.read_file_for_test(&lost), data);
    let log = String::from_utf8(fs.read_file_for_test(&Path::new(DIR).join("LOG"))).unwrap();
    assert!(log.contains("dropped 9 records"), "{log}");
}

#[test]
fn a_torn_wal_tail_is_recovered_except_under_absolute_consistency() {
    let (fs, model, wal, data) = wal_db(20);
    let h = headers(&data);
    let cut = h[19] + 10; // inside the last record
    fs.set_file_for_test(&wal, &data[..cut]);
    let image = fs.crash_image(|_, n| n);
    match open_with(&image, WalRecoveryMode::AbsoluteConsistency, true) {
        Err(Error::Corruption { file, offset, .. }) => {
            assert_eq!(file, wal);
            assert_eq!(offset, h[19] as u64);
        }
        other => panic!(
            "absolute consistency accepted a torn tail: {:?}",
            other.err()
        ),
    }
    for mode in [
        WalRecoveryMode::PointInTimeRecovery,
        WalRecoveryMode::TolerateCorruptedTailRecords,
        WalRecoveryMode::SkipAnyCorruptedRecords,
    ] {
        let image = fs.crash_image(|_, n| n);
        let db = open_with(&image, mode, true).unwrap();
        let got = scan(&db, &Default::default());
        assert_eq!(got.len(), model.len() - 1, "{mode:?}");
        assert_eq!(db.property_int("lsmlab.recovery.dropped-records"), Some(0));
    }
}

#[test]
fn a_zeroed_hole_before_intact_records_is_refused_by_default() {
    // Zeros with whole records after them: the records were written, synced here, and
    // dropping them would lose acknowledged writes. Only a power cut that lost an earlier
    // page of unsynced writes while keeping a later one could explain it, and nothing in the
    // file tells that apart from damage: open refuses, naming the hole; point-in-time
    // recovery without paranoid checks takes the writes before it, the WAL kept aside.
    let (fs, model, wal, mut data) = wal_db(20);
    let h = headers(&data);
    for b in &mut data[h[15]..h[17]] {
        *b = 0;
    }
    fs.set_file_for_test(&wal, &data);
    match open_with(&fs, WalRecoveryMode::PointInTimeRecovery, true) {
        Err(Error::Corruption {
            file,
            offset,
            message,
        }) => {
            assert_eq!((file, offset), (wal.clone(), h[15] as u64));
            assert!(message.contains("3 whole records follow"), "{message}");
        }
        other => panic!("a zeroed hole opened: {:?}", other.err()),
    }
    let db = open_with(&fs, WalRecoveryMode::PointInTimeRecovery, false).unwrap();
    assert_eq!(scan(&db, &Default::default()).len(), 15);
    assert_eq!(db.property_int("lsmlab.recovery.dropped-records"), Some(3));
    drop(model);
}

#[test]
fn a_missing_table_named_by_the_manifest_is_refused() {
    let (fs, _) = build();
    let (table, data) = file_of(&fs, "", ".sst");
    let image = fs.crash_image(|_, n| n);
    image.set_file_for_test(&table, &data[..data.len() / 2]);
    match Db::open(DIR, small_options(&image)) {
        Err(Error::Corruption { file, .. }) => assert_eq!(file, table),
        other => panic!("a cut table opened: {:?}", other.err()),
    }
}
