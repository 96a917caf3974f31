//! [`ConfigError`]: what is wrong in a configuration, where, and the fix.

use std::collections::BTreeMap;
use std::fmt;
use std::num::NonZeroU32;

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
    /// The line of the file the key or value is on (1-based), when known
    /// ([`ConfigError::line`] as a `usize`).
    pub line: Option<NonZeroU32>,
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
    /// An error about `key` of the settings from `origin` (a file, an
    /// environment variable, or what a harness registered): what is wrong and
    /// how to fix it, with no line and no underlying source.
    ///
    /// For code that checks settings of its own and reports them as the
    /// configuration's errors are reported (the struct is `#[non_exhaustive]`,
    /// so this is how one is made outside this crate), as
    /// `toolcap::ToolResultProcessor::register` reports a custom family whose
    /// threshold is not above `max_kept_chars`.
    ///
    /// ```
    /// use toolcap_config::{ConfigError, ConfigErrorKind};
    ///
    /// let e = ConfigError::new(
    ///     "my-harness.toml".to_string(),
    ///     "tools.fetch.timeout",
    ///     ConfigErrorKind::Invalid,
    ///     "timeout = 0 is not above 0".to_string(),
    ///     "use a timeout of at least 1 second".to_string(),
    /// );
    /// assert_eq!(e.kind(), ConfigErrorKind::Invalid);
    /// assert_eq!(e.line(), None);
    /// assert_eq!(
    ///     e.to_string(),
    ///     "my-harness.toml: tools.fetch.timeout: timeout = 0 is not above 0\n  fix: use a timeout of at least 1 second"
    /// );
    /// ```
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
            line: None,
            source: None,
        }
    }

    /// The error with the line of its key, when it has none yet and its
    /// origin is one of `files` (origin, the line of each dotted key): the
    /// key's own line, else the line of the nearest table holding it.
    pub(crate) fn located(mut self, files: &[(String, BTreeMap<String, usize>)]) -> ConfigError {
        if self.line.is_some() {
            return self;
        }
        let Some((_, lines)) = files.iter().find(|(origin, _)| *origin == self.origin) else {
            return self;
        };
        // a key quoted in the message (`budget.models."gpt-5"`) is bare in the map
        let unquoted = self.key.replace('"', "");
        let mut key = unquoted.as_str();
        self.line = loop {
            if let Some(&line) = lines.get(key) {
                break line_number(line);
            }
            match key.rsplit_once('.') {
                Some((table, _)) => key = table,
                None => break None,
            }
        };
        self
    }

    /// What kind of problem it is.
    pub fn kind(&self) -> ConfigErrorKind {
        self.kind
    }

    /// The line of the file the key or value is on (1-based), when known.
    pub fn line(&self) -> Option<usize> {
        self.line.map(|l| l.get() as usize)
    }
}

/// Line `n` (1-based) as the error keeps it (`None` for 0; a line past
/// `u32::MAX` is said to be on the last line it can name).
pub(crate) fn line_number(n: usize) -> Option<NonZeroU32> {
    NonZeroU32::new(u32::try_from(n).unwrap_or(u32::MAX))
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            // after the problem: `FILE: KEY: PROBLEM` reads as it always did
            Some(line) => write!(
                f,
                "{}: {}: {} (line {line})\n  fix: {}",
                self.origin, self.key, self.problem, self.fix
            ),
            None => write!(
                f,
                "{}: {}: {}\n  fix: {}",
                self.origin, self.key, self.problem, self.fix
            ),
        }
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
        (
            &self.origin,
            &self.key,
            &self.problem,
            &self.fix,
            self.kind,
            self.line,
        ) == (
            &other.origin,
            &other.key,
            &other.problem,
            &other.fix,
            other.kind,
            other.line,
        )
    }
}

impl Eq for ConfigError {}
