//! `plan.json` of a results directory: the plan as expanded and run there (scale, seed, engines,
//! cells, shard, run order), and the fingerprint that tells one study's directories from
//! another's.

use super::shard::Shard;
use crate::plan::matrix::Cell;
use crate::plan::spec::Plan;
use serde::{Deserialize, Serialize};

/// `plan.json`: the plan as expanded for this results directory.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Expanded {
    /// Hash of the plan's text and scale: shards of one study share it.
    pub plan_hash: String,
    /// The plan's title.
    pub title: String,
    /// The scale run.
    pub scale: Option<String>,
    /// Seed of the run order.
    pub seed: u64,
    /// Repetitions.
    pub repetitions: u32,
    /// Engines: name, kind and binary.
    pub engines: Vec<EngineRecord>,
    /// Axis names.
    pub axes: Vec<String>,
    /// The cells.
    pub cells: Vec<Cell>,
    /// The shard this directory ran, if any.
    pub shard: Option<Shard>,
    /// Run ids in the order they ran.
    pub order: Vec<String>,
    /// The plan at its scale, as run.
    pub plan: Plan,
    /// The directory of the plan file, where relative engine binaries start.
    #[serde(default)]
    pub plan_dir: String,
}

/// An engine as run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EngineRecord {
    /// The plan's name for it.
    pub name: String,
    /// The binary.
    pub binary: String,
}

/// FNV-1a, 64 bits: a stable fingerprint of the plan (not for security).
pub fn fingerprint(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain(std::iter::once(0)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_is_stable() {
        assert_eq!(fingerprint(&["a", "b"]), fingerprint(&["a", "b"]));
        assert_ne!(fingerprint(&["ab", ""]), fingerprint(&["a", "b"]));
    }
}
