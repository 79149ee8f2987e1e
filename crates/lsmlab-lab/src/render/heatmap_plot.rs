//! Drawing a heat map (plotters, SVG and PNG like every plot): a grid of x values (rows) by
//! series values (columns), each cell coloured by its ratio on a log scale (blue below 1,
//! orange above, white at 1, full colour at 4× either way) with its ratio written in it, and a
//! heavy frame and `*` where the 95 % CI excludes 1. A key under the grid reads the colours.

use super::heatmap::{decided, HeatMap};
use super::plots::{register_font, FAMILY};
use crate::text::significant;
use lsmlab_drivers::error::{CliError, CliResult};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Width of the image; rows are `ROW` px high.
const WIDTH: u32 = 900;
const ROW: i32 = 24;
/// Room for the title and the column heads, for the row labels, and for the key.
const TOP: i32 = 76;
const LEFT: i32 = 150;
const BOTTOM: i32 = 70;
/// The ratio drawn in full colour (and beyond it): 4× either way.
const FULL: f64 = 2.0;

fn height(h: &HeatMap) -> u32 {
    (TOP + ROW * h.rows.len() as i32 + BOTTOM) as u32
}

/// The colour of a ratio: white at 1, towards blue below, towards orange above, by log2.
pub fn colour(ratio: f64) -> RGBColor {
    let l = if ratio > 0.0 && ratio.is_finite() {
        (ratio.log2() / FULL).clamp(-1.0, 1.0)
    } else {
        0.0
    };
    let (r, g, b) = if l < 0.0 {
        (0.0, 114.0, 178.0)
    } else {
        (213.0, 94.0, 0.0)
    };
    let t = l.abs();
    let mix = |c: f64| (255.0 + (c - 255.0) * t).round() as u8;
    RGBColor(mix(r), mix(g), mix(b))
}

fn centred(size: u32) -> TextStyle<'static> {
    TextStyle::from((FAMILY, size).into_font()).pos(Pos::new(HPos::Center, VPos::Center))
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, h: &HeatMap) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    root.draw(&Text::new(
        h.title.clone(),
        (WIDTH as i32 / 2, 14),
        centred(17),
    ))
    .map_err(e)?;
    let n = h.cols.len().max(1) as i32;
    let col_w = ((WIDTH as i32 - LEFT - 20) / n).max(40);
    let left = TextStyle::from((FAMILY, 13).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
    // The rows' axis over the row labels, the columns' beside their heads.
    root.draw(&Text::new(
        format!("{} ↓", h.row_label),
        (8, TOP - 34),
        TextStyle::from((FAMILY, 13).into_font()).pos(Pos::new(HPos::Left, VPos::Center)),
    ))
    .map_err(e)?;
    root.draw(&Text::new(
        format!("{} →", h.series),
        (LEFT - 8, TOP - 14),
        left.clone(),
    ))
    .map_err(e)?;
    for (c, name) in h.cols.iter().enumerate() {
        let x = LEFT + c as i32 * col_w + col_w / 2;
        root.draw(&Text::new(name.clone(), (x, TOP - 14), centred(13)))
            .map_err(e)?;
    }
    for (r, (label, cells)) in h.rows.iter().zip(&h.cells).enumerate() {
        let y = TOP + r as i32 * ROW;
        root.draw(&Text::new(
            label.clone(),
            (LEFT - 8, y + ROW / 2),
            left.clone(),
        ))
        .map_err(e)?;
        for (c, cell) in cells.iter().enumerate() {
            let x = LEFT + c as i32 * col_w;
            let (fill, text) = match cell {
                Some(r) => {
                    let mark = if decided(r) { " *" } else { "" };
                    (colour(r.ratio), format!("{}×{mark}", significant(r.ratio)))
                }
                None => (RGBColor(235, 235, 235), "–".to_string()),
            };
            root.draw(&Rectangle::new(
                [(x, y), (x + col_w, y + ROW)],
                fill.filled(),
            ))
            .map_err(e)?;
            let frame = match cell {
                Some(r) if decided(r) => BLACK.stroke_width(2),
                _ => RGBColor(200, 200, 200).stroke_width(1),
            };
            root.draw(&Rectangle::new(
                [(x + 1, y + 1), (x + col_w - 1, y + ROW - 1)],
                frame,
            ))
            .map_err(e)?;
            // Dark cells take white text.
            let dark = cell
                .as_ref()
                .is_some_and(|r| r.ratio > 0.0 && (r.ratio.log2() / FULL).abs() > 0.6);
            let style = centred(12).color(if dark { &WHITE } else { &BLACK });
            root.draw(&Text::new(text, (x + col_w / 2, y + ROW / 2), style))
                .map_err(e)?;
        }
    }
    draw_key(&root, h, TOP + ROW * h.rows.len() as i32 + 18)
}

/// The key: a strip from 1/4× to 4× with its ratios, and what the frame and `*` mean.
fn draw_key<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    h: &HeatMap,
    y: i32,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    let (x0, w) = (LEFT, 320);
    for i in 0..w {
        let l = (i as f64 / w as f64 * 2.0 - 1.0) * FULL;
        root.draw(&Rectangle::new(
            [(x0 + i, y), (x0 + i + 1, y + 12)],
            colour(2f64.powf(l)).filled(),
        ))
        .map_err(e)?;
    }
    for (v, label) in [
        (0.25, "0.25×"),
        (0.5, "0.5×"),
        (1.0, "1×"),
        (2.0, "2×"),
        (4.0, "4×"),
    ] {
        let x = x0 + ((f64::log2(v) / FULL + 1.0) / 2.0 * w as f64) as i32;
        root.draw(&Text::new(label, (x, y + 24), centred(12)))
            .map_err(e)?;
    }
    let note = format!(
        "ratio to {}={}; framed and * where the 95 % CI excludes 1",
        h.series, h.baseline
    );
    root.draw(&Text::new(
        note,
        (x0 + w + 16, y + 6),
        TextStyle::from((FAMILY, 12).into_font()).pos(Pos::new(HPos::Left, VPos::Center)),
    ))
    .map_err(e)?;
    Ok(())
}

/// The heat map as an SVG document.
pub fn svg(h: &HeatMap) -> CliResult<String> {
    register_font();
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (WIDTH, height(h))).into_drawing_area();
        draw(root, h).map_err(|e| CliError::new(format!("heatmap {:?}: {e}", h.title)))?;
    }
    Ok(out)
}

/// The heat map as a PNG file.
pub fn png(h: &HeatMap, path: &std::path::Path) -> CliResult<()> {
    register_font();
    let root = BitMapBackend::new(path, (WIDTH, height(h))).into_drawing_area();
    draw(root, h).map_err(|e| CliError::new(format!("heatmap {}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::numbers::statistics::Ratio;

    fn ratio(r: f64, lo: f64, hi: f64) -> Option<Ratio> {
        Some(Ratio {
            n: 3,
            ratio: r,
            ci_lo: lo,
            ci_hi: hi,
            p: 0.01,
        })
    }

    #[test]
    fn colours_run_from_blue_through_white_to_orange() {
        assert_eq!(colour(1.0), RGBColor(255, 255, 255));
        assert_eq!(colour(0.25), RGBColor(0, 114, 178));
        assert_eq!(colour(100.0), RGBColor(213, 94, 0), "clamped at 4×");
        assert_eq!(colour(f64::NAN), RGBColor(255, 255, 255));
    }

    #[test]
    fn cells_carry_their_ratio_and_the_mark_when_decided() {
        let h = HeatMap {
            title: "Device time".into(),
            metric: "t".into(),
            row_label: "workload".into(),
            rows: vec!["0".into(), "1".into()],
            series: "layout".into(),
            cols: vec!["wisckey".into(), "leveldb".into()],
            baseline: "fslsm".into(),
            cells: vec![
                vec![ratio(1.72, 1.6, 1.8), ratio(1.01, 0.9, 1.1)],
                vec![None, ratio(0.5, 0.4, 0.6)],
            ],
        };
        let s = svg(&h).unwrap();
        for text in [
            "Device time",
            "wisckey",
            "leveldb",
            "1.720× *",
            "1.010×",
            "0.500× *",
        ] {
            assert!(s.contains(text), "{text}");
        }
        assert!(!s.contains("1.010× *"), "an undecided ratio is not marked");
        let d = tempfile::tempdir().unwrap();
        png(&h, &d.path().join("h.png")).unwrap();
        let empty = HeatMap {
            rows: Vec::new(),
            cells: Vec::new(),
            cols: Vec::new(),
            ..h
        };
        svg(&empty).unwrap();
    }
}
