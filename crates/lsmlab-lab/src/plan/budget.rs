//! A plan's `[budget]`: how far a sequential study (`lsmlab run --until-decided`) may go in
//! adding repetitions to the cells its open claims read (see docs/statistics.md, "Sequential
//! studies").
//!
//! ```toml
//! [budget]
//! until_decided = true      # default true: the table turns the sequential rounds on
//! wall = "4h"               # the study's runs may take this long in all (default: no limit)
//! max_repetitions = 30      # no cell runs more often than this (default 100)
//! ```

use lsmlab_drivers::error::{CliError, CliResult};
use serde::{Deserialize, Serialize};

/// The cap on a cell's repetitions when neither the plan nor the command line sets one: a
/// sequential study without any limit would run for ever on a claim on its boundary.
pub const DEFAULT_MAX_REPETITIONS: u32 = 100;

/// `[budget]` as written.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetSpec {
    /// Add repetitions to the cells of the claims still open after the plan's own (default
    /// true; false keeps the table but runs the plan's repetitions only).
    #[serde(default = "yes")]
    pub until_decided: bool,
    /// The wall time the study's runs may take in all, the plan's own repetitions included:
    /// `"90s"`, `"30m"`, `"4h"`, `"1h30m"`, `"2d"` (default: no limit). Set it to what the
    /// machine can be given; the rounds stop before one would not fit.
    #[serde(default, deserialize_with = "wall_value")]
    pub wall: Option<String>,
    /// The most repetitions any cell gets (default 100); at least the plan's `repetitions`.
    /// Lower it when a claim on its boundary must not hold the machine for long.
    #[serde(default, deserialize_with = "max_repetitions_value")]
    pub max_repetitions: Option<u32>,
}

fn yes() -> bool {
    true
}

/// `wall`: a duration string, or a whole number of seconds (`wall = 600` is `"600s"`); any
/// other value is refused naming the key.
fn wall_value<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Wall {
        Text(String),
        Seconds(i64),
        Other(toml::Value),
    }
    // plan.json holds an unset wall as null.
    match Option::<Wall>::deserialize(d)? {
        None => Ok(None),
        Some(Wall::Text(t)) => Ok(Some(t)),
        Some(Wall::Seconds(n)) if n > 0 => Ok(Some(format!("{n}s"))),
        Some(Wall::Seconds(n)) => Err(serde::de::Error::custom(format!(
            "budget.wall: {n}; allowed a duration such as \"90s\", \"30m\", \"4h\", \"1h30m\", or seconds above 0"
        ))),
        Some(Wall::Other(v)) => Err(serde::de::Error::custom(format!(
            "budget.wall: {v}; allowed a duration such as \"90s\", \"30m\", \"4h\", \"1h30m\", or seconds above 0"
        ))),
    }
}

/// `max_repetitions`: a whole number from 1; any other value is refused naming the key.
fn max_repetitions_value<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    // plan.json holds an unset cap as null.
    let Some(v) = Option::<toml::Value>::deserialize(d)? else {
        return Ok(None);
    };
    match v
        .as_integer()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| *n >= 1)
    {
        Some(n) => Ok(Some(n)),
        None => Err(serde::de::Error::custom(format!(
            "budget.max_repetitions: {v}; allowed 1 or more"
        ))),
    }
}

/// The limits a sequential study runs under, from the plan, the command line or the results
/// directory of a resumed study.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    /// Seconds the study's runs may take in all, if limited.
    pub wall_s: Option<f64>,
    /// The most repetitions of any cell.
    pub max_repetitions: u32,
}

impl BudgetSpec {
    /// The limits, when the table turns the rounds on.
    pub fn budget(&self) -> Option<Budget> {
        if !self.until_decided {
            return None;
        }
        Some(Budget {
            wall_s: self.wall.as_deref().and_then(|w| parse_duration(w).ok()),
            max_repetitions: self.max_repetitions.unwrap_or(DEFAULT_MAX_REPETITIONS),
        })
    }

    /// Checks the table against the plan's repetitions (`scales`: each scale's name and its
    /// repetitions); errors name the plan line of the key (`line_of`).
    pub fn check(
        &self,
        line_of: impl Fn(&str) -> Option<usize>,
        scales: &[(String, u32)],
    ) -> CliResult<()> {
        let at = |key: &str, msg: String| match line_of(key) {
            Some(l) => CliError::new(format!("plan: line {l}: budget.{key}: {msg}")),
            None => CliError::new(format!("plan: budget.{key}: {msg}")),
        };
        if let Some(w) = &self.wall {
            parse_duration(w).map_err(|e| at("wall", e))?;
        }
        if let Some(m) = self.max_repetitions {
            if m == 0 {
                return Err(at("max_repetitions", "0; allowed 1 or more".into()));
            }
            if let Some((scale, r)) = scales.iter().find(|(_, r)| m < *r) {
                return Err(at(
                    "max_repetitions",
                    format!("{m} is below the {r} repetitions of {scale}; allowed {r} or more"),
                ));
            }
        }
        Ok(())
    }
}

/// Seconds in a duration written as numbers with units, largest first: `90s`, `30m`, `4h`,
/// `1h30m`, `2d` (units s, m, min, h, d; a bare number is seconds).
pub fn parse_duration(text: &str) -> Result<f64, String> {
    let bad = || {
        format!(
            "{text:?} is not a duration; write e.g. 90s, 30m, 4h or 1h30m (units s, m, min, h, d)"
        )
    };
    let t = text.trim();
    if t.is_empty() {
        return Err(bad());
    }
    if let Ok(s) = t.parse::<f64>() {
        return if s.is_finite() && s > 0.0 {
            Ok(s)
        } else {
            Err(bad())
        };
    }
    let mut total = 0.0;
    let mut rest = t;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(bad)?;
        let number: f64 = rest[..digits].parse().map_err(|_| bad())?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let scale = match rest[..unit_len].trim() {
            "s" => 1.0,
            "m" | "min" => 60.0,
            "h" => 3600.0,
            "d" => 86400.0,
            _ => return Err(bad()),
        };
        total += number * scale;
        rest = &rest[unit_len..];
    }
    if total.is_finite() && total > 0.0 {
        Ok(total)
    } else {
        Err(bad())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::spec::Plan;

    #[test]
    fn durations_are_read_with_their_units() {
        assert_eq!(parse_duration("90s"), Ok(90.0));
        assert_eq!(parse_duration("30m"), Ok(1800.0));
        assert_eq!(parse_duration("4h"), Ok(14400.0));
        assert_eq!(parse_duration("1h30m"), Ok(5400.0));
        assert_eq!(parse_duration("10min"), Ok(600.0));
        assert_eq!(parse_duration("45"), Ok(45.0));
        for bad in ["", "4x", "h", "-3m", "0s", "1e999", "4h 3q", "nan"] {
            let e = parse_duration(bad).unwrap_err();
            assert!(e.contains("not a duration"), "{bad}: {e}");
        }
    }

    const PLAN: &str = "title = \"t\"\nrepetitions = 3\n[[steps]]\nbench = \"fillseq\"\n";

    #[test]
    fn a_budget_table_turns_the_rounds_on_with_its_limits() {
        let p = Plan::parse(&format!(
            "{PLAN}[budget]\nwall = \"4h\"\nmax_repetitions = 30\n"
        ))
        .unwrap();
        let b = p.budget.as_ref().and_then(BudgetSpec::budget).unwrap();
        assert_eq!(b.wall_s, Some(14400.0));
        assert_eq!(b.max_repetitions, 30);
        let off = Plan::parse(&format!("{PLAN}[budget]\nuntil_decided = false\n")).unwrap();
        assert_eq!(off.budget.as_ref().and_then(BudgetSpec::budget), None);
        let bare = Plan::parse(&format!("{PLAN}[budget]\n")).unwrap();
        let b = bare.budget.as_ref().and_then(BudgetSpec::budget).unwrap();
        assert_eq!(
            (b.wall_s, b.max_repetitions),
            (None, DEFAULT_MAX_REPETITIONS)
        );
    }

    #[test]
    fn a_bad_budget_is_refused_naming_its_line() {
        let err = |tail: &str| {
            Plan::parse(&format!("{PLAN}{tail}"))
                .unwrap_err()
                .to_string()
        };
        let e = err("[budget]\nwall = \"4 hours\"\n");
        assert!(
            e.starts_with("plan: line 6: budget.wall: \"4 hours\" is not a duration"),
            "{e}"
        );
        let e = err("[budget]\nmax_repetitions = 2\n");
        assert_eq!(
            e,
            "plan: line 6: budget.max_repetitions: 2 is below the 3 repetitions of the plan; allowed 3 or more"
        );
        let e = err("[budget]\nmax_repetitions = 4\n[scale.big]\nrepetitions = 10\n");
        assert!(e.contains("below the 10 repetitions of scale big"), "{e}");
        let e = err("[budget]\nmax_repetitions = 0\n");
        assert!(
            e.contains("budget.max_repetitions: 0; allowed 1 or more"),
            "{e}"
        );
        let e = err("[budget]\nwal = \"4h\"\n");
        // toml places an unknown key at its table's header.
        assert!(e.starts_with("plan: line 5: unknown field `wal`"), "{e}");
        let e = err("[budget]\nmax_repetitions = \"many\"\n");
        assert!(e.starts_with("plan: line 6:"), "{e}");
    }
}
