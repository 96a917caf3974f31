//! Retention in SQLite: the records of expired results (schema version 3, table
//! `expired`) and the statements that expire results by age and by size.
//!
//! The statements run inside the caller's transaction, so a result and the record
//! of its expiry change together; `SqliteStore::expire_in_one` is that
//! transaction (age, then size, in one).

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

use super::{SqliteStore, full_disk, record};
use toolcap_store::StoreError;
use toolcap_store::backend::to_usize;
use toolcap_store::retention::{self, Expired, Expiry, ExpiryReason};

/// From version 2 to 3: the records of expired results.
pub(super) const SCHEMA_V3: &str = "
-- what is left of an expired result, so a lookup can say when and why it went
CREATE TABLE IF NOT EXISTS expired (
    dialog_id    TEXT    NOT NULL,
    tool_call_id TEXT    NOT NULL,
    tool_name    TEXT    NOT NULL,
    size_bytes   INTEGER NOT NULL,
    size_chars   INTEGER NOT NULL,
    created_at   INTEGER NOT NULL,   -- when the result was stored (ms since the epoch)
    expired_at   INTEGER NOT NULL,   -- when it expired (ms since the epoch)
    reason       TEXT    NOT NULL,   -- 'age' or 'size'
    limit_value  INTEGER NOT NULL,   -- the age limit in ms, or max_bytes
    PRIMARY KEY (dialog_id, tool_call_id)
);
CREATE INDEX IF NOT EXISTS expired_expired_at ON expired (expired_at);
";

/// The columns of a record copied from `results` (with `?now`, reason, limit).
const BURY: &str = "INSERT OR REPLACE INTO expired (dialog_id, tool_call_id, tool_name, \
     size_bytes, size_chars, created_at, expired_at, reason, limit_value) \
     SELECT dialog_id, tool_call_id, tool_name, size_bytes, size_chars, created_at";

/// Expire the results created before `cutoff_ms` (the age limit being `limit_ms`),
/// keeping a record of each; returns how many went and their bytes.
///
/// This is the one place where whatever is kept beside the results by age goes
/// with them: a table that must follow the same age limit adds its `DELETE ...
/// WHERE created_at < ?1` here.
pub(super) fn expire_by_age(
    tx: &Transaction<'_>,
    cutoff_ms: i64,
    limit_ms: i64,
    now_ms: i64,
) -> rusqlite::Result<(usize, u64)> {
    let bytes: i64 = tx.query_row(
        "SELECT coalesce(sum(size_bytes), 0) FROM results WHERE created_at < ?1",
        params![cutoff_ms],
        |r| r.get(0),
    )?;
    tx.execute(
        &format!("{BURY}, ?2, 'age', ?3 FROM results WHERE created_at < ?1"),
        params![cutoff_ms, now_ms, limit_ms],
    )?;
    // (a trigger deletes the chunks of what is deleted)
    let n = tx.execute(
        "DELETE FROM results WHERE created_at < ?1",
        params![cutoff_ms],
    )?;
    Ok((n, u64::try_from(bytes).unwrap_or(0)))
}

/// The results to expire so that the outputs left hold at most `?1` bytes: the
/// oldest first (creation time, then ids), never the newest.
const OVER_SIZE: &str = "(dialog_id, tool_call_id) IN (SELECT dialog_id, tool_call_id FROM \
     (SELECT dialog_id, tool_call_id, \
        sum(size_bytes) OVER (ORDER BY created_at DESC, dialog_id DESC, tool_call_id DESC \
                              ROWS UNBOUNDED PRECEDING) AS kept, \
        row_number() OVER (ORDER BY created_at DESC, dialog_id DESC, tool_call_id DESC) AS newest \
      FROM results) WHERE kept > ?1 AND newest > 1)";

/// Expire the oldest results until the outputs left hold at most `max_bytes`
/// (never the newest one), keeping a record of each; returns how many went and
/// their bytes.
pub(super) fn expire_by_size(
    tx: &Transaction<'_>,
    max_bytes: i64,
    now_ms: i64,
) -> rusqlite::Result<(usize, u64)> {
    let total: i64 = tx.query_row(
        "SELECT coalesce(sum(size_bytes), 0) FROM results",
        [],
        |r| r.get(0),
    )?;
    if total <= max_bytes {
        return Ok((0, 0));
    }
    let bytes: i64 = tx.query_row(
        &format!("SELECT coalesce(sum(size_bytes), 0) FROM results WHERE {OVER_SIZE}"),
        params![max_bytes],
        |r| r.get(0),
    )?;
    tx.execute(
        &format!("{BURY}, ?2, 'size', ?1 FROM results WHERE {OVER_SIZE}"),
        params![max_bytes, now_ms],
    )?;
    let n = tx.execute(
        &format!("DELETE FROM results WHERE {OVER_SIZE}"),
        params![max_bytes],
    )?;
    Ok((n, u64::try_from(bytes).unwrap_or(0)))
}

/// Drop the records that are older than [`retention::TOMBSTONE_KEEP`] or beyond
/// the newest [`retention::MAX_TOMBSTONES`].
pub(super) fn forget_old_records(tx: &Transaction<'_>, now_ms: i64) -> rusqlite::Result<()> {
    tx.execute(
        "DELETE FROM expired WHERE expired_at < ?1",
        params![retention::tombstone_cutoff_ms(now_ms)],
    )?;
    let n: i64 = tx.query_row("SELECT count(*) FROM expired", [], |r| r.get(0))?;
    let max = i64::try_from(retention::MAX_TOMBSTONES).unwrap_or(i64::MAX);
    if n > max {
        tx.execute(
            "DELETE FROM expired WHERE rowid NOT IN \
             (SELECT rowid FROM expired ORDER BY expired_at DESC, rowid DESC LIMIT ?1)",
            params![max],
        )?;
    }
    Ok(())
}

/// Delete the records of one dialog's expired results.
pub(super) fn forget_dialog(tx: &Transaction<'_>, dialog_id: &str) -> rusqlite::Result<()> {
    tx.execute(
        "DELETE FROM expired WHERE dialog_id = ?1",
        params![dialog_id],
    )?;
    Ok(())
}

/// The record of an expired result, if kept.
pub(super) fn find(
    conn: &Connection,
    dialog_id: &str,
    tool_call_id: &str,
) -> rusqlite::Result<Option<Expired>> {
    conn.query_row(
        "SELECT dialog_id, tool_call_id, tool_name, size_bytes, size_chars, created_at, \
         expired_at, reason, limit_value FROM expired WHERE dialog_id = ?1 AND tool_call_id = ?2",
        params![dialog_id, tool_call_id],
        |r| {
            let reason: String = r.get(7)?;
            Ok(Expired {
                dialog_id: r.get(0)?,
                tool_call_id: r.get(1)?,
                tool_name: r.get(2)?,
                size_bytes: to_usize(r.get(3)?) as u64,
                size_chars: to_usize(r.get(4)?) as u64,
                created_at_ms: r.get(5)?,
                expired_at_ms: r.get(6)?,
                reason: ExpiryReason::parse(&reason).unwrap_or(ExpiryReason::Age),
                limit: r.get(8)?,
            })
        },
    )
    .optional()
}

impl SqliteStore {
    /// Expire by age (`(cutoff, limit)` in ms) and then by size, in one
    /// transaction; unfinished writes untouched since the cutoff go too, and
    /// (when anything went, or `thorough`) chunks nothing owns.
    pub(super) fn expire_in_one(
        &self,
        age: Option<(i64, i64)>,
        max_bytes: Option<i64>,
        now: i64,
        thorough: bool,
    ) -> Result<Expiry, StoreError> {
        let mut conn = self.lock();
        let prune = |conn: &mut Connection| -> rusqlite::Result<(Expiry, bool)> {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let mut done = Expiry::default();
            let mut spills = 0;
            if let Some((cutoff_ms, limit_ms)) = age {
                let (n, bytes) = expire_by_age(&tx, cutoff_ms, limit_ms, now)?;
                done.by_age = n;
                done.bytes += bytes;
                record::prune_before(&tx, cutoff_ms)?;
                // unfinished writes not written to since the cutoff: a killed writer's
                tx.execute(
                    "DELETE FROM chunks WHERE output_id IN \
                     (SELECT id FROM spills WHERE touched_at < ?1)",
                    params![cutoff_ms],
                )?;
                spills = tx.execute(
                    "DELETE FROM spills WHERE touched_at < ?1",
                    params![cutoff_ms],
                )?;
            }
            if let Some(max) = max_bytes {
                let (n, bytes) = expire_by_size(&tx, max, now)?;
                done.by_size = n;
                done.bytes += bytes;
            }
            forget_old_records(&tx, now)?;
            let deleted = done.total() > 0 || spills > 0 || thorough;
            if deleted {
                // chunks nothing owns (there should be none)
                tx.execute(
                    "DELETE FROM chunks WHERE output_id NOT IN (SELECT id FROM spills) \
                     AND output_id NOT IN \
                     (SELECT output_id FROM results WHERE output_id IS NOT NULL)",
                    [],
                )?;
            }
            tx.commit()?;
            Ok((done, deleted))
        };
        let (done, deleted) =
            full_disk::delete_anyway(&mut conn, prune).map_err(|e| self.io("prune", e))?;
        drop(conn);
        if deleted {
            self.shrink();
        }
        Ok(done)
    }
}
