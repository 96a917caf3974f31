//! [`SqliteStore`]: results in one SQLite database file (WAL mode), shared safely by
//! many processes.
//!
//! Durability: each [`ResultStore::put`] is committed by one transaction (a large
//! output's chunks are written before it, in their own); once it returns, the
//! result survives the process being killed (WAL with `synchronous = NORMAL`: a
//! power loss may lose the last transactions, never corrupt the file). Writers wait
//! for each other (busy timeout 30 s, or the one given to
//! [`SqliteStore::open_waiting`]) instead of failing.
//!
//! Large outputs: an output of more than [`CHUNK_BYTES`] is kept in chunks of at
//! most that size (table `chunks`), and paging reads only the chunks it needs. A
//! stream ([`ResultStore::begin_output`]) is written one chunk per transaction, so
//! a long stream never holds the write lock for more than one chunk; its chunks
//! belong to a row of `spills` until the commit, which adds the `results` row in
//! one transaction: readers never see half a result. A writer killed mid-stream
//! leaves its spill and chunks behind, invisible; `prune` deletes the spills not
//! written to since its cutoff (a writer whose spill was pruned fails clearly).
//! A file created by this version gives the pages of deleted outputs back to the
//! file system (`auto_vacuum = INCREMENTAL`, run a few pages at a time after a
//! prune, a delete or a discarded stream); an older file keeps them for reuse.
//!
//! Schema versions (`PRAGMA user_version`): 1 kept every output inline
//! (`results.output`); 2 adds `results.output_id` (its chunks, when not inline),
//! `spills` and `chunks`. A version-1 store is upgraded in place when opened; its
//! results stay inline and read as before. 3 adds `expired`, the records of
//! expired results ([`retention`](toolcap_store::retention)).

#![warn(missing_docs)]

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{
    Connection, ErrorCode, OpenFlags, OptionalExtension, TransactionBehavior, params,
    params_from_iter,
};

use toolcap_store::backend::{Chunked, META_COLUMNS, Open, Opened, to_i64};
use toolcap_store::retention::{self as limits, Expired, Expiry, Retention, duration_ms};
use toolcap_store::{
    ListPage, Meta, OutputWriter, Record, ResultStore, StoreError, StoreErrorKind, now_ms,
    validate_id,
};

mod full_disk;
mod open;
mod record;
mod retention;
mod rows;
mod schema;

use rows::{
    CHUNKS_OF, SqliteSink, UPSERT, chunk_window, for_each_chunk, meta_from_row, upsert_params,
};

/// `PRAGMA application_id` of a toolcap store ("tcap").
const APPLICATION_ID: i32 = 0x7463_6170;
/// `PRAGMA user_version` of the current schema.
const SCHEMA_VERSION: i32 = 3;
/// How long a writer waits for another one before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Largest chunk of a stored output, in bytes (a chunk holds whole characters). An
/// output longer than this is kept in chunks; a shorter one inline.
pub const CHUNK_BYTES: usize = 1 << 20;

/// Results in one SQLite database file. See the module docs.
#[derive(Debug)]
pub struct SqliteStore {
    path: PathBuf,
    conn: Mutex<Connection>,
    /// The file gives the pages of deleted outputs back (`auto_vacuum =
    /// INCREMENTAL`: stores created with schema 2 or later).
    shrinks: bool,
}

/// This backend's opener (its row in the table of backends, `toolcap-stores`).
pub fn open_at(path: &Path, how: Open) -> Opened {
    let keep = |s: SqliteStore| Arc::new(s) as Arc<dyn ResultStore>;
    match how {
        Open::Create => SqliteStore::open(path).map(|s| Some(keep(s))),
        Open::Waiting(busy) => SqliteStore::open_waiting(path, busy).map(|s| Some(keep(s))),
        Open::Existing => SqliteStore::open_existing(path).map(|s| s.map(keep)),
    }
}

impl SqliteStore {
    /// Open the store at `path`, creating the file (and its directory) if needed.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        Self::open_waiting(path, BUSY_TIMEOUT)
    }

    /// [`open`](Self::open) with another busy timeout: how long opening it and each
    /// write wait for another process holding the database before failing (30 s
    /// by default; `toolcap run`, which must not hold up the command it runs,
    /// waits a short time and goes on without the store).
    pub fn open_waiting(path: impl AsRef<Path>, busy: Duration) -> Result<SqliteStore, StoreError> {
        let path = path.as_ref();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
            && !dir.is_dir()
        {
            toolcap_store::private::create_dir_all(dir).map_err(|e| {
                StoreError::open(
                    path,
                    format!("cannot create the directory {}: {e}", dir.display()),
                    "pass a --store PATH (or TOOLCAP_STORE) in a writable directory",
                )
                .with_source(e)
            })?;
        }
        // a new store is its owner's alone (the WAL files SQLite makes take its mode)
        if !path.exists() {
            toolcap_store::private::create_empty(path).map_err(|e| {
                StoreError::open(
                    path,
                    format!("cannot create the file: {e}"),
                    "pass a --store PATH (or TOOLCAP_STORE) in a writable directory",
                )
                .with_source(e)
            })?;
        }
        Self::open_with(path, OpenFlags::SQLITE_OPEN_CREATE, false, busy)
    }

    /// Open an existing store; `Ok(None)` when there is no file at `path` (nothing
    /// was ever stored there).
    pub fn open_existing(path: impl AsRef<Path>) -> Result<Option<SqliteStore>, StoreError> {
        let path = path.as_ref();
        if !path.exists() {
            return Ok(None);
        }
        match Self::open_with(path, OpenFlags::empty(), false, BUSY_TIMEOUT) {
            Ok(s) => Ok(Some(s)),
            // on a full disk the shared WAL index cannot be made: read alone
            // (see `full_disk`)
            Err(e)
                if std::error::Error::source(&e)
                    .and_then(|s| s.downcast_ref::<rusqlite::Error>())
                    .is_some_and(full_disk::no_room) =>
            {
                Self::open_with(path, OpenFlags::empty(), true, BUSY_TIMEOUT)
                    .map(Some)
                    .map_err(|_| e)
            }
            Err(e) => Err(e),
        }
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Give the pages freed by deleted outputs back to the file system, a few at a
    /// time (each step its own short transaction, so other writers are not held up).
    /// Best effort; a store created before schema 2 keeps its free pages for reuse
    /// instead.
    fn shrink(&self) {
        if !self.shrinks {
            return;
        }
        let conn = self.lock();
        let Ok(free) = conn.query_row("PRAGMA freelist_count", [], |r| r.get::<_, i64>(0)) else {
            return;
        };
        let step = |conn: &Connection| -> rusqlite::Result<()> {
            let mut stmt = conn.prepare_cached("PRAGMA incremental_vacuum(256)")?;
            let mut rows = stmt.query([])?;
            while rows.next()?.is_some() {}
            Ok(())
        };
        for _ in 0..free / 256 + 1 {
            if step(&conn).is_err() {
                return;
            }
        }
    }

    /// Run `PRAGMA integrity_check`: `Ok(())` when the database is sound, else the
    /// problems SQLite found.
    pub fn integrity_check(&self) -> Result<(), StoreError> {
        let conn = self.lock();
        let mut stmt = conn
            .prepare("PRAGMA integrity_check")
            .map_err(|e| self.io("integrity check", e))?;
        let rows: Vec<String> = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .and_then(|rows| rows.collect())
            .map_err(|e| self.io("integrity check", e))?;
        if rows == ["ok"] {
            Ok(())
        } else {
            Err(StoreError::io(
                &self.path,
                "integrity check",
                rows.join("; "),
                StoreErrorKind::Io,
            ))
        }
    }

    fn lock(&self) -> MutexGuard<'_, Connection> {
        // The connection holds no Rust invariants a panic could break.
        self.conn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A failure of `action` that is not SQLite's.
    fn problem(&self, action: &'static str, problem: String, kind: StoreErrorKind) -> StoreError {
        StoreError::io(&self.path, action, problem, kind)
    }

    fn io(&self, action: &'static str, e: rusqlite::Error) -> StoreError {
        let mut problem = describe(&e);
        if is_damage(&e) {
            problem.push_str(
                " (the file is damaged: move it away, a new store is created in its place)",
            );
        }
        StoreError::io(&self.path, action, problem, StoreErrorKind::Io).with_source(e)
    }
}

fn describe(e: &rusqlite::Error) -> String {
    match e {
        rusqlite::Error::SqliteFailure(err, Some(msg)) => format!("{msg} ({:?})", err.code),
        other => other.to_string(),
    }
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

fn is_damage(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt)
    )
}

impl ResultStore for SqliteStore {
    fn storage_type(&self) -> &'static str {
        "sqlite"
    }

    fn put_output(&self, m: &Meta, output: &str) -> Result<(), StoreError> {
        validate_id("dialog id", &m.dialog_id)?;
        validate_id("tool_call_id", &m.tool_call_id)?;
        if output.len() > CHUNK_BYTES {
            // in chunks, so paging it reads only what it needs
            let mut w = self.begin_output()?;
            w.write(output)?;
            return w.commit(m);
        }
        self.lock()
            .execute(UPSERT, params_from_iter(upsert_params(m, output, None)))
            .map_err(|e| self.io("write", e))?;
        Ok(())
    }

    fn begin_output(&self) -> Result<Box<dyn OutputWriter + '_>, StoreError> {
        let conn = self.lock();
        conn.execute(
            "INSERT INTO spills (started_at, touched_at) VALUES (?1, ?1)",
            params![now_ms()],
        )
        .map_err(|e| self.io("write", e))?;
        let spill = conn.last_insert_rowid();
        Ok(Box::new(Chunked::new(SqliteSink { store: self, spill })))
    }

    fn meta(&self, dialog_id: &str, tool_call_id: &str) -> Result<Option<Meta>, StoreError> {
        self.lock()
            .query_row(
                &format!(
                    "SELECT {META_COLUMNS} FROM results WHERE dialog_id = ?1 AND tool_call_id = ?2"
                ),
                params![dialog_id, tool_call_id],
                meta_from_row,
            )
            .optional()
            .map_err(|e| self.io("read", e))
    }

    fn get(&self, dialog_id: &str, tool_call_id: &str) -> Result<Option<Record>, StoreError> {
        let mut conn = self.lock();
        let read = |conn: &mut Connection| -> rusqlite::Result<Option<Record>> {
            // one snapshot: the row and its chunks as one commit left them
            let tx = conn.transaction()?;
            let found = tx
                .query_row(
                    &format!(
                        "SELECT {META_COLUMNS}, {CHUNKS_OF}, output FROM results \
                         WHERE dialog_id = ?1 AND tool_call_id = ?2"
                    ),
                    params![dialog_id, tool_call_id],
                    |r| {
                        Ok((
                            meta_from_row(r)?,
                            r.get::<_, Option<i64>>(10)?,
                            r.get::<_, String>(11)?,
                        ))
                    },
                )
                .optional()?;
            let Some((meta, chunks_of, mut output)) = found else {
                return Ok(None);
            };
            if let Some(id) = chunks_of {
                for_each_chunk(&tx, id, 0, &mut |_, text| {
                    output.push_str(text);
                    ControlFlow::Continue(())
                })?;
            }
            Ok(Some(Record { meta, output }))
        };
        read(&mut conn).map_err(|e| self.io("read", e))
    }

    fn read_range(
        &self,
        dialog_id: &str,
        tool_call_id: &str,
        offset: usize,
        len: usize,
    ) -> Result<Option<(Meta, String)>, StoreError> {
        let mut conn = self.lock();
        let read = |conn: &mut Connection| -> rusqlite::Result<Option<(Meta, String)>> {
            let tx = conn.transaction()?;
            // SQLite's substr() counts characters like Rust's chars(), but stops at a
            // NUL: inline outputs holding one are sliced here instead.
            let found = tx
                .query_row(
                    &format!(
                        "SELECT {META_COLUMNS}, {CHUNKS_OF}, CASE WHEN octet_length(output) = 0 \
                         OR instr(CAST(output AS BLOB), x'00') > 0 \
                         THEN NULL ELSE substr(output, ?3, ?4) END \
                         FROM results WHERE dialog_id = ?1 AND tool_call_id = ?2"
                    ),
                    params![
                        dialog_id,
                        tool_call_id,
                        to_i64(offset).saturating_add(1),
                        to_i64(len)
                    ],
                    |r| {
                        Ok((
                            meta_from_row(r)?,
                            r.get::<_, Option<i64>>(10)?,
                            r.get::<_, Option<String>>(11)?,
                        ))
                    },
                )
                .optional()?;
            Ok(match found {
                None => None,
                Some((meta, Some(id), _)) => Some((meta, chunk_window(&tx, id, offset, len)?)),
                Some((meta, None, Some(part))) => Some((meta, part)),
                Some((meta, None, None)) => {
                    let output: String = tx.query_row(
                        "SELECT output FROM results WHERE dialog_id = ?1 AND tool_call_id = ?2",
                        params![dialog_id, tool_call_id],
                        |r| r.get(0),
                    )?;
                    let (a, b) = toolcap_store::char_span(&output, offset, len);
                    Some((meta, output[a..b].to_string()))
                }
            })
        };
        read(&mut conn).map_err(|e| self.io("read", e))
    }

    fn stream_output(
        &self,
        dialog_id: &str,
        tool_call_id: &str,
        sink: &mut dyn FnMut(&str) -> ControlFlow<()>,
    ) -> Result<Option<Meta>, StoreError> {
        let mut conn = self.lock();
        let mut read = |conn: &mut Connection| -> rusqlite::Result<Option<Meta>> {
            let tx = conn.transaction()?;
            let found = tx
                .query_row(
                    &format!(
                        "SELECT {META_COLUMNS}, {CHUNKS_OF} FROM results \
                         WHERE dialog_id = ?1 AND tool_call_id = ?2"
                    ),
                    params![dialog_id, tool_call_id],
                    |r| Ok((meta_from_row(r)?, r.get::<_, Option<i64>>(10)?)),
                )
                .optional()?;
            let Some((meta, chunks_of)) = found else {
                return Ok(None);
            };
            match chunks_of {
                Some(id) => for_each_chunk(&tx, id, 0, &mut |_, text| sink(text))?,
                None => tx.query_row(
                    "SELECT output FROM results WHERE dialog_id = ?1 AND tool_call_id = ?2",
                    params![dialog_id, tool_call_id],
                    |r| {
                        let text = r.get_ref(0)?.as_str().map_err(|e| {
                            rusqlite::Error::FromSqlConversionFailure(
                                0,
                                rusqlite::types::Type::Text,
                                Box::new(e),
                            )
                        })?;
                        let _ = sink(text);
                        Ok(())
                    },
                )?,
            }
            Ok(Some(meta))
        };
        read(&mut conn).map_err(|e| self.io("read", e))
    }

    fn list(&self, dialog_id: Option<&str>) -> Result<Vec<Meta>, StoreError> {
        let conn = self.lock();
        let sql = format!(
            "SELECT {META_COLUMNS} FROM results WHERE ?1 IS NULL OR dialog_id = ?1 \
             ORDER BY created_at, dialog_id, tool_call_id"
        );
        let mut stmt = conn.prepare(&sql).map_err(|e| self.io("read", e))?;
        stmt.query_map(params![dialog_id], meta_from_row)
            .and_then(Iterator::collect)
            .map_err(|e| self.io("read", e))
    }

    fn list_page(&self, page: &ListPage<'_>) -> Result<Vec<Meta>, StoreError> {
        // keyset pagination: the query reads the page, not the results before it
        // (each condition written only when it applies, so the index on
        // (dialog_id, created_at, tool_call_id) serves it)
        let mut conds = Vec::new();
        let mut args: Vec<Box<dyn rusqlite::ToSql + '_>> = Vec::new();
        if let Some(d) = page.dialog_id {
            args.push(Box::new(d));
            conds.push(format!("dialog_id = ?{}", args.len()));
        }
        // within one dialog the order is (created_at, tool_call_id): the index's
        // own order after its dialog_id, so a page starts with a seek
        let one_dialog = page.dialog_id.is_some();
        match page.after {
            Some(c) if page.dialog_id == Some(c.dialog_id.as_str()) => {
                args.push(Box::new(c.created_at_ms));
                args.push(Box::new(c.tool_call_id.as_str()));
                let n = args.len();
                conds.push(format!("(created_at, tool_call_id) > (?{}, ?{n})", n - 1));
            }
            Some(c) => {
                args.push(Box::new(c.created_at_ms));
                args.push(Box::new(c.dialog_id.as_str()));
                args.push(Box::new(c.tool_call_id.as_str()));
                let n = args.len();
                conds.push(format!(
                    "(created_at, dialog_id, tool_call_id) > (?{}, ?{}, ?{n})",
                    n - 2,
                    n - 1
                ));
            }
            None => {}
        }
        args.push(Box::new(to_i64(page.limit)));
        args.push(Box::new(to_i64(page.offset)));
        let n = args.len();
        let filter = if conds.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", conds.join(" AND "))
        };
        let order = if one_dialog {
            "created_at, tool_call_id"
        } else {
            "created_at, dialog_id, tool_call_id"
        };
        let sql = format!(
            "SELECT {META_COLUMNS} FROM results {filter} \
             ORDER BY {order} LIMIT ?{} OFFSET ?{n}",
            n - 1
        );
        let conn = self.lock();
        let mut stmt = conn.prepare(&sql).map_err(|e| self.io("read", e))?;
        stmt.query_map(
            params_from_iter(args.iter().map(AsRef::as_ref)),
            meta_from_row,
        )
        .and_then(Iterator::collect)
        .map_err(|e| self.io("read", e))
    }

    fn count(&self, dialog_id: Option<&str>) -> Result<usize, StoreError> {
        let conn = self.lock();
        let n: i64 = match dialog_id {
            Some(d) => conn.query_row(
                "SELECT count(*) FROM results WHERE dialog_id = ?1",
                params![d],
                |r| r.get(0),
            ),
            None => conn.query_row("SELECT count(*) FROM results", [], |r| r.get(0)),
        }
        .map_err(|e| self.io("read", e))?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    fn delete_dialog(&self, dialog_id: &str) -> Result<usize, StoreError> {
        let mut conn = self.lock();
        let delete = |conn: &mut Connection| -> rusqlite::Result<usize> {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            record::delete_dialog(&tx, dialog_id)?;
            // (a trigger deletes the chunks of what is deleted)
            let n = tx.execute(
                "DELETE FROM results WHERE dialog_id = ?1",
                params![dialog_id],
            )?;
            retention::forget_dialog(&tx, dialog_id)?;
            tx.commit()?;
            Ok(n)
        };
        let n = full_disk::delete_anyway(&mut conn, delete).map_err(|e| self.io("delete", e))?;
        drop(conn);
        self.shrink();
        Ok(n)
    }

    fn prune_before(&self, cutoff_ms: i64) -> Result<usize, StoreError> {
        let now = now_ms();
        let age = (cutoff_ms, limits::age_limit_ms(now, cutoff_ms));
        // (a prune also looks for chunks nothing owns)
        self.expire_in_one(Some(age), None, now, true)
            .map(|e| e.by_age)
    }

    fn expire(&self, r: &Retention) -> Result<Expiry, StoreError> {
        let now = now_ms();
        let age = r
            .keep
            .map(|k| (now.saturating_sub(duration_ms(k)), duration_ms(k)));
        let max = r.max_bytes.map(|m| i64::try_from(m).unwrap_or(i64::MAX));
        self.expire_in_one(age, max, now, false)
    }

    fn expired(&self, dialog_id: &str, tool_call_id: &str) -> Result<Option<Expired>, StoreError> {
        retention::find(&self.lock(), dialog_id, tool_call_id).map_err(|e| self.io("read", e))
    }

    fn record_seen(&self, seen: &toolcap_store::record::Seen) -> Result<(), StoreError> {
        record::insert_seen(&self.lock(), seen).map_err(|e| self.io("record", e))
    }

    fn record_call(&self, call: &toolcap_store::record::Call) -> Result<(), StoreError> {
        record::insert_call(&self.lock(), call).map_err(|e| self.io("record", e))
    }

    fn usage(
        &self,
        filter: &toolcap_store::record::Filter,
    ) -> Result<Option<toolcap_store::record::Usage>, StoreError> {
        record::read(&mut self.lock(), filter)
            .map(Some)
            .map_err(|e| self.io("read", e))
    }
}

#[cfg(test)]
mod tests;
