//! Plots (plotters): bars and lines of a metric with 95 % CI error bars, and series over time.
//! Each is drawn twice, as SVG (inlined in report.html) and as PNG (text rendered with the
//! bundled font, so a machine without fonts still labels its axes).

use super::units::bytes_text;
use lsmlab_drivers::error::{CliError, CliResult};
use plotters::coord::Shift;
use plotters::prelude::*;

/// The font every plot uses, compiled in.
static FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
pub(super) const FAMILY: &str = "sans-serif";

pub(super) fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // A font that fails to load leaves plotters without text; the plot is still drawn.
        let _ = plotters::style::register_font(FAMILY, FontStyle::Normal, FONT);
    });
}

/// One point: x, mean, the CI (NaN when there is none) and the runs behind the mean.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// Position on x (a category's index for bars).
    pub x: f64,
    /// Mean (or the value, for time series).
    pub y: f64,
    /// CI low.
    pub lo: f64,
    /// CI high.
    pub hi: f64,
    /// Each run's value, drawn as a small hollow dot over the mean (empty for time series).
    pub runs: Vec<f64>,
}

/// One series (a bar colour or a line).
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Points, sorted by x.
    pub points: Vec<Point>,
}

/// What to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// Caption.
    pub title: String,
    /// x axis label.
    pub x_label: String,
    /// y axis label.
    pub y_label: String,
    /// Category names for a bar chart (x = index), none for a line chart.
    pub categories: Option<Vec<String>>,
    /// The data.
    pub series: Vec<Series>,
    /// Plot log10(x) with the original values as labels.
    pub log_x: bool,
    /// Plot log10(y) (values ≤ 0 left out), with the original values as labels.
    pub log_y: bool,
    /// Vertical marks and their text (e.g. the crossovers).
    pub marks: Vec<(f64, String)>,
    /// A numeric x of byte sizes, ticked in KiB, MiB… (`units::bytes_text`).
    pub x_bytes: bool,
    /// Bytes per unit of y when y is a size (1 for bytes, 1 MiB for `_mb`): ticked in KiB, MiB…
    pub y_bytes: Option<f64>,
}

/// The series colours: colour-blind-safe (Okabe–Ito), black last.
pub(super) const OKABE_ITO: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(0, 0, 0),
];

fn color(i: usize) -> RGBColor {
    OKABE_ITO[i % OKABE_ITO.len()]
}

/// A tick label: `fmt_num`, without trailing zeros after a decimal point (0.8, not 0.800).
fn fmt_tick(v: f64) -> String {
    let s = fmt_num(v);
    let (num, unit) = match s.char_indices().last() {
        Some((i, c)) if c == 'k' || c == 'M' => (&s[..i], &s[i..]),
        _ => (s.as_str(), ""),
    };
    if num.contains('.') {
        format!("{}{unit}", num.trim_end_matches('0').trim_end_matches('.'))
    } else {
        s.clone()
    }
}

/// A data value on x as written in the plan: whole numbers in full (16384, not 16k).
fn fmt_exact(v: f64) -> String {
    if (v - v.round()).abs() < 1e-6 * v.abs().max(1.0) && v.abs() < 1e9 {
        format!("{}", v.round() as i64)
    } else {
        fmt_tick(v)
    }
}

fn fmt_num(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if a >= 100.0 || v == v.trunc() {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, c: &Chart) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    // The legend has its own strip under the chart, so it never covers a bar or a line.
    let rows = legend_rows(&c.series, root.dim_in_pixel().0 as i32 - 2 * LEGEND_MARGIN);
    let (root, legend) =
        root.split_vertically(root.dim_in_pixel().1 as i32 - rows.len() as i32 * LEGEND_ROW - 6);
    let logged;
    let c = if c.log_y {
        logged = log_y(c);
        &logged
    } else {
        c
    };
    let b = bounds(c);
    let Bounds { x0, x1, y0, y1 } = b;
    let (x_ticks, y_ticks, exact_x) = ticks(c, b);
    let (rotate, x_area) = x_label_room(c);
    let mut chart = ChartBuilder::on(&root)
        .caption(&c.title, (FAMILY, 18))
        .margin(12)
        .x_label_area_size(x_area)
        .y_label_area_size(72)
        .build_cartesian_2d(
            Ticked {
                range: x0..x1,
                ticks: x_ticks,
            },
            Ticked {
                range: y0..y1,
                ticks: y_ticks,
            },
        )
        .map_err(e)?;
    let cats = c.categories.clone();
    let log_x = c.log_x;
    let x_bytes = c.x_bytes;
    let xfmt = move |x: &f64| match &cats {
        Some(names) => {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                names.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        }
        None if x_bytes && log_x => bytes_text(10f64.powf(*x)),
        None if x_bytes => bytes_text(*x),
        None if log_x => fmt_exact(10f64.powf(*x)),
        None if exact_x => fmt_exact(*x),
        None => fmt_tick(*x),
    };
    let log_y_axis = c.log_y;
    let y_bytes = c.y_bytes;
    let mut mesh = chart.configure_mesh();
    if c.categories.is_some() {
        // Vertical grid lines between categories say nothing.
        mesh.disable_x_mesh();
    }
    let x_style = if rotate {
        TextStyle::from((FAMILY, 13).into_font()).transform(FontTransform::Rotate90)
    } else {
        TextStyle::from((FAMILY, 13).into_font())
    };
    mesh.x_desc(&c.x_label)
        .y_desc(&c.y_label)
        .x_label_formatter(&xfmt)
        .y_label_formatter(&|y| {
            let v = if log_y_axis { 10f64.powf(*y) } else { *y };
            match y_bytes {
                Some(unit) => bytes_text(v * unit),
                None => fmt_tick(v),
            }
        })
        .label_style((FAMILY, 13))
        .x_label_style(x_style)
        .axis_desc_style((FAMILY, 14))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(e)?;
    let k = c.series.len().max(1) as f64;
    for (si, s) in c.series.iter().enumerate() {
        if c.categories.is_some() {
            draw_bars(&mut chart, c, s, si, k, b)?;
        } else {
            draw_line(&mut chart, c, s, si, k, b)?;
        }
    }
    draw_marks(&mut chart, c, b)?;
    draw_legend(&legend, c, &rows)?;
    root.present().map_err(e)?;
    Ok(())
}

/// The plotting area of a chart: x and y ranges.
#[derive(Clone, Copy)]
struct Bounds {
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
}

type Plot<'a, DB> = ChartContext<'a, DB, Cartesian2d<Ticked, Ticked>>;

/// An x value on the chart's axis: its log10 on a log axis.
fn tx(c: &Chart, x: f64) -> f64 {
    if c.log_x && x > 0.0 {
        x.log10()
    } else {
        x
    }
}

/// The ranges that hold every point, interval and run, with a little room around.
fn bounds(c: &Chart) -> Bounds {
    let pts = c.series.iter().flat_map(|s| s.points.iter());
    let (mut x0, mut x1) = (f64::INFINITY, f64::NEG_INFINITY);
    // Linear axes start at 0; a log axis starts at the smallest value.
    let mut y1: f64 = if c.log_y { f64::NEG_INFINITY } else { 0.0 };
    let mut y0: f64 = if c.log_y { f64::INFINITY } else { 0.0 };
    for p in pts {
        x0 = x0.min(tx(c, p.x));
        x1 = x1.max(tx(c, p.x));
        for v in [p.y, p.hi, p.lo].into_iter().chain(p.runs.iter().copied()) {
            if v.is_finite() {
                y1 = y1.max(v);
                y0 = y0.min(v);
            }
        }
    }
    // A few wide intervals (three noisy runs) must not flatten every mean: on a linear axis
    // the top is at most 2.5 times the largest mean, and a whisker past it is cut there.
    let top_mean = c
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.y))
        .filter(|y| y.is_finite())
        .fold(f64::NEG_INFINITY, f64::max);
    if !c.log_y && top_mean > 0.0 && y1 > 2.5 * top_mean {
        y1 = 2.5 * top_mean;
    }
    if !x0.is_finite() {
        (x0, x1) = (0.0, 1.0);
    }
    if c.categories.is_some() {
        (x0, x1) = (-0.5, x1 + 0.5);
    } else if x1 <= x0 {
        (x0, x1) = (x0 - 1.0, x1 + 1.0);
    } else {
        let pad = (x1 - x0) * 0.04;
        (x0, x1) = (x0 - pad, x1 + pad);
    }
    if !y0.is_finite() || !y1.is_finite() {
        (y0, y1) = (0.0, 1.0);
    }
    if y1 <= y0 {
        y1 = y0 + 1.0;
    }
    // A little headroom above the tallest bar or point (the legend sits below the chart).
    let y1 = if c.log_y {
        y1 + (y1 - y0).max(0.3) * 0.04
    } else {
        y1 * 1.04
    };
    let y0 = if c.log_y { y0 - (y1 - y0) * 0.05 } else { y0 };
    Bounds { x0, x1, y0, y1 }
}

/// The ticks of both axes, and whether the x ticks are the data's own values.
fn ticks(c: &Chart, b: Bounds) -> (Vec<f64>, Vec<f64>, bool) {
    let Bounds { x0, x1, y0, y1 } = b;
    // Ticks: every category; on a numeric x, the data's own values (few) or round steps (many);
    // on a log axis, 1-2-5 per decade, never fractional powers of ten.
    let mut data_x: Vec<f64> = c
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| tx(c, p.x)))
        .collect();
    data_x.sort_by(f64::total_cmp);
    data_x.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
    let exact_x = c.log_x || (1..=12).contains(&data_x.len());
    let x_ticks: Vec<f64> = match &c.categories {
        Some(names) => (0..names.len()).map(|i| i as f64).collect(),
        None if exact_x => data_x,
        None => nice_ticks(x0, x1, 8),
    };
    let y_ticks = if c.log_y {
        log_ticks(y0, y1)
    } else {
        nice_ticks(y0, y1, 8)
    };
    (x_ticks, y_ticks, exact_x)
}

/// Whether the category labels stand upright, and the room under the x axis.
fn x_label_room(c: &Chart) -> (bool, u32) {
    // Long category labels are turned upright so that they never overlap.
    let longest = c
        .categories
        .as_ref()
        .map(|v| v.iter().map(|s| s.chars().count()).max().unwrap_or(0))
        .unwrap_or(0);
    let n_cats = c.categories.as_ref().map(|v| v.len()).unwrap_or(0);
    let rotate = n_cats > 0 && (longest * n_cats) as f64 * 7.5 > 760.0;
    let x_area = if rotate {
        (24 + 8 * longest).min(200) as u32
    } else {
        48
    };
    (rotate, x_area)
}

/// One series as bars beside the other series' of the same category, with CIs and runs.
fn draw_bars<DB: DrawingBackend>(
    chart: &mut Plot<'_, DB>,
    c: &Chart,
    s: &Series,
    si: usize,
    k: f64,
    b: Bounds,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    let Bounds { y0, y1, .. } = b;
    let log_y_axis = c.log_y;
    let col = color(si);
    let w = 0.8 / k;
    let bars = s.points.iter().map(|p| {
        let left = p.x - 0.4 + si as f64 * w;
        Rectangle::new(
            [
                (left, if log_y_axis { y0 } else { 0.0 }),
                (left + w * 0.92, p.y),
            ],
            col.mix(0.85).filled(),
        )
    });
    chart.draw_series(bars).map_err(e)?;
    let bars = s
        .points
        .iter()
        .filter(|p| p.lo.is_finite() && p.hi.is_finite())
        .map(|p| {
            let mid = p.x - 0.4 + si as f64 * w + w * 0.46;
            ErrorBar::new_vertical(mid, p.lo, p.y, p.hi.min(y1), BLACK.stroke_width(1), 6)
        });
    chart.draw_series(bars).map_err(e)?;
    let runs = s.points.iter().flat_map(|p| {
        let mid = p.x - 0.4 + si as f64 * w + w * 0.46;
        run_dots(mid, w * 0.06, &p.runs, y1, BLACK)
    });
    chart.draw_series(runs).map_err(e)?;
    Ok(())
}

/// One series as a line through its points, with CIs and runs.
fn draw_line<DB: DrawingBackend>(
    chart: &mut Plot<'_, DB>,
    c: &Chart,
    s: &Series,
    si: usize,
    k: f64,
    b: Bounds,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    let Bounds { x0, x1, y1, .. } = b;
    let col = color(si);
    let line: Vec<(f64, f64)> = s.points.iter().map(|p| (tx(c, p.x), p.y)).collect();
    chart
        .draw_series(LineSeries::new(line.clone(), col.stroke_width(2)))
        .map_err(e)?;
    if line.len() <= 40 {
        chart
            .draw_series(
                line.iter()
                    .map(|&(x, y)| Circle::new((x, y), 3, col.filled())),
            )
            .map_err(e)?;
    }
    let bars = s
        .points
        .iter()
        .filter(|p| p.lo.is_finite() && p.hi.is_finite())
        .map(|p| {
            ErrorBar::new_vertical(tx(c, p.x), p.lo, p.y, p.hi.min(y1), col.stroke_width(1), 8)
        });
    chart.draw_series(bars).map_err(e)?;
    // Each series' runs a little apart from the others' at the same x.
    let shift = (si as f64 - (k - 1.0) / 2.0) * (x1 - x0) * 0.008;
    let runs = s
        .points
        .iter()
        .flat_map(|p| run_dots(tx(c, p.x) + shift, 0.0, &p.runs, y1, col));
    chart.draw_series(runs).map_err(e)?;
    Ok(())
}

/// The chart's marks: a red line at each x with its text, each a line lower than the last.
fn draw_marks<DB: DrawingBackend>(
    chart: &mut Plot<'_, DB>,
    c: &Chart,
    b: Bounds,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    let Bounds { y0, y1, .. } = b;
    for (i, (x, text)) in c.marks.iter().enumerate() {
        let x = tx(c, *x);
        // Each mark's text a line lower than the one before, so two never overlap.
        let at = |f: f64| y0 + (y1 - y0) * (f - 0.07 * i as f64);
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x, y0), (x, at(0.9))],
                RED.stroke_width(2),
            )))
            .map_err(e)?;
        chart
            .draw_series(std::iter::once(Text::new(
                text.clone(),
                (x, at(0.96)),
                (FAMILY, 13).into_font().color(&RED),
            )))
            .map_err(e)?;
    }
    Ok(())
}

/// The legend in its strip under the chart: `rows` of series indexes.
fn draw_legend<DB: DrawingBackend>(
    legend: &DrawingArea<DB, Shift>,
    c: &Chart,
    rows: &[Vec<usize>],
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    let bars = c.categories.is_some();
    for (r, row) in rows.iter().enumerate() {
        let y = r as i32 * LEGEND_ROW + LEGEND_ROW / 2;
        let mut x = LEGEND_MARGIN;
        for &si in row {
            let col = color(si);
            if bars {
                legend
                    .draw(&Rectangle::new([(x, y - 5), (x + 14, y + 5)], col.filled()))
                    .map_err(e)?;
            } else {
                legend
                    .draw(&PathElement::new(
                        vec![(x, y), (x + 14, y)],
                        col.stroke_width(2),
                    ))
                    .map_err(e)?;
            }
            let name = &c.series[si].name;
            legend
                .draw(&Text::new(
                    name.clone(),
                    (x + 20, y - 7),
                    (FAMILY, 13).into_font(),
                ))
                .map_err(e)?;
            x += legend_width(name);
        }
    }
    Ok(())
}

/// A linear f64 axis whose ticks are given, not chosen by plotters.
struct Ticked {
    range: std::ops::Range<f64>,
    ticks: Vec<f64>,
}

impl plotters::coord::ranged1d::Ranged for Ticked {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let span = self.range.end - self.range.start;
        if span <= 0.0 {
            return limit.0;
        }
        let f = (value - self.range.start) / span;
        limit.0 + (f * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<H: plotters::coord::ranged1d::KeyPointHint>(&self, hint: H) -> Vec<f64> {
        // Light (unlabelled) grid lines: none.
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.range.clone()
    }
}

/// About `n` round ticks (1, 2 or 5 times a power of ten apart) from `lo` to `hi`.
pub fn nice_ticks(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo || n == 0 {
        return Vec::new();
    }
    let raw = (hi - lo) / n as f64;
    let p = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// Ticks of a log10 axis from `lo` to `hi` (both logs): 1, 2 and 5 times each power of ten,
/// or only the powers when the range spans many decades.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return Vec::new();
    }
    let mantissas: &[f64] = if hi - lo > 4.0 {
        &[1.0]
    } else {
        &[1.0, 2.0, 5.0]
    };
    let mut out = Vec::new();
    for d in lo.floor() as i64..=hi.ceil() as i64 {
        for m in mantissas {
            let v = (m * 10f64.powi(d as i32)).log10();
            if v >= lo && v <= hi {
                out.push(v);
            }
        }
    }
    out
}

/// The chart with log10 of every y (points with y ≤ 0 dropped, CI ends ≤ 0 left open).
fn log_y(c: &Chart) -> Chart {
    let l = |v: f64| if v > 0.0 { v.log10() } else { f64::NAN };
    let mut out = c.clone();
    for s in &mut out.series {
        s.points = s
            .points
            .iter()
            .filter(|p| p.y > 0.0)
            .map(|p| Point {
                x: p.x,
                y: l(p.y),
                lo: l(p.lo),
                hi: l(p.hi),
                runs: p.runs.iter().filter(|v| **v > 0.0).map(|v| l(*v)).collect(),
            })
            .collect();
    }
    out
}

/// Pixels between the legend and the image's sides; the height of one legend row.
const LEGEND_MARGIN: i32 = 16;
const LEGEND_ROW: i32 = 20;

/// The width one legend entry takes: a 14 px swatch, a gap, its text at ~7.5 px a character
/// (13 px DejaVu Sans), and space before the next.
fn legend_width(name: &str) -> i32 {
    20 + (name.chars().count() as f64 * 7.5) as i32 + 24
}

/// The series' indices row by row, as many entries to a row as fit in `width` pixels.
fn legend_rows(series: &[Series], width: i32) -> Vec<Vec<usize>> {
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut used = width;
    for (i, s) in series.iter().enumerate() {
        let w = legend_width(&s.name);
        if used + w > width && !rows.last().is_some_and(|r| r.is_empty()) {
            rows.push(Vec::new());
            used = 0;
        }
        if let Some(r) = rows.last_mut() {
            r.push(i);
        }
        used += w;
    }
    rows
}

/// Each run's value at `x` as a small hollow dot, so that a reader sees the spread behind a
/// mean (three runs of which one is far off read differently from three that agree). A value
/// above the axis' top (cut at 2.5× the largest mean) is left out rather than drawn on the
/// frame.
/// The dots are spread `step` apart across x (a bar's width is known in x units), so that
/// equal runs stay countable and none hides under the error bar; on a line they take the
/// line's colour, so that the runs of two series at one x stay told apart.
fn run_dots(
    x: f64,
    step: f64,
    runs: &[f64],
    top: f64,
    colour: RGBColor,
) -> Vec<Circle<(f64, f64), i32>> {
    let mid = (runs.len() as f64 - 1.0) / 2.0;
    runs.iter()
        .enumerate()
        .filter(|(_, v)| v.is_finite() && **v <= top)
        .map(|(i, &v)| {
            let at = x + (i as f64 - mid) * step;
            Circle::new((at, v), 2, colour.mix(0.8).stroke_width(1))
        })
        .collect()
}

/// Size of every plot, pixels.
pub const SIZE: (u32, u32) = (900, 460);

/// The chart as an SVG document.
pub fn svg(c: &Chart) -> CliResult<String> {
    register_font();
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        draw(root, c).map_err(|e| CliError::new(format!("plot {:?}: {e}", c.title)))?;
    }
    Ok(out)
}

/// The chart as a PNG file.
pub fn png(c: &Chart, path: &std::path::Path) -> CliResult<()> {
    register_font();
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    draw(root, c).map_err(|e| CliError::new(format!("plot {}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(categories: bool) -> Chart {
        let p = |x: f64, y: f64| Point {
            x,
            y,
            lo: y * 0.9,
            hi: y * 1.1,
            runs: vec![y * 0.95, y * 1.05],
        };
        Chart {
            title: "Reads".into(),
            x_label: "bloom_bits".into(),
            y_label: "ops/s".into(),
            categories: categories.then(|| vec!["0".into(), "10".into()]),
            series: vec![
                Series {
                    name: "lsmlab".into(),
                    points: vec![p(0.0, 100.0), p(1.0, 150.0)],
                },
                Series {
                    name: "rocksdb".into(),
                    points: vec![p(0.0, 120.0), p(1.0, 110.0)],
                },
            ],
            log_x: false,
            log_y: false,
            marks: vec![(0.5, "cross".into())],
            x_bytes: false,
            y_bytes: None,
        }
    }

    #[test]
    fn svg_has_the_labels_and_no_external_reference() {
        for cats in [true, false] {
            let s = svg(&chart(cats)).unwrap();
            assert!(s.starts_with("<svg"), "{}", &s[..40]);
            for text in ["Reads", "bloom_bits", "lsmlab", "rocksdb", "cross"] {
                assert!(s.contains(text), "{text}");
            }
            assert!(!s.contains("href"));
        }
    }

    #[test]
    fn the_legend_wraps_into_rows_that_fit_and_keeps_every_series() {
        let series: Vec<Series> = (0..9)
            .map(|i| Series {
                name: format!("lsmlab, layout=fslsm-variant-{i}"),
                points: Vec::new(),
            })
            .collect();
        let rows = legend_rows(&series, 868);
        assert!(rows.len() > 1, "{rows:?}");
        for r in &rows {
            let w: i32 = r.iter().map(|&i| legend_width(&series[i].name)).sum();
            assert!(w <= 868 || r.len() == 1, "{w}");
        }
        let all: Vec<usize> = rows.concat();
        assert_eq!(all, (0..9).collect::<Vec<_>>());
        assert!(legend_rows(&[], 868).is_empty());
    }

    #[test]
    fn every_run_is_drawn_as_a_dot_over_its_bar() {
        // Run dots are the circles of radius 2 (an error bar marks its mean with radius 3).
        let count = |c: &Chart| svg(c).unwrap().matches(r#"r="2""#).count();
        let mut c = chart(true);
        // Two series of two bars, two runs each.
        assert_eq!(count(&c), 8);
        c.series[0].points[0].runs.push(99.0);
        assert_eq!(count(&c), 9);
        // A run far above the axis' top (2.5x the largest mean) is not drawn on the frame.
        c.series[0].points[0].runs.push(1e9);
        assert_eq!(count(&c), 9);
        c.log_y = true;
        assert_eq!(count(&c), 10, "a log axis keeps every positive run");
    }

    #[test]
    fn ticks_are_round_and_log_ticks_fall_on_one_two_five() {
        assert_eq!(
            nice_ticks(0.0, 100.0, 5),
            [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
        );
        assert_eq!(nice_ticks(0.0, 0.9, 4), [0.0, 0.5]);
        let t: Vec<f64> = log_ticks(2f64.log10(), 3f64.log10() + 2.0)
            .iter()
            .map(|v| (10f64.powf(*v) * 1e6).round() / 1e6)
            .collect();
        assert_eq!(t, [2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0]);
        assert!(nice_ticks(1.0, 1.0, 5).is_empty());
    }

    #[test]
    fn tick_labels_are_short_and_data_values_exact() {
        assert_eq!(fmt_tick(0.8), "0.8");
        assert_eq!(fmt_tick(200000.0), "200k");
        assert_eq!(fmt_tick(1500000.0), "1.5M");
        assert_eq!(fmt_tick(2.5), "2.5");
        assert_eq!(fmt_exact(16384.0), "16384");
        assert_eq!(fmt_exact(0.25), "0.25");
    }

    #[test]
    fn byte_axes_are_ticked_in_kib_and_mib() {
        let mut c = chart(false);
        c.log_x = true;
        c.x_bytes = true;
        c.y_bytes = Some(1048576.0);
        for s in &mut c.series {
            s.points[0].x = 1024.0;
            s.points[1].x = 2097152.0;
        }
        let svg = svg(&c).unwrap();
        assert!(
            svg.contains("\n1 KiB\n") && svg.contains("\n2 MiB\n"),
            "x in units"
        );
        assert!(svg.contains("\n100 MiB\n"), "y in units");
        assert!(!svg.contains("\n2097152\n"));
    }

    #[test]
    fn log_x_ticks_fall_on_the_data() {
        let mut c = chart(false);
        c.log_x = true;
        for s in &mut c.series {
            s.points[0].x = 256.0;
            s.points[1].x = 4096.0;
        }
        let svg = svg(&c).unwrap();
        assert!(
            svg.contains("\n256\n") && svg.contains("\n4096\n"),
            "ticks at the data"
        );
        assert!(!svg.contains("\n251\n") && !svg.contains("\n3981\n"));
    }

    #[test]
    fn png_is_written_and_empty_charts_do_not_fail() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a.png");
        png(&chart(true), &p).unwrap();
        assert!(std::fs::read(&p).unwrap().starts_with(b"\x89PNG"));
        let mut empty = chart(false);
        empty.series.clear();
        empty.log_x = true;
        svg(&empty).unwrap();
        let mut logged = chart(false);
        logged.log_y = true;
        logged.series[0].points[0].y = 0.0;
        let s = svg(&logged).unwrap();
        assert!(s.contains("lsmlab"));
        assert_eq!(log_y(&logged).series[0].points.len(), 1, "y = 0 has no log");
    }
}
