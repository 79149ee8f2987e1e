//! The figures of a run read from what its engine printed: db_bench-format output parsed in one
//! place for every engine, step figures from the libraries' own info logs, and the metrics
//! computed the same way for every engine.

pub mod library_logs;
pub mod metrics;
pub mod output;
