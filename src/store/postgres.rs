//! [`PostgresStore`]: results in a PostgreSQL database shared by many hosts (cargo
//! feature `postgres`).
//!
//! Same semantics as [`SqliteStore`](super::SqliteStore): every call scoped by a
//! dialog id; a result committed once its `put` returns (one transaction, the
//! server's own durability: `synchronous_commit` as the server sets it); readers
//! never see half a result; metadata reads never touch the output.
//!
//! Outputs are kept in chunks of at most [`CHUNK_BYTES`] bytes (whole characters,
//! `bytea`, so any text, NUL characters included, comes back byte for byte), in
//! table `toolcap_chunks`. A result that fits one chunk is kept by one statement. A
//! stream ([`ResultStore::begin_output`]) is written one chunk per statement as it
//! is read, its chunks owned by a row of `toolcap_spills` until the commit, which
//! deletes that row and adds the `toolcap_results` row in one transaction. A writer
//! killed mid-stream leaves its spill behind, invisible; `prune` deletes the spills
//! not written to since its cutoff (a writer whose spill was pruned fails clearly).
//! Deleting or replacing a result deletes its chunks (a trigger).
//!
//! Paging ([`ResultStore::read_range`]) reads only the chunks that hold the window;
//! [`ResultStore::stream_output`] fetches a few chunks at a time through a portal.
//!
//! Schema: created by toolcap on first use, in the first schema of the connection's
//! `search_path`, all names prefixed `toolcap_`; `toolcap_schema.version` is checked
//! on every open and older schemas are migrated in one transaction (concurrent
//! openers wait for each other on an advisory lock). A database made by a newer
//! toolcap is refused.
//!
//! Connections: a small pool per store (at most [`MAX_CONNECTIONS`]), opened as
//! needed; a connection the server closed is replaced, and a call that failed on
//! it is retried once on a new one. No TLS: the server must accept plain
//! connections (keep it on a private network, or reach it through a tunnel).

use std::collections::HashMap;
use std::fmt;
use std::ops::{ControlFlow, Deref, DerefMut};
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use postgres::config::Host;
use postgres::error::SqlState;
use postgres::types::ToSql;
use postgres::{Client, Config, NoTls, Row, Statement};
use serde_json::Value;

use super::chunked::{ChunkSink, Chunked};
use super::{Meta, OutputWriter, Record, ResultStore, StoreError, now_ms, validate_id};
use crate::cut::index::Totals;
use crate::text::byte_of_char;

/// Largest chunk of a stored output, in bytes (a chunk holds whole characters).
/// Paging 2,000 characters reads one or two chunks.
pub const CHUNK_BYTES: usize = 64 * 1024;

/// `toolcap_schema.version` of the current schema.
pub const SCHEMA_VERSION: i32 = 1;

/// Most connections one store opens at once; callers beyond that wait.
pub const MAX_CONNECTIONS: usize = 8;

/// How long connecting may take, unless the URL sets `connect_timeout`.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a caller waits for a free connection when all are busy.
const POOL_WAIT: Duration = Duration::from_secs(60);

/// Advisory lock key held while the schema is created or migrated ("tcap").
const MIGRATION_LOCK: i64 = 0x7463_6170;

/// The migrations: `MIGRATIONS[v]` brings a schema of version `v` to `v + 1`.
const MIGRATIONS: [&str; 1] = [SCHEMA_V1];

/// Version 1.
const SCHEMA_V1: &str = "
CREATE TABLE toolcap_schema (
    version integer NOT NULL
);
INSERT INTO toolcap_schema (version) VALUES (0);
-- ids of outputs: a spill's id, then its result's output_id
CREATE SEQUENCE toolcap_output_ids;
CREATE TABLE toolcap_results (
    dialog_id    text    NOT NULL,
    tool_call_id text    NOT NULL,
    tool_name    text    NOT NULL,
    tool_args    text    NOT NULL,   -- JSON
    size_bytes   bigint  NOT NULL,
    size_chars   bigint  NOT NULL,
    size_lines   bigint  NOT NULL,
    truncated    boolean NOT NULL,
    shown_chars  bigint  NOT NULL,   -- char offset right after what the model saw
    created_at   bigint  NOT NULL,   -- milliseconds since the Unix epoch
    output_id    bigint  NOT NULL,   -- its chunks
    PRIMARY KEY (dialog_id, tool_call_id)
);
CREATE INDEX toolcap_results_created_at ON toolcap_results (created_at);
-- outputs being written (or left unfinished by a killed writer)
CREATE TABLE toolcap_spills (
    id         bigint PRIMARY KEY DEFAULT nextval('toolcap_output_ids'),
    started_at bigint NOT NULL,      -- milliseconds since the Unix epoch
    touched_at bigint NOT NULL       -- when its last chunk was written
);
CREATE TABLE toolcap_chunks (
    output_id  bigint NOT NULL,      -- toolcap_spills.id; toolcap_results.output_id once committed
    char_start bigint NOT NULL,      -- characters of the output before this chunk
    bytes      bytea  NOT NULL,      -- UTF-8
    PRIMARY KEY (output_id, char_start)
);
-- a result deleted or replaced takes its chunks with it
CREATE FUNCTION toolcap_drop_chunks() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP = 'DELETE' OR OLD.output_id <> NEW.output_id THEN
        DELETE FROM toolcap_chunks WHERE output_id = OLD.output_id;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER toolcap_results_drop_chunks AFTER UPDATE OR DELETE ON toolcap_results
    FOR EACH ROW EXECUTE FUNCTION toolcap_drop_chunks();
";

const META_COLUMNS: &str = "r.dialog_id, r.tool_call_id, r.tool_name, r.tool_args, r.size_bytes, \
                            r.size_chars, r.size_lines, r.truncated, r.shown_chars, r.created_at";

/// Insert or replace a result whose output is `$11` (one chunk), in one statement.
const PUT_ONE_CHUNK: &str = "WITH o AS (SELECT nextval('toolcap_output_ids') AS id), \
     c AS (INSERT INTO toolcap_chunks (output_id, char_start, bytes) \
           SELECT id, 0, $11::bytea FROM o) \
     INSERT INTO toolcap_results (dialog_id, tool_call_id, tool_name, tool_args, size_bytes, \
     size_chars, size_lines, truncated, shown_chars, created_at, output_id) \
     SELECT $1::text, $2::text, $3::text, $4::text, $5::bigint, $6::bigint, $7::bigint, \
     $8::boolean, $9::bigint, $10::bigint, id FROM o \
     ON CONFLICT (dialog_id, tool_call_id) DO UPDATE SET \
     tool_name = excluded.tool_name, tool_args = excluded.tool_args, \
     size_bytes = excluded.size_bytes, size_chars = excluded.size_chars, \
     size_lines = excluded.size_lines, truncated = excluded.truncated, \
     shown_chars = excluded.shown_chars, created_at = excluded.created_at, \
     output_id = excluded.output_id";

/// Insert or replace a result whose chunks are kept under `$11`.
const UPSERT: &str = "INSERT INTO toolcap_results (dialog_id, tool_call_id, tool_name, \
     tool_args, size_bytes, size_chars, size_lines, truncated, shown_chars, created_at, output_id) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
     ON CONFLICT (dialog_id, tool_call_id) DO UPDATE SET \
     tool_name = excluded.tool_name, tool_args = excluded.tool_args, \
     size_bytes = excluded.size_bytes, size_chars = excluded.size_chars, \
     size_lines = excluded.size_lines, truncated = excluded.truncated, \
     shown_chars = excluded.shown_chars, created_at = excluded.created_at, \
     output_id = excluded.output_id";

/// A chunk of a spill, written only while the spill is there (touching it).
const WRITE_CHUNK: &str = "WITH s AS (UPDATE toolcap_spills SET touched_at = $2 WHERE id = $1 \
     RETURNING id) INSERT INTO toolcap_chunks (output_id, char_start, bytes) \
     SELECT id, $3::bigint, $4::bytea FROM s";

/// Results in a PostgreSQL database. See the module docs.
pub struct PostgresStore {
    /// The URL without its password, for messages.
    shown: String,
    /// `host:port` (or the socket directory and port), for messages.
    server: String,
    pool: Pool,
}

impl fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PostgresStore")
            .field("url", &self.shown)
            .finish_non_exhaustive()
    }
}

/// Whether `spec` is meant as a PostgreSQL URL: it starts with `postgres:` or
/// `postgresql:` (any case).
pub fn is_postgres_url(spec: &str) -> bool {
    let lower = spec.get(..11).unwrap_or(spec).to_ascii_lowercase();
    lower.starts_with("postgres:") || lower.starts_with("postgresql:")
}

/// `url` with its password (in the user part or a `password=` parameter) replaced by
/// `***`, for messages and logs. Works on malformed URLs too.
pub fn redact_url(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return redact_query(url);
    };
    let (scheme, rest) = url.split_at(scheme_end);
    let auth_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (auth, tail) = rest.split_at(auth_end);
    let auth = match auth.rfind('@') {
        Some(at) => {
            let (userinfo, host) = auth.split_at(at);
            match userinfo.find(':') {
                Some(colon) => format!("{}:***{host}", &userinfo[..colon]),
                None => auth.to_string(),
            }
        }
        None => auth.to_string(),
    };
    format!("{scheme}{auth}{}", redact_query(tail))
}

fn redact_query(s: &str) -> String {
    let Some(q) = s.find('?') else {
        return s.to_string();
    };
    let (head, query) = s.split_at(q + 1);
    let parts: Vec<String> = query
        .split('&')
        .map(|p| match p.split_once('=') {
            Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
            _ => p.to_string(),
        })
        .collect();
    format!("{head}{}", parts.join("&"))
}

/// The error of a URL that cannot be used.
fn bad_url(shown: &str, problem: impl Into<String>) -> StoreError {
    StoreError::BadLocation {
        shown: shown.to_string(),
        problem: problem.into(),
        fix: "write it as postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (a socket directory \
              as the host is written %2Fpath%2Fto%2Fdir, or ?host=/path/to/dir)"
            .into(),
    }
}

/// Parse and complete a PostgreSQL URL: a host is required; `connect_timeout`
/// defaults to 10 s, `application_name` to `toolcap`, and the password to
/// `$PGPASSWORD` when the URL has none.
fn parse_config(url: &str) -> Result<(Config, String), StoreError> {
    let shown = redact_url(url);
    if !url.contains("://") {
        return Err(bad_url(&shown, "not a URL (no `://`)"));
    }
    let mut config = Config::from_str(url).map_err(|e| bad_url(&shown, chain(&e)))?;
    if config.get_hosts().is_empty() && config.get_hostaddrs().is_empty() {
        return Err(bad_url(&shown, "it names no host"));
    }
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_application_name().is_none() {
        config.application_name("toolcap");
    }
    if config.get_password().is_none()
        && let Some(pw) = std::env::var_os("PGPASSWORD").filter(|p| !p.is_empty())
    {
        config.password(pw.as_encoded_bytes());
    }
    Ok((config, shown))
}

/// Check `url` (a PostgreSQL URL) without connecting: the error names what to fix.
pub fn check_url(url: &str) -> Result<(), StoreError> {
    parse_config(url).map(drop)
}

/// `host:port` of the first server a config names.
fn server_of(config: &Config) -> String {
    let port = config.get_ports().first().copied().unwrap_or(5432);
    match config.get_hosts().first() {
        Some(Host::Tcp(h)) if h.contains(':') => format!("[{h}]:{port}"),
        Some(Host::Tcp(h)) => format!("{h}:{port}"),
        Some(Host::Unix(dir)) => format!("{}/.s.PGSQL.{port}", dir.display()),
        None => match config.get_hostaddrs().first() {
            Some(a) => format!("{a}:{port}"),
            None => format!("?:{port}"),
        },
    }
}

/// An error with its causes, `: `-joined.
fn chain(e: &dyn std::error::Error) -> String {
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
fn describe(e: &postgres::Error) -> String {
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

impl PostgresStore {
    /// Connect to the database at `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DB`),
    /// creating toolcap's tables if they are not there and migrating older ones.
    pub fn open(url: &str) -> Result<PostgresStore, StoreError> {
        let (store, found) = Self::connect(url)?;
        if !matches!(found, Found::Version(SCHEMA_VERSION)) {
            let mut conn = store.pool.get().map_err(|e| store.connect_error(e))?;
            migrate(&mut conn.client).map_err(|e| match e {
                Migrate::Pg(e) => store.schema_error(e),
                Migrate::Newer(v) => store.newer(v),
                Migrate::Foreign => store.foreign(),
            })?;
        }
        Ok(store)
    }

    /// Connect to the database at `url`; `Ok(None)` when toolcap's tables are not
    /// there (nothing was ever stored in it). Nothing is created (an older schema
    /// is migrated).
    pub fn open_existing(url: &str) -> Result<Option<PostgresStore>, StoreError> {
        match Self::connect(url)? {
            (_, Found::None) => Ok(None),
            (store, Found::Version(SCHEMA_VERSION)) => Ok(Some(store)),
            _ => Self::open(url).map(Some),
        }
    }

    /// The URL without its password.
    pub fn url(&self) -> &str {
        &self.shown
    }

    /// Connect, and look at the schema: refused when it is another program's or a
    /// newer toolcap's.
    fn connect(url: &str) -> Result<(PostgresStore, Found), StoreError> {
        let (config, shown) = parse_config(url)?;
        let server = server_of(&config);
        let store = PostgresStore {
            shown,
            server,
            pool: Pool::new(config),
        };
        let mut conn = store.pool.get().map_err(|e| store.connect_error(e))?;
        let found = schema_version(&mut conn.client).map_err(|e| store.schema_error(e))?;
        drop(conn);
        // (another program's table is told from a half-seen concurrent creation
        // under the migration lock: `open` then says so)
        match found {
            Found::Version(v) if v > SCHEMA_VERSION => Err(store.newer(v)),
            found => Ok((store, found)),
        }
    }

    fn open_error(&self, problem: String, fix: &str) -> StoreError {
        StoreError::Open {
            path: PathBuf::from(&self.shown),
            problem,
            fix: fix.to_string(),
        }
    }

    fn foreign(&self) -> StoreError {
        self.open_error(
            "it holds a table toolcap_results that toolcap did not make (no toolcap_schema)".into(),
            "name another database in the URL, or another schema \
             (?options=-csearch_path%3DNAME); toolcap never writes into other programs' tables",
        )
    }

    fn newer(&self, v: i32) -> StoreError {
        self.open_error(
            format!("it was made by a newer toolcap (schema {v}; this one reads {SCHEMA_VERSION})"),
            "upgrade toolcap, or name another database in the URL",
        )
    }

    fn schema_error(&self, e: postgres::Error) -> StoreError {
        let fix = if e.code() == Some(&SqlState::INSUFFICIENT_PRIVILEGE) {
            "let the database's owner run toolcap once (it creates the toolcap_* tables), \
             or grant this user CREATE on the first schema in its search_path"
        } else {
            "check that the database is reachable and that the user may create and use tables"
        };
        self.open_error(describe(&e), fix)
    }

    /// The error of a failed connection, naming what to fix.
    fn connect_error(&self, e: PoolError) -> StoreError {
        let (problem, fix) = match e {
            PoolError::Busy => (
                format!("all {MAX_CONNECTIONS} connections stayed busy for {POOL_WAIT:?}"),
                "the server or the network is slow: check the server's load".to_string(),
            ),
            PoolError::Pg(e) => {
                let problem = describe(&e);
                let fix = match e.code() {
                    Some(c)
                        if *c == SqlState::INVALID_PASSWORD
                            || *c == SqlState::INVALID_AUTHORIZATION_SPECIFICATION =>
                    {
                        "check the user name and password in the URL (postgres://USER:PASSWORD@HOST/DB, \
                         or the password in PGPASSWORD), and that the server's pg_hba.conf lets \
                         this user in from this host"
                            .to_string()
                    }
                    Some(c) if *c == SqlState::INVALID_CATALOG_NAME => {
                        "create the database first (createdb, or CREATE DATABASE), or name an \
                         existing one in the URL"
                            .to_string()
                    }
                    Some(c) if *c == SqlState::TOO_MANY_CONNECTIONS => {
                        "the server has no connection slots left: raise max_connections or run \
                         fewer toolcap processes"
                            .to_string()
                    }
                    Some(_) => "check the URL and the server's log".to_string(),
                    None if problem.contains("password missing") => {
                        "the server asks for a password: put it in the URL \
                         (postgres://USER:PASSWORD@HOST/DB) or in PGPASSWORD"
                            .to_string()
                    }
                    None if problem.contains("TLS") || problem.contains("tls") => {
                        "toolcap connects without TLS: drop sslmode=require from the URL and let \
                         the server accept plain connections from this host (or use a tunnel)"
                            .to_string()
                    }
                    None => format!(
                        "check that PostgreSQL is running and accepts connections at {}, and \
                         that the host and port in the URL are right",
                        self.server
                    ),
                };
                (problem, fix)
            }
        };
        StoreError::Connect {
            url: self.shown.clone(),
            server: self.server.clone(),
            problem,
            fix,
        }
    }

    fn io(&self, action: &'static str, e: postgres::Error) -> StoreError {
        StoreError::Io {
            path: PathBuf::from(&self.shown),
            action,
            problem: describe(&e),
        }
    }

    fn problem(&self, action: &'static str, problem: String) -> StoreError {
        StoreError::Io {
            path: PathBuf::from(&self.shown),
            action,
            problem,
        }
    }

    /// Run `f` on a pooled connection; when it fails because the connection was
    /// closed under it (a server restart), once more on a new one.
    fn run<T>(
        &self,
        action: &'static str,
        mut f: impl FnMut(&mut Pg) -> Result<T, postgres::Error>,
    ) -> Result<T, StoreError> {
        let mut conn = self.pool.get().map_err(|e| self.connect_error(e))?;
        match f(&mut conn) {
            Err(e) if conn.reused && (e.is_closed() || conn.is_closed()) => {
                drop(conn);
                let mut conn = self.pool.get().map_err(|e| self.connect_error(e))?;
                f(&mut conn).map_err(|e| self.io(action, e))
            }
            r => r.map_err(|e| self.io(action, e)),
        }
    }
}

enum Found {
    None,
    Foreign,
    Version(i32),
}

fn schema_version(c: &mut impl postgres::GenericClient) -> Result<Found, postgres::Error> {
    let row = c.query_one(
        "SELECT to_regclass('toolcap_schema') IS NOT NULL, \
         to_regclass('toolcap_results') IS NOT NULL",
        &[],
    )?;
    let (schema, results): (bool, bool) = (row.try_get(0)?, row.try_get(1)?);
    if !schema {
        return Ok(if results { Found::Foreign } else { Found::None });
    }
    let v: Option<i32> = c
        .query_one("SELECT max(version) FROM toolcap_schema", &[])?
        .try_get(0)?;
    Ok(Found::Version(v.unwrap_or(0)))
}

enum Migrate {
    Pg(postgres::Error),
    Newer(i32),
    Foreign,
}

impl From<postgres::Error> for Migrate {
    fn from(e: postgres::Error) -> Migrate {
        Migrate::Pg(e)
    }
}

/// Create the schema, or bring an older one up to date, in one transaction, holding
/// an advisory lock so that concurrent openers take turns. (The lock is taken
/// before the transaction starts, so that the transaction sees the tables another
/// opener just made: catalog lookups inside a transaction that began earlier may
/// not.)
fn migrate(client: &mut Client) -> Result<(), Migrate> {
    client.execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])?;
    let r = migrate_locked(client);
    // (a connection that failed is closed, and its session lock with it)
    let _ = client.execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK]);
    r
}

fn migrate_locked(client: &mut Client) -> Result<(), Migrate> {
    let mut tx = client.transaction()?;
    // looked at again under the lock: another process may have done it
    let from = match schema_version(&mut tx)? {
        Found::Version(v) => v,
        Found::None => 0,
        Found::Foreign => return Err(Migrate::Foreign),
    };
    if from > SCHEMA_VERSION {
        return Err(Migrate::Newer(from));
    }
    if from == SCHEMA_VERSION {
        return Ok(());
    }
    let start = usize::try_from(from).unwrap_or(0);
    for step in MIGRATIONS.iter().skip(start) {
        tx.batch_execute(step)?;
    }
    tx.execute("UPDATE toolcap_schema SET version = $1", &[&SCHEMA_VERSION])?;
    tx.commit()?;
    Ok(())
}

// ---- the pool ----

enum PoolError {
    Pg(postgres::Error),
    Busy,
}

struct Pool {
    config: Config,
    state: Mutex<PoolState>,
    freed: Condvar,
}

struct PoolState {
    idle: Vec<Pg>,
    open: usize,
}

/// A connection and the statements prepared on it.
struct Pg {
    client: Client,
    stmts: HashMap<String, Statement>,
}

impl Pg {
    /// `sql` prepared on this connection (once: a statement is parsed and planned
    /// by the server the first time only).
    fn prep(&mut self, sql: &str) -> Result<Statement, postgres::Error> {
        if let Some(st) = self.stmts.get(sql) {
            return Ok(st.clone());
        }
        let st = self.client.prepare(sql)?;
        self.stmts.insert(sql.to_string(), st.clone());
        Ok(st)
    }

    fn execute(&mut self, sql: &str, p: &[&(dyn ToSql + Sync)]) -> Result<u64, postgres::Error> {
        let st = self.prep(sql)?;
        self.client.execute(&st, p)
    }

    fn query(&mut self, sql: &str, p: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>, postgres::Error> {
        let st = self.prep(sql)?;
        self.client.query(&st, p)
    }

    fn is_closed(&self) -> bool {
        self.client.is_closed()
    }
}

/// A pooled connection, given back when dropped (unless the server closed it).
struct Conn<'a> {
    pool: &'a Pool,
    pg: Option<Pg>,
    /// Taken from the idle ones (it may have been closed meanwhile).
    reused: bool,
}

impl Pool {
    fn new(config: Config) -> Pool {
        Pool {
            config,
            state: Mutex::new(PoolState {
                idle: Vec::new(),
                open: 0,
            }),
            freed: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, PoolState> {
        // the state is two plain fields: a panic cannot leave it half-changed
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn get(&self) -> Result<Conn<'_>, PoolError> {
        let deadline = Instant::now() + POOL_WAIT;
        let mut state = self.lock();
        loop {
            while let Some(client) = state.idle.pop() {
                if client.is_closed() {
                    state.open -= 1;
                    continue;
                }
                return Ok(Conn {
                    pool: self,
                    pg: Some(client),
                    reused: true,
                });
            }
            if state.open < MAX_CONNECTIONS {
                state.open += 1;
                drop(state);
                return match self.config.connect(NoTls) {
                    Ok(client) => Ok(Conn {
                        pool: self,
                        pg: Some(Pg {
                            client,
                            stmts: HashMap::new(),
                        }),
                        reused: false,
                    }),
                    Err(e) => {
                        self.lock().open -= 1;
                        self.freed.notify_one();
                        Err(PoolError::Pg(e))
                    }
                };
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(PoolError::Busy);
            }
            state = self
                .freed
                .wait_timeout(state, left)
                .map(|(s, _)| s)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }
}

impl Deref for Conn<'_> {
    type Target = Pg;
    fn deref(&self) -> &Pg {
        // Some until dropped
        self.pg.as_ref().unwrap_or_else(|| unreachable!())
    }
}

impl DerefMut for Conn<'_> {
    fn deref_mut(&mut self) -> &mut Pg {
        self.pg.as_mut().unwrap_or_else(|| unreachable!())
    }
}

impl Drop for Conn<'_> {
    fn drop(&mut self) {
        let mut state = self.pool.lock();
        match self.pg.take() {
            Some(c) if !c.is_closed() => state.idle.push(c),
            _ => state.open -= 1,
        }
        drop(state);
        self.pool.freed.notify_one();
    }
}

// ---- rows ----

fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn to_usize(n: i64) -> usize {
    usize::try_from(n).unwrap_or(0)
}

fn meta_from_row(r: &Row) -> Result<Meta, postgres::Error> {
    let args: String = r.try_get(3)?;
    Ok(Meta {
        dialog_id: r.try_get(0)?,
        tool_call_id: r.try_get(1)?,
        tool_name: r.try_get(2)?,
        tool_args: serde_json::from_str(&args).unwrap_or(Value::String(args)),
        size: Totals {
            bytes: to_usize(r.try_get(4)?),
            chars: to_usize(r.try_get(5)?),
            lines: to_usize(r.try_get(6)?),
        },
        truncated: r.try_get(7)?,
        shown_chars: to_usize(r.try_get(8)?),
        created_at_ms: r.try_get(9)?,
    })
}

/// The chunk in columns 10 (char_start) and 11 (bytes) of a row, if any.
fn chunk_of(r: &Row) -> Result<Option<(usize, &str)>, ChunkError> {
    let start: Option<i64> = r.try_get(10).map_err(ChunkError::Pg)?;
    let bytes: Option<&[u8]> = r.try_get(11).map_err(ChunkError::Pg)?;
    match (start, bytes) {
        (Some(s), Some(b)) => std::str::from_utf8(b)
            .map(|t| Some((to_usize(s), t)))
            .map_err(|e| ChunkError::NotUtf8(to_usize(s), e)),
        _ => Ok(None),
    }
}

enum ChunkError {
    Pg(postgres::Error),
    NotUtf8(usize, std::str::Utf8Error),
}

impl PostgresStore {
    fn chunk_error(&self, e: ChunkError) -> StoreError {
        match e {
            ChunkError::Pg(e) => self.io("read", e),
            ChunkError::NotUtf8(start, e) => self.problem(
                "read",
                format!(
                    "the stored chunk at character {start} is not UTF-8 ({e}): the table \
                     toolcap_chunks was changed by hand; delete the result and store it again"
                ),
            ),
        }
    }

    fn check_meta(&self, m: &Meta) -> Result<(), StoreError> {
        validate_id("dialog id", &m.dialog_id)?;
        validate_id("tool_call_id", &m.tool_call_id)?;
        if m.tool_name.contains('\0') {
            return Err(self.problem(
                "write",
                format!(
                    "the tool name {} holds a NUL character, which PostgreSQL text cannot hold; \
                     pass the tool's name without it",
                    crate::quote::json_string(&m.tool_name)
                ),
            ));
        }
        Ok(())
    }
}

/// The ten metadata parameters ($1..$10) of [`PUT_ONE_CHUNK`] and [`UPSERT`].
struct MetaParams {
    args: String,
    bytes: i64,
    chars: i64,
    lines: i64,
    shown: i64,
}

impl MetaParams {
    fn new(m: &Meta) -> MetaParams {
        MetaParams {
            args: m.tool_args.to_string(),
            bytes: to_i64(m.size.bytes),
            chars: to_i64(m.size.chars),
            lines: to_i64(m.size.lines),
            shown: to_i64(m.shown_chars),
        }
    }

    fn with<'a>(
        &'a self,
        m: &'a Meta,
        last: &'a (dyn ToSql + Sync),
    ) -> [&'a (dyn ToSql + Sync); 11] {
        [
            &m.dialog_id,
            &m.tool_call_id,
            &m.tool_name,
            &self.args,
            &self.bytes,
            &self.chars,
            &self.lines,
            &m.truncated,
            &self.shown,
            &m.created_at_ms,
            last,
        ]
    }
}

/// Where an output written piece by piece goes: chunks under its row in
/// `toolcap_spills`, invisible until the commit.
struct PgSink<'a> {
    store: &'a PostgresStore,
    /// Its row in `toolcap_spills`: the output_id of its chunks.
    spill: i64,
}

impl ChunkSink for PgSink<'_> {
    const CHUNK_BYTES: usize = CHUNK_BYTES;

    fn chunk(&mut self, start: usize, text: &str) -> Result<bool, StoreError> {
        let (spill, start) = (self.spill, to_i64(start));
        let bytes = text.as_bytes();
        let written = self.store.run("write", |c| {
            c.execute(WRITE_CHUNK, &[&spill, &now_ms(), &start, &bytes])
        })?;
        Ok(written > 0)
    }

    fn commit(&mut self, m: &Meta, start: usize, last: &str) -> Result<bool, StoreError> {
        let params = MetaParams::new(m);
        let (spill, start) = (self.spill, to_i64(start));
        let last = last.as_bytes();
        self.store.run("write", |c| {
            let delete = c.prep("DELETE FROM toolcap_spills WHERE id = $1")?;
            let insert = c.prep(
                "INSERT INTO toolcap_chunks (output_id, char_start, bytes) VALUES ($1, $2, $3)",
            )?;
            let upsert = c.prep(UPSERT)?;
            let mut tx = c.client.transaction()?;
            // deleting the spill row first locks out a prune (and tells if one won)
            if tx.execute(&delete, &[&spill])? == 0 {
                return Ok(false);
            }
            if !last.is_empty() || start == 0 {
                tx.execute(&insert, &[&spill, &start, &last])?;
            }
            tx.execute(&upsert, &params.with(m, &spill))?;
            tx.commit()?;
            Ok(true)
        })
    }

    fn discard(&mut self, _wrote: bool) {
        let spill = self.spill;
        let _ = self.store.run("discard", |c| {
            let mut tx = c.client.transaction()?;
            tx.execute("DELETE FROM toolcap_spills WHERE id = $1", &[&spill])?;
            tx.execute("DELETE FROM toolcap_chunks WHERE output_id = $1", &[&spill])?;
            tx.commit()
        });
    }

    fn check(&self, m: &Meta) -> Result<(), StoreError> {
        self.store.check_meta(m)
    }

    fn problem(&self, action: &'static str, problem: String) -> StoreError {
        self.store.problem(action, problem)
    }
}

impl ResultStore for PostgresStore {
    fn storage_type(&self) -> &'static str {
        "postgres"
    }

    fn put_output(&self, m: &Meta, output: &str) -> Result<(), StoreError> {
        self.check_meta(m)?;
        if output.len() > CHUNK_BYTES {
            let mut w = self.begin_output()?;
            w.write(output)?;
            return w.commit(m);
        }
        let params = MetaParams::new(m);
        let bytes = output.as_bytes();
        self.run("write", |c| {
            c.execute(PUT_ONE_CHUNK, &params.with(m, &bytes))
        })?;
        Ok(())
    }

    fn begin_output(&self) -> Result<Box<dyn OutputWriter + '_>, StoreError> {
        let now = now_ms();
        let row = self.run("write", |c| {
            c.client.query_one(
                "INSERT INTO toolcap_spills (started_at, touched_at) VALUES ($1, $1) RETURNING id",
                &[&now],
            )
        })?;
        let spill: i64 = row.try_get(0).map_err(|e| self.io("write", e))?;
        Ok(Box::new(Chunked::new(PgSink { store: self, spill })))
    }

    fn meta(&self, dialog_id: &str, tool_call_id: &str) -> Result<Option<Meta>, StoreError> {
        let sql = format!(
            "SELECT {META_COLUMNS} FROM toolcap_results r \
             WHERE r.dialog_id = $1 AND r.tool_call_id = $2"
        );
        self.run("read", |c| {
            c.query(sql.as_str(), &[&dialog_id, &tool_call_id])?
                .first()
                .map(meta_from_row)
                .transpose()
        })
    }

    fn get(&self, dialog_id: &str, tool_call_id: &str) -> Result<Option<Record>, StoreError> {
        // one statement, one snapshot: the row and its chunks as one commit left them
        let sql = format!(
            "SELECT {META_COLUMNS}, c.char_start, c.bytes FROM toolcap_results r \
             LEFT JOIN toolcap_chunks c ON c.output_id = r.output_id \
             WHERE r.dialog_id = $1 AND r.tool_call_id = $2 ORDER BY c.char_start"
        );
        let rows = self.run("read", |c| {
            c.query(sql.as_str(), &[&dialog_id, &tool_call_id])
        })?;
        let Some(first) = rows.first() else {
            return Ok(None);
        };
        let meta = meta_from_row(first).map_err(|e| self.io("read", e))?;
        let mut output = String::with_capacity(meta.size.bytes);
        for r in &rows {
            if let Some((_, text)) = chunk_of(r).map_err(|e| self.chunk_error(e))? {
                output.push_str(text);
            }
        }
        Ok(Some(Record { meta, output }))
    }

    fn read_range(
        &self,
        dialog_id: &str,
        tool_call_id: &str,
        offset: usize,
        len: usize,
    ) -> Result<Option<(Meta, String)>, StoreError> {
        // only the chunks that hold [offset, offset + len): the last one starting at
        // or before offset, and those starting before the end
        let sql = format!(
            "SELECT {META_COLUMNS}, c.char_start, c.bytes FROM toolcap_results r \
             LEFT JOIN LATERAL (SELECT k.char_start, k.bytes FROM toolcap_chunks k \
                WHERE k.output_id = r.output_id AND k.char_start < $4 AND k.char_start >= \
                coalesce((SELECT max(char_start) FROM toolcap_chunks \
                          WHERE output_id = r.output_id AND char_start <= $3), 0)) c ON true \
             WHERE r.dialog_id = $1 AND r.tool_call_id = $2 ORDER BY c.char_start"
        );
        let from = to_i64(offset);
        let end = to_i64(offset.saturating_add(len));
        let rows = self.run("read", |c| {
            c.query(sql.as_str(), &[&dialog_id, &tool_call_id, &from, &end])
        })?;
        let Some(first) = rows.first() else {
            return Ok(None);
        };
        let meta = meta_from_row(first).map_err(|e| self.io("read", e))?;
        let mut out = String::new();
        let mut left = len;
        for r in &rows {
            if left == 0 {
                break;
            }
            let Some((start, text)) = chunk_of(r).map_err(|e| self.chunk_error(e))? else {
                continue;
            };
            let rest = &text[byte_of_char(text, offset.saturating_sub(start))..];
            let piece = &rest[..byte_of_char(rest, left)];
            out.push_str(piece);
            left -= piece.chars().count().min(left);
        }
        Ok(Some((meta, out)))
    }

    fn stream_output(
        &self,
        dialog_id: &str,
        tool_call_id: &str,
        sink: &mut dyn FnMut(&str) -> ControlFlow<()>,
    ) -> Result<Option<Meta>, StoreError> {
        let sql = format!(
            "SELECT {META_COLUMNS}, c.char_start, c.bytes FROM toolcap_results r \
             LEFT JOIN toolcap_chunks c ON c.output_id = r.output_id \
             WHERE r.dialog_id = $1 AND r.tool_call_id = $2 ORDER BY c.char_start"
        );
        let mut conn = self.pool.get().map_err(|e| self.connect_error(e))?;
        let stmt = conn.prep(&sql).map_err(|e| self.io("read", e))?;
        let mut tx = conn.client.transaction().map_err(|e| self.io("read", e))?;
        // a portal: a few chunks at a time, never the whole output at once
        let portal = tx
            .bind(&stmt, &[&dialog_id, &tool_call_id])
            .map_err(|e| self.io("read", e))?;
        let mut meta = None;
        'fetch: loop {
            let rows = tx
                .query_portal(&portal, 4)
                .map_err(|e| self.io("read", e))?;
            if rows.is_empty() {
                break;
            }
            for r in &rows {
                if meta.is_none() {
                    meta = Some(meta_from_row(r).map_err(|e| self.io("read", e))?);
                }
                if let Some((_, text)) = chunk_of(r).map_err(|e| self.chunk_error(e))?
                    && sink(text).is_break()
                {
                    break 'fetch;
                }
            }
        }
        drop(portal);
        tx.commit().map_err(|e| self.io("read", e))?;
        Ok(meta)
    }

    fn list(&self, dialog_id: Option<&str>) -> Result<Vec<Meta>, StoreError> {
        let sql = format!(
            "SELECT {META_COLUMNS} FROM toolcap_results r \
             WHERE $1::text IS NULL OR r.dialog_id = $1 \
             ORDER BY r.created_at, r.dialog_id, r.tool_call_id"
        );
        self.run("read", |c| {
            c.query(sql.as_str(), &[&dialog_id])?
                .iter()
                .map(meta_from_row)
                .collect()
        })
    }

    fn delete_dialog(&self, dialog_id: &str) -> Result<usize, StoreError> {
        // (a trigger deletes the chunks of what is deleted)
        let n = self.run("delete", |c| {
            c.execute(
                "DELETE FROM toolcap_results WHERE dialog_id = $1",
                &[&dialog_id],
            )
        })?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    fn prune_before(&self, cutoff_ms: i64) -> Result<usize, StoreError> {
        let n = self.run("prune", |c| {
            let mut tx = c.client.transaction()?;
            let n = tx.execute(
                "DELETE FROM toolcap_results WHERE created_at < $1",
                &[&cutoff_ms],
            )?;
            // unfinished writes not written to since the cutoff (a killed writer's):
            // the spill rows first, which locks out a writer still adding to one
            tx.execute(
                "WITH s AS (DELETE FROM toolcap_spills WHERE touched_at < $1 RETURNING id) \
                 DELETE FROM toolcap_chunks WHERE output_id IN (SELECT id FROM s)",
                &[&cutoff_ms],
            )?;
            tx.commit()?;
            Ok(n)
        })?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_show() {
        assert_eq!(
            redact_url("postgres://tc:s3cr%40t@db.example:5433/results"),
            "postgres://tc:***@db.example:5433/results"
        );
        assert_eq!(
            redact_url("postgresql://tc@db/results?password=x&sslmode=disable"),
            "postgresql://tc@db/results?password=***&sslmode=disable"
        );
        // a malformed one too: everything up to the last @ before the path is the user part
        assert_eq!(
            redact_url("postgres://a:b@c@host:99999/db"),
            "postgres://a:***@host:99999/db"
        );
        assert_eq!(redact_url("postgres://host/db"), "postgres://host/db");
    }

    #[test]
    fn urls_are_recognised_by_their_scheme() {
        assert!(is_postgres_url("postgres://h/db"));
        assert!(is_postgres_url("PostgreSQL://h/db"));
        assert!(is_postgres_url("postgres:h"));
        assert!(!is_postgres_url("results.db"));
        assert!(!is_postgres_url("./postgres/results.db"));
        assert!(!is_postgres_url("pg"));
    }

    #[test]
    fn malformed_urls_name_the_fix_without_the_password() {
        let e = check_url("postgres://tc:pw@db:notaport/x").unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, StoreError::BadLocation { .. }));
        assert!(
            msg.starts_with("postgres://tc:***@db:notaport/x: "),
            "{msg}"
        );
        assert!(!msg.contains("pw@"), "{msg}");
        assert!(msg.contains("fix: write it as postgres://USER"), "{msg}");
        let e = check_url("postgres:///results").unwrap_err();
        assert!(e.to_string().contains("it names no host"), "{e}");
        let e = check_url("postgres:db").unwrap_err();
        assert!(e.to_string().contains("not a URL"), "{e}");
        assert!(check_url("postgres://tc@127.0.0.1:5432/results").is_ok());
        assert!(check_url("postgresql://tc@%2Ftmp%2Fpg/results").is_ok());
    }

    #[test]
    fn the_server_is_named_as_host_and_port() {
        let (c, _) = parse_config("postgres://u@db.internal/x").unwrap();
        assert_eq!(server_of(&c), "db.internal:5432");
        let (c, _) = parse_config("postgres://u@[::1]:6000/x").unwrap();
        assert_eq!(server_of(&c), "[::1]:6000");
        let (c, _) = parse_config("postgres://u@%2Ftmp%2Fpg:5433/x").unwrap();
        assert_eq!(server_of(&c), "/tmp/pg/.s.PGSQL.5433");
    }
}
