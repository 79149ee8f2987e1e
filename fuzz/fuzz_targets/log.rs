//! Coverage-guided fuzzing of lsmlab::fuzzing::log (see docs/reliability.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| lsmlab::fuzzing::log(data));
