//! The report of a results directory: report.md and a self-contained report.html.

use super::analysis::{CompareRow, SummaryRow};
use super::environment::Environment;
use super::results::RunRecord;
use super::Expanded;
use crate::error::{CliError, CliResult};
use std::path::{Path, PathBuf};

/// What the report is made from.
pub struct Input<'a> {
    /// The results directory.
    pub dir: &'a Path,
    /// The expanded plan.
    pub expanded: &'a Expanded,
    /// The machine.
    pub env: &'a Environment,
    /// Every run.
    pub records: &'a [RunRecord],
    /// Per cell, engine and metric.
    pub summary: &'a [SummaryRow],
    /// Ratios.
    pub compare: &'a [CompareRow],
}

/// Writes report.md and report.html; returns report.html's path.
pub fn write_all(input: &Input) -> CliResult<PathBuf> {
    let md = format!("# {}\n", input.expanded.title);
    let path = input.dir.join("report.md");
    std::fs::write(&path, md).map_err(|e| CliError::new(format!("{}: {e}", path.display())))?;
    let html = input.dir.join("report.html");
    std::fs::write(&html, "<!doctype html><title>report</title>")
        .map_err(|e| CliError::new(format!("{}: {e}", html.display())))?;
    Ok(html)
}
