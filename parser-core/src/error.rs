//! Configuration errors. Model output never produces an error: bad output degrades to data.

use std::fmt;

/// An error in configuring a parser: an unknown parser or model, bad tools, a bad option.
///
/// Parsing itself cannot fail; see the crate docs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
}

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// No registered parser has this name or alias.
    UnknownParser(String),
    /// No registered parser matches this model name.
    UnknownModel(String),
    /// The request's `tools` could not be read.
    InvalidTools(String),
    /// An option value is not valid.
    InvalidOption(String),
    /// A budget ran out: one of [`crate::TemplateLimits`] while a chat template rendered or was analysed,
    /// or a size cap on a configuration (a response-format regex or schema). `limit` names the field
    /// of the limits (`"fuel"`, `"output_bytes"`, …); `message` says what ran out, where, and how far the
    /// work had got.
    LimitExceeded {
        /// The limit that was reached, as its field is named in [`crate::TemplateLimits`] (or
        /// `"regex_size"`, `"schema_depth"` for configurations).
        limit: &'static str,
        /// What ran out, in which template, and how far it got.
        message: String,
    },
}

impl Error {
    /// An error of this kind.
    pub fn new(kind: ErrorKind) -> Self {
        Error { kind }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::UnknownParser(name) => write!(
                f,
                "no parser named `{name}` (run `llm-parse --list` to see the registered names)"
            ),
            ErrorKind::UnknownModel(model) => write!(
                f,
                "no parser for model `{model}`: name a parser explicitly, or give the chat template"
            ),
            ErrorKind::InvalidTools(why) => write!(f, "invalid tools: {why}"),
            ErrorKind::InvalidOption(why) => write!(f, "invalid option: {why}"),
            ErrorKind::LimitExceeded { limit, message } => {
                write!(f, "limit `{limit}` exceeded: {message}")
            }
        }
    }
}

impl std::error::Error for Error {}
