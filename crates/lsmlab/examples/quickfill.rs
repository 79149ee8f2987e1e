// Throwaway profiling driver (not committed).
use lsmlab::{Db, Options};
use std::time::Instant;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: u64 = args.get(1).map(|s| s.parse().unwrap()).unwrap_or(1_000_000);
    let dir = args.get(2).cloned().unwrap_or("/tmp/lsmq".into());
    let _ = std::fs::remove_dir_all(&dir);
    let mut o = Options::default();
    o.write_buffer_size = 8 << 20;
    o.target_file_size_base = 8 << 20;
    o.filter.bits_per_key = 10.0;
    let db = Db::open(&dir, o).unwrap();
    let mut key = vec![b'0'; 32];
    let val = vec![b'x'; 1024];
    let mut r: u64 = 301;
    let t = Instant::now();
    for _ in 0..n {
        r = r
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let k = (r >> 20) % n;
        key[..8].copy_from_slice(&k.to_be_bytes());
        db.put(&key, &val).unwrap();
    }
    let e = t.elapsed().as_secs_f64();
    println!(
        "fillrandom {:.3} micros/op {:.0} ops/s",
        e * 1e6 / n as f64,
        n as f64 / e
    );
    let t = Instant::now();
    let mut found = 0;
    for _ in 0..n {
        r = r
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let k = (r >> 20) % n;
        key[..8].copy_from_slice(&k.to_be_bytes());
        if db.get(&key).unwrap().is_some() {
            found += 1;
        }
    }
    let e = t.elapsed().as_secs_f64();
    println!(
        "readrandom {:.3} micros/op {:.0} ops/s ({found} found)",
        e * 1e6 / n as f64,
        n as f64 / e
    );
    println!("{}", db.property("rocksdb.stats").unwrap());
    println!(
        "{}",
        db.statistics()
            .to_rocksdb_string()
            .lines()
            .filter(|l| l.contains("bloom")
                || l.contains("lsmlab.get")
                || l.contains("compact")
                || l.contains("stall"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
