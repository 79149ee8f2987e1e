//! Coverage-guided fuzzing of lsmlab::fuzzing::table (see docs/reliability.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| lsmlab::fuzzing::table(data));
