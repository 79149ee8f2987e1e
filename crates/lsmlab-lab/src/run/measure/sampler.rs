//! Once-a-second samples of a child process from /proc: CPU %, RSS, and bytes it read from and
//! wrote to the device (`/proc/PID/io` read_bytes/write_bytes, which count storage, not cache).

use serde::{Deserialize, Serialize};

/// One sample.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Seconds since the step started.
    pub t: f64,
    /// CPU % over the last interval (100 = one core busy).
    pub cpu_pct: f64,
    /// Resident set, bytes.
    pub rss_bytes: u64,
    /// Device bytes read so far by the process.
    pub read_bytes: u64,
    /// Device bytes written so far by the process.
    pub write_bytes: u64,
}

/// CPU ticks (user + system) of `pid`, from field 14 and 15 of /proc/PID/stat.
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may contain spaces: split after the last ')'.
    let rest = stat.get(stat.rfind(')')? + 2..)?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    Some(utime + stime)
}

fn rss(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn io(pid: u32) -> (u64, u64) {
    let text = std::fs::read_to_string(format!("/proc/{pid}/io")).unwrap_or_default();
    let get = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    };
    (get("read_bytes:"), get("write_bytes:"))
}

fn ticks_per_second() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

/// Samples one process; call `sample` about once a second.
pub struct Sampler {
    pid: u32,
    start: std::time::Instant,
    last: Option<(f64, u64)>,
    hz: f64,
    /// The samples so far.
    pub samples: Vec<Sample>,
}

impl Sampler {
    /// A sampler of `pid`, its clock starting now.
    pub fn new(pid: u32) -> Sampler {
        Sampler {
            pid,
            start: std::time::Instant::now(),
            last: None,
            hz: ticks_per_second(),
            samples: Vec::new(),
        }
    }

    /// Takes a sample, unless the process is gone.
    pub fn sample(&mut self) {
        let t = self.start.elapsed().as_secs_f64();
        let Some(ticks) = cpu_ticks(self.pid) else {
            return;
        };
        let cpu_pct = match self.last {
            Some((t0, k0)) if t > t0 => {
                100.0 * (ticks.saturating_sub(k0) as f64 / self.hz) / (t - t0)
            }
            _ => 0.0,
        };
        self.last = Some((t, ticks));
        let (read_bytes, write_bytes) = io(self.pid);
        self.samples.push(Sample {
            t,
            cpu_pct,
            rss_bytes: rss(self.pid).unwrap_or(0),
            read_bytes,
            write_bytes,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_this_process() {
        let mut s = Sampler::new(std::process::id());
        s.sample();
        s.sample();
        assert_eq!(s.samples.len(), 2);
        assert!(s.samples[0].rss_bytes > 0);
        assert!(s.samples[1].t >= s.samples[0].t);
    }

    #[test]
    fn a_gone_process_gives_no_sample() {
        let mut s = Sampler::new(u32::MAX - 1);
        s.sample();
        assert!(s.samples.is_empty());
    }
}
