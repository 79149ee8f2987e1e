//! One stress thread: random puts, deletes, multi-key batches, gets, scans in both directions,
//! snapshot reads, flushes and manual compactions, each read checked as it happens.
//!
//! Thread `t` of `T` alone writes the single keys `k ≡ t (mod T)` and the batch groups
//! `g ≡ t (mod T)`, so it knows exactly what its own keys must hold; every other value it reads
//! must at least be a well-formed value of its key. A batch group is three keys written in one
//! batch with one version: any consistent read sees the three equal.

use super::config::{Rng, RunConfig};
use super::expected::{ExpectedState, Slot, DELETED};
use super::values::{key, slot_of, value, version_of};
use lsmlab::{Db, ReadOptions, WriteBatch, WriteOptions};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// The key space: `singles` keys written alone, then three regions of `groups` keys each.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// Keys written alone.
    pub singles: u32,
    /// Batch groups (three keys each).
    pub groups: u32,
}

impl Layout {
    /// Slots in all.
    pub fn slots(self) -> u32 {
        self.singles + 3 * self.groups
    }
    /// The three slots of group `g`.
    pub fn group(self, g: u32) -> [u32; 3] {
        let base = self.singles + g;
        [base, base + self.groups, base + 2 * self.groups]
    }
}

/// What every thread shares.
pub struct Shared<'a> {
    /// The database under test.
    pub db: &'a Db,
    /// The expected state.
    pub expected: &'a ExpectedState,
    /// The run's options.
    pub cfg: &'a RunConfig,
    /// The key space.
    pub layout: Layout,
    /// Number of threads.
    pub threads: u32,
    /// Set to stop every thread.
    pub stop: AtomicBool,
    /// Operations done.
    pub ops: AtomicU64,
    /// Writes acknowledged.
    pub acked: AtomicU64,
    /// Violations found (the first few kept in full).
    pub violations: AtomicU64,
    /// The first violations' descriptions.
    pub first: Mutex<Vec<String>>,
}

impl Shared<'_> {
    /// Records a violation.
    pub fn violation(&self, what: String) {
        self.violations.fetch_add(1, Ordering::Relaxed);
        let mut v = self.first.lock().unwrap_or_else(|e| e.into_inner());
        if v.len() < 20 {
            v.push(what);
        }
    }

    fn found(&self, k: u32, v: Option<Vec<u8>>) -> Result<u32, String> {
        match v {
            None => Ok(0),
            Some(v) => version_of(k, &v, self.cfg.max_value_len),
        }
    }
}

fn describe(state: u32) -> String {
    match Slot::live(state) {
        Some(v) => format!("version {v}"),
        None if state == 0 => "never written".into(),
        None => format!("deleted (version {})", state & !DELETED),
    }
}

/// Runs thread `t` until `stop` is set or `max_ops` operations are done; an engine error ends
/// the thread and is returned.
pub fn run(sh: &Shared<'_>, t: u32, seed: u64, max_ops: u64) -> Result<(), String> {
    let mut rng = Rng::new(seed ^ (u64::from(t) + 1).wrapping_mul(0x9e37_79b9));
    let own_singles = (sh.layout.singles + sh.threads - 1 - t) / sh.threads;
    let own_groups = (sh.layout.groups + sh.threads - 1 - t) / sh.threads;
    let mut done = 0u64;
    let engine = |e: lsmlab::Error| e.to_string();
    while done < max_ops && !sh.stop.load(Ordering::Relaxed) {
        let dice = rng.below(1000);
        let sync = rng.chance(sh.cfg.sync_fraction);
        let wo = WriteOptions {
            sync,
            ..Default::default()
        };
        match dice {
            // put or delete of an own single key
            0..=449 if own_singles > 0 => {
                let k = t + sh.threads * rng.below(u64::from(own_singles)) as u32;
                let ver = sh.expected.get(k).next_version();
                let state = if dice >= 350 { ver | DELETED } else { ver };
                tracked_write(sh, &[k], state, &wo)?;
            }
            // an atomic batch over an own group
            450..=549 if own_groups > 0 => {
                let g = t + sh.threads * rng.below(u64::from(own_groups)) as u32;
                let slots = sh.layout.group(g);
                let ver = slots
                    .iter()
                    .map(|&k| sh.expected.get(k).next_version())
                    .max()
                    .unwrap_or(1);
                let state = if rng.chance(0.1) { ver | DELETED } else { ver };
                tracked_write(sh, &slots, state, &wo)?;
            }
            // get of any key: own keys exactly, others well-formed
            550..=799 => {
                let k = rng.below(u64::from(sh.layout.slots())) as u32;
                let got = sh.db.get(&key(k)).map_err(engine)?;
                let owned = if k < sh.layout.singles {
                    k % sh.threads == t
                } else {
                    (k - sh.layout.singles) % sh.layout.groups % sh.threads == t
                };
                match sh.found(k, got) {
                    Err(why) => sh.violation(format!("get slot {k}: {why}")),
                    Ok(ver) if owned => {
                        let want = sh.expected.get(k).committed;
                        if Slot::live(want).unwrap_or(0) != ver {
                            sh.violation(format!(
                                "get slot {k} (own): expected {}, found {}",
                                describe(want),
                                if ver == 0 {
                                    "nothing".into()
                                } else {
                                    format!("version {ver}")
                                }
                            ));
                        }
                    }
                    Ok(_) => {}
                }
            }
            // a group read through a snapshot: all three equal
            800..=869 if sh.layout.groups > 0 => {
                let g = rng.below(u64::from(sh.layout.groups)) as u32;
                let snap = sh.db.snapshot();
                let ro = ReadOptions {
                    snapshot: Some(snap),
                    ..Default::default()
                };
                let mut vers = [0u32; 3];
                for (i, &k) in sh.layout.group(g).iter().enumerate() {
                    match sh.found(k, sh.db.get_with(&ro, &key(k)).map_err(engine)?) {
                        Ok(v) => vers[i] = v,
                        Err(why) => sh.violation(format!("group {g} slot {k}: {why}")),
                    }
                }
                if vers[0] != vers[1] || vers[1] != vers[2] {
                    sh.violation(format!(
                        "torn batch: group {g} reads versions {vers:?} through one snapshot"
                    ));
                }
            }
            // a scan of up to 30 entries, forward or backward
            870..=949 => scan(sh, t, &mut rng)?,
            // a snapshot held across own writes still reads the old values
            950..=989 if own_singles > 0 => {
                let k = t + sh.threads * rng.below(u64::from(own_singles)) as u32;
                let before = sh.expected.get(k).committed;
                let snap = sh.db.snapshot();
                let ver = sh.expected.get(k).next_version();
                tracked_write(sh, &[k], ver, &WriteOptions::default())?;
                if rng.chance(0.2) {
                    sh.db.flush().map_err(engine)?;
                }
                let ro = ReadOptions {
                    snapshot: Some(snap),
                    ..Default::default()
                };
                match sh.found(k, sh.db.get_with(&ro, &key(k)).map_err(engine)?) {
                    Ok(v) if v == Slot::live(before).unwrap_or(0) => {}
                    Ok(v) => sh.violation(format!(
                        "snapshot read of slot {k}: expected {}, found version {v}",
                        describe(before)
                    )),
                    Err(why) => sh.violation(format!("snapshot read of slot {k}: {why}")),
                }
            }
            990..=995 => sh.db.flush().map_err(engine)?,
            996..=999 => {
                let a = rng.below(u64::from(sh.layout.slots())) as u32;
                let b = a.saturating_add(rng.below(2000) as u32);
                sh.db
                    .compact_range(Some(&key(a)), Some(&key(b)))
                    .map_err(engine)?;
            }
            _ => continue,
        }
        done += 1;
        sh.ops.fetch_add(1, Ordering::Relaxed);
        if done.is_multiple_of(8) {
            sh.expected.add_ops(t as usize, 8);
        }
    }
    sh.expected.add_ops(t as usize, done % 8);
    Ok(())
}

/// Sets every slot of `slots` to `state` (a version, or a deletion) in one batch: recorded as
/// pending first, as committed once the write is acknowledged.
fn tracked_write(
    sh: &Shared<'_>,
    slots: &[u32],
    state: u32,
    wo: &WriteOptions,
) -> Result<(), String> {
    let mut b = WriteBatch::new();
    for &k in slots {
        let old = sh.expected.get(k);
        sh.expected
            .set(
                k,
                Slot {
                    committed: old.committed,
                    pending: state,
                },
            )
            .map_err(|e| e.0)?;
        match Slot::live(state) {
            Some(ver) => b.put(&key(k), &value(k, ver, sh.cfg.max_value_len)),
            None => b.delete(&key(k)),
        }
    }
    sh.db.write(wo, b).map_err(|e| e.to_string())?;
    for &k in slots {
        sh.expected
            .set(
                k,
                Slot {
                    committed: state,
                    pending: 0,
                },
            )
            .map_err(|e| e.0)?;
    }
    sh.acked.fetch_add(1, Ordering::Relaxed);
    Ok(())
}

/// A scan: keys strictly ordered, every value well-formed, and own single keys in the scanned
/// range present exactly as expected.
fn scan(sh: &Shared<'_>, t: u32, rng: &mut Rng) -> Result<(), String> {
    let start = rng.below(u64::from(sh.layout.slots())) as u32;
    let forward = rng.chance(0.5);
    let mut it = sh
        .db
        .iter(&ReadOptions::default())
        .map_err(|e| e.to_string())?;
    if forward {
        it.seek(&key(start));
    } else {
        it.seek(&key(start));
        if !it.valid() {
            it.seek_to_last();
        }
    }
    let mut seen: Vec<u32> = Vec::new();
    while it.valid() && seen.len() < 30 {
        let Some(k) = slot_of(it.key()) else {
            sh.violation(format!(
                "scan found a key lsmlab stress never wrote: {:?}",
                it.key()
            ));
            break;
        };
        if let Some(&prev) = seen.last() {
            if (forward && k <= prev) || (!forward && k >= prev) {
                sh.violation(format!("scan out of order: slot {k} after {prev}"));
            }
        }
        if let Err(why) = version_of(k, it.value(), sh.cfg.max_value_len) {
            sh.violation(format!("scan slot {k}: {why}"));
        }
        seen.push(k);
        if forward {
            it.next()
        } else {
            it.prev()
        }
    }
    it.status().map_err(|e| e.to_string())?;
    let (Some(&a), Some(&b)) = (seen.first(), seen.last()) else {
        return Ok(());
    };
    let (lo, hi) = (a.min(b), a.max(b));
    for k in lo..=hi.min(sh.layout.singles.saturating_sub(1)) {
        if k % sh.threads != t {
            continue;
        }
        let want = Slot::live(sh.expected.get(k).committed).is_some();
        if want != seen.contains(&k) {
            sh.violation(format!(
                "scan {} slots {lo}..={hi}: own slot {k} {}",
                if forward { "forward" } else { "backward" },
                if want {
                    "is missing"
                } else {
                    "is present though deleted"
                }
            ));
        }
    }
    Ok(())
}

/// Reads every key after a reopen: each must hold its committed state, or its pending one if
/// a write was in flight when the process died (which then becomes committed). Returns the
/// number of keys holding a value.
pub fn verify_all(
    db: &Db,
    expected: &ExpectedState,
    cfg: &RunConfig,
    layout: Layout,
    violations: &mut Vec<String>,
) -> Result<u64, String> {
    let mut live = 0;
    for k in 0..layout.slots() {
        let s = expected.get(k);
        let got = db.get(&key(k)).map_err(|e| e.to_string())?;
        let ver = match got {
            None => 0,
            Some(v) => match version_of(k, &v, cfg.max_value_len) {
                Ok(ver) => ver,
                Err(why) => {
                    violations.push(format!("slot {k}: {why}"));
                    continue;
                }
            },
        };
        let matches = |state: u32| Slot::live(state).unwrap_or(0) == ver;
        let now = if matches(s.committed) {
            s.committed
        } else if s.pending != 0 && matches(s.pending) {
            s.pending
        } else {
            violations.push(format!(
                "slot {k}: expected {}{}, found {}",
                describe(s.committed),
                if s.pending != 0 {
                    format!(" or {}", describe(s.pending))
                } else {
                    String::new()
                },
                if ver == 0 {
                    "nothing".into()
                } else {
                    format!("version {ver}")
                }
            ));
            continue;
        };
        live += u64::from(ver != 0);
        if s.pending != 0 || now != s.committed {
            expected
                .set(
                    k,
                    Slot {
                        committed: now,
                        pending: 0,
                    },
                )
                .map_err(|e| e.0)?;
        }
    }
    for g in 0..layout.groups {
        let states: Vec<u32> = layout
            .group(g)
            .iter()
            .map(|&k| Slot::live(expected.get(k).committed).unwrap_or(0))
            .collect();
        if states[0] != states[1] || states[1] != states[2] {
            violations.push(format!(
                "torn batch after recovery: group {g} holds versions {states:?}"
            ));
        }
    }
    Ok(live)
}
