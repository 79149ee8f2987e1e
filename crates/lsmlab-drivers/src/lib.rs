//! The engines and the drivers that load them: every engine (lsmlab in process, RocksDB and
//! LevelDB through their C APIs, fjall) behind one trait, `engine::Store`; `bench`, RocksDB's
//! db_bench on it, and `ycsb`, YCSB's CoreWorkload on it; `flags`, db_bench's flag table and
//! what each engine supports of it; and `readout`, the parsing of every engine's output and logs
//! into one set of figures. Also the small pieces they share with the rest of the command: the
//! error type (`error`) and "did you mean" (`suggest`).
//!
//! It may use the `lsmlab` engine crate and, behind the cargo features `rocksdb`, `leveldb`,
//! `fjall` and `rocksdb-bundled`, the engine libraries; it uses nothing of the lab
//! (`lsmlab-lab`) or of the command (`lsmlab-cli`). Built without features it links no engine
//! library, and that is how the lab uses it: for the vocabulary of engines, flags, properties
//! and outputs, not to open a database (docs/architecture.md).
//!
//! ```no_run
//! use lsmlab_drivers::flags::BENCHMARKS;
//!
//! // db_bench's fillrandom then readrandom on the lsmlab engine, printed as db_bench prints.
//! assert!(BENCHMARKS.contains(&"fillrandom"));
//! let args: Vec<String> = ["--num=1000", "--benchmarks=fillrandom,readrandom", "--db=/tmp/db"]
//!     .iter()
//!     .map(|s| s.to_string())
//!     .collect();
//! lsmlab_drivers::bench::main(&args)?;
//! # Ok::<(), lsmlab_drivers::error::CliError>(())
//! ```

pub mod bench;
pub mod engine;
pub mod error;
pub mod flags;
pub mod readout;
pub mod suggest;
pub mod ycsb;

pub use error::{CliError, CliResult};
