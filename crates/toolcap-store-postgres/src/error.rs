//! The errors of a [`PostgresStore`]: what the client or the server said, told
//! apart by the error's structure (its SQLSTATE, the type of its cause, what the
//! URL asked for), never by its text, and the fix for each.

use std::io;

use postgres::Config;
use postgres::config::{SslMode, SslNegotiation};
use postgres::error::SqlState;
use postgres::tls::NoTlsError;

use super::pool::{MAX_CONNECTIONS, POOL_WAIT, PoolError};
use super::rows::ChunkError;
use super::{PostgresStore, SCHEMA_VERSION};
use toolcap_store::{ConnectFailure, StoreError, StoreErrorKind};

/// The error of a URL that cannot be used.
pub(super) fn bad_url(shown: &str, problem: impl Into<String>) -> StoreError {
    StoreError::bad_location(
        shown.to_string(),
        problem.into(),
        "write it as postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (a socket directory \
         as the host is written %2Fpath%2Fto%2Fdir, or ?host=/path/to/dir)"
            .into(),
    )
}

/// An error with its causes, `: `-joined.
pub(super) fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let more = c.to_string();
        if !s.contains(&more) {
            s.push_str(": ");
            s.push_str(&more);
        }
        cause = c.source();
    }
    s
}

/// A PostgreSQL error, the server's message first.
pub(super) fn describe(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => {
            let mut s = format!("{} (SQLSTATE {})", db.message(), db.code().code());
            if let Some(d) = db.detail() {
                s.push_str(&format!("; {d}"));
            }
            if let Some(h) = db.hint() {
                s.push_str(&format!("; hint: {h}"));
            }
            s
        }
        None => chain(e),
    }
}

/// What the URL asks of a connection, for telling its failures apart.
#[derive(Debug, Clone, Copy)]
pub(super) struct Asked {
    /// `sslmode=require`, or `sslnegotiation=direct` (TLS from the first byte):
    /// connecting cannot succeed without TLS, which toolcap does not speak.
    tls: bool,
    /// A password is given (in the URL or `PGPASSWORD`).
    password: bool,
}

impl Asked {
    pub(super) fn of(config: &Config) -> Asked {
        Asked {
            tls: config.get_ssl_mode() == SslMode::Require
                || config.get_ssl_negotiation() == SslNegotiation::Direct,
            password: config.get_password().is_some(),
        }
    }
}

/// Why connecting failed. The server's refusals carry a SQLSTATE; the client's
/// own failures do not, and are told apart by their cause: an I/O error (or a
/// connection closed early) is a server that cannot be reached; otherwise the connection got as far as the
/// server's answer, where only the TLS request (when the URL asks for TLS) or the
/// password request (when there is no password) can stop a client without TLS.
pub(super) fn connect_failure(e: &postgres::Error, asked: Asked) -> ConnectFailure {
    if let Some(code) = e.code() {
        return if *code == SqlState::INVALID_PASSWORD
            || *code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION
        {
            ConnectFailure::Auth
        } else if *code == SqlState::INVALID_CATALOG_NAME {
            ConnectFailure::NoDatabase
        } else if *code == SqlState::TOO_MANY_CONNECTIONS {
            ConnectFailure::TooManyConnections
        } else {
            ConnectFailure::Refused
        };
    }
    let cause = std::error::Error::source(e);
    if e.is_closed() || cause.is_some_and(<dyn std::error::Error + 'static>::is::<io::Error>) {
        ConnectFailure::Unreachable
    } else if cause.is_some_and(<dyn std::error::Error + 'static>::is::<NoTlsError>) || asked.tls {
        ConnectFailure::Tls
    } else if !asked.password {
        ConnectFailure::PasswordMissing
    } else {
        ConnectFailure::Unreachable
    }
}

impl PostgresStore {
    fn open_error(&self, problem: String, fix: &str) -> StoreError {
        StoreError::open(&self.shown, problem, fix)
    }

    pub(super) fn foreign(&self) -> StoreError {
        self.open_error(
            "it holds a table toolcap_results that toolcap did not make (no toolcap_schema)".into(),
            "name another database in the URL, or another schema \
             (?options=-csearch_path%3DNAME); toolcap never writes into other programs' tables",
        )
    }

    pub(super) fn newer(&self, v: i32) -> StoreError {
        self.open_error(
            format!("it was made by a newer toolcap (schema {v}; this one reads {SCHEMA_VERSION})"),
            "upgrade toolcap, or name another database in the URL",
        )
    }

    pub(super) fn schema_error(&self, e: postgres::Error) -> StoreError {
        let fix = if e.code() == Some(&SqlState::INSUFFICIENT_PRIVILEGE) {
            "let the database's owner run toolcap once (it creates the toolcap_* tables), \
             or grant this user CREATE on the first schema in its search_path"
        } else {
            "check that the database is reachable and that the user may create and use tables"
        };
        self.open_error(describe(&e), fix).with_source(e)
    }

    /// The error of a failed connection, naming what to fix.
    pub(super) fn connect_error(&self, e: PoolError) -> StoreError {
        let (failure, problem, source) = match e {
            PoolError::Busy => (
                ConnectFailure::PoolBusy,
                format!("all {MAX_CONNECTIONS} connections stayed busy for {POOL_WAIT:?}"),
                None,
            ),
            PoolError::Pg(e) => (connect_failure(&e, self.asked), describe(&e), Some(e)),
        };
        let fix = match failure {
            ConnectFailure::PoolBusy => {
                "the server or the network is slow: check the server's load".to_string()
            }
            ConnectFailure::Auth => {
                "check the user name and password in the URL (postgres://USER:PASSWORD@HOST/DB, \
                 or the password in PGPASSWORD), and that the server's pg_hba.conf lets \
                 this user in from this host"
                    .to_string()
            }
            ConnectFailure::NoDatabase => {
                "create the database first (createdb, or CREATE DATABASE), or name an \
                 existing one in the URL"
                    .to_string()
            }
            ConnectFailure::TooManyConnections => {
                "the server has no connection slots left: raise max_connections or run \
                 fewer toolcap processes"
                    .to_string()
            }
            ConnectFailure::PasswordMissing => "the server asks for a password: put it in the URL \
                 (postgres://USER:PASSWORD@HOST/DB) or in PGPASSWORD"
                .to_string(),
            ConnectFailure::Tls => {
                "toolcap connects without TLS: drop sslmode=require from the URL and let \
                 the server accept plain connections from this host (or use a tunnel)"
                    .to_string()
            }
            ConnectFailure::Unreachable => format!(
                "check that PostgreSQL is running and accepts connections at {}, and \
                 that the host and port in the URL are right",
                self.server
            ),
            // `Refused` (`ConnectFailure` is non-exhaustive: a failure a later
            // toolcap-store adds reads the same)
            _ => "check the URL and the server's log".to_string(),
        };
        let e = StoreError::connect(
            self.shown.clone(),
            self.server.clone(),
            problem,
            fix,
            failure,
        );
        match source {
            Some(s) => e.with_source(s),
            None => e,
        }
    }

    pub(super) fn io(&self, action: &'static str, e: postgres::Error) -> StoreError {
        StoreError::io(&self.shown, action, describe(&e), StoreErrorKind::Io).with_source(e)
    }

    pub(super) fn problem(
        &self,
        action: &'static str,
        problem: String,
        kind: StoreErrorKind,
    ) -> StoreError {
        StoreError::io(&self.shown, action, problem, kind)
    }

    pub(super) fn chunk_error(&self, e: ChunkError) -> StoreError {
        match e {
            ChunkError::Pg(e) => self.io("read", e),
            ChunkError::NotUtf8(start, e) => self
                .problem(
                    "read",
                    format!(
                        "the stored chunk at character {start} is not UTF-8 ({e}): the table \
                         toolcap_chunks was changed by hand; delete the result and store it again"
                    ),
                    StoreErrorKind::Io,
                )
                .with_source(e),
        }
    }
}
