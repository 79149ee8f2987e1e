//! Waiting, before a run starts, for the device that holds the databases to go quiet.
//!
//! A run that ends leaves work for the device: its files' dirty pages are written back up to
//! 30 s later (the kernel's `dirty_expire_centisecs`), and on a file system mounted with
//! `discard` the blocks of the database it just deleted are discarded when the journal next
//! commits. Started at once, the next run pays for that work, so the side of a pair that runs
//! second is slowed by the first, and the runner's shuffle turns the bias into noise.
//!
//! So before each run the runner syncs the file system (which commits the journal, and so issues
//! the discards, and writes back what is dirty) and then waits until the device has done no
//! write or discard, and has no request in flight, for [`QUIET_FOR`]; at most a bound the plan
//! sets. The wait is recorded with the run, and the report says how long runs waited and how
//! many reached the bound.

use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::{Duration, Instant};

/// How long the device must have been idle: a second, the period of the disk statistics a
/// person would read with `iostat 1`, and longer than the 100 ms poll by ten polls.
pub const QUIET_FOR: Duration = Duration::from_secs(1);

/// How often the device's counters are read.
const POLL: Duration = Duration::from_millis(100);

/// The default bound on the wait, in seconds: the kernel writes back a dirty page at most
/// `dirty_expire_centisecs` (30 s by default) after it was dirtied, so after 30 s of waiting what
/// is left is someone else's work, which waiting longer would not end.
pub const DEFAULT_BOUND_SECS: f64 = 30.0;

/// What one wait found.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct QuietWait {
    /// How long the run waited, in seconds (the sync included).
    pub waited_s: f64,
    /// Whether the device went quiet before the bound.
    pub quiet: bool,
}

/// The counters of one device that show it working, from a /proc/diskstats line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceCounters {
    /// Sectors written.
    pub written: u64,
    /// Sectors discarded (0 on kernels before 4.18, whose lines have no discard fields).
    pub discarded: u64,
    /// Requests in flight.
    pub in_flight: u64,
}

/// The counters of device `major:minor` in /proc/diskstats' text.
pub fn parse_diskstats(text: &str, major: u64, minor: u64) -> Option<DeviceCounters> {
    text.lines().find_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        let num = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok());
        if num(0)? != major || num(1)? != minor {
            return None;
        }
        // major minor name, then: reads, reads merged, sectors read, ms reading, writes, writes
        // merged, sectors written (9), ms writing, in flight (11), ms busy, weighted ms,
        // discards, discards merged, sectors discarded (16), …
        Some(DeviceCounters {
            written: num(9)?,
            in_flight: num(11)?,
            discarded: num(16).unwrap_or(0),
        })
    })
}

/// The block device (`major`, `minor`) that holds `dir`, from its `st_dev`; `None` for a file
/// system without one (tmpfs, overlay), whose `major` is 0.
fn device_of(dir: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(dir).ok()?.dev();
    // glibc's encoding of a dev_t: 12 bits of major in bits 8–19 and the rest in 32–63; minor
    // in bits 0–7 and 20–31.
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    (major != 0).then_some((major, minor))
}

fn counters(major: u64, minor: u64) -> Option<DeviceCounters> {
    parse_diskstats(
        &std::fs::read_to_string("/proc/diskstats").ok()?,
        major,
        minor,
    )
}

/// `syncfs` of the file system of `dir` on a thread of its own, waited for at most `bound`: a
/// device that takes longer leaves the thread to finish alone.
fn sync_file_system(dir: &Path, bound: Duration) {
    let Ok(f) = std::fs::File::open(dir) else {
        return;
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::os::fd::AsRawFd;
        // SAFETY: syncfs takes a file descriptor that `f` keeps open for the call.
        unsafe { libc::syncfs(f.as_raw_fd()) };
        let _ = tx.send(());
    });
    let _ = rx.recv_timeout(bound);
}

/// Syncs the file system of `dir` and waits until its device has been quiet for [`QUIET_FOR`],
/// at most `bound`. `None` when `dir` has no block device (or its counters cannot be read) or
/// the bound is zero: nothing was waited for.
pub fn wait(dir: &Path, bound: Duration) -> Option<QuietWait> {
    if bound.is_zero() {
        return None;
    }
    let (major, minor) = device_of(dir)?;
    counters(major, minor)?;
    let start = Instant::now();
    sync_file_system(dir, bound);
    let mut last = counters(major, minor)?;
    let mut quiet_since = Instant::now();
    loop {
        if last.in_flight == 0 && quiet_since.elapsed() >= QUIET_FOR {
            return Some(QuietWait {
                waited_s: start.elapsed().as_secs_f64(),
                quiet: true,
            });
        }
        if start.elapsed() >= bound {
            return Some(QuietWait {
                waited_s: start.elapsed().as_secs_f64(),
                quiet: false,
            });
        }
        std::thread::sleep(POLL);
        let now = counters(major, minor)?;
        if now.written != last.written || now.discarded != last.discarded || now.in_flight != 0 {
            quiet_since = Instant::now();
        }
        last = now;
    }
}

/// The report's line on the waits of `waits`: median and longest, and how many reached the
/// bound; `None` when no run waited.
pub fn summary(waits: &[QuietWait]) -> Option<String> {
    if waits.is_empty() {
        return None;
    }
    let mut s: Vec<f64> = waits.iter().map(|w| w.waited_s).collect();
    s.sort_by(f64::total_cmp);
    let median = s[s.len() / 2];
    let longest = s[s.len() - 1];
    let bounded = waits.iter().filter(|w| !w.quiet).count();
    let tail = if bounded == 0 {
        "every run started on a quiet device".to_string()
    } else {
        format!(
            "{bounded} of {} runs started when the wait reached its bound, on a device still busy",
            waits.len()
        )
    };
    Some(format!(
        "Before each run the runner synced the file system and waited for its device to be idle \
         for {} s: median {median:.1} s, longest {longest:.1} s; {tail}.",
        QUIET_FOR.as_secs()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DISKSTATS: &str = "\
 254       0 vda 1884863 35177 51182250 5739030 695821 189521 196382120 2623285 3 468588 8636821 218262 98 157139704 162142 173849 112361
 254       1 vda1 1000 0 2000 30 400 10 9000 20 0 40 50 7 0 700 5 0 0
   7       0 loop0 12 0 24 1 0 0 0 0 0 1 1
";

    #[test]
    fn a_device_line_gives_writes_discards_and_requests_in_flight() {
        assert_eq!(
            parse_diskstats(DISKSTATS, 254, 0),
            Some(DeviceCounters {
                written: 196382120,
                discarded: 157139704,
                in_flight: 3
            })
        );
        assert_eq!(
            parse_diskstats(DISKSTATS, 254, 1).map(|c| (c.written, c.discarded)),
            Some((9000, 700))
        );
    }

    #[test]
    fn a_line_of_an_old_kernel_has_no_discards_and_an_unknown_device_none() {
        assert_eq!(
            parse_diskstats(DISKSTATS, 7, 0),
            Some(DeviceCounters {
                written: 0,
                discarded: 0,
                in_flight: 0
            })
        );
        assert_eq!(parse_diskstats(DISKSTATS, 8, 0), None);
        assert_eq!(parse_diskstats("254 0 vda 1 2", 254, 0), None);
    }

    #[test]
    fn a_zero_bound_waits_for_nothing() {
        assert_eq!(wait(Path::new("."), Duration::ZERO), None);
    }

    #[test]
    fn the_summary_names_the_median_the_longest_and_the_runs_at_the_bound() {
        let w = |s, q| QuietWait {
            waited_s: s,
            quiet: q,
        };
        assert_eq!(summary(&[]), None);
        let all_quiet = summary(&[w(1.2, true), w(3.0, true), w(1.5, true)]).unwrap();
        assert!(
            all_quiet.contains("median 1.5 s, longest 3.0 s"),
            "{all_quiet}"
        );
        assert!(all_quiet.contains("every run started on a quiet device"));
        let one_busy = summary(&[w(1.2, true), w(30.0, false)]).unwrap();
        assert!(one_busy.contains("1 of 2 runs started when the wait reached its bound"));
    }
}
