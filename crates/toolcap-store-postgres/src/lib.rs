//! [`PostgresStore`]: results in a PostgreSQL database shared by many hosts (cargo
//! feature `postgres`).
//!
//! Same semantics as the SQLite store (`SqliteStore`): every call scoped by a
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
//! Expired results leave a record in `toolcap_expired` (schema version 2; see
//! [`retention`](toolcap_store::retention)).
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

#![warn(missing_docs)]

mod error;
mod pool;
mod record;
mod retention;
mod rows;
mod schema;
mod url;

use std::fmt;
use std::ops::ControlFlow;
use std::sync::Arc;

use pool::{Pg, Pool};
use rows::{MetaParams, PUT_ONE_CHUNK, PgSink, chunk_of, meta_from_row};
use schema::{Found, Migrate, migrate, schema_version};
use toolcap_store::backend::{Chunked, META_COLUMNS, Open, Opened, to_i64};
use toolcap_store::retention::{self as limits, Expired, Expiry, Retention, duration_ms};
use toolcap_store::{
    ListPage, Meta, OutputWriter, Record, ResultStore, StoreError, StoreErrorKind, now_ms,
    validate_id,
};
use toolcap_text::text::byte_of_char;
use url::{parse_config, server_of};

pub use pool::MAX_CONNECTIONS;
pub use url::{check_url, is_postgres_url, redact_url};

/// Largest chunk of a stored output, in bytes (a chunk holds whole characters).
/// Paging 2,000 characters reads one or two chunks.
pub const CHUNK_BYTES: usize = 64 * 1024;

/// `toolcap_schema.version` of the current schema.
pub const SCHEMA_VERSION: i32 = 3;

/// Results in a PostgreSQL database. See the module docs.
pub struct PostgresStore {
    /// The URL without its password, for messages.
    shown: String,
    /// `host:port` (or the socket directory and port), for messages.
    server: String,
    /// What the URL asks of a connection (TLS, a password), for telling failures apart.
    asked: error::Asked,
    pool: Pool,
}

impl fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PostgresStore")
            .field("url", &self.shown)
            .finish_non_exhaustive()
    }
}

/// This backend's opener (its row in the table of backends, `toolcap-stores`); it
/// has no busy wait: [`Open::Waiting`] opens as [`Open::Create`] does.
pub fn open_at(url: &str, how: Open) -> Opened {
    let keep = |s: PostgresStore| Arc::new(s) as Arc<dyn ResultStore>;
    match how {
        Open::Create | Open::Waiting(_) => PostgresStore::open(url).map(|s| Some(keep(s))),
        Open::Existing => PostgresStore::open_existing(url).map(|s| s.map(keep)),
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
        store.with_record()
    }

    /// The store, with the record's tables created if they are missing. A user
    /// who may not create them still gets the results (recording then fails and is
    /// logged, call by call).
    fn with_record(self) -> Result<PostgresStore, StoreError> {
        let mut conn = self.pool.get().map_err(|e| self.connect_error(e))?;
        if let Err(e) = record::ensure(&mut conn.client) {
            if e.is_closed() {
                return Err(self.schema_error(e));
            }
            tracing::warn!(target: "toolcap::record", url = %self.shown, error = %e, "no record kept");
        }
        drop(conn);
        Ok(self)
    }

    /// Connect to the database at `url`; `Ok(None)` when toolcap's tables are not
    /// there (nothing was ever stored in it). Nothing is created (an older schema
    /// is migrated).
    pub fn open_existing(url: &str) -> Result<Option<PostgresStore>, StoreError> {
        match Self::connect(url)? {
            (_, Found::None) => Ok(None),
            (store, Found::Version(SCHEMA_VERSION)) => store.with_record().map(Some),
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
            asked: error::Asked::of(&config),
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

    fn check_meta(&self, m: &Meta) -> Result<(), StoreError> {
        validate_id("dialog id", &m.dialog_id)?;
        validate_id("tool_call_id", &m.tool_call_id)?;
        if m.tool_name.contains('\0') {
            return Err(self.problem(
                "write",
                format!(
                    "the tool name {} holds a NUL character, which PostgreSQL text cannot hold; \
                     pass the tool's name without it",
                    toolcap_text::quote::json_string(&m.tool_name)
                ),
                StoreErrorKind::Io,
            ));
        }
        Ok(())
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

    fn list_page(&self, page: &ListPage<'_>) -> Result<Vec<Meta>, StoreError> {
        // keyset pagination: the query reads the page, not the results before it
        // (each condition written only when it applies, so an index can serve it)
        let after = page.after;
        let created = after.map(|c| c.created_at_ms);
        let dialog = after.map(|c| c.dialog_id.as_str());
        let id = after.map(|c| c.tool_call_id.as_str());
        let (limit, offset) = (to_i64(page.limit), to_i64(page.offset));
        let mut conds = Vec::new();
        let mut args: Vec<&(dyn postgres::types::ToSql + Sync)> = Vec::new();
        if let Some(d) = &page.dialog_id {
            args.push(d);
            conds.push(format!("r.dialog_id = ${}", args.len()));
        }
        if let (Some(c), Some(d), Some(i)) = (&created, &dialog, &id) {
            if page.dialog_id.is_some() {
                // within one dialog the order is (created_at, tool_call_id): the
                // comparison the index (dialog_id, created_at, tool_call_id) serves
                args.extend([c as &(dyn postgres::types::ToSql + Sync), i]);
                let n = args.len();
                conds.push(format!(
                    "(r.created_at, r.tool_call_id) > (${}, ${n})",
                    n - 1
                ));
            } else {
                args.extend([c as &(dyn postgres::types::ToSql + Sync), d, i]);
                let n = args.len();
                conds.push(format!(
                    "(r.created_at, r.dialog_id, r.tool_call_id) > (${}, ${}, ${n})",
                    n - 2,
                    n - 1
                ));
            }
        }
        args.push(&limit);
        args.push(&offset);
        let n = args.len();
        let filter = if conds.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", conds.join(" AND "))
        };
        // (the same order: within one dialog, dialog_id is the same everywhere)
        let order = if page.dialog_id.is_some() {
            "r.created_at, r.tool_call_id"
        } else {
            "r.created_at, r.dialog_id, r.tool_call_id"
        };
        let sql = format!(
            "SELECT {META_COLUMNS} FROM toolcap_results r {filter} \
             ORDER BY {order} LIMIT ${} OFFSET ${n}",
            n - 1
        );
        self.run("read", |c| {
            c.query(sql.as_str(), &args)?
                .iter()
                .map(meta_from_row)
                .collect()
        })
    }

    fn count(&self, dialog_id: Option<&str>) -> Result<usize, StoreError> {
        let n: i64 = self.run("read", |c| {
            let row = c.client.query_one(
                "SELECT count(*) FROM toolcap_results WHERE $1::text IS NULL OR dialog_id = $1",
                &[&dialog_id],
            )?;
            row.try_get(0)
        })?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    fn delete_dialog(&self, dialog_id: &str) -> Result<usize, StoreError> {
        let n = self.run("delete", |c| {
            let mut tx = c.client.transaction()?;
            record::delete_dialog(&mut tx, dialog_id)?;
            // (a trigger deletes the chunks of what is deleted)
            let n = tx.execute(
                "DELETE FROM toolcap_results WHERE dialog_id = $1",
                &[&dialog_id],
            )?;
            tx.execute(
                "DELETE FROM toolcap_expired WHERE dialog_id = $1",
                &[&dialog_id],
            )?;
            tx.commit()?;
            Ok(n)
        })?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    fn prune_before(&self, cutoff_ms: i64) -> Result<usize, StoreError> {
        let now = now_ms();
        let age = (cutoff_ms, limits::age_limit_ms(now, cutoff_ms));
        self.expire_in_one(Some(age), None, now).map(|e| e.by_age)
    }

    fn expire(&self, r: &Retention) -> Result<Expiry, StoreError> {
        let now = now_ms();
        let age = r
            .keep
            .map(|k| (now.saturating_sub(duration_ms(k)), duration_ms(k)));
        let max = r.max_bytes.map(|m| i64::try_from(m).unwrap_or(i64::MAX));
        self.expire_in_one(age, max, now)
    }

    fn expired(&self, dialog_id: &str, tool_call_id: &str) -> Result<Option<Expired>, StoreError> {
        self.run("read", |c| {
            retention::find(&mut c.client, dialog_id, tool_call_id)
        })
    }

    fn record_seen(&self, seen: &toolcap_store::record::Seen) -> Result<(), StoreError> {
        self.run("record", |c| record::insert_seen(c, seen))?;
        Ok(())
    }

    fn record_call(&self, call: &toolcap_store::record::Call) -> Result<(), StoreError> {
        self.run("record", |c| record::insert_call(c, call))?;
        Ok(())
    }

    fn usage(
        &self,
        filter: &toolcap_store::record::Filter,
    ) -> Result<Option<toolcap_store::record::Usage>, StoreError> {
        self.run("read", |c| record::read(c, filter)).map(Some)
    }
}

impl PostgresStore {
    /// Expire by age (`(cutoff, limit)` in ms) and then by size, in one
    /// transaction; unfinished writes untouched since the cutoff go too.
    fn expire_in_one(
        &self,
        age: Option<(i64, i64)>,
        max_bytes: Option<i64>,
        now: i64,
    ) -> Result<Expiry, StoreError> {
        self.run("prune", |c| {
            let mut tx = c.client.transaction()?;
            let mut done = Expiry::default();
            if let Some((cutoff_ms, limit_ms)) = age {
                let (n, bytes) = retention::expire_by_age(&mut tx, cutoff_ms, limit_ms, now)?;
                done.by_age = n;
                done.bytes += bytes;
                record::prune_before(&mut tx, cutoff_ms)?;
                // unfinished writes not written to since the cutoff (a killed
                // writer's): the spill rows first, which locks out a writer still
                // adding to one
                tx.execute(
                    "WITH s AS (DELETE FROM toolcap_spills WHERE touched_at < $1 RETURNING id) \
                     DELETE FROM toolcap_chunks WHERE output_id IN (SELECT id FROM s)",
                    &[&cutoff_ms],
                )?;
            }
            if let Some(max) = max_bytes {
                let (n, bytes) = retention::expire_by_size(&mut tx, max, now)?;
                done.by_size = n;
                done.bytes += bytes;
            }
            retention::forget_old_records(&mut tx, now)?;
            tx.commit()?;
            Ok(done)
        })
    }
}
