//! The one error type of the `lsmlab` command: a one-line message for the user.
//!
//! Bad flags and properties name themselves and what is allowed; engine errors say which
//! benchmark or phase met them. The command prints the message and exits with status 1, never
//! panics on input a user can type.

use std::fmt;

/// A user-facing, one-line error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError(pub String);

impl CliError {
    /// An error with this message.
    pub fn new(msg: impl Into<String>) -> CliError {
        CliError(msg.into())
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CliError {}

impl From<lsmlab::Error> for CliError {
    fn from(e: lsmlab::Error) -> Self {
        CliError(format!("engine: {e}"))
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        CliError(format!("i/o: {e}"))
    }
}

/// Result of every fallible step of the command.
pub type CliResult<T> = Result<T, CliError>;
