//! Coverage-guided fuzzing of lsmlab::fuzzing::block (see docs/reliability.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| lsmlab::fuzzing::block(data));
