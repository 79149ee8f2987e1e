//! The report's page: one model of sections (claims, findings, setup, figures with their
//! tables, failed runs) and its two writers, `report.md` and `report.html`, so the two say the
//! same. Draws nothing; imports nothing else of the render stage.

pub mod html;
pub mod markdown;
pub mod sections;
