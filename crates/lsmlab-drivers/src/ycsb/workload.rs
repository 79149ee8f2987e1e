//! YCSB's CoreWorkload: what each load insert and each run transaction does, with the key
//! choosers, operation mix, scan lengths and insert numbering of `site.ycsb.workloads.CoreWorkload`.
//!
//! A record of `fieldcount` fields of `fieldlength` bytes is stored as one value, encoded as
//! YCSB's RocksDB binding encodes it (per field: name length u32 BE, name, value length u32 BE,
//! value). An update writes a whole new record (a blind put: the LSM study measures writes, not
//! YCSB's read-merge-write of single fields); read-modify-write reads, then writes the record.

use super::generator::{
    AcknowledgedCounter, Counter, Discrete, Hotspot, ScrambledZipfian, SkewedLatest, Uniform,
    Zipfian, ZIPFIAN_CONSTANT,
};
use super::keys::build_key_name;
use super::measure::{Measurements, Op};
use super::properties::Properties;
use super::random::YcsbRandom;
use crate::engine::{Store, Writer};
use crate::error::{CliError, CliResult};
use std::time::Instant;

/// How request keys are chosen (`requestdistribution`).
#[derive(Debug, Clone)]
enum KeyChooser {
    Uniform(Uniform),
    Zipfian(ScrambledZipfian),
    Latest(SkewedLatest),
    Hotspot(Hotspot),
}

/// How scan lengths are chosen (`scanlengthdistribution`).
#[derive(Debug, Clone)]
enum ScanLength {
    Uniform(Uniform),
    Zipfian(Zipfian),
}

/// The longest key the driver makes, in bytes: 64 KiB, fjall's key limit (lsmlab's own is
/// far larger, but a workload must run unchanged on every engine the driver has, and a key of
/// megabytes measures the allocator, not the tree).
pub const KEY_LIMIT: u64 = 65_536;

/// The workload of one YCSB run, shared by its client threads.
pub struct CoreWorkload {
    /// Records loaded (`recordcount`).
    pub record_count: u64,
    /// Transactions of the run phase (`operationcount`).
    pub operation_count: u64,
    /// First key number of this loader (`insertstart`).
    pub insert_start: u64,
    /// Records this loader inserts (`insertcount`).
    pub insert_count: u64,
    /// Fields per record.
    pub field_count: usize,
    /// Bytes per field.
    pub field_length: usize,
    /// `insertorder=ordered`.
    pub ordered: bool,
    /// Digits of a key number, left-padded with zeros (`zeropadding`).
    pub zero_padding: usize,
    /// Client threads (`threadcount`).
    pub thread_count: usize,
    /// Seed of the client threads' generators (`lsmlab.seed`).
    pub seed: u64,
    ops: Discrete<Op>,
    key_chooser: KeyChooser,
    scan_length: ScanLength,
    /// `scanmethod=gets`: a scan is point gets on consecutive key numbers (the FSLSM study's
    /// scan), not an iterator.
    scan_gets: bool,
    /// Key numbers of the load phase.
    key_sequence: Counter,
    /// Key numbers of the run phase's inserts.
    insert_sequence: AcknowledgedCounter,
}

impl CoreWorkload {
    /// The workload the properties describe (CoreWorkload's defaults for the rest).
    pub fn from_properties(p: &Properties) -> CliResult<CoreWorkload> {
        let record_count = p.u64("recordcount", 0)?;
        let operation_count = p.u64("operationcount", 0)?;
        let insert_start = p.u64("insertstart", 0)?;
        let insert_count = p.u64("insertcount", record_count.saturating_sub(insert_start))?;
        // Key numbers stay far below u64::MAX so that ranges and sums cannot overflow.
        const MAX_COUNT: u64 = 1 << 48;
        for (name, v) in [
            ("recordcount", record_count),
            ("operationcount", operation_count),
            ("insertstart", insert_start),
            ("insertcount", insert_count),
        ] {
            if v > MAX_COUNT {
                return Err(CliError::new(format!(
                    "property {name}: invalid value {v}: must be at most {MAX_COUNT}"
                )));
            }
        }
        // CoreWorkload refuses an insert range past the records: the run would read keys
        // never loaded, and a huge range runs on without end.
        if insert_start + insert_count > record_count {
            let name = if p.get("insertcount").is_some() {
                "insertcount"
            } else {
                "insertstart"
            };
            return Err(CliError::new(format!(
                "property {name}: insertstart ({insert_start}) + insertcount ({insert_count}) must be at most recordcount ({record_count})"
            )));
        }
        let field_count = p.u64("fieldcount", 10)? as usize;
        let field_length = p.u64("fieldlength", 100)? as usize;
        if field_count > 1 << 16 || field_length > 1 << 26 {
            return Err(CliError::new(format!(
                "properties fieldcount/fieldlength: {field_count} fields of {field_length} bytes is too large (at most 65536 fields, 64 MiB each)"
            )));
        }
        p.choice("fieldlengthdistribution", "constant", &["constant"])
            .map_err(|e| {
                CliError::new(format!(
                    "{e} (uniform and zipfian field lengths are not supported yet)"
                ))
            })?;
        let read = p.f64_in("readproportion", 0.95, 0.0, 1.0)?;
        let update = p.f64_in("updateproportion", 0.05, 0.0, 1.0)?;
        let insert = p.f64_in("insertproportion", 0.0, 0.0, 1.0)?;
        let scan = p.f64_in("scanproportion", 0.0, 0.0, 1.0)?;
        let rmw = p.f64_in("readmodifywriteproportion", 0.0, 0.0, 1.0)?;
        let dist = p.choice(
            "requestdistribution",
            "uniform",
            &["uniform", "zipfian", "latest", "hotspot"],
        )?;
        let min_scan = p.u64("minscanlength", 1)?.max(1);
        let max_scan = p.u64("maxscanlength", 1000)?;
        if max_scan < min_scan {
            return Err(CliError::new(format!(
                "property maxscanlength: invalid value {max_scan}: must be at least minscanlength ({min_scan})"
            )));
        }
        let scan_dist = p.choice("scanlengthdistribution", "uniform", &["uniform", "zipfian"])?;
        let scan_gets = p.choice("scanmethod", "iterator", &["iterator", "gets"])? == "gets";
        let order = p.choice("insertorder", "hashed", &["hashed", "ordered"])?;
        let zero_padding = p.u64("zeropadding", 1)?;
        // The longest key: `user` and the number padded (a hashed number has up to 19 digits).
        let key_len = zero_padding.max(19).saturating_add(4);
        if key_len > KEY_LIMIT {
            return Err(CliError::new(format!(
                "property zeropadding: invalid value {zero_padding}: keys of {key_len} bytes exceed the driver's key limit of {KEY_LIMIT} bytes"
            )));
        }
        let zero_padding = zero_padding as usize;
        let hot_set = p.f64_in("hotspotdatafraction", 0.2, 0.0, 1.0)?;
        let hot_opn = p.f64_in("hotspotopnfraction", 0.8, 0.0, 1.0)?;
        let thread_count = p.u64("threadcount", 1)? as usize;
        if !(1..=1024).contains(&thread_count) {
            return Err(CliError::new(format!(
                "property threadcount: invalid value {thread_count}: must be in 1..=1024"
            )));
        }
        let seed = p.u64("lsmlab.seed", 0x5EED)?;
        let ops = Discrete::new(vec![
            (read, Op::Read),
            (update, Op::Update),
            (insert, Op::Insert),
            (scan, Op::Scan),
            (rmw, Op::ReadModifyWrite),
        ]);
        let last = insert_start + insert_count;
        let key_chooser = match dist.as_str() {
            "uniform" => {
                KeyChooser::Uniform(Uniform::new(insert_start, last.max(insert_start + 1) - 1))
            }
            "zipfian" => {
                // Room for the keys the run will insert (YCSB's fudge factor of 2).
                let expected_new = (operation_count as f64 * insert * 2.0) as u64;
                KeyChooser::Zipfian(ScrambledZipfian::new(
                    insert_start,
                    insert_start + insert_count + expected_new,
                ))
            }
            "latest" => KeyChooser::Latest(SkewedLatest::new(record_count.max(1) - 1)),
            _ => KeyChooser::Hotspot(Hotspot::new(
                insert_start,
                last.max(insert_start + 1) - 1,
                hot_set,
                hot_opn,
            )),
        };
        let scan_length = if scan_dist == "uniform" {
            ScanLength::Uniform(Uniform::new(min_scan, max_scan))
        } else {
            ScanLength::Zipfian(Zipfian::new(min_scan, max_scan, ZIPFIAN_CONSTANT))
        };
        Ok(CoreWorkload {
            record_count,
            operation_count,
            insert_start,
            insert_count,
            field_count,
            field_length,
            ordered: order == "ordered",
            zero_padding,
            thread_count,
            seed,
            ops,
            key_chooser,
            scan_length,
            scan_gets,
            key_sequence: Counter::new(insert_start),
            insert_sequence: AcknowledgedCounter::new(record_count),
        })
    }

    /// True when the run phase has no operation to choose.
    pub fn has_no_operations(&self) -> bool {
        self.ops.is_empty()
    }

    /// A client for thread `tid`.
    pub fn client<'a>(&'a self, db: &'a dyn Store, tid: usize) -> Client<'a> {
        Client {
            w: self,
            db,
            writer: db.writer(),
            read_buf: Vec::new(),
            rng: YcsbRandom::new(self.seed.wrapping_add(tid as u64 * 0x9E37_79B9)),
            keys: self.key_chooser.clone(),
            scan: self.scan_length.clone(),
            value: Vec::new(),
            measurements: Measurements::default(),
            bytes_written: 0,
            bytes_returned: 0,
        }
    }
}

/// One client thread: its generators and what it measured.
pub struct Client<'a> {
    w: &'a CoreWorkload,
    db: &'a dyn Store,
    writer: Box<dyn Writer + 'a>,
    read_buf: Vec<u8>,
    rng: YcsbRandom,
    keys: KeyChooser,
    scan: ScanLength,
    value: Vec<u8>,
    /// Latencies and return codes per operation.
    pub measurements: Measurements,
    /// Key + value bytes written.
    pub bytes_written: u64,
    /// Key + value bytes read back.
    pub bytes_returned: u64,
}

fn engine(op: Op, e: CliError) -> CliError {
    CliError::new(format!("{}: {e}", op.name()))
}

impl Client<'_> {
    /// Fills `self.value` with a fresh record.
    fn build_record(&mut self) {
        self.value.clear();
        for f in 0..self.w.field_count {
            let name = format!("field{f}");
            self.value
                .extend_from_slice(&(name.len() as u32).to_be_bytes());
            self.value.extend_from_slice(name.as_bytes());
            self.value
                .extend_from_slice(&(self.w.field_length as u32).to_be_bytes());
            let mut left = self.w.field_length;
            while left > 0 {
                let bits = self.rng.next_u64().to_le_bytes();
                for &b in bits.iter().take(left) {
                    // Printable ASCII, as YCSB's RandomByteIterator.
                    self.value.push(b' ' + b % 95);
                }
                left = left.saturating_sub(8);
            }
        }
    }

    /// CoreWorkload's `nextKeynum`: drawn until it names an acknowledged record.
    fn next_keynum(&mut self) -> u64 {
        let end = self.w.insert_sequence.acknowledged_end();
        for _ in 0..10_000 {
            let k = match &mut self.keys {
                KeyChooser::Uniform(u) => u.next(&mut self.rng),
                KeyChooser::Zipfian(z) => z.next(&mut self.rng),
                KeyChooser::Latest(l) => l.next(end.saturating_sub(1), &mut self.rng),
                KeyChooser::Hotspot(h) => h.next(&mut self.rng),
            };
            if k < end {
                return k;
            }
        }
        // A chooser that keeps missing the acknowledged range (a tiny key space): fall back
        // to uniform over it rather than spin.
        self.rng.next_nonneg() % end.max(1)
    }

    fn key(&self, keynum: u64) -> String {
        build_key_name(keynum, self.w.ordered, self.w.zero_padding)
    }

    /// The key of the next chosen existing record.
    fn next_key(&mut self) -> String {
        let keynum = self.next_keynum();
        self.key(keynum)
    }

    fn timed<T>(
        &mut self,
        op: Op,
        f: impl FnOnce(&mut Self) -> CliResult<(T, &'static str)>,
    ) -> CliResult<T> {
        let start = Instant::now();
        let (v, status) = f(self)?;
        self.measurements
            .record(op, start.elapsed().as_nanos() as u64, status);
        Ok(v)
    }

    fn put(&mut self, op: Op, key: &str) -> CliResult<()> {
        self.build_record();
        let value = std::mem::take(&mut self.value);
        let r = self.timed(op, |c| {
            c.writer.put(key.as_bytes(), &value);
            c.writer.commit().map_err(|e| engine(op, e))?;
            Ok(((), "OK"))
        });
        self.bytes_written += (key.len() + value.len()) as u64;
        self.value = value;
        r
    }

    fn read(&mut self, key: &str) -> CliResult<()> {
        self.timed(Op::Read, |c| {
            let found =
                c.db.get(key.as_bytes(), &mut c.read_buf)
                    .map_err(|e| engine(Op::Read, e))?;
            if found {
                c.bytes_returned += (key.len() + c.read_buf.len()) as u64;
                Ok(((), "OK"))
            } else {
                Ok(((), "NOT_FOUND"))
            }
        })
    }

    /// One insert of the load phase.
    pub fn do_insert(&mut self) -> CliResult<()> {
        let keynum = self.w.key_sequence.next();
        let key = self.key(keynum);
        self.put(Op::Insert, &key)
    }

    /// One transaction of the run phase.
    pub fn do_transaction(&mut self) -> CliResult<()> {
        let Some(op) = self.w.ops.next(&mut self.rng) else {
            return Ok(());
        };
        match op {
            Op::Read => {
                let key = self.next_key();
                self.read(&key)
            }
            Op::Update => {
                let key = self.next_key();
                self.put(Op::Update, &key)
            }
            Op::Insert => {
                let keynum = self.w.insert_sequence.next();
                let key = self.key(keynum);
                let r = self.put(Op::Insert, &key);
                self.w.insert_sequence.acknowledge(keynum);
                r
            }
            Op::Scan if self.w.scan_gets => {
                let first = self.next_keynum();
                let len = match &mut self.scan {
                    ScanLength::Uniform(u) => u.next(&mut self.rng),
                    ScanLength::Zipfian(z) => z.next(&mut self.rng),
                };
                // Up to `len` records from the chosen one on, by key number (the keys are
                // hashed, so not in key order), each a point get; numbers past the last
                // record are not asked.
                let end = self.w.insert_sequence.acknowledged_end();
                let last = first.saturating_add(len).min(end);
                self.timed(Op::Scan, |c| {
                    for keynum in first..last {
                        let key = c.key(keynum);
                        let found =
                            c.db.get(key.as_bytes(), &mut c.read_buf)
                                .map_err(|e| engine(Op::Scan, e))?;
                        if found {
                            c.bytes_returned += (key.len() + c.read_buf.len()) as u64;
                        }
                    }
                    Ok(((), "OK"))
                })
            }
            Op::Scan => {
                let key = self.next_key();
                let len = match &mut self.scan {
                    ScanLength::Uniform(u) => u.next(&mut self.rng),
                    ScanLength::Zipfian(z) => z.next(&mut self.rng),
                };
                self.timed(Op::Scan, |c| {
                    let mut it = c.db.iter().map_err(|e| engine(Op::Scan, e))?;
                    it.seek(key.as_bytes());
                    let mut n = 0;
                    while n < len && it.valid() {
                        c.bytes_returned += (it.key().len() + it.value().len()) as u64;
                        it.next();
                        n += 1;
                    }
                    it.status().map_err(|e| engine(Op::Scan, e))?;
                    Ok(((), "OK"))
                })
            }
            Op::ReadModifyWrite => {
                let key = self.next_key();
                let start = Instant::now();
                self.read(&key)?;
                self.put(Op::Update, &key)?;
                self.measurements.record(
                    Op::ReadModifyWrite,
                    start.elapsed().as_nanos() as u64,
                    "OK",
                );
                Ok(())
            }
        }
    }
}
