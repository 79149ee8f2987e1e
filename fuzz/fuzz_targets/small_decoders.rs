//! Coverage-guided fuzzing of lsmlab::fuzzing::small_decoders (see docs/reliability.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| lsmlab::fuzzing::small_decoders(data));
