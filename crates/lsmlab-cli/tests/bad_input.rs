//! Bad input campaign: every flag of `lsmlab bench` and `lsmlab stress`, every YCSB property,
//! with wrong types, out-of-range and absurd values, gives a result or a one-line error that
//! names the flag — never a panic. Values the parser accepts must also give engine options that
//! open or refuse cleanly.

mod common;

use common::lsmlab;
use lsmlab_drivers::engine::lsmlab::{options, write_options};
use lsmlab_drivers::flags::{parse, Parsed, SUPPORTED};
use std::panic::{catch_unwind, AssertUnwindSafe};

const ABSURD: &[&str] = &[
    "",
    "abc",
    "-1",
    "-0.5",
    "0",
    "1e309",
    "nan",
    "inf",
    "-inf",
    "18446744073709551616",
    "99999999999999999999999999",
    "9223372036854775807",
    "0x10",
    "1,2",
    " 5",
    "true",
    "😀",
];

#[test]
fn every_bench_flag_with_absurd_values_parses_or_names_itself() {
    let mut accepted = 0;
    let mut refused = 0;
    for flag in SUPPORTED {
        for v in ABSURD {
            let arg = format!("--{flag}={v}");
            let r = catch_unwind(AssertUnwindSafe(|| parse(std::slice::from_ref(&arg))));
            let r = r.unwrap_or_else(|_| panic!("{arg}: the parser panicked"));
            match r {
                Err(e) => {
                    refused += 1;
                    assert!(!e.0.contains('\n'), "{arg}: not one line: {e}");
                    assert!(
                        e.0.contains(flag) || e.0.contains("--"),
                        "{arg}: names no flag: {e}"
                    );
                }
                Ok(Parsed::Run { flags, .. }) => {
                    accepted += 1;
                    // Flags the parser accepted give settings, and the engine options of
                    // those are valid or refused by name.
                    let settings = flags
                        .settings()
                        .unwrap_or_else(|e| panic!("{arg}: accepted, yet no settings: {e}"));
                    let o = catch_unwind(AssertUnwindSafe(|| options(&settings).validate()))
                        .unwrap_or_else(|_| panic!("{arg}: building options panicked"));
                    if let Err(e) = o {
                        assert!(!e.to_string().contains('\n'), "{arg}: {e}");
                    }
                    let _ = catch_unwind(AssertUnwindSafe(|| {
                        (write_options(&settings), flags.benchmark_list())
                    }))
                    .unwrap_or_else(|_| panic!("{arg}: panicked"));
                }
                Ok(Parsed::Help) => {}
            }
        }
    }
    assert!(refused > SUPPORTED.len() * 5, "{refused} refused");
    assert!(accepted > 0);
}

#[test]
fn every_stress_flag_with_absurd_values_parses_or_names_itself() {
    use lsmlab_cli::stress::args::StressArgs;
    for flag in [
        "db",
        "expected",
        "seed",
        "threads",
        "keys",
        "groups",
        "ops",
        "reopens",
        "crash",
        "cycles",
        "kill-after-ms",
        "kill-point",
        "kill-odds",
        "child",
    ] {
        for v in ABSURD {
            let args = vec!["--db=/tmp/x".to_string(), format!("--{flag}={v}")];
            let r = catch_unwind(AssertUnwindSafe(|| StressArgs::parse(&args)))
                .unwrap_or_else(|_| panic!("--{flag}={v}: panicked"));
            if let Err(e) = r {
                assert!(!e.0.contains('\n'), "--{flag}={v}: {e}");
                assert!(
                    e.0.contains(&format!("--{flag}")) || e.0.contains("--kill-point"),
                    "--{flag}={v}: {e}"
                );
            }
        }
    }
}

#[test]
fn every_ycsb_property_with_absurd_values_loads_or_names_itself() {
    use lsmlab_drivers::ycsb::properties::Properties;
    use lsmlab_drivers::ycsb::workload::CoreWorkload;
    let names = [
        "recordcount",
        "operationcount",
        "fieldcount",
        "fieldlength",
        "fieldlengthdistribution",
        "readproportion",
        "updateproportion",
        "insertproportion",
        "scanproportion",
        "readmodifywriteproportion",
        "requestdistribution",
        "maxscanlength",
        "scanlengthdistribution",
        "insertstart",
        "insertcount",
        "zeropadding",
        "insertorder",
        "hotspotdatafraction",
        "hotspotopnfraction",
        "readallfields",
        "writeallfields",
        "threadcount",
        "minfieldlength",
        "zipfianconstant",
        "keyprefix",
    ];
    for name in names {
        for v in ABSURD {
            let mut p = Properties::default();
            p.load_str(&format!("{name}={v}\n"));
            let r = catch_unwind(AssertUnwindSafe(|| {
                CoreWorkload::from_properties(&p).map(|_| ())
            }))
            .unwrap_or_else(|_| panic!("{name}={v}: panicked"));
            if let Err(e) = r {
                assert!(!e.0.contains('\n'), "{name}={v}: {e}");
            }
        }
    }
}

/// Found by fuzzing: Zipfian generators over 2^48 items (a `latest` distribution over the
/// largest `recordcount`, a Zipfian scan length up to a huge `maxscanlength`) summed every item's
/// term before the first operation. They are built in well under a second now.
#[test]
fn zipfian_generators_over_huge_counts_are_built_at_once() {
    use lsmlab_drivers::ycsb::properties::Properties;
    use lsmlab_drivers::ycsb::workload::CoreWorkload;
    for text in [
        "recordcount=281474976710656\nrequestdistribution=latest\noperationcount=1\n",
        "recordcount=1000\nscanlengthdistribution=zipfian\nmaxscanlength=1777777777777772\n",
        "recordcount=281474976710656\nrequestdistribution=zipfian\n",
    ] {
        let mut p = Properties::default();
        p.load_str(text);
        assert!(CoreWorkload::from_properties(&p).is_ok(), "{text}");
    }
}

#[test]
fn the_binary_never_exits_with_a_panic_on_bad_flags() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("--db={}", dir.path().join("db").display());
    for flag in SUPPORTED {
        for v in ["abc", "-1", "1e309", "😀"] {
            let arg = format!("--{flag}={v}");
            // Only values the parser refuses: they must fail before anything runs.
            if parse(std::slice::from_ref(&arg)).is_ok() {
                continue;
            }
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_lsmlab"))
                .args(["bench", &db, &arg])
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{arg}: {err}");
            assert_eq!(err.trim_end().lines().count(), 1, "{arg}: {err}");
        }
    }
}

/// YCSB's CoreWorkload bounds, and lsmlab's where it has none: each refused by `lsmlab ycsb`
/// with one line naming the property and a non-zero exit, before the database is touched.
#[test]
fn ycsb_insert_range_and_key_length_bounds_are_refused_naming_the_property() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("--db={}", dir.path().join("db").display());
    for (props, name) in [
        (
            &["recordcount=100", "insertstart=50", "insertcount=51"][..],
            "insertcount",
        ),
        (
            &["recordcount=100", "insertcount=100000000000000"][..],
            "insertcount",
        ),
        (&["recordcount=100", "insertstart=101"][..], "insertstart"),
        (
            &["recordcount=100", "zeropadding=5000000000"][..],
            "zeropadding",
        ),
        (
            &["recordcount=100", "zeropadding=100000000"][..],
            "zeropadding",
        ),
    ] {
        let mut args = vec!["ycsb", "load", "-P", "workloada", db.as_str()];
        for p in props {
            args.extend(["-p", p]);
        }
        let (code, out, err) = lsmlab(&args);
        assert_ne!(code, 0, "{props:?}: {out}");
        let line = err.trim();
        assert!(!line.contains('\n'), "{props:?}: {err}");
        assert!(
            line.contains(&format!("property {name}")),
            "{props:?}: {err}"
        );
        assert!(
            !dir.path().join("db").exists(),
            "{props:?}: a database was made"
        );
    }
    // At the bounds: loaded.
    let (code, _, err) = lsmlab(&[
        "ycsb",
        "load",
        "-P",
        "workloada",
        &db,
        "-p",
        "recordcount=100",
        "-p",
        "insertstart=50",
        "-p",
        "insertcount=50",
        "-p",
        "zeropadding=30",
        "-p",
        "insertorder=ordered",
    ]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn the_documented_settle_property_draws_no_warning() {
    use lsmlab_drivers::ycsb::properties::Properties;
    let mut p = Properties::default();
    p.load_str("lsmlab.settle=true\nlsmlab.seed=3\nrecordcount=10\n");
    assert_eq!(p.unknown_warnings(), Vec::<String>::new());
    p.load_str("recordcont=10\n");
    assert_eq!(p.unknown_warnings().len(), 1);
}
