//! The render stage. Takes what the analyse stage gives (summaries, comparisons, verdicts,
//! findings) and the results directory; gives the figures (panels and charts, as SVG and PNG)
//! and the report, `report.md` and `report.html`, both written from one model of sections.

pub mod document;
pub mod heatmap;
pub mod heatmap_plot;
pub mod html;
pub mod markdown;
pub mod metric_table;
pub mod panels;
pub mod plots;
pub mod sections;
pub mod setup;
pub mod units;
