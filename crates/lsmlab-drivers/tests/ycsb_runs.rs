//! YCSB load and run phases on one database: the operation counts add up and every read finds
//! a loaded key.

use lsmlab_drivers::engine::lsmlab::LsmlabStore;
use lsmlab_drivers::ycsb::measure::Op;
use lsmlab_drivers::ycsb::properties::Properties;
use lsmlab_drivers::ycsb::workload::CoreWorkload;
use lsmlab_drivers::ycsb::{builtin, engine_options, parse, run_phase, Phase};

fn workload(name: &str, overrides: &[&str]) -> CoreWorkload {
    let mut p = Properties::default();
    p.load_str(builtin::find(name).unwrap());
    for o in overrides {
        p.set_pair(o).unwrap();
    }
    CoreWorkload::from_properties(&p).unwrap()
}

fn loaded_db(records: u64) -> (tempfile::TempDir, LsmlabStore) {
    let dir = tempfile::tempdir().unwrap();
    // The options `lsmlab ycsb` opens with when no property sets one.
    let settings = engine_options::settings(&Properties::default(), dir.path().to_str().unwrap())
        .unwrap()
        .0;
    let db = LsmlabStore::open(&settings, true).unwrap();
    let w = workload("workloada", &[&format!("recordcount={records}")]);
    let r = run_phase(&db, &w, Phase::Load).unwrap();
    assert_eq!(r.operations, records);
    assert_eq!(r.measurements.returns(Op::Insert, "OK"), records);
    (dir, db)
}

#[test]
fn load_inserts_recordcount_distinct_keys() {
    let (_d, db) = loaded_db(500);
    let mut it = db.db().iter(&Default::default()).unwrap();
    it.seek_to_first();
    let mut n = 0;
    while it.valid() {
        assert!(it.key().starts_with(b"user"));
        // 10 fields of 100 bytes, each with its name and two lengths.
        assert_eq!(it.value().len(), 10 * (4 + 6 + 4 + 100));
        n += 1;
        it.next();
    }
    assert_eq!(n, 500);
}

#[test]
fn read_only_zipfian_run_finds_every_key() {
    let (_d, db) = loaded_db(1000);
    let w = workload(
        "workloadc",
        &["recordcount=1000", "operationcount=2000", "threadcount=2"],
    );
    let r = run_phase(&db, &w, Phase::Run).unwrap();
    assert_eq!(r.operations, 2000);
    assert_eq!(r.measurements.count(Op::Read), 2000);
    assert_eq!(r.measurements.returns(Op::Read, "OK"), 2000);
    let text = r.measurements.report(r.runtime_ms, r.operations);
    assert!(text.contains("[READ], Operations, 2000\n"), "{text}");
    assert!(
        text.contains("[READ], 99thPercentileLatency(us), "),
        "{text}"
    );
}

#[test]
fn latest_run_reads_only_acknowledged_keys() {
    let (_d, db) = loaded_db(1000);
    let w = workload("workloadd", &["recordcount=1000", "operationcount=2000"]);
    let r = run_phase(&db, &w, Phase::Run).unwrap();
    let (reads, inserts) = (
        r.measurements.count(Op::Read),
        r.measurements.count(Op::Insert),
    );
    assert_eq!(reads + inserts, 2000);
    assert!(inserts > 0);
    assert_eq!(r.measurements.returns(Op::Read, "OK"), reads);
}

#[test]
fn scan_and_rmw_mixes_add_up() {
    let (_d, db) = loaded_db(1000);
    let w = workload("workloade", &["recordcount=1000", "operationcount=300"]);
    let r = run_phase(&db, &w, Phase::Run).unwrap();
    assert_eq!(
        r.measurements.count(Op::Scan) + r.measurements.count(Op::Insert),
        300
    );
    assert!(r.bytes_returned > 0);
    let w = workload("workloadf", &["recordcount=1000", "operationcount=1000"]);
    let r = run_phase(&db, &w, Phase::Run).unwrap();
    let rmw = r.measurements.count(Op::ReadModifyWrite);
    // Each read-modify-write is measured whole and as its read and its update.
    assert_eq!(r.measurements.count(Op::Update), rmw);
    assert_eq!(r.measurements.count(Op::Read), 1000);
    assert_eq!(r.measurements.returns(Op::Read, "OK"), 1000);
}

#[test]
fn fslsm_mixes_run_with_their_proportions() {
    let (_d, db) = loaded_db(500);
    let w = workload(
        "fslsm-workload14",
        &["recordcount=500", "operationcount=4000"],
    );
    let r = run_phase(&db, &w, Phase::Run).unwrap();
    let m = &r.measurements;
    assert_eq!(
        m.count(Op::Read) + m.count(Op::Insert) + m.count(Op::Update),
        4000
    );
    let reads = m.count(Op::Read) as f64 / 4000.0;
    assert!((0.45..0.55).contains(&reads), "{reads}");
    let w = workload(
        "fslsm-workload13",
        &["recordcount=500", "operationcount=100"],
    );
    let r = run_phase(&db, &w, Phase::Run).unwrap();
    assert_eq!(r.measurements.count(Op::Scan), 100);
}

#[test]
fn scans_as_gets_read_consecutive_key_numbers_and_seek_nothing() {
    use lsmlab::Ticker;
    let (_d, db) = loaded_db(500);
    let stats = db.db().statistics();
    let (gets0, seeks0) = (
        stats.ticker(Ticker::NumberKeysRead),
        stats.ticker(Ticker::NumberDbSeek),
    );
    // Scans of exactly 10 records from a key number at most 489 (records 0..500): 10 gets each.
    let w = workload(
        "fslsm-workload13",
        &[
            "recordcount=500",
            "operationcount=50",
            "scanmethod=gets",
            "minscanlength=10",
            "maxscanlength=10",
            "requestdistribution=uniform",
        ],
    );
    let r = run_phase(&db, &w, Phase::Run).unwrap();
    assert_eq!(r.measurements.count(Op::Scan), 50);
    let gets = stats.ticker(Ticker::NumberKeysRead) - gets0;
    assert!((450..=500).contains(&gets), "{gets} gets");
    assert_eq!(stats.ticker(Ticker::NumberDbSeek), seeks0);
    let mut p = Properties::default();
    p.set_pair("scanmethod=cursor").unwrap();
    let e = CoreWorkload::from_properties(&p).err().unwrap().to_string();
    assert!(e.contains("scanmethod"), "{e}");
}

#[test]
fn command_line_parses_files_overrides_and_db() {
    let args: Vec<String> = [
        "run",
        "-P",
        "workloadb",
        "-p",
        "recordcount=7",
        "--db=/tmp/x",
        "-threads",
        "3",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let a = parse(&args).unwrap().unwrap();
    assert_eq!(a.phase, Phase::Run);
    assert_eq!(a.db, "/tmp/x");
    assert_eq!(a.props.get("recordcount"), Some("7"));
    assert_eq!(a.props.get("threadcount"), Some("3"));
    assert_eq!(a.props.get("readproportion"), Some("0.95"));
    let bad: Vec<String> = ["walk", "-P", "workloada"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert!(parse(&bad).unwrap_err().0.contains("expected load or run"));
}
