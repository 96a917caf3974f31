//! Opening a SQLite store: the file checked (a directory, another program's
//! database, a newer schema, a damaged file: each its own error and fix), the
//! pragmas set, the schema migrated.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::schema::migrate;
use super::{
    APPLICATION_ID, SCHEMA_VERSION, SqliteStore, describe, full_disk, is_busy, is_damage, record,
};
use toolcap_store::StoreError;

impl SqliteStore {
    /// `alone`: hold the file alone, the WAL index in memory (see `full_disk`);
    /// `busy`: how long a statement waits for another writer before failing.
    pub(super) fn open_with(
        path: &Path,
        extra: OpenFlags,
        alone: bool,
        busy: Duration,
    ) -> Result<SqliteStore, StoreError> {
        let open_err = |problem: String, fix: &str| StoreError::open(path, problem, fix);
        let failed = |e: rusqlite::Error, fix: &str| open_err(describe(&e), fix).with_source(e);
        let fix_path = "pass a --store PATH (or TOOLCAP_STORE) naming a toolcap store file in a writable directory";
        let fix_damaged = "the file is not a toolcap store or is damaged: move it away (a new store is created in its place) or pass another --store PATH";
        if path.is_dir() {
            return Err(open_err("it is a directory".into(), fix_path));
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX | extra;
        let mut conn = Connection::open_with_flags(path, flags).map_err(|e| failed(e, fix_path))?;
        conn.busy_timeout(busy).map_err(|e| failed(e, fix_path))?;
        if alone {
            full_disk::alone(&conn).map_err(|e| failed(e, fix_path))?;
        }
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
        let max_tries = busy.as_millis() / 10;
        loop {
            match conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0)) {
                Ok(_) => break,
                Err(e) if is_busy(&e) && tries < max_tries => {
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
        // the record's tables: a store that cannot have them (a read-only file) still
        // serves its results; recording then fails and is logged, call by call
        if let Err(e) = record::ensure(&mut conn) {
            if is_damage(&e) {
                return Err(classify(e));
            }
            tracing::warn!(target: "toolcap::record", path = %path.display(), error = %describe(&e), "no record kept");
        }
        // the dialog list's order, so a page is read from the index, not sorted
        // out of every result of the dialog (keyset pagination, `list_page`);
        // best effort (a no-op once made; a store on a full disk reads without it)
        if !alone {
            let _ = conn.execute_batch(
                "CREATE INDEX IF NOT EXISTS results_dialog_list \
                 ON results (dialog_id, created_at, tool_call_id)",
            );
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
}
