//! [`SqliteStore`]: results in one SQLite database file (WAL mode), shared safely by
//! many processes.
//!
//! Durability: each [`ResultStore::put`] is committed by one transaction (a large
//! output's chunks are written before it, in their own); once it returns, the
//! result survives the process being killed (WAL with `synchronous = NORMAL`: a
//! power loss may lose the last transactions, never corrupt the file). Writers wait
//! for each other (busy timeout 30 s) instead of failing.
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
//! results stay inline and read as before.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{
    Connection, ErrorCode, OpenFlags, OptionalExtension, Row, Transaction, TransactionBehavior,
    params, params_from_iter,
};

use super::chunked::{ChunkSink, Chunked};
use super::row::{self, META_COLUMNS, MetaRow, to_i64, to_usize};
use super::{
    Meta, OutputWriter, Record, ResultStore, StoreError, StoreErrorKind, now_ms, validate_id,
};
use crate::cut::byte_of_char;

/// `PRAGMA application_id` of a toolcap store ("tcap").
const APPLICATION_ID: i32 = 0x7463_6170;
/// `PRAGMA user_version` of the current schema.
const SCHEMA_VERSION: i32 = 2;
/// How long a writer waits for another one before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Largest chunk of a stored output, in bytes (a chunk holds whole characters). An
/// output longer than this is kept in chunks; a shorter one inline.
pub const CHUNK_BYTES: usize = 1 << 20;

/// Schema version 1, as toolcap 0.1 created it.
const SCHEMA_V1: &str = "
CREATE TABLE IF NOT EXISTS results (
    id           INTEGER PRIMARY KEY,
    dialog_id    TEXT    NOT NULL,
    tool_call_id TEXT    NOT NULL,
    tool_name    TEXT    NOT NULL,
    tool_args    TEXT    NOT NULL,   -- JSON
    size_bytes   INTEGER NOT NULL,
    size_chars   INTEGER NOT NULL,
    size_lines   INTEGER NOT NULL,
    truncated    INTEGER NOT NULL,   -- 0 or 1
    shown_chars  INTEGER NOT NULL,   -- char offset right after what the model saw
    created_at   INTEGER NOT NULL,   -- milliseconds since the Unix epoch
    output       TEXT    NOT NULL,   -- last, so metadata reads skip its pages
    UNIQUE (dialog_id, tool_call_id)
);
CREATE INDEX IF NOT EXISTS results_created_at ON results (created_at);
";

/// From version 1 to 2: outputs in chunks.
const SCHEMA_V2: &str = "
-- NULL: the output is inline (`output`); else `output` is '' and the output is the
-- chunks with this output_id, in char_start order
ALTER TABLE results ADD COLUMN output_id INTEGER;
-- outputs being written (or left unfinished by a killed writer); AUTOINCREMENT: an
-- id is never reused, so chunks kept under it stay a committed result's own
CREATE TABLE IF NOT EXISTS spills (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at INTEGER NOT NULL,   -- milliseconds since the Unix epoch
    touched_at INTEGER NOT NULL    -- when its last chunk was written
);
CREATE INDEX IF NOT EXISTS results_output_id ON results (output_id)
    WHERE output_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS chunks (
    output_id  INTEGER NOT NULL,   -- spills.id; results.output_id once committed
    char_start INTEGER NOT NULL,   -- characters of the output before this chunk
    text       TEXT    NOT NULL,
    PRIMARY KEY (output_id, char_start)
);
-- a result deleted or replaced takes its chunks with it
CREATE TRIGGER IF NOT EXISTS results_delete_chunks AFTER DELETE ON results
WHEN old.output_id IS NOT NULL BEGIN
    DELETE FROM chunks WHERE output_id = old.output_id;
END;
CREATE TRIGGER IF NOT EXISTS results_replace_chunks AFTER UPDATE OF output_id ON results
WHEN old.output_id IS NOT NULL AND old.output_id IS NOT new.output_id BEGIN
    DELETE FROM chunks WHERE output_id = old.output_id;
END;
";

/// Insert or replace a result; `?11` the inline output, `?12` the output_id.
const UPSERT: &str = "INSERT INTO results (dialog_id, tool_call_id, tool_name, tool_args, \
     size_bytes, size_chars, size_lines, truncated, shown_chars, created_at, output, output_id) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) \
     ON CONFLICT (dialog_id, tool_call_id) DO UPDATE SET \
     tool_name = excluded.tool_name, tool_args = excluded.tool_args, \
     size_bytes = excluded.size_bytes, size_chars = excluded.size_chars, \
     size_lines = excluded.size_lines, truncated = excluded.truncated, \
     shown_chars = excluded.shown_chars, created_at = excluded.created_at, \
     output = excluded.output, output_id = excluded.output_id";

/// Results in one SQLite database file. See the module docs.
#[derive(Debug)]
pub struct SqliteStore {
    path: PathBuf,
    conn: Mutex<Connection>,
    /// The file gives the pages of deleted outputs back (`auto_vacuum =
    /// INCREMENTAL`: stores created with schema 2 or later).
    shrinks: bool,
}

impl SqliteStore {
    /// Open the store at `path`, creating the file (and its directory) if needed.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        let path = path.as_ref();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
            && !dir.is_dir()
        {
            std::fs::create_dir_all(dir).map_err(|e| {
                StoreError::open(
                    path,
                    format!("cannot create the directory {}: {e}", dir.display()),
                    "pass a --store PATH (or TOOLCAP_STORE) in a writable directory",
                )
                .with_source(e)
            })?;
        }
        Self::open_with(path, OpenFlags::SQLITE_OPEN_CREATE)
    }

    /// Open an existing store; `Ok(None)` when there is no file at `path` (nothing
    /// was ever stored there).
    pub fn open_existing(path: impl AsRef<Path>) -> Result<Option<SqliteStore>, StoreError> {
        let path = path.as_ref();
        if !path.exists() {
            return Ok(None);
        }
        Self::open_with(path, OpenFlags::empty()).map(Some)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn open_with(path: &Path, extra: OpenFlags) -> Result<SqliteStore, StoreError> {
        let open_err = |problem: String, fix: &str| StoreError::open(path, problem, fix);
        let failed = |e: rusqlite::Error, fix: &str| open_err(describe(&e), fix).with_source(e);
        let fix_path = "pass a --store PATH (or TOOLCAP_STORE) naming a toolcap store file in a writable directory";
        let fix_damaged = "the file is not a toolcap store or is damaged: move it away (a new store is created in its place) or pass another --store PATH";
        if path.is_dir() {
            return Err(open_err("it is a directory".into(), fix_path));
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX | extra;
        let mut conn = Connection::open_with_flags(path, flags).map_err(|e| failed(e, fix_path))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| failed(e, fix_path))?;
        let classify = |e: rusqlite::Error| {
            if is_damage(&e) {
                failed(e, fix_damaged)
            } else {
                failed(e, fix_path)
            }
        };

        // Whose database is this? Reading the header fails on a file that is not SQLite.
        // One snapshot: another process may be creating the store meanwhile.
        let (app_id, version, tables) = {
            let tx = conn.transaction().map_err(classify)?;
            let read = || -> rusqlite::Result<(i32, i32, i64)> {
                Ok((
                    tx.query_row("PRAGMA application_id", [], |r| r.get(0))?,
                    tx.query_row("PRAGMA user_version", [], |r| r.get(0))?,
                    tx.query_row(
                        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name <> 'results'",
                        [],
                        |r| r.get(0),
                    )?,
                ))
            };
            read().map_err(classify)?
        };
        if app_id != APPLICATION_ID && (app_id != 0 || tables > 0) {
            return Err(open_err(
                "it is a SQLite database of another program, not a toolcap store".into(),
                "pass a --store PATH (or TOOLCAP_STORE) of its own to toolcap; toolcap never writes into other databases",
            ));
        }
        if version > SCHEMA_VERSION {
            return Err(open_err(
                format!(
                    "it was made by a newer toolcap (schema {version}; this one reads {SCHEMA_VERSION})"
                ),
                "upgrade toolcap, or pass another --store PATH",
            ));
        }

        // A new file: pages freed by deleted outputs go back to the file system
        // (settable only before anything is written, the WAL switch included).
        let pages: i64 = conn
            .query_row("PRAGMA page_count", [], |r| r.get(0))
            .map_err(classify)?;
        if pages == 0 {
            conn.execute_batch("PRAGMA auto_vacuum = INCREMENTAL")
                .map_err(classify)?;
        }
        // WAL: readers never block writers, and a killed writer leaves committed
        // transactions intact. Switching modes needs a moment alone with the file.
        let mut tries = 0;
        loop {
            match conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0)) {
                Ok(_) => break,
                Err(e) if is_busy(&e) && tries < 300 => {
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(e) => return Err(classify(e)),
            }
        }
        conn.execute_batch("PRAGMA synchronous = NORMAL")
            .map_err(classify)?;
        if app_id != APPLICATION_ID || version != SCHEMA_VERSION {
            migrate(&mut conn).map_err(classify)?;
        }
        let auto_vacuum: i64 = conn
            .query_row("PRAGMA auto_vacuum", [], |r| r.get(0))
            .map_err(classify)?;
        Ok(SqliteStore {
            path: path.to_path_buf(),
            conn: Mutex::new(conn),
            shrinks: auto_vacuum == 2,
        })
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
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
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

/// Create the schema, or bring an older one up to date, in one transaction.
fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    // looked at again inside the transaction: another process may have done it
    let version: i32 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version >= SCHEMA_VERSION {
        return tx.commit();
    }
    if version < 1 {
        tx.execute_batch(SCHEMA_V1)?;
    }
    if version < 2 {
        tx.execute_batch(SCHEMA_V2)?;
    }
    tx.execute_batch(&format!(
        "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION};"
    ))?;
    tx.commit()
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

/// The [`Meta`] in columns 0-9 of a row (a function of SQLite's rows, for
/// `query_row` and `query_map`).
fn meta_from_row(r: &Row<'_>) -> rusqlite::Result<Meta> {
    row::meta_from_row(r)
}

impl MetaRow for Row<'_> {
    type Error = rusqlite::Error;
    fn text(&self, i: usize) -> rusqlite::Result<String> {
        self.get(i)
    }
    fn int(&self, i: usize) -> rusqlite::Result<i64> {
        self.get(i)
    }
    fn flag(&self, i: usize) -> rusqlite::Result<bool> {
        Ok(self.get::<_, i64>(i)? != 0)
    }
}

/// The output_id of a row's chunks, or NULL for an inline output. Decided on the
/// output's length first (read from the record header, without loading it), so an
/// inline output's pages are never read to get at the column after it.
const CHUNKS_OF: &str = "CASE WHEN octet_length(output) = 0 THEN output_id END";

/// The chunks of output `output_id` from the one holding character `from_char`
/// on, in order, each with the number of characters before it; `each` returns
/// [`ControlFlow::Break`] to stop.
fn for_each_chunk(
    conn: &Connection,
    output_id: i64,
    from_char: usize,
    each: &mut dyn FnMut(usize, &str) -> ControlFlow<()>,
) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare_cached(
        "SELECT char_start, text FROM chunks WHERE output_id = ?1 AND char_start >= \
         coalesce((SELECT char_start FROM chunks WHERE output_id = ?1 AND char_start <= ?2 \
         ORDER BY char_start DESC LIMIT 1), 0) ORDER BY char_start",
    )?;
    let mut rows = stmt.query(params![output_id, to_i64(from_char)])?;
    while let Some(row) = rows.next()? {
        let start = to_usize(row.get(0)?);
        let text = row.get_ref(1)?.as_str().map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(1, rusqlite::types::Type::Text, Box::new(e))
        })?;
        if each(start, text).is_break() {
            break;
        }
    }
    Ok(())
}

/// Characters `[offset, offset + len)` of chunked output `output_id`, reading only
/// the chunks that hold them.
fn chunk_window(
    conn: &Connection,
    output_id: i64,
    offset: usize,
    len: usize,
) -> rusqlite::Result<String> {
    let mut out = String::new();
    let mut left = len;
    if left == 0 {
        return Ok(out);
    }
    for_each_chunk(conn, output_id, offset, &mut |start, text| {
        let rest = &text[byte_of_char(text, offset.saturating_sub(start))..];
        let piece = &rest[..byte_of_char(rest, left)];
        out.push_str(piece);
        left -= piece.chars().count().min(left);
        if left == 0 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    Ok(out)
}

/// Where an output written piece by piece goes: one chunk per transaction, under
/// its row in `spills` (see the module docs).
struct SqliteSink<'a> {
    store: &'a SqliteStore,
    /// Its row in `spills`: the output_id of its chunks.
    spill: i64,
}

impl SqliteSink<'_> {
    fn insert_chunk(
        &self,
        tx: &Transaction<'_>,
        start: usize,
        text: &str,
    ) -> Result<(), StoreError> {
        tx.execute(
            "INSERT INTO chunks (output_id, char_start, text) VALUES (?1, ?2, ?3)",
            params![self.spill, to_i64(start), text],
        )
        .map(drop)
        .map_err(|e| self.store.io("write", e))
    }
}

impl ChunkSink for SqliteSink<'_> {
    const CHUNK_BYTES: usize = CHUNK_BYTES;

    fn chunk(&mut self, start: usize, text: &str) -> Result<bool, StoreError> {
        let store = self.store;
        let mut conn = store.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| store.io("write", e))?;
        let alive = tx
            .execute(
                "UPDATE spills SET touched_at = ?2 WHERE id = ?1",
                params![self.spill, now_ms()],
            )
            .map_err(|e| store.io("write", e))?;
        if alive == 0 {
            return Ok(false);
        }
        self.insert_chunk(&tx, start, text)?;
        tx.commit().map_err(|e| store.io("write", e))?;
        Ok(true)
    }

    fn commit(&mut self, m: &Meta, start: usize, last: &str) -> Result<bool, StoreError> {
        let store = self.store;
        let mut conn = store.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| store.io("write", e))?;
        let alive = tx
            .execute("DELETE FROM spills WHERE id = ?1", params![self.spill])
            .map_err(|e| store.io("write", e))?;
        if alive == 0 {
            return Ok(false);
        }
        if !last.is_empty() {
            self.insert_chunk(&tx, start, last)?;
        }
        tx.execute(
            UPSERT,
            params_from_iter(upsert_params(m, "", Some(self.spill))),
        )
        .map_err(|e| store.io("write", e))?;
        tx.commit().map_err(|e| store.io("write", e))?;
        Ok(true)
    }

    fn discard(&mut self, wrote: bool) {
        let mut conn = self.store.lock();
        if let Ok(tx) = conn.transaction_with_behavior(TransactionBehavior::Immediate)
            && tx
                .execute(
                    "DELETE FROM chunks WHERE output_id = ?1",
                    params![self.spill],
                )
                .is_ok()
            && tx
                .execute("DELETE FROM spills WHERE id = ?1", params![self.spill])
                .is_ok()
        {
            let _ = tx.commit();
        }
        drop(conn);
        if wrote {
            self.store.shrink();
        }
    }

    fn check(&self, m: &Meta) -> Result<(), StoreError> {
        validate_id("dialog id", &m.dialog_id)?;
        validate_id("tool_call_id", &m.tool_call_id)
    }

    fn problem(&self, action: &'static str, problem: String, kind: StoreErrorKind) -> StoreError {
        self.store.problem(action, problem, kind)
    }
}

/// The parameters of [`UPSERT`].
fn upsert_params<'a>(
    m: &'a Meta,
    output: &'a str,
    output_id: Option<i64>,
) -> Vec<Box<dyn rusqlite::ToSql + 'a>> {
    vec![
        Box::new(m.dialog_id.as_str()),
        Box::new(m.tool_call_id.as_str()),
        Box::new(m.tool_name.as_str()),
        Box::new(m.tool_args.to_string()),
        Box::new(to_i64(m.size.bytes)),
        Box::new(to_i64(m.size.chars)),
        Box::new(to_i64(m.size.lines)),
        Box::new(i64::from(m.truncated)),
        Box::new(to_i64(m.shown_chars)),
        Box::new(m.created_at_ms),
        Box::new(output),
        Box::new(output_id),
    ]
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
                    let (a, b) = super::char_span(&output, offset, len);
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
            .and_then(|rows| rows.collect())
            .map_err(|e| self.io("read", e))
    }

    fn delete_dialog(&self, dialog_id: &str) -> Result<usize, StoreError> {
        // (a trigger deletes the chunks of what is deleted)
        let n = self
            .lock()
            .execute(
                "DELETE FROM results WHERE dialog_id = ?1",
                params![dialog_id],
            )
            .map_err(|e| self.io("delete", e))?;
        self.shrink();
        Ok(n)
    }

    fn prune_before(&self, cutoff_ms: i64) -> Result<usize, StoreError> {
        let mut conn = self.lock();
        let prune = |conn: &mut Connection| -> rusqlite::Result<usize> {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let n = tx.execute(
                "DELETE FROM results WHERE created_at < ?1",
                params![cutoff_ms],
            )?;
            // unfinished writes not written to since the cutoff: a killed writer's
            tx.execute(
                "DELETE FROM chunks WHERE output_id IN \
                 (SELECT id FROM spills WHERE touched_at < ?1)",
                params![cutoff_ms],
            )?;
            tx.execute(
                "DELETE FROM spills WHERE touched_at < ?1",
                params![cutoff_ms],
            )?;
            // chunks nothing owns (there should be none)
            tx.execute(
                "DELETE FROM chunks WHERE output_id NOT IN (SELECT id FROM spills) \
                 AND output_id NOT IN \
                 (SELECT output_id FROM results WHERE output_id IS NOT NULL)",
                [],
            )?;
            tx.commit()?;
            Ok(n)
        };
        let n = prune(&mut conn).map_err(|e| self.io("prune", e))?;
        drop(conn);
        self.shrink();
        Ok(n)
    }
}
