//! A step's process figures as the kernel accounts them when it reaps the child (`wait4`'s
//! rusage): peak resident set, user and system CPU, and the bytes it read from and wrote to
//! storage. Exact, where once-a-second /proc samples miss the peak of a short run and the CPU
//! and I/O of its last second.

use std::process::{Child, ExitStatus};

/// What the kernel counted for one reaped child (and any children it reaped itself).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    /// Peak resident set, bytes (`ru_maxrss`). The kernel counts the process from its fork, so
    /// this is at least the resident size of the study itself at the fork (a few MiB).
    pub max_rss_bytes: u64,
    /// User CPU, seconds.
    pub user_s: f64,
    /// System CPU, seconds.
    pub sys_s: f64,
    /// Bytes read from storage (`ru_inblock`, 512-byte units; the same count as
    /// `/proc/PID/io` read_bytes).
    pub read_bytes: u64,
    /// Bytes written to storage (`ru_oublock`).
    pub write_bytes: u64,
}

fn seconds(t: libc::timeval) -> f64 {
    t.tv_sec as f64 + t.tv_usec as f64 / 1e6
}

impl Usage {
    fn from_raw(r: &libc::rusage) -> Usage {
        Usage {
            // Linux gives ru_maxrss in KiB.
            max_rss_bytes: (r.ru_maxrss.max(0) as u64).saturating_mul(1024),
            user_s: seconds(r.ru_utime),
            sys_s: seconds(r.ru_stime),
            read_bytes: (r.ru_inblock.max(0) as u64).saturating_mul(512),
            write_bytes: (r.ru_oublock.max(0) as u64).saturating_mul(512),
        }
    }

    /// User plus system CPU, seconds.
    pub fn cpu_s(&self) -> f64 {
        self.user_s + self.sys_s
    }
}

/// Reaps `child` if it has exited, with the kernel's figures of it; `None` while it runs.
/// Replaces `Child::try_wait`, which throws the rusage away: once this returns `Some`, the
/// child is reaped and must not be waited for again.
pub fn try_wait(child: &Child) -> std::io::Result<Option<(ExitStatus, Usage)>> {
    use std::os::unix::process::ExitStatusExt;
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value of the plain C struct wait4 fills in.
    let mut raw: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: wait4 writes only through the two pointers, both to live locals; `pid` is our
        // own unreaped child (std reaps only in wait/try_wait, which are not called on it).
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut raw) };
        if r == 0 {
            return Ok(None);
        }
        if r == pid {
            return Ok(Some((ExitStatus::from_raw(status), Usage::from_raw(&raw))));
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};
    use std::time::Duration;

    fn reap(child: &Child) -> (ExitStatus, Usage) {
        loop {
            if let Some(done) = try_wait(child).unwrap() {
                return done;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    const ALLOCATE: &str = "LSMLAB_TEST_ALLOCATE_MIB";

    /// Not a test of its own: the child of the test below (this test binary run again with
    /// `--ignored --exact`). Touches every page of `ALLOCATE` MiB, holds them a second, and
    /// prints its own high-water mark as the kernel keeps it (`VmHWM`, KiB) just before exiting.
    #[test]
    #[ignore = "run as a child by the_peak_of_a_one_second_child_is_the_kernels"]
    fn allocating_child() {
        let mib: usize = std::env::var(ALLOCATE).unwrap().parse().unwrap();
        let mut b = vec![0u8; mib << 20];
        for i in (0..b.len()).step_by(4096) {
            b[i] = 1;
        }
        std::thread::sleep(Duration::from_secs(1));
        assert_eq!(
            b.iter().step_by(4096).filter(|&&x| x == 1).count(),
            b.len() / 4096
        );
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let hwm = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
        println!("{hwm}");
    }

    #[test]
    fn the_peak_of_a_one_second_child_is_the_kernels() {
        let known: u64 = 64 << 20;
        let out = tempfile::tempdir().unwrap();
        let (so, se) = (out.path().join("stdout"), out.path().join("stderr"));
        let exe = std::env::current_exe().unwrap();
        let setting = format!("{ALLOCATE}=64");
        // `env` execs the test binary in its own process: the pid stays the child's.
        let args: Vec<String> = [
            setting.as_str(),
            exe.to_str().unwrap(),
            "--ignored",
            "--exact",
            "run::measure::rusage::tests::allocating_child",
            "--nocapture",
            "--test-threads=1",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // Through the runner's own child handling, as a step runs.
        let (status, samples, u) = crate::run::steps::run_child("env", &args, &so, &se).unwrap();
        assert!(
            status.success(),
            "{}",
            std::fs::read_to_string(&se).unwrap()
        );
        assert!(!samples.is_empty());
        let text = std::fs::read_to_string(&so).unwrap();
        let hwm_kib: u64 = text
            .lines()
            .find_map(|l| l.split("VmHWM:").nth(1))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no VmHWM in {text:?}"));
        assert!(
            u.max_rss_bytes >= known,
            "peak {} < {known}",
            u.max_rss_bytes
        );
        // The kernel's figure for this child (wait4) is the child's own high-water mark, to within
        // the kernel's per-CPU batching of RSS counters (read approximately by /proc). (The
        // figure of every reaped child of this process, getrusage's, is no check: other tests of
        // this binary start larger children at the same time.)
        let hwm = hwm_kib * 1024;
        assert!(
            u.max_rss_bytes.abs_diff(hwm) < hwm / 100,
            "{} vs VmHWM {hwm}",
            u.max_rss_bytes
        );
        assert!(u.cpu_s() > 0.0, "{u:?}");
    }

    #[test]
    // `reap` waits for it, through wait4 rather than `Child::wait`.
    #[allow(clippy::zombie_processes)]
    fn cpu_is_counted_and_the_status_kept() {
        let child = Command::new("sh")
            .args([
                "-c",
                "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; exit 3",
            ])
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let (status, u) = reap(&child);
        assert_eq!(status.code(), Some(3));
        assert!(u.cpu_s() > 0.0, "{u:?}");
        assert!(u.max_rss_bytes > 0, "{u:?}");
        assert!(try_wait(&child).is_err(), "a reaped child is gone");
    }
}
