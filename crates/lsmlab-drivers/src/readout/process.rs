//! Resources of this process: CPU time (getrusage) and peak resident memory (VmHWM).

/// User and system CPU seconds used so far by the whole process (all threads).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CpuTimes {
    /// User-mode seconds.
    pub user_s: f64,
    /// Kernel-mode seconds.
    pub sys_s: f64,
}

/// CPU time of the process so far.
pub fn cpu_times() -> CpuTimes {
    // SAFETY: getrusage writes into the zeroed struct we pass and has no other effect.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with a valid pointer is always allowed.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return CpuTimes::default();
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    CpuTimes {
        user_s: secs(ru.ru_utime),
        sys_s: secs(ru.ru_stime),
    }
}

/// Peak resident set size in bytes (`VmHWM` of /proc/self/status), when the system says.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Bytes of every file under `dir` (the database's size on disk); `None` if it cannot be read.
pub fn dir_size(dir: &std::path::Path) -> Option<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).ok()? {
        let entry = entry.ok()?;
        let meta = entry.metadata().ok()?;
        if meta.is_dir() {
            total += dir_size(&entry.path()).unwrap_or(0);
        } else {
            total += meta.len();
        }
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_grows_with_work() {
        let before = cpu_times();
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        let after = cpu_times();
        assert!(after.user_s + after.sys_s > before.user_s + before.sys_s);
    }

    #[test]
    fn peak_rss_and_dir_size_are_read() {
        assert!(peak_rss_bytes().unwrap_or(0) > 0);
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a"), [0u8; 100]).unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        std::fs::write(d.path().join("sub/b"), [0u8; 23]).unwrap();
        assert_eq!(dir_size(d.path()), Some(123));
        assert_eq!(dir_size(&d.path().join("missing")), None);
    }
}
