//! A store on a full disk can still be read and pruned.
//!
//! In WAL mode every connection needs the `-shm` index file (32 KiB) and every
//! write needs room in the `-wal` file: on a full disk opening fails ("disk I/O
//! error") and so does a deletion, so `toolcap show` could not read a result and
//! `toolcap prune` could not free the space. Both have a way out here:
//!
//! - Reading: when the store cannot be opened as usual, it is opened again with
//!   `locking_mode = EXCLUSIVE` set before the first read, so the WAL index lives
//!   in this process's memory and no `-shm` file is written (the connection holds
//!   the file alone until it is closed, which a short-lived command does soon).
//! - Deleting: a deletion that fails for want of room runs again, alone, with the
//!   journal in memory (`journal_mode = MEMORY`: the pages are changed in place,
//!   which needs no new room), then gives the freed pages back to the file system
//!   and goes back to WAL. Without a journal on disk, a crash in the middle of
//!   that deletion could damage the file: the price of freeing a full disk, paid
//!   only when the disk is full.

use rusqlite::{Connection, ErrorCode};

/// Whether `e` says the disk (or the file-size limit) leaves no room.
pub(super) fn no_room(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DiskFull | ErrorCode::SystemIoFailure)
    )
}

/// Take the file alone for this connection before its first read: the WAL index
/// is then kept in memory, no `-shm` file is needed.
pub(super) fn alone(conn: &Connection) -> rusqlite::Result<()> {
    conn.query_row("PRAGMA locking_mode = EXCLUSIVE", [], |_| Ok(()))
}

/// Run `delete` (which commits its own changes); when it fails for want of room,
/// run it again alone with the journal in memory, then back to WAL (best effort:
/// on a disk still full, the store stays in memory-journal mode until the next
/// connection switches it back).
pub(super) fn delete_anyway<T>(
    conn: &mut Connection,
    mut delete: impl FnMut(&mut Connection) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    match delete(conn) {
        Err(e) if no_room(&e) => {
            alone(conn)?;
            conn.query_row("PRAGMA journal_mode = MEMORY", [], |_| Ok(()))
                .map_err(|_| e)?;
            let n = delete(conn)?;
            // the freed pages back to the file system now, still without a
            // journal on disk (each step frees one page)
            let _ = give_back(conn);
            let _ = conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()));
            Ok(n)
        }
        r => r,
    }
}

/// `PRAGMA incremental_vacuum` to its end (a store whose file gives pages back).
fn give_back(conn: &Connection) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare("PRAGMA incremental_vacuum")?;
    let mut rows = stmt.query([])?;
    while rows.next()?.is_some() {}
    Ok(())
}
