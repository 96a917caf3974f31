//! [`ConfigError`]: what is wrong in a configuration, where, and the fix.

use std::fmt;

/// A configuration error: which file, which key, what is wrong, and the fix.
///
/// The message (`Display`) is for people; [`ConfigError::kind`] is for programs.
/// Two errors are equal when they say the same thing (the source is not compared).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ConfigError {
    /// The file (or environment variable) the bad value came from.
    pub origin: String,
    /// Dotted key path, or `(file)` for errors about the file as a whole.
    pub key: String,
    /// What is wrong with the value.
    pub problem: String,
    /// How to fix it.
    pub fix: String,
    /// What kind of problem it is.
    pub kind: ConfigErrorKind,
    /// The underlying error (reading the file, the TOML parser's), if any: the
    /// error's [`source`](std::error::Error::source).
    pub source: Option<std::sync::Arc<dyn std::error::Error + Send + Sync>>,
}

/// What kind of problem a [`ConfigError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigErrorKind {
    /// The file cannot be read.
    Unreadable,
    /// The file is not valid TOML.
    Syntax,
    /// A key that does not exist, or a value of the wrong type or shape.
    Schema,
    /// A value that names nothing known (a family, shape, unit, encoding, preset).
    UnknownName,
    /// A value out of range or empty.
    Invalid,
    /// A setting that is needed is not there.
    Missing,
    /// Two settings that do not go together (a threshold not above `max_kept`).
    Conflict,
    /// A setting that needs a cargo feature this build lacks.
    NotBuilt,
}

impl ConfigError {
    /// An error with no underlying source (for the stages above the
    /// configuration, which cannot build this `#[non_exhaustive]` struct).
    /// Not API of the `toolcap` crate.
    #[doc(hidden)]
    pub fn new(
        origin: String,
        key: &str,
        kind: ConfigErrorKind,
        problem: String,
        fix: String,
    ) -> ConfigError {
        ConfigError {
            origin,
            key: key.to_string(),
            problem,
            fix,
            kind,
            source: None,
        }
    }

    /// What kind of problem it is.
    pub fn kind(&self) -> ConfigErrorKind {
        self.kind
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {}\n  fix: {}",
            self.origin, self.key, self.problem, self.fix
        )
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        // the error itself, not the `Arc` around it (so that it downcasts)
        let e: &(dyn std::error::Error + Send + Sync + 'static) = self.source.as_deref()?;
        Some(e)
    }
}

impl PartialEq for ConfigError {
    fn eq(&self, other: &ConfigError) -> bool {
        (&self.origin, &self.key, &self.problem, &self.fix, self.kind)
            == (
                &other.origin,
                &other.key,
                &other.problem,
                &other.fix,
                other.kind,
            )
    }
}

impl Eq for ConfigError {}
