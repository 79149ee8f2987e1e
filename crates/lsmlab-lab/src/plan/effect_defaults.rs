//! What a claim takes when its plan sets no size band or smallest effect: the defaults by kind
//! of metric, argued in docs/verdicts.md. Here, in the plan stage, because a claim resolves its
//! own settings (`Claim::size_band`, `Claim::smallest_effect`); the analyse stage decides with
//! them (`analyse::claims::effect`).

/// Default size band: the seed's ratio is consistent when the interval meets [s/1.5, s·1.5].
pub const DEFAULT_SIZE_BAND: f64 = 1.5;

/// What a metric measures, for its default smallest effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricKind {
    /// Throughput, latency, CPU and wall time: noisy, and biased by the set-up by a few %.
    Timing,
    /// Counts of work: bytes read and written, compactions, amplifications, files checked.
    Work,
    /// Sizes: database, memory, filter and index bytes, bits per key.
    Size,
    /// Rates estimated from a sample: false-positive rates, hit ratios.
    Rate,
}

impl MetricKind {
    /// The kind's default smallest effect (a fraction: 0.03 = 3 %).
    pub fn smallest_effect(self) -> f64 {
        match self {
            MetricKind::Timing => 0.03,
            MetricKind::Work | MetricKind::Size => 0.01,
            MetricKind::Rate => 0.05,
        }
    }

    /// As the docs name it.
    pub fn name(self) -> &'static str {
        match self {
            MetricKind::Timing => "timing",
            MetricKind::Work => "work",
            MetricKind::Size => "size",
            MetricKind::Rate => "rate",
        }
    }
}

/// The kind of a metric, from its name's last part (`readrandom.ops_per_sec` is a timing,
/// `run.lsmlab.write_amp` work, `db_size_mb` a size, `…fpr` a rate); a timing when unknown.
pub fn metric_kind(metric: &str) -> MetricKind {
    let m = metric
        .rsplit('.')
        .next()
        .unwrap_or(metric)
        .to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| m.contains(w));
    if has(&["fpr", "hit", "_rate", "ratio", "found"]) {
        MetricKind::Rate
    } else if has(&[
        "per_sec", "per_op", "micros", "latency", "cpu", "_us", "_ms", "wall",
    ]) || m.ends_with("_s")
        || m.starts_with('p') && m[1..].chars().all(|c| c.is_ascii_digit()) && m.len() > 1
    {
        MetricKind::Timing
    } else if has(&[
        "amp",
        "files_checked",
        "write_mb",
        "read_mb",
        "major_mb",
        "minor_mb",
        "compact",
        "bytes",
        "count",
        "ios",
    ]) {
        MetricKind::Work
    } else if has(&["size", "_mb", "bits", "memory", "rss", "_kb", "_gb"]) {
        MetricKind::Size
    } else {
        MetricKind::Timing
    }
}
