//! Every call returns: a soak of every layout (leveled, universal, FSLSM with and without blob
//! files, both victim rules), with background work on threads and done by the calling threads.
//!
//! Per configuration, epochs of: two writers (puts, deletes, batches, flushes, manual
//! compactions, snapshots published with a copy of their model), each the only writer of its
//! own keys so that its gets are checked exactly; a reader of the published snapshots (gets,
//! scans both ways, an iterator held across many calls). Between epochs the database is closed
//! and reopened and scanned whole against the model. A watchdog fails the run, naming the call,
//! its thread and the tree's state, when any call takes longer than `LSMLAB_SOAK_BOUND_SECS`
//! (default 10 s).
//!
//! `LSMLAB_SOAK_SECS` sets the seconds per configuration (default 2); `scripts/soak.sh
//! DURATION` runs it for longer and prints each configuration's figures.

mod common;

use common::*;
use lsmlab::env::MemFs;
use lsmlab::{CompactionVictims, Db, Options, ReadOptions, Ticker, WriteBatch};
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// Keys per writer: few enough that hot keys repeat, enough for several levels.
const KEYS_PER_WRITER: u64 = 1500;
const WRITERS: u64 = 2;
/// Snapshots a reader may pick from; older ones are released.
const PUBLISHED: usize = 4;

fn env_secs(name: &str, default: f64) -> f64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A small xorshift generator: the soak's choices, reproducible from the thread's seed.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// A skewed draw in `0..n`: most fall on the first tenth.
    fn skewed(&mut self, n: u64) -> u64 {
        let r = self.below(1000);
        r * r / 1000 * n / 1000
    }
}

fn soak_key(writer: u64, i: u64) -> Vec<u8> {
    format!("k{:06}", i * WRITERS + writer).into_bytes()
}

fn soak_value(key: &[u8], version: u64, rng: &mut Rng) -> Vec<u8> {
    let mut v = format!("{}:{version}:", String::from_utf8_lossy(key)).into_bytes();
    let len = 20 + rng.below(300) as usize;
    v.resize(len, b'a' + (version % 26) as u8);
    v
}

/// A thread's name, and the call it is in with when it began.
type Slot = (String, Option<(&'static str, Instant)>);

/// The call each thread is in, and since when: the watchdog reads them.
#[derive(Default)]
struct Calls {
    slots: Mutex<Vec<Slot>>,
    made: AtomicU64,
    longest_micros: AtomicU64,
}

impl Calls {
    fn slot(&self, thread: &str) -> usize {
        let mut s = self.slots.lock();
        s.push((thread.to_string(), None));
        s.len() - 1
    }

    /// Runs `f` as the call `name` of thread `slot`.
    fn call<T>(&self, slot: usize, name: &'static str, f: impl FnOnce() -> T) -> T {
        /// Clears the slot however the call ends: a failed check must fail the test, not
        /// look to the watchdog like a call that never returned.
        struct Done<'a>(&'a Calls, usize);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                self.0.slots.lock()[self.1].1 = None;
            }
        }
        let t = Instant::now();
        self.slots.lock()[slot].1 = Some((name, t));
        let done = Done(self, slot);
        let r = f();
        drop(done);
        self.made.fetch_add(1, Ordering::Relaxed);
        self.longest_micros
            .fetch_max(t.elapsed().as_micros() as u64, Ordering::Relaxed);
        r
    }

    /// The call past `bound`, if any: its thread, its name and how long it has run.
    fn overdue(&self, bound: Duration) -> Option<String> {
        self.slots.lock().iter().find_map(|(thread, c)| {
            let (name, since) = (*c)?;
            (since.elapsed() > bound).then(|| {
                format!(
                    "thread {thread}: {name} has run {:.1} s",
                    since.elapsed().as_secs_f64()
                )
            })
        })
    }
}

/// What a configuration's soak did.
#[derive(Debug, Default)]
struct Figures {
    calls: u64,
    reads_checked: u64,
    float_ups: u64,
    reopens: u64,
    longest_call_micros: u64,
    longest_inline_jobs: u64,
}

struct Shared {
    db: Arc<Db>,
    calls: Calls,
    reads: AtomicU64,
    stop: AtomicBool,
    published: Mutex<Vec<(ReadOptions, u64, Arc<Model>)>>,
}

fn writer(sh: &Shared, w: u64, model: &mut Model, seed: u64) {
    let slot = sh.calls.slot(&format!("writer-{w}"));
    let mut rng = Rng(seed | 1);
    let mut version = 0u64;
    while !sh.stop.load(Ordering::Relaxed) {
        version += 1;
        let k = soak_key(w, rng.skewed(KEYS_PER_WRITER));
        match rng.below(1000) {
            0..=599 => {
                let v = soak_value(&k, version, &mut rng);
                sh.calls.call(slot, "put", || sh.db.put(&k, &v)).unwrap();
                model.insert(k, v);
            }
            600..=679 => {
                sh.calls.call(slot, "delete", || sh.db.delete(&k)).unwrap();
                model.remove(&k);
            }
            680..=729 => {
                let mut b = WriteBatch::new();
                for _ in 0..8 {
                    let k = soak_key(w, rng.below(KEYS_PER_WRITER));
                    let v = soak_value(&k, version, &mut rng);
                    b.put(&k, &v);
                    model.insert(k, v);
                }
                sh.calls
                    .call(slot, "write batch", || sh.db.write(&Default::default(), b))
                    .unwrap();
            }
            730..=989 => {
                let got = sh.calls.call(slot, "get", || sh.db.get(&k)).unwrap();
                assert_eq!(got.as_ref(), model.get(&k), "writer {w} get {k:?}");
                sh.reads.fetch_add(1, Ordering::Relaxed);
            }
            990..=994 => {
                let snap = sh.calls.call(slot, "snapshot", || sh.db.snapshot());
                let ro = ReadOptions {
                    snapshot: Some(snap),
                    ..Default::default()
                };
                let mut p = sh.published.lock();
                if p.len() == PUBLISHED {
                    p.remove(0);
                }
                p.push((ro, w, Arc::new(model.clone())));
            }
            995..=997 => sh.calls.call(slot, "flush", || sh.db.flush()).unwrap(),
            _ => {
                let (a, b) = (soak_key(w, 0), soak_key(w, KEYS_PER_WRITER / 4));
                sh.calls
                    .call(slot, "compact_range", || {
                        sh.db.compact_range(Some(&a), Some(&b))
                    })
                    .unwrap();
            }
        }
    }
}

/// Whether writer `w` writes `key`.
fn owned(key: &[u8], w: u64) -> bool {
    std::str::from_utf8(&key[1..])
        .ok()
        .and_then(|n| n.parse::<u64>().ok())
        .is_some_and(|i| i % WRITERS == w)
}

/// The keys of writer `w` in `model` from `start`, forward or backward, at most `n`.
fn expected(model: &Model, w: u64, start: &[u8], n: usize, forward: bool) -> Vec<Vec<u8>> {
    let owned = |k: &&Vec<u8>| owned(k, w);
    if forward {
        model
            .range(start.to_vec()..)
            .map(|(k, _)| k)
            .filter(owned)
            .take(n)
            .cloned()
            .collect()
    } else {
        model
            .range(..=start.to_vec())
            .rev()
            .map(|(k, _)| k)
            .filter(owned)
            .take(n)
            .cloned()
            .collect()
    }
}

fn reader(sh: &Shared, seed: u64) {
    let slot = sh.calls.slot("reader");
    let mut rng = Rng(seed | 1);
    // An iterator held across many calls, with the model it must agree with.
    let mut held: Option<(lsmlab::DbIterator, u64, Arc<Model>, u32)> = None;
    while !sh.stop.load(Ordering::Relaxed) {
        let Some((ro, w, model)) = sh.published.lock().last().cloned() else {
            std::thread::yield_now();
            continue;
        };
        let k = soak_key(w, rng.skewed(KEYS_PER_WRITER));
        match rng.below(100) {
            0..=79 => {
                let got = sh
                    .calls
                    .call(slot, "snapshot get", || sh.db.get_with(&ro, &k));
                assert_eq!(got.unwrap().as_ref(), model.get(&k), "snapshot get {k:?}");
            }
            80..=94 => {
                let forward = rng.below(2) == 0;
                let want = expected(&model, w, &k, 20, forward);
                let got = sh.calls.call(slot, "scan", || {
                    let mut it = sh.db.iter(&ro).unwrap();
                    let mut got = Vec::new();
                    if forward {
                        it.seek(&k);
                    } else {
                        it.seek_for_prev(&k);
                    }
                    while it.valid() && got.len() < want.len() {
                        let key = it.key().to_vec();
                        if owned(&key, w) {
                            assert_eq!(Some(&it.value().to_vec()), model.get(&key));
                            got.push(key);
                        }
                        if forward {
                            it.next()
                        } else {
                            it.prev()
                        }
                    }
                    it.status().unwrap();
                    got
                });
                assert_eq!(got, want, "scan from {k:?} forward={forward}");
            }
            _ => {
                // Step the held iterator, or take a new one.
                match held.take() {
                    Some((mut it, hw, hm, steps)) if steps < 500 => {
                        sh.calls.call(slot, "held iterator", || {
                            if it.valid() {
                                let key = it.key().to_vec();
                                if owned(&key, hw) {
                                    assert_eq!(Some(&it.value().to_vec()), hm.get(&key));
                                }
                                it.next();
                            } else {
                                it.seek_to_first();
                            }
                        });
                        held = Some((it, hw, hm, steps + 1));
                    }
                    _ => {
                        let it = sh.calls.call(slot, "iterator", || sh.db.iter(&ro)).unwrap();
                        held = Some((it, w, model, 0));
                    }
                }
            }
        }
        sh.reads.fetch_add(1, Ordering::Relaxed);
    }
}

/// One epoch of the soak on `db`: the threads run for `secs` under the watchdog.
fn epoch(db: Arc<Db>, models: &mut [Model], secs: f64, bound: Duration, seed: u64) -> Figures {
    let sh = Arc::new(Shared {
        db,
        calls: Calls::default(),
        reads: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        published: Mutex::new(Vec::new()),
    });
    std::thread::scope(|s| {
        for (w, model) in models.iter_mut().enumerate() {
            let sh = &sh;
            s.spawn(move || writer(sh, w as u64, model, seed + w as u64));
        }
        s.spawn(|| reader(&sh, seed + 100));
        let end = Instant::now() + Duration::from_secs_f64(secs);
        while Instant::now() < end {
            std::thread::sleep(Duration::from_millis(50));
            if let Some(late) = sh.calls.overdue(bound) {
                let tree = sh.db.property("rocksdb.levelstats").unwrap_or_default();
                let layout = sh.db.property("lsmlab.layout").unwrap_or_default();
                // A call that never returns cannot be joined: end the process, naming it.
                eprintln!("soak: a call is over its bound of {bound:?}: {late}\n{tree}\n{layout}");
                std::process::exit(3);
            }
        }
        sh.stop.store(true, Ordering::Relaxed);
        // Threads finish their current call; the watchdog keeps watching them do so.
        loop {
            std::thread::sleep(Duration::from_millis(50));
            if sh.calls.slots.lock().iter().all(|(_, c)| c.is_none()) {
                break;
            }
            if let Some(late) = sh.calls.overdue(bound) {
                eprintln!("soak: a call is over its bound of {bound:?}: {late}");
                std::process::exit(3);
            }
        }
    });
    sh.published.lock().clear();
    let stats = sh.db.statistics();
    Figures {
        calls: sh.calls.made.load(Ordering::Relaxed),
        reads_checked: sh.reads.load(Ordering::Relaxed),
        float_ups: stats.ticker(Ticker::FloatUps),
        longest_call_micros: sh.calls.longest_micros.load(Ordering::Relaxed),
        longest_inline_jobs: sh
            .db
            .property("lsmlab.inline-work.longest-jobs")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0),
        reopens: 0,
    }
}

fn soak(name: &str, make: fn(&MemFs) -> Options) {
    let secs = env_secs("LSMLAB_SOAK_SECS", 2.0);
    let bound = Duration::from_secs_f64(env_secs("LSMLAB_SOAK_BOUND_SECS", 10.0));
    // Epochs of at most 30 s, and at least two, so that every run reopens.
    let epochs = ((secs / 30.0).ceil() as u64).max(2);
    let fs = MemFs::new();
    let mut models = vec![Model::new(); WRITERS as usize];
    let mut all = Figures::default();
    let started = Instant::now();
    for e in 0..epochs {
        let db = Arc::new(Db::open(DIR, make(&fs)).expect("open"));
        let f = epoch(
            db.clone(),
            &mut models,
            secs / epochs as f64,
            bound,
            e * 1000 + 7,
        );
        let whole: Model = models
            .iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        assert_eq!(
            scan(&db, &ReadOptions::default()),
            whole,
            "{name}: scan after epoch {e}"
        );
        let Ok(db) = Arc::try_unwrap(db) else {
            panic!("{name}: the soak's threads still hold the database");
        };
        db.close().expect("close");
        all.calls += f.calls;
        all.reads_checked += f.reads_checked + 1;
        all.float_ups += f.float_ups;
        all.reopens += 1;
        all.longest_call_micros = all.longest_call_micros.max(f.longest_call_micros);
        all.longest_inline_jobs = all.longest_inline_jobs.max(f.longest_inline_jobs);
    }
    eprintln!(
        "soak {name}: {:.0} s, calls {}, reads checked {}, float-ups {}, reopens {}, longest call {:.3} s, longest inline stretch {} jobs",
        started.elapsed().as_secs_f64(),
        all.calls,
        all.reads_checked,
        all.float_ups,
        all.reopens,
        all.longest_call_micros as f64 / 1e6,
        all.longest_inline_jobs,
    );
    assert!(
        all.calls > 0 && all.reads_checked > 0,
        "{name}: nothing ran"
    );
}

fn leveled(fs: &MemFs) -> Options {
    small_options(fs)
}

fn universal(fs: &MemFs) -> Options {
    let mut o = small_options(fs);
    o.apply_layout_preset("universal").unwrap();
    o
}

/// FSLSM on its study's shape with 64 KiB memtables, every hit in a deeper level asking to
/// float (γ = 0.01): the setup that once never returned.
fn fslsm(fs: &MemFs) -> Options {
    let mut o = Options {
        fs: Arc::new(fs.clone()),
        ..Options::default()
    };
    o.apply_shape("fslsm-study").unwrap();
    o.apply_layout_preset("fslsm").unwrap();
    o.fslsm.gamma = 0.01;
    o.write_buffer_size = 64 << 10;
    o
}

fn fslsm_inline(fs: &MemFs) -> Options {
    Options {
        enable_blob_files: false,
        ..fslsm(fs)
    }
}

fn fslsm_frequency(fs: &MemFs) -> Options {
    Options {
        compaction_victims: CompactionVictims::LowestFrequency,
        ..fslsm(fs)
    }
}

fn deterministic(o: Options) -> Options {
    Options {
        deterministic_background: true,
        ..o
    }
}

macro_rules! soaks {
    ($($name:ident: $make:expr;)*) => {$(
        #[test]
        fn $name() {
            soak(stringify!($name), $make);
        }
    )*};
}

soaks! {
    leveled_concurrent: leveled;
    leveled_deterministic: |fs| deterministic(leveled(fs));
    universal_concurrent: universal;
    universal_deterministic: |fs| deterministic(universal(fs));
    fslsm_blob_concurrent: fslsm;
    fslsm_blob_deterministic: |fs| deterministic(fslsm(fs));
    fslsm_inline_concurrent: fslsm_inline;
    fslsm_inline_deterministic: |fs| deterministic(fslsm_inline(fs));
    fslsm_frequency_concurrent: fslsm_frequency;
    fslsm_frequency_deterministic: |fs| deterministic(fslsm_frequency(fs));
}
