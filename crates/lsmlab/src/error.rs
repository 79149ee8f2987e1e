//! The one error type of the engine.
//!
//! Every error says where it happened: a corrupt byte names its file and offset, an I/O failure
//! names the operation and the path, a bad option names the option.

use std::fmt;
use std::path::PathBuf;

/// Result of every fallible engine call.
pub type Result<T> = std::result::Result<T, Error>;

/// What went wrong.
#[derive(Debug, Clone)]
pub enum Error {
    /// The operating system refused an operation on a file.
    Io {
        /// What the engine was doing, e.g. `"append to WAL"`.
        op: String,
        /// The file or directory involved.
        path: PathBuf,
        /// The kind of the underlying error (disk full, not found, …).
        kind: std::io::ErrorKind,
        /// The operating system's message.
        message: String,
    },
    /// A file holds bytes that cannot be what the engine wrote.
    Corruption {
        /// The file the bad bytes are in.
        file: PathBuf,
        /// Byte offset in that file of the record or block that failed its check.
        offset: u64,
        /// What check failed.
        message: String,
    },
    /// An option holds a value outside what it allows: the option's name (as a field of
    /// [`crate::Options`] or of a parameter set within it, e.g. `fslsm_gamma`), the value as
    /// given, and what is allowed. Front ends map the name back to the flag their user typed,
    /// which is why it is data and not only text.
    InvalidArgument {
        /// The option, e.g. `write_buffer_size`.
        option: String,
        /// The value it was given, as text (strings quoted).
        value: String,
        /// What the option allows, e.g. `must be at least 4096 bytes`.
        allowed: String,
    },
    /// A call the engine cannot carry out with the arguments or in the state it was given (a
    /// key larger than a memtable entry, keys out of order to a table builder, a write after the
    /// MANIFEST failed): a misuse of the API, not a bad option.
    InvalidRequest(String),
    /// The path is not a database, or the database is already open elsewhere.
    NotADatabase(String),
    /// A background flush or compaction failed earlier; the database refuses writes until reopened.
    Background(Box<Error>),
    /// The database has been closed.
    Closed,
}

impl Error {
    /// An I/O error with the operation and path it concerns.
    pub fn io(op: impl Into<String>, path: impl Into<PathBuf>, err: std::io::Error) -> Error {
        Error::Io {
            op: op.into(),
            path: path.into(),
            kind: err.kind(),
            message: err.to_string(),
        }
    }

    /// A corruption found at `offset` in `file`.
    pub fn corruption(file: impl Into<PathBuf>, offset: u64, message: impl Into<String>) -> Error {
        Error::Corruption {
            file: file.into(),
            offset,
            message: message.into(),
        }
    }

    /// An option `option` given `value`, and what it allows.
    pub fn invalid_option(
        option: impl Into<String>,
        value: impl fmt::Display,
        allowed: impl Into<String>,
    ) -> Error {
        Error::InvalidArgument {
            option: option.into(),
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }

    /// True for [`Error::Corruption`], also when wrapped as a background error.
    pub fn is_corruption(&self) -> bool {
        match self {
            Error::Corruption { .. } => true,
            Error::Background(inner) => inner.is_corruption(),
            _ => false,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io {
                op, path, message, ..
            } => write!(f, "I/O error: {op} {}: {message}", path.display()),
            Error::Corruption {
                file,
                offset,
                message,
            } => write!(
                f,
                "Corruption: {} at offset {offset}: {message}",
                file.display()
            ),
            Error::InvalidArgument {
                option,
                value,
                allowed,
            } => write!(f, "Invalid argument: {option} = {value}: {allowed}"),
            // The same words as a bad option: both are RocksDB's `Status::InvalidArgument`.
            Error::InvalidRequest(m) => write!(f, "Invalid argument: {m}"),
            Error::NotADatabase(m) => write!(f, "{m}"),
            Error::Background(e) => write!(
                f,
                "a background job failed, writes are refused until reopen: {e}"
            ),
            Error::Closed => write!(f, "the database is closed"),
        }
    }
}

impl std::error::Error for Error {}
