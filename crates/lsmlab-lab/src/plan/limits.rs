//! Bounds on what a plan may ask for, checked before anything is expanded or run: a plan file
//! is a few kilobytes, so a megabyte of plan, a 100 KB string, a non-finite number or a matrix
//! of a billion cells is a mistake (or hostile), and must be one line of error, fast — not an
//! 18 GB allocation, a minute of expansion, or a plan.json that cannot be read back.

use lsmlab_drivers::error::{CliError, CliResult};
use std::io::Read;

/// Largest plan file, bytes.
pub const MAX_PLAN_BYTES: u64 = 1 << 20;
/// Longest string anywhere in a plan, bytes.
pub const MAX_STRING: usize = 4096;
/// Most cells a matrix (at any scale) may expand to.
pub const MAX_CELLS: u128 = 10_000;
/// Most runs a study (cells × engines × repetitions) may have.
pub const MAX_RUNS: u128 = 1_000_000;

/// Reads a plan file, refusing one larger than `MAX_PLAN_BYTES` (or endless, like /dev/zero)
/// without reading more than one byte past the limit.
pub fn read_plan(path: &std::path::Path) -> CliResult<String> {
    let shown = path.display();
    let f = std::fs::File::open(path).map_err(|e| CliError::new(format!("plan {shown}: {e}")))?;
    let mut bytes = Vec::new();
    f.take(MAX_PLAN_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::new(format!("plan {shown}: {e}")))?;
    if bytes.len() as u64 > MAX_PLAN_BYTES {
        return Err(CliError::new(format!(
            "plan {shown}: larger than {} KiB; a plan is a short TOML file",
            MAX_PLAN_BYTES / 1024
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        CliError::new(format!(
            "plan {shown}: not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Refuses strings longer than `MAX_STRING` and numbers that are not finite, naming the key.
pub fn check_values(table: &toml::Table) -> CliResult<()> {
    fn walk(path: &str, v: &toml::Value) -> CliResult<()> {
        match v {
            toml::Value::String(s) if s.len() > MAX_STRING => Err(CliError::new(format!(
                "{path}: a string of {} bytes; allowed up to {MAX_STRING}",
                s.len()
            ))),
            toml::Value::Float(f) if !f.is_finite() => {
                Err(CliError::new(format!("{path}: {f} is not a finite number")))
            }
            toml::Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    walk(&format!("{path}[{i}]"), x)?;
                }
                Ok(())
            }
            toml::Value::Table(t) => {
                for (k, x) in t {
                    if k.len() > MAX_STRING {
                        return Err(CliError::new(format!(
                            "{path}: a key of {} bytes; allowed up to {MAX_STRING}",
                            k.len()
                        )));
                    }
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(&p, x)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
    walk("", &toml::Value::Table(table.clone()))
}

/// The number of cells of a matrix (the product of its axes' lengths), without expanding it;
/// `None` when the matrix is not a table of lists.
pub fn cell_count(matrix: &toml::Table) -> u128 {
    matrix
        .values()
        .map(|v| v.as_array().map_or(1, |a| a.len() as u128))
        .fold(1u128, |n, k| n.saturating_mul(k))
}

/// Refuses a matrix of more than `MAX_CELLS` cells; `what` names it (`matrix`, `scale.paper`).
pub fn check_cells(matrix: &toml::Table, what: &str) -> CliResult<()> {
    let n = cell_count(matrix);
    if n > MAX_CELLS {
        let sizes: Vec<String> = matrix
            .iter()
            .map(|(k, v)| format!("{k} {}", v.as_array().map_or(1, |a| a.len())))
            .collect();
        return Err(CliError::new(format!(
            "{what}: {n} cells ({}); the limit is {MAX_CELLS}",
            sizes.join(" × ")
        )));
    }
    Ok(())
}

/// Refuses a study of more than `MAX_RUNS` runs.
pub fn check_runs(cells: usize, engines: usize, repetitions: u32) -> CliResult<()> {
    let n = cells as u128 * engines as u128 * u128::from(repetitions);
    if n > MAX_RUNS {
        return Err(CliError::new(format!(
            "study: {n} runs ({cells} cells × {engines} engines × {repetitions} repetitions); the limit is {MAX_RUNS}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endless_and_huge_files_are_refused_after_the_limit() {
        let e = read_plan(std::path::Path::new("/dev/zero")).unwrap_err();
        assert!(e.0.contains("larger than 1024 KiB"), "{e}");
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("p.toml");
        std::fs::write(&p, [0xffu8, 0xfe]).unwrap();
        assert!(read_plan(&p).unwrap_err().0.contains("not UTF-8"));
    }

    #[test]
    fn values_are_bounded_and_finite() {
        let t: toml::Table = toml::from_str("[flags]\ncompression_ratio = nan\n").unwrap();
        let e = check_values(&t).unwrap_err();
        assert_eq!(e.0, "flags.compression_ratio: NaN is not a finite number");
        let t: toml::Table = toml::from_str("[matrix]\nx = [1.0, -inf]\n").unwrap();
        assert!(check_values(&t)
            .unwrap_err()
            .0
            .starts_with("matrix.x[1]: -inf"));
        let t: toml::Table =
            toml::from_str(&format!("title = \"{}\"\n", "a".repeat(5000))).unwrap();
        assert!(check_values(&t)
            .unwrap_err()
            .0
            .starts_with("title: a string of 5000 bytes"));
    }

    #[test]
    fn cells_are_counted_not_expanded() {
        let mut text = String::new();
        for i in 0..12 {
            text += &format!("a{i} = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n");
        }
        let m: toml::Table = toml::from_str(&text).unwrap();
        assert_eq!(cell_count(&m), 10u128.pow(12));
        let e = check_cells(&m, "matrix").unwrap_err();
        assert!(
            e.0.starts_with("matrix: 1000000000000 cells (a0 10 × a1 10"),
            "{e}"
        );
        assert!(e.0.ends_with("the limit is 10000"), "{e}");
        assert!(check_runs(100, 3, 5).is_ok());
        assert!(check_runs(10_000, 3, u32::MAX)
            .unwrap_err()
            .0
            .contains("the limit is 1000000"));
    }
}
