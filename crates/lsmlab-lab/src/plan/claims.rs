//! Claims as a plan states them: what a seed study reported, carried by its plan as data
//! (`[[claim]]`) — a metric, or the ratio of a metric between two values of an axis (or two
//! engines), the relation the seed reports (greater, smaller, about equal within a tolerance, a
//! crossover along an axis) and the seed's number — and the checks the plan alone allows. The
//! verdicts against the runs are `analyse::verdicts`.

use crate::text::{significant, value_text};
use lsmlab_drivers::error::{CliError, CliResult};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use toml::Table;

/// One claim of the seed.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// The seed's words (quoted, or translated), the claim as the seed states it.
    pub quote: String,
    /// The seed's number in the claim's unit: a ratio, or the metric's own unit.
    #[serde(default)]
    pub seed_value: Option<f64>,
    /// How the seed states its figure (e.g. "0.942 % vs 0.947 %"); default: `seed_value`.
    #[serde(default)]
    pub seed_figure: Option<String>,
    /// The metric (a name of the metric table in docs/metrics.md).
    pub metric: String,
    /// The metric as a ratio between two values of an axis, or two engines (`axis = "engine"`).
    #[serde(default)]
    pub ratio: Option<RatioOf>,
    /// `greater`, `smaller`, `about` or `crossover`.
    pub relation: String,
    /// The threshold: default 1 for a ratio, `seed_value` for `about` a metric.
    #[serde(default)]
    pub than: Option<f64>,
    /// Relative half-width of "about equal" (0.05 = ±5 %); for greater and smaller, a CI inside
    /// this band around the threshold says "no effect": not reproduced.
    #[serde(default)]
    pub tolerance: Option<f64>,
    /// Only cells with these axis values (a value, or a list of values any of which matches).
    #[serde(default, rename = "where")]
    pub cells: Table,
    /// Only these engines (default: every engine of the study).
    #[serde(default)]
    pub engines: Vec<String>,
    /// Crossover: the axis along which the ratio crosses the threshold.
    #[serde(default)]
    pub x: Option<String>,
    /// Crossover: the value of `x` from which `a` is above `b`.
    #[serde(default)]
    pub at: Option<toml::Value>,
    /// "In every case": the claim holds in each cell its `where` selects (cells that differ
    /// only in the ratio's axis make one case), not just on the pooled mean. Default false: one
    /// pooled figure. Set it when the seed says "in every case", "always", "each"; see
    /// `analyse::every_case`.
    #[serde(default)]
    pub every: bool,
    /// "In every case" over the values of one axis: the claim holds for each value of `each`,
    /// pooled over the other axes. Default none. Exclusive with `every`.
    #[serde(default)]
    pub each: Option<String>,
    /// What the seed's number is: `size` (judged on direction and on the size band; the
    /// default of a `greater`/`smaller` claim with `seed_value`) or `direction` (the sign only).
    /// Bounds are the relations `at_most` and `at_least`. See docs/verdicts.md.
    #[serde(default)]
    pub kind: Option<String>,
    /// The seed's ratio s is consistent with the runs when their CI meets [s / band, s · band];
    /// default the plan's `size_band`, else 1.5.
    #[serde(default)]
    pub size_band: Option<f64>,
    /// The smallest effect that matters (0.02 = 2 %): no direction is decided inside it, and a
    /// CI inside it is "no effect"; default the plan's, else the metric kind's
    /// (`analyse::effect`).
    #[serde(default)]
    pub smallest_effect: Option<f64>,
}

/// `a / b` of a metric: two values of `axis`, or two engines when `axis = "engine"`.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RatioOf {
    /// A matrix axis, or `engine`.
    pub axis: String,
    /// The numerator's value.
    pub a: toml::Value,
    /// The denominator's value.
    pub b: toml::Value,
}

/// The relation a claim states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// Above the threshold.
    Greater,
    /// Below the threshold.
    Smaller,
    /// Within the tolerance of the threshold.
    About,
    /// The ratio crosses the threshold at a value of an axis.
    Crossover,
    /// A bound: at most the threshold (within the smallest effect).
    AtMost,
    /// A bound: at least the threshold (within the smallest effect).
    AtLeast,
}

/// The relations a plan may name.
pub const RELATIONS: &[&str] = &[
    "greater",
    "smaller",
    "about",
    "crossover",
    "at_most",
    "at_least",
];

/// The kinds a claim may name.
pub const KINDS: &[&str] = &["size", "direction"];

impl Relation {
    fn parse(s: &str) -> Option<Relation> {
        match s {
            "greater" => Some(Relation::Greater),
            "smaller" => Some(Relation::Smaller),
            "about" => Some(Relation::About),
            "crossover" => Some(Relation::Crossover),
            "at_most" => Some(Relation::AtMost),
            "at_least" => Some(Relation::AtLeast),
            _ => None,
        }
    }
}

/// Default tolerance of `about`.
pub const DEFAULT_TOLERANCE: f64 = 0.10;

impl Claim {
    /// The relation, `about` for a name `check` refuses.
    pub fn relation(&self) -> Relation {
        Relation::parse(&self.relation).unwrap_or(Relation::About)
    }

    /// The threshold: `than`, else 1 for a ratio, else `seed_value` (NaN when none).
    pub fn threshold(&self) -> f64 {
        self.than.unwrap_or(match (&self.ratio, self.relation()) {
            (Some(_), Relation::AtMost | Relation::AtLeast) => self.seed_value.unwrap_or(1.0),
            (Some(_), _) => 1.0,
            (None, _) => self.seed_value.unwrap_or(f64::NAN),
        })
    }

    /// The size band (`size_band`, else `effect_defaults::DEFAULT_SIZE_BAND`).
    pub fn size_band(&self) -> f64 {
        self.size_band
            .unwrap_or(super::effect_defaults::DEFAULT_SIZE_BAND)
    }

    /// The smallest effect that matters: `smallest_effect`, else a `greater`/`smaller` claim's
    /// `tolerance` (its "no effect" band), else the default of the metric's kind.
    pub fn smallest_effect(&self) -> f64 {
        let directional = matches!(self.relation(), Relation::Greater | Relation::Smaller);
        self.smallest_effect
            .or(self.tolerance.filter(|_| directional))
            .unwrap_or_else(|| super::effect_defaults::metric_kind(&self.metric).smallest_effect())
    }

    /// Whether the seed's number is judged as a size: `kind = "size"`, or by default a
    /// `greater`/`smaller` claim with a `seed_value` that differs from its threshold.
    pub fn judges_size(&self) -> bool {
        let directional = matches!(self.relation(), Relation::Greater | Relation::Smaller);
        match self.kind.as_deref() {
            Some("direction") => false,
            Some(_) => directional && self.seed_value.is_some(),
            None => {
                directional
                    && self.seed_value.is_some_and(|s| {
                        (self.ratio.is_some() || self.than.is_some()) && s != self.threshold()
                    })
            }
        }
    }

    /// The plan's `size_band` and `smallest_effect` given to the claims that set neither (a
    /// `greater`/`smaller` claim's own `tolerance` is its smallest effect already).
    pub fn inherit(&mut self, size_band: Option<f64>, smallest_effect: Option<f64>) {
        if self.size_band.is_none() {
            self.size_band = size_band;
        }
        let own = matches!(self.relation(), Relation::Greater | Relation::Smaller)
            && self.tolerance.is_some();
        if self.smallest_effect.is_none() && !own {
            self.smallest_effect = smallest_effect;
        }
    }

    /// Checks what can be checked from the plan alone; `i` numbers the claim in errors.
    /// `axes` are the axes with every value any scale gives them; `engines` the plan's.
    pub fn check(
        &self,
        i: usize,
        axes: &BTreeMap<String, Vec<String>>,
        engines: &[String],
    ) -> CliResult<()> {
        let at = |what: &str| CliError::new(format!("claim[{i}].{what}"));
        let nearest = |name: &str, names: &mut dyn Iterator<Item = &str>| {
            lsmlab_drivers::suggest::closest(name, names)
                .map(|c| format!("; did you mean {c:?}?"))
                .unwrap_or_default()
        };
        let rel = Relation::parse(&self.relation).ok_or_else(|| {
            at(&format!(
                "relation: {:?}; allowed {}{}",
                self.relation,
                RELATIONS.join(", "),
                nearest(&self.relation, &mut RELATIONS.iter().copied())
            ))
        })?;
        let axis_values = |name: &str, what: &str| -> CliResult<Vec<String>> {
            if name == "engine" {
                return Ok(engines.to_vec());
            }
            axes.get(name).cloned().ok_or_else(|| {
                at(&format!(
                    "{what}: {name:?} is not an axis of [matrix] (axes: {}){}",
                    axes.keys().cloned().collect::<Vec<_>>().join(", "),
                    nearest(name, &mut axes.keys().map(String::as_str))
                ))
            })
        };
        let known_value = |axis: &str, v: &toml::Value, what: &str| -> CliResult<()> {
            let values = axis_values(axis, what)?;
            let text = value_text(v);
            if !values.contains(&text) {
                return Err(at(&format!(
                    "{what}: {axis} = {text:?} is not a value of the axis (values: {})",
                    values.join(", ")
                )));
            }
            Ok(())
        };
        for (k, v) in &self.cells {
            if k == "engine" {
                return Err(at("where: engine; name engines with engines = [...]"));
            }
            match v.as_array() {
                Some(list) => {
                    for v in list {
                        known_value(k, v, "where")?;
                    }
                }
                None => known_value(k, v, "where")?,
            }
        }
        for e in &self.engines {
            if !engines.contains(e) {
                return Err(at(&format!(
                    "engines: {e:?} is not an engine of the plan ({})",
                    engines.join(", ")
                )));
            }
        }
        if let Some(r) = &self.ratio {
            known_value(&r.axis, &r.a, "ratio.a")?;
            known_value(&r.axis, &r.b, "ratio.b")?;
            if value_text(&r.a) == value_text(&r.b) {
                return Err(at("ratio: a and b are the same value"));
            }
            if self.cells.contains_key(&r.axis) {
                return Err(at(&format!(
                    "where: {:?} is the ratio's axis; leave it out of where",
                    r.axis
                )));
            }
        }
        for (what, v) in [
            ("than", self.than),
            ("tolerance", self.tolerance),
            ("seed_value", self.seed_value),
        ] {
            if v.is_some_and(|v| !v.is_finite()) {
                return Err(at(&format!("{what}: not a finite number")));
            }
        }
        if let Some(k) = &self.kind {
            if !KINDS.contains(&k.as_str()) {
                return Err(at(&format!(
                    "kind: {k:?}; allowed size, direction (bounds are relation = \"at_most\" or \"at_least\")"
                )));
            }
            if k == "size" && !matches!(rel, Relation::Greater | Relation::Smaller) {
                return Err(at("kind: size is for greater and smaller; a bound is relation = \"at_most\" or \"at_least\", a band relation = \"about\""));
            }
            if k == "size" && self.seed_value.is_none() {
                return Err(at("kind: size needs the seed's number, seed_value = N"));
            }
        }
        check_size_band(self.size_band).map_err(|e| at(&e))?;
        check_smallest_effect(self.smallest_effect).map_err(|e| at(&e))?;
        if self.tolerance.is_some_and(|t| t < 0.0) {
            return Err(at("tolerance: negative; allowed 0 or more (0.05 = ±5 %)"));
        }
        if self.ratio.is_some() && self.threshold() <= 0.0 {
            return Err(at("than: a ratio's threshold must be above 0"));
        }
        if self.ratio.is_none() && self.threshold().is_nan() {
            return Err(at(
                "than: a claim on a metric (no ratio) needs than = N or seed_value = N",
            ));
        }
        self.check_cases(axes, &at, &nearest)?;
        match (rel, &self.x, &self.at) {
            (Relation::Crossover, Some(x), Some(v)) => {
                if self.ratio.is_none() {
                    return Err(at(
                        "ratio: a crossover is of a ratio, e.g. ratio = { axis = \"enable_blob_files\", a = true, b = false }",
                    ));
                }
                if x == "engine" || self.ratio.as_ref().is_some_and(|r| &r.axis == x) {
                    return Err(at("x: the crossover's axis must be another matrix axis"));
                }
                if self.cells.contains_key(x) {
                    return Err(at(&format!("where: {x:?} is the crossover's axis")));
                }
                known_value(x, v, "at")?;
            }
            (Relation::Crossover, _, _) => return Err(at(
                "x, at: a crossover names its axis and value, e.g. x = \"value_size\", at = 4096",
            )),
            (_, None, None) => {}
            _ => return Err(at("x, at: only a crossover takes x and at")),
        }
        Ok(())
    }

    /// `every` and `each`: one of them, never on a crossover (already decided value by value),
    /// `each` an axis of the matrix other than the ratio's.
    fn check_cases(
        &self,
        axes: &BTreeMap<String, Vec<String>>,
        at: &dyn Fn(&str) -> CliError,
        nearest: &dyn Fn(&str, &mut dyn Iterator<Item = &str>) -> String,
    ) -> CliResult<()> {
        if !self.every && self.each.is_none() {
            return Ok(());
        }
        if self.every && self.each.is_some() {
            return Err(at(
                "every, each: give one (every = true: each cell; each = \"AXIS\": each value of an axis)",
            ));
        }
        if self.relation() == Relation::Crossover {
            return Err(at(
                "every: a crossover is already decided at each value of its x; leave every and each out",
            ));
        }
        let Some(axis) = &self.each else {
            return Ok(());
        };
        if axis == "engine" {
            return Err(at(
                "each: engine; every engine is decided on its own already (name them with engines = [...])",
            ));
        }
        if !axes.contains_key(axis) {
            return Err(at(&format!(
                "each: {axis:?} is not an axis of [matrix] (axes: {}){}",
                axes.keys().cloned().collect::<Vec<_>>().join(", "),
                nearest(axis, &mut axes.keys().map(String::as_str))
            )));
        }
        if self.ratio.as_ref().is_some_and(|r| &r.axis == axis) {
            return Err(at(&format!(
                "each: {axis:?} is the ratio's axis; name another axis"
            )));
        }
        Ok(())
    }

    /// One line saying what the claim compares, for the report.
    pub fn describe(&self) -> String {
        let mut s = format!("`{}`", self.metric);
        if let Some(r) = &self.ratio {
            s += &format!(" {}={} / {}", r.axis, value_text(&r.a), value_text(&r.b));
        }
        if !self.cells.is_empty() {
            let w: Vec<String> = self
                .cells
                .iter()
                .map(|(k, v)| match v.as_array() {
                    Some(l) => format!(
                        "{k} in {}",
                        l.iter().map(value_text).collect::<Vec<_>>().join("/")
                    ),
                    None => format!("{k}={}", value_text(v)),
                })
                .collect();
            s += &format!(" at {}", w.join(", "));
        }
        // The plan's own number, as written (1, 2.04, 0.00942).
        let t = self.threshold().to_string();
        let tol = self.tolerance.unwrap_or(DEFAULT_TOLERANCE) * 100.0;
        s += &match self.relation() {
            Relation::Greater => format!(" > {t}"),
            Relation::Smaller => format!(" < {t}"),
            Relation::AtMost => format!(" ≤ {t}"),
            Relation::AtLeast => format!(" ≥ {t}"),
            Relation::About => format!(" ≈ {t} (±{tol:.0} %)"),
            Relation::Crossover => format!(
                " crosses {t} at {}={}",
                self.x.as_deref().unwrap_or(""),
                self.at.as_ref().map(value_text).unwrap_or_default()
            ),
        };
        if let Some(axis) = &self.each {
            s += &format!(" for each {axis}");
        } else if self.every {
            s += " in every cell";
        }
        s
    }

    /// The seed's figure as the report prints it.
    pub fn seed_text(&self) -> String {
        match (&self.seed_figure, self.seed_value) {
            (Some(f), _) => f.clone(),
            (None, Some(v)) => significant(v),
            (None, None) => "–".into(),
        }
    }
}

/// `size_band`: finite and at least 1; the error names what is allowed.
pub fn check_size_band(v: Option<f64>) -> Result<(), String> {
    match v {
        Some(b) if !(b.is_finite() && (1.0..=100.0).contains(&b)) => Err(format!(
            "size_band: {b}; allowed 1 to 100 (1.5: the seed's ratio s is consistent when the CI meets [s/1.5, s·1.5])"
        )),
        _ => Ok(()),
    }
}

/// `smallest_effect`: a fraction from 0 to 1; the error names what is allowed.
pub fn check_smallest_effect(v: Option<f64>) -> Result<(), String> {
    match v {
        Some(e) if !(e.is_finite() && (0.0..=1.0).contains(&e)) => Err(format!(
            "smallest_effect: {e}; allowed 0 to 1 (a fraction: 0.02 = 2 %)"
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_name_the_claim_and_suggest() {
        let axes: BTreeMap<String, Vec<String>> = [
            ("value_size".to_string(), vec!["1024".into(), "4096".into()]),
            (
                "enable_blob_files".to_string(),
                vec!["false".into(), "true".into()],
            ),
        ]
        .into_iter()
        .collect();
        let engines = vec!["lsmlab".to_string()];
        let base = "quote = \"q\"\nmetric = \"m\"\n";
        for (text, expect) in [
            ("relation = \"grater\"", "did you mean \"greater\""),
            ("relation = \"greater\"\nratio = { axis = \"valuesize\", a = 1, b = 2 }", "did you mean \"value_size\""),
            ("relation = \"greater\"\nratio = { axis = \"value_size\", a = 1024, b = 2048 }", "\"2048\" is not a value"),
            ("relation = \"crossover\"\nratio = { axis = \"enable_blob_files\", a = true, b = false }", "x, at"),
            ("relation = \"crossover\"\nratio = { axis = \"enable_blob_files\", a = true, b = false }\nx = \"value_size\"\nat = 3", "at: value_size = \"3\""),
            ("relation = \"greater\"", "needs than"),
            ("relation = \"about\"\nseed_value = 1\ntolerance = -1", "tolerance"),
            ("relation = \"greater\"\nthan = 1\nengines = [\"rocksdb\"]", "engines"),
            ("relation = \"greater\"\nthan = 1\nevery = true\neach = \"value_size\"", "every, each: give one"),
            ("relation = \"greater\"\nthan = 1\neach = \"valuesize\"", "each: \"valuesize\" is not an axis of [matrix] (axes: enable_blob_files, value_size); did you mean \"value_size\""),
            ("relation = \"greater\"\nratio = { axis = \"value_size\", a = 1024, b = 4096 }\neach = \"value_size\"", "each: \"value_size\" is the ratio's axis"),
            ("relation = \"greater\"\nthan = 1\neach = \"engine\"", "each: engine"),
            ("relation = \"crossover\"\nratio = { axis = \"enable_blob_files\", a = true, b = false }\nx = \"value_size\"\nat = 4096\nevery = true", "every: a crossover"),
            ("relation = \"greater\"\nthan = 1\nsize_band = 0.5", "size_band: 0.5; allowed 1 to 100"),
            ("relation = \"greater\"\nthan = 1\nsmallest_effect = 2", "smallest_effect: 2; allowed 0 to 1"),
            ("relation = \"greater\"\nthan = 1\nsmallest_effect = -0.1", "smallest_effect"),
            ("relation = \"greater\"\nthan = 1\nkind = \"bound\"", "kind: \"bound\"; allowed size, direction"),
            ("relation = \"about\"\nthan = 1\nseed_value = 1\nkind = \"size\"", "kind: size is for greater and smaller"),
            ("relation = \"greater\"\nthan = 1\nkind = \"size\"", "kind: size needs"),
        ] {
            let c: Claim = toml::from_str(&format!("{base}{text}\n")).unwrap();
            let e = c.check(2, &axes, &engines).unwrap_err();
            assert!(e.0.starts_with("claim[2]."), "{e}");
            assert!(e.0.contains(expect), "{expect}: {e}");
        }
        let ok: Claim = toml::from_str(&format!("{base}relation = \"crossover\"\nratio = {{ axis = \"enable_blob_files\", a = true, b = false }}\nx = \"value_size\"\nat = 4096\n")).unwrap();
        ok.check(0, &axes, &engines).unwrap();
        assert!(
            ok.describe().contains("crosses 1 at value_size=4096"),
            "{}",
            ok.describe()
        );
    }
}
