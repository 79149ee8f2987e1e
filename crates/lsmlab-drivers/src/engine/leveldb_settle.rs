//! Waiting for LevelDB's background compactions, which its API cannot: LevelDB 1.23 has no
//! "pending compaction" property. It compacts a level when its score reaches 1 (level 0: files
//! / 4; level L ≥ 1: bytes / (10 MiB · 10^(L−1)); the last level never), so it is settled when
//! every score is under 1 and nothing changes between two looks: a compaction in flight installs
//! its output (changing the table list) before the scores fall. Compactions that reads set off
//! (LevelDB's seek-triggered ones) are not foreseen.

use crate::error::{CliError, CliResult};
use std::time::{Duration, Instant};

/// LevelDB's `kL0_CompactionTrigger`.
const L0_TRIGGER: f64 = 4.0;
/// LevelDB's `kNumLevels`.
const LEVELS: usize = 7;
/// Between two looks.
const POLL: Duration = Duration::from_millis(100);
/// Longest wait: a database that never settles (a compaction failing again and again) is an
/// error, not a hang.
const PATIENCE: Duration = Duration::from_secs(3600);

/// Bytes per level from `leveldb.sstables` (`--- level N ---`, then ` NUMBER:SIZE[…]` lines).
pub fn level_bytes(sstables: &str) -> Vec<(usize, u64)> {
    let mut level = None;
    let mut out = vec![(0usize, 0u64); LEVELS];
    for line in sstables.lines() {
        if let Some(rest) = line.strip_prefix("--- level ") {
            level = rest.trim_end_matches(" ---").trim().parse::<usize>().ok();
            continue;
        }
        let (Some(l), Some((_, tail))) = (level, line.trim_start().split_once(':')) else {
            continue;
        };
        let size: u64 = tail
            .split('[')
            .next()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        if let Some(slot) = out.get_mut(l) {
            slot.0 += 1;
            slot.1 += size;
        }
    }
    out
}

/// Whether LevelDB would pick a compaction for this shape: (files, bytes) per level.
pub fn wants_compaction(levels: &[(usize, u64)]) -> bool {
    levels
        .iter()
        .enumerate()
        .take(LEVELS - 1)
        .any(|(l, &(files, bytes))| {
            let score = if l == 0 {
                files as f64 / L0_TRIGGER
            } else {
                bytes as f64 / (10.0 * 1_048_576.0 * 10f64.powi(l as i32 - 1))
            };
            score >= 1.0
        })
}

/// Waits until the database looks settled: `property` reads a LevelDB property.
pub fn wait_settled(property: &dyn Fn(&str) -> Option<String>) -> CliResult<()> {
    let look = || {
        let tables = property("leveldb.sstables").unwrap_or_default();
        let stats = property("leveldb.stats").unwrap_or_default();
        (wants_compaction(&level_bytes(&tables)), tables + &stats)
    };
    let start = Instant::now();
    let mut last = look();
    loop {
        std::thread::sleep(POLL);
        let now = look();
        if !now.0 && now.1 == last.1 {
            return Ok(());
        }
        if start.elapsed() > PATIENCE {
            return Err(CliError::new(format!(
                "waitforcompaction: LevelDB still compacting after {} s",
                PATIENCE.as_secs()
            )));
        }
        last = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLES: &str = "--- level 0 ---\n 12:2000['a' @ 5 : 1 .. 'z' @ 9 : 1]\n 13:3000['b' @ 10 : 1 .. 'y' @ 11 : 1]\n--- level 1 ---\n 7:11534336['a' @ 1 : 1 .. 'z' @ 2 : 1]\n--- level 2 ---\n--- level 3 ---\n--- level 4 ---\n--- level 5 ---\n--- level 6 ---\n";

    #[test]
    fn levels_and_their_scores() {
        let l = level_bytes(TABLES);
        assert_eq!(l[0], (2, 5000));
        assert_eq!(l[1], (1, 11_534_336));
        assert_eq!(l[2], (0, 0));
        // Level 1 holds 11 MiB of its 10: LevelDB would compact it.
        assert!(wants_compaction(&l));
        let mut calm = l.clone();
        calm[1].1 = 9 * 1_048_576;
        assert!(!wants_compaction(&calm));
        // Four level-0 files trigger; the last level never does.
        calm[0].0 = 4;
        assert!(wants_compaction(&calm));
        calm[0].0 = 3;
        calm[6] = (100, u64::MAX / 2);
        assert!(!wants_compaction(&calm));
        assert!(!wants_compaction(&level_bytes("")));
    }

    #[test]
    fn settled_once_calm_and_unchanged() {
        let looks = std::cell::Cell::new(0);
        let property = |name: &str| {
            if name == "leveldb.sstables" {
                looks.set(looks.get() + 1);
                // Compacting for the first three looks, then calm.
                Some(
                    if looks.get() <= 3 {
                        TABLES
                    } else {
                        "--- level 0 ---\n"
                    }
                    .to_string(),
                )
            } else {
                Some(String::new())
            }
        };
        wait_settled(&property).unwrap();
        assert_eq!(looks.get(), 5, "calm twice in a row");
    }
}
