//! Error types shared by every problem.
//!
//! Input problems are reported with the file, the field (with its index) and
//! what is wrong, e.g. `spd-7.json: access[17]: has 24 values, expected 25 (one
//! per server)`. Library code never panics on input-derived data.

use std::fmt;
use std::path::{Path, PathBuf};

/// Where in an input file something is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// File name as given by the user (or `<memory>` for in-memory instances).
    pub file: String,
    /// Field path with indices, e.g. `access[17]` or `links[3][2]`.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}: {}: {}", self.file, self.field, self.message)
        }
    }
}

/// Every error the library returns.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad input data: a file, field and index are named.
    #[error("{0}")]
    Input(InputError),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A request that cannot be served (unknown engine, engine not applicable,
    /// a refusal such as k-best's subset cap).
    #[error("{0}")]
    Usage(String),
    /// An engine name that its family's list does not hold.
    #[error("{}", unknown_engine(family, name, known))]
    UnknownEngine {
        /// The family whose list was searched (or `any` across families).
        family: String,
        /// The name asked for.
        name: String,
        /// The names the list holds, in table order.
        known: Vec<String>,
    },
    /// A flag's value that cannot be used: the flag, the value and what it
    /// must be.
    #[error("{flag} {value}: expected {expected}")]
    BadFlag {
        /// The flag as spelt (`--budget`).
        flag: String,
        /// The value given.
        value: String,
        /// What it must be.
        expected: String,
    },
    /// An output folder that already holds results (pass `--resume`, or
    /// choose another).
    #[error("{}: {hint}", path.display())]
    ResultsExist {
        /// The folder.
        path: PathBuf,
        /// What to do instead.
        hint: String,
    },
    /// Runs contradict each other (a claimed optimum, bound or
    /// infeasibility beaten by another engine): a bug somewhere (exit 1).
    #[error("{count} conflict(s): {detail}")]
    Conflicts {
        /// How many.
        count: usize,
        /// What and where.
        detail: String,
    },
    /// Stopped by Ctrl-C or a caller's interrupt flag (exit 130); what was
    /// finished is kept.
    #[error("interrupted: {0}")]
    Interrupted(String),
    /// The LP/MILP backend failed.
    #[error("solver: {0}")]
    Solver(String),
    /// A broken promise inside the crate (a bug), never the user's input.
    #[error("internal error (a bug, please report it): {0}")]
    Internal(String),
    /// Standard output could not be written (a full disk, a closed pipe).
    #[error("cannot write the output: {0}")]
    Output(std::io::Error),
}

impl Error {
    /// Builds an input error for `file`, `field`.
    pub fn input(
        file: impl Into<String>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Error::Input(InputError {
            file: file.into(),
            field: field.into(),
            message: message.into(),
        })
    }

    /// Wraps an I/O error with its path.
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// True for errors caused by the user's input or request (CLI exit code 2).
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            Error::Input(_)
                | Error::Io { .. }
                | Error::Usage(_)
                | Error::UnknownEngine { .. }
                | Error::BadFlag { .. }
                | Error::ResultsExist { .. }
        )
    }

    /// The CLI's exit code for this error: 2 for the user's input or
    /// request, 130 after an interrupt, 1 for everything else (conflicts,
    /// solver failures, bugs, an unwritable output).
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Interrupted(_) => crate::core::interrupt::EXIT_INTERRUPTED,
            e if e.is_user_error() => 2,
            _ => 1,
        }
    }
}

impl Error {
    /// True for a write to a pipe whose reader has gone (`… | head`): the
    /// command stops quietly.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Output(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

/// Result alias used across the crate.
pub type Result<T> = std::result::Result<T, Error>;

fn unknown_engine(family: &str, name: &str, known: &[String]) -> String {
    let family = if family.is_empty() {
        String::new()
    } else {
        format!("{family} ")
    };
    format!(
        "unknown {family}engine '{name}' (known: {})",
        known.join(", ")
    )
}
