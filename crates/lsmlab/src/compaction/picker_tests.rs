//! Data-driven picker tests, in the style of Pebble's `testdata`: each file under
//! `compaction/testdata/` describes trees, events and the compaction expected, and runs without
//! a database.
//!
//! The language, one command a line (`#` starts a comment):
//! - `case <title>` starts a case: an empty leveled tree with 7 levels and small limits
//!   (level-0 trigger 4, slowdown 8, stop 12; level 1 target 1000 bytes, ×10 per level;
//!   tables of 100 bytes);
//! - `layout leveldb|wisckey|fslsm|universal` sets the policy (a preset name);
//! - `set <name>=<value>` sets an option: `l0_trigger`, `l0_slowdown`, `l0_stop`,
//!   `level_base`, `target_file_size`, `gamma`, `read_ratio_window`, `frequency_window`,
//!   `stretch` (comma-separated), `max_float_overlap_files`, `float_target`, `level_files`
//!   (`max_files_for_level_base`: limits in tables), `victims` (`overlap` or `frequency`);
//!   universal compaction's `size_ratio`, `min_merge_width`, `max_merge_width`, `max_size_amp`
//!   (percent), `trivial_move` (`true`/`false`), `stop_style` (`0` total size, `1` similar);
//!   `max_obsolete` (`max_obsolete_percent`);
//! - `L<n> <number> <smallest>-<largest> [size=<bytes>] [seq=<lo>-<hi>] [entries=<n>]
//!   [hides=<n>] [busy]` adds a table (the policy hears of its creation); `hides` is the
//!   entries below it that its keys hide (`shadowed_below`), `entries` its own (default 1);
//! - `reads <n>` / `writes <n>`: operations for the read ratio;
//! - `hit L<n> <number> [x<count>]`: gets that found their key in that table;
//! - `pick` expects the next line to be `=> <compaction>` or `=> none`, where a compaction is
//!   `<kind> L<n>:<tables> [+ L<m>:<tables>] -> L<out>` plus ` (move)` for a trivial move;
//! - `reason` expects `=> <words>`: why the last `pick` picked what it did;
//! - `limits` expects `=> L0 <trigger>/<slowdown>/<stop> L1 <bytes> L2 <bytes> L3 <bytes>`.

use super::{policy_for, CompactionSpec, LayoutPolicy, Requested};
use crate::key::{make_internal_key, ValueKind};
use crate::options::{parse_increments, CompactionVictims, FloatTarget, Options, StopStyle};
use crate::version::{FileReaper, HitLocation, NewFile, Version, VersionEdit};
use std::sync::atomic::Ordering;
use std::sync::Arc;

struct Case {
    title: String,
    opts: Options,
    tables: Vec<(usize, NewFile, bool)>,
    policy: Option<Box<dyn LayoutPolicy>>,
    version: Option<Version>,
    reaper: Arc<FileReaper>,
    /// Why the last `pick` picked its compaction (`none` when it picked nothing).
    reason: &'static str,
}

impl Case {
    fn new(title: &str) -> Case {
        let opts = Options {
            level0_file_num_compaction_trigger: 4,
            level0_slowdown_writes_trigger: 8,
            level0_stop_writes_trigger: 12,
            max_bytes_for_level_base: 1000,
            target_file_size_base: 100,
            ..Options::default()
        };
        Case {
            title: title.to_string(),
            opts,
            tables: Vec::new(),
            policy: None,
            version: None,
            reaper: crate::test_tables::TestTables::new().reaper,
            reason: "none",
        }
    }

    /// The policy, made on first use (after the `set` lines) and kept across events.
    fn policy(&mut self) -> &dyn LayoutPolicy {
        if self.policy.is_none() {
            self.policy = Some(policy_for(&self.opts));
        }
        self.policy.as_deref().expect("just made")
    }

    /// The tree described so far (rebuilt when a table was added).
    fn version(&mut self) -> Version {
        if let Some(v) = &self.version {
            return v.clone();
        }
        let mut edit = VersionEdit::default();
        for (level, f, _) in &self.tables {
            edit.added.push((*level, f.clone()));
        }
        let v = Version::empty(self.opts.num_levels).apply(&edit, &self.reaper);
        for (_, f, busy) in &self.tables {
            if *busy {
                if let Some((_, m)) = v.files().find(|(_, m)| m.number == f.number) {
                    m.being_compacted.store(true, Ordering::Relaxed);
                }
            }
        }
        self.version = Some(v.clone());
        v
    }

    fn fail(&self, line: usize, msg: String) -> ! {
        panic!("case {:?}, line {line}: {msg}", self.title)
    }
}

fn level_of(s: &str) -> Option<usize> {
    s.strip_prefix('L')?.parse().ok()
}

fn describe(spec: Option<CompactionSpec>) -> String {
    let Some(spec) = spec else {
        return "none".into();
    };
    let inputs: Vec<String> = spec
        .inputs
        .iter()
        .filter(|i| !i.files.is_empty())
        .map(|i| {
            let numbers: Vec<String> = i.files.iter().map(|f| f.number.to_string()).collect();
            format!("L{}:{}", i.level, numbers.join(","))
        })
        .collect();
    format!(
        "{} {} -> L{}{}",
        spec.kind.name(),
        inputs.join(" + "),
        spec.output_level,
        if spec.trivial_move { " (move)" } else { "" }
    )
}

fn set(case: &mut Case, line: usize, kv: &str) {
    let (k, v) = kv
        .split_once('=')
        .unwrap_or_else(|| case.fail(line, format!("set wants name=value, got {kv:?}")));
    let num = |case: &Case| -> u64 {
        v.parse()
            .unwrap_or_else(|_| case.fail(line, format!("{k}: not a number: {v:?}")))
    };
    match k {
        "l0_trigger" => case.opts.level0_file_num_compaction_trigger = num(case) as usize,
        "l0_slowdown" => case.opts.level0_slowdown_writes_trigger = num(case) as usize,
        "l0_stop" => case.opts.level0_stop_writes_trigger = num(case) as usize,
        "level_base" => case.opts.max_bytes_for_level_base = num(case),
        "target_file_size" => case.opts.target_file_size_base = num(case),
        "read_ratio_window" => case.opts.fslsm.read_ratio_window = num(case) as usize,
        "frequency_window" => case.opts.fslsm.frequency_window = num(case) as usize,
        "max_float_overlap_files" => case.opts.fslsm.max_float_overlap_files = num(case) as usize,
        "gamma" => {
            case.opts.fslsm.gamma = v
                .parse()
                .unwrap_or_else(|_| case.fail(line, format!("gamma: {v:?}")))
        }
        "stretch" => {
            case.opts.fslsm.stretch_increments =
                parse_increments(v).unwrap_or_else(|e| case.fail(line, e.to_string()))
        }
        "level_files" => case.opts.max_files_for_level_base = num(case),
        "max_obsolete" => case.opts.max_obsolete_percent = num(case) as u32,
        "victims" => {
            case.opts.compaction_victims =
                CompactionVictims::parse(v).unwrap_or_else(|e| case.fail(line, e.to_string()))
        }
        "size_ratio" => case.opts.universal.size_ratio = num(case) as u32,
        "min_merge_width" => case.opts.universal.min_merge_width = num(case) as u32,
        "max_merge_width" => case.opts.universal.max_merge_width = num(case) as u32,
        "max_size_amp" => case.opts.universal.max_size_amplification_percent = num(case) as u32,
        "trivial_move" => {
            case.opts.universal.allow_trivial_move = v
                .parse()
                .unwrap_or_else(|_| case.fail(line, format!("trivial_move: {v:?}")))
        }
        "stop_style" => {
            case.opts.universal.stop_style =
                StopStyle::parse(v).unwrap_or_else(|e| case.fail(line, e.to_string()))
        }
        "float_target" => {
            case.opts.fslsm.float_target =
                FloatTarget::parse(v).unwrap_or_else(|e| case.fail(line, e.to_string()))
        }
        _ => case.fail(line, format!("unknown option {k:?}")),
    }
    if case.policy.is_some() {
        case.fail(line, "set must come before the first event".into());
    }
}

fn add_table(case: &mut Case, line: usize, level: usize, words: &[&str]) {
    let number: u64 = words
        .first()
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| case.fail(line, "table wants a number".into()));
    let (lo, hi) = words
        .get(1)
        .and_then(|w| w.split_once('-'))
        .unwrap_or_else(|| case.fail(line, "table wants <smallest>-<largest>".into()));
    let (mut size, mut seqs, mut busy) = (100u64, (number, number), false);
    let (mut entries, mut hides) = (1u64, 0u64);
    for w in &words[2..] {
        let count = |s: &str| -> u64 {
            s.parse()
                .unwrap_or_else(|_| case.fail(line, format!("{w:?}: not a number")))
        };
        if let Some(s) = w.strip_prefix("entries=") {
            entries = count(s);
        } else if let Some(s) = w.strip_prefix("hides=") {
            hides = count(s);
        } else if let Some(s) = w.strip_prefix("size=") {
            size = s
                .parse()
                .unwrap_or_else(|_| case.fail(line, format!("size {s:?}")));
        } else if let Some(s) = w.strip_prefix("seq=") {
            let (a, b) = s
                .split_once('-')
                .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
                .unwrap_or_else(|| case.fail(line, format!("seq {s:?}")));
            seqs = (a, b);
        } else if *w == "busy" {
            busy = true;
        } else {
            case.fail(line, format!("unknown table attribute {w:?}"));
        }
    }
    let f = NewFile {
        number,
        size,
        smallest: make_internal_key(lo.as_bytes(), seqs.1, ValueKind::Value),
        largest: make_internal_key(hi.as_bytes(), seqs.0, ValueKind::Value),
        smallest_seq: seqs.0,
        largest_seq: seqs.1,
        num_entries: entries,
        num_deletions: 0,
        oldest_blob_file: 0,
        shadowed_below: hides,
    };
    case.tables.push((level, f, busy));
    case.version = None;
    case.policy().on_table_created(level, number);
}

fn limits(case: &mut Case) -> String {
    let opts = case.opts.clone();
    let p = case.policy();
    let t = p.level0_triggers(&opts);
    format!(
        "L0 {}/{}/{} L1 {} L2 {} L3 {}",
        t.compaction,
        t.slowdown,
        t.stop,
        p.max_bytes_for_level(&opts, 1),
        p.max_bytes_for_level(&opts, 2),
        p.max_bytes_for_level(&opts, 3)
    )
}

/// Runs every case of `text`; returns how many ran.
fn run(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let mut case: Option<Case> = None;
    let mut ran = 0;
    let mut i = 0;
    while i < lines.len() {
        let line_no = i + 1;
        let line = lines[i].split('#').next().unwrap_or("").trim();
        i += 1;
        if line.is_empty() {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        if words[0] == "case" {
            case = Some(Case::new(line.trim_start_matches("case").trim()));
            ran += 1;
            continue;
        }
        let c = case
            .as_mut()
            .unwrap_or_else(|| panic!("line {line_no}: command before the first case"));
        match words[0] {
            "layout" => {
                let name = words.get(1).copied().unwrap_or("");
                c.opts
                    .apply_layout_preset(name)
                    .unwrap_or_else(|e| c.fail(line_no, e.to_string()));
            }
            "set" => {
                for kv in &words[1..] {
                    set(c, line_no, kv);
                }
            }
            "reads" | "writes" => {
                let n: u64 = words
                    .get(1)
                    .and_then(|w| w.parse().ok())
                    .unwrap_or_else(|| c.fail(line_no, "wants a count".into()));
                let read = words[0] == "reads";
                let p = c.policy();
                for _ in 0..n {
                    if read {
                        p.on_read();
                    } else {
                        p.on_writes(1);
                    }
                }
            }
            "hit" => {
                let level = words.get(1).and_then(|w| level_of(w));
                let file = words.get(2).and_then(|w| w.parse().ok());
                let (Some(level), Some(file)) = (level, file) else {
                    c.fail(line_no, "hit wants L<n> <table>".into());
                };
                let times: u64 = words
                    .get(3)
                    .and_then(|w| w.strip_prefix('x'))
                    .map_or(1, |n| n.parse().unwrap_or(1));
                let v = c.version();
                let p = c.policy();
                for _ in 0..times {
                    // A get reads first, then tells of its hit, as `Db::get` does.
                    p.on_read();
                    p.on_get_hit(HitLocation { level, file }, &v);
                }
            }
            "pick" | "limits" | "reason" => {
                let got = match words[0] {
                    "pick" => {
                        let v = c.version();
                        let opts = c.opts.clone();
                        let spec = c.policy().pick_compaction(&v, &opts, Requested::Allowed);
                        c.reason = spec.as_ref().map_or("none", |s| s.reason);
                        describe(spec)
                    }
                    "reason" => c.reason.to_string(),
                    _ => limits(c),
                };
                let want = lines
                    .get(i)
                    .and_then(|l| l.trim().strip_prefix("=>"))
                    .map(str::trim)
                    .unwrap_or_else(|| c.fail(line_no, "expected a `=> …` line next".into()));
                i += 1;
                if got != want {
                    c.fail(line_no + 1, format!("want {want:?}, got {got:?}"));
                }
            }
            other => match level_of(other) {
                Some(level) => add_table(c, line_no, level, &words[1..]),
                None => c.fail(line_no, format!("unknown command {other:?}")),
            },
        }
    }
    ran
}

#[test]
fn leveled_picker_cases() {
    assert!(run(include_str!("testdata/leveled.txt")) >= 5);
}

#[test]
fn universal_picker_cases() {
    assert!(run(include_str!("testdata/universal.txt")) >= 10);
}

#[test]
fn fslsm_picker_cases() {
    assert!(run(include_str!("testdata/fslsm.txt")) >= 5);
}
