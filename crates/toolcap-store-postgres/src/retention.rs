//! Retention in PostgreSQL: the records of expired results (schema version 2,
//! table `toolcap_expired`) and the statements that expire results by age and by
//! size.
//!
//! Everything here runs inside the caller's transaction: a result and the record
//! of its expiry change together. Each expiry is one `DELETE ... RETURNING` feeding
//! the `INSERT` of the records, so replicas expiring at the same time never
//! record a result twice or lose one.

use postgres::Transaction;

use toolcap_store::backend::to_usize;
use toolcap_store::retention::{self, Expired, ExpiryReason};

/// From version 1 to 2: the records of expired results.
pub(super) const SCHEMA_V2: &str = "
-- what is left of an expired result, so a lookup can say when and why it went
CREATE TABLE toolcap_expired (
    dialog_id    text   NOT NULL,
    tool_call_id text   NOT NULL,
    tool_name    text   NOT NULL,
    size_bytes   bigint NOT NULL,
    size_chars   bigint NOT NULL,
    created_at   bigint NOT NULL,   -- when the result was stored (ms since the epoch)
    expired_at   bigint NOT NULL,   -- when it expired (ms since the epoch)
    reason       text   NOT NULL,   -- 'age' or 'size'
    limit_value  bigint NOT NULL,   -- the age limit in ms, or max_bytes
    PRIMARY KEY (dialog_id, tool_call_id)
);
CREATE INDEX toolcap_expired_expired_at ON toolcap_expired (expired_at);
";

/// The statement that records the rows deleted by `gone` (a `DELETE` whose deleted
/// row is named `r`), with `now`, the reason and the limit; it returns (count,
/// bytes).
fn bury(gone: &str, now: &str, reason: &str, limit: &str) -> String {
    format!(
        "WITH gone AS ({gone} RETURNING r.dialog_id, r.tool_call_id, r.tool_name, \
         r.size_bytes, r.size_chars, r.created_at), \
         kept AS (INSERT INTO toolcap_expired (dialog_id, tool_call_id, tool_name, size_bytes, \
            size_chars, created_at, expired_at, reason, limit_value) \
            SELECT dialog_id, tool_call_id, tool_name, size_bytes, size_chars, created_at, \
            {now}, '{reason}', {limit} FROM gone \
            ON CONFLICT (dialog_id, tool_call_id) DO UPDATE SET \
            tool_name = excluded.tool_name, size_bytes = excluded.size_bytes, \
            size_chars = excluded.size_chars, created_at = excluded.created_at, \
            expired_at = excluded.expired_at, reason = excluded.reason, \
            limit_value = excluded.limit_value) \
         SELECT count(*), coalesce(sum(size_bytes), 0)::bigint FROM gone"
    )
}

/// Expire the results created before `cutoff_ms` (the age limit being `limit_ms`),
/// keeping a record of each; returns how many went and their bytes.
///
/// This is the one place where whatever is kept beside the results by age goes
/// with them: a table that must follow the same age limit adds its `DELETE ...
/// WHERE created_at < $1` here.
pub(super) fn expire_by_age(
    tx: &mut Transaction<'_>,
    cutoff_ms: i64,
    limit_ms: i64,
    now_ms: i64,
) -> Result<(usize, u64), postgres::Error> {
    // (a trigger deletes the chunks of what is deleted)
    let sql = bury(
        "DELETE FROM toolcap_results r WHERE r.created_at < $1",
        "$2::bigint",
        "age",
        "$3::bigint",
    );
    let row = tx.query_one(sql.as_str(), &[&cutoff_ms, &now_ms, &limit_ms])?;
    counts(&row)
}

/// Expire the oldest results until the outputs left hold at most `max_bytes`
/// (never the newest one), keeping a record of each; returns how many went and
/// their bytes.
pub(super) fn expire_by_size(
    tx: &mut Transaction<'_>,
    max_bytes: i64,
    now_ms: i64,
) -> Result<(usize, u64), postgres::Error> {
    let total: i64 = tx
        .query_one(
            "SELECT coalesce(sum(size_bytes), 0)::bigint FROM toolcap_results",
            &[],
        )?
        .try_get(0)?;
    if total <= max_bytes {
        return Ok((0, 0));
    }
    let sql = bury(
        "DELETE FROM toolcap_results r USING \
         (SELECT dialog_id, tool_call_id, \
            sum(size_bytes) OVER (ORDER BY created_at DESC, dialog_id DESC, tool_call_id DESC \
                                  ROWS UNBOUNDED PRECEDING) AS kept, \
            row_number() OVER (ORDER BY created_at DESC, dialog_id DESC, tool_call_id DESC) \
              AS newest \
          FROM toolcap_results) v \
         WHERE r.dialog_id = v.dialog_id AND r.tool_call_id = v.tool_call_id \
         AND v.kept > $1::bigint AND v.newest > 1",
        "$2::bigint",
        "size",
        "$1::bigint",
    );
    let row = tx.query_one(sql.as_str(), &[&max_bytes, &now_ms])?;
    counts(&row)
}

fn counts(row: &postgres::Row) -> Result<(usize, u64), postgres::Error> {
    let n: i64 = row.try_get(0)?;
    let bytes: i64 = row.try_get(1)?;
    Ok((to_usize(n), u64::try_from(bytes).unwrap_or(0)))
}

/// Drop the records that are older than [`retention::TOMBSTONE_KEEP`] or beyond
/// the newest [`retention::MAX_TOMBSTONES`].
pub(super) fn forget_old_records(
    tx: &mut Transaction<'_>,
    now_ms: i64,
) -> Result<(), postgres::Error> {
    tx.execute(
        "DELETE FROM toolcap_expired WHERE expired_at < $1",
        &[&retention::tombstone_cutoff_ms(now_ms)],
    )?;
    let max = i64::try_from(retention::MAX_TOMBSTONES).unwrap_or(i64::MAX);
    tx.execute(
        "DELETE FROM toolcap_expired e USING \
         (SELECT dialog_id, tool_call_id FROM toolcap_expired \
          ORDER BY expired_at DESC, dialog_id DESC, tool_call_id DESC OFFSET $1) old \
         WHERE e.dialog_id = old.dialog_id AND e.tool_call_id = old.tool_call_id",
        &[&max],
    )?;
    Ok(())
}

/// The record of an expired result, if kept.
pub(super) fn find(
    c: &mut impl postgres::GenericClient,
    dialog_id: &str,
    tool_call_id: &str,
) -> Result<Option<Expired>, postgres::Error> {
    let rows = c.query(
        "SELECT dialog_id, tool_call_id, tool_name, size_bytes, size_chars, created_at, \
         expired_at, reason, limit_value FROM toolcap_expired \
         WHERE dialog_id = $1 AND tool_call_id = $2",
        &[&dialog_id, &tool_call_id],
    )?;
    let Some(r) = rows.first() else {
        return Ok(None);
    };
    let reason: String = r.try_get(7)?;
    Ok(Some(Expired {
        dialog_id: r.try_get(0)?,
        tool_call_id: r.try_get(1)?,
        tool_name: r.try_get(2)?,
        size_bytes: to_usize(r.try_get(3)?) as u64,
        size_chars: to_usize(r.try_get(4)?) as u64,
        created_at_ms: r.try_get(5)?,
        expired_at_ms: r.try_get(6)?,
        reason: ExpiryReason::parse(&reason).unwrap_or(ExpiryReason::Age),
        limit: r.try_get(8)?,
    }))
}
