//! Coverage-guided fuzzing of the YCSB workload parser (`lsmlab ycsb -P FILE`): the properties
//! file read as Java properties, then the CoreWorkload it describes built (generators included),
//! or a one-line error; never a panic, an abort or a hang (see docs/reliability.md).
#![no_main]
use lsmlab_cli::ycsb::properties::Properties;
use lsmlab_cli::ycsb::workload::CoreWorkload;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut p = Properties::default();
    p.load_str(&String::from_utf8_lossy(data));
    if let Err(e) = CoreWorkload::from_properties(&p) {
        assert!(!e.0.contains('\n'), "a multi-line error: {e}");
    }
});
