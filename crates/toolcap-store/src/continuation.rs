//! Getting a stored result back: `get_continuation`, `fetch_tool_output`,
//! `get_tool_result`, the reference form of a tool message, and preparing a message
//! history with references swapped for full content.
//!
//! Offsets and sizes count Unicode characters (what Python's `len()` counts), and a
//! chunk never splits a character. Each function returns a [`ToolReply`]: the exact
//! text the model gets as the tool's result, and whether it is an error. Only a
//! failing store is an `Err`.

use std::io;

use serde_json::{Map, Value, json};

use super::retention::Expired;
use super::{Meta, ResultStore, StoreError, char_span, validate_id};
use crate::quote::json_string;
use crate::text::count_chars;
use crate::text::plural;

/// Characters per `get_continuation` chunk unless configured: the default kept size.
pub const DEFAULT_CHUNK_CHARS: usize = 2000;

/// Characters of the output shown in a reference's `truncated_preview`.
pub const PREVIEW_CHARS: usize = 500;

/// How `get_continuation` cuts chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkOptions {
    /// Characters per chunk (at least 1). Default: [`DEFAULT_CHUNK_CHARS`]; the CLI
    /// uses the configuration's `max_kept_chars`.
    pub chunk_chars: usize,
    /// End each chunk (but the last) after its last complete line, when it holds one;
    /// a chunk that is one long line still ends after `chunk_chars` characters.
    pub line_aligned: bool,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        ChunkOptions {
            chunk_chars: DEFAULT_CHUNK_CHARS,
            line_aligned: false,
        }
    }
}

/// The result text of a recovery tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolReply {
    /// Exactly what the model gets as the tool's result.
    pub text: String,
    /// The text is a JSON `{"error": ...}` object (Anthropic's `is_error`).
    pub is_error: bool,
    /// Where the next chunk starts, when the text ends with a continuation marker.
    pub next_offset: Option<usize>,
    /// The text ends with a note or marker added after the output's own text (a
    /// chunk's or a line range's closing marker), not with the output's last
    /// characters: a program printing the reply ends that note with a line end
    /// and adds nothing after the output's own end.
    pub closing_note: bool,
    /// Why the call failed, when `is_error` (for a program to tell the cases apart
    /// without reading `text`).
    pub error: Option<ReplyError>,
}

/// Why a recovery tool call failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyError {
    /// No result is stored under that id (never stored, or deleted and no record of
    /// it kept).
    NotStored,
    /// The result expired (by age or size, see [`super::retention`]); the text says
    /// when and why.
    Expired,
    /// The offset is at or past the end of the stored result.
    PastEnd,
    /// An argument is missing, malformed or out of range; the text says which.
    BadArgument,
    /// The store itself failed (a database error); the text says how.
    StoreFailed,
}

impl ToolReply {
    pub(crate) fn ok(text: String) -> ToolReply {
        ToolReply {
            text,
            is_error: false,
            next_offset: None,
            closing_note: false,
            error: None,
        }
    }

    /// `{"error": "<message>"}`: a bad argument.
    pub fn error(message: &str) -> ToolReply {
        ToolReply::failure(ReplyError::BadArgument, message)
    }

    /// `{"error": "<message>"}`, failed for the reason `why`.
    pub fn failure(why: ReplyError, message: &str) -> ToolReply {
        ToolReply {
            text: format!("{{\"error\": {}}}", json_string(message)),
            is_error: true,
            next_offset: None,
            closing_note: false,
            error: Some(why),
        }
    }
}

/// JSON text in the style of Python's `json.dumps` (`", "` and `": "` separators),
/// the form of every JSON reply here.
pub fn json_text(v: &Value) -> String {
    struct Spaced;
    impl serde_json::ser::Formatter for Spaced {
        fn begin_array_value<W: ?Sized + io::Write>(
            &mut self,
            w: &mut W,
            first: bool,
        ) -> io::Result<()> {
            if first { Ok(()) } else { w.write_all(b", ") }
        }
        fn begin_object_key<W: ?Sized + io::Write>(
            &mut self,
            w: &mut W,
            first: bool,
        ) -> io::Result<()> {
            if first { Ok(()) } else { w.write_all(b", ") }
        }
        fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
            w.write_all(b": ")
        }
    }
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Spaced);
    // Serializing a Value into memory cannot fail, and the output is UTF-8.
    let _ = serde::Serialize::serialize(v, &mut ser);
    String::from_utf8(out).unwrap_or_default()
}

pub(super) fn not_cached(tool_call_id: &str) -> ToolReply {
    ToolReply::failure(
        ReplyError::NotStored,
        &format!("No cached result for tool_call_id '{tool_call_id}'"),
    )
}

/// The reply for a result that is not in the store: "expired ..." when its
/// record is kept ([`ResultStore::expired`]), else `not_there()` (the tool's own
/// "no cached result").
pub(super) fn missing(
    store: &dyn ResultStore,
    dialog_id: &str,
    tool_call_id: &str,
    not_there: impl FnOnce() -> ToolReply,
) -> Result<ToolReply, StoreError> {
    Ok(match store.expired(dialog_id, tool_call_id)? {
        Some(gone) => expired_reply(&gone),
        None => not_there(),
    })
}

/// The `{"error": ...}` reply of the recovery tools for an expired result: its
/// [`Expired::message`], failed as [`ReplyError::Expired`].
pub fn expired_reply(gone: &Expired) -> ToolReply {
    ToolReply::failure(ReplyError::Expired, &gone.message())
}

fn beyond_end() -> ToolReply {
    ToolReply::failure(ReplyError::PastEnd, "Offset beyond end of result")
}

/// The id check, as a reply the model can act on.
pub(super) fn check_id(tool_call_id: &str) -> Result<(), ToolReply> {
    validate_id("tool_call_id", tool_call_id).map_err(|e| ToolReply::error(&e.to_string()))
}

/// The trailing marker of a chunk that is not the last one.
pub fn continuation_marker(tool_call_id: &str, start: usize, end: usize, total: usize) -> String {
    format!(
        "[truncated — showing {start}-{end}/{total} chars. {} chars remaining. \
         Call get_continuation with tool_call_id={} offset={end} to read more]",
        total - end,
        json_string(tool_call_id)
    )
}

/// One chunk of `output` from character `offset`, as `get_continuation` returns it:
/// the chunk, then — while more remains — a blank line and the
/// [`continuation_marker`]. The final chunk has no marker. An offset at or past the
/// end is `{"error": "Offset beyond end of result"}`.
pub fn chunk_reply(
    tool_call_id: &str,
    output: &str,
    offset: usize,
    opts: &ChunkOptions,
) -> ToolReply {
    let total = count_chars(output);
    let (start, end) = char_span(output, offset, opts.chunk_chars.max(1));
    window_reply(tool_call_id, &output[start..end], offset, total, opts)
}

/// [`chunk_reply`] given only the window `output[offset .. offset + chunk_chars]`
/// (in characters) and the output's total length.
fn window_reply(
    tool_call_id: &str,
    window: &str,
    offset: usize,
    total: usize,
    opts: &ChunkOptions,
) -> ToolReply {
    if offset >= total {
        return beyond_end();
    }
    let mut chunk = window;
    if opts.line_aligned
        && offset + count_chars(window) < total
        && let Some(nl) = window.rfind('\n')
    {
        chunk = &window[..nl + 1];
    }
    let end_chars = offset + count_chars(chunk);
    if end_chars >= total {
        return ToolReply::ok(chunk.to_string());
    }
    let mut text = String::with_capacity(chunk.len() + 160);
    text.push_str(chunk);
    text.push_str("\n\n");
    text.push_str(&continuation_marker(tool_call_id, offset, end_chars, total));
    ToolReply {
        next_offset: Some(end_chars),
        closing_note: true,
        ..ToolReply::ok(text)
    }
}

/// `get_continuation(tool_call_id, offset)`: the next chunk of a stored result.
///
/// A missing `offset` means right after what the model was shown first (the end of
/// the kept head: [`Meta::shown_chars`]). An unknown id is
/// `{"error": "No cached result for tool_call_id 'X'"}`, one that expired says when
/// and why ([`Expired::message`](super::Expired::message)).
pub fn get_continuation(
    store: &dyn ResultStore,
    dialog_id: &str,
    tool_call_id: &str,
    offset: Option<usize>,
    opts: &ChunkOptions,
) -> Result<ToolReply, StoreError> {
    if let Err(reply) = check_id(tool_call_id) {
        return Ok(reply);
    }
    let Some(meta) = store.meta(dialog_id, tool_call_id)? else {
        return missing(store, dialog_id, tool_call_id, || not_cached(tool_call_id));
    };
    let offset = offset.unwrap_or(meta.shown_chars);
    if offset >= meta.size.chars {
        return Ok(beyond_end());
    }
    let chunk = opts.chunk_chars.max(1);
    let Some((meta, window)) = store.read_range(dialog_id, tool_call_id, offset, chunk)? else {
        return missing(store, dialog_id, tool_call_id, || not_cached(tool_call_id));
    };
    Ok(window_reply(
        tool_call_id,
        &window,
        offset,
        meta.size.chars,
        opts,
    ))
}

/// `fetch_tool_output(tool_call_id)`: `{"tool_name": ..., "tool_args": ...,
/// "tool_output": ...}` with the full output, or `{"error": "no tool call with id X"}`.
///
/// With `offset` and/or `limit` (characters), `tool_output` holds only characters
/// `[offset, offset + limit)`, and the object adds `"offset"`, `"total_chars"` and
/// `"next_offset"` (`null` once the end is reached). An offset at or past the end of
/// a non-empty output is `{"error": "Offset beyond end of result"}`.
pub fn fetch_tool_output(
    store: &dyn ResultStore,
    dialog_id: &str,
    tool_call_id: &str,
    offset: Option<usize>,
    limit: Option<usize>,
) -> Result<ToolReply, StoreError> {
    if let Err(reply) = check_id(tool_call_id) {
        return Ok(reply);
    }
    let paged = offset.is_some() || limit.is_some();
    let offset = offset.unwrap_or(0);
    let found = store.read_range(dialog_id, tool_call_id, offset, limit.unwrap_or(usize::MAX))?;
    let Some((meta, part)) = found else {
        return missing(store, dialog_id, tool_call_id, || {
            ToolReply::failure(
                ReplyError::NotStored,
                &format!("no tool call with id {tool_call_id}"),
            )
        });
    };
    let total = meta.size.chars;
    if paged && offset >= total && !(offset == 0 && total == 0) {
        return Ok(beyond_end());
    }
    let mut obj = Map::new();
    obj.insert("tool_name".into(), json!(meta.tool_name));
    obj.insert("tool_args".into(), meta.tool_args);
    if !paged {
        obj.insert("tool_output".into(), Value::String(part));
        return Ok(ToolReply::ok(json_text(&Value::Object(obj))));
    }
    let next = offset + count_chars(&part);
    obj.insert("tool_output".into(), Value::String(part));
    obj.insert("offset".into(), json!(offset));
    obj.insert("total_chars".into(), json!(total));
    obj.insert(
        "next_offset".into(),
        if next < total {
            json!(next)
        } else {
            Value::Null
        },
    );
    Ok(ToolReply::ok(json_text(&Value::Object(obj))))
}

/// `get_tool_result(tool_call_id)`: the full stored output as it was, or
/// `{"error": "No cached result for tool_call_id 'X'"}`.
pub fn get_tool_result(
    store: &dyn ResultStore,
    dialog_id: &str,
    tool_call_id: &str,
) -> Result<ToolReply, StoreError> {
    if let Err(reply) = check_id(tool_call_id) {
        return Ok(reply);
    }
    match store.get(dialog_id, tool_call_id)? {
        Some(record) => Ok(ToolReply::ok(record.output)),
        None => missing(store, dialog_id, tool_call_id, || not_cached(tool_call_id)),
    }
}

/// The reference form of a stored tool result: what a harness keeps in its message
/// history instead of the full content.
///
/// ```json
/// {"tool_call_id": "call_1", "tool_name": "bash", "status": "success",
///  "metadata": {"size_bytes": 52000, "summary": "...", "truncated_preview": "..."},
///  "result_ref": {"storage_type": "sqlite", "dialog_id": "d1", "tool_call_id": "call_1"}}
/// ```
///
/// `status` is `"success"`: toolcap does not know whether the tool failed; a harness
/// that does may overwrite it. `truncated_preview` is the first [`PREVIEW_CHARS`]
/// characters of the output, with `…` when there is more.
pub fn reference(meta: &Meta, output: &str, storage_type: &str) -> Value {
    let (_, end) = char_span(output, 0, PREVIEW_CHARS);
    reference_of(meta, &output[..end], end < output.len(), storage_type)
}

/// [`reference`] given the output's first [`PREVIEW_CHARS`] characters, and
/// whether there are more.
fn reference_of(meta: &Meta, start: &str, more: bool, storage_type: &str) -> Value {
    let mut preview = start.to_string();
    if more {
        preview.push('…');
    }
    let summary = format!(
        "{} result: {}, {} ({}){}; call get_tool_result with tool_call_id={} to load it",
        meta.tool_name,
        plural(meta.size.lines, "line", "lines"),
        plural(meta.size.chars, "char", "chars"),
        plural(meta.size.bytes, "byte", "bytes"),
        if meta.truncated {
            ", cut when shown"
        } else {
            ""
        },
        json_string(&meta.tool_call_id)
    );
    json!({
        "tool_call_id": meta.tool_call_id,
        "tool_name": meta.tool_name,
        "status": "success",
        "metadata": {
            "size_bytes": meta.size.bytes,
            "summary": summary,
            "truncated_preview": preview,
        },
        "result_ref": {
            "storage_type": storage_type,
            "dialog_id": meta.dialog_id,
            "tool_call_id": meta.tool_call_id,
        },
    })
}

/// An OpenAI-style tool message carrying the reference of a stored result
/// (`{"role": "tool", "tool_call_id": ..., "content": "<reference JSON>"}`), or
/// `None` when nothing is stored under that id.
pub fn reference_message(
    store: &dyn ResultStore,
    dialog_id: &str,
    tool_call_id: &str,
) -> Result<Option<Value>, StoreError> {
    // only the preview is read, not the whole output
    let Some((meta, start)) = store.read_range(dialog_id, tool_call_id, 0, PREVIEW_CHARS + 1)?
    else {
        return Ok(None);
    };
    let (_, end) = char_span(&start, 0, PREVIEW_CHARS);
    let r = reference_of(
        &meta,
        &start[..end],
        end < start.len(),
        store.storage_type(),
    );
    Ok(Some(json!({
        "role": "tool",
        "tool_call_id": tool_call_id,
        "content": json_text(&r),
    })))
}

/// Which referenced tool results [`prepare_messages`] loads in full.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum LoadToolResults {
    /// Keep every reference as it is (the model can call `get_tool_result`).
    #[default]
    None,
    /// Swap every reference for the full content.
    All,
    /// Swap the references of these tool call ids only.
    Ids(Vec<String>),
}

impl LoadToolResults {
    /// `none`, `all`, or a comma-separated list of ids.
    pub fn parse(s: &str) -> LoadToolResults {
        match s.trim() {
            "none" | "" => LoadToolResults::None,
            "all" => LoadToolResults::All,
            list => LoadToolResults::Ids(
                list.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect(),
            ),
        }
    }

    fn wants(&self, id: &str) -> bool {
        match self {
            LoadToolResults::None => false,
            LoadToolResults::All => true,
            LoadToolResults::Ids(ids) => ids.iter().any(|i| i == id),
        }
    }
}

/// The `result_ref` of a tool message's content, when it is a reference (content
/// given as JSON text, as OpenAI requires, or as an object).
fn result_ref(content: &Value) -> Option<Map<String, Value>> {
    let parsed;
    let obj = match content {
        Value::String(s) if s.trim_start().starts_with('{') => {
            parsed = serde_json::from_str::<Value>(s).ok()?;
            parsed.as_object()?
        }
        Value::Object(o) => o,
        _ => return None,
    };
    obj.get("result_ref")?.as_object().cloned()
}

/// Prepare an OpenAI-style message history for the model: tool messages holding a
/// reference (see [`reference()`]) to a result of `dialog_id` get their full content
/// back where `load` asks for it. Everything else — other messages, tool messages
/// with inline results (old dialogs), references to other dialogs, references whose
/// result is no longer stored — is passed through unchanged.
///
/// The other direction — old inline results of a history (OpenAI Chat, OpenAI
/// Responses or Anthropic) masked in cache-stable batches, each kept in the store
/// and replaced by a line naming its recovery call — is
/// `toolcap::history::prepare_messages_with`.
pub fn prepare_messages(
    store: &dyn ResultStore,
    dialog_id: &str,
    messages: &[Value],
    load: &LoadToolResults,
) -> Result<Vec<Value>, StoreError> {
    let mut out = Vec::with_capacity(messages.len());
    for m in messages {
        let mut m = m.clone();
        if m.get("role").and_then(Value::as_str) == Some("tool")
            && let Some(r) = m.get("content").and_then(result_ref)
            && r.get("dialog_id").and_then(Value::as_str) == Some(dialog_id)
            && let Some(id) = r.get("tool_call_id").and_then(Value::as_str)
            && load.wants(id)
            && validate_id("tool_call_id", id).is_ok()
            && let Some(record) = store.get(dialog_id, id)?
            && let Some(obj) = m.as_object_mut()
        {
            obj.insert("content".into(), Value::String(record.output));
        }
        out.push(m);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "call_abc123";

    #[test]
    fn chunks_carry_the_exact_marker_until_the_last() {
        let text = "é".repeat(4500);
        let opts = ChunkOptions::default();
        let first = chunk_reply(ID, &text, 0, &opts);
        assert_eq!(
            first.text,
            format!(
                "{}\n\n[truncated — showing 0-2000/4500 chars. 2500 chars remaining. \
                 Call get_continuation with tool_call_id=\"call_abc123\" offset=2000 to read more]",
                "é".repeat(2000)
            )
        );
        let last = chunk_reply(ID, &text, 4000, &opts);
        assert_eq!(last.text, "é".repeat(500));
        assert_eq!(
            chunk_reply(ID, &text, 4500, &opts).text,
            r#"{"error": "Offset beyond end of result"}"#
        );
    }

    #[test]
    fn line_aligned_chunks_end_after_a_whole_line() {
        let text = "0123456789\n".repeat(10);
        let opts = ChunkOptions {
            chunk_chars: 25,
            line_aligned: true,
        };
        let r = chunk_reply(ID, &text, 0, &opts);
        assert!(
            r.text
                .starts_with("0123456789\n0123456789\n\n\n[truncated — showing 0-22/110")
        );
        // one long line: cut on a character boundary all the same
        let long = "x".repeat(60);
        let r = chunk_reply(ID, &long, 0, &opts);
        assert!(r.text.starts_with(&format!(
            "{}\n\n[truncated — showing 0-25/60",
            "x".repeat(25)
        )));
    }

    #[test]
    fn json_replies_use_python_spacing() {
        assert_eq!(
            json_text(&json!({"a": [1, 2], "b": {"c": null}})),
            r#"{"a": [1, 2], "b": {"c": null}}"#
        );
    }
}
