//! The claims at a glance: a forest plot (plotters, SVG and PNG like every plot) with one row
//! per ratio claim and engine — its anytime-valid 95 % interval as a bar in the engine's
//! colour, the estimate as a dot, the seed's value as a black diamond, the smallest effect
//! that matters shaded grey around the threshold (the no-effect zone [t/(1+e), t·(1+e)]) and,
//! for an `about` claim, its band outlined — on a log x axis, with the verdict at the right.
//! Claims on a metric's own value (not a ratio) have no common axis and are left to the table.

use super::answer::short_metric;
use super::plots::{log_ticks, nice_ticks, register_font, FAMILY};
use crate::analyse::claims::effect::Rule;
use crate::analyse::claims::outcome::{Outcome, Verdict};
use crate::plan::claims::{Claim, Relation};
use crate::text::significant;
use lsmlab_drivers::error::{CliError, CliResult};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One row of the plot.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// "1. filter_bits_per_key".
    pub claim: String,
    /// The engine (or `a / b`).
    pub engine: String,
    /// The engine's colour index.
    pub colour: usize,
    /// Estimate and interval (NaN when none).
    pub est: f64,
    pub lo: f64,
    pub hi: f64,
    /// The seed's value, if the claim has one.
    pub seed: Option<f64>,
    /// The no-effect zone.
    pub rope: (f64, f64),
    /// An `about` claim's band.
    pub band: Option<(f64, f64)>,
    /// The verdict.
    pub verdict: Verdict,
}

/// The rows of the ratio claims, claim by claim, engines in the outcomes' order.
pub fn rows(claims: &[Claim], outcomes: &[Outcome]) -> Vec<Row> {
    let mut engines: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for o in outcomes {
        let Some(c) = claims.get(o.claim) else {
            continue;
        };
        if c.ratio.is_none() || !(o.estimate.is_finite() && o.estimate > 0.0) {
            continue;
        }
        if !engines.contains(&o.engine.as_str()) {
            engines.push(&o.engine);
        }
        let rule = Rule::of(c);
        out.push(Row {
            claim: format!("{}. {}", o.claim + 1, short_metric(&c.metric)),
            engine: o.engine.clone(),
            colour: engines.iter().position(|e| *e == o.engine).unwrap_or(0),
            est: o.estimate,
            lo: o.ci_lo,
            hi: o.ci_hi,
            seed: c.seed_value.filter(|s| *s > 0.0),
            rope: rule.rope(),
            band: (c.relation() == Relation::About).then(|| rule.band()),
            verdict: o.verdict,
        });
    }
    out
}

/// Image width; rows are `ROW` px apart.
const WIDTH: i32 = 900;
const ROW: i32 = 30;
const TOP: i32 = 50;
/// Room under the rows for the axis, its label and the key.
const BOTTOM: i32 = 92;
/// Room at the right for the verdict.
const RIGHT: i32 = 180;
/// Labels are cut to this many characters.
const LABEL_CHARS: usize = 44;

fn colour(i: usize) -> RGBColor {
    // The plots' palette without its black, which is the seed's mark here.
    let engines = &super::plots::OKABE_ITO[..super::plots::OKABE_ITO.len() - 1];
    engines[i % engines.len()]
}

fn verdict_colour(v: Verdict) -> RGBColor {
    match v {
        Verdict::Reproduced => RGBColor(26, 127, 55),
        Verdict::NotReproduced | Verdict::Reversed => RGBColor(180, 35, 24),
        Verdict::Inconclusive => RGBColor(154, 103, 0),
        _ => RGBColor(60, 60, 60),
    }
}

/// An entry of the key.
enum Key {
    Engine(usize),
    Seed,
    Zone,
    Band,
}

/// Pixels between rows of the key.
const KEY_ROW: i32 = 24;

/// The key's rows the plot makes room for: the engines' names and the marks' texts, wrapped.
fn key_rows(rows: &[Row]) -> i32 {
    let mut names: Vec<&str> = Vec::new();
    for r in rows {
        if !names.contains(&r.engine.as_str()) {
            names.push(&r.engine);
        }
    }
    names.extend(["seed's value", NO_EFFECT, "about's band"]);
    let (mut x, mut n) = (16, 1);
    for name in names {
        let w = 24 + key_width(name);
        if x > 16 && x + w > WIDTH - 8 {
            x = 16;
            n += 1;
        }
        x += w + 28;
    }
    n
}

/// The key's text for the grey zone.
const NO_EFFECT: &str = "no effect (smallest effect that matters)";

/// The width of a key's text: ~7.2 px a character (size 16, mostly lower case).
fn key_width(s: &str) -> i32 {
    (s.chars().count() as f64 * 7.2) as i32
}

/// A row's label: claim and engine, cut to `LABEL_CHARS`.
pub fn label(r: &Row) -> String {
    let full = format!("{} · {}", r.claim, r.engine);
    if full.chars().count() <= LABEL_CHARS {
        return full;
    }
    // Cut the claim's name, keep the engine.
    let keep = LABEL_CHARS.saturating_sub(r.engine.chars().count() + 4);
    let claim: String = r.claim.chars().take(keep).collect();
    format!("{claim}… · {}", r.engine)
}

/// Pixels of the label column: the longest label at ~7.6 px a character (plotters draws the
/// size-16 font at about 12.5 px).
fn left(rows: &[Row]) -> i32 {
    let longest = rows
        .iter()
        .map(|r| label(r).chars().count())
        .max()
        .unwrap_or(10);
    ((longest as f64 * 7.6) as i32 + 24).clamp(140, 380)
}

fn height(rows: &[Row]) -> u32 {
    (TOP + ROW * rows.len().max(1) as i32 + BOTTOM + KEY_ROW * (key_rows(rows) - 1)) as u32
}

/// The x range, as log10: every interval, estimate, seed, zone and 1, padded.
fn range(rows: &[Row]) -> (f64, f64) {
    let mut lo = 0.0f64;
    let mut hi = 0.0f64;
    for r in rows {
        let mut vs = vec![r.est, r.lo, r.hi, r.rope.0, r.rope.1];
        vs.extend(r.seed);
        if let Some((a, b)) = r.band {
            vs.extend([a, b]);
        }
        for v in vs.into_iter().filter(|v| v.is_finite() && *v > 0.0) {
            lo = lo.min(v.log10());
            hi = hi.max(v.log10());
        }
    }
    let pad = ((hi - lo) * 0.06).max(0.004);
    (lo - pad, hi + pad)
}

/// Ticks (as log10): 1-2-5 of each decade over a decade or more, round linear steps within one.
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    if hi - lo >= 1.0 {
        return log_ticks(lo, hi);
    }
    nice_ticks(10f64.powf(lo), 10f64.powf(hi), 6)
        .into_iter()
        .filter(|v| *v > 0.0)
        .map(f64::log10)
        .collect()
}

fn tick_text(v: f64) -> String {
    let s = significant(v);
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    format!("{s}×")
}

fn text(size: u32, h: HPos) -> TextStyle<'static> {
    TextStyle::from((FAMILY, size).into_font()).pos(Pos::new(h, VPos::Center))
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, rows: &[Row]) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    root.draw(&Text::new(
        "Claims at a glance: measured ratio (95 % CI) against the seed's",
        (WIDTH / 2, 20),
        text(20, HPos::Center),
    ))
    .map_err(e)?;
    let left = left(rows);
    let (x0, x1) = (left, WIDTH - RIGHT);
    let (lo, hi) = range(rows);
    let px = |v: f64| -> i32 {
        let l = if v > 0.0 { v.log10() } else { lo };
        x0 + (((l - lo) / (hi - lo)) * (x1 - x0) as f64).round() as i32
    };
    let clamp = |x: i32| x.clamp(x0, x1);
    let bottom = TOP + ROW * rows.len() as i32;
    let grey = RGBColor(225, 225, 225);
    // Ticks and their grid lines.
    for t in ticks(lo, hi) {
        let x = px(10f64.powf(t));
        root.draw(&PathElement::new(
            vec![(x, TOP - 4), (x, bottom)],
            RGBColor(238, 238, 238).stroke_width(1),
        ))
        .map_err(e)?;
        root.draw(&Text::new(
            tick_text(10f64.powf(t)),
            (x, bottom + 16),
            text(15, HPos::Center),
        ))
        .map_err(e)?;
    }
    root.draw(&Text::new(
        "ratio (log scale); 1× = no difference",
        ((x0 + x1) / 2, bottom + 40),
        text(16, HPos::Center),
    ))
    .map_err(e)?;
    let mut last_claim = "";
    for (i, r) in rows.iter().enumerate() {
        let y = TOP + ROW * i as i32 + ROW / 2;
        if r.claim != last_claim && i > 0 {
            let yl = TOP + ROW * i as i32;
            root.draw(&PathElement::new(
                vec![(8, yl), (WIDTH - 8, yl)],
                RGBColor(200, 200, 200).stroke_width(1),
            ))
            .map_err(e)?;
        }
        last_claim = &r.claim;
        // The no-effect zone, then an about claim's band.
        root.draw(&Rectangle::new(
            [
                (clamp(px(r.rope.0)), y - ROW / 2 + 3),
                (clamp(px(r.rope.1)), y + ROW / 2 - 3),
            ],
            grey.filled(),
        ))
        .map_err(e)?;
        if let Some((a, b)) = r.band {
            root.draw(&Rectangle::new(
                [
                    (clamp(px(a)), y - ROW / 2 + 3),
                    (clamp(px(b)), y + ROW / 2 - 3),
                ],
                RGBColor(150, 150, 150).stroke_width(1),
            ))
            .map_err(e)?;
        }
        let c = colour(r.colour);
        if r.lo.is_finite() && r.hi.is_finite() && r.lo > 0.0 {
            let (a, b) = (clamp(px(r.lo)), clamp(px(r.hi)));
            root.draw(&PathElement::new(vec![(a, y), (b, y)], c.stroke_width(3)))
                .map_err(e)?;
            for x in [a, b] {
                root.draw(&PathElement::new(
                    vec![(x, y - 5), (x, y + 5)],
                    c.stroke_width(2),
                ))
                .map_err(e)?;
            }
        }
        root.draw(&Circle::new((clamp(px(r.est)), y), 5, c.filled()))
            .map_err(e)?;
        if let Some(s) = r.seed {
            let x = clamp(px(s));
            let d = 6;
            root.draw(&PathElement::new(
                vec![(x, y - d), (x + d, y), (x, y + d), (x - d, y), (x, y - d)],
                BLACK.stroke_width(2),
            ))
            .map_err(e)?;
        }
        root.draw(&Text::new(label(r), (left - 12, y), text(16, HPos::Right)))
            .map_err(e)?;
        root.draw(&Text::new(
            r.verdict.text().to_string(),
            (x1 + 12, y),
            (FAMILY, 16)
                .into_font()
                .color(&verdict_colour(r.verdict))
                .pos(Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(e)?;
    }
    // The line of no difference over the rows.
    let one = px(1.0);
    if (x0..=x1).contains(&one) {
        root.draw(&PathElement::new(
            vec![(one, TOP - 4), (one, bottom)],
            RGBColor(90, 90, 90).stroke_width(1),
        ))
        .map_err(e)?;
    }
    draw_key(&root, rows, bottom)
}

/// The key under the rows (from `bottom`): the engines, then the marks, in rows that fit the
/// width.
fn draw_key<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    rows: &[Row],
    bottom: i32,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    let grey = RGBColor(225, 225, 225);
    let mut engines: Vec<(usize, &str)> = Vec::new();
    for r in rows {
        if !engines.iter().any(|(c, _)| *c == r.colour) {
            engines.push((r.colour, &r.engine));
        }
    }
    let mut entries: Vec<(Key, String)> = engines
        .into_iter()
        .map(|(c, n)| (Key::Engine(c), n.to_string()))
        .collect();
    entries.push((Key::Seed, "seed's value".into()));
    entries.push((Key::Zone, NO_EFFECT.into()));
    if rows.iter().any(|r| r.band.is_some()) {
        entries.push((Key::Band, "about's band".into()));
    }
    let (mut x, mut ky) = (16, bottom + 70);
    for (k, name) in entries {
        let w = 24 + key_width(&name);
        if x > 16 && x + w > WIDTH - 8 {
            x = 16;
            ky += KEY_ROW;
        }
        match k {
            Key::Engine(ci) => {
                root.draw(&PathElement::new(
                    vec![(x, ky), (x + 18, ky)],
                    colour(ci).stroke_width(3),
                ))
                .map_err(e)?;
                root.draw(&Circle::new((x + 9, ky), 4, colour(ci).filled()))
                    .map_err(e)?;
            }
            Key::Seed => {
                let (d, c) = (6, x + 9);
                root.draw(&PathElement::new(
                    vec![
                        (c, ky - d),
                        (c + d, ky),
                        (c, ky + d),
                        (c - d, ky),
                        (c, ky - d),
                    ],
                    BLACK.stroke_width(2),
                ))
                .map_err(e)?;
            }
            Key::Zone => {
                root.draw(&Rectangle::new(
                    [(x, ky - 7), (x + 18, ky + 7)],
                    grey.filled(),
                ))
                .map_err(e)?;
            }
            Key::Band => {
                root.draw(&Rectangle::new(
                    [(x, ky - 7), (x + 18, ky + 7)],
                    RGBColor(150, 150, 150).stroke_width(1),
                ))
                .map_err(e)?;
            }
        }
        root.draw(&Text::new(name, (x + 24, ky), text(16, HPos::Left)))
            .map_err(e)?;
        x += w + 28;
    }
    Ok(())
}

/// The plot as an SVG document.
pub fn svg(rows: &[Row]) -> CliResult<String> {
    register_font();
    let mut out = String::new();
    {
        let root =
            SVGBackend::with_string(&mut out, (WIDTH as u32, height(rows))).into_drawing_area();
        draw(root, rows).map_err(|e| CliError::new(format!("forest plot: {e}")))?;
    }
    Ok(out)
}

/// The plot as a PNG file.
pub fn png(rows: &[Row], path: &std::path::Path) -> CliResult<()> {
    register_font();
    let root = BitMapBackend::new(path, (WIDTH as u32, height(rows))).into_drawing_area();
    draw(root, rows).map_err(|e| CliError::new(format!("{}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(text: &str) -> Claim {
        toml::from_str(&format!("quote = \"q\"\n{text}\n")).unwrap()
    }

    fn outcome(claim: usize, engine: &str, est: f64) -> Outcome {
        Outcome {
            claim,
            engine: engine.into(),
            verdict: Verdict::Reproduced,
            figure: String::new(),
            estimate: est,
            ci_lo: est * 0.98,
            ci_hi: est * 1.02,
            n: 6,
            note: String::new(),
            more_repetitions: None,
            fewest_repetitions: None,
            open_cells: Vec::new(),
        }
    }

    #[test]
    fn one_row_per_ratio_claim_and_engine_with_the_seed_marked() {
        let ratio = "ratio = { axis = \"f\", a = true, b = false }";
        let claims = [
            claim(&format!("metric = \"a+b.filter_bits_per_key\"\nrelation = \"smaller\"\nseed_value = 0.7\n{ratio}")),
            claim(&format!("metric = \"fillrandom.ops_per_sec\"\nrelation = \"about\"\nseed_value = 0.994\ntolerance = 0.05\n{ratio}")),
            // Not a ratio: left to the table.
            claim("metric = \"readrandom.found_fraction\"\nrelation = \"about\"\nseed_value = 1"),
        ];
        let outcomes = vec![
            outcome(0, "lsmlab", 0.83),
            outcome(0, "rocksdb", 0.81),
            outcome(1, "lsmlab", 1.01),
            outcome(1, "rocksdb", 0.99),
            outcome(2, "lsmlab", 1.0),
        ];
        let rows = rows(&claims, &outcomes);
        assert_eq!(rows.len(), 4, "{rows:?}");
        assert_eq!(rows[3].colour, 1, "rocksdb keeps its colour");
        assert_eq!(rows[1].band, None);
        assert!(rows[2].band.is_some());
        let svg = svg(&rows).unwrap();
        for label in [
            "1. filter_bits_per_key · lsmlab",
            "1. filter_bits_per_key · rocksdb",
            "2. fillrandom.ops_per_sec · lsmlab",
            "2. fillrandom.ops_per_sec · rocksdb",
        ] {
            // plotters writes a text's content on a line of its own.
            assert_eq!(svg.matches(&format!(">\n{label}\n<")).count(), 1, "{label}");
        }
        assert!(!svg.contains("found_fraction"));
        // The seed's mark: a black diamond on every row, and one in the key.
        let diamonds = svg
            .lines()
            .filter(|l| l.contains("<polyline") && l.contains("stroke=\"#000000\""))
            .count();
        assert_eq!(diamonds, rows.len() + 1, "{svg}");
        assert!(svg.contains("\nseed&apos;s value\n") || svg.contains("\nseed's value\n"));
        assert!(!svg.contains("http://") || svg.matches("http://").count() == 1);
    }

    #[test]
    fn the_axis_is_logarithmic_with_readable_ticks() {
        let t = ticks(0.5f64.log10(), 20f64.log10());
        let v: Vec<String> = t.iter().map(|t| tick_text(10f64.powf(*t))).collect();
        assert_eq!(v, ["0.5×", "1×", "2×", "5×", "10×", "20×"]);
        let t = ticks(0.8f64.log10(), 1.06f64.log10());
        assert!(t.len() >= 3, "{t:?}");
        assert!(label(&Row {
            claim: "9. a_very_long_metric_name_that_goes_on_and_on_and_on".into(),
            engine: "lsmlab-rocksdb".into(),
            colour: 0,
            est: 1.0,
            lo: 1.0,
            hi: 1.0,
            seed: None,
            rope: (0.99, 1.01),
            band: None,
            verdict: Verdict::NoEffect,
        })
        .ends_with("… · lsmlab-rocksdb"));
    }
}
