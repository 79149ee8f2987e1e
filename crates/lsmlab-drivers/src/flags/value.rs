//! The types a flag holds and how each parses its text, as gflags parses it; a bad value's
//! error names the flag and what is allowed.

use crate::error::{CliError, CliResult};

/// A type a flag can hold: how to parse it and what to say when the text is wrong.
pub trait FlagValue: Sized {
    /// True for booleans (which take `--name` and `--noname`).
    const IS_BOOL: bool = false;
    /// Parses `raw` for flag `name`; the error names the flag and what is allowed.
    fn parse_flag(name: &str, raw: &str) -> CliResult<Self>;
}

fn bad(name: &str, raw: &str, allowed: &str) -> CliError {
    CliError::new(format!("--{name}: invalid value {raw:?}: {allowed}"))
}

impl FlagValue for bool {
    const IS_BOOL: bool = true;
    fn parse_flag(name: &str, raw: &str) -> CliResult<bool> {
        match raw.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "t" | "y" => Ok(true),
            "false" | "0" | "no" | "f" | "n" => Ok(false),
            _ => Err(bad(name, raw, "expected true/false/1/0/yes/no")),
        }
    }
}

macro_rules! int_flag {
    ($t:ty, $what:expr) => {
        impl FlagValue for $t {
            fn parse_flag(name: &str, raw: &str) -> CliResult<$t> {
                let s = raw.strip_prefix('+').unwrap_or(raw);
                s.parse::<$t>().map_err(|_| bad(name, raw, $what))
            }
        }
    };
}
int_flag!(i64, "expected an integer");
int_flag!(i32, "expected a 32-bit integer");
int_flag!(u64, "expected a non-negative integer");
int_flag!(usize, "expected a non-negative integer");
int_flag!(u32, "expected a non-negative 32-bit integer");

impl FlagValue for f64 {
    fn parse_flag(name: &str, raw: &str) -> CliResult<f64> {
        match raw.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(bad(name, raw, "expected a number")),
        }
    }
}

impl FlagValue for String {
    fn parse_flag(_name: &str, raw: &str) -> CliResult<String> {
        Ok(raw.to_string())
    }
}
