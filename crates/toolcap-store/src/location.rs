//! Opening a store from what the user typed (`--store`, `TOOLCAP_STORE`, a config):
//! a SQLite database file path, or a `postgres://` / `postgresql://` URL.
//!
//! ```no_run
//! # fn main() -> Result<(), toolcap::StoreError> {
//! // the same call for either kind
//! let local = toolcap::store::open("results.db")?;
//! let shared = toolcap::store::open("postgres://toolcap@db.internal/toolcap")?;
//! assert_eq!(shared.storage_type(), "postgres");
//! # let _ = local;
//! # Ok(())
//! # }
//! ```

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{ResultStore, StoreError};

/// Where a store is: see the module docs. Shown (`Display`, `Debug`) without a
/// URL's password.
#[derive(Clone, PartialEq, Eq)]
pub struct Location {
    kind: Kind,
}

#[derive(Clone, PartialEq, Eq)]
enum Kind {
    Sqlite(PathBuf),
    Postgres {
        /// As given, password included: used only to connect.
        url: String,
        /// Without the password.
        shown: String,
    },
}

impl Location {
    /// What `spec` names: a PostgreSQL URL when it starts with `postgres:` or
    /// `postgresql:` (any case), else a SQLite file path. A malformed URL is a
    /// [`StoreError::BadLocation`] naming the fix, before anything is opened.
    pub fn parse(spec: impl AsRef<OsStr>) -> Result<Location, StoreError> {
        let spec = spec.as_ref();
        if let Some(s) = spec.to_str()
            && is_postgres_url(s)
        {
            #[cfg(feature = "postgres")]
            super::postgres::check_url(s)?;
            return Ok(Location {
                kind: Kind::Postgres {
                    url: s.to_string(),
                    shown: redact_url(s),
                },
            });
        }
        if spec.is_empty() {
            return Err(StoreError::bad_location(
                String::new(),
                "the store location is empty".into(),
                "pass a SQLite file path or a postgres://USER@HOST/DATABASE URL".into(),
            ));
        }
        Ok(Location {
            kind: Kind::Sqlite(PathBuf::from(spec)),
        })
    }

    /// The SQLite database file, for a SQLite location.
    pub fn sqlite_path(&self) -> Option<&Path> {
        match &self.kind {
            Kind::Sqlite(p) => Some(p),
            Kind::Postgres { .. } => None,
        }
    }

    /// Whether this is a PostgreSQL URL.
    pub fn is_postgres(&self) -> bool {
        matches!(self.kind, Kind::Postgres { .. })
    }

    /// Open the store, creating it (the SQLite file and its directory, or the
    /// PostgreSQL tables) if needed.
    pub fn open(&self) -> Result<Arc<dyn ResultStore>, StoreError> {
        match &self.kind {
            Kind::Sqlite(path) => open_sqlite(path),
            Kind::Postgres { url, shown } => open_postgres(url, shown),
        }
    }

    /// [`open`](Self::open), a SQLite store waiting at most `busy` for another
    /// process that holds the file (opening it and each write; see
    /// [`SqliteStore::open_waiting`](super::SqliteStore::open_waiting)). A
    /// PostgreSQL store is opened as by [`open`](Self::open).
    pub fn open_waiting(
        &self,
        busy: std::time::Duration,
    ) -> Result<Arc<dyn ResultStore>, StoreError> {
        match &self.kind {
            Kind::Sqlite(path) => open_sqlite_waiting(path, busy),
            Kind::Postgres { url, shown } => open_postgres(url, shown),
        }
    }

    /// Open an existing store; `Ok(None)` when there is none there yet (no SQLite
    /// file, or no toolcap tables in the database): nothing was ever stored there.
    /// Nothing is created.
    pub fn open_existing(&self) -> Result<Option<Arc<dyn ResultStore>>, StoreError> {
        match &self.kind {
            Kind::Sqlite(path) => open_sqlite_existing(path),
            Kind::Postgres { url, shown } => open_postgres_existing(url, shown),
        }
    }

    /// A note for "nothing found there" messages: ` (no store file there yet)` for
    /// a SQLite path with no file; empty otherwise.
    pub fn missing_note(&self) -> &'static str {
        match &self.kind {
            Kind::Sqlite(p) if !p.exists() => " (no store file there yet)",
            _ => "",
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Sqlite(p) => write!(f, "{}", p.display()),
            Kind::Postgres { shown, .. } => f.write_str(shown),
        }
    }
}

impl fmt::Debug for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Sqlite(p) => f.debug_tuple("Sqlite").field(p).finish(),
            Kind::Postgres { shown, .. } => f.debug_tuple("Postgres").field(shown).finish(),
        }
    }
}

/// Open the store `spec` names (a SQLite path or a PostgreSQL URL), creating it if
/// needed: [`Location::parse`] then [`Location::open`].
pub fn open(spec: impl AsRef<OsStr>) -> Result<Arc<dyn ResultStore>, StoreError> {
    Location::parse(spec)?.open()
}

/// Open the existing store `spec` names; `Ok(None)` when there is none yet:
/// [`Location::parse`] then [`Location::open_existing`].
pub fn open_existing(spec: impl AsRef<OsStr>) -> Result<Option<Arc<dyn ResultStore>>, StoreError> {
    Location::parse(spec)?.open_existing()
}

#[cfg(feature = "postgres")]
use super::postgres::{is_postgres_url, redact_url};

/// Whether `spec` is meant as a PostgreSQL URL (see [`Location::parse`]).
#[cfg(not(feature = "postgres"))]
fn is_postgres_url(spec: &str) -> bool {
    let lower = spec.get(..11).unwrap_or(spec).to_ascii_lowercase();
    lower.starts_with("postgres:") || lower.starts_with("postgresql:")
}

/// Without the `postgres` feature a URL is shown up to its host only.
#[cfg(not(feature = "postgres"))]
fn redact_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => format!("{}://…{}", &url[..s], &url[at..]),
        _ => url.to_string(),
    }
}

#[cfg(feature = "sqlite")]
fn open_sqlite(path: &Path) -> Result<Arc<dyn ResultStore>, StoreError> {
    Ok(Arc::new(super::SqliteStore::open(path)?))
}

#[cfg(feature = "sqlite")]
fn open_sqlite_waiting(
    path: &Path,
    busy: std::time::Duration,
) -> Result<Arc<dyn ResultStore>, StoreError> {
    Ok(Arc::new(super::SqliteStore::open_waiting(path, busy)?))
}

#[cfg(not(feature = "sqlite"))]
fn open_sqlite_waiting(
    path: &Path,
    _busy: std::time::Duration,
) -> Result<Arc<dyn ResultStore>, StoreError> {
    open_sqlite(path)
}

#[cfg(feature = "sqlite")]
fn open_sqlite_existing(path: &Path) -> Result<Option<Arc<dyn ResultStore>>, StoreError> {
    Ok(super::SqliteStore::open_existing(path)?.map(|s| Arc::new(s) as Arc<dyn ResultStore>))
}

#[cfg(not(feature = "sqlite"))]
fn unavailable(shown: String, feature: &str) -> StoreError {
    StoreError::not_built(
        shown,
        format!("this toolcap was built without the `{feature}` feature"),
        format!("rebuild it with --features {feature}"),
    )
}

#[cfg(not(feature = "sqlite"))]
fn open_sqlite(path: &Path) -> Result<Arc<dyn ResultStore>, StoreError> {
    Err(unavailable(path.display().to_string(), "sqlite"))
}

#[cfg(not(feature = "sqlite"))]
fn open_sqlite_existing(path: &Path) -> Result<Option<Arc<dyn ResultStore>>, StoreError> {
    Err(unavailable(path.display().to_string(), "sqlite"))
}

#[cfg(feature = "postgres")]
fn open_postgres(url: &str, _shown: &str) -> Result<Arc<dyn ResultStore>, StoreError> {
    Ok(Arc::new(super::PostgresStore::open(url)?))
}

#[cfg(feature = "postgres")]
fn open_postgres_existing(
    url: &str,
    _shown: &str,
) -> Result<Option<Arc<dyn ResultStore>>, StoreError> {
    Ok(super::PostgresStore::open_existing(url)?.map(|s| Arc::new(s) as Arc<dyn ResultStore>))
}

#[cfg(not(feature = "postgres"))]
fn no_postgres(shown: &str) -> StoreError {
    StoreError::not_built(
        shown,
        "this toolcap was built without the `postgres` feature".into(),
        "rebuild it with --features postgres (or pass a SQLite file path)".into(),
    )
}

#[cfg(not(feature = "postgres"))]
fn open_postgres(_url: &str, shown: &str) -> Result<Arc<dyn ResultStore>, StoreError> {
    Err(no_postgres(shown))
}

#[cfg(not(feature = "postgres"))]
fn open_postgres_existing(
    _url: &str,
    shown: &str,
) -> Result<Option<Arc<dyn ResultStore>>, StoreError> {
    Err(no_postgres(shown))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_urls_are_told_apart() {
        let p = Location::parse("results.db").unwrap();
        assert_eq!(p.sqlite_path(), Some(Path::new("results.db")));
        assert!(!p.is_postgres());
        let u = Location::parse("postgres://tc:hunter2@db:5433/results").unwrap();
        assert!(u.is_postgres());
        assert_eq!(u.sqlite_path(), None);
        assert!(!u.to_string().contains("hunter2"), "{u}");
        assert!(!format!("{u:?}").contains("hunter2"), "{u:?}");
        assert!(matches!(
            Location::parse(""),
            Err(StoreError::BadLocation { .. })
        ));
    }

    #[cfg(feature = "postgres")]
    #[test]
    fn a_malformed_url_is_a_usage_error() {
        let e = Location::parse("postgres://tc:pw@db:http/results").unwrap_err();
        assert!(e.is_usage(), "{e}");
        assert!(!e.to_string().contains(":pw@"), "{e}");
    }

    #[cfg(feature = "sqlite")]
    #[test]
    fn a_missing_sqlite_file_is_no_store_yet() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("none.db");
        assert!(open_existing(&path).unwrap().is_none());
        assert!(!path.exists(), "open_existing created nothing");
        let l = Location::parse(&path).unwrap();
        assert_eq!(l.missing_note(), " (no store file there yet)");
        let s = l.open().unwrap();
        assert_eq!(s.storage_type(), "sqlite");
        assert_eq!(l.missing_note(), "");
    }
}
