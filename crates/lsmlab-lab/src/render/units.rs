//! Byte sizes as a reader reads them: an axis of byte-valued settings (`write_buffer_size`,
//! `value_size`, `lsmlab.target_file_size_base`) labelled `2 MiB` rather than `2097152`, and a
//! metric in bytes or MiB (`rss_bytes`, `db_size_mb`) ticked in the unit its magnitude calls for.

const KIB: f64 = 1024.0;

/// Settings that end like a size but count something else.
const NOT_BYTES: &[&str] = &[
    "batch_size",
    "thread_pool_size",
    "ops_between_duration_checks",
];

/// Whether a matrix axis (a flag or property name) holds byte sizes.
pub fn byte_axis(axis: &str) -> bool {
    let name = axis.rsplit('.').next().unwrap_or(axis);
    if NOT_BYTES.contains(&name) {
        return false;
    }
    name.ends_with("_size")
        || name.ends_with("_size_base")
        || name.contains("bytes")
        || name == "fieldlength"
}

/// Bytes per unit of a metric whose values are bytes (`…_bytes`) or MiB (`…_mb`), if any.
pub fn metric_bytes(metric: &str) -> Option<f64> {
    if metric.ends_with("_mb") {
        Some(KIB * KIB)
    } else if metric.ends_with("_bytes") {
        Some(1.0)
    } else {
        None
    }
}

/// A byte count in B, KiB, MiB or GiB, whichever keeps it at or above 1: `4 KiB`, `2 MiB`,
/// `1.5 GiB`, `267 KiB`.
pub fn bytes_text(b: f64) -> String {
    if !b.is_finite() {
        return "–".into();
    }
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b;
    let mut i = 0;
    while v.abs() >= KIB && i + 1 < units.len() {
        v /= KIB;
        i += 1;
    }
    let num = if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    };
    let num = if num.contains('.') {
        num.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        num
    };
    format!("{num} {}", units[i])
}

/// An axis value as a label: a byte size on a byte axis, else as written.
pub fn axis_label(axis: &str, value: &str) -> String {
    match value.parse::<f64>() {
        Ok(v) if byte_axis(axis) => bytes_text(v),
        _ => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_the_unit_of_their_magnitude() {
        assert_eq!(bytes_text(2097152.0), "2 MiB");
        assert_eq!(bytes_text(4096.0), "4 KiB");
        assert_eq!(bytes_text(256.0), "256 B");
        assert_eq!(bytes_text(0.261 * 1048576.0), "267 KiB");
        assert_eq!(bytes_text(1.5 * 1073741824.0), "1.5 GiB");
        assert_eq!(bytes_text(0.0), "0 B");
    }

    #[test]
    fn byte_axes_and_metrics_are_told_by_name() {
        assert!(byte_axis("write_buffer_size") && byte_axis("lsmlab.target_file_size_base"));
        assert!(byte_axis("max_bytes_for_level_base") && byte_axis("value_size"));
        assert!(!byte_axis("batch_size") && !byte_axis("bloom_bits") && !byte_axis("workload"));
        assert_eq!(axis_label("write_buffer_size", "8388608"), "8 MiB");
        assert_eq!(axis_label("use_ribbon_filter", "true"), "true");
        assert_eq!(metric_bytes("db_size_mb"), Some(1048576.0));
        assert_eq!(metric_bytes("rss_bytes"), Some(1.0));
        assert_eq!(metric_bytes("fillrandom.mb_per_sec"), None);
        assert_eq!(metric_bytes("readrandom.ops_per_sec"), None);
    }
}
