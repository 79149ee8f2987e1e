//! Named tree shapes: sets of options that reproduce the tree a study ran on.

use super::{CompactionVictims, Options};
use crate::error::{Error, Result};
use crate::filter::FilterKind;

/// The names [`Options::apply_shape`] accepts.
pub const SHAPES: [&str; 1] = ["fslsm-study"];

/// The option names (as `lsmlab bench` flags) each shape sets, so that a front end can refuse a
/// flag given together with a shape that would override it.
pub const SHAPE_FLAGS: &[&str] = &[
    "write_buffer_size",
    "max_write_buffer_number",
    "target_file_size_base",
    "block_size",
    "bloom_bits",
    "use_ribbon_filter",
    "cache_size",
    "level0_file_num_compaction_trigger",
    "max_files_for_level_base",
    "max_bytes_for_level_multiplier",
    "num_levels",
    "compaction_victims",
];

impl Options {
    /// Sets the options of a named tree shape; the others are unchanged.
    ///
    /// `fslsm-study`: the tree of the FSLSM-Tree study's simulator (seed 003) — a 4 MiB
    /// memtable and one immutable one (`max_write_buffer_number` 2), tables cut at 8 KiB (its
    /// tables hold keys and value pointers), 512-byte blocks, Bloom filters of 12 bits per key,
    /// no block cache, level limits in tables (level 0 compacts at 4, then 10, 100, 1000, … over
    /// 7 levels) and compaction victims chosen by lowest access frequency.
    pub fn apply_shape(&mut self, name: &str) -> Result<()> {
        match name {
            "fslsm-study" => {
                self.write_buffer_size = 4 << 20;
                self.max_write_buffer_number = 2;
                self.target_file_size_base = 8 << 10;
                self.block_size = 512;
                // Only what the simulator's tree fixes: per-level filter settings stay.
                self.filter.bits_per_key = 12.0;
                self.filter.kind = FilterKind::Bloom;
                self.filter.bloom_before_level = 0;
                self.block_cache_size = 0;
                self.level0_file_num_compaction_trigger = 4;
                self.max_files_for_level_base = 10;
                self.max_bytes_for_level_multiplier = 10.0;
                self.num_levels = 7;
                self.compaction_victims = CompactionVictims::LowestFrequency;
                Ok(())
            }
            other => Err(Error::invalid_option(
                "shape",
                format!("{other:?}"),
                format!("allowed: {}", SHAPES.join(", ")),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_study_shape_sets_its_tree_and_refuses_unknown_names() {
        let mut o = Options::default();
        o.apply_shape("fslsm-study").unwrap();
        assert_eq!(
            (
                o.write_buffer_size,
                o.target_file_size_base,
                o.block_size,
                o.block_cache_size
            ),
            (4 << 20, 8192, 512, 0)
        );
        assert_eq!(o.filter.bits_per_key, 12.0);
        assert_eq!(o.max_files_for_level_base, 10);
        assert_eq!(o.compaction_victims, CompactionVictims::LowestFrequency);
        o.validate().unwrap();
        let e = o.apply_shape("rocksdb").unwrap_err().to_string();
        assert!(e.contains("fslsm-study"), "{e}");
    }
}
