//! Recovery suggestions, one file per tool family.
//!
//! Each family turns facts computed on the *original* result into a [`Recovery`]:
//! a header of facts, an optional structure listing, and [`Suggestion`]s — calls of
//! the harness's own tools (named in `[suggest]`) that get the omitted part back.
//! Only [`Recovery::render`] makes text.

pub mod calls;
pub(crate) mod everyday;
pub(crate) mod generic;
pub(crate) mod glob;
pub(crate) mod grep;
pub(crate) mod jq;
pub(crate) mod read_file;
pub(crate) mod shell;
pub mod tally;
pub(crate) mod web_fetch;
pub(crate) mod web_search;

use serde_json::{Map, Value};

use crate::config::{ArgKeys, Config, ToolEntry};
use crate::cut::index::Totals;
use crate::cut::shape::KeptSpan;
use crate::outline::Outline;
use crate::quote;
use crate::text::thousands;

/// The types [`Context`]'s fields hold: the text's line index, an omitted part,
/// and what the error search counted.
pub use crate::cut::index::LineIndex;
pub use crate::cut::scan::ErrorStats;
pub use crate::cut::shape::Gap;
pub use calls::{Intent, Pattern, Source};
// The recovery section's model is the renderer's: a family's hints fill it in.
// The typed model the built-in families fill (the renderer writes its words).
pub(crate) use crate::render::facts::{
    BinaryOf, BytesOf, CharRange, CountsOf, Entry, ErrorCount, Evidence, Fact, Items, Listing,
    Look, MentionsIn, Note, Outlined, PrintedLines, Purpose, RecoveryModel, Size, Title,
};
pub use crate::render::recovery::{
    HEADING, MAX_DISPLAY_LINE, MIN_RECOVERY_CAP, RECOVERY_CAP, Recovery, Structure, Suggestion,
};

/// The recovery section's cap: the kept part (`body`, as the model sees it)
/// and the section together stay within the threshold that triggered the cut
/// (counted in chars); what a family may plan its listing to.
pub(crate) fn section_cap(entry: &ToolEntry, body: &str) -> usize {
    match entry.unit {
        crate::config::Unit::Chars => {
            let room = entry
                .threshold
                .saturating_sub(crate::text::count_chars(body) + 1);
            room.clamp(MIN_RECOVERY_CAP, RECOVERY_CAP)
        }
        crate::config::Unit::Tokens(_) => RECOVERY_CAP,
    }
}

/// At most this many structure lines are listed; the rest are counted.
pub const MAX_STRUCTURE_LINES: usize = 25;

/// Everything a family's hint builder may look at. Lines and numbers refer to the
/// original result, whatever cleaning or reshaping the shown part went through.
pub struct Context<'a> {
    /// The tool name as called.
    pub tool: &'a str,
    /// The call's arguments.
    pub args: &'a Value,
    /// The tool's config entry (family, threshold, argument keys).
    pub entry: &'a ToolEntry,
    /// The whole configuration (the `[suggest]` tool names among it).
    pub config: &'a Config,
    /// The original result.
    pub idx: &'a LineIndex<'a>,
    /// The result cleaned of terminal noise, when cleaning changed it; its lines
    /// map back to the original's (`orig_line_no`).
    pub cleaned: Option<&'a LineIndex<'a>>,
    /// Error-looking lines counted over the whole result by the scan, when the
    /// result was scanned (the scanned text may hold only some of them).
    pub errors: Option<ErrorStats>,
    /// What terminal-noise cleaning did, when it changed anything.
    pub cleaning: Option<crate::cut::clean::CleanStats>,
    /// Characters, bytes and lines of the original.
    pub totals: Totals,
    /// What was kept, in original line numbers.
    pub kept: &'a [KeptSpan],
    /// What was omitted, in original line numbers.
    pub gaps: &'a [Gap],
    /// The kept part as the model sees it (markers included, recovery excluded).
    pub shown: &'a str,
    /// When the kept part starts with a verbatim prefix of the original: its length
    /// in bytes.
    pub prefix_bytes: Option<usize>,
    /// The original's outline, when one was made.
    pub outline: Option<&'a Outline>,
    /// Detected language or content kind name (`python`, `rust`, `json`, ...).
    pub language: Option<&'a str>,
    /// The parsed original, when the result was JSON and was shortened as
    /// JSON (the kept part is then valid JSON, not lines).
    pub json: Option<&'a Value>,
    /// The shortened value the kept part shows, when the result was shortened
    /// as JSON.
    pub shown_json: Option<&'a Value>,
    /// The whole original's lines, when the whole original is at hand (`idx`
    /// may hold only what a bounded scan kept of a command's output).
    pub whole: Option<&'a LineIndex<'a>>,
    /// The tool call id the full result is stored under, when it is: reading
    /// and searching the result then go through the recovery tools.
    pub stored: Option<&'a str>,
    /// A command's whole output, tallied in one pass (the shell family: its
    /// lines are not all kept by the bounded scan).
    pub tally: Option<&'a tally::LineTally>,
    /// When the result was decoded from a legacy encoding (not UTF-8): the
    /// name `iconv` reads that encoding by with toolcap's table (`CP932` for
    /// Shift_JIS, see [`iconv_name`](crate::iconv_name)). Lines, byte offsets
    /// and matches in the text are then of its UTF-8 form, which a command
    /// reads through `iconv -f NAME -t UTF-8`, not of the file's own bytes.
    pub decoded_from: Option<&'a str>,
    /// What an everyday command output (a diff, grep results, a listing)
    /// holds: its kind and parts (see `cut::everyday`).
    pub everyday: Option<&'a crate::cut::everyday::Everyday>,
}

impl Context<'_> {
    /// The value of the first argument key of `role` present in the tool's arguments,
    /// as a string (numbers and booleans are written out).
    pub fn arg(&self, role: fn(&ArgKeys) -> &Vec<String>) -> Option<String> {
        let obj = self.args.as_object()?;
        role(&self.entry.args)
            .iter()
            .find_map(|k| match obj.get(k)? {
                Value::String(s) if !s.is_empty() => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                Value::Bool(b) => Some(b.to_string()),
                Value::Array(a) => a.first().and_then(|v| v.as_str()).map(str::to_string),
                _ => None,
            })
    }

    /// First omitted line (1-based) when the first gap starts on a line boundary.
    pub fn first_omitted_line(&self) -> Option<usize> {
        self.gaps.first().and_then(|g| g.lines.map(|(a, _)| a))
    }

    /// The omitted parts, in order.
    pub fn gaps(&self) -> impl Iterator<Item = &Gap> {
        self.gaps.iter()
    }

    /// The text to analyse: the cleaned result if there is one, else the original.
    /// Use `orig_line_no` on it for line numbers.
    pub fn analysis(&self) -> &LineIndex<'_> {
        self.cleaned.unwrap_or(self.idx)
    }

    /// Whether 0-based original line `i` is wholly shown to the model: inside a
    /// kept part, and no part of it omitted (a page shown as its text keeps its
    /// lines as text: those before the cut are shown).
    pub fn line_shown(&self, i: usize) -> bool {
        let n = i + 1;
        // the lines a gap takes anything from
        let touched = |g: &Gap| {
            let ls = [
                g.lines.map(|(a, _)| a),
                g.lines.map(|(_, b)| b),
                g.cut_after.map(|(l, _, _)| l),
                g.resumes_at.map(|(l, _, _)| l),
                g.within.map(|(l, _, _, _)| l),
            ];
            let ls = ls.iter().flatten();
            matches!((ls.clone().min(), ls.max()), (Some(&a), Some(&b)) if a <= n && n <= b)
        };
        self.kept.iter().any(|k| {
            k.start_line <= n && n <= k.end_line && (!k.partial || !self.gaps.iter().any(touched))
        })
    }

    /// How many chars a suggested call of `tool` may return and still come back
    /// whole: 90% of that tool's threshold (a harness may add a line or two, such
    /// as an exit code, to what the command prints). A bypassed tool is not cut,
    /// but its output still costs context: it gets the same room.
    pub fn budget_for(&self, tool: &str) -> usize {
        let e = self.config.entry_for(tool);
        (e.threshold / 10 * 9).max(self.config.max_kept_chars.min(e.threshold))
    }

    /// The room for the output of a suggested shell command: see [`Context::budget_for`].
    pub fn shell_budget(&self) -> usize {
        self.budget_for(&self.config.suggest.shell.tool)
    }

    /// The whole original's lines, when they are at hand.
    pub fn whole(&self) -> Option<&LineIndex<'_>> {
        self.whole
    }

    /// Chars that `sed -n 'A,Bp'` prints for 1-based original lines `a..=b`
    /// (every line with its newline, the last line of a file without one
    /// without).
    pub fn range_chars(&self, a: usize, b: usize) -> usize {
        let w = self.whole.unwrap_or(self.idx);
        (a.max(1)..=b.min(w.len()))
            .map(|n| w.line_with_end(n - 1).chars().count())
            .sum()
    }

    /// The longest range of original lines from line `a` (1-based), ending no
    /// later than `max_end`, that prints in at most `budget` chars: its last
    /// line and its chars. None when line `a` alone is longer (or the whole
    /// original is not at hand).
    pub fn lines_within(&self, a: usize, max_end: usize, budget: usize) -> Option<(usize, usize)> {
        let w = self.whole?;
        let mut used = 0usize;
        let mut end = None;
        for n in a.max(1)..=max_end.min(w.len()) {
            let c = w.line_with_end(n - 1).chars().count();
            if used + c > budget {
                break;
            }
            used += c;
            end = Some((n, used));
        }
        end
    }

    /// `3,520 lines, 120,077 chars` for the original result.
    pub fn size_fact(&self) -> String {
        self.size().to_string()
    }

    /// The original result's lines and chars.
    pub(crate) fn size(&self) -> Size {
        Size {
            lines: self.totals.lines,
            chars: self.totals.chars,
        }
    }

    /// The longest range of original lines ending at the last line that
    /// prints in at most `budget` chars: its first line and its chars.
    pub fn tail_within(&self, budget: usize) -> Option<(usize, usize)> {
        let w = self.whole?;
        let mut used = 0usize;
        let mut start = None;
        for n in (1..=w.len()).rev() {
            let c = w.line_with_end(n - 1).chars().count();
            if used + c > budget {
                break;
            }
            used += c;
            start = Some((n, used));
        }
        start
    }

    /// A suggestion to run `command` with the harness's shell tool (its name
    /// is empty when the harness has none: prefer [`Context::offer`]).
    pub fn shell(&self, command: String, purpose: impl Into<String>) -> Suggestion {
        let s = &self.config.suggest.shell;
        let mut args = Map::new();
        args.insert(s.command.clone(), Value::String(command));
        Suggestion {
            tool: s.tool.clone(),
            args,
            purpose: purpose.into(),
        }
    }

    /// A call of a configured tool with string arguments (skipping empty names).
    pub fn call(
        &self,
        tool: &str,
        args: &[(&str, &str)],
        purpose: impl Into<String>,
    ) -> Suggestion {
        let mut m = Map::new();
        for (k, v) in args {
            if !k.is_empty() {
                m.insert((*k).to_string(), Value::String((*v).to_string()));
            }
        }
        Suggestion {
            tool: tool.to_string(),
            args: m,
            purpose: purpose.into(),
        }
    }
}

/// Cap a list of display lines at `max`, saying exactly how many more there are.
pub fn cap_lines(mut lines: Vec<String>, what: &str, max: usize) -> Vec<String> {
    if lines.len() > max {
        let more = lines.len() - (max - 1);
        lines.truncate(max - 1);
        lines.push(format!("... and {} more {what}", thousands(more)));
    }
    lines
}

/// `sed -n 'A,Bp' FILE` for a path, if the path can be quoted.
pub fn sed_range(path: &str, a: usize, b: usize) -> Option<String> {
    Some(format!("sed -n '{a},{b}p' {}", quote::shell_path(path)?))
}

/// When the full result is stored, the lines right after the cut, as many as
/// come back whole from `get_continuation`: the first thing to read of a
/// listing, search results or another tool's text (a result shortened as
/// JSON, or cut inside a line, is read on by its offset instead).
pub fn next_stored_lines(ctx: &Context<'_>) -> Option<Suggestion> {
    if !ctx.stored() || ctx.json.is_some() {
        return None;
    }
    let g = ctx.gaps().next()?;
    if g.cut_after.is_some() || g.within.is_some() {
        return None;
    }
    let (a, b) = g.lines?;
    let (end, chars) = ctx.lines_within(a, b, ctx.lines_room(Source::Nowhere))?;
    ctx.offer(
        Source::Nowhere,
        Intent::Lines { start: a, end },
        Purpose::NextLines {
            start: a,
            end,
            chars,
            total: ctx.totals.lines,
        },
    )
}

/// Test support: what `build` makes of the [`Context`] of `text`, the result of
/// `tool` called with `args`, cut after its first `kept` lines (nothing
/// stored, no tally), with the outline and language given.
#[cfg(test)]
pub(crate) fn head_cut<R>(
    tool: &str,
    text: &str,
    kept: usize,
    args: &Value,
    outline: Option<&Outline>,
    language: Option<&str>,
    build: impl FnOnce(&Context<'_>) -> R,
) -> R {
    use crate::cut::index::LineIndex;
    use crate::cut::shape::Gap;
    let config = Config::defaults();
    let idx = LineIndex::new(text);
    let totals = idx.totals();
    let cut = idx.start(kept);
    let kept_spans = [KeptSpan {
        start_line: 1,
        end_line: kept,
        chars: text[..cut].chars().count(),
        partial: false,
    }];
    let gaps = [Gap {
        chars: text[cut..].chars().count(),
        lines: Some((kept + 1, totals.lines)),
        cut_after: None,
        resumes_at: None,
        within: None,
        tokens: None,
        range: (cut, text.len()),
        collapsed: None,
    }];
    let ctx = Context {
        tool,
        args,
        entry: config.entry_for(tool),
        config: &config,
        idx: &idx,
        cleaned: None,
        errors: None,
        cleaning: None,
        totals,
        kept: &kept_spans,
        gaps: &gaps,
        shown: &text[..cut],
        prefix_bytes: Some(cut),
        outline,
        language,
        json: None,
        shown_json: None,
        whole: Some(&idx),
        stored: None,
        tally: None,
        decoded_from: None,
        everyday: None,
    };
    build(&ctx)
}

/// Count items by key, most frequent first (ties by first appearance).
pub fn top_counts<'a>(items: impl IntoIterator<Item = &'a str>) -> Vec<(&'a str, usize)> {
    let mut order: Vec<(&str, usize)> = Vec::new();
    let mut pos: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for it in items {
        match pos.get(it) {
            Some(&i) => order[i].1 += 1,
            None => {
                pos.insert(it, order.len());
                order.push((it, 1));
            }
        }
    }
    order.sort_by_key(|&(_, n)| std::cmp::Reverse(n));
    order
}
