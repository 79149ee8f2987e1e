//! The options of a stress run, drawn from its seed across everything a user can set, so that
//! a seed alone reproduces a run.

use lsmlab::filter::{FilterKind, FilterOptions};
use lsmlab::options::{StopStyle, UniversalOptions};
use lsmlab::{Compression, Layout, Options};
use std::fmt;

/// A small seeded generator (splitmix64): the stress test's own, so that a seed means the same
/// run on every build.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5851_f42d_4c95_7f2d)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }
    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
    /// One of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// Everything a run draws from its seed.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// The engine's options (the file system is set by the caller).
    pub options: Options,
    /// Fraction of writes made with `sync`.
    pub sync_fraction: f64,
    /// Largest value length drawn, in bytes.
    pub max_value_len: usize,
}

impl RunConfig {
    /// The configuration of seed `seed`.
    pub fn from_seed(seed: u64) -> RunConfig {
        let mut r = Rng::new(seed);
        // Small buffers and tables, so that flushes and compactions happen all the time.
        let write_buffer_size = r.pick(&[16 << 10, 64 << 10, 256 << 10, 1 << 20]);
        let target = r.pick(&[16u64 << 10, 64 << 10, 256 << 10]);
        let l0_trigger = 2 + r.below(3) as usize;
        let filter = match r.below(3) {
            0 => FilterOptions {
                bits_per_key: 0.0,
                ..FilterOptions::default()
            },
            k => FilterOptions {
                bits_per_key: r.pick(&[1.0, 5.0, 10.0, 20.0]),
                kind: if k == 1 {
                    FilterKind::Bloom
                } else {
                    FilterKind::Ribbon
                },
                bloom_before_level: r.pick(&[-1, 0, 1, 2]),
                ..FilterOptions::default()
            },
        };
        let enable_blob_files = r.chance(0.5);
        let mut options = Options {
            write_buffer_size,
            max_write_buffer_number: 2 + r.below(2) as usize,
            target_file_size_base: target,
            max_bytes_for_level_base: target * r.pick(&[2, 4, 8]),
            max_bytes_for_level_multiplier: r.pick(&[2.0, 4.0, 10.0]),
            level0_file_num_compaction_trigger: l0_trigger,
            level0_slowdown_writes_trigger: l0_trigger + 4,
            level0_stop_writes_trigger: l0_trigger + 8,
            num_levels: r.pick(&[3, 5, 7]),
            max_background_jobs: 2 + r.below(3) as usize,
            block_size: r.pick(&[256, 1024, 4096]),
            block_restart_interval: r.pick(&[1, 4, 16]),
            block_cache_size: r.pick(&[0, 64 << 10, 8 << 20]),
            compression: r.pick(&[Compression::None, Compression::Lz4, Compression::Zstd]),
            filter,
            bytes_per_sync: r.pick(&[0, 64 << 10]),
            enable_blob_files,
            min_blob_size: r.pick(&[0, 64, 512]),
            blob_file_size: r.pick(&[64u64 << 10, 1 << 20]),
            blob_compression_type: r.pick(&[Compression::None, Compression::Lz4]),
            enable_blob_garbage_collection: enable_blob_files && r.chance(0.6),
            blob_garbage_collection_age_cutoff: r.pick(&[0.25, 0.5, 1.0]),
            blob_garbage_collection_force_threshold: r.pick(&[0.5, 1.0]),
            ..Options::default()
        };
        let sync_fraction = r.pick(&[0.0, 0.0, 0.05, 1.0]);
        let max_value_len = r.pick(&[64, 400, 2000]);
        // Drawn last, so that the other options of a seed stay what they were before FSLSM.
        // A third of the seeds run the FSLSM layout with float-ups forced (γ so small that
        // every get that finds its key below level 0 asks for one) and short windows, so that
        // the read ratio and the stretched limits move within a run.
        if r.below(3) == 0 {
            options.layout = Layout::Fslsm;
            options.fslsm.gamma = r.pick(&[0.01, 0.5]);
            options.fslsm.read_ratio_window = r.pick(&[16, 256]);
            options.fslsm.frequency_window = r.pick(&[100, 10_000]);
        }
        // Drawn after FSLSM for the same reason: half the seeds read tables and blob files
        // through memory maps.
        options.allow_mmap_reads = r.chance(0.5);
        // Drawn last again: a third of the leveled seeds run universal compaction. Its
        // parameters are drawn for every seed, so that `--layout=universal` forces it on any
        // seed with parameters of that seed's own.
        let universal = r.below(3) == 0;
        options.universal = UniversalOptions {
            size_ratio: r.pick(&[0, 1, 10]),
            min_merge_width: r.pick(&[2, 3]),
            max_merge_width: r.pick(&[3, u32::MAX]),
            max_size_amplification_percent: r.pick(&[25, 200]),
            allow_trivial_move: r.chance(0.5),
            stop_style: if r.chance(0.25) {
                StopStyle::SimilarSize
            } else {
                StopStyle::TotalSize
            },
        };
        if universal && options.layout == Layout::Leveled {
            options.layout = Layout::Universal;
        }
        RunConfig {
            options,
            sync_fraction,
            max_value_len,
        }
    }
}

impl RunConfig {
    /// This configuration with its layout replaced by `layout` (`None`: the seed's own); the
    /// layout's parameters stay those the seed drew.
    pub fn with_layout(mut self, layout: Option<Layout>) -> RunConfig {
        if let Some(l) = layout {
            self.options.layout = l;
        }
        self
    }
}

impl fmt::Display for RunConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let o = &self.options;
        let filter = if o.filter.bits_per_key <= 0.0 {
            "none".to_string()
        } else {
            format!(
                "{:?} {} bits/key (bloom_before_level {})",
                o.filter.kind, o.filter.bits_per_key, o.filter.bloom_before_level
            )
        };
        let blobs = if o.enable_blob_files {
            format!(
                "blob files (min {} B, {} KiB, {:?}, GC {} age {} force {})",
                o.min_blob_size,
                o.blob_file_size >> 10,
                o.blob_compression_type,
                if o.enable_blob_garbage_collection {
                    "on"
                } else {
                    "off"
                },
                o.blob_garbage_collection_age_cutoff,
                o.blob_garbage_collection_force_threshold
            )
        } else {
            "inline values".to_string()
        };
        let layout = match o.layout {
            Layout::Leveled => "leveled".to_string(),
            Layout::Fslsm => format!(
                "fslsm (gamma {}, read ratio window {}, frequency window {})",
                o.fslsm.gamma, o.fslsm.read_ratio_window, o.fslsm.frequency_window
            ),
            Layout::Universal => format!(
                "universal (size ratio {}, merge width {}..{}, size amp {} %, trivial move {})",
                o.universal.size_ratio,
                o.universal.min_merge_width,
                o.universal.max_merge_width,
                o.universal.max_size_amplification_percent,
                o.universal.allow_trivial_move
            ),
        };
        write!(
            f,
            "layout {layout}, write_buffer {} KiB x{}, tables {} KiB, L1 {} KiB x{}, L0 trigger {}, {} levels, {} jobs, \
             blocks {} B/restart {}, cache {} KiB, {:?}, filter {filter}, {blobs}, bytes_per_sync {}, \
             mmap reads {}, sync {:.0}% of writes, values up to {} B",
            o.write_buffer_size >> 10,
            o.max_write_buffer_number,
            o.target_file_size_base >> 10,
            o.max_bytes_for_level_base >> 10,
            o.max_bytes_for_level_multiplier,
            o.level0_file_num_compaction_trigger,
            o.num_levels,
            o.max_background_jobs,
            o.block_size,
            o.block_restart_interval,
            o.block_cache_size >> 10,
            o.compression,
            o.bytes_per_sync,
            o.allow_mmap_reads,
            self.sync_fraction * 100.0,
            self.max_value_len
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_valid_options_and_seeds_differ() {
        let mut shown = std::collections::HashSet::new();
        for seed in 0..200 {
            let c = RunConfig::from_seed(seed);
            c.options
                .validate()
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            assert_eq!(c.to_string(), RunConfig::from_seed(seed).to_string());
            shown.insert(c.to_string());
        }
        assert!(
            shown.len() > 150,
            "seeds should rarely repeat a configuration"
        );
    }

    #[test]
    fn about_a_third_of_the_seeds_run_fslsm() {
        let n = (0..300)
            .filter(|&s| RunConfig::from_seed(s).options.layout == Layout::Fslsm)
            .count();
        assert!((70..=130).contains(&n), "{n} of 300 seeds run fslsm");
    }

    #[test]
    fn some_seeds_run_universal_and_any_seed_can_be_made_to() {
        let n = (0..300)
            .filter(|&s| RunConfig::from_seed(s).options.layout == Layout::Universal)
            .count();
        assert!((40..=100).contains(&n), "{n} of 300 seeds run universal");
        for seed in 0..50 {
            let c = RunConfig::from_seed(seed).with_layout(Some(Layout::Universal));
            c.options
                .validate()
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            assert!(c.to_string().starts_with("layout universal"), "{c}");
        }
    }
}
