//! Rows: the metadata of a row, the chunks of an output, and the writer of a
//! result kept piece by piece.

use std::ops::ControlFlow;

use rusqlite::{Connection, Row, Transaction, TransactionBehavior, params, params_from_iter};

use super::{CHUNK_BYTES, SqliteStore};
use toolcap_store::backend::{self as row, ChunkSink, MetaRow, to_i64, to_usize};
use toolcap_store::{Meta, StoreError, StoreErrorKind, now_ms, validate_id};
use toolcap_text::text::byte_of_char;

/// Insert or replace a result; `?11` the inline output, `?12` the output_id.
pub(super) const UPSERT: &str = "INSERT INTO results (dialog_id, tool_call_id, tool_name, tool_args, \
     size_bytes, size_chars, size_lines, truncated, shown_chars, created_at, output, output_id) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) \
     ON CONFLICT (dialog_id, tool_call_id) DO UPDATE SET \
     tool_name = excluded.tool_name, tool_args = excluded.tool_args, \
     size_bytes = excluded.size_bytes, size_chars = excluded.size_chars, \
     size_lines = excluded.size_lines, truncated = excluded.truncated, \
     shown_chars = excluded.shown_chars, created_at = excluded.created_at, \
     output = excluded.output, output_id = excluded.output_id";

/// The [`Meta`] in columns 0-9 of a row (a function of SQLite's rows, for
/// `query_row` and `query_map`).
pub(super) fn meta_from_row(r: &Row<'_>) -> rusqlite::Result<Meta> {
    row::meta_from_row(&SqliteRow(r))
}

/// A row of SQLite's, as the kit's [`MetaRow`] reads it.
struct SqliteRow<'a, 'r>(&'a Row<'r>);

impl MetaRow for SqliteRow<'_, '_> {
    type Error = rusqlite::Error;
    fn text(&self, i: usize) -> rusqlite::Result<String> {
        self.0.get(i)
    }
    fn int(&self, i: usize) -> rusqlite::Result<i64> {
        self.0.get(i)
    }
    fn flag(&self, i: usize) -> rusqlite::Result<bool> {
        Ok(self.0.get::<_, i64>(i)? != 0)
    }
}

/// The output_id of a row's chunks, or NULL for an inline output. Decided on the
/// output's length first (read from the record header, without loading it), so an
/// inline output's pages are never read to get at the column after it.
pub(super) const CHUNKS_OF: &str = "CASE WHEN octet_length(output) = 0 THEN output_id END";

/// The chunks of output `output_id` from the one holding character `from_char`
/// on, in order, each with the number of characters before it; `each` returns
/// [`ControlFlow::Break`] to stop.
pub(super) fn for_each_chunk(
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
pub(super) fn chunk_window(
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
pub(super) struct SqliteSink<'a> {
    pub(super) store: &'a SqliteStore,
    /// Its row in `spills`: the output_id of its chunks.
    pub(super) spill: i64,
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
pub(super) fn upsert_params<'a>(
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
