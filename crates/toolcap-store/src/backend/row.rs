//! The metadata columns of a stored result, and reading them back: one mapping
//! for both SQL stores (SQLite and PostgreSQL keep the same columns, in the same
//! order, in their results tables).

use serde_json::Value;

use crate::Meta;
use crate::cut::index::Totals;

/// The metadata columns, in the order [`meta_from_row`] reads them (columns 0-9
/// of a row; a query adds its own columns after them).
pub const META_COLUMNS: &str = "dialog_id, tool_call_id, tool_name, tool_args, \
                                       size_bytes, size_chars, size_lines, truncated, \
                                       shown_chars, created_at";

/// A row of a database client, as [`meta_from_row`] reads it.
pub trait MetaRow {
    /// The client's error.
    type Error;
    /// Column `i` as text.
    fn text(&self, i: usize) -> Result<String, Self::Error>;
    /// Column `i` as a 64-bit integer.
    fn int(&self, i: usize) -> Result<i64, Self::Error>;
    /// Column `i` as a boolean.
    fn flag(&self, i: usize) -> Result<bool, Self::Error>;
}

/// The [`Meta`] in columns 0-9 of a row ([`META_COLUMNS`]). Arguments that are
/// not JSON (never written by toolcap) come back as a JSON string.
pub fn meta_from_row<R: MetaRow>(r: &R) -> Result<Meta, R::Error> {
    let args = r.text(3)?;
    Ok(Meta {
        dialog_id: r.text(0)?,
        tool_call_id: r.text(1)?,
        tool_name: r.text(2)?,
        tool_args: serde_json::from_str(&args).unwrap_or(Value::String(args)),
        size: Totals {
            bytes: to_usize(r.int(4)?),
            chars: to_usize(r.int(5)?),
            lines: to_usize(r.int(6)?),
        },
        truncated: r.flag(7)?,
        shown_chars: to_usize(r.int(8)?),
        created_at_ms: r.int(9)?,
    })
}

/// A count as a database integer (saturating).
pub fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A database integer as a count (a negative one, never written, as 0).
pub fn to_usize(n: i64) -> usize {
    usize::try_from(n).unwrap_or(0)
}
