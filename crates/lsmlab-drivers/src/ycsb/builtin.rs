//! Workload files shipped in `workloads/` and built into the binary, so `-P workloada` or
//! `-P fslsm-workload3` works from any directory: YCSB's standard workloads A–F and the 15 mixes
//! of the FSLSM-Tree study (seed 003: all-read, 50/50 read-insert, …, all-scan, 50/25/25).

macro_rules! builtins {
    ($($name:literal),* $(,)?) => {
        /// Every built-in workload: (name, properties text).
        pub const BUILTIN: &[(&str, &str)] = &[
            $(($name, include_str!(concat!("../../../../workloads/", $name))),)*
        ];
    };
}

builtins!(
    "workloada",
    "workloadb",
    "workloadc",
    "workloadd",
    "workloade",
    "workloadf",
    "fslsm-workload0",
    "fslsm-workload1",
    "fslsm-workload2",
    "fslsm-workload3",
    "fslsm-workload4",
    "fslsm-workload5",
    "fslsm-workload6",
    "fslsm-workload7",
    "fslsm-workload8",
    "fslsm-workload9",
    "fslsm-workload10",
    "fslsm-workload11",
    "fslsm-workload12",
    "fslsm-workload13",
    "fslsm-workload14",
);

/// The text of the built-in workload called `name` (a path's last component also matches).
pub fn find(name: &str) -> Option<&'static str> {
    let base = name.rsplit('/').next().unwrap_or(name);
    BUILTIN.iter().find(|(n, _)| *n == base).map(|(_, t)| *t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ycsb::properties::Properties;

    #[test]
    fn all_builtins_have_proportions_summing_to_one() {
        assert_eq!(BUILTIN.len(), 21);
        for (name, text) in BUILTIN {
            let mut p = Properties::default();
            p.load_str(text);
            let sum: f64 = [
                "readproportion",
                "updateproportion",
                "insertproportion",
                "scanproportion",
                "readmodifywriteproportion",
            ]
            .iter()
            .map(|k| p.f64_in(k, 0.0, 0.0, 1.0).unwrap())
            .sum();
            assert!((sum - 1.0).abs() < 1e-9, "{name}: {sum}");
        }
        assert!(find("workloads/workloada")
            .unwrap()
            .contains("updateproportion=0.5"));
        assert!(find("fslsm-workload13")
            .unwrap()
            .contains("scanproportion=1"));
        assert!(find("workloadz").is_none());
    }
}
