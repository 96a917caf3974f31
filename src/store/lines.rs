//! Stored results by line: `get_continuation` with a line range, and
//! `search_tool_output` (a regex over the stored output, matching lines with their
//! numbers and a little context, and the exact count of every match; a line is
//! matched and shown without its terminal escape sequences).
//!
//! Both read the output piece by piece ([`ResultStore::stream_output`]), so a
//! result of any size is searched without being held whole. Line numbers are
//! 1-based, as in the marker and the outline; a line's text is shown without its
//! line end.

use std::collections::VecDeque;
use std::ops::ControlFlow;

use regex::RegexBuilder;

use super::continuation::{ToolReply, check_id, missing, not_cached};
use super::{ResultStore, StoreError, validate_id};
use crate::quote::json_string;
use crate::text::{count_chars, thousands};

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

/// Calls `f(line_no, line)` for each line of a stored output (1-based; `line`
/// without its `\n`), until `f` breaks. `Ok(None)` when no such result is stored.
fn for_each_line(
    store: &dyn ResultStore,
    dialog_id: &str,
    tool_call_id: &str,
    f: &mut dyn FnMut(usize, &str) -> ControlFlow<()>,
) -> Result<Option<usize>, StoreError> {
    let mut carry = String::new();
    let mut n = 0usize;
    let mut stopped = false;
    let found = store.stream_output(dialog_id, tool_call_id, &mut |piece| {
        let mut rest = piece;
        while let Some(i) = rest.find('\n') {
            n += 1;
            let flow = if carry.is_empty() {
                f(n, &rest[..i])
            } else {
                carry.push_str(&rest[..i]);
                let flow = f(n, &carry);
                carry.clear();
                flow
            };
            rest = &rest[i + 1..];
            if flow.is_break() {
                stopped = true;
                return ControlFlow::Break(());
            }
        }
        carry.push_str(rest);
        ControlFlow::Continue(())
    })?;
    if found.is_none() {
        return Ok(None);
    }
    if !stopped && !carry.is_empty() {
        n += 1;
        let _ = f(n, &carry);
    }
    Ok(Some(n))
}

/// `get_continuation(tool_call_id, start_line, end_line)`: lines `start_line` to
/// `end_line` (1-based, inclusive; `end_line` defaults to as many as fit) of a
/// stored result, whole lines up to `chunk_chars` characters (a first line longer
/// than that is cut after `chunk_chars` and says so). While lines remain after the
/// last one shown, the text ends with a marker naming the next `start_line`.
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
    let mut first_cut: Option<usize> = None;
    for_each_line(store, dialog_id, tool_call_id, &mut |n, line| {
        if n < start_line {
            return ControlFlow::Continue(());
        }
        if n > last_wanted {
            return ControlFlow::Break(());
        }
        let chars = count_chars(line) + 1;
        if used + chars > budget {
            if n == start_line {
                // one line longer than a chunk: its first `budget` chars
                let end = line
                    .char_indices()
                    .nth(budget)
                    .map_or(line.len(), |(i, _)| i);
                text.push_str(&line[..end]);
                text.push('\n');
                first_cut = Some(count_chars(line));
                shown_to = n;
            }
            return ControlFlow::Break(());
        }
        text.push_str(line);
        text.push('\n');
        used += chars;
        shown_to = n;
        ControlFlow::Continue(())
    })?;
    if let Some(len) = first_cut {
        text.push_str(&format!(
            "\n[line {start_line} has {} chars; only its first {} are shown. Call fetch_tool_output with tool_call_id={} and an offset to page through it]",
            thousands(len),
            thousands(budget),
            json_string(tool_call_id)
        ));
        if shown_to < total {
            text.push('\n');
        }
    }
    if shown_to < total {
        if first_cut.is_none() {
            text.push('\n');
        }
        text.push_str(&format!(
            "[showing lines {start_line}-{shown_to} of {total}. Call get_continuation with tool_call_id={} start_line={} to read on]",
            json_string(tool_call_id),
            shown_to + 1
        ));
    }
    Ok(ToolReply::ok(text))
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

/// What to search for and how much to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchOptions {
    /// Lines of context before and after each match (at most [`MAX_CONTEXT`]).
    pub context: usize,
    /// Matching lines to show (the rest are counted).
    pub max_matches: usize,
    /// Matching lines to skip before showing any (to page through many matches).
    pub skip: usize,
    /// Match letters regardless of case.
    pub ignore_case: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            context: 1,
            max_matches: DEFAULT_MAX_MATCHES,
            skip: 0,
            ignore_case: false,
        }
    }
}

/// One line of a search's answer: a matching line or a context line.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FoundLine {
    /// Its line number (1-based).
    pub line: usize,
    /// Whether it matches (else it is context around a match).
    #[serde(rename = "match")]
    pub is_match: bool,
    /// Its text without the line end, at most [`SEARCH_LINE_CHARS`] chars.
    pub text: String,
    /// Chars of the line left out of `text` (0 when it is whole).
    pub omitted_chars: usize,
}

/// What a search of a stored result found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SearchFound {
    /// Lines in the whole result.
    pub total_lines: usize,
    /// Lines matching the pattern, counted over the whole result.
    pub total_matches: usize,
    /// Matching lines skipped before the first one shown.
    pub skip: usize,
    /// Matching lines shown.
    pub shown_matches: usize,
    /// The `skip` that shows the next matching lines, while some remain.
    pub next_skip: Option<usize>,
    /// The lines shown, in order: matches with their context.
    pub lines: Vec<FoundLine>,
}

/// The answer to a search of a stored result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Search {
    /// The search ran.
    Found(SearchFound),
    /// No result is stored under that id.
    NotStored,
    /// The arguments cannot be used (an empty or invalid pattern, a malformed id):
    /// what is wrong and how to fix it.
    Refused(String),
}

/// Search a stored result for the lines matching the regular expression `pattern`
/// (Rust regex syntax: no look-around or back-references; matching takes linear
/// time), reading it piece by piece. Every match is counted; `opts` says which are
/// shown and with how much context.
pub fn search(
    store: &dyn ResultStore,
    dialog_id: &str,
    tool_call_id: &str,
    pattern: &str,
    opts: &SearchOptions,
) -> Result<Search, StoreError> {
    if let Err(e) = validate_id("tool_call_id", tool_call_id) {
        return Ok(Search::Refused(e.to_string()));
    }
    if pattern.is_empty() {
        return Ok(Search::Refused(
            "pattern is empty; pass a regular expression such as \"error|warning\"".to_string(),
        ));
    }
    let re = match RegexBuilder::new(pattern)
        .case_insensitive(opts.ignore_case)
        .size_limit(1 << 20)
        .build()
    {
        Ok(re) => re,
        Err(e) => {
            return Ok(Search::Refused(format!(
                "pattern is not a valid regular expression ({}); escape regex characters such as ( [ . * + ? $ with a backslash to match them literally",
                e.to_string()
                    .lines()
                    .last()
                    .unwrap_or("syntax error")
                    .trim()
            )));
        }
    };
    let context = opts.context.min(MAX_CONTEXT);
    let show = opts.max_matches.max(1);
    let mut matches = 0usize;
    let mut shown = 0usize;
    let mut out: Vec<FoundLine> = Vec::new();
    let mut before: VecDeque<(usize, String)> = VecDeque::new();
    let mut after_left = 0usize;
    let mut last_printed = 0usize;
    let total = for_each_line(store, dialog_id, tool_call_id, &mut |n, line| {
        let line = line.strip_suffix('\r').unwrap_or(line);
        // matched and shown as a terminal shows it: colour codes removed and
        // `\r` / backspace overwrites applied (the line keeps its number)
        let cleaned;
        let line = if line.bytes().any(|b| matches!(b, 0x1b | 0x08 | b'\r')) {
            cleaned = crate::cut::clean::clean_line(line).0;
            cleaned.as_str()
        } else {
            line
        };
        if re.is_match(line) {
            matches += 1;
            if matches > opts.skip && shown < show {
                shown += 1;
                for (b, text) in before.drain(..) {
                    out.push(found(b, false, &text));
                }
                out.push(found(n, true, line));
                last_printed = n;
                after_left = context;
                return ControlFlow::Continue(());
            }
        } else if after_left > 0 && shown <= show && last_printed + 1 == n {
            after_left -= 1;
            out.push(found(n, false, line));
            last_printed = n;
            return ControlFlow::Continue(());
        }
        if context > 0 && shown < show {
            before.push_back((n, line.to_string()));
            if before.len() > context {
                before.pop_front();
            }
        }
        ControlFlow::Continue(())
    })?;
    let Some(total_lines) = total else {
        return Ok(Search::NotStored);
    };
    let next = opts.skip + shown;
    Ok(Search::Found(SearchFound {
        total_lines,
        total_matches: matches,
        skip: opts.skip,
        shown_matches: shown,
        next_skip: (shown > 0 && next < matches).then_some(next),
        lines: out,
    }))
}

/// `search_tool_output(tool_call_id, pattern)`: [`search`], written as the model
/// reads it — each matching line as `N: text` with its context as `N- text` and
/// groups apart as `--`, as `grep -n -C` prints them; the first line says how many
/// lines match in all, and a last line how to see more.
pub fn search_tool_output(
    store: &dyn ResultStore,
    dialog_id: &str,
    tool_call_id: &str,
    pattern: &str,
    opts: &SearchOptions,
) -> Result<ToolReply, StoreError> {
    let f = match search(store, dialog_id, tool_call_id, pattern, opts)? {
        Search::Found(f) => f,
        Search::NotStored => {
            return missing(store, dialog_id, tool_call_id, || not_cached(tool_call_id));
        }
        Search::Refused(why) => return Ok(ToolReply::error(&why)),
    };
    Ok(ToolReply::ok(render_found(&f, tool_call_id, pattern)))
}

/// `search_tool_output(tool_call_id, pattern)` as the recovery tools serve it when the
/// model names no `max_matches`: [`search_tool_output`] showing as many matching lines
/// (with their context) as fit in `reply_chars` characters, the count line and the
/// "more" line included; at least one. `opts.max_matches` is ignored.
pub fn search_within(
    store: &dyn ResultStore,
    dialog_id: &str,
    tool_call_id: &str,
    pattern: &str,
    opts: &SearchOptions,
    reply_chars: usize,
) -> Result<ToolReply, StoreError> {
    // a shown match takes at least "N: " and a line end
    let most = SearchOptions {
        max_matches: (reply_chars / 4).max(1),
        ..opts.clone()
    };
    let f = match search(store, dialog_id, tool_call_id, pattern, &most)? {
        Search::Found(f) => f,
        Search::NotStored => {
            return missing(store, dialog_id, tool_call_id, || not_cached(tool_call_id));
        }
        Search::Refused(why) => return Ok(ToolReply::error(&why)),
    };
    if f.shown_matches <= 1 {
        return Ok(ToolReply::ok(render_found(&f, tool_call_id, pattern)));
    }
    // the reply grows with the matches shown: the most that fit, by bisection
    let context = opts.context.min(MAX_CONTEXT);
    let (mut lo, mut hi) = (1, f.shown_matches);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        let text = render_found(&first_matches(&f, mid, context), tool_call_id, pattern);
        if count_chars(&text) <= reply_chars {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let kept = first_matches(&f, lo, context);
    Ok(ToolReply::ok(render_found(&kept, tool_call_id, pattern)))
}

/// `f` showing only its first `k` matching lines (and the context after the last).
fn first_matches(f: &SearchFound, k: usize, context: usize) -> SearchFound {
    let mut lines = Vec::new();
    let mut seen = 0usize;
    let mut last = 0usize;
    for l in &f.lines {
        if l.is_match {
            if seen == k {
                break;
            }
            seen += 1;
            last = l.line;
        } else if seen == k && l.line > last + context {
            break;
        }
        lines.push(l.clone());
    }
    let next = f.skip + seen;
    SearchFound {
        total_lines: f.total_lines,
        total_matches: f.total_matches,
        skip: f.skip,
        shown_matches: seen,
        next_skip: (seen > 0 && next < f.total_matches).then_some(next),
        lines,
    }
}

/// A search's answer as the model reads it (see [`search_tool_output`]).
fn render_found(f: &SearchFound, tool_call_id: &str, pattern: &str) -> String {
    let pat = json_string(pattern);
    let id = json_string(tool_call_id);
    let total = f.total_lines;
    let matched: Vec<usize> = f
        .lines
        .iter()
        .filter(|l| l.is_match)
        .map(|l| l.line)
        .collect();
    let mut text = match (f.total_matches, f.shown_matches) {
        (0, _) => format!("No line of the {total}-line result matches {pat}."),
        (m, 0) => format!(
            "{} of {total} lines match {pat}; skip={} is past the last of them.",
            thousands(m),
            f.skip
        ),
        (m, s) => format!(
            "{} of {total} lines match {pat}; showing {} ({}):",
            thousands(m),
            if s == m {
                "all".to_string()
            } else {
                format!("{s} of them")
            },
            match (matched.first(), matched.last()) {
                (Some(a), Some(b)) if a != b => format!("lines {a}-{b}"),
                (_, b) => format!("line {}", b.copied().unwrap_or(0)),
            }
        ),
    };
    text.push('\n');
    let mut last = None;
    for l in &f.lines {
        if last.is_some_and(|p: usize| l.line > p + 1) {
            text.push_str("--\n");
        }
        last = Some(l.line);
        text.push_str(&format!(
            "{}{} {}",
            l.line,
            if l.is_match { ':' } else { '-' },
            l.text
        ));
        if l.omitted_chars > 0 {
            text.push_str(&format!("… [+{} chars]", thousands(l.omitted_chars)));
        }
        text.push('\n');
    }
    if let Some(next) = f.next_skip {
        text.push_str(&format!(
            "[{} more matching lines. Call search_tool_output with tool_call_id={id} pattern={pat} skip={next} to see them]\n",
            thousands(f.total_matches - next)
        ));
    }
    text
}

/// A line as a search shows it: at most [`SEARCH_LINE_CHARS`] chars, the rest counted.
fn found(line: usize, is_match: bool, text: &str) -> FoundLine {
    match text.char_indices().nth(SEARCH_LINE_CHARS) {
        None => FoundLine {
            line,
            is_match,
            text: text.to_string(),
            omitted_chars: 0,
        },
        Some((i, _)) => FoundLine {
            line,
            is_match,
            text: text[..i].to_string(),
            omitted_chars: count_chars(&text[i..]),
        },
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::store::{MemoryStore, Record};

    fn store_with(output: &str) -> MemoryStore {
        let s = MemoryStore::new();
        s.put(&Record::new(
            "d",
            "c1",
            "bash",
            &json!({"command": "make"}),
            output,
        ))
        .expect("put");
        s
    }

    fn log() -> String {
        (1..=50)
            .map(|i| {
                if i % 10 == 0 {
                    format!("line {i} ERROR failed to open /tmp/x{i}\n")
                } else {
                    format!("line {i} ok\n")
                }
            })
            .collect()
    }

    #[test]
    fn lines_come_back_whole_with_the_next_start_line() {
        let s = store_with(&log());
        let r = get_lines(&s, "d", "c1", 3, Some(5), 2000).expect("lines");
        assert_eq!(
            r.text,
            "line 3 ok\nline 4 ok\nline 5 ok\n\n[showing lines 3-5 of 50. Call get_continuation with tool_call_id=\"c1\" start_line=6 to read on]"
        );
        // the last lines: no marker
        let r = get_lines(&s, "d", "c1", 49, None, 2000).expect("lines");
        assert_eq!(
            r.text,
            "line 49 ok\nline 50 ERROR failed to open /tmp/x50\n"
        );
    }

    #[test]
    fn a_chunk_holds_whole_lines_up_to_its_size() {
        let s = store_with(&log());
        // "line 1 ok\n" .. "line 9 ok\n" are 10 chars each
        let r = get_lines(&s, "d", "c1", 1, None, 25).expect("lines");
        assert!(
            r.text
                .starts_with("line 1 ok\nline 2 ok\n\n[showing lines 1-2 of 50."),
            "{}",
            r.text
        );
    }

    #[test]
    fn a_line_range_reply_fills_its_budget_and_never_passes_it() {
        // 400 lines of 0-119 chars, then one of 9,000
        let mut out = String::new();
        for i in 0..400 {
            out.push_str(&"x".repeat(i * 37 % 120));
            out.push('\n');
        }
        out.push_str(&"y".repeat(9000));
        out.push('\n');
        let s = store_with(&out);
        let widths: Vec<usize> = out.lines().map(count_chars).collect();
        for budget in [300, 1000, 2000, 3500] {
            for start in [1, 57, 390, 401] {
                let r = get_line_range(&s, "d", "c1", start, None, budget).expect("lines");
                let len = count_chars(&r.text);
                assert!(len <= budget, "start {start}, budget {budget}: {len} chars");
                // no room left for the next whole line
                let shown = r.text.lines().take_while(|l| !l.starts_with('[')).count();
                let lines: usize = widths[start - 1..start - 1 + shown.min(401 - start + 1)]
                    .iter()
                    .map(|w| w + 1)
                    .sum();
                if start + shown <= 401 && start < 401 {
                    let next = widths[start - 1 + shown] + 1;
                    assert!(
                        lines
                            + next
                            + reply_reserve("c1", &s.meta("d", "c1").expect("m").expect("m"))
                            > budget,
                        "start {start}, budget {budget}: line {} would still fit",
                        start + shown
                    );
                }
            }
        }
        // a range of about 2,500 chars comes back in one reply, where a 2,000-char
        // chunk needs two
        let r = get_line_range(&s, "d", "c1", 1, Some(45), DEFAULT_REPLY_CHARS).expect("r");
        let chars: usize = widths[..45].iter().map(|w| w + 1).sum();
        assert!((2000..3000).contains(&chars), "{chars}");
        assert!(r.text.contains("[showing lines 1-45 of 401."), "{}", r.text);
        let chunked = get_lines(&s, "d", "c1", 1, Some(45), 2000).expect("r");
        assert!(!chunked.text.contains("[showing lines 1-45 of"));
    }

    #[test]
    fn bad_line_ranges_are_errors_the_model_can_act_on() {
        let s = store_with(&log());
        assert!(get_lines(&s, "d", "c1", 0, None, 100).expect("r").is_error);
        assert!(
            get_lines(&s, "d", "c1", 5, Some(4), 100)
                .expect("r")
                .is_error
        );
        let past = get_lines(&s, "d", "c1", 51, None, 100).expect("r");
        assert!(
            past.text
                .contains("past the last line of the result (50 lines)")
        );
        let missing = get_lines(&s, "d", "nope", 1, None, 100).expect("r");
        assert!(missing.text.contains("No cached result"));
    }

    #[test]
    fn search_counts_every_match_and_shows_context() {
        let s = store_with(&log());
        let r =
            search_tool_output(&s, "d", "c1", "ERROR", &SearchOptions::default()).expect("search");
        let want = "5 of 50 lines match \"ERROR\"; showing all (lines 10-50):\n\
                    9- line 9 ok\n10: line 10 ERROR failed to open /tmp/x10\n11- line 11 ok\n--\n\
                    19- line 19 ok\n20: line 20 ERROR failed to open /tmp/x20\n21- line 21 ok\n--\n\
                    29- line 29 ok\n30: line 30 ERROR failed to open /tmp/x30\n31- line 31 ok\n--\n\
                    39- line 39 ok\n40: line 40 ERROR failed to open /tmp/x40\n41- line 41 ok\n--\n\
                    49- line 49 ok\n50: line 50 ERROR failed to open /tmp/x50\n";
        assert_eq!(r.text, want);
    }

    #[test]
    fn search_pages_through_many_matches() {
        let s = store_with(&log());
        let opts = SearchOptions {
            context: 0,
            max_matches: 2,
            skip: 0,
            ignore_case: true,
        };
        let r = search_tool_output(&s, "d", "c1", "error", &opts).expect("search");
        assert_eq!(
            r.text,
            "5 of 50 lines match \"error\"; showing 2 of them (lines 10-20):\n\
             10: line 10 ERROR failed to open /tmp/x10\n--\n20: line 20 ERROR failed to open /tmp/x20\n\
             [3 more matching lines. Call search_tool_output with tool_call_id=\"c1\" pattern=\"error\" skip=2 to see them]\n"
        );
        let r = search_tool_output(&s, "d", "c1", "error", &SearchOptions { skip: 4, ..opts })
            .expect("search");
        assert!(
            r.text
                .starts_with("5 of 50 lines match \"error\"; showing 1 of them (line 50):\n50: ")
        );
    }

    #[test]
    fn search_shows_as_many_matches_as_fit_in_one_reply() {
        // 300 lines, every third an error line
        let out: String = (1..=300)
            .map(|i| {
                if i % 3 == 0 {
                    format!("step {i}: error: cannot open /srv/data/{i}.bin\n")
                } else {
                    format!("step {i}: ok\n")
                }
            })
            .collect();
        let s = store_with(&out);
        let opts = SearchOptions::default();
        // 22 matches that fit are all shown (the fixed default would show 20)
        let few = store_with(
            &out.lines()
                .take(66)
                .map(|l| format!("{l}\n"))
                .collect::<String>(),
        );
        let r = search_within(&few, "d", "c1", "error", &opts, DEFAULT_REPLY_CHARS).expect("s");
        assert!(
            r.text
                .starts_with("22 of 66 lines match \"error\"; showing all (lines 3-66):\n"),
            "{}",
            r.text
        );
        for budget in [200, 1000, DEFAULT_REPLY_CHARS] {
            let r = search_within(&s, "d", "c1", "error", &opts, budget).expect("s");
            let len = count_chars(&r.text);
            let shown = r.text.lines().filter(|l| l.contains(": error")).count();
            assert!(shown >= 1);
            assert!(len <= budget || shown == 1, "budget {budget}: {len} chars");
            // one more match would not have fit
            let more = search_tool_output(
                &s,
                "d",
                "c1",
                "error",
                &SearchOptions {
                    max_matches: shown + 1,
                    ..opts.clone()
                },
            )
            .expect("s");
            assert!(
                count_chars(&more.text) > budget,
                "budget {budget}: {shown} shown"
            );
            assert!(
                r.text.contains(&format!("skip={shown} to see them]")),
                "{}",
                r.text
            );
        }
    }

    #[test]
    fn search_reads_across_pieces_and_long_lines_are_shortened() {
        let long = "x".repeat(1000);
        let s = store_with(&format!("a\n{long}needle\nb\nneedle é\n"));
        let opts = SearchOptions {
            context: 0,
            ..SearchOptions::default()
        };
        let r = search_tool_output(&s, "d", "c1", "needle", &opts).expect("search");
        assert!(
            r.text
                .contains(&format!("2: {}… [+706 chars]\n", "x".repeat(300)))
        );
        assert!(r.text.contains("4: needle é\n"));
        assert!(r.text.starts_with("2 of 4 lines match"));
    }

    #[test]
    fn search_errors_name_the_fix() {
        let s = store_with(&log());
        let bad =
            search_tool_output(&s, "d", "c1", "_$Zod(", &SearchOptions::default()).expect("search");
        assert!(bad.is_error);
        assert!(bad.text.contains("escape regex characters"), "{}", bad.text);
        let none =
            search_tool_output(&s, "d", "c1", "panic", &SearchOptions::default()).expect("search");
        assert_eq!(
            none.text,
            "No line of the 50-line result matches \"panic\".\n"
        );
        let missing =
            search_tool_output(&s, "d", "x", "a", &SearchOptions::default()).expect("search");
        assert!(missing.text.contains("No cached result"));
    }

    #[cfg(feature = "sqlite")]
    #[test]
    fn lines_split_across_the_stores_chunks_are_read_whole() {
        // SQLite keeps outputs in 1 MiB chunks: lines cross chunk boundaries here
        let dir = tempfile::tempdir().expect("tempdir");
        let s = crate::store::SqliteStore::open(dir.path().join("s.db")).expect("open");
        let out: String = (1..=200_000)
            .map(|i| {
                if i % 50_000 == 0 {
                    format!("needle {i} ✓\n")
                } else {
                    format!("line {i} é\n")
                }
            })
            .collect();
        assert!(out.len() > 2 << 20);
        s.put(&Record::new("d", "c1", "bash", &json!({}), &out))
            .expect("put");
        let opts = SearchOptions {
            context: 1,
            ..SearchOptions::default()
        };
        let r = search_tool_output(&s, "d", "c1", "^needle", &opts).expect("search");
        assert!(
            r.text.starts_with("4 of 200000 lines match \"^needle\"; showing all (lines 50000-200000):\n49999- line 49999 é\n50000: needle 50000 ✓\n50001- line 50001 é\n--\n"),
            "{}",
            &r.text[..300.min(r.text.len())]
        );
        let r = get_lines(&s, "d", "c1", 149_999, Some(150_001), 2000).expect("lines");
        assert!(r.text.starts_with("line 149999 é\nneedle 150000 ✓\nline 150001 é\n\n[showing lines 149999-150001 of 200000."));
    }
}
