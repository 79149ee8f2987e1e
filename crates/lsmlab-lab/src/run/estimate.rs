//! How long a study's runs will take when its plan does not say: the dry run's estimate.

use crate::plan::spec::{Plan, Table};

/// A rough time for `steps` of one run when the plan gives none: every benchmark's operations
/// at 200,000 per second, YCSB's at 50,000, plus a second per step to start the process.
pub fn guess_seconds(plan: &Plan, steps: std::ops::Range<usize>) -> f64 {
    let int = |t: &Table, k: &str| t.get(k).and_then(|v| v.as_integer());
    let mut s = 0.0;
    for step in &plan.steps[steps] {
        s += 1.0;
        if let Some(b) = &step.bench {
            let num = int(&step.flags, "num")
                .or(int(&plan.flags, "num"))
                .unwrap_or(1_000_000);
            let reads = int(&step.flags, "reads")
                .or(int(&plan.flags, "reads"))
                .unwrap_or(num);
            for name in b.split(',') {
                let ops = if name.contains("read") || name.contains("seek") {
                    reads
                } else {
                    num
                };
                s += ops.max(0) as f64 / 200_000.0;
            }
        }
        if step.ycsb.is_some() {
            let n = int(&step.properties, "operationcount")
                .or(int(&plan.properties, "operationcount"))
                .or(int(&plan.properties, "recordcount"))
                .unwrap_or(1000);
            s += n.max(0) as f64 / 50_000.0;
        }
    }
    s
}
