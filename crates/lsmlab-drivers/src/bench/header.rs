//! The header db_bench prints before the benchmarks (`PrintEnvironment` and `PrintHeader`).

use crate::flags::BenchFlags;
use lsmlab::Compression;
use std::fmt::Write as _;

fn cpu_description() -> (String, String) {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let mut count = 0;
    let (mut model, mut cache) = (String::new(), String::new());
    for line in info.lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        match k.trim() {
            "model name" => {
                count += 1;
                model = v.trim().to_string();
            }
            "cache size" => cache = v.trim().to_string(),
            _ => {}
        }
    }
    (format!("{count} * {model}"), cache)
}

/// RocksDB's name of a compression type (`CompressionTypeToString`).
pub fn compression_name(c: Compression) -> &'static str {
    match c {
        Compression::None => "NoCompression",
        Compression::Lz4 => "LZ4",
        Compression::Zstd => "ZSTD",
        Compression::Snappy => "Snappy",
    }
}

/// The environment lines db_bench prints on stderr (`PrintEnvironment`).
pub fn environment() -> String {
    let mut s = String::new();
    let (cpu, cache) = cpu_description();
    let _ = writeln!(
        s,
        "lsmlab:     version {} (db_bench 7.8 compatible)",
        env!("CARGO_PKG_VERSION")
    );
    let _ = writeln!(
        s,
        "Date:       {}",
        crate::bench::pace::clock::header_date()
    );
    let _ = writeln!(s, "CPU:        {cpu}");
    let _ = writeln!(s, "CPUCache:   {cache}");
    s
}

/// The header lines db_bench prints on stdout, ending with its dashed rule.
pub fn header(flags: &BenchFlags) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Keys:       {} bytes each (+ 0 bytes user-defined timestamp)",
        flags.key_size
    );
    let _ = writeln!(
        s,
        "Values:     {} bytes each ({} bytes after compression)",
        flags.value_size,
        (flags.value_size as f64 * flags.compression_ratio + 0.5) as i64
    );
    let _ = writeln!(s, "Entries:    {}", flags.num);
    let _ = writeln!(s, "Prefix:    0 bytes");
    let _ = writeln!(s, "Keys per prefix:    0");
    let _ = writeln!(
        s,
        "RawSize:    {:.1} MB (estimated)",
        ((flags.key_size + flags.value_size) as u64 * flags.num) as f64 / 1_048_576.0
    );
    let _ = writeln!(
        s,
        "FileSize:   {:.1} MB (estimated)",
        ((flags.key_size as f64 + flags.value_size as f64 * flags.compression_ratio)
            * flags.num as f64)
            / 1_048_576.0
    );
    let _ = writeln!(s, "Write rate: 0 bytes/second");
    let _ = writeln!(s, "Read rate: 0 ops/second");
    let _ = writeln!(
        s,
        "Compression: {}",
        compression_name(flags.compression().unwrap_or_default())
    );
    let _ = writeln!(s, "Compression sampling rate: 0");
    let _ = writeln!(s, "Memtablerep: SkipListFactory");
    let _ = writeln!(s, "Perf Level: 1");
    let kind = if flags.use_ribbon_filter {
        "Ribbon"
    } else {
        "Bloom"
    };
    let mut filter = if !flags.bloom_bits_per_level.is_empty() {
        format!("{kind} {} bits/key by level", flags.bloom_bits_per_level)
    } else if flags.bloom_bits > 0.0 {
        format!("{kind} {} bits/key", flags.bloom_bits)
    } else {
        "none".to_string()
    };
    if flags.bloom_bits > 0.0
        && flags.bloom_bits_per_level.is_empty()
        && flags.bloom_allocation != "uniform"
    {
        filter.push_str(&format!(", {} allocation", flags.bloom_allocation));
    }
    if flags.optimize_filters_for_hits && filter != "none" {
        filter.push_str(", none on the last level");
    }
    let _ = writeln!(s, "Filter:     {filter}");
    let engine = flags
        .engine_kind()
        .map(|k| k.describe())
        .unwrap_or_else(|e| e.to_string());
    let _ = writeln!(s, "Engine:     {engine}");
    s.push_str("------------------------------------------------\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_line_names_the_per_level_settings() {
        let line = |f: BenchFlags| {
            header(&f)
                .lines()
                .find(|l| l.starts_with("Filter:"))
                .unwrap()
                .to_string()
        };
        let bloom = || BenchFlags {
            bloom_bits: 10.0,
            ..BenchFlags::default()
        };
        assert_eq!(line(bloom()), "Filter:     Bloom 10 bits/key");
        let monkey = BenchFlags {
            bloom_allocation: "monkey".into(),
            optimize_filters_for_hits: true,
            ..bloom()
        };
        assert_eq!(
            line(monkey),
            "Filter:     Bloom 10 bits/key, monkey allocation, none on the last level"
        );
        let list = BenchFlags {
            bloom_bits_per_level: "14,10,8".into(),
            ..BenchFlags::default()
        };
        assert_eq!(line(list), "Filter:     Bloom 14,10,8 bits/key by level");
        let none = BenchFlags {
            optimize_filters_for_hits: true,
            ..BenchFlags::default()
        };
        assert_eq!(line(none), "Filter:     none");
    }

    #[test]
    fn header_has_db_bench_lines() {
        let f = BenchFlags {
            num: 1000,
            key_size: 32,
            value_size: 1024,
            ..BenchFlags::default()
        };
        let h = header(&f);
        assert!(h.starts_with("Keys:       32 bytes each (+ 0 bytes user-defined timestamp)\n"));
        assert!(h.contains("\nValues:     1024 bytes each (512 bytes after compression)\n"));
        assert!(h.contains("\nEntries:    1000\n"));
        assert!(h.contains("\nRawSize:    1.0 MB (estimated)\n"), "{h}");
        assert!(h.contains("\nFileSize:   0.5 MB (estimated)\n"), "{h}");
        // db_bench's default codec, named as db_bench names it.
        assert!(h.contains("\nCompression: Snappy\n"), "{h}");
        assert!(h.ends_with("------------------------------------------------\n"));
        assert!(environment().starts_with("lsmlab:     version "));
    }
}
