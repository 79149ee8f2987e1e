//! `--layout` and the `--fslsm_*` flags, and the engine options any front end can set by flag
//! name (`lsmlab ycsb -p lsmlab.<name>=value` reuses this mapping).

use super::flags::{BenchFlags, SUPPORTED};
use crate::error::{CliError, CliResult};
use crate::suggest::closest;
use lsmlab::options::{parse_increments, CompactionVictims, FloatTarget, LAYOUT_PRESETS, SHAPES};
use lsmlab::Options;

/// Bench flags that describe the benchmark, not the engine: `-p lsmlab.<name>` refuses them.
const NOT_ENGINE: &[&str] = &[
    "benchmarks",
    "num",
    "reads",
    "writes",
    "deletes",
    "key_size",
    "value_size",
    "compression_ratio",
    "threads",
    "seed",
    "db",
    "use_existing_db",
    "histogram",
    "report_bg_io_stats",
    "readwritepercent",
    "sync",
    "disable_wal",
    "batch_size",
    "seek_nexts",
    "json",
    "engine",
];

/// Names of the engine options settable by flag name.
pub fn engine_option_names() -> impl Iterator<Item = &'static str> {
    SUPPORTED
        .iter()
        .copied()
        .filter(|n| !NOT_ENGINE.contains(n))
}

/// Sets engine option `name` (a bench flag name) from `raw`; `what` is how the caller names
/// it in errors (e.g. `-p lsmlab.`). Unknown names get the closest known one.
pub fn set_engine_option(
    flags: &mut BenchFlags,
    what: &str,
    name: &str,
    raw: &str,
) -> CliResult<()> {
    if !engine_option_names().any(|n| n == name) {
        let hint = closest(name, engine_option_names())
            .map(|c| format!("; did you mean {what}{c}?"))
            .unwrap_or_default();
        return Err(CliError::new(format!(
            "{what}{name}: unknown engine option{hint} (options are lsmlab bench's flag names)"
        )));
    }
    flags.set_raw(name, raw).map_err(|e| {
        CliError::new(
            e.to_string()
                .replacen(&format!("--{name}"), &format!("{what}{name}"), 1),
        )
    })
}

/// Checks `--layout` and the `--fslsm_*` flags that the engine cannot check itself (text).
pub fn check(f: &BenchFlags) -> CliResult<()> {
    if !f.layout.is_empty() && !LAYOUT_PRESETS.contains(&f.layout.as_str()) {
        return Err(CliError::new(format!(
            "--layout: invalid value {:?}: allowed: {}",
            f.layout,
            LAYOUT_PRESETS.join(", ")
        )));
    }
    parse_increments(&f.fslsm_stretch_increments).map_err(|_| {
        CliError::new(format!(
            "--fslsm_stretch_increments: invalid value {:?}: allowed: comma-separated whole numbers, e.g. 20,10,5,0",
            f.fslsm_stretch_increments
        ))
    })?;
    FloatTarget::parse(&f.fslsm_float_target).map_err(|_| {
        CliError::new(format!(
            "--fslsm_float_target: invalid value {:?}: allowed: level0, cost, off",
            f.fslsm_float_target
        ))
    })?;
    if !f.shape.is_empty() && !SHAPES.contains(&f.shape.as_str()) {
        return Err(CliError::new(format!(
            "--shape: invalid value {:?}: allowed: {}",
            f.shape,
            SHAPES.join(", ")
        )));
    }
    CompactionVictims::parse(&f.compaction_victims).map_err(|_| {
        CliError::new(format!(
            "--compaction_victims: invalid value {:?}: allowed: overlap, frequency",
            f.compaction_victims
        ))
    })?;
    // Checked whatever the layout, so that a bad value is never silently carried along.
    let mut o = Options::default();
    apply(f, &mut o);
    o.fslsm.validate().map_err(|e| {
        let msg = e.to_string();
        let body = msg.strip_prefix("Invalid argument: ").unwrap_or(&msg);
        match body
            .split_once(" = ")
            .and_then(|(n, rest)| Some((n, rest.split_once(": ")?)))
        {
            Some((name, (value, allowed))) => {
                CliError::new(format!("--{name}: invalid value {value}: {allowed}"))
            }
            None => CliError::new(body.to_string()),
        }
    })
}

/// Applies `--layout` (its preset) and the `--fslsm_*` flags to `o`. Bad text was refused by
/// [`check`]; here it falls back to the defaults.
pub fn apply(f: &BenchFlags, o: &mut Options) {
    if let Ok(v) = CompactionVictims::parse(&f.compaction_victims) {
        o.compaction_victims = v;
    }
    if !f.shape.is_empty() {
        // An unknown name was refused by `check`; the flags the shape sets may not be given
        // with it (`engine::support::check`), so it overrides only their defaults.
        let _ = o.apply_shape(&f.shape);
    }
    let p = &mut o.fslsm;
    p.read_ratio_window = f.fslsm_read_ratio_window;
    p.frequency_window = f.fslsm_frequency_window;
    p.gamma = f.fslsm_gamma;
    if let Ok(inc) = parse_increments(&f.fslsm_stretch_increments) {
        p.stretch_increments = inc;
    }
    if let Ok(t) = FloatTarget::parse(&f.fslsm_float_target) {
        p.float_target = t;
    }
    p.max_float_overlap_files = f.fslsm_max_float_overlap_files;
    p.device_read_micros = f.fslsm_device_read_micros;
    p.device_write_micros = f.fslsm_device_write_micros;
    if !f.layout.is_empty() {
        // Last, so that an ablation preset's FSLSM field (`fslsm-nostretch`, `fslsm-nofloat`)
        // is not reset by the flags' defaults. An unknown name leaves the options as the other
        // flags set them.
        let _ = o.apply_layout_preset(&f.layout);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsmlab::Layout;

    #[test]
    fn layout_sets_the_preset_and_fslsm_flags_reach_the_engine() {
        let mut f = BenchFlags::default();
        f.set_raw("layout", "fslsm").unwrap();
        f.set_raw("fslsm_gamma", "0.5").unwrap();
        f.set_raw("fslsm_stretch_increments", "4,2").unwrap();
        check(&f).unwrap();
        let o = f.options();
        assert_eq!(
            (o.layout, o.enable_blob_files, o.min_blob_size),
            (Layout::Fslsm, true, 0)
        );
        assert_eq!(o.fslsm.gamma, 0.5);
        assert_eq!(o.fslsm.stretch_increments, vec![4, 2]);
        f.set_raw("layout", "leveldb").unwrap();
        assert!(!f.options().enable_blob_files);
        // Victims and limits in tables reach the engine under any layout.
        f.set_raw("compaction_victims", "frequency").unwrap();
        f.set_raw("max_files_for_level_base", "10").unwrap();
        check(&f).unwrap();
        let o = f.options();
        assert_eq!(
            (o.compaction_victims, o.max_files_for_level_base),
            (lsmlab::CompactionVictims::LowestFrequency, 10)
        );
    }

    #[test]
    fn bad_layout_values_are_one_line_errors_naming_the_flag() {
        for (name, raw) in [
            ("layout", "rocks"),
            ("fslsm_stretch_increments", "20,x"),
            ("fslsm_float_target", "level3"),
            ("compaction_victims", "hottest"),
        ] {
            let mut f = BenchFlags::default();
            f.set_raw(name, raw).unwrap();
            let e = check(&f).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("--{name}: invalid value")) && !e.contains('\n'),
                "{e}"
            );
        }
        let mut f = BenchFlags::default();
        f.set_raw("fslsm_gamma", "0").unwrap();
        let e = f.validate().unwrap_err().to_string();
        assert!(e.starts_with("--fslsm_gamma: invalid value 0"), "{e}");
    }

    #[test]
    fn engine_options_by_name_refuse_benchmark_flags_and_unknown_names() {
        let mut f = BenchFlags::default();
        set_engine_option(&mut f, "-p lsmlab.", "min_blob_size", "0").unwrap();
        set_engine_option(&mut f, "-p lsmlab.", "write_buffer_size", "4194304").unwrap();
        assert_eq!(f.options().write_buffer_size, 4 << 20);
        let e = set_engine_option(&mut f, "-p lsmlab.", "num", "5")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown engine option"), "{e}");
        let e = set_engine_option(&mut f, "-p lsmlab.", "write_bufer_size", "5")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("did you mean -p lsmlab.write_buffer_size"),
            "{e}"
        );
        let e = set_engine_option(&mut f, "-p lsmlab.", "block_size", "big")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("-p lsmlab.block_size: invalid value"), "{e}");
    }
}
