//! [`SqliteStore`]: results in one SQLite database file (WAL mode), shared safely by
//! many processes.
//!
//! Durability: each [`ResultStore::put`] is one transaction; once it returns, the
//! result survives the process being killed (WAL with `synchronous = NORMAL`: a
//! power loss may lose the last transactions, never corrupt the file). Writers wait
//! for each other (busy timeout 30 s) instead of failing.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension, Row, params};
use serde_json::Value;

use super::{Meta, Record, ResultStore, StoreError, validate_id};
use crate::cut::Totals;

/// `PRAGMA application_id` of a toolcap store ("tcap").
const APPLICATION_ID: i32 = 0x7463_6170;
/// `PRAGMA user_version` of the current schema.
const SCHEMA_VERSION: i32 = 1;
/// How long a writer waits for another one before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

const SCHEMA: &str = "
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

const META_COLUMNS: &str = "dialog_id, tool_call_id, tool_name, tool_args, size_bytes, \
                            size_chars, size_lines, truncated, shown_chars, created_at";

/// Results in one SQLite database file. See the module docs.
#[derive(Debug)]
pub struct SqliteStore {
    path: PathBuf,
    conn: Mutex<Connection>,
}

impl SqliteStore {
    /// Open the store at `path`, creating the file (and its directory) if needed.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        let path = path.as_ref();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
            && !dir.is_dir()
        {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::Open {
                path: path.to_path_buf(),
                problem: format!("cannot create the directory {}: {e}", dir.display()),
                fix: "pass a --store PATH (or TOOLCAP_STORE) in a writable directory".into(),
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
        let open_err = |problem: String, fix: &str| StoreError::Open {
            path: path.to_path_buf(),
            problem,
            fix: fix.to_string(),
        };
        let fix_path = "pass a --store PATH (or TOOLCAP_STORE) naming a toolcap store file in a writable directory";
        let fix_damaged = "the file is not a toolcap store or is damaged: move it away (a new store is created in its place) or pass another --store PATH";
        if path.is_dir() {
            return Err(open_err("it is a directory".into(), fix_path));
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX | extra;
        let conn = Connection::open_with_flags(path, flags)
            .map_err(|e| open_err(describe(&e), fix_path))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| open_err(describe(&e), fix_path))?;
        let classify = |e: rusqlite::Error| {
            if is_damage(&e) {
                open_err(describe(&e), fix_damaged)
            } else {
                open_err(describe(&e), fix_path)
            }
        };

        // Whose database is this? Reading the header fails on a file that is not SQLite.
        let app_id: i32 = conn
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .map_err(classify)?;
        let version: i32 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(classify)?;
        let tables: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name <> 'results'",
                [],
                |r| r.get(0),
            )
            .map_err(classify)?;
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
            conn.execute_batch(&format!(
                "BEGIN IMMEDIATE;{SCHEMA}PRAGMA application_id = {APPLICATION_ID};\
                 PRAGMA user_version = {SCHEMA_VERSION};COMMIT;"
            ))
            .map_err(classify)?;
        }
        Ok(SqliteStore {
            path: path.to_path_buf(),
            conn: Mutex::new(conn),
        })
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
            Err(StoreError::Io {
                path: self.path.clone(),
                action: "integrity check",
                problem: rows.join("; "),
            })
        }
    }

    fn lock(&self) -> MutexGuard<'_, Connection> {
        // The connection holds no Rust invariants a panic could break.
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn io(&self, action: &'static str, e: rusqlite::Error) -> StoreError {
        let mut problem = describe(&e);
        if is_damage(&e) {
            problem.push_str(
                " (the file is damaged: move it away, a new store is created in its place)",
            );
        }
        StoreError::Io {
            path: self.path.clone(),
            action,
            problem,
        }
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

fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn to_usize(n: i64) -> usize {
    usize::try_from(n).unwrap_or(0)
}

fn meta_from_row(r: &Row<'_>) -> rusqlite::Result<Meta> {
    let args: String = r.get(3)?;
    Ok(Meta {
        dialog_id: r.get(0)?,
        tool_call_id: r.get(1)?,
        tool_name: r.get(2)?,
        tool_args: serde_json::from_str(&args).unwrap_or(Value::String(args)),
        size: Totals {
            bytes: to_usize(r.get(4)?),
            chars: to_usize(r.get(5)?),
            lines: to_usize(r.get(6)?),
        },
        truncated: r.get::<_, i64>(7)? != 0,
        shown_chars: to_usize(r.get(8)?),
        created_at_ms: r.get(9)?,
    })
}

impl ResultStore for SqliteStore {
    fn storage_type(&self) -> &'static str {
        "sqlite"
    }

    fn put_output(&self, m: &Meta, output: &str) -> Result<(), StoreError> {
        validate_id("dialog id", &m.dialog_id)?;
        validate_id("tool_call_id", &m.tool_call_id)?;
        self.lock()
            .execute(
                "INSERT INTO results (dialog_id, tool_call_id, tool_name, tool_args, size_bytes, \
                 size_chars, size_lines, truncated, shown_chars, created_at, output) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) \
                 ON CONFLICT (dialog_id, tool_call_id) DO UPDATE SET \
                 tool_name = excluded.tool_name, tool_args = excluded.tool_args, \
                 size_bytes = excluded.size_bytes, size_chars = excluded.size_chars, \
                 size_lines = excluded.size_lines, truncated = excluded.truncated, \
                 shown_chars = excluded.shown_chars, created_at = excluded.created_at, \
                 output = excluded.output",
                params![
                    m.dialog_id,
                    m.tool_call_id,
                    m.tool_name,
                    m.tool_args.to_string(),
                    to_i64(m.size.bytes),
                    to_i64(m.size.chars),
                    to_i64(m.size.lines),
                    i64::from(m.truncated),
                    to_i64(m.shown_chars),
                    m.created_at_ms,
                    output,
                ],
            )
            .map_err(|e| self.io("write", e))?;
        Ok(())
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
        self.lock()
            .query_row(
                &format!(
                    "SELECT {META_COLUMNS}, output FROM results WHERE dialog_id = ?1 AND tool_call_id = ?2"
                ),
                params![dialog_id, tool_call_id],
                |r| {
                    Ok(Record {
                        meta: meta_from_row(r)?,
                        output: r.get(10)?,
                    })
                },
            )
            .optional()
            .map_err(|e| self.io("read", e))
    }

    fn read_range(
        &self,
        dialog_id: &str,
        tool_call_id: &str,
        offset: usize,
        len: usize,
    ) -> Result<Option<(Meta, String)>, StoreError> {
        // SQLite's substr() counts characters like Rust's chars(), but stops at a NUL:
        // outputs holding one are sliced here instead.
        let found = self
            .lock()
            .query_row(
                &format!(
                    "SELECT {META_COLUMNS}, CASE WHEN instr(CAST(output AS BLOB), x'00') > 0 \
                     THEN NULL ELSE substr(output, ?3, ?4) END \
                     FROM results WHERE dialog_id = ?1 AND tool_call_id = ?2"
                ),
                params![
                    dialog_id,
                    tool_call_id,
                    to_i64(offset).saturating_add(1),
                    to_i64(len)
                ],
                |r| Ok((meta_from_row(r)?, r.get::<_, Option<String>>(10)?)),
            )
            .optional()
            .map_err(|e| self.io("read", e))?;
        match found {
            None => Ok(None),
            Some((meta, Some(part))) => Ok(Some((meta, part))),
            Some(_) => Ok(self.get(dialog_id, tool_call_id)?.map(|r| {
                let (a, b) = super::char_span(&r.output, offset, len);
                let part = r.output[a..b].to_string();
                (r.meta, part)
            })),
        }
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
        self.lock()
            .execute(
                "DELETE FROM results WHERE dialog_id = ?1",
                params![dialog_id],
            )
            .map_err(|e| self.io("delete", e))
    }

    fn prune_before(&self, cutoff_ms: i64) -> Result<usize, StoreError> {
        self.lock()
            .execute(
                "DELETE FROM results WHERE created_at < ?1",
                params![cutoff_ms],
            )
            .map_err(|e| self.io("prune", e))
    }
}
