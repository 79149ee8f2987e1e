//! The database's `LOG`: lines a person reads to learn what the engine did, as LevelDB and
//! RocksDB keep one. Each open moves the previous `LOG` to `LOG.old` (one generation, as
//! LevelDB does) and starts a new one.
//!
//! The LOG is outside the I/O model (its bytes are not counted in any category) and a failure
//! to write a line never fails the operation that logs it.

use crate::env::{FileSystem, WritableFile};
use crate::error::Result;
use crate::filename::{info_log_path, old_info_log_path};
use parking_lot::Mutex;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// An append-only text log.
pub(crate) struct InfoLog {
    file: Mutex<Box<dyn WritableFile>>,
}

impl InfoLog {
    /// Starts a new `LOG` in `dir`, keeping the previous one as `LOG.old`.
    pub(crate) fn open(fs: &dyn FileSystem, dir: &Path) -> Result<InfoLog> {
        let path = info_log_path(dir);
        if fs.exists(&path) {
            fs.rename(&path, &old_info_log_path(dir))?;
        }
        let log = InfoLog {
            file: Mutex::new(fs.create_file(&path)?),
        };
        // RocksDB's tools (tools/benchmark.sh) take the engine's version and build from these
        // two lines by field position, so they are worded as RocksDB words them; the version
        // names lsmlab so that no report mistakes it for RocksDB.
        log.log(concat!(
            "RocksDB version: lsmlab-",
            env!("CARGO_PKG_VERSION"),
            " (this is lsmlab, not RocksDB; the line is named for RocksDB's tools)"
        ));
        log.log(concat!("Git sha ", env!("LSMLAB_GIT_SHA")));
        Ok(log)
    }

    /// Appends one line, stamped as RocksDB stamps its LOG lines: the UTC time, then an id
    /// (RocksDB's thread id; here the process id), then the message.
    pub(crate) fn log(&self, message: &str) {
        let line = format!(
            "{} {} {message}\n",
            timestamp(SystemTime::now()),
            std::process::id()
        );
        let mut f = self.file.lock();
        // Handed to the OS at once, so a process that dies right after still leaves the line.
        let _ = f.append(line.as_bytes()).and_then(|_| f.flush());
    }
}

/// `YYYY/MM/DD-HH:MM:SS.uuuuuu` in UTC.
fn timestamp(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (y, m, day) = civil_from_days((secs / 86_400) as i64);
    let s = secs % 86_400;
    format!(
        "{y:04}/{m:02}/{day:02}-{:02}:{:02}:{:02}.{:06}",
        s / 3600,
        s / 60 % 60,
        s % 60,
        d.subsec_micros()
    )
}

/// Year, month and day of the `days`-th day after 1970-01-01 (proleptic Gregorian calendar):
/// count in 400-year eras of 146,097 days, each starting on March 1 so that the leap day
/// falls at the end of a year.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468; // days from 0000-03-01 to 1970-01-01
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::MemFs;
    use std::time::Duration;

    #[test]
    fn dates_match_the_calendar() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(59), (1970, 3, 1));
        // 2000-02-29 (a leap day of a year divisible by 400) and the day after.
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(11_017), (2000, 3, 1));
        assert_eq!(civil_from_days(20_780), (2026, 11, 23));
        let t = UNIX_EPOCH + Duration::from_micros(1_795_400_000_123_456);
        assert_eq!(timestamp(t), "2026/11/23-02:13:20.123456");
    }

    #[test]
    fn each_open_keeps_the_previous_log_as_log_old() {
        let fs = MemFs::new();
        let dir = Path::new("/db");
        InfoLog::open(&fs, dir).unwrap().log("first");
        InfoLog::open(&fs, dir).unwrap().log("second");
        let now = String::from_utf8(fs.read_file_for_test(&info_log_path(dir))).unwrap();
        let old = String::from_utf8(fs.read_file_for_test(&old_info_log_path(dir))).unwrap();
        assert!(
            now.ends_with(" second\n") && !now.contains("first"),
            "{now}"
        );
        assert!(old.ends_with(" first\n"), "{old}");
    }
}
