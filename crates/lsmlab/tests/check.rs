//! `check::check_db` passes a healthy database, names the file of each kind of damage, never
//! writes, and says open refuses exactly when open refuses (with open's file and offset).

mod common;

use common::*;
use lsmlab::check::check_db;
use lsmlab::env::MemFs;
use lsmlab::{Db, Options};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Several levels, blob files with garbage collection, an unflushed WAL.
fn build() -> MemFs {
    let fs = MemFs::new();
    let opts = Options {
        enable_blob_files: true,
        min_blob_size: 30,
        enable_blob_garbage_collection: true,
        blob_garbage_collection_age_cutoff: 0.5,
        blob_file_size: 8 << 10,
        ..small_options(&fs)
    };
    let db = Db::open(DIR, opts).unwrap();
    for i in 0..1500u32 {
        let k = (i * 7919) % 500;
        db.put(&key(k), &value(k, i, 20 + (i % 3) as usize * 20))
            .unwrap();
        if i % 97 == 0 {
            db.delete(&key(k / 2)).unwrap();
        }
    }
    db.wait_for_background_work().unwrap();
    db.put(&key(9999), b"in the WAL only").unwrap();
    drop(db);
    fs
}

fn files_of(fs: &MemFs, suffix: &str) -> Vec<PathBuf> {
    fs.files()
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| p.to_str().unwrap().ends_with(suffix))
        .collect()
}

#[test]
fn a_healthy_database_passes_and_every_part_is_read() {
    let fs = build();
    let before = fs.files();
    let r = check_db(Path::new(DIR), Arc::new(fs.clone())).unwrap();
    assert!(r.ok(), "{:?}", r.problems);
    assert!(r.manifest_edits > 3, "{r:?}");
    assert!(r.tables_per_level.iter().skip(1).any(|&n| n > 0), "{r:?}");
    assert!(
        r.entries > 100 && r.blob_files > 0 && r.blob_records > 100,
        "{r:?}"
    );
    assert!(r.wals >= 1 && r.wal_records >= 1, "{r:?}");
    let after = fs.files();
    assert_eq!(before, after, "check wrote to the database");
}

#[test]
fn damage_in_each_kind_of_file_is_named() {
    let fs = build();
    let healthy = check_db(Path::new(DIR), Arc::new(fs.clone())).unwrap();
    // Live files only: the orphans are not checked, only noted.
    let live = |p: &PathBuf| {
        let name = p.file_name().unwrap().to_str().unwrap();
        !healthy.notes.iter().any(|n| n.starts_with(name))
    };
    let table = files_of(&fs, ".sst").into_iter().find(live).unwrap();
    let blob = files_of(&fs, ".blob").into_iter().find(live).unwrap();
    let wal = files_of(&fs, ".log")[0].clone();
    type Damage = Box<dyn Fn(&MemFs)>;
    let cases: Vec<(PathBuf, Damage)> = vec![
        (
            table.clone(),
            Box::new({
                let t = table.clone();
                move |fs: &MemFs| fs.flip_bit(&t, 40, 2)
            }),
        ),
        (
            blob.clone(),
            Box::new({
                let b = blob.clone();
                move |fs: &MemFs| fs.flip_bit(&b, 60, 5)
            }),
        ),
        (
            wal.clone(),
            Box::new({
                let w = wal.clone();
                // The payload of the first record: a checksum mismatch followed by valid records.
                move |fs: &MemFs| fs.flip_bit(&w, 12, 0)
            }),
        ),
    ];
    for (file, damage) in cases {
        let image = fs.crash_image(|_, n| n);
        damage(&image);
        let r = check_db(Path::new(DIR), Arc::new(image)).unwrap();
        assert!(
            r.problems.iter().any(|p| p.file == file),
            "{file:?} not named: {:?}",
            r.problems
        );
    }
    // A blob file missing entirely.
    let image = fs.crash_image(|_, n| n);
    image.set_file_for_test(&blob, &[]);
    let r = check_db(Path::new(DIR), Arc::new(image)).unwrap();
    assert!(!r.ok());
}

#[test]
fn a_directory_without_a_database_is_an_error() {
    let fs = MemFs::new();
    assert!(check_db(Path::new("/nothing"), Arc::new(fs)).is_err());
}

/// `check` on `image`, then open: check's verdict on open is open's, and when open refuses it
/// names the same file and offset and promises no deletion.
fn check_agrees_with_open(image: &MemFs, what: &str) -> Option<lsmlab::check::Problem> {
    let r = check_db(Path::new(DIR), Arc::new(image.clone())).unwrap();
    let open = Db::open(DIR, small_options(image));
    match (&r.open_refused, open) {
        (None, Ok(_)) => None,
        (Some(p), Err(lsmlab::Error::Corruption { file, offset, .. })) => {
            assert_eq!((&p.file, p.offset), (&file, offset), "{what}");
            assert!(!r.ok(), "{what}");
            assert!(
                !r.notes
                    .iter()
                    .any(|n| n.contains("deleted at the next open")),
                "{what}: {:?}",
                r.notes
            );
            Some(p.clone())
        }
        (p, o) => panic!("{what}: check says {p:?}, open says {:?}", o.err()),
    }
}

fn manifest_of(fs: &MemFs) -> (PathBuf, Vec<u8>) {
    let p = fs
        .files()
        .into_iter()
        .map(|(p, _)| p)
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("MANIFEST-")
        })
        .unwrap();
    let d = fs.read_file_for_test(&p);
    (p, d)
}

#[test]
fn a_manifest_cut_short_fails_check_as_it_fails_open() {
    let fs = build();
    let (manifest, data) = manifest_of(&fs);
    for len in [13, 50] {
        let image = fs.crash_image(|_, n| n);
        image.set_file_for_test(&manifest, &data[..len]);
        let p = check_agrees_with_open(&image, &format!("cut to {len}"));
        assert!(p.is_some(), "cut to {len}: open accepted it");
    }
}

#[test]
fn a_manifest_with_garbage_from_byte_18_fails_check_as_it_fails_open() {
    let fs = build();
    let (manifest, mut data) = manifest_of(&fs);
    let mut x = 0x9e37_79b9u32;
    for b in &mut data[18..] {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        *b = (x >> 24) as u8;
    }
    let image = fs.crash_image(|_, n| n);
    image.set_file_for_test(&manifest, &data);
    assert!(check_agrees_with_open(&image, "garbage from 18").is_some());
}

#[test]
fn a_bit_flip_in_the_manifest_fails_check_as_it_fails_open() {
    let fs = build();
    let (manifest, data) = manifest_of(&fs);
    let mut refused = 0;
    // Every byte of the first 600 (record headers and edits), one bit each.
    for at in 0..data.len().min(600) {
        let image = fs.crash_image(|_, n| n);
        image.flip_bit(&manifest, at, (at % 8) as u8);
        if check_agrees_with_open(&image, &format!("flip at {at}")).is_some() {
            refused += 1;
        }
    }
    assert!(refused > 500, "{refused}");
}
