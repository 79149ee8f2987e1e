//! Coverage-guided fuzzing of the study plan parser (`lsmlab run PLAN.toml`): any text must give
//! a plan or a one-line error, never a panic, an abort or a hang (see docs/reliability.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(e) = lsmlab_cli::study::plan::Plan::parse(&text) {
        assert!(!e.0.contains('\n'), "a multi-line error: {e}");
    }
});
