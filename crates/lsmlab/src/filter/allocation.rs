//! How filter memory is spread across levels: uniform (every level the same bits per key) or
//! Monkey's (Dayan, Athanassoulis, Idreos, SIGMOD 2017), which gives the same total memory but
//! minimises the sum of the levels' false-positive rates, the expected number of tables a
//! lookup of a missing key reads.
//!
//! The model is the textbook Bloom filter's, `fpr(b) = exp(−b · ln²2)` for `b` bits per key;
//! Ribbon's `bits_per_key` are Bloom-equivalent bits, so the same model holds for both kinds.
//! Minimising `Σ fpr(b_i)` subject to `Σ n_i · b_i = B · Σ n_i` (level `i` holds `n_i` entries,
//! `B` is the uniform bits per key) gives `fpr_i ∝ n_i`: each level's false-positive rate is
//! proportional to its share of the entries. The derivation is in `docs/filters.md`.

use crate::error::{Error, Result};

/// How the filter memory of `FilterOptions::bits_per_key` is spread across levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FilterAllocation {
    /// Every level gets `bits_per_key` (RocksDB's only way).
    #[default]
    Uniform,
    /// Monkey: the same total memory as uniform, spread so that the sum of the levels'
    /// false-positive rates is least: small levels get more bits per key, the largest fewer.
    Monkey,
}

impl FilterAllocation {
    /// Parses `uniform` or `monkey`; the error names the option and what is allowed.
    pub fn parse(s: &str) -> Result<FilterAllocation> {
        match s {
            "uniform" => Ok(FilterAllocation::Uniform),
            "monkey" => Ok(FilterAllocation::Monkey),
            other => Err(Error::invalid_option(
                "filter.allocation",
                format!("{other:?}"),
                "allowed: uniform, monkey",
            )),
        }
    }

    /// The name [`FilterAllocation::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            FilterAllocation::Uniform => "uniform",
            FilterAllocation::Monkey => "monkey",
        }
    }
}

/// ln²2: `fpr(b) = exp(−b · LN2_SQ)` for a Bloom filter of `b` bits per key.
const LN2_SQ: f64 = std::f64::consts::LN_2 * std::f64::consts::LN_2;

/// The false-positive rate the model gives `bits_per_key` bits per key (1 without a filter).
pub fn model_fpr(bits_per_key: f64) -> f64 {
    if bits_per_key <= 0.0 {
        1.0
    } else {
        (-bits_per_key * LN2_SQ).exp()
    }
}

/// Monkey's bits per key for each level holding `entries[i]` entries, with the memory of
/// `bits_per_key` bits for every entry: `Σ entries[i] · bits[i] = bits_per_key · Σ entries[i]`.
/// Every level is taken to be probed by every get ([`monkey_bits_per_key_probed`] with each
/// level probed by all).
pub fn monkey_bits_per_key(bits_per_key: f64, entries: &[u64]) -> Vec<f64> {
    monkey_bits_per_key_probed(bits_per_key, entries, &vec![1.0; entries.len()])
}

/// Monkey's allocation when a get of a missing key probes level `i` with probability
/// `probed[i]` (in (0, 1]; the share of the key space its tables cover): it minimises the
/// expected false positives of such a get, `Σ probed[i] · fpr_i`, at the memory of
/// `bits_per_key` bits for every entry. The optimum has `fpr_i ∝ entries[i] / probed[i]`:
/// a level is charged for its entries per share of the key space it covers, so a level that
/// holds few entries because it covers a sliver of the keys gets the bits of its density, not
/// of its size. With every level probed by all it is the paper's `fpr_i ∝ entries[i]`.
///
/// A level with no entry gets 0 (it costs nothing and there is nothing to find in it). A level
/// whose optimal false-positive rate would reach 1 gets no filter (0 bits) and the memory goes
/// to the others. With no entry anywhere, or `bits_per_key` ≤ 0, every level gets
/// `bits_per_key` (nothing to spread). A `probed` missing or outside (0, 1] counts as 1.
pub fn monkey_bits_per_key_probed(bits_per_key: f64, entries: &[u64], probed: &[f64]) -> Vec<f64> {
    let total: f64 = entries.iter().map(|&n| n as f64).sum();
    if bits_per_key <= 0.0 || bits_per_key.is_nan() || total == 0.0 {
        return vec![bits_per_key.max(0.0); entries.len()];
    }
    let memory = bits_per_key * total;
    // ln of a level's entries per share of the key space probed: fpr_i = k · density_i.
    let ln_density = |i: usize| {
        let q = probed
            .get(i)
            .copied()
            .filter(|q| *q > 0.0 && *q <= 1.0)
            .unwrap_or(1.0);
        (entries[i] as f64).ln() - q.ln()
    };
    // The levels that get a filter; the densest drop out while their rate would reach 1.
    let mut active: Vec<usize> = (0..entries.len()).filter(|&i| entries[i] > 0).collect();
    active.sort_by(|&a, &b| ln_density(a).total_cmp(&ln_density(b)));
    loop {
        // Σ n_i · (−ln(k · density_i)) / ln²2 = memory gives ln k.
        let n_sum: f64 = active.iter().map(|&i| entries[i] as f64).sum();
        let n_ln_d: f64 = active
            .iter()
            .map(|&i| entries[i] as f64 * ln_density(i))
            .sum();
        let ln_k = -(memory * LN2_SQ + n_ln_d) / n_sum;
        let densest = *active.last().expect("at least one level holds entries");
        if active.len() > 1 && ln_k + ln_density(densest) >= 0.0 {
            active.pop();
            continue;
        }
        let mut bits = vec![0.0; entries.len()];
        for &i in &active {
            bits[i] = (-(ln_k + ln_density(i)) / LN2_SQ).max(0.0);
        }
        return bits;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(bits: &[f64], entries: &[u64]) -> f64 {
        bits.iter().zip(entries).map(|(b, &n)| b * n as f64).sum()
    }

    fn fpr_sum(bits: &[f64], entries: &[u64]) -> f64 {
        bits.iter()
            .zip(entries)
            .filter(|(_, &n)| n > 0)
            .map(|(&b, _)| model_fpr(b))
            .sum()
    }

    /// Trees of several shapes: leveled with ratio 10 and 4, a heavy level 0, skewed, flat.
    const TREES: &[&[u64]] = &[
        &[4_000, 10_000, 100_000, 1_000_000],
        &[1_000, 4_000, 16_000, 64_000, 256_000, 1_024_000],
        &[50_000, 0, 300_000, 3_000_000, 0],
        &[7, 1_000_000],
        &[1_000, 1_000, 1_000],
        &[123_456, 5, 98_765_432],
    ];

    #[test]
    fn total_memory_equals_uniform() {
        for &entries in TREES {
            for bpk in [1.0, 5.0, 10.0, 16.5] {
                let bits = monkey_bits_per_key(bpk, entries);
                let uniform = bpk * entries.iter().sum::<u64>() as f64;
                let got = memory(&bits, entries);
                assert!(
                    (got / uniform - 1.0).abs() < 1e-9,
                    "{entries:?} bpk {bpk}: {got} bits vs uniform {uniform}"
                );
            }
        }
    }

    #[test]
    fn fpr_sum_is_at_most_uniform_and_below_it_when_levels_differ() {
        for &entries in TREES {
            for bpk in [1.0, 5.0, 10.0, 16.5] {
                let bits = monkey_bits_per_key(bpk, entries);
                let uniform = vec![bpk; entries.len()];
                let (monkey, flat) = (fpr_sum(&bits, entries), fpr_sum(&uniform, entries));
                assert!(monkey <= flat * (1.0 + 1e-12), "{entries:?} bpk {bpk}");
                let distinct = entries.iter().filter(|&&n| n > 0).any(|&n| n != entries[0]);
                if distinct {
                    assert!(
                        monkey < flat * 0.99,
                        "{entries:?} bpk {bpk}: {monkey} vs {flat}"
                    );
                }
            }
        }
    }

    #[test]
    fn fpr_is_proportional_to_entries_where_filters_are_built() {
        let entries = [4_000, 10_000, 100_000, 1_000_000];
        let bits = monkey_bits_per_key(10.0, &entries);
        let ratio = |i: usize| model_fpr(bits[i]) / entries[i] as f64;
        for i in 1..entries.len() {
            assert!(
                (ratio(i) / ratio(0) - 1.0).abs() < 1e-9,
                "level {i}: {bits:?}"
            );
        }
    }

    #[test]
    fn bits_fall_as_levels_grow() {
        for &entries in TREES {
            let bits = monkey_bits_per_key(10.0, entries);
            for i in 0..entries.len() {
                for j in 0..entries.len() {
                    if entries[i] > 0 && entries[j] > entries[i] {
                        assert!(bits[j] <= bits[i], "{entries:?}: {bits:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn empty_levels_get_nothing_and_change_nothing() {
        let with_gaps = monkey_bits_per_key(10.0, &[50_000, 0, 300_000, 3_000_000, 0]);
        let without = monkey_bits_per_key(10.0, &[50_000, 300_000, 3_000_000]);
        assert_eq!((with_gaps[1], with_gaps[4]), (0.0, 0.0));
        let kept = [with_gaps[0], with_gaps[2], with_gaps[3]];
        for (a, b) in kept.iter().zip(&without) {
            assert!((a - b).abs() < 1e-9, "{with_gaps:?} vs {without:?}");
        }
        assert_eq!(monkey_bits_per_key(10.0, &[0, 0, 0]), vec![10.0; 3]);
        assert_eq!(monkey_bits_per_key(10.0, &[]), Vec::<f64>::new());
        assert_eq!(monkey_bits_per_key(0.0, &[5, 50]), vec![0.0; 2]);
    }

    #[test]
    fn one_level_or_equal_levels_is_uniform() {
        let one = monkey_bits_per_key(7.5, &[0, 1_000_000, 0]);
        assert!((one[1] - 7.5).abs() < 1e-9, "{one:?}");
        for b in monkey_bits_per_key(10.0, &[1_000, 1_000, 1_000]) {
            assert!((b - 10.0).abs() < 1e-9);
        }
    }

    #[test]
    fn a_level_whose_rate_would_reach_one_gets_no_filter() {
        // At 0.01 bits per key the memory buys the small level ~10 bits per key, a rate of
        // 1/1000 = its share of the large one: the large level's optimal rate would exceed 1, so
        // it gets no filter and the small one all the memory.
        let entries = [1_000, 1_000_000];
        let bits = monkey_bits_per_key(0.01, &entries);
        assert_eq!(bits[1], 0.0, "{bits:?}");
        assert!((bits[0] - 10.01).abs() < 1e-9, "{bits:?}");
        assert!((memory(&bits, &entries) / (0.01 * 1_001_000.0) - 1.0).abs() < 1e-9);
        assert!(bits.iter().all(|b| b.is_finite() && *b >= 0.0));
    }

    #[test]
    fn probed_shares_weigh_each_level_by_its_entries_per_share_of_the_keys() {
        // Level 3 holds 3,343 entries over 14.6 % of the keys, level 4 36,657 over all: as
        // a missing-key get sees them, the two are about as dense.
        let entries = [0, 0, 0, 3_343, 36_657];
        let probed = [1.0, 1.0, 1.0, 0.146, 1.0];
        let expected_fp = |bits: &[f64]| -> f64 {
            (0..entries.len())
                .filter(|&i| entries[i] > 0)
                .map(|i| probed[i] * model_fpr(bits[i]))
                .sum()
        };
        for bpk in [5.0, 10.0, 12.0] {
            let weighted = monkey_bits_per_key_probed(bpk, &entries, &probed);
            let plain = monkey_bits_per_key(bpk, &entries);
            let uniform = vec![bpk; entries.len()];
            let total = bpk * entries.iter().sum::<u64>() as f64;
            assert!((memory(&weighted, &entries) / total - 1.0).abs() < 1e-9);
            // The optimum under the probes is at least as good as either allocation, and
            // strictly better than the paper's, which gives level 3 five bits more per key.
            let (w, p, u) = (
                expected_fp(&weighted),
                expected_fp(&plain),
                expected_fp(&uniform),
            );
            assert!(
                w <= u * (1.0 + 1e-12) && w < p,
                "bpk {bpk}: {w} vs {p} / {u}"
            );
            assert!(plain[3] - plain[4] > 4.5, "{plain:?}");
            assert!((weighted[3] - weighted[4]).abs() < 1.5, "{weighted:?}");
        }
        // Every level probed by all: the paper's allocation, exactly.
        for &tree in TREES {
            assert_eq!(
                monkey_bits_per_key_probed(10.0, tree, &vec![1.0; tree.len()]),
                monkey_bits_per_key(10.0, tree)
            );
        }
        // Shares outside (0, 1], or missing, count as 1.
        assert_eq!(
            monkey_bits_per_key_probed(10.0, &[10, 100, 1000], &[0.0, f64::NAN]),
            monkey_bits_per_key(10.0, &[10, 100, 1000])
        );
    }

    #[test]
    fn names_parse_back() {
        for a in [FilterAllocation::Uniform, FilterAllocation::Monkey] {
            assert_eq!(FilterAllocation::parse(a.name()).ok(), Some(a));
        }
        assert!(FilterAllocation::parse("Monkey").is_err());
    }
}
