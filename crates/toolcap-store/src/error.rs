//! [`StoreError`]: what went wrong in a result store, as a message that names the
//! thing and the fix, a [`kind`](StoreError::kind) a program matches on, and the
//! underlying error (the database client's, the file system's) as its
//! [`source`](std::error::Error::source).

use std::path::PathBuf;

use super::MAX_ID_CHARS;

/// The underlying error of a store failure (a `rusqlite::Error`, a
/// `postgres::Error`, an `io::Error`, ...).
pub type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A store failure, naming the thing and the fix.
///
/// The message (`Display`) is for people; [`StoreError::kind`] is for programs.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// An id that cannot be stored or looked up.
    #[error(
        "{what} {shown}: {problem}; pass the id the harness gave (at most {MAX_ID_CHARS} characters, no control characters)"
    )]
    #[non_exhaustive]
    InvalidId {
        /// `tool_call_id` or `dialog id`.
        what: &'static str,
        /// The id, escaped and shortened for display.
        shown: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The database file cannot be opened or is not a usable toolcap store.
    #[error("{}: cannot open the result store: {problem}\n  fix: {fix}", path.display())]
    #[non_exhaustive]
    Open {
        /// The store's file (or its URL without the password).
        path: PathBuf,
        /// Why it cannot be used.
        problem: String,
        /// What to do about it.
        fix: String,
        /// [`StoreErrorKind::Unusable`] or [`StoreErrorKind::NotBuilt`].
        kind: StoreErrorKind,
        /// The underlying error, if any.
        #[source]
        source: Option<Cause>,
    },
    /// A read or write failed on an open store.
    #[error("{}: result store {action} failed: {problem}", path.display())]
    #[non_exhaustive]
    Io {
        /// The store's file (or its URL without the password).
        path: PathBuf,
        /// What was being done (`write`, `read`, ...).
        action: &'static str,
        /// The underlying error, described.
        problem: String,
        /// [`StoreErrorKind::Io`], [`StoreErrorKind::SizeMismatch`] or
        /// [`StoreErrorKind::Pruned`].
        kind: StoreErrorKind,
        /// The underlying error, if any.
        #[source]
        source: Option<Cause>,
    },
    /// A store location that cannot be used as written (a malformed `postgres://`
    /// URL): the user must change what they typed. The CLI exits 2.
    #[error("{shown}: not a usable result store location: {problem}\n  fix: {fix}")]
    #[non_exhaustive]
    BadLocation {
        /// The location as given, without a password.
        shown: String,
        /// What is wrong with it.
        problem: String,
        /// How to write it.
        fix: String,
        /// The URL parser's error, if any.
        #[source]
        source: Option<Cause>,
    },
    /// The database server could not be reached, or refused the connection (wrong
    /// password, no such database, ...).
    #[error("{url}: cannot connect to PostgreSQL at {server}: {problem}\n  fix: {fix}")]
    #[non_exhaustive]
    Connect {
        /// The URL without its password.
        url: String,
        /// `host:port` (or the socket) it tried.
        server: String,
        /// What the client or the server said.
        problem: String,
        /// What to change.
        fix: String,
        /// Why the connection failed.
        failure: ConnectFailure,
        /// The client's error, if any.
        #[source]
        source: Option<Cause>,
    },
}

/// What kind of failure a [`StoreError`] is, for a program to act on without
/// reading the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum StoreErrorKind {
    /// A tool call id or dialog id that is empty, too long or holds a control
    /// character ([`StoreError::InvalidId`]).
    InvalidId,
    /// A location that cannot be used as written ([`StoreError::BadLocation`]).
    BadLocation,
    /// This build lacks the cargo feature the location needs (`sqlite`, `postgres`).
    NotBuilt,
    /// The file or database is not a usable toolcap store: a directory, a damaged
    /// file, another program's tables, a newer toolcap's schema, no permission.
    Unusable,
    /// A read or write on an open store failed.
    Io,
    /// A result's metadata gives another size than the output written to it.
    SizeMismatch,
    /// A result being written was deleted by a prune before it was complete.
    Pruned,
    /// The database server could not be reached or refused the connection.
    Connect(ConnectFailure),
}

/// Why a connection to the database server failed ([`StoreErrorKind::Connect`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConnectFailure {
    /// The server refused the user name or password.
    Auth,
    /// The server asks for a password and none was given (URL or `PGPASSWORD`).
    PasswordMissing,
    /// The URL asks for TLS, which toolcap does not speak.
    Tls,
    /// The database named in the URL does not exist.
    NoDatabase,
    /// The server has no connection slots left.
    TooManyConnections,
    /// Every connection of the store's pool stayed busy for the whole wait.
    PoolBusy,
    /// The server refused for another reason (its message says which).
    Refused,
    /// Nothing answered at the host and port, or the connection broke.
    Unreachable,
}

impl StoreError {
    /// What kind of failure this is.
    pub fn kind(&self) -> StoreErrorKind {
        match self {
            StoreError::InvalidId { .. } => StoreErrorKind::InvalidId,
            StoreError::BadLocation { .. } => StoreErrorKind::BadLocation,
            StoreError::Open { kind, .. } | StoreError::Io { kind, .. } => *kind,
            StoreError::Connect { failure, .. } => StoreErrorKind::Connect(*failure),
        }
    }

    /// Whether the error is in what the user typed (exit 2 in the CLI), not in the
    /// store or the server (exit 1).
    pub fn is_usage(&self) -> bool {
        self.kind() == StoreErrorKind::BadLocation
    }

    /// Whether the database server is unreachable or refuses connections: worth
    /// retrying later (`toolcap serve` answers 503).
    pub fn is_unavailable(&self) -> bool {
        matches!(self.kind(), StoreErrorKind::Connect(_))
    }

    /// An id that cannot be used.
    pub(crate) fn invalid_id(what: &'static str, shown: String, problem: String) -> StoreError {
        StoreError::InvalidId {
            what,
            shown,
            problem,
        }
    }

    /// A store that cannot be opened or used ([`StoreErrorKind::Unusable`]): the
    /// store's file (or its URL without the password), why, and what to do.
    pub fn open(path: impl Into<PathBuf>, problem: String, fix: &str) -> StoreError {
        StoreError::Open {
            path: path.into(),
            problem,
            fix: fix.to_string(),
            kind: StoreErrorKind::Unusable,
            source: None,
        }
    }

    /// A location whose backend this build lacks ([`StoreErrorKind::NotBuilt`]):
    /// the location, the missing cargo feature as the problem, the rebuild as the fix.
    pub fn not_built(path: impl Into<PathBuf>, problem: String, fix: String) -> StoreError {
        StoreError::Open {
            path: path.into(),
            problem,
            fix,
            kind: StoreErrorKind::NotBuilt,
            source: None,
        }
    }

    /// A failed read or write of kind `kind` while doing `action` (`read`,
    /// `write`, ...) on the store at `path` (or its URL without the password).
    pub fn io(
        path: impl Into<PathBuf>,
        action: &'static str,
        problem: String,
        kind: StoreErrorKind,
    ) -> StoreError {
        StoreError::Io {
            path: path.into(),
            action,
            problem,
            kind,
            source: None,
        }
    }

    /// A location that cannot be used as written ([`StoreError::BadLocation`]):
    /// as given (without a password), what is wrong, how to write it. Made by the
    /// table of backends and by a backend checking its URLs.
    pub fn bad_location(shown: String, problem: String, fix: String) -> StoreError {
        StoreError::BadLocation {
            shown,
            problem,
            fix,
            source: None,
        }
    }

    /// A connection to a database server that failed ([`StoreError::Connect`]):
    /// the URL without its password, the server tried, what the client or the
    /// server said, what to change, and why it failed.
    pub fn connect(
        url: String,
        server: String,
        problem: String,
        fix: String,
        failure: ConnectFailure,
    ) -> StoreError {
        StoreError::Connect {
            url,
            server,
            problem,
            fix,
            failure,
            source: None,
        }
    }

    /// The same error with `source` as its underlying error (only `Open`, `Io`,
    /// `BadLocation` and `Connect` keep one).
    pub fn with_source(mut self, cause: impl Into<Cause>) -> StoreError {
        match &mut self {
            StoreError::Open { source, .. }
            | StoreError::Io { source, .. }
            | StoreError::BadLocation { source, .. }
            | StoreError::Connect { source, .. } => *source = Some(cause.into()),
            StoreError::InvalidId { .. } => {}
        }
        self
    }
}

/// The problem of a failed commit ([`StoreErrorKind::SizeMismatch`]): the metadata
/// gives another size than the output written.
pub(crate) fn size_mismatch(meta: &super::Meta, chars: usize, bytes: usize) -> String {
    format!(
        "the metadata of {} says {} chars and {} bytes, but {chars} chars and \
         {bytes} bytes were written; pass the size of the output written",
        crate::quote::json_string(&meta.tool_call_id),
        meta.size.chars,
        meta.size.bytes
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_follow_the_variant_and_sources_are_kept() {
        let e = StoreError::bad_location("x".into(), "p".into(), "f".into());
        assert_eq!(e.kind(), StoreErrorKind::BadLocation);
        assert!(e.is_usage());
        let io = std::io::Error::other("disk gone");
        let e =
            StoreError::io("s.db", "read", "disk gone".into(), StoreErrorKind::Io).with_source(io);
        assert_eq!(e.to_string(), "s.db: result store read failed: disk gone");
        let source = std::error::Error::source(&e).map(ToString::to_string);
        assert_eq!(source.as_deref(), Some("disk gone"));
        assert!(!e.is_usage() && !e.is_unavailable());
    }
}
