//! The checks a heat map figure needs beyond any figure's: two different axes on x and series
//! (the series may be `engine`), and a `baseline` that is one of the series' values, so that
//! every cell has something to be divided by.

use super::spec::Figure;
use lsmlab_drivers::error::{CliError, CliResult};
use std::collections::BTreeMap;

/// Refuses a heat map `f` whose axes or baseline the plan does not have (`axes`: every axis
/// with its values; `engines`: every engine the plan names).
pub fn check(
    f: &Figure,
    axes: &BTreeMap<String, Vec<String>>,
    engines: &[String],
) -> CliResult<()> {
    if f.kind != "heatmap" {
        if f.baseline.is_some() {
            return Err(CliError::new(format!(
                "figure {:?}: baseline is for kind = \"heatmap\" only",
                f.title
            )));
        }
        return Ok(());
    }
    let what = |k: &str| format!("figure {:?}: {k}", f.title);
    let values = |axis: &str| -> Option<Vec<String>> {
        if axis == "engine" {
            Some(engines.to_vec())
        } else {
            axes.get(axis).cloned()
        }
    };
    let (Some(x), Some(series)) = (&f.x, &f.series) else {
        return Err(CliError::new(what(
            "a heatmap needs x and series (e.g. x = \"workload\", series = \"layout\")",
        )));
    };
    if x == series {
        return Err(CliError::new(what("x and series are the same axis")));
    }
    for (k, axis) in [("x", x), ("series", series)] {
        if values(axis).is_none() {
            return Err(CliError::new(what(&format!(
                "{k} = {axis:?} is not an axis of [matrix] nor \"engine\""
            ))));
        }
    }
    let s_values = values(series).unwrap_or_default();
    if s_values.len() < 2 {
        return Err(CliError::new(what(&format!(
            "series = {series:?} has one value; a heatmap divides one by another"
        ))));
    }
    if let Some(b) = &f.baseline {
        if !s_values.contains(b) {
            return Err(CliError::new(what(&format!(
                "baseline = {b:?} is not a value of {series}; allowed {}",
                s_values.join(", ")
            ))));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heatmap_needs_two_axes_and_a_baseline_among_the_series() {
        let axes: BTreeMap<String, Vec<String>> = [
            ("workload".to_string(), vec!["w0".to_string(), "w1".into()]),
            ("layout".to_string(), vec!["a".to_string(), "b".into()]),
        ]
        .into_iter()
        .collect();
        let fig = |extra: &str| -> Figure {
            toml::from_str(&format!(
                "title = \"h\"\nkind = \"heatmap\"\nmetrics = [\"m\"]\n{extra}"
            ))
            .unwrap()
        };
        let engines = ["lsmlab".to_string()];
        assert!(check(
            &fig("x = \"workload\"\nseries = \"layout\"\nbaseline = \"b\"\n"),
            &axes,
            &engines
        )
        .is_ok());
        let e = check(&fig("x = \"workload\"\n"), &axes, &engines)
            .unwrap_err()
            .to_string();
        assert!(e.contains("needs x and series"), "{e}");
        let e = check(
            &fig("x = \"workload\"\nseries = \"layout\"\nbaseline = \"z\"\n"),
            &axes,
            &engines,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("baseline = \"z\" is not a value of layout; allowed a, b"),
            "{e}"
        );
        let e = check(
            &fig("x = \"workload\"\nseries = \"engine\"\n"),
            &axes,
            &engines,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("has one value"), "{e}");
        let bar: Figure =
            toml::from_str("title = \"b\"\nmetrics = [\"m\"]\nbaseline = \"a\"\n").unwrap();
        assert!(check(&bar, &axes, &engines).is_err());
    }
}
