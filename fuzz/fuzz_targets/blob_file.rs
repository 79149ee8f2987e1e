//! Coverage-guided fuzzing of lsmlab::fuzzing::blob_file (see docs/reliability.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| lsmlab::fuzzing::blob_file(data));
