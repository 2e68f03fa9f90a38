//! `tangent::Error`: what can go wrong, by kind, so that callers act on the kind (the
//! CLI's exit code, the Rust API's user) and show the text.

use crate::syntax::Diagnostic;
use std::fmt;
use std::path::PathBuf;

#[derive(Debug)]
pub enum Error {
    /// A located error in the user's code (`file:line:col`, the line, a caret, a hint):
    /// what cannot be differentiated, and why.
    Diagnostic(Diagnostic),
    /// Something this engine does not do, not tied to a place in the user's code.
    Unsupported(String),
    /// A request that does not make sense: an option's value, a function that is not
    /// defined where it is asked for.
    Usage(String),
    /// A file that could not be read or written; `message` is the whole text shown.
    Io {
        path: PathBuf,
        source: std::io::Error,
        message: String,
    },
    /// An exception raised by Python code run for the caller: its type's name and its
    /// traceback text.
    Python { kind: String, message: String },
    /// A broken invariant of this engine (a bug).
    Internal(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Diagnostic(d) => write!(f, "{d}"),
            Error::Unsupported(m) | Error::Usage(m) | Error::Internal(m) => f.write_str(m),
            Error::Io { message, .. } => f.write_str(message),
            Error::Python { message, .. } => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Diagnostic(d) => Some(d),
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<Diagnostic> for Error {
    fn from(d: Diagnostic) -> Self {
        Error::Diagnostic(d)
    }
}
