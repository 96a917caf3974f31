//! Rows: the statements that write a result, their parameters, the chunks a row
//! holds, and the writer of a result kept piece by piece.

use postgres::Row;
use postgres::types::ToSql;

use super::{CHUNK_BYTES, PostgresStore};
use toolcap_store::backend::{self, ChunkSink, MetaRow, to_i64, to_usize};
use toolcap_store::{Meta, StoreError, StoreErrorKind, now_ms};

/// Insert or replace a result whose output is `$11` (one chunk), in one statement.
pub(super) const PUT_ONE_CHUNK: &str = "WITH o AS (SELECT nextval('toolcap_output_ids') AS id), \
     c AS (INSERT INTO toolcap_chunks (output_id, char_start, bytes) \
           SELECT id, 0, $11::bytea FROM o) \
     INSERT INTO toolcap_results (dialog_id, tool_call_id, tool_name, tool_args, size_bytes, \
     size_chars, size_lines, truncated, shown_chars, created_at, output_id) \
     SELECT $1::text, $2::text, $3::text, $4::text, $5::bigint, $6::bigint, $7::bigint, \
     $8::boolean, $9::bigint, $10::bigint, id FROM o \
     ON CONFLICT (dialog_id, tool_call_id) DO UPDATE SET \
     tool_name = excluded.tool_name, tool_args = excluded.tool_args, \
     size_bytes = excluded.size_bytes, size_chars = excluded.size_chars, \
     size_lines = excluded.size_lines, truncated = excluded.truncated, \
     shown_chars = excluded.shown_chars, created_at = excluded.created_at, \
     output_id = excluded.output_id";

/// Insert or replace a result whose chunks are kept under `$11`.
pub(super) const UPSERT: &str = "INSERT INTO toolcap_results (dialog_id, tool_call_id, tool_name, \
     tool_args, size_bytes, size_chars, size_lines, truncated, shown_chars, created_at, output_id) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
     ON CONFLICT (dialog_id, tool_call_id) DO UPDATE SET \
     tool_name = excluded.tool_name, tool_args = excluded.tool_args, \
     size_bytes = excluded.size_bytes, size_chars = excluded.size_chars, \
     size_lines = excluded.size_lines, truncated = excluded.truncated, \
     shown_chars = excluded.shown_chars, created_at = excluded.created_at, \
     output_id = excluded.output_id";

/// A chunk of a spill, written only while the spill is there (touching it).
const WRITE_CHUNK: &str = "WITH s AS (UPDATE toolcap_spills SET touched_at = $2 WHERE id = $1 \
     RETURNING id) INSERT INTO toolcap_chunks (output_id, char_start, bytes) \
     SELECT id, $3::bigint, $4::bytea FROM s";

/// The [`Meta`] in columns 0-9 of a row ([`META_COLUMNS`](toolcap_store::backend::META_COLUMNS)).
pub(super) fn meta_from_row(r: &Row) -> Result<Meta, postgres::Error> {
    backend::meta_from_row(&PgRow(r))
}

/// A row of PostgreSQL's, as the kit's [`MetaRow`] reads it.
struct PgRow<'a>(&'a Row);

impl MetaRow for PgRow<'_> {
    type Error = postgres::Error;
    fn text(&self, i: usize) -> Result<String, postgres::Error> {
        self.0.try_get(i)
    }
    fn int(&self, i: usize) -> Result<i64, postgres::Error> {
        self.0.try_get(i)
    }
    fn flag(&self, i: usize) -> Result<bool, postgres::Error> {
        self.0.try_get(i)
    }
}

/// The chunk in columns 10 (char_start) and 11 (bytes) of a row, if any.
pub(super) fn chunk_of(r: &Row) -> Result<Option<(usize, &str)>, ChunkError> {
    let start: Option<i64> = r.try_get(10).map_err(ChunkError::Pg)?;
    let bytes: Option<&[u8]> = r.try_get(11).map_err(ChunkError::Pg)?;
    match (start, bytes) {
        (Some(s), Some(b)) => std::str::from_utf8(b)
            .map(|t| Some((to_usize(s), t)))
            .map_err(|e| ChunkError::NotUtf8(to_usize(s), e)),
        _ => Ok(None),
    }
}

pub(super) enum ChunkError {
    Pg(postgres::Error),
    NotUtf8(usize, std::str::Utf8Error),
}

/// The ten metadata parameters ($1..$10) of [`PUT_ONE_CHUNK`] and [`UPSERT`].
pub(super) struct MetaParams {
    args: String,
    bytes: i64,
    chars: i64,
    lines: i64,
    shown: i64,
}

impl MetaParams {
    pub(super) fn new(m: &Meta) -> MetaParams {
        MetaParams {
            args: m.tool_args.to_string(),
            bytes: to_i64(m.size.bytes),
            chars: to_i64(m.size.chars),
            lines: to_i64(m.size.lines),
            shown: to_i64(m.shown_chars),
        }
    }

    pub(super) fn with<'a>(
        &'a self,
        m: &'a Meta,
        last: &'a (dyn ToSql + Sync),
    ) -> [&'a (dyn ToSql + Sync); 11] {
        [
            &m.dialog_id,
            &m.tool_call_id,
            &m.tool_name,
            &self.args,
            &self.bytes,
            &self.chars,
            &self.lines,
            &m.truncated,
            &self.shown,
            &m.created_at_ms,
            last,
        ]
    }
}

/// Where an output written piece by piece goes: chunks under its row in
/// `toolcap_spills`, invisible until the commit.
pub(super) struct PgSink<'a> {
    pub(super) store: &'a PostgresStore,
    /// Its row in `toolcap_spills`: the output_id of its chunks.
    pub(super) spill: i64,
}

impl ChunkSink for PgSink<'_> {
    const CHUNK_BYTES: usize = CHUNK_BYTES;

    fn chunk(&mut self, start: usize, text: &str) -> Result<bool, StoreError> {
        let (spill, start) = (self.spill, to_i64(start));
        let bytes = text.as_bytes();
        let written = self.store.run("write", |c| {
            c.execute(WRITE_CHUNK, &[&spill, &now_ms(), &start, &bytes])
        })?;
        Ok(written > 0)
    }

    fn commit(&mut self, m: &Meta, start: usize, last: &str) -> Result<bool, StoreError> {
        let params = MetaParams::new(m);
        let (spill, start) = (self.spill, to_i64(start));
        let last = last.as_bytes();
        self.store.run("write", |c| {
            let delete = c.prep("DELETE FROM toolcap_spills WHERE id = $1")?;
            let insert = c.prep(
                "INSERT INTO toolcap_chunks (output_id, char_start, bytes) VALUES ($1, $2, $3)",
            )?;
            let upsert = c.prep(UPSERT)?;
            let mut tx = c.client.transaction()?;
            // deleting the spill row first locks out a prune (and tells if one won)
            if tx.execute(&delete, &[&spill])? == 0 {
                return Ok(false);
            }
            if !last.is_empty() || start == 0 {
                tx.execute(&insert, &[&spill, &start, &last])?;
            }
            tx.execute(&upsert, &params.with(m, &spill))?;
            tx.commit()?;
            Ok(true)
        })
    }

    fn discard(&mut self, _wrote: bool) {
        let spill = self.spill;
        let _ = self.store.run("discard", |c| {
            let mut tx = c.client.transaction()?;
            tx.execute("DELETE FROM toolcap_spills WHERE id = $1", &[&spill])?;
            tx.execute("DELETE FROM toolcap_chunks WHERE output_id = $1", &[&spill])?;
            tx.commit()
        });
    }

    fn check(&self, m: &Meta) -> Result<(), StoreError> {
        self.store.check_meta(m)
    }

    fn problem(&self, action: &'static str, problem: String, kind: StoreErrorKind) -> StoreError {
        self.store.problem(action, problem, kind)
    }
}
