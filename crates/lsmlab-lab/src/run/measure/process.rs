//! Process figures of a run and of each of its steps, from the kernel's accounting of each
//! step's child (`rusage`): peak RSS, CPU time, storage bytes, and CPU time per operation.
//! The /proc samples are kept for the time series only: a once-a-second sample misses the peak
//! of a short step and the last second of its CPU and I/O.

use super::rusage::Usage;
use crate::run::figures::metrics::Metrics;
use crate::run::figures::output::Output;

const MIB: f64 = 1024.0 * 1024.0;

/// The operations a step ran: the sum of its benchmarks' `N operations` (or, where the tool
/// prints no count, the sample count of the benchmark's first histogram), or a YCSB phase's
/// `operations`. `None` when any benchmark's count is unknown, so a per-operation figure is
/// never divided by a part of the work.
pub fn operations(out: &Output, json: Option<&serde_json::Value>) -> Option<f64> {
    if out.benchmarks.is_empty() {
        return json
            .and_then(|d| d.get("operations"))
            .and_then(|v| v.as_f64())
            .filter(|&n| n > 0.0);
    }
    let mut total = 0.0;
    for b in &out.benchmarks {
        let n = b.operations.or_else(|| {
            b.histograms
                .first()
                .filter(|h| h.count > 0)
                .map(|h| h.count as f64)
        })?;
        total += n;
    }
    (total > 0.0).then_some(total)
}

/// A step's figures: `S.cpu_s` (user + system), `S.rss_peak_mb`, and `S.cpu_us_per_op` when
/// the step's operation count is known (the whole process's CPU, background threads included,
/// over the step's operations).
pub fn from_step(m: &mut Metrics, label: &str, u: &Usage, ops: Option<f64>) {
    m.insert(format!("{label}.cpu_s"), u.cpu_s());
    m.insert(format!("{label}.rss_peak_mb"), u.max_rss_bytes as f64 / MIB);
    if let Some(n) = ops.filter(|&n| n > 0.0) {
        m.insert(format!("{label}.cpu_us_per_op"), u.cpu_s() * 1e6 / n);
    }
}

/// A run's figures over its steps: the largest peak RSS, CPU (user, system, and their mean
/// over the wall time as a %), storage bytes read and written, and wall time.
pub fn from_run(m: &mut Metrics, steps: &[Usage], wall_s: f64) {
    m.insert("process.wall_s".into(), wall_s);
    if steps.is_empty() {
        // No step ran (a failed load): no process figure, rather than zeros.
        return;
    }
    let peak = steps.iter().map(|u| u.max_rss_bytes).max().unwrap_or(0);
    m.insert("process.rss_peak_mb".into(), peak as f64 / MIB);
    let user: f64 = steps.iter().map(|u| u.user_s).sum();
    let sys: f64 = steps.iter().map(|u| u.sys_s).sum();
    m.insert("process.cpu_user_s".into(), user);
    m.insert("process.cpu_sys_s".into(), sys);
    if wall_s > 0.0 {
        m.insert("process.cpu_mean_pct".into(), 100.0 * (user + sys) / wall_s);
    }
    let read: u64 = steps.iter().map(|u| u.read_bytes).sum();
    let write: u64 = steps.iter().map(|u| u.write_bytes).sum();
    m.insert("process.disk_read_mb".into(), read as f64 / MIB);
    m.insert("process.disk_write_mb".into(), write as f64 / MIB);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::figures::output::parse;

    fn usage(rss_mib: u64, user: f64, sys: f64) -> Usage {
        Usage {
            max_rss_bytes: rss_mib << 20,
            user_s: user,
            sys_s: sys,
            read_bytes: 1 << 20,
            write_bytes: 3 << 20,
        }
    }

    #[test]
    fn a_run_takes_the_largest_peak_and_sums_cpu_and_io() {
        let mut m = Metrics::new();
        from_run(&mut m, &[usage(40, 1.0, 0.5), usage(70, 2.0, 0.5)], 8.0);
        assert_eq!(m["process.rss_peak_mb"], 70.0);
        assert_eq!(m["process.cpu_user_s"], 3.0);
        assert_eq!(m["process.cpu_sys_s"], 1.0);
        assert_eq!(m["process.cpu_mean_pct"], 50.0);
        assert_eq!(m["process.disk_read_mb"], 2.0);
        assert_eq!(m["process.disk_write_mb"], 6.0);
    }

    #[test]
    fn no_step_gives_no_process_figure() {
        let mut m = Metrics::new();
        from_run(&mut m, &[], 1.0);
        assert!(!m.contains_key("process.rss_peak_mb"));
        assert!(!m.contains_key("process.cpu_mean_pct"));
    }

    #[test]
    fn cpu_per_operation_over_every_benchmark_of_the_step() {
        let out = parse(
            "fillrandom   :  2.0 micros/op 500000 ops/sec 0.004 seconds 2000 operations;\nreadrandom   :  1.0 micros/op 1000000 ops/sec 0.002 seconds 2000 operations;\n",
        );
        assert_eq!(operations(&out, None), Some(4000.0));
        let mut m = Metrics::new();
        from_step(
            &mut m,
            "load",
            &usage(10, 0.003, 0.001),
            operations(&out, None),
        );
        assert!((m["load.cpu_us_per_op"] - 1.0).abs() < 1e-9);
        assert_eq!(m["load.rss_peak_mb"], 10.0);
        assert!((m["load.cpu_s"] - 0.004).abs() < 1e-12);
    }

    #[test]
    fn an_unknown_count_gives_no_per_operation_figure() {
        // LevelDB prints no operation count and, without --histogram, no samples either.
        let out = parse("fillrandom   :       4.000 micros/op;   27.6 MB/s\n");
        assert_eq!(operations(&out, None), None);
        let mut m = Metrics::new();
        from_step(&mut m, "s", &usage(1, 1.0, 0.0), None);
        assert!(!m.contains_key("s.cpu_us_per_op"));
        let ycsb: serde_json::Value = serde_json::json!({"operations": 500});
        assert_eq!(operations(&parse(""), Some(&ycsb)), Some(500.0));
    }
}
