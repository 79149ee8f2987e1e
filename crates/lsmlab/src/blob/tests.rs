use super::*;
use crate::env::{Env, IoCategory, MemFs};
use crate::error::Error;
use crate::filename::blob_path;
use std::path::Path;
use std::sync::Arc;

const DIR: &str = "/blobtest";

fn value(i: usize, n: usize) -> Vec<u8> {
    (0..n).map(|j| (i * 31 + j / 7) as u8).collect()
}

/// A record written: key, its index, value.
type Written = (Vec<u8>, BlobIndex, Vec<u8>);

/// Writes file 5 with `n` records under `c`; returns the env, the indexes and the values.
fn write_file(n: usize, c: Compression) -> (Env, Vec<Written>) {
    let env = Env::new(Arc::new(MemFs::new()));
    env.fs.create_dir_all(Path::new(DIR)).unwrap();
    let mut w = BlobFileWriter::create(&env, Path::new(DIR), 5, IoCategory::Blob).unwrap();
    let mut recs = Vec::new();
    for i in 0..n {
        let key = format!("key{i:04}").into_bytes();
        let v = value(i, 10 + i * 37);
        let idx = w.add(&key, &v, c).unwrap();
        recs.push((key, idx, v));
    }
    let f = w.finish().unwrap();
    assert_eq!(f.count, n as u64);
    assert_eq!(
        env.fs.file_size(&blob_path(Path::new(DIR), 5)).unwrap(),
        f.file_size()
    );
    (env, recs)
}

#[test]
fn blob_index_round_trips_and_rejects_malformed_bytes() {
    let idx = BlobIndex {
        file_number: 300,
        offset: 1 << 33,
        size: 70_000,
        compression: Compression::Zstd,
    };
    let enc = idx.encode();
    assert_eq!(BlobIndex::decode(&enc), Some(idx));
    for cut in 0..enc.len() {
        assert_eq!(BlobIndex::decode(&enc[..cut]), None);
    }
    let mut long = enc.clone();
    long.push(0);
    assert_eq!(BlobIndex::decode(&long), None, "trailing bytes");
    let mut bad = enc;
    *bad.last_mut().unwrap() = 9;
    assert_eq!(BlobIndex::decode(&bad), None, "unknown compression");
}

#[test]
fn records_read_back_under_every_compression() {
    for c in [
        Compression::None,
        Compression::Lz4,
        Compression::Zstd,
        Compression::Snappy,
    ] {
        let (env, recs) = write_file(40, c);
        let r = BlobFileReader::open(&env, &blob_path(Path::new(DIR), 5)).unwrap();
        for (k, idx, v) in &recs {
            assert_eq!(&r.get(idx, k, IoCategory::UserRead).unwrap().0, v);
        }
        if c != Compression::None {
            assert!(
                recs.iter().any(|(_, i, _)| i.compression == c),
                "compressible values were stored compressed"
            );
        }
    }
}

#[test]
fn an_index_for_another_key_or_out_of_range_is_corruption() {
    let (env, recs) = write_file(3, Compression::None);
    let r = BlobFileReader::open(&env, &blob_path(Path::new(DIR), 5)).unwrap();
    let (k0, i0, _) = &recs[0];
    let (k1, _, _) = &recs[1];
    let key_len_mismatch = r.get(i0, b"x", IoCategory::UserRead).unwrap_err();
    assert!(key_len_mismatch.is_corruption());
    assert!(r
        .get(i0, k1, IoCategory::UserRead)
        .unwrap_err()
        .is_corruption());
    for bad in [
        BlobIndex { offset: 0, ..*i0 },
        BlobIndex {
            offset: u64::MAX - 3,
            ..*i0
        },
        BlobIndex {
            size: u64::MAX,
            ..*i0
        },
        BlobIndex {
            size: i0.size + 1,
            ..*i0
        },
        BlobIndex {
            offset: i0.offset + 1,
            ..*i0
        },
        BlobIndex {
            compression: Compression::Lz4,
            ..*i0
        },
    ] {
        match r.get(&bad, k0, IoCategory::UserRead) {
            Err(Error::Corruption { file, .. }) => assert_eq!(file, blob_path(Path::new(DIR), 5)),
            other => panic!("{bad:?}: expected corruption, got {other:?}"),
        }
    }
}

/// Every single-bit flip anywhere in the file gives `Corruption` (at open or at the read that
/// touches it) or the right value: never a wrong value, never a panic.
#[test]
fn every_bit_flip_is_corruption_never_wrong_data() {
    for c in [Compression::None, Compression::Lz4] {
        let (env, recs) = write_file(4, c);
        let path = blob_path(Path::new(DIR), 5);
        let good = env.fs.read_file(&path).unwrap();
        for byte in 0..good.len() {
            for bit in [0, 3, 7] {
                let mut bad = good.clone();
                bad[byte] ^= 1 << bit;
                let mut f = env.fs.create_file(&path).unwrap();
                f.append(&bad).unwrap();
                f.sync().unwrap();
                drop(f);
                let r = match BlobFileReader::open(&env, &path) {
                    Ok(r) => r,
                    Err(e) => {
                        assert!(e.is_corruption(), "byte {byte}: {e}");
                        continue;
                    }
                };
                let mut corrupt = 0;
                for (k, idx, v) in &recs {
                    match r.get(idx, k, IoCategory::UserRead) {
                        Ok((got, _)) => assert_eq!(&got, v, "byte {byte} bit {bit}: wrong data"),
                        Err(Error::Corruption { file, offset, .. }) => {
                            assert_eq!(file, path);
                            assert_eq!(offset, idx.offset);
                            corrupt += 1;
                        }
                        Err(e) => panic!("byte {byte}: {e}"),
                    }
                }
                assert!(corrupt > 0, "flip at byte {byte} went unnoticed");
            }
        }
    }
}

#[test]
fn unfinished_or_foreign_files_are_refused_at_open() {
    let (env, _) = write_file(2, Compression::None);
    let path = blob_path(Path::new(DIR), 5);
    let good = env.fs.read_file(&path).unwrap();
    for cut in [0, 5, HEADER_LEN as usize, good.len() - 1] {
        let mut f = env.fs.create_file(&path).unwrap();
        f.append(&good[..cut]).unwrap();
        drop(f);
        assert!(BlobFileReader::open(&env, &path)
            .unwrap_err()
            .is_corruption());
    }
}
