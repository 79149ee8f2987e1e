//! The pace of writes while level 0 or the compaction debt is over its slowdown trigger.
//!
//! RocksDB holds writers to `delayed_write_rate` (16 MiB/s by default) from the first table
//! over the trigger, adjusting it down as the pressure grows and back up, never above that
//! rate. On a device that takes hundreds of MB/s, writes then crawl at a tenth of what
//! compaction absorbs while level 0 still has room: at seed 000's shape with 16 KB values,
//! writers spent 3 of a 7-second fill in such delays, and level 0 never came near its stop
//! trigger. Here the pace starts at the rate writes came in before the slowdown and is cut by a
//! fifth each time the pressure rises (a table more in level 0, more debt), raised by a quarter
//! when it falls, and never goes below `delayed_write_rate`: the writers settle near the rate
//! compaction drains, and the floor is reached only if the pressure keeps rising.

use std::time::{Duration, Instant};

/// Granularity of delays: writers pay their debt in sleeps of at least this long, since
/// shorter sleeps cost more in wake-up latency than they wait.
const QUANTUM: Duration = Duration::from_millis(1);
/// Factor the pace is cut by when the pressure rises (RocksDB's `kIncSlowdownRatio`).
const CUT: f64 = 0.8;
/// Factor the pace is raised by when the pressure falls (RocksDB's `kDecSlowdownRatio`).
const RAISE: f64 = 1.25;

/// The writers' pace; one per database, kept with the WAL state (writers hold its lock).
#[derive(Debug, Default)]
pub(crate) struct WritePacer {
    /// Bytes written while slowed and not yet paid for by a delay.
    debt: u64,
    /// The allowed rate in bytes per second; 0 while writes are not slowed.
    rate: u64,
    /// The pressure (level-0 tables or debt bytes) when the rate was last set.
    pressure: u64,
    /// Bytes per second written between the last two memtable switches outside a slowdown;
    /// 0 before there were two.
    ingest_rate: u64,
    /// When the memtable last switched outside a slowdown.
    last_switch: Option<Instant>,
}

impl WritePacer {
    /// Notes that a memtable of `bytes` was switched out at `now`, `full` or forced (a flush
    /// asked for): between switches of full memtables outside a slowdown, this measures how
    /// fast writes come in.
    pub(crate) fn memtable_switched(&mut self, bytes: u64, now: Instant, full: bool) {
        if self.rate > 0 || !full {
            // A slowed writer measures its own pace, not demand; a forced switch cuts the
            // interval short.
            self.last_switch = None;
            return;
        }
        if let Some(last) = self.last_switch {
            let secs = now.duration_since(last).as_secs_f64();
            if secs > 0.0 {
                self.ingest_rate = (bytes as f64 / secs) as u64;
            }
        }
        self.last_switch = Some(now);
    }

    /// Writes are not slowed (the pressure is below its trigger).
    pub(crate) fn release(&mut self) {
        self.debt = 0;
        self.rate = 0;
    }

    /// A write of `bytes` under `pressure` (at or over its trigger), with `floor` the slowest
    /// pace allowed: how long the writer must sleep now, if at all.
    pub(crate) fn delay(&mut self, bytes: u64, pressure: u64, floor: u64) -> Option<Duration> {
        let floor = floor.max(1);
        if self.rate == 0 {
            self.rate = self.ingest_rate.max(floor);
            self.pressure = pressure;
        } else if pressure > self.pressure {
            self.rate = ((self.rate as f64 * CUT) as u64).max(floor);
            self.pressure = pressure;
        } else if pressure < self.pressure {
            let cap = self.ingest_rate.max(floor);
            self.rate = ((self.rate as f64 * RAISE) as u64).min(cap);
            self.pressure = pressure;
        }
        self.debt += bytes;
        let quantum_bytes = self.rate as u128 * QUANTUM.as_micros() / 1_000_000;
        if (self.debt as u128) < quantum_bytes.max(1) {
            return None;
        }
        let micros = self.debt as u128 * 1_000_000 / self.rate as u128;
        self.debt = 0;
        Some(Duration::from_micros(micros as u64))
    }

    /// The allowed rate in bytes per second; 0 while writes are not slowed.
    #[cfg(test)]
    fn rate(&self) -> u64 {
        self.rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: u64 = 1 << 20;

    /// A pacer that saw writes come in at `rate` bytes per second.
    fn measured(rate: u64) -> WritePacer {
        let mut p = WritePacer::default();
        let t = Instant::now();
        p.memtable_switched(8 * MB, t, true);
        p.memtable_switched(
            8 * MB,
            t + Duration::from_secs_f64(8.0 * MB as f64 / rate as f64),
            true,
        );
        p
    }

    #[test]
    fn a_slowdown_starts_at_the_rate_writes_came_in() {
        let mut p = measured(200 * MB);
        p.delay(16 * 1024, 20, 16 * MB);
        let r = p.rate();
        assert!(r.abs_diff(200 * MB) < MB, "{r}");
    }

    #[test]
    fn without_a_measured_rate_a_slowdown_starts_at_the_floor() {
        let mut p = WritePacer::default();
        p.delay(16 * 1024, 20, 16 * MB);
        assert_eq!(p.rate(), 16 * MB);
    }

    #[test]
    fn rising_pressure_cuts_the_pace_down_to_the_floor_and_falling_pressure_raises_it() {
        let mut p = measured(100 * MB);
        p.delay(1, 20, 16 * MB);
        let start = p.rate();
        p.delay(1, 21, 16 * MB);
        assert_eq!(p.rate(), (start as f64 * 0.8) as u64);
        // The same pressure leaves the pace alone.
        p.delay(1, 21, 16 * MB);
        assert_eq!(p.rate(), (start as f64 * 0.8) as u64);
        for l0 in 22..40 {
            p.delay(1, l0, 16 * MB);
        }
        assert_eq!(p.rate(), 16 * MB, "never below the floor");
        p.delay(1, 30, 16 * MB);
        assert_eq!(p.rate(), 20 * MB);
        for l0 in (20..30).rev() {
            p.delay(1, l0, 16 * MB);
        }
        assert_eq!(p.rate(), start, "never above the rate writes came in");
    }

    #[test]
    fn the_debt_is_paid_in_sleeps_of_a_quantum_or_more_at_the_pace() {
        let mut p = WritePacer::default();
        // At 16 MiB/s a quantum of 1 ms is 16,777 bytes: the first 16 KiB write sleeps not.
        assert_eq!(p.delay(16 * 1024, 20, 16 * MB), None);
        let d = p.delay(16 * 1024, 20, 16 * MB).unwrap();
        // 32 KiB at 16 MiB/s: 1,953 µs.
        assert_eq!(d, Duration::from_micros(32 * 1024 * 1_000_000 / (16 * MB)));
        p.release();
        assert_eq!(p.rate(), 0);
        assert_eq!(
            p.delay(16 * 1024, 20, 16 * MB),
            None,
            "the debt went with the release"
        );
    }

    #[test]
    fn forced_switches_do_not_count_as_demand() {
        let mut p = WritePacer::default();
        let t = Instant::now();
        // A flush forced after a few bytes, then a full memtable soon after.
        p.memtable_switched(1000, t, false);
        p.memtable_switched(8 * MB, t + Duration::from_millis(1), true);
        p.delay(1, 20, 16 * MB);
        assert_eq!(
            p.rate(),
            16 * MB,
            "no interval between two full switches yet"
        );
    }

    #[test]
    fn switches_during_a_slowdown_do_not_count_as_demand() {
        let mut p = measured(200 * MB);
        p.delay(1, 20, 16 * MB);
        let t = Instant::now();
        // Two slow switches while slowed, then the slowdown ends.
        p.memtable_switched(8 * MB, t, true);
        p.memtable_switched(8 * MB, t + Duration::from_secs(1), true);
        p.release();
        p.delay(1, 20, 16 * MB);
        assert!(p.rate().abs_diff(200 * MB) < MB, "{}", p.rate());
    }
}
