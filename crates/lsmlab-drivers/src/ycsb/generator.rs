//! YCSB's number generators (`site.ycsb.generator`), with the same formulas and constants.
//!
//! - [`Zipfian`]: Gray et al.'s fast Zipfian ("Quickly generating billion-record synthetic
//!   databases", SIGMOD 1994), as YCSB's `ZipfianGenerator`, including its incremental zeta when
//!   the item count grows (used by skewed-latest).
//! - [`ScrambledZipfian`]: a Zipfian over 10¹⁰ items (constant 0.99, precomputed zeta) hashed with
//!   FNV-1a-64 onto the key range, so popular keys are spread out.
//! - [`SkewedLatest`]: the newest acknowledged insert is the most popular.
//! - [`Hotspot`], [`Uniform`], [`Discrete`]; [`Counter`] and [`AcknowledgedCounter`] number
//!   inserts (the latter only exposes keys whose insert finished).

use super::keys::fnv_hash64;
use super::random::YcsbRandom;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// YCSB's Zipfian constant.
pub const ZIPFIAN_CONSTANT: f64 = 0.99;
/// Items of the scrambled Zipfian's underlying generator.
pub const SCRAMBLED_ITEM_COUNT: u64 = 10_000_000_000;
/// zeta(10¹⁰, 0.99), precomputed by YCSB.
pub const SCRAMBLED_ZETAN: f64 = 26.469_028_201_783_02;

/// Terms of [`zeta`] summed one by one, as YCSB sums all of them (0.2 s here). Past them the
/// tail comes from the Euler–Maclaurin formula, within 1e-12 of the sum from this start on: a
/// sum over 2^48 items (a hostile `recordcount` or `maxscanlength`) would take days.
const ZETA_EXACT_TERMS: u64 = 10_000_000;

/// Σ_{i=st}^{n−1} 1/(i+1)^θ added to `initial`.
pub fn zeta(st: u64, n: u64, theta: f64, initial: f64) -> f64 {
    let mut sum = initial;
    let exact_end = n.min(st.saturating_add(ZETA_EXACT_TERMS));
    for i in st..exact_end {
        sum += 1.0 / ((i + 1) as f64).powf(theta);
    }
    if exact_end < n {
        sum += zeta_tail(exact_end as f64 + 1.0, n as f64, theta);
    }
    sum
}

/// Σ_{k=a}^{b} k^−θ for large a by Euler–Maclaurin: the integral, the end-point half terms and
/// the first derivative correction (the next term is below 1e-12 of the sum for a ≥ 10^7).
fn zeta_tail(a: f64, b: f64, theta: f64) -> f64 {
    let f = |x: f64| x.powf(-theta);
    let df = |x: f64| -theta * x.powf(-theta - 1.0);
    let integral = if (theta - 1.0).abs() < 1e-12 {
        (b / a).ln()
    } else {
        (b.powf(1.0 - theta) - a.powf(1.0 - theta)) / (1.0 - theta)
    };
    integral + (f(a) + f(b)) / 2.0 + (df(b) - df(a)) / 12.0
}

/// YCSB's `ZipfianGenerator` over `base..base+items`.
#[derive(Debug, Clone)]
pub struct Zipfian {
    items: u64,
    base: u64,
    theta: f64,
    zeta2theta: f64,
    alpha: f64,
    zetan: f64,
    count_for_zeta: u64,
    eta: f64,
}

impl Zipfian {
    /// Over `min..=max` with constant `theta`; zeta is computed (O(items)).
    pub fn new(min: u64, max: u64, theta: f64) -> Zipfian {
        let items = max - min + 1;
        Zipfian::with_zetan(min, max, theta, zeta(0, items, theta, 0.0))
    }

    /// Over `min..=max` with a precomputed `zetan`.
    pub fn with_zetan(min: u64, max: u64, theta: f64, zetan: f64) -> Zipfian {
        let items = max - min + 1;
        let zeta2theta = zeta(0, 2, theta, 0.0);
        Zipfian {
            items,
            base: min,
            theta,
            zeta2theta,
            alpha: 1.0 / (1.0 - theta),
            zetan,
            count_for_zeta: items,
            eta: (1.0 - (2.0 / items as f64).powf(1.0 - theta)) / (1.0 - zeta2theta / zetan),
        }
    }

    /// A value drawn over the first `item_count` items (YCSB's `nextLong(itemcount)`); when the
    /// count grew, zeta is extended incrementally.
    pub fn next_with_count(&mut self, item_count: u64, rng: &mut YcsbRandom) -> u64 {
        if item_count > self.count_for_zeta {
            self.zetan = zeta(self.count_for_zeta, item_count, self.theta, self.zetan);
            self.count_for_zeta = item_count;
            // As YCSB: eta keeps the generator's original item count.
            self.eta = (1.0 - (2.0 / self.items as f64).powf(1.0 - self.theta))
                / (1.0 - self.zeta2theta / self.zetan);
        }
        let u = rng.next_f64();
        let uz = u * self.zetan;
        if uz < 1.0 {
            return self.base;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return self.base + 1;
        }
        self.base + (item_count as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64
    }

    /// A value over all items.
    pub fn next(&mut self, rng: &mut YcsbRandom) -> u64 {
        let n = self.items;
        self.next_with_count(n, rng)
    }
}

/// YCSB's `ScrambledZipfianGenerator` over `min..=max` (constant 0.99).
#[derive(Debug, Clone)]
pub struct ScrambledZipfian {
    min: u64,
    item_count: u64,
    gen: Zipfian,
}

impl ScrambledZipfian {
    /// Over `min..=max`.
    pub fn new(min: u64, max: u64) -> ScrambledZipfian {
        ScrambledZipfian {
            min,
            item_count: max - min + 1,
            gen: Zipfian::with_zetan(0, SCRAMBLED_ITEM_COUNT, ZIPFIAN_CONSTANT, SCRAMBLED_ZETAN),
        }
    }

    /// The next value.
    pub fn next(&mut self, rng: &mut YcsbRandom) -> u64 {
        let v = self.gen.next(rng);
        self.min + fnv_hash64(v).unsigned_abs() % self.item_count
    }
}

/// YCSB's `SkewedLatestGenerator`: `last − Zipfian(last)`, the newest key most popular.
#[derive(Debug, Clone)]
pub struct SkewedLatest {
    zipfian: Zipfian,
}

impl SkewedLatest {
    /// For a key space whose newest acknowledged key is `last`.
    pub fn new(last: u64) -> SkewedLatest {
        SkewedLatest {
            zipfian: Zipfian::new(0, last.max(1) - 1, ZIPFIAN_CONSTANT),
        }
    }

    /// The next value given the newest acknowledged key `last`.
    pub fn next(&mut self, last: u64, rng: &mut YcsbRandom) -> u64 {
        let max = last.max(1);
        max.saturating_sub(self.zipfian.next_with_count(max, rng))
    }
}

/// YCSB's `UniformLongGenerator` over `lb..=ub`.
#[derive(Debug, Clone, Copy)]
pub struct Uniform {
    lb: u64,
    interval: u64,
}

impl Uniform {
    /// Over `lb..=ub`.
    pub fn new(lb: u64, ub: u64) -> Uniform {
        Uniform {
            lb,
            interval: ub - lb + 1,
        }
    }

    /// The next value.
    pub fn next(&self, rng: &mut YcsbRandom) -> u64 {
        self.lb + rng.next_nonneg() % self.interval
    }
}

/// YCSB's `HotspotIntegerGenerator`: a fraction of operations goes to a hot fraction of the keys.
#[derive(Debug, Clone, Copy)]
pub struct Hotspot {
    lower: u64,
    hot_interval: u64,
    cold_interval: u64,
    hot_opn_fraction: f64,
}

impl Hotspot {
    /// Over `lower..=upper`, `hot_set` of the keys getting `hot_opn` of the operations.
    pub fn new(lower: u64, upper: u64, hot_set: f64, hot_opn: f64) -> Hotspot {
        let interval = upper - lower + 1;
        let hot_interval = ((interval as f64 * hot_set) as u64).clamp(1, interval);
        Hotspot {
            lower,
            hot_interval,
            cold_interval: interval - hot_interval,
            hot_opn_fraction: hot_opn,
        }
    }

    /// The next value.
    pub fn next(&self, rng: &mut YcsbRandom) -> u64 {
        if rng.next_f64() < self.hot_opn_fraction || self.cold_interval == 0 {
            self.lower + rng.next_nonneg() % self.hot_interval
        } else {
            self.lower + self.hot_interval + rng.next_nonneg() % self.cold_interval
        }
    }
}

/// YCSB's `DiscreteGenerator`: one of several values with given weights.
#[derive(Debug, Clone)]
pub struct Discrete<T: Copy> {
    choices: Vec<(f64, T)>,
    sum: f64,
}

impl<T: Copy> Discrete<T> {
    /// The choices with positive weight.
    pub fn new(choices: Vec<(f64, T)>) -> Discrete<T> {
        let choices: Vec<(f64, T)> = choices.into_iter().filter(|c| c.0 > 0.0).collect();
        let sum = choices.iter().map(|c| c.0).sum();
        Discrete { choices, sum }
    }

    /// True when no choice has a positive weight.
    pub fn is_empty(&self) -> bool {
        self.choices.is_empty()
    }

    /// The next choice (`None` only when empty).
    pub fn next(&self, rng: &mut YcsbRandom) -> Option<T> {
        let mut val = rng.next_f64();
        for &(w, v) in &self.choices {
            let p = w / self.sum;
            if val < p {
                return Some(v);
            }
            val -= p;
        }
        self.choices.last().map(|c| c.1)
    }
}

/// YCSB's `CounterGenerator`: 0, 1, 2, … from `start`, shared by threads.
#[derive(Debug)]
pub struct Counter {
    next: AtomicU64,
}

impl Counter {
    /// Counting from `start`.
    pub fn new(start: u64) -> Counter {
        Counter {
            next: AtomicU64::new(start),
        }
    }

    /// The next number.
    pub fn next(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }
}

/// YCSB's `AcknowledgedCounterGenerator`: hands out numbers like [`Counter`], and its `last`
/// is the highest number below which every insert has been acknowledged.
#[derive(Debug)]
pub struct AcknowledgedCounter {
    next: AtomicU64,
    state: Mutex<(u64, BTreeSet<u64>)>,
}

impl AcknowledgedCounter {
    /// Counting from `start` (so `last` starts at `start − 1`).
    pub fn new(start: u64) -> AcknowledgedCounter {
        AcknowledgedCounter {
            next: AtomicU64::new(start),
            state: Mutex::new((start, BTreeSet::new())),
        }
    }

    /// The next number to insert.
    pub fn next(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    fn lock(&self) -> MutexGuard<'_, (u64, BTreeSet<u64>)> {
        // A panicking client thread cannot leave the set half-updated: recover the guard.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Marks `value`'s insert as finished.
    pub fn acknowledge(&self, value: u64) {
        let mut st = self.lock();
        let (limit, pending) = &mut *st;
        if value < *limit {
            return;
        }
        pending.insert(value);
        while pending.remove(limit) {
            *limit += 1;
        }
    }

    /// One past the newest key whose insert, and all before it, finished (YCSB's
    /// `lastValue() + 1`; 0 when none).
    pub fn acknowledged_end(&self) -> u64 {
        self.lock().0
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn zeta_tail_matches_the_sum_and_huge_counts_finish() {
        let exact = |st: u64, n: u64, theta: f64| {
            (st..n)
                .map(|i| 1.0 / ((i + 1) as f64).powf(theta))
                .sum::<f64>()
        };
        let n = super::ZETA_EXACT_TERMS + 3_000_000;
        for theta in [0.5, 0.99, 1.0, 1.2] {
            let (a, b) = (super::zeta(0, n, theta, 0.0), exact(0, n, theta));
            assert!(((a - b) / b).abs() < 1e-12, "theta {theta}: {a} vs {b}");
        }
        // 2^48 items: finite, and above the 10^10 items YCSB precomputed.
        let z = super::zeta(0, 1 << 48, 0.99, 0.0);
        assert!(z.is_finite() && z > super::SCRAMBLED_ZETAN, "{z}");
    }

    use super::*;

    /// Draws `n` values from a Zipfian over 1000 items and compares the frequency of the hottest
    /// items with the Zipf law p(i) = 1 / ((i+1)^θ · zeta(N, θ)).
    #[test]
    fn zipfian_hottest_items_match_theory() {
        let items = 1000u64;
        let n = 400_000;
        let mut z = Zipfian::new(0, items - 1, ZIPFIAN_CONSTANT);
        let mut rng = YcsbRandom::new(7);
        let mut counts = vec![0u64; items as usize];
        for _ in 0..n {
            let v = z.next(&mut rng);
            assert!(v < items);
            counts[v as usize] += 1;
        }
        let zetan = zeta(0, items, ZIPFIAN_CONSTANT, 0.0);
        // Items 0 and 1 are exact in Gray's method: tolerance 3 % relative (the sampling error
        // at n = 400 000 is about 0.4 % for item 0 and 0.6 % for item 1).
        for (i, &count) in counts.iter().enumerate().take(2) {
            let expected = 1.0 / ((i + 1) as f64).powf(ZIPFIAN_CONSTANT) / zetan;
            let seen = count as f64 / n as f64;
            assert!(
                (seen - expected).abs() / expected < 0.03,
                "item {i}: seen {seen}, expected {expected}"
            );
        }
        // The ten hottest together: the approximation of items ≥ 2 is coarser; 10 % relative.
        let expected10: f64 = (0..10)
            .map(|i| 1.0 / ((i + 1) as f64).powf(ZIPFIAN_CONSTANT) / zetan)
            .sum();
        let seen10 = counts[..10].iter().sum::<u64>() as f64 / n as f64;
        assert!(
            (seen10 - expected10).abs() / expected10 < 0.10,
            "top 10: seen {seen10}, expected {expected10}"
        );
        // And the distribution is skewed: item 0 is the most frequent.
        assert_eq!(counts.iter().max(), Some(&counts[0]));
    }

    #[test]
    fn scrambled_zipfian_stays_in_range_and_is_skewed() {
        let mut z = ScrambledZipfian::new(100, 1099);
        let mut rng = YcsbRandom::new(1);
        let mut counts = vec![0u32; 1000];
        for _ in 0..100_000 {
            let v = z.next(&mut rng);
            assert!((100..1100).contains(&v));
            counts[(v - 100) as usize] += 1;
        }
        counts.sort_unstable_by(|a, b| b.cmp(a));
        // The hottest key gets far more than the uniform share of 100 draws.
        assert!(counts[0] > 2000, "{}", counts[0]);
        // The hottest key is the scrambled position of Zipfian item 0.
        let hottest = 100 + fnv_hash64(0).unsigned_abs() % 1000;
        let mut seen = 0;
        let mut z = ScrambledZipfian::new(100, 1099);
        for _ in 0..10_000 {
            if z.next(&mut rng) == hottest {
                seen += 1;
            }
        }
        assert!(seen > 200, "{seen}");
    }

    #[test]
    fn skewed_latest_prefers_the_newest_keys() {
        let mut g = SkewedLatest::new(1000);
        let mut rng = YcsbRandom::new(3);
        let mut newest = 0;
        for _ in 0..10_000 {
            let v = g.next(1000, &mut rng);
            assert!(v <= 1000);
            if v >= 990 {
                newest += 1;
            }
        }
        assert!(newest > 3000, "{newest}");
        // The key space grows: values follow the new end.
        assert!((0..1000).any(|_| g.next(2000, &mut rng) > 1000));
    }

    #[test]
    fn acknowledged_counter_exposes_only_contiguous_inserts() {
        let c = AcknowledgedCounter::new(10);
        let (a, b, d) = (c.next(), c.next(), c.next());
        assert_eq!((a, b, d), (10, 11, 12));
        assert_eq!(c.acknowledged_end(), 10);
        c.acknowledge(11);
        assert_eq!(c.acknowledged_end(), 10);
        c.acknowledge(10);
        assert_eq!(c.acknowledged_end(), 12);
        c.acknowledge(12);
        assert_eq!(c.acknowledged_end(), 13);
    }

    #[test]
    fn hotspot_and_discrete_respect_their_fractions() {
        let h = Hotspot::new(0, 999, 0.2, 0.8);
        let mut rng = YcsbRandom::new(5);
        let hot = (0..10_000).filter(|_| h.next(&mut rng) < 200).count();
        assert!((7700..8300).contains(&hot), "{hot}");
        let d = Discrete::new(vec![(0.95, 'r'), (0.05, 'u'), (0.0, 'i')]);
        let reads = (0..10_000)
            .filter(|_| d.next(&mut rng) == Some('r'))
            .count();
        assert!((9400..9600).contains(&reads), "{reads}");
        let u = Uniform::new(5, 9);
        assert!((0..1000).all(|_| (5..=9).contains(&u.next(&mut rng))));
    }
}
