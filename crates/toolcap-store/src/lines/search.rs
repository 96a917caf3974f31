//! `search_tool_output`: the lines of a stored result matching a regex, with
//! their numbers and a little context, and the exact count of every match.

use std::collections::VecDeque;
use std::ops::ControlFlow;

use regex::RegexBuilder;

use super::{DEFAULT_MAX_MATCHES, MAX_CONTEXT, SEARCH_LINE_CHARS, for_each_line};
use crate::continuation::{ToolReply, missing, not_cached};
use crate::quote::json_string;
use crate::text::{count_chars, thousands};
use crate::{ResultStore, StoreError, validate_id};

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
    /// Count `skip` and `max_matches` from the last matching line backwards: the
    /// last matches (still shown in line order), `skip` leaving out the last ones.
    pub from_end: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            context: 1,
            max_matches: DEFAULT_MAX_MATCHES,
            skip: 0,
            ignore_case: false,
            from_end: false,
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
    /// Matching lines skipped before the first one shown (after the last one
    /// shown when `from_end`).
    pub skip: usize,
    /// Matching lines shown.
    pub shown_matches: usize,
    /// The `skip` that shows the next matching lines (the earlier ones when
    /// `from_end`), while some remain.
    pub next_skip: Option<usize>,
    /// The lines shown, in order: matches with their context.
    pub lines: Vec<FoundLine>,
    /// Lines longer than [`super::LONG_LINE`] bytes: each was matched against
    /// its first `LONG_LINE` bytes only (a reader never holds more of a line).
    #[serde(skip_serializing_if = "is_zero")]
    pub long_lines: usize,
    /// `skip` and `next_skip` count from the last matching line backwards
    /// ([`SearchOptions::from_end`]).
    #[serde(skip_serializing_if = "is_false")]
    pub from_end: bool,
}

// serde's `skip_serializing_if` passes a reference
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_false(b: &bool) -> bool {
    !*b
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
    // from the end: every match is taken in line order and only the last
    // `skip + max_matches` are held (with their context); the last `skip` go at the end
    let (skip, show, keep) = if opts.from_end {
        (
            0,
            usize::MAX,
            opts.skip.saturating_add(opts.max_matches.max(1)),
        )
    } else {
        (opts.skip, opts.max_matches.max(1), usize::MAX)
    };
    let mut matches = 0usize;
    let mut shown = 0usize;
    let mut out: VecDeque<FoundLine> = VecDeque::new();
    let mut before: VecDeque<(usize, String, Option<usize>)> = VecDeque::new();
    let mut after_left = 0usize;
    let mut last_printed = 0usize;
    let mut long_lines = 0usize;
    let total = for_each_line(store, dialog_id, tool_call_id, &mut |n, view| {
        // a long line is matched by its start (see `long_lines`)
        let line = match view.long_chars {
            Some(_) => {
                long_lines += 1;
                view.text
            }
            None => view.text.strip_suffix('\r').unwrap_or(view.text),
        };
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
            if matches > skip && shown < show {
                shown += 1;
                for (b, text, chars) in before.drain(..) {
                    out.push_back(found(b, false, &text, chars));
                }
                out.push_back(found(n, true, line, view.long_chars));
                if shown > keep {
                    drop_first_match(&mut out, context);
                    shown -= 1;
                }
                last_printed = n;
                after_left = context;
                return ControlFlow::Continue(());
            }
        } else if after_left > 0 && shown <= show && last_printed + 1 == n {
            after_left -= 1;
            out.push_back(found(n, false, line, view.long_chars));
            last_printed = n;
            return ControlFlow::Continue(());
        }
        if context > 0 && shown < show {
            // (what a line shows: at most SEARCH_LINE_CHARS chars of it)
            let end = line
                .char_indices()
                .nth(SEARCH_LINE_CHARS)
                .map_or(line.len(), |(i, _)| i);
            let chars = Some(view.long_chars.unwrap_or_else(|| count_chars(line)));
            before.push_back((n, line[..end].to_string(), chars));
            if before.len() > context {
                before.pop_front();
            }
        }
        ControlFlow::Continue(())
    })?;
    let Some(total_lines) = total else {
        return Ok(Search::NotStored);
    };
    let mut lines = Vec::from(out);
    if opts.from_end {
        let kept = shown.saturating_sub(opts.skip);
        keep_first_matches(&mut lines, kept, context);
        shown = kept;
    }
    let next = opts.skip + shown;
    Ok(Search::Found(SearchFound {
        total_lines,
        total_matches: matches,
        skip: opts.skip,
        shown_matches: shown,
        next_skip: (shown > 0 && next < matches).then_some(next),
        lines,
        long_lines,
        from_end: opts.from_end,
    }))
}

/// Leave out the first matching line of `out` and what is shown only for it:
/// lines before the next match are kept as that match's context (up to `context`
/// adjacent lines; a left-out match among them is shown as context).
fn drop_first_match(out: &mut VecDeque<FoundLine>, context: usize) {
    let mut seen = 0;
    let Some(next) = out.iter().position(|l| {
        seen += usize::from(l.is_match);
        seen == 2
    }) else {
        out.clear();
        return;
    };
    let anchor = out[next].line;
    let mut from = next;
    while from > 0 && {
        let l = out[from - 1].line;
        l + (next - (from - 1)) == anchor && anchor - l <= context
    } {
        from -= 1;
    }
    out.drain(..from);
    for l in out.iter_mut().take(next - from) {
        l.is_match = false;
    }
}

/// Keep the first `k` matching lines of `lines` and the context after the last of
/// them (up to `context` adjacent lines, up to the next match, as when `max_matches`
/// stops a search).
fn keep_first_matches(lines: &mut Vec<FoundLine>, k: usize, context: usize) {
    if k == 0 {
        lines.clear();
        return;
    }
    let mut seen = 0;
    let Some(last) = lines.iter().position(|l| {
        seen += usize::from(l.is_match);
        seen == k
    }) else {
        return;
    };
    let anchor = lines[last].line;
    let mut end = last + 1;
    while end < lines.len() && {
        let l = &lines[end];
        !l.is_match && l.line == anchor + (end - last) && l.line - anchor <= context
    } {
        end += 1;
    }
    lines.truncate(end);
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

/// `f` showing only `k` of its matching lines: the first `k`, or the last `k`
/// when it counts from the end (with their context).
fn first_matches(f: &SearchFound, k: usize, context: usize) -> SearchFound {
    let mut lines = f.lines.clone();
    if f.from_end {
        let mut out = VecDeque::from(lines);
        for _ in k..f.shown_matches {
            drop_first_match(&mut out, context);
        }
        lines = Vec::from(out);
    } else {
        keep_first_matches(&mut lines, k, context);
    }
    let seen = lines.iter().filter(|l| l.is_match).count();
    let next = f.skip + seen;
    SearchFound {
        total_lines: f.total_lines,
        total_matches: f.total_matches,
        skip: f.skip,
        shown_matches: seen,
        next_skip: (seen > 0 && next < f.total_matches).then_some(next),
        lines,
        long_lines: f.long_lines,
        from_end: f.from_end,
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
            "{} of {total} lines match {pat}; skip={} is past the {} of them.",
            thousands(m),
            f.skip,
            if f.from_end { "first" } else { "last" }
        ),
        (m, s) => format!(
            "{} of {total} lines match {pat}; showing {} ({}):",
            thousands(m),
            if s == m {
                "all".to_string()
            } else if f.from_end && f.skip == 0 {
                format!("the last {s}")
            } else if f.from_end {
                format!("{s} of them, before the last {}", thousands(f.skip))
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
    if f.long_lines > 0 {
        text.push_str(&format!(
            "[{} longer than {} bytes: each was matched against its first {} bytes only]\n",
            crate::text::plural(f.long_lines, "line is", "lines are"),
            thousands(super::LONG_LINE),
            thousands(super::LONG_LINE)
        ));
    }
    if let Some(next) = f.next_skip {
        if f.from_end {
            text.push_str(&format!(
                "[{} earlier matching lines. Call search_tool_output with tool_call_id={id} pattern={pat} from_end=true skip={next} to see them]\n",
                thousands(f.total_matches - next)
            ));
        } else {
            text.push_str(&format!(
                "[{} more matching lines. Call search_tool_output with tool_call_id={id} pattern={pat} skip={next} to see them]\n",
                thousands(f.total_matches - next)
            ));
        }
    }
    text
}

/// A line as a search shows it: at most [`SEARCH_LINE_CHARS`] chars, the rest counted.
/// `chars`: the whole line's characters when `text` may be only its start.
fn found(line: usize, is_match: bool, text: &str, chars: Option<usize>) -> FoundLine {
    let (shown, omitted) = match text.char_indices().nth(SEARCH_LINE_CHARS) {
        None => (text, 0),
        Some((i, _)) => (&text[..i], count_chars(&text[i..])),
    };
    let omitted = match chars {
        Some(c) => c.saturating_sub(count_chars(shown)),
        None => omitted,
    };
    FoundLine {
        line,
        is_match,
        text: shown.to_string(),
        omitted_chars: omitted,
    }
}
