//! The engine settings of a YCSB run: `-p layout=leveldb|wisckey|fslsm` and
//! `-p lsmlab.<option>=value` for any engine option by its `lsmlab bench` flag name. The
//! properties go through `lsmlab bench`'s flag table (its parsing, defaults and checks), so a
//! property and a flag of one name mean the same; the result is the engine-neutral
//! [`EngineSettings`] every engine adapter reads.

use super::properties::{is_bare_engine_option, is_engine_property, Properties, PREFIX};
use crate::engine::EngineSettings;
use crate::error::{CliError, CliResult};
use crate::flags::set_engine_option;
use crate::flags::{compression_flag_value, BenchFlags};
use lsmlab::Options;

/// The settings of the store at `path` the properties ask for: `lsmlab bench`'s defaults (but
/// the engine's own delayed write rate, compression and block cache), then `layout`, then each
/// `lsmlab.<option>`; and the names of the settings the properties set. Errors are one line
/// naming the property.
pub fn settings(props: &Properties, path: &str) -> CliResult<(EngineSettings, Vec<String>)> {
    let (flags, set) = flags(props)?;
    let settings = EngineSettings {
        path: path.to_string(),
        ..flags.settings()?
    };
    Ok((settings, set))
}

/// The engine options as `lsmlab bench`'s flags, which name every engine option, and the
/// names of the flags the properties set.
fn flags(props: &Properties) -> CliResult<(BenchFlags, Vec<String>)> {
    // The engine's own defaults where db_bench's differ (bench's flag defaults are db_bench's):
    // a YCSB run measures the engine as `Options` makes it.
    let engine = Options::default();
    let mut flags = BenchFlags {
        delayed_write_rate: engine.delayed_write_rate,
        compression_type: compression_flag_value(engine.compression).to_string(),
        cache_size: i64::try_from(engine.block_cache_size).unwrap_or(i64::MAX),
        ..BenchFlags::default()
    };
    let mut set = Vec::new();
    if let Some(layout) = props.get("layout") {
        flags.set_raw("layout", layout)?;
        set.push("layout".to_string());
    }
    // Bare names first (`compaction_style`, as a study's axis names it), then `lsmlab.<name>`,
    // which wins when both are given.
    for (key, value) in props.all() {
        if is_bare_engine_option(key) {
            set_engine_option(&mut flags, "-p ", key, value)?;
            set.push(key.to_string());
        }
    }
    for (key, value) in props.all() {
        if let Some(name) = key.strip_prefix(PREFIX).filter(|_| is_engine_property(key)) {
            set_engine_option(&mut flags, "-p lsmlab.", name, value)?;
            set.push(name.to_string());
        }
    }
    flags.validate().map_err(|e| {
        let msg = e.to_string();
        let renamed = match msg.strip_prefix("--layout") {
            Some(rest) => format!("-p layout{rest}"),
            None => {
                // Named as the property that set it: bare if only the bare name was given.
                let name = msg
                    .strip_prefix("--")
                    .and_then(|m| m.split([':', '=']).next())
                    .unwrap_or("");
                let bare =
                    props.get(name).is_some() && props.get(&format!("{PREFIX}{name}")).is_none();
                msg.replacen("--", if bare { "-p " } else { "-p lsmlab." }, 1)
            }
        };
        CliError::new(renamed)
    })?;
    flags.validate_explicit(&set, &|n| {
        let bare = props.get(n).is_some() && props.get(&format!("{PREFIX}{n}")).is_none();
        if bare && n != "layout" {
            format!("-p {n}")
        } else {
            property_name(n)
        }
    })?;
    Ok((flags, set))
}

/// Checks the engine options and names of a YCSB step's `-p` properties (`workload` aside: it
/// names the `-P` file) as `lsmlab ycsb` would, without reading a workload file or opening a
/// store: the study's plan check runs it on every cell.
pub fn check_properties(pairs: &[(String, String)]) -> CliResult<()> {
    let mut p = Properties::default();
    for (k, v) in pairs.iter().filter(|(k, _)| k != "workload") {
        super::properties::check_known(k)?;
        p.set(k, v);
    }
    settings(&p, "db").map(|_| ())
}

/// How a YCSB command line names an engine option (`-p layout`, `-p lsmlab.<name>`).
pub fn property_name(flag: &str) -> String {
    if flag == "layout" {
        "-p layout".to_string()
    } else {
        format!("-p {PREFIX}{flag}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsmlab::Layout;

    /// The lsmlab options the properties ask for.
    fn options(props: &Properties) -> CliResult<Options> {
        Ok(crate::engine::lsmlab::options(&settings(props, "db")?.0))
    }

    fn props(pairs: &[&str]) -> Properties {
        let mut p = Properties::default();
        for pair in pairs {
            p.set_pair(pair).unwrap();
        }
        p
    }

    #[test]
    fn layout_and_engine_options_by_name() {
        let o = options(&props(&[
            "layout=fslsm",
            "lsmlab.write_buffer_size=4194304",
            "lsmlab.fslsm_gamma=2",
        ]))
        .unwrap();
        assert_eq!((o.layout, o.enable_blob_files), (Layout::Fslsm, true));
        assert_eq!(o.write_buffer_size, 4 << 20);
        assert_eq!(o.fslsm.gamma, 2.0);
        let o = options(&props(&[
            "lsmlab.enable_blob_files=true",
            "lsmlab.min_blob_size=0",
        ]))
        .unwrap();
        assert!(o.enable_blob_files);
        let d = options(&props(&[])).unwrap();
        assert_eq!(d.delayed_write_rate, Options::default().delayed_write_rate);
    }

    #[test]
    fn a_shape_sets_its_tree_and_refuses_a_field_given_with_it() {
        let o = options(&props(&["layout=fslsm", "lsmlab.shape=fslsm-study"])).unwrap();
        assert_eq!(
            (o.write_buffer_size, o.target_file_size_base, o.block_size),
            (4 << 20, 8192, 512)
        );
        assert_eq!(o.max_files_for_level_base, 10);
        assert_eq!(o.layout, Layout::Fslsm);
        let (s, set) = settings(
            &props(&["lsmlab.shape=fslsm-study", "lsmlab.block_size=4096"]),
            "db",
        )
        .unwrap();
        let (name, why) =
            crate::engine::support::check(crate::engine::EngineKind::Lsmlab, &s, &set).unwrap_err();
        assert_eq!(name, "block_size");
        assert!(why.contains("fslsm-study"), "{why}");
        let e = options(&props(&["lsmlab.shape=tiny"]))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("-p lsmlab.shape: invalid value"), "{e}");
    }

    #[test]
    fn bad_names_and_values_are_one_line_errors_naming_the_property() {
        for (pair, start) in [
            ("layout=bigtable", "-p layout: invalid value"),
            (
                "lsmlab.write_bufer_size=1",
                "-p lsmlab.write_bufer_size: unknown engine option",
            ),
            (
                "lsmlab.write_buffer_size=12",
                "-p lsmlab.write_buffer_size: invalid value",
            ),
            (
                "lsmlab.fslsm_gamma=-1",
                "-p lsmlab.fslsm_gamma: invalid value",
            ),
            ("lsmlab.num=5", "-p lsmlab.num: unknown engine option"),
        ] {
            let e = options(&props(&[pair])).unwrap_err().to_string();
            assert!(e.starts_with(start) && !e.contains('\n'), "{pair}: {e}");
        }
    }
}
