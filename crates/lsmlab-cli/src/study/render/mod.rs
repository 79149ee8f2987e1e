//! The render stage. Takes what the analyse stage gives (summaries, comparisons, verdicts,
//! findings) and the results directory; gives the figures (panels and charts, as SVG and PNG)
//! and the report, `report.md` and `report.html`.

pub mod document;
pub mod panels;
pub mod plots;
