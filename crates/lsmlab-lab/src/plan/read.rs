//! Reading a plan: its TOML parsed into a `Plan`, every value's size checked (`limits`), every
//! name checked against what the engines know (`vocabulary`), and the plan's parts checked
//! against each other, so a mistake is a one-line error naming the key and line.

use super::limits;
use super::spec::{Plan, StepKind, Table};
use super::vocabulary;
use lsmlab_drivers::error::{CliError, CliResult};

impl Plan {
    /// Parses and checks a plan's text.
    pub fn parse(text: &str) -> CliResult<Plan> {
        let mut plan: Plan = toml::from_str(text).map_err(|e| {
            // toml's message spans lines (a snippet of the file); keep the first and the line number.
            let msg = e.message().trim().replace('\n', " ");
            match e.span() {
                Some(span) => {
                    let before = text.get(..span.start).unwrap_or(text);
                    let line = before.lines().count().max(1);
                    CliError::new(format!("plan: line {line}: {msg}"))
                }
                None => CliError::new(format!("plan: {msg}")),
            }
        })?;
        // Parsed once more as a plain table: every value's size and finiteness, by key.
        let table: toml::Table = toml::from_str(text).unwrap_or_default();
        limits::check_values(&table).map_err(|e| {
            let key = e.0.split(':').next().unwrap_or("");
            let last = key.rsplit('.').next().unwrap_or(key);
            let last = last.split('[').next().unwrap_or(last);
            match vocabulary::line_of(text, "", 0, last) {
                Some(l) => CliError::new(format!("plan: line {l}: {e}")),
                None => CliError::new(format!("plan: {e}")),
            }
        })?;
        super::claims::check_size_band(plan.size_band).map_err(CliError::new)?;
        super::claims::check_smallest_effect(plan.smallest_effect).map_err(CliError::new)?;
        let (band, effect) = (plan.size_band, plan.smallest_effect);
        for c in &mut plan.claim {
            c.inherit(band, effect);
        }
        plan.check()?;
        if let Some(b) = &plan.budget {
            // The cap holds at every scale: each scale's repetitions, named.
            let reps: Vec<(String, u32)> = std::iter::once(("the plan".into(), plan.repetitions))
                .chain(plan.scale.keys().map(|n| {
                    let r = plan.scaled(Some(n)).repetitions;
                    (format!("scale {n}"), r)
                }))
                .collect();
            b.check(|k| vocabulary::line_of(text, "[budget]", 0, k), &reps)?;
        }
        vocabulary::check(&plan, text)?;
        Ok(plan)
    }

    /// Reads and checks a plan file.
    pub fn load(path: &std::path::Path) -> CliResult<(Plan, String)> {
        let text = limits::read_plan(path)?;
        let plan =
            Plan::parse(&text).map_err(|e| CliError::new(format!("{}: {e}", path.display())))?;
        Ok((plan, text))
    }

    fn check(&self) -> CliResult<()> {
        if self.engines.is_empty() && self.optional_engines.is_empty() {
            return Err(CliError::new(
                "engines: empty; name at least one, e.g. [\"lsmlab\"]",
            ));
        }
        if self.steps.is_empty() {
            return Err(CliError::new(
                "steps: empty; add [[steps]] bench = \"fillrandom\"",
            ));
        }
        if self.repetitions == 0 {
            return Err(CliError::new("repetitions: 0; allowed 1 or more"));
        }
        if let Some(q) = self.quiet_device_secs {
            // An hour: longer than any writeback a run leaves, and short enough to be a wait.
            if !(0.0..=3600.0).contains(&q) {
                return Err(CliError::new(format!(
                    "quiet_device_secs: {q}; allowed 0 (no wait) to 3600 seconds"
                )));
            }
        }
        for (i, s) in self.steps.iter().enumerate() {
            let kind = s.kind(i)?;
            if s.flush == Some(true) && matches!(kind, StepKind::YcsbLoad | StepKind::YcsbRun) {
                return Err(CliError::new(format!(
                    "steps[{i}].flush: a YCSB step cannot flush; remove it, or flush in a bench step after it"
                )));
            }
        }
        check_axes(&self.matrix, "matrix")?;
        limits::check_cells(&self.matrix, "matrix")?;
        for name in self.scale.keys() {
            let scaled = self.scaled(Some(name));
            limits::check_cells(&scaled.matrix, &format!("scale.{name}: matrix"))?;
        }
        for (name, s) in &self.scale {
            check_axes(&s.matrix, &format!("scale.{name}.matrix"))?;
            if s.repetitions == Some(0) {
                return Err(CliError::new(format!(
                    "scale.{name}.repetitions: 0; allowed 1 or more"
                )));
            }
        }
        if let Some(d) = &self.default_scale {
            if !self.scale.contains_key(d) {
                return Err(CliError::new(format!(
                    "default_scale: {d:?} is not a [scale.X] of the plan"
                )));
            }
        }
        if let Some(l) = &self.load {
            if self.steps.len() < 2 {
                return Err(CliError::new(
                    "load.steps: the plan has one step; a load needs at least two (the load, then steps that run on its copy); remove [load] or add a step",
                ));
            }
            if l.steps == 0 || l.steps >= self.steps.len() {
                return Err(CliError::new(format!(
                    "load.steps: {}; allowed 1 to {} (the load is the first steps, and at least one step must run on its copy)",
                    l.steps,
                    self.steps.len().saturating_sub(1)
                )));
            }
            for a in &l.skip_axes {
                if !self.matrix.contains_key(a) {
                    return Err(CliError::new(format!(
                        "load.skip_axes: {a:?} is not an axis of [matrix]"
                    )));
                }
            }
        }
        for a in self.compare.iter().flatten() {
            if !self.matrix.contains_key(a) {
                return Err(CliError::new(format!(
                    "compare: {a:?} is not an axis of [matrix]"
                )));
            }
        }
        let engines: Vec<String> = self
            .engines
            .iter()
            .chain(&self.optional_engines)
            .cloned()
            .collect();
        let axes = self.axis_values();
        for (i, c) in self.claim.iter().enumerate() {
            c.check(i, &axes, &engines)?;
        }
        for f in &self.figure {
            if !["bar", "line", "timeseries", "table", "heatmap"].contains(&f.kind.as_str()) {
                return Err(CliError::new(format!(
                    "figure {:?}: kind {:?}; allowed bar, line, timeseries, table, heatmap",
                    f.title, f.kind
                )));
            }
            super::heatmap_check::check(f, &axes, &engines)?;
        }
        Ok(())
    }
}

fn check_axes(matrix: &Table, what: &str) -> CliResult<()> {
    for (name, values) in matrix {
        let arr = values.as_array().ok_or_else(|| {
            CliError::new(format!(
                "{what}.{name}: expected a list of values, e.g. [1, 2]"
            ))
        })?;
        if arr.is_empty() {
            return Err(CliError::new(format!("{what}.{name}: empty list")));
        }
        for v in arr {
            if v.is_table() || v.is_array() {
                return Err(CliError::new(format!(
                    "{what}.{name}: values must be numbers, strings or booleans"
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::spec::StepKind;

    const MINIMAL: &str = r#"
title = "t"
[[steps]]
bench = "fillseq"
"#;

    #[test]
    fn defaults_fill_in() {
        let p = Plan::parse(MINIMAL).unwrap();
        assert_eq!(p.engines, ["lsmlab"]);
        assert_eq!(p.repetitions, 5);
        assert_eq!(p.steps[0].kind(0).unwrap(), StepKind::Bench);
    }

    #[test]
    fn unknown_keys_are_named() {
        let e = Plan::parse(&format!("{MINIMAL}\nrepetitons = 3\n")).unwrap_err();
        assert!(e.0.contains("repetitons"), "{e}");
        assert!(!e.0.contains('\n'), "{e}");
        let e = Plan::parse("title = \"t\"\n[[steps]]\nbench = \"x\"\nflag = {}\n").unwrap_err();
        assert!(e.0.contains("flag"), "{e}");
    }

    #[test]
    fn bad_steps_and_axes_are_refused() {
        let e =
            Plan::parse("title = \"t\"\n[[steps]]\nbench = \"a\"\nsettle = true\n").unwrap_err();
        assert!(e.0.contains("steps[0]"), "{e}");
        let e = Plan::parse(&format!("{MINIMAL}[matrix]\nbloom_bits = 5\n")).unwrap_err();
        assert!(e.0.contains("matrix.bloom_bits"), "{e}");
        let e = Plan::parse(&format!("{MINIMAL}[matrix]\nbloom_bits = []\n")).unwrap_err();
        assert!(e.0.contains("empty"), "{e}");
    }

    #[test]
    fn damaged_plans_give_errors_not_panics() {
        // Every prefix and every single-byte change of a real plan: parse or a one-line error.
        let text = include_str!("../../../../experiments/seed002.toml");
        let bytes = text.as_bytes();
        let check = |t: &str| {
            if let Err(e) = Plan::parse(t) {
                assert!(!e.0.contains('\n'), "{e}");
            }
        };
        for end in (0..bytes.len()).step_by(7) {
            if let Ok(t) = std::str::from_utf8(&bytes[..end]) {
                check(t);
            }
        }
        for (i, b) in [b'"', b'[', b'=', b'\n', b'x', b'1', 0xC3]
            .iter()
            .cycle()
            .take(400)
            .enumerate()
        {
            let mut v = bytes.to_vec();
            let at = (i * 104_729) % v.len();
            v[at] = *b;
            check(&String::from_utf8_lossy(&v));
        }
    }

    #[test]
    fn loads_are_leading_steps_and_skip_only_axes() {
        let two = format!("{MINIMAL}[[steps]]\nbench = \"readrandom\"\n[matrix]\nreads = [1, 2]\n");
        let p = Plan::parse(&format!(
            "{two}[load]\nsteps = 1\nskip_axes = [\"reads\"]\n"
        ))
        .unwrap();
        assert_eq!(p.load.unwrap().steps, 1);
        for (load, expect) in [
            ("steps = 0", "load.steps: 0; allowed 1 to 1"),
            ("steps = 2", "load.steps: 2"),
            (
                "steps = 1\nskip_axes = [\"cache\"]",
                "\"cache\" is not an axis",
            ),
            ("steps = 1\nstep = 1", "step"),
        ] {
            let e = Plan::parse(&format!("{two}[load]\n{load}\n")).unwrap_err();
            assert!(e.0.contains(expect), "{load}: {e}");
        }
    }

    #[test]
    fn the_quiet_device_bound_is_seconds_from_0_to_an_hour() {
        for (v, ok) in [
            ("0", true),
            ("30", true),
            ("3600", true),
            ("-1", false),
            ("7200", false),
        ] {
            let r = Plan::parse(&format!("quiet_device_secs = {v}\n{MINIMAL}"));
            match r {
                Ok(p) => assert!(ok && p.quiet_device_secs.is_some(), "{v}"),
                Err(e) => assert!(
                    !ok && e.0.starts_with("quiet_device_secs: ")
                        && e.0.contains("0 (no wait) to 3600"),
                    "{v}: {e}"
                ),
            }
        }
    }

    #[test]
    fn hostile_plans_are_one_line_errors() {
        let one_step_load = format!("{MINIMAL}[load]\nsteps = 1\n");
        let nan = format!("{MINIMAL}[flags]\ncompression_ratio = nan\n");
        let mut twelve = MINIMAL.to_string() + "[matrix]\n";
        for i in 0..12 {
            twelve += &format!("axis{i} = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n");
        }
        let scaled = format!(
            "{MINIMAL}[matrix]\na = [1]\n[scale.big]\nmatrix = {{ a = [{}] }}\n",
            (0..10_001)
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        for (text, expect) in [
            (one_step_load, "load.steps: the plan has one step"),
            (
                nan,
                "plan: line 6: flags.compression_ratio: NaN is not a finite number",
            ),
            (twelve, "matrix: 1000000000000 cells"),
            (
                scaled,
                "scale.big: matrix: 10001 cells (a 10001); the limit is 10000",
            ),
        ] {
            let e = Plan::parse(&text).unwrap_err();
            assert!(
                e.0.starts_with(expect) || e.0.contains(expect),
                "{expect}: {e}"
            );
            assert!(!e.0.contains('\n'));
        }
    }

    #[test]
    fn scales_override_by_name() {
        let p = Plan::parse(&format!(
            "{MINIMAL}[flags]\nnum = 10\nkey_size = 32\n[matrix]\nbloom_bits = [1, 2]\n[scale.quick]\nflags = {{ num = 5 }}\nrepetitions = 2\nmatrix = {{ bloom_bits = [3] }}\n"
        ))
        .unwrap();
        assert_eq!(p.pick_scale(None).unwrap().as_deref(), Some("quick"));
        let s = p.scaled(Some("quick"));
        assert_eq!(s.flags["num"].as_integer(), Some(5));
        assert_eq!(s.flags["key_size"].as_integer(), Some(32));
        assert_eq!(s.repetitions, 2);
        assert_eq!(s.matrix["bloom_bits"].as_array().unwrap().len(), 1);
        assert!(p.pick_scale(Some("paper")).unwrap_err().0.contains("paper"));
        let e = p.pick_scale(Some("quik")).unwrap_err();
        assert!(
            e.0.contains("allowed: quick; did you mean \"quick\"?"),
            "{e}"
        );
        let e = Plan::parse(MINIMAL)
            .unwrap()
            .pick_scale(Some("nope"))
            .unwrap_err();
        assert!(e.0.contains("the plan has no [scale.NAME] sections"), "{e}");
    }
}
