//! gflags-style parsing of a command line and its flag files.
//!
//! Accepted forms, as gflags accepts them: `--name=value`, `-name=value`, `--name value` (not for
//! booleans), and for booleans `--name`, `--noname`, `--name=true|false|1|0|yes|no|t|f|y|n`.
//! `--flagfile=PATH` reads flags from a file, `--undefok=a,b` lets unknown flags pass. A db_bench
//! flag lsmlab does not implement yet is refused by name; an unknown flag gets the closest known
//! name.

use super::compat;
use super::table::{BenchFlags, REFUSED, SUPPORTED};
use crate::engine::EngineKind;
use crate::error::{CliError, CliResult};
use crate::suggest::closest;

/// What the command line asked for.
#[derive(Debug, Clone)]
pub enum Parsed {
    /// Run with these flags.
    Run {
        /// Every flag, set or default.
        flags: Box<BenchFlags>,
        /// Names of the flags the command line set, in order.
        explicit: Vec<String>,
        /// One line per flag accepted without effect, to print before running.
        notes: Vec<String>,
    },
    /// `--help` was given.
    Help,
}

/// Parses db_bench-style arguments, then checks the values against each other.
pub fn parse(args: &[String]) -> CliResult<Parsed> {
    let args = expand_flagfiles(args, 0)?;
    let args = &args[..];
    // As gflags: `--undefok` applies to the whole command line, wherever it stands.
    let undefok: Vec<String> = args
        .iter()
        .filter_map(|a| {
            a.strip_prefix("--undefok=")
                .or_else(|| a.strip_prefix("-undefok="))
        })
        .flat_map(|l| l.split(',').map(|n| n.trim().to_string()))
        .filter(|n| !n.is_empty())
        .collect();
    let mut flags = BenchFlags::default();
    let mut set = Vec::new();
    let mut notes = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let body = arg
            .strip_prefix("--")
            .or_else(|| arg.strip_prefix('-'))
            .filter(|b| !b.is_empty())
            .ok_or_else(|| {
                CliError::new(format!(
                    "unexpected argument {arg:?}: flags look like --name=value"
                ))
            })?;
        let (name, value) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        if name == "help" || name == "h" {
            return Ok(Parsed::Help);
        }
        if SUPPORTED.contains(&name) {
            let raw = match value {
                Some(v) => v,
                None if BenchFlags::is_bool(name) => "true".to_string(),
                None => {
                    let next = args
                        .get(i)
                        .filter(|n| !n.starts_with("--"))
                        .ok_or_else(|| {
                            CliError::new(format!("--{name}: missing value (use --{name}=VALUE)"))
                        })?;
                    i += 1;
                    next.clone()
                }
            };
            flags.set_raw(name, &raw)?;
            set.push(name.to_string());
            continue;
        }
        if let Some(base) = name.strip_prefix("no") {
            if SUPPORTED.contains(&base) && BenchFlags::is_bool(base) && value.is_none() {
                flags.set_raw(base, "false")?;
                set.push(base.to_string());
                continue;
            }
        }
        if name == "undefok" {
            continue;
        }
        if let Some(f) = compat::find(name) {
            let raw = value.unwrap_or_else(|| "true".to_string());
            notes.push(compat::check(f, &raw).map_err(CliError::new)?);
            continue;
        }
        if REFUSED.contains(&name) {
            return Err(CliError::new(format!(
                "--{name}: a db_bench flag lsmlab does not support yet; remove it (see `lsmlab bench --help`)"
            )));
        }
        if undefok.iter().any(|n| n == name) {
            continue;
        }
        let candidates = SUPPORTED.iter().chain(REFUSED.iter()).copied();
        let hint = closest(name, candidates)
            .map(|c| format!("; did you mean --{c}?"))
            .unwrap_or_default();
        return Err(CliError::new(format!("unknown flag --{name}{hint}")));
    }
    // An explicit empty --db would open the working directory as a database.
    if flags.db.is_empty() && set.iter().any(|n| n == "db") {
        return Err(CliError::new(
            "--db: empty; give a directory, or leave --db out for db_bench's default under /tmp",
        ));
    }
    flags.validate()?;
    flags.validate_explicit(&set, &|n| format!("--{n}"))?;
    let engine = flags.engine_kind()?;
    let settings = flags.settings()?;
    flags
        .engine_refusal(engine, &settings, &set)
        .map_err(|(name, why)| crate::engine::refused(engine, &format!("--{name}"), &why))?;
    if engine != EngineKind::Lsmlab {
        // The libraries are not given these either: their own defaults stand.
        for n in &mut notes {
            n.push_str(&format!(
                " (and none on --engine={}: the library's default stands)",
                engine.name()
            ));
        }
    }
    Ok(Parsed::Run {
        flags: Box::new(flags),
        explicit: set,
        notes,
    })
}

/// gflags nests flag files at most this deep (a file naming itself would recurse forever).
const MAX_FLAGFILE_DEPTH: usize = 8;

/// Replaces every `--flagfile=PATH` by the flags in PATH: one per line, `#` starts a comment
/// line, blank lines are skipped (gflags' format).
fn expand_flagfiles(args: &[String], depth: usize) -> CliResult<Vec<String>> {
    let mut out = Vec::with_capacity(args.len());
    for a in args {
        let Some(path) = a
            .strip_prefix("--flagfile=")
            .or_else(|| a.strip_prefix("-flagfile="))
        else {
            out.push(a.clone());
            continue;
        };
        if depth >= MAX_FLAGFILE_DEPTH {
            return Err(CliError::new(format!(
                "--flagfile={path}: flag files nested deeper than {MAX_FLAGFILE_DEPTH}"
            )));
        }
        let text = std::fs::read_to_string(path)
            .map_err(|e| CliError::new(format!("--flagfile={path}: cannot read: {e}")))?;
        let inner: Vec<String> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect();
        out.extend(expand_flagfiles(&inner, depth + 1)?);
    }
    Ok(out)
}
