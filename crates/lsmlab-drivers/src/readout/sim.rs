//! The FSLSM study's metrics (`sim.*`, docs/metrics.md): the seed's own definitions of read and
//! write amplification, compaction volume and latency, computed from the same counters as
//! lsmlab's figures and reported beside them, so the seed's numbers compare with their own
//! kind.

use super::formulas;
use serde::Serialize;

/// Bytes in a MiB, for the volumes.
const MB: f64 = 1_048_576.0;

/// The counters of one benchmark or phase the study's metrics need.
#[derive(Debug, Clone, Copy, Default)]
pub struct SimCounts {
    /// User key + value bytes written.
    pub user_bytes: u64,
    /// Key + value bytes returned to the user.
    pub returned_bytes: u64,
    /// Bytes flushes wrote: tables and blob files (the value log).
    pub flush_bytes: u64,
    /// Bytes flushes wrote to tables only (keys and values or value pointers).
    pub flush_table_bytes: u64,
    /// Bytes compactions wrote (tables and relocated blobs).
    pub compaction_write_bytes: u64,
    /// Bytes float-ups wrote.
    pub float_up_write_bytes: u64,
    /// Bytes read from the device by user reads, compaction, float-up, GC and flush (not the
    /// reads of table opens and recovery, which the per-probe charge replaces).
    pub device_read_bytes: u64,
    /// Tables whose key range held a get's key, over all gets.
    pub files_probed: u64,
    /// Footer + filter + index bytes of one table, averaged over the live tables at the end.
    pub table_meta_bytes: u64,
    /// Pages user reads touched.
    pub user_read_pages: u64,
    /// Data blocks gets read: probes whose filter answered "maybe".
    pub data_block_reads: u64,
    /// Pages compaction, float-up, GC and flush read.
    pub background_pages_read: u64,
    /// Pages written, every category.
    pub pages_written: u64,
    /// T_R, microseconds.
    pub t_r: f64,
    /// T_W, microseconds.
    pub t_w: f64,
}

/// The study's metrics of one benchmark or phase (`sim.*` in a plan).
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct SimFigures {
    /// `sim.read_amp`.
    pub read_amp: Option<f64>,
    /// `sim.write_amp`.
    pub write_amp: Option<f64>,
    /// `sim.major_mb`: compaction + float-up bytes written, MiB.
    pub major_mb: f64,
    /// `sim.minor_mb`: bytes flushes wrote to tables, MiB.
    pub minor_mb: f64,
    /// `sim.latency_s`.
    pub latency_s: f64,
    /// Footer + filter + index bytes charged per table probed.
    pub table_meta_bytes: u64,
}

impl SimFigures {
    /// The study's metrics of `c`.
    pub fn from_counts(c: &SimCounts) -> SimFigures {
        let major = c.compaction_write_bytes + c.float_up_write_bytes;
        SimFigures {
            read_amp: formulas::sim_read_amp(
                c.device_read_bytes,
                c.files_probed,
                c.table_meta_bytes,
                c.returned_bytes,
            ),
            write_amp: formulas::sim_write_amp(c.user_bytes, c.flush_bytes + major),
            major_mb: major as f64 / MB,
            minor_mb: c.flush_table_bytes as f64 / MB,
            latency_s: formulas::sim_latency_s(
                c.files_probed,
                c.user_read_pages,
                c.data_block_reads,
                c.background_pages_read,
                c.pages_written,
                c.t_r,
                c.t_w,
            ),
            table_meta_bytes: c.table_meta_bytes,
        }
    }

    /// The line of the lsmlab block.
    pub fn to_line(&self) -> String {
        let opt = |v: Option<f64>| v.map_or_else(|| "n/a".to_string(), |x| format!("{x:.3}"));
        format!(
            "lsmlab sim (the study's)    : read_amp {}, write_amp {}, major {:.1} MB, minor {:.1} MB, latency {:.3} s ({} bytes of footer, filter and index per table probed)",
            opt(self.read_amp),
            opt(self.write_amp),
            self.major_mb,
            self.minor_mb,
            self.latency_s,
            self.table_meta_bytes
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_figures_follow_the_formulas() {
        let f = SimFigures::from_counts(&SimCounts {
            user_bytes: 1_000,
            returned_bytes: 5_000,
            flush_bytes: 1_200,
            flush_table_bytes: 200,
            compaction_write_bytes: 500,
            float_up_write_bytes: 300,
            device_read_bytes: 10_000,
            files_probed: 100,
            table_meta_bytes: 300,
            user_read_pages: 30,
            data_block_reads: 8,
            background_pages_read: 5,
            pages_written: 20,
            t_r: 50.0,
            t_w: 200.0,
        });
        assert_eq!(f.read_amp, Some(8.0));
        assert_eq!(f.write_amp, Some(3.0));
        assert!((f.major_mb - 800.0 / MB).abs() < 1e-12);
        assert!((f.minor_mb - 200.0 / MB).abs() < 1e-12);
        // 100 probes × 4 + (30 − 8) + 5 = 427 page reads × 50 µs + 20 writes × 200 µs.
        assert!((f.latency_s - 25_350e-6).abs() < 1e-12, "{}", f.latency_s);
        assert!(f.to_line().contains("read_amp 8.000, write_amp 3.000"));
    }
}
