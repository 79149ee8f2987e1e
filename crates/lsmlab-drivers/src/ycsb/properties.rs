//! YCSB workload properties: Java `.properties` files (`-P`) and `-p key=value` overrides,
//! with typed getters whose errors name the property and what is allowed.

use crate::error::{CliError, CliResult};
use crate::suggest::closest;
use std::collections::BTreeMap;

/// Prefix of the properties that set engine options.
pub const PREFIX: &str = "lsmlab.";

/// `lsmlab.*` properties that belong to the driver, not the engine.
const DRIVER: &[&str] = &["lsmlab.seed", "lsmlab.settle"];

/// True if `key` sets an engine option (so it is not a CoreWorkload property): `layout`,
/// `lsmlab.<option>`, or an engine option by its bare `lsmlab bench` flag name (as a study's
/// matrix axis names it).
pub fn is_engine_property(key: &str) -> bool {
    key == "layout"
        || (key.starts_with(PREFIX) && !DRIVER.contains(&key))
        || is_bare_engine_option(key)
}

/// True if `key` is an engine option by its bare `lsmlab bench` flag name, not a CoreWorkload
/// property.
pub fn is_bare_engine_option(key: &str) -> bool {
    !KNOWN.contains(&key) && crate::flags::engine_option_names().any(|n| n == key)
}

/// Refuses a property lsmlab does not read: one line naming it, the closest known name and
/// what is allowed. `-p` overrides go through this; a workload file's other properties (YCSB's
/// own files carry some) only warn.
pub fn check_known(key: &str) -> CliResult<()> {
    if KNOWN.contains(&key) || is_engine_property(key) {
        return Ok(());
    }
    let names = KNOWN
        .iter()
        .copied()
        .chain(["layout"])
        .chain(crate::flags::engine_option_names());
    let hint = closest(key, names)
        .map(|c| format!("; did you mean {c}?"))
        .unwrap_or_default();
    Err(CliError::new(format!(
        "-p {key}: unknown property{hint} (allowed: CoreWorkload's properties, layout, and the engine options by their lsmlab bench flag names, bare or as lsmlab.NAME)"
    )))
}

/// Properties CoreWorkload (and lsmlab's YCSB driver) reads; others are ignored with a warning.
pub const KNOWN: &[&str] = &[
    "workload",
    "db",
    "exporter",
    "measurementtype",
    "table",
    "recordcount",
    "operationcount",
    "insertstart",
    "insertcount",
    "fieldcount",
    "fieldlength",
    "fieldlengthdistribution",
    "fieldnameprefix",
    "readallfields",
    "writeallfields",
    "readproportion",
    "updateproportion",
    "insertproportion",
    "scanproportion",
    "readmodifywriteproportion",
    "requestdistribution",
    "minscanlength",
    "maxscanlength",
    "scanlengthdistribution",
    "scanmethod",
    "insertorder",
    "zeropadding",
    "hotspotdatafraction",
    "hotspotopnfraction",
    "threadcount",
    "lsmlab.seed",
    "lsmlab.settle",
];

/// A set of properties; later settings override earlier ones.
#[derive(Debug, Clone, Default)]
pub struct Properties {
    map: BTreeMap<String, String>,
}

impl Properties {
    /// Reads the lines of a Java properties file (`key=value`, `key: value` or `key value`;
    /// `#` and `!` start comments).
    pub fn load_str(&mut self, text: &str) {
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') || line.starts_with('!') {
                continue;
            }
            let cut = line
                .find(['=', ':'])
                .or_else(|| line.find(char::is_whitespace));
            let (k, v) = match cut {
                // The separator may be any whitespace, some of it wider than one byte (U+0085,
                // U+3000): the value starts after the whole character.
                Some(i) => {
                    let width = line[i..].chars().next().map_or(1, char::len_utf8);
                    (&line[..i], &line[i + width..])
                }
                None => (line, ""),
            };
            self.map.insert(k.trim().to_string(), v.trim().to_string());
        }
    }

    /// Sets one property from `key=value`.
    pub fn set_pair(&mut self, pair: &str) -> CliResult<()> {
        let (k, v) = pair
            .split_once('=')
            .ok_or_else(|| CliError::new(format!("-p {pair:?}: expected key=value")))?;
        self.map.insert(k.trim().to_string(), v.trim().to_string());
        Ok(())
    }

    /// Sets one property.
    pub fn set(&mut self, key: &str, value: &str) {
        self.map.insert(key.to_string(), value.to_string());
    }

    /// Warnings for properties lsmlab does not read, with the closest known name.
    pub fn unknown_warnings(&self) -> Vec<String> {
        self.map
            .keys()
            .filter(|k| !KNOWN.contains(&k.as_str()) && !is_engine_property(k))
            .map(|k| {
                let hint = closest(k, KNOWN.iter().copied())
                    .map(|c| format!(" (did you mean {c}?)"))
                    .unwrap_or_default();
                format!("warning: property {k} is not used by lsmlab's CoreWorkload{hint}")
            })
            .collect()
    }

    /// The raw value.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.map.get(key).map(String::as_str)
    }

    /// A string with a default.
    pub fn string(&self, key: &str, default: &str) -> String {
        self.get(key).unwrap_or(default).to_string()
    }

    /// A non-negative integer with a default.
    pub fn u64(&self, key: &str, default: u64) -> CliResult<u64> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| {
                CliError::new(format!(
                    "property {key}: invalid value {v:?}: expected a non-negative integer"
                ))
            }),
        }
    }

    /// A number in `[lo, hi]` with a default.
    pub fn f64_in(&self, key: &str, default: f64, lo: f64, hi: f64) -> CliResult<f64> {
        let Some(v) = self.get(key) else {
            return Ok(default);
        };
        match v.parse::<f64>() {
            Ok(x) if (lo..=hi).contains(&x) => Ok(x),
            _ => Err(CliError::new(format!(
                "property {key}: invalid value {v:?}: expected a number in [{lo}, {hi}]"
            ))),
        }
    }

    /// One of `allowed` (case-insensitive), with a default.
    pub fn choice(&self, key: &str, default: &str, allowed: &[&str]) -> CliResult<String> {
        let v = self.string(key, default).to_ascii_lowercase();
        if allowed.contains(&v.as_str()) {
            Ok(v)
        } else {
            Err(CliError::new(format!(
                "property {key}: invalid value {v:?}: allowed {}",
                allowed.join(", ")
            )))
        }
    }

    /// Every property, for the JSON record.
    pub fn all(&self) -> &BTreeMap<String, String> {
        &self.map
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_ended_by_wide_whitespace_is_read_not_a_panic() {
        // Found by the ycsb_workload fuzz target: U+0085 is whitespace two bytes wide.
        let mut p = Properties::default();
        p.load_str("recordcount\u{85}7\nfieldcount\u{3000}3\nrequestdistribut\u{85}\u{85}ian\n");
        assert_eq!(p.u64("recordcount", 0).unwrap(), 7);
        assert_eq!(p.u64("fieldcount", 0).unwrap(), 3);
    }

    #[test]
    fn java_properties_syntax_and_overrides() {
        let mut p = Properties::default();
        p.load_str(
            "# comment\nrecordcount=1000\n! other\noperationcount : 20\nreadproportion 0.5\n",
        );
        assert_eq!(p.u64("recordcount", 0).unwrap(), 1000);
        assert_eq!(p.u64("operationcount", 0).unwrap(), 20);
        assert_eq!(p.f64_in("readproportion", 0.0, 0.0, 1.0).unwrap(), 0.5);
        p.set_pair("recordcount=5").unwrap();
        assert_eq!(p.u64("recordcount", 0).unwrap(), 5);
    }

    #[test]
    fn bad_values_name_the_property() {
        let mut p = Properties::default();
        p.set_pair("recordcount=lots").unwrap();
        p.set_pair("requestdistribution=gaussian").unwrap();
        p.set_pair("readproportion=1.5").unwrap();
        p.set_pair("recordcont=3").unwrap();
        let e = p.u64("recordcount", 0).unwrap_err().0;
        assert!(
            e.starts_with("property recordcount: invalid value \"lots\""),
            "{e}"
        );
        let e = p
            .choice("requestdistribution", "uniform", &["uniform", "zipfian"])
            .unwrap_err()
            .0;
        assert!(e.contains("allowed uniform, zipfian"), "{e}");
        assert!(p.f64_in("readproportion", 0.0, 0.0, 1.0).is_err());
        assert!(p.set_pair("novalue").is_err());
        let w = p.unknown_warnings();
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("did you mean recordcount?"), "{}", w[0]);
    }
}
