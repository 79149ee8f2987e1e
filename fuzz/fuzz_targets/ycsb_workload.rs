//! Coverage-guided fuzzing of lsmlab_cli::fuzzing::ycsb_workload, the YCSB workload reader of
//! `lsmlab ycsb -P FILE` (see docs/reliability.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| lsmlab_cli::fuzzing::ycsb_workload(data));
