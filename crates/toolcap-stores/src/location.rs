//! Opening a store from what the user typed (`--store`, `TOOLCAP_STORE`, a config):
//! a SQLite database file path, or a `postgres://` / `postgresql://` URL.
//!
//! ```no_run
//! # fn main() -> Result<(), toolcap_store::StoreError> {
//! // the same call for either kind
//! let local = toolcap_stores::open("results.db")?;
//! let shared = toolcap_stores::open("postgres://toolcap@db.internal/toolcap")?;
//! assert_eq!(shared.storage_type(), "postgres");
//! # let _ = local;
//! # Ok(())
//! # }
//! ```

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use toolcap_store::backend::{Open, Opened};
use toolcap_store::{ResultStore, StoreError};

/// The store backends a location can name: one row each. A new backend is its
/// crate (a [`ResultStore`] and an opener, built on `toolcap_store::backend`)
/// and one row here, with its optional dependency and cargo feature in this
/// crate's `Cargo.toml`; the CLI, the bindings and the servers reach it through
/// [`Location`] without naming it. The last file backend takes every location
/// that is not a URL of a listed scheme.
const BACKENDS: &[Backend] = &[
    Backend {
        name: "postgres",
        at: At::Url {
            schemes: &["postgres", "postgresql"],
            #[cfg(feature = "postgres")]
            check: toolcap_store_postgres::check_url,
            #[cfg(not(feature = "postgres"))]
            check: |_| Ok(()),
            #[cfg(feature = "postgres")]
            redact: toolcap_store_postgres::redact_url,
            #[cfg(not(feature = "postgres"))]
            redact: redact_userinfo,
            #[cfg(feature = "postgres")]
            open: Some(toolcap_store_postgres::open_at),
            #[cfg(not(feature = "postgres"))]
            open: None,
        },
    },
    Backend {
        name: "sqlite",
        at: At::File {
            #[cfg(feature = "sqlite")]
            open: Some(toolcap_store_sqlite::open_at),
            #[cfg(not(feature = "sqlite"))]
            open: None,
        },
    },
];

/// One store backend: its name (its `storage_type()` and the cargo feature that
/// builds it) and how a location names and opens it.
struct Backend {
    name: &'static str,
    at: At,
}

/// How a backend is named and opened: a file path, or a URL of its schemes.
/// `open` is `None` when this build lacks the backend's feature.
enum At {
    File {
        open: Option<fn(&Path, Open) -> Opened>,
    },
    Url {
        /// Lowercase, without the `:`; matched in any case.
        schemes: &'static [&'static str],
        /// The URL checked before anything is opened (a usage error naming the fix).
        check: fn(&str) -> Result<(), StoreError>,
        /// The URL without its password.
        redact: fn(&str) -> String,
        open: Option<fn(&str, Open) -> Opened>,
    },
}

/// Where a store is: see the module docs. Shown (`Display`, `Debug`) without a
/// URL's password.
#[derive(Clone, PartialEq, Eq)]
pub struct Location {
    backend: &'static str,
    target: Target,
}

#[derive(Clone, PartialEq, Eq)]
enum Target {
    File(PathBuf),
    Url {
        /// As given, password included: used only to connect.
        url: String,
        /// Without the password.
        shown: String,
    },
}

/// Whether `spec` is a URL of a store backend (`postgres://...`: its scheme, in
/// any case), not a file path.
pub fn is_url(spec: &str) -> bool {
    url_backend(spec).is_some()
}

/// The URL backend whose scheme `spec` starts with.
fn url_backend(spec: &str) -> Option<&'static Backend> {
    let (scheme, _) = spec.split_once(':')?;
    BACKENDS.iter().find(|b| match &b.at {
        At::Url { schemes, .. } => schemes.iter().any(|s| s.eq_ignore_ascii_case(scheme)),
        At::File { .. } => false,
    })
}

/// The name of the backend that keeps a store in a file (`sqlite`): what a
/// location that is not a URL opens.
pub fn file_backend() -> &'static str {
    file_row().name
}

/// The backend of file paths.
fn file_row() -> &'static Backend {
    BACKENDS
        .iter()
        .rfind(|b| matches!(b.at, At::File { .. }))
        .unwrap_or(&BACKENDS[0])
}

fn backend(name: &str) -> &'static Backend {
    BACKENDS
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(file_row)
}

impl Location {
    /// What `spec` names: a URL when it starts with a backend's scheme
    /// (`postgres:` or `postgresql:`, any case), else a file path (SQLite). A
    /// malformed URL is a [`StoreError::BadLocation`] naming the fix, before
    /// anything is opened.
    pub fn parse(spec: impl AsRef<OsStr>) -> Result<Location, StoreError> {
        let spec = spec.as_ref();
        if let Some(s) = spec.to_str()
            && let Some(b) = url_backend(s)
            && let At::Url { check, redact, .. } = &b.at
        {
            check(s)?;
            return Ok(Location {
                backend: b.name,
                target: Target::Url {
                    url: s.to_string(),
                    shown: redact(s),
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
            backend: file_row().name,
            target: Target::File(PathBuf::from(spec)),
        })
    }

    /// The backend's name, as its store's `storage_type()` says it: `sqlite`,
    /// `postgres`.
    pub fn backend(&self) -> &'static str {
        self.backend
    }

    /// The store's file, for a location that is a file path (not a URL).
    pub fn file_path(&self) -> Option<&Path> {
        match &self.target {
            Target::File(p) => Some(p),
            Target::Url { .. } => None,
        }
    }

    /// Whether this is a URL (a database server), not a file path.
    pub fn is_url(&self) -> bool {
        matches!(self.target, Target::Url { .. })
    }

    /// The SQLite database file, for a SQLite location ([`file_path`](Self::file_path)).
    pub fn sqlite_path(&self) -> Option<&Path> {
        self.file_path().filter(|_| self.backend == "sqlite")
    }

    /// Whether this is a PostgreSQL URL.
    pub fn is_postgres(&self) -> bool {
        self.backend == "postgres"
    }

    /// Open the store, creating it (the SQLite file and its directory, or the
    /// PostgreSQL tables) if needed.
    pub fn open(&self) -> Result<Arc<dyn ResultStore>, StoreError> {
        self.open_as(Open::Create)
            .and_then(|s| s.ok_or_else(|| self.not_opened()))
    }

    /// [`open`](Self::open), a SQLite store waiting at most `busy` for another
    /// process that holds the file (opening it and each write; see
    /// `SqliteStore::open_waiting`). A PostgreSQL store is opened as by
    /// [`open`](Self::open).
    pub fn open_waiting(&self, busy: Duration) -> Result<Arc<dyn ResultStore>, StoreError> {
        self.open_as(Open::Waiting(busy))
            .and_then(|s| s.ok_or_else(|| self.not_opened()))
    }

    /// Open an existing store; `Ok(None)` when there is none there yet (no SQLite
    /// file, or no toolcap tables in the database): nothing was ever stored there.
    /// Nothing is created.
    pub fn open_existing(&self) -> Result<Option<Arc<dyn ResultStore>>, StoreError> {
        self.open_as(Open::Existing)
    }

    fn open_as(&self, how: Open) -> Opened {
        match (&backend(self.backend).at, &self.target) {
            (At::File { open: Some(open) }, Target::File(path)) => open(path, how),
            (
                At::Url {
                    open: Some(open), ..
                },
                Target::Url { url, .. },
            ) => open(url, how),
            _ => Err(self.not_built()),
        }
    }

    /// This build lacks the backend's cargo feature.
    fn not_built(&self) -> StoreError {
        let feature = self.backend;
        let fix = if self.is_url() {
            format!("rebuild it with --features {feature} (or pass a SQLite file path)")
        } else {
            format!("rebuild it with --features {feature}")
        };
        StoreError::not_built(
            self.to_string(),
            format!("this toolcap was built without the `{feature}` feature"),
            fix,
        )
    }

    /// An opener that created nothing (it must, unless asked for an existing store).
    fn not_opened(&self) -> StoreError {
        StoreError::bad_location(
            self.to_string(),
            "the store was not opened".into(),
            "pass a SQLite file path or a postgres://USER@HOST/DATABASE URL".into(),
        )
    }

    /// A file store's directory must exist (a path the user typed: a typo is an
    /// error, not a new directory tree); nothing to check for a URL.
    pub fn check_dir(&self) -> Result<(), StoreError> {
        self.file_path().map_or(Ok(()), check_dir)
    }

    /// A note for "nothing found there" messages: ` (no store file there yet)` for
    /// a file path with no file; empty otherwise.
    pub fn missing_note(&self) -> &'static str {
        match &self.target {
            Target::File(p) if !p.exists() => " (no store file there yet)",
            _ => "",
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.target {
            Target::File(p) => write!(f, "{}", p.display()),
            Target::Url { shown, .. } => f.write_str(shown),
        }
    }
}

impl fmt::Debug for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `Sqlite("results.db")`, `Postgres("postgres://u:***@h/db")`
        let mut name = self.backend.to_string();
        if let Some(first) = name.get_mut(..1) {
            first.make_ascii_uppercase();
        }
        let t = &mut f.debug_tuple(&name);
        match &self.target {
            Target::File(p) => t.field(p).finish(),
            Target::Url { shown, .. } => t.field(shown).finish(),
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

/// A store file's directory must exist: it is not created. The error names the
/// directory and the `mkdir -p` that makes it.
pub fn check_dir(path: &Path) -> Result<(), StoreError> {
    let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) else {
        return Ok(());
    };
    if dir.is_dir() {
        return Ok(());
    }
    let problem = if dir.exists() {
        format!("{} is not a directory", dir.display())
    } else {
        format!("the directory {} does not exist", dir.display())
    };
    Err(StoreError::bad_location(
        path.display().to_string(),
        problem,
        format!(
            "pass a path in an existing directory (or create it first: mkdir -p {})",
            toolcap_text::quote::shell_path(&dir.display().to_string())
                .unwrap_or_else(|| dir.display().to_string())
        ),
    ))
}

/// A URL shown up to its host only (a backend this build lacks cannot parse it).
#[cfg(not(feature = "postgres"))]
fn redact_userinfo(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => format!("{}://…{}", &url[..s], &url[at..]),
        _ => url.to_string(),
    }
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

    #[test]
    fn every_location_is_read_through_the_table_of_backends() {
        for (spec, backend, url) in [
            ("results.db", "sqlite", false),
            ("./postgres.db", "sqlite", false),
            ("pg://h/db", "sqlite", false),
            ("postgres://u@h/db", "postgres", true),
            ("postgresql://db.internal/toolcap", "postgres", true),
        ] {
            let at = Location::parse(spec).unwrap();
            assert_eq!((at.backend(), at.is_url()), (backend, url), "{spec}");
            assert_eq!(is_url(spec), url, "{spec}");
            assert_eq!(at.file_path().is_some(), !url, "{spec}");
        }
        assert_eq!(file_backend(), "sqlite");
        // one file backend; URL schemes lowercase and each naming one backend
        let files = BACKENDS.iter().filter(|b| matches!(b.at, At::File { .. }));
        assert_eq!(files.count(), 1);
        let mut schemes = Vec::new();
        for b in BACKENDS {
            if let At::Url { schemes: s, .. } = &b.at {
                schemes.extend(s.iter().copied());
            }
        }
        assert!(schemes.iter().all(|s| *s == s.to_ascii_lowercase()));
        let n = schemes.len();
        schemes.sort_unstable();
        schemes.dedup();
        assert_eq!(schemes.len(), n, "a scheme names two backends");
        let shown = format!("{:?}", Location::parse("postgres://tc:pw@db/r").unwrap());
        assert!(shown.starts_with(r#"Postgres("postgres://"#), "{shown}");
        assert!(!shown.contains("pw"), "{shown}");
        let shown = format!("{:?}", Location::parse("results.db").unwrap());
        assert_eq!(shown, r#"Sqlite("results.db")"#);
    }

    #[cfg(not(feature = "postgres"))]
    #[test]
    fn a_backend_this_build_lacks_is_named_with_its_feature() {
        let at = Location::parse("postgres://tc:pw@db/results").unwrap();
        let e = at.open().unwrap_err();
        assert_eq!(e.kind(), toolcap_store::StoreErrorKind::NotBuilt);
        let msg = e.to_string();
        assert!(
            msg.contains("built without the `postgres` feature"),
            "{msg}"
        );
        assert!(msg.contains("rebuild it with --features postgres"), "{msg}");
        assert!(!msg.contains("pw"), "{msg}");
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
