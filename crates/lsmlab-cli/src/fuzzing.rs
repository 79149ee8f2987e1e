//! Entry points of the coverage-guided fuzz targets for the two text inputs a user writes
//! (`fuzz/`, docs/reliability.md): a study plan and a YCSB workload file. They live here, not in
//! the fuzz crate, so that a test of this crate builds and runs them: the fuzz crate is not part
//! of the workspace and would otherwise break unseen when a module moves.

use lsmlab_drivers::ycsb::properties::Properties;
use lsmlab_drivers::ycsb::workload::CoreWorkload;
use lsmlab_lab::plan::spec::Plan;

/// Any text parsed and checked as `lsmlab run PLAN.toml` does: a plan or a one-line error.
/// Panics (the finding) on a multi-line error.
pub fn plan(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Err(e) = Plan::parse(&text) {
        assert!(!e.0.contains('\n'), "a multi-line error: {e}");
    }
}

/// Any text read as a YCSB properties file and the CoreWorkload it describes built (generators
/// included): a workload or a one-line error. Panics (the finding) on a multi-line error.
pub fn ycsb_workload(data: &[u8]) {
    let mut p = Properties::default();
    p.load_str(&String::from_utf8_lossy(data));
    if let Err(e) = CoreWorkload::from_properties(&p) {
        assert!(!e.0.contains('\n'), "a multi-line error: {e}");
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Every file of a folder of the repository, whole and cut short at three places.
    fn inputs(dir: &str) -> Vec<Vec<u8>> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(dir);
        let mut out = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if !path.is_file() {
                continue;
            }
            let bytes = std::fs::read(path).unwrap();
            for cut in [bytes.len(), bytes.len() / 2, bytes.len() / 3, 7] {
                out.push(bytes[..cut.min(bytes.len())].to_vec());
            }
        }
        assert!(!out.is_empty(), "no files in {}", dir.display());
        out
    }

    #[test]
    fn the_plan_target_takes_every_checked_in_plan_whole_and_cut() {
        for data in inputs("experiments") {
            super::plan(&data);
        }
    }

    #[test]
    fn the_ycsb_target_takes_every_checked_in_workload_whole_and_cut() {
        for data in inputs("workloads") {
            super::ycsb_workload(&data);
        }
    }
}
