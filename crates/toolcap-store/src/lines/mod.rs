//! Stored results by line: `get_continuation` with a line range, and
//! `search_tool_output` (a regex over the stored output, matching lines with their
//! numbers and a little context, and the exact count of every match; a line is
//! matched and shown without its terminal escape sequences).
//!
//! Both read the output piece by piece ([`ResultStore::stream_output`]), so a
//! result of any size is searched without being held whole. Line numbers are
//! 1-based, as in the marker and the outline; a line's text is shown without its
//! line end.

use std::ops::ControlFlow;

use super::continuation::{ToolReply, check_id, missing, not_cached};
use super::{ResultStore, StoreError};
use crate::quote::json_string;
use crate::text::{count_chars, thousands};

mod search;
#[cfg(test)]
mod tests;

pub use search::{
    FoundLine, Search, SearchFound, SearchOptions, search, search_tool_output, search_within,
};

/// Characters of one line shown in a search reply; the rest is counted.
pub const SEARCH_LINE_CHARS: usize = 300;
/// Matching lines shown by `search_tool_output` unless `max_matches` says otherwise.
pub const DEFAULT_MAX_MATCHES: usize = 20;
/// Most context lines before and after each match.
pub const MAX_CONTEXT: usize = 5;
/// The most characters one line-range or search reply holds unless configured, its
/// notes and marker included: the default `threshold` of every tool family in
/// thresholds.toml, so a harness that does not bypass the recovery tools never cuts
/// a reply again, and a definition of up to about that size comes back in one call.
pub const DEFAULT_REPLY_CHARS: usize = 3500;

/// How much of a line-range reply the lines may fill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineBudget {
    /// The lines' characters (line ends included), notes and marker on top.
    Lines(usize),
    /// The whole reply's characters, notes and marker included.
    Reply(usize),
}

/// A line longer than this (in bytes) is not held whole by a line reader: its
/// first `LONG_LINE` bytes are (cut on a character boundary), the rest is counted.
/// A stored 512 MB one-line result is read by lines in bounded memory.
pub const LONG_LINE: usize = 1 << 20;

/// One line of a stored output, as a line reader sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LineView<'a> {
    /// The line without its `\n`: all of it, or its first [`LONG_LINE`] bytes
    /// when `chars` is set.
    pub(crate) text: &'a str,
    /// The whole line's characters, for a line longer than [`LONG_LINE`] bytes
    /// (`text` is then its start only).
    pub(crate) long_chars: Option<usize>,
    /// A `\n` ends the line in the output (all but an unterminated last line).
    pub(crate) ended: bool,
}

impl LineView<'_> {
    /// Characters of the whole line.
    pub(crate) fn chars(&self) -> usize {
        self.long_chars.unwrap_or_else(|| count_chars(self.text))
    }
}

/// The line being assembled from the pieces of a stored output: held up to
/// [`LONG_LINE`] bytes, then only counted.
#[derive(Default)]
struct Carry {
    text: String,
    /// Characters past `text` (a long line's rest).
    rest_chars: usize,
    long: bool,
}

impl Carry {
    fn push(&mut self, s: &str) {
        if self.long {
            self.rest_chars += count_chars(s);
            return;
        }
        let room = LONG_LINE.saturating_sub(self.text.len());
        if s.len() <= room {
            self.text.push_str(s);
            return;
        }
        let mut cut = room;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        self.text.push_str(&s[..cut]);
        self.rest_chars += count_chars(&s[cut..]);
        self.long = true;
    }

    fn view(&self, ended: bool) -> LineView<'_> {
        LineView {
            text: &self.text,
            long_chars: self.long.then(|| count_chars(&self.text) + self.rest_chars),
            ended,
        }
    }

    fn clear(&mut self) {
        self.text.clear();
        self.rest_chars = 0;
        self.long = false;
    }

    fn is_empty(&self) -> bool {
        self.text.is_empty() && !self.long
    }
}

/// Calls `f(line_no, line)` for each line of a stored output (1-based; `line`
/// without its `\n`, a long one by its start: [`LineView`]), until `f` breaks.
/// `Ok(None)` when no such result is stored.
pub(crate) fn for_each_line(
    store: &dyn ResultStore,
    dialog_id: &str,
    tool_call_id: &str,
    f: &mut dyn FnMut(usize, LineView<'_>) -> ControlFlow<()>,
) -> Result<Option<usize>, StoreError> {
    let mut carry = Carry::default();
    let mut n = 0usize;
    let mut stopped = false;
    let found = store.stream_output(dialog_id, tool_call_id, &mut |piece| {
        let mut rest = piece;
        while let Some(i) = memchr::memchr(b'\n', rest.as_bytes()) {
            n += 1;
            let flow = if carry.is_empty() && i <= LONG_LINE {
                f(
                    n,
                    LineView {
                        text: &rest[..i],
                        long_chars: None,
                        ended: true,
                    },
                )
            } else {
                carry.push(&rest[..i]);
                let flow = f(n, carry.view(true));
                carry.clear();
                flow
            };
            rest = &rest[i + 1..];
            if flow.is_break() {
                stopped = true;
                return ControlFlow::Break(());
            }
        }
        carry.push(rest);
        ControlFlow::Continue(())
    })?;
    if found.is_none() {
        return Ok(None);
    }
    if !stopped && !carry.is_empty() {
        n += 1;
        let _ = f(n, carry.view(false));
    }
    Ok(Some(n))
}

/// `get_continuation(tool_call_id, start_line, end_line)`: lines `start_line` to
/// `end_line` (1-based, inclusive; `end_line` defaults to as many as fit) of a
/// stored result, whole lines up to `chunk_chars` characters (a first line longer
/// than that is cut after `chunk_chars` and says so). When it stops before the
/// range asked for ends (or no `end_line` was given) while lines remain, the text
/// ends with a marker naming the lines shown and the next `start_line`; a range
/// served whole ends with its last line.
pub fn get_lines(
    store: &dyn ResultStore,
    dialog_id: &str,
    tool_call_id: &str,
    start_line: usize,
    end_line: Option<usize>,
    chunk_chars: usize,
) -> Result<ToolReply, StoreError> {
    lines_reply(
        store,
        dialog_id,
        tool_call_id,
        start_line,
        end_line,
        LineBudget::Lines(chunk_chars),
    )
}

/// `get_continuation(tool_call_id, start_line, end_line)` as the recovery tools serve
/// it: [`get_lines`], but the whole reply (lines, notes and marker) holds at most
/// `reply_chars` characters ([`DEFAULT_REPLY_CHARS`] unless configured) instead of
/// stopping at a chunk, so a range the first view names by its size comes back in
/// one call.
pub fn get_line_range(
    store: &dyn ResultStore,
    dialog_id: &str,
    tool_call_id: &str,
    start_line: usize,
    end_line: Option<usize>,
    reply_chars: usize,
) -> Result<ToolReply, StoreError> {
    lines_reply(
        store,
        dialog_id,
        tool_call_id,
        start_line,
        end_line,
        LineBudget::Reply(reply_chars),
    )
}

fn lines_reply(
    store: &dyn ResultStore,
    dialog_id: &str,
    tool_call_id: &str,
    start_line: usize,
    end_line: Option<usize>,
    budget: LineBudget,
) -> Result<ToolReply, StoreError> {
    if let Err(reply) = check_id(tool_call_id) {
        return Ok(reply);
    }
    if start_line == 0 {
        return Ok(ToolReply::error(
            "start_line counts from 1 (the first line is line 1)",
        ));
    }
    if end_line.is_some_and(|e| e < start_line) {
        return Ok(ToolReply::error(
            "end_line must not be smaller than start_line",
        ));
    }
    let Some(meta) = store.meta(dialog_id, tool_call_id)? else {
        return missing(store, dialog_id, tool_call_id, || not_cached(tool_call_id));
    };
    let total = meta.size.lines;
    if start_line > total {
        return Ok(ToolReply::error(&format!(
            "start_line {start_line} is past the last line of the result ({total} lines)"
        )));
    }
    let budget = match budget {
        LineBudget::Lines(n) => n,
        LineBudget::Reply(n) => n.saturating_sub(reply_reserve(tool_call_id, &meta)),
    }
    .max(1);
    let last_wanted = end_line.unwrap_or(usize::MAX).min(total);
    let mut text = String::new();
    let mut used = 0usize;
    let mut shown_to = start_line - 1;
    let mut first_cut: Option<(usize, usize)> = None;
    for_each_line(store, dialog_id, tool_call_id, &mut |n, view| {
        if n < start_line {
            return ControlFlow::Continue(());
        }
        if n > last_wanted {
            return ControlFlow::Break(());
        }
        let line = view.text;
        let chars = view.chars() + 1;
        if used + chars > budget {
            if n == start_line {
                // one line longer than a chunk: its first `budget` chars (of a
                // long line, at most the start a reader holds)
                let end = line
                    .char_indices()
                    .nth(budget)
                    .map_or(line.len(), |(i, _)| i);
                text.push_str(&line[..end]);
                text.push('\n');
                first_cut = Some((view.chars(), count_chars(&line[..end])));
                shown_to = n;
            }
            return ControlFlow::Break(());
        }
        text.push_str(line);
        // (the output's own line end: none after an unterminated last line)
        if view.ended {
            text.push('\n');
        }
        used += chars;
        shown_to = n;
        ControlFlow::Continue(())
    })?;
    if let Some((len, shown)) = first_cut {
        text.push_str(&format!(
            "\n[line {start_line} has {} chars; only its first {} are shown. Call fetch_tool_output with tool_call_id={} and an offset to page through it]",
            thousands(len),
            thousands(shown),
            json_string(tool_call_id)
        ));
        if shown_to < total {
            text.push('\n');
        }
    }
    // a range asked for by its end and served whole needs no closing marker: the
    // reply is the lines asked for (as `sed -n 'A,Bp'` prints them)
    let served_whole = end_line.is_some() && shown_to == last_wanted && first_cut.is_none();
    let marked = shown_to < total && !served_whole;
    if marked {
        if first_cut.is_none() {
            text.push('\n');
        }
        text.push_str(&format!(
            "[showing lines {start_line}-{shown_to} of {total}. Call get_continuation with tool_call_id={} start_line={} to read on]",
            json_string(tool_call_id),
            shown_to + 1
        ));
    }
    Ok(ToolReply {
        closing_note: marked || first_cut.is_some(),
        ..ToolReply::ok(text)
    })
}

/// The most characters a line-range reply adds to its lines: the line end after a
/// first line cut short, the note saying so and the closing marker, each with the
/// largest numbers the result allows.
fn reply_reserve(tool_call_id: &str, meta: &super::Meta) -> usize {
    let total = meta.size.lines;
    let chars = thousands(meta.size.chars);
    let id = json_string(tool_call_id);
    let note = format!(
        "\n[line {total} has {chars} chars; only its first {chars} are shown. Call fetch_tool_output with tool_call_id={id} and an offset to page through it]\n"
    );
    let marker = format!(
        "\n[showing lines {total}-{total} of {total}. Call get_continuation with tool_call_id={id} start_line={total} to read on]"
    );
    1 + count_chars(&note) + count_chars(&marker)
}
