//! The render stage. Takes what the analyse stage gives (summaries, comparisons, verdicts,
//! findings) and the results directory; gives the figures (panels and charts, as SVG and PNG)
//! and the report, `report.md` and `report.html`, both written from one model of sections.
//! `page` holds that model and its two writers; the figures and `document`, which builds the
//! sections, use it.

pub mod answer;
pub mod document;
pub mod forest;
pub mod heatmap;
pub mod heatmap_plot;
pub mod metric_table;
pub mod page;
pub mod panels;
pub mod plots;
pub mod setup;
pub mod units;
