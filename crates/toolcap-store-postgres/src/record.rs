//! The record (see `store::record`) in PostgreSQL: tables `toolcap_record_seen`
//! and `toolcap_record_calls`, created on open when they are missing (under an
//! advisory lock of their own; not part of the numbered schema, so an older
//! toolcap leaves them alone).

use postgres::{Client, GenericClient, IsolationLevel, Row};

use super::pool::Pg;
use toolcap_store::record::{Ask, Call, Filter, Outcome, Seen, Usage};

/// Advisory lock key held while the record's tables are created ("tcaq").
const RECORD_LOCK: i64 = 0x7463_6171;

const TABLES: &str = "
CREATE TABLE IF NOT EXISTS toolcap_record_seen (
    id           bigserial PRIMARY KEY,
    at           bigint  NOT NULL,   -- milliseconds since the Unix epoch
    dialog_id    text    NOT NULL,
    tool_call_id text,
    tool         text    NOT NULL,
    family       text    NOT NULL,
    reason       text    NOT NULL,
    truncated    boolean NOT NULL,
    threshold    bigint  NOT NULL,
    unit         text    NOT NULL,
    size_chars   bigint  NOT NULL,
    shown_chars  bigint  NOT NULL,
    kept_chars   bigint  NOT NULL
);
CREATE INDEX IF NOT EXISTS toolcap_record_seen_at ON toolcap_record_seen (at);
CREATE INDEX IF NOT EXISTS toolcap_record_seen_dialog ON toolcap_record_seen (dialog_id);
CREATE TABLE IF NOT EXISTS toolcap_record_calls (
    id               bigserial PRIMARY KEY,
    at               bigint  NOT NULL,
    dialog_id        text    NOT NULL,
    tool_call_id     text    NOT NULL,
    recovery_tool    text    NOT NULL,
    ask              text    NOT NULL,
    \"offset\"       bigint,
    start_line       bigint,
    end_line         bigint,
    pattern          text,
    symbol           text,
    path             text,
    reply_chars      bigint  NOT NULL,
    outcome          text    NOT NULL,
    result_tool      text,
    result_chars     bigint,
    result_truncated boolean
);
CREATE INDEX IF NOT EXISTS toolcap_record_calls_at ON toolcap_record_calls (at);
CREATE INDEX IF NOT EXISTS toolcap_record_calls_dialog ON toolcap_record_calls (dialog_id);
";

/// Create the record's tables when they are missing.
pub(super) fn ensure(client: &mut Client) -> Result<(), postgres::Error> {
    let present = |c: &mut Client| -> Result<bool, postgres::Error> {
        c.query_one(
            "SELECT to_regclass('toolcap_record_seen') IS NOT NULL \
             AND to_regclass('toolcap_record_calls') IS NOT NULL",
            &[],
        )?
        .try_get(0)
    };
    if present(client)? {
        return Ok(());
    }
    client.execute("SELECT pg_advisory_lock($1)", &[&RECORD_LOCK])?;
    let r = (|| {
        let mut tx = client.transaction()?;
        tx.batch_execute(TABLES)?;
        tx.commit()
    })();
    let _ = client.execute("SELECT pg_advisory_unlock($1)", &[&RECORD_LOCK]);
    r
}

fn int(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// Text PostgreSQL can hold: without NUL characters (which toolcap's ids never
/// hold; a pattern or path might).
fn text(s: &str) -> String {
    s.replace('\0', "\u{FFFD}")
}

pub(super) fn insert_seen(c: &mut Pg, s: &Seen) -> Result<u64, postgres::Error> {
    c.execute(
        "INSERT INTO toolcap_record_seen (at, dialog_id, tool_call_id, tool, family, reason, \
         truncated, threshold, unit, size_chars, shown_chars, kept_chars) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
        &[
            &s.at_ms,
            &text(&s.dialog_id),
            &s.tool_call_id.as_deref().map(text),
            &text(&s.tool),
            &text(&s.family),
            &s.reason,
            &s.truncated,
            &int(s.threshold),
            &s.unit,
            &int(s.size_chars),
            &int(s.shown_chars),
            &int(s.kept_chars),
        ],
    )
}

pub(super) fn insert_call(c: &mut Pg, k: &Call) -> Result<u64, postgres::Error> {
    c.execute(
        "INSERT INTO toolcap_record_calls (at, dialog_id, tool_call_id, recovery_tool, ask, \
         \"offset\", start_line, end_line, pattern, symbol, path, reply_chars, outcome, \
         result_tool, result_chars, result_truncated) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
        &[
            &k.at_ms,
            &text(&k.dialog_id),
            &text(&k.tool_call_id),
            &k.recovery_tool,
            &k.ask.name(),
            &k.offset.map(int),
            &k.start_line.map(int),
            &k.end_line.map(int),
            &k.pattern.as_deref().map(text),
            &k.symbol.as_deref().map(text),
            &k.path.as_deref().map(text),
            &int(k.reply_chars),
            &k.outcome.name(),
            &k.result_tool.as_deref().map(text),
            &k.result_chars.map(int),
            &k.result_truncated,
        ],
    )
}

fn seen_of(r: &Row) -> Result<Seen, postgres::Error> {
    Ok(Seen {
        at_ms: r.try_get(0)?,
        dialog_id: r.try_get(1)?,
        tool_call_id: r.try_get(2)?,
        tool: r.try_get(3)?,
        family: r.try_get(4)?,
        reason: r.try_get(5)?,
        truncated: r.try_get(6)?,
        threshold: count(r.try_get(7)?),
        unit: r.try_get(8)?,
        size_chars: count(r.try_get(9)?),
        shown_chars: count(r.try_get(10)?),
        kept_chars: count(r.try_get(11)?),
    })
}

fn call_of(r: &Row) -> Result<Call, postgres::Error> {
    let ask: String = r.try_get(4)?;
    let outcome: String = r.try_get(12)?;
    Ok(Call {
        at_ms: r.try_get(0)?,
        dialog_id: r.try_get(1)?,
        tool_call_id: r.try_get(2)?,
        recovery_tool: r.try_get(3)?,
        // (rows are written by toolcap only; an unknown name reads as the plainest kind)
        ask: Ask::parse(&ask).unwrap_or(Ask::Fetch),
        offset: r.try_get::<_, Option<i64>>(5)?.map(count),
        start_line: r.try_get::<_, Option<i64>>(6)?.map(count),
        end_line: r.try_get::<_, Option<i64>>(7)?.map(count),
        pattern: r.try_get(8)?,
        symbol: r.try_get(9)?,
        path: r.try_get(10)?,
        reply_chars: count(r.try_get(11)?),
        outcome: Outcome::parse(&outcome).unwrap_or(Outcome::Answered),
        result_tool: r.try_get(13)?,
        result_chars: r.try_get::<_, Option<i64>>(14)?.map(count),
        result_truncated: r.try_get(15)?,
    })
}

/// The rows `f` admits, oldest first, read in one snapshot.
pub(super) fn read(c: &mut Pg, f: &Filter) -> Result<Usage, postgres::Error> {
    let mut tx = c
        .client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()?;
    let dialog = f.dialog_id.as_deref();
    let seen = tx
        .query(
            "SELECT at, dialog_id, tool_call_id, tool, family, reason, truncated, threshold, \
             unit, size_chars, shown_chars, kept_chars FROM toolcap_record_seen \
             WHERE ($1::text IS NULL OR dialog_id = $1) AND ($2::bigint IS NULL OR at >= $2) \
             ORDER BY at, id",
            &[&dialog, &f.since_ms],
        )?
        .iter()
        .map(seen_of)
        .collect::<Result<Vec<_>, _>>()?;
    let calls = tx
        .query(
            "SELECT at, dialog_id, tool_call_id, recovery_tool, ask, \"offset\", start_line, \
             end_line, pattern, symbol, path, reply_chars, outcome, result_tool, result_chars, \
             result_truncated FROM toolcap_record_calls \
             WHERE ($1::text IS NULL OR dialog_id = $1) AND ($2::bigint IS NULL OR at >= $2) \
             ORDER BY at, id",
            &[&dialog, &f.since_ms],
        )?
        .iter()
        .map(call_of)
        .collect::<Result<Vec<_>, _>>()?;
    tx.commit()?;
    Ok(Usage { seen, calls })
}

/// Delete the rows made before `cutoff_ms` (inside the prune's transaction).
pub(super) fn prune_before(
    tx: &mut impl GenericClient,
    cutoff_ms: i64,
) -> Result<(), postgres::Error> {
    tx.execute(
        "DELETE FROM toolcap_record_seen WHERE at < $1",
        &[&cutoff_ms],
    )?;
    tx.execute(
        "DELETE FROM toolcap_record_calls WHERE at < $1",
        &[&cutoff_ms],
    )?;
    Ok(())
}

/// Delete one dialog's rows (inside the deletion's transaction).
pub(super) fn delete_dialog(
    c: &mut impl GenericClient,
    dialog_id: &str,
) -> Result<(), postgres::Error> {
    c.execute(
        "DELETE FROM toolcap_record_seen WHERE dialog_id = $1",
        &[&dialog_id],
    )?;
    c.execute(
        "DELETE FROM toolcap_record_calls WHERE dialog_id = $1",
        &[&dialog_id],
    )?;
    Ok(())
}
