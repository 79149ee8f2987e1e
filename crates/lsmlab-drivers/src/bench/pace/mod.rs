//! The pace of a benchmark: how long a thread runs (`--num` operations or `--duration`
//! seconds), the wall clock its header and interval lines are stamped with, and the client's rate
//! limits (`--benchmark_write_rate_limit`, `--benchmark_read_rate_limit`).

pub mod budget;
pub mod clock;
pub mod rate_limit;
