//! The record (see `store::record`) in SQLite: tables `record_seen` and
//! `record_calls`, created when a store is opened without them (they are not part
//! of the numbered schema: an older toolcap opening the file leaves them alone).

use rusqlite::{Connection, Row, TransactionBehavior, params};

use toolcap_store::record::{Ask, Call, Filter, Outcome, Seen, Usage};

const TABLES: &str = "
CREATE TABLE IF NOT EXISTS record_seen (
    id           INTEGER PRIMARY KEY,
    at           INTEGER NOT NULL,   -- milliseconds since the Unix epoch
    dialog_id    TEXT    NOT NULL,
    tool_call_id TEXT,
    tool         TEXT    NOT NULL,
    family       TEXT    NOT NULL,
    reason       TEXT    NOT NULL,
    truncated    INTEGER NOT NULL,   -- 0 or 1
    threshold    INTEGER NOT NULL,
    unit         TEXT    NOT NULL,
    size_chars   INTEGER NOT NULL,
    shown_chars  INTEGER NOT NULL,
    kept_chars   INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS record_seen_at ON record_seen (at);
CREATE INDEX IF NOT EXISTS record_seen_dialog ON record_seen (dialog_id);
CREATE TABLE IF NOT EXISTS record_calls (
    id               INTEGER PRIMARY KEY,
    at               INTEGER NOT NULL,
    dialog_id        TEXT    NOT NULL,
    tool_call_id     TEXT    NOT NULL,
    recovery_tool    TEXT    NOT NULL,
    ask              TEXT    NOT NULL,
    offset           INTEGER,
    start_line       INTEGER,
    end_line         INTEGER,
    pattern          TEXT,
    symbol           TEXT,
    path             TEXT,
    reply_chars      INTEGER NOT NULL,
    outcome          TEXT    NOT NULL,
    result_tool      TEXT,
    result_chars     INTEGER,
    result_truncated INTEGER
);
CREATE INDEX IF NOT EXISTS record_calls_at ON record_calls (at);
CREATE INDEX IF NOT EXISTS record_calls_dialog ON record_calls (dialog_id);
";

/// Create the record's tables when the file has none (one transaction).
pub(super) fn ensure(conn: &mut Connection) -> rusqlite::Result<()> {
    let has = |c: &Connection| -> rusqlite::Result<bool> {
        c.query_row(
            "SELECT count(*) = 2 FROM sqlite_master WHERE type = 'table' \
             AND name IN ('record_seen', 'record_calls')",
            [],
            |r| r.get(0),
        )
    };
    if has(conn)? {
        return Ok(());
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute_batch(TABLES)?;
    tx.commit()
}

fn int(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

pub(super) fn insert_seen(conn: &Connection, s: &Seen) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO record_seen (at, dialog_id, tool_call_id, tool, family, reason, truncated, \
         threshold, unit, size_chars, shown_chars, kept_chars) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?
    .execute(params![
        s.at_ms,
        s.dialog_id,
        s.tool_call_id,
        s.tool,
        s.family,
        s.reason,
        s.truncated,
        int(s.threshold),
        s.unit,
        int(s.size_chars),
        int(s.shown_chars),
        int(s.kept_chars),
    ])?;
    Ok(())
}

pub(super) fn insert_call(conn: &Connection, c: &Call) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO record_calls (at, dialog_id, tool_call_id, recovery_tool, ask, offset, \
         start_line, end_line, pattern, symbol, path, reply_chars, outcome, result_tool, \
         result_chars, result_truncated) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
    )?
    .execute(params![
        c.at_ms,
        c.dialog_id,
        c.tool_call_id,
        c.recovery_tool,
        c.ask.name(),
        c.offset.map(int),
        c.start_line.map(int),
        c.end_line.map(int),
        c.pattern,
        c.symbol,
        c.path,
        int(c.reply_chars),
        c.outcome.name(),
        c.result_tool,
        c.result_chars.map(int),
        c.result_truncated,
    ])?;
    Ok(())
}

fn seen_of(r: &Row<'_>) -> rusqlite::Result<Seen> {
    Ok(Seen {
        at_ms: r.get(0)?,
        dialog_id: r.get(1)?,
        tool_call_id: r.get(2)?,
        tool: r.get(3)?,
        family: r.get(4)?,
        reason: r.get(5)?,
        truncated: r.get(6)?,
        threshold: count(r.get(7)?),
        unit: r.get(8)?,
        size_chars: count(r.get(9)?),
        shown_chars: count(r.get(10)?),
        kept_chars: count(r.get(11)?),
    })
}

fn call_of(r: &Row<'_>) -> rusqlite::Result<Call> {
    let ask: String = r.get(4)?;
    let outcome: String = r.get(12)?;
    Ok(Call {
        at_ms: r.get(0)?,
        dialog_id: r.get(1)?,
        tool_call_id: r.get(2)?,
        recovery_tool: r.get(3)?,
        // (rows are written by toolcap only; an unknown name reads as the plainest kind)
        ask: Ask::parse(&ask).unwrap_or(Ask::Fetch),
        offset: r.get::<_, Option<i64>>(5)?.map(count),
        start_line: r.get::<_, Option<i64>>(6)?.map(count),
        end_line: r.get::<_, Option<i64>>(7)?.map(count),
        pattern: r.get(8)?,
        symbol: r.get(9)?,
        path: r.get(10)?,
        reply_chars: count(r.get(11)?),
        outcome: Outcome::parse(&outcome).unwrap_or(Outcome::Answered),
        result_tool: r.get(13)?,
        result_chars: r.get::<_, Option<i64>>(14)?.map(count),
        result_truncated: r.get(15)?,
    })
}

/// The rows `f` admits, oldest first, read in one snapshot.
pub(super) fn read(conn: &mut Connection, f: &Filter) -> rusqlite::Result<Usage> {
    let tx = conn.transaction()?;
    let seen = tx
        .prepare(
            "SELECT at, dialog_id, tool_call_id, tool, family, reason, truncated, threshold, \
             unit, size_chars, shown_chars, kept_chars FROM record_seen \
             WHERE (?1 IS NULL OR dialog_id = ?1) AND (?2 IS NULL OR at >= ?2) ORDER BY at, id",
        )?
        .query_map(params![f.dialog_id, f.since_ms], seen_of)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let calls = tx
        .prepare(
            "SELECT at, dialog_id, tool_call_id, recovery_tool, ask, offset, start_line, \
             end_line, pattern, symbol, path, reply_chars, outcome, result_tool, result_chars, \
             result_truncated FROM record_calls \
             WHERE (?1 IS NULL OR dialog_id = ?1) AND (?2 IS NULL OR at >= ?2) ORDER BY at, id",
        )?
        .query_map(params![f.dialog_id, f.since_ms], call_of)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    tx.commit()?;
    Ok(Usage { seen, calls })
}

/// Delete the rows made before `cutoff_ms` (inside the prune's transaction).
pub(super) fn prune_before(conn: &Connection, cutoff_ms: i64) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM record_seen WHERE at < ?1", params![cutoff_ms])?;
    conn.execute("DELETE FROM record_calls WHERE at < ?1", params![cutoff_ms])?;
    Ok(())
}

/// Delete one dialog's rows.
pub(super) fn delete_dialog(conn: &Connection, dialog_id: &str) -> rusqlite::Result<()> {
    conn.execute(
        "DELETE FROM record_seen WHERE dialog_id = ?1",
        params![dialog_id],
    )?;
    conn.execute(
        "DELETE FROM record_calls WHERE dialog_id = ?1",
        params![dialog_id],
    )?;
    Ok(())
}
