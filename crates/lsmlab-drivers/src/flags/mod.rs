//! db_bench's flags, the vocabulary `lsmlab bench` takes on its command line, `lsmlab ycsb`
//! takes as `-p lsmlab.<flag>` engine options and the study runner checks plans against: the
//! table of names and defaults (`table.rs`), the types they hold (`value.rs`), gflags-style
//! parsing with flag files (`parse.rs`) and the db_bench flags accepted without effect
//! (`compat.rs`), refusals (`validate.rs`), the engine settings the flags describe
//! (`settings.rs`) and the engine options settable by flag name (`engine_options.rs`).
//!
//! It imports `engine/` (the settings it fills) and none of the front ends that use it.

pub mod compat;
mod engine_options;
mod parse;
mod settings;
mod table;
mod validate;
mod value;

#[cfg(test)]
mod tests;

pub use engine_options::{engine_option_names, set_engine_option};
pub use parse::{parse, Parsed};
pub use settings::compression_flag_value;
pub use table::{BenchFlags, BENCHMARKS, REFUSED, REFUSED_BENCHMARKS, SUPPORTED};
pub use value::FlagValue;

impl BenchFlags {
    /// Reads per thread (`--reads`, or `--num` when negative).
    pub fn reads_per_thread(&self) -> u64 {
        u64::try_from(self.reads).unwrap_or(self.num)
    }

    /// Writes per thread (`--writes`, or `--num` when negative).
    pub fn writes_per_thread(&self) -> u64 {
        u64::try_from(self.writes).unwrap_or(self.num)
    }

    /// Deletes per thread (`--deletes`, or `--num` when negative).
    pub fn deletes_per_thread(&self) -> u64 {
        u64::try_from(self.deletes).unwrap_or(self.num)
    }
}
