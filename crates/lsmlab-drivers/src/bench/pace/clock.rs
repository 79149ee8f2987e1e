//! The local wall-clock time in the two forms db_bench prints: its header's `Date:` line and
//! the stamp of its interval lines.

/// The local time now, broken down; `None` if the C library cannot convert it.
fn local_now() -> Option<libc::tm> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as libc::time_t)
        .unwrap_or(0);
    // SAFETY: `tm` is plain data that localtime_r fills; both pointers are valid for the call.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        (!libc::localtime_r(&now, &mut tm).is_null()).then_some(tm)
    }
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/// `Thu Nov 26 01:40:00 2026`, as db_bench's header prints the date (`ctime` without its
/// newline); empty if the time cannot be had.
pub fn header_date() -> String {
    let Some(tm) = local_now() else {
        return String::new();
    };
    format!(
        "{} {} {:2} {:02}:{:02}:{:02} {}",
        DAYS.get(tm.tm_wday as usize).unwrap_or(&"???"),
        MONTHS.get(tm.tm_mon as usize).unwrap_or(&"???"),
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec,
        tm.tm_year + 1900
    )
}

/// `2026/11/26-01:40:00`, as db_bench stamps its interval lines.
pub fn interval_stamp() -> String {
    let Some(tm) = local_now() else {
        return String::from("0000/00/00-00:00:00");
    };
    format!(
        "{:04}/{:02}/{:02}-{:02}:{:02}:{:02}",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_have_db_benchs_shape() {
        let d = header_date();
        let w: Vec<&str> = d.split_whitespace().collect();
        assert_eq!(w.len(), 5, "{d}");
        assert!(DAYS.contains(&w[0]) && MONTHS.contains(&w[1]), "{d}");
        assert!(
            w[3].len() == 8 && w[4].parse::<i32>().is_ok_and(|y| y >= 2024),
            "{d}"
        );
        let s = interval_stamp();
        assert_eq!(s.len(), 19, "{s}");
        assert_eq!(
            (&s[4..5], &s[7..8], &s[10..11], &s[13..14]),
            ("/", "/", "-", ":")
        );
        assert_eq!(&s[..4], w[4], "the same year in both forms");
    }
}
