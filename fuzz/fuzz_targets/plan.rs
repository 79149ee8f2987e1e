//! Coverage-guided fuzzing of lsmlab_cli::fuzzing::plan, the study plan parser of
//! `lsmlab run PLAN.toml` (see docs/reliability.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| lsmlab_cli::fuzzing::plan(data));
