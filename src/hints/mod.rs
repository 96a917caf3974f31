//! Recovery suggestions, one file per tool family.
//!
//! Each family turns facts computed on the *original* result into a [`Recovery`]:
//! a header of facts, an optional structure listing, and [`Suggestion`]s — calls of
//! the harness's own tools (named in `[suggest]`) that get the omitted part back.
//! Only [`Recovery::render`] makes text.

pub mod calls;
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

use crate::config::{ArgKeys, Config, Family, ToolEntry};
use crate::cut::{Gap, KeptSpan, LineIndex, Totals};
use crate::outline::Outline;
use crate::quote;
use crate::text::thousands;

pub use calls::{Intent, Pattern, Source};

/// Heading of the recovery section.
pub const HEADING: &str = "--- Recovery Options ---";

/// At most this many structure lines are listed; the rest are counted.
pub const MAX_STRUCTURE_LINES: usize = 25;

/// Hard cap on the recovery section, in chars (heading and final newline
/// included): [`Recovery::render`] never returns more. The built-in families stay
/// well under it (the largest fixture's section is 1,724 chars); it binds
/// when tool arguments are huge (a 10,000-char command repeated in four
/// suggestions) or a custom family lists without limit.
pub const RECOVERY_CAP: usize = 4_000;

/// The recovery section gets at least this many chars, even when the kept part
/// leaves less room under the threshold (a threshold just above
/// `max_kept_chars`): the heading, the first facts and the note counting what
/// was left out.
pub const MIN_RECOVERY_CAP: usize = 600;

/// Display lines of the recovery section (facts, structure lines, notes, a
/// suggestion's purpose) longer than this many chars are shortened with `…`.
pub const MAX_DISPLAY_LINE: usize = 1_000;

/// Chars kept free under the cap for the note counting what was left out.
const OMISSION_NOTE_ROOM: usize = 300;

/// A call of one of the harness's tools.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Suggestion {
    /// The tool to call (one of the harness's tools, named in `[suggest]`).
    pub tool: String,
    /// Its arguments.
    pub args: Map<String, Value>,
    /// What the call gets back, as the comment after it says.
    pub purpose: String,
}

impl Suggestion {
    /// `tool(key="value", n=3)  # purpose`, with JSON string escaping for values.
    pub fn render(&self) -> String {
        let args: Vec<String> = self.args.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{}({})  # {}", self.tool, args.join(", "), self.purpose)
    }
}

/// A structure listing: a title line and entries.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Structure {
    /// The title line (`Structure (lines 1-3519):`).
    pub title: String,
    /// One entry a line (`- class TypeVar (lines 981-1046)`).
    pub lines: Vec<String>,
}

/// Facts and suggestions for getting the rest of a result.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Recovery {
    /// Header lines (`File: typing.py | 3,520 lines, ...`).
    pub facts: Vec<String>,
    /// The structure listing, when there is one.
    pub structure: Option<Structure>,
    /// The calls that get the omitted part back.
    pub suggestions: Vec<Suggestion>,
    /// Plain-text notes after the commands.
    pub notes: Vec<String>,
}

impl Recovery {
    /// The recovery section as the model sees it, never longer than
    /// [`RECOVERY_CAP`] chars: see [`Recovery::fit`].
    pub fn render(&self) -> String {
        self.clone().fit(RECOVERY_CAP).render_unbounded()
    }

    /// Render every fact, structure line, suggestion and note as they are.
    fn render_unbounded(&self) -> String {
        let mut out = String::new();
        out.push_str(HEADING);
        out.push('\n');
        for f in &self.facts {
            out.push_str(f);
            out.push('\n');
        }
        if let Some(s) = &self.structure
            && !s.lines.is_empty()
        {
            out.push('\n');
            out.push_str(&s.title);
            out.push_str(":\n");
            for l in &s.lines {
                out.push_str("  ");
                out.push_str(l);
                out.push('\n');
            }
        }
        if !self.suggestions.is_empty() {
            out.push_str("\nCommands:\n");
            for s in &self.suggestions {
                out.push_str("  • ");
                out.push_str(&s.render());
                out.push('\n');
            }
        }
        if !self.notes.is_empty() {
            out.push('\n');
            for n in &self.notes {
                out.push_str(n);
                out.push('\n');
            }
        }
        out
    }

    /// Chars of the section rendered without the cap, computed without rendering.
    pub fn rendered_chars(&self) -> usize {
        let c = |s: &str| s.chars().count();
        let mut n = c(HEADING) + 1;
        n += self.facts.iter().map(|f| c(f) + 1).sum::<usize>();
        if let Some(s) = &self.structure
            && !s.lines.is_empty()
        {
            n += 1 + c(&s.title) + 2;
            n += s.lines.iter().map(|l| 2 + c(l) + 1).sum::<usize>();
        }
        if !self.suggestions.is_empty() {
            n += c("\nCommands:\n");
            n += self
                .suggestions
                .iter()
                .map(|s| c("  • ") + c(&s.render()) + 1)
                .sum::<usize>();
        }
        if !self.notes.is_empty() {
            n += 1 + self.notes.iter().map(|l| c(l) + 1).sum::<usize>();
        }
        n
    }

    /// Make the section fit in `cap` chars. Display text (facts, the structure
    /// title and lines, notes, a suggestion's purpose) longer than
    /// [`MAX_DISPLAY_LINE`] chars is shortened with `…`; a suggestion's tool and
    /// arguments never are (a shortened command would not run as written). Then
    /// items are kept in order of use — facts, suggestions, structure lines,
    /// notes — while they fit; a suggestion that does not fit is left out and the
    /// next ones are still tried. What was left out is counted exactly in a last
    /// note: `[... 2 more commands, 14 more structure lines not shown: recovery
    /// options are capped at 4,000 chars ...]`.
    pub fn fit(self, cap: usize) -> Recovery {
        // First with room kept for the longest note, then with room for the
        // note as it came out (its counts can only shrink with more room).
        let (first, note) = self.clone().fit_with(cap, OMISSION_NOTE_ROOM);
        match note {
            Some(n) if n + 2 < OMISSION_NOTE_ROOM => {
                let (second, _) = self.fit_with(cap, n + 2);
                // more room can change what is left out, and so the note
                if second.rendered_chars() <= cap {
                    second
                } else {
                    first
                }
            }
            _ => first,
        }
    }

    /// [`Recovery::fit`] keeping `reserve` chars for the note that counts what
    /// was left out; returns the chars of that note (with its newline), if any.
    fn fit_with(mut self, cap: usize, reserve: usize) -> (Recovery, Option<usize>) {
        let short = |s: &str, max: usize| {
            if s.chars().count() > max {
                ellipsize(s, max)
            } else {
                s.to_string()
            }
        };
        for f in &mut self.facts {
            *f = short(f, MAX_DISPLAY_LINE);
        }
        for n in &mut self.notes {
            *n = short(n, MAX_DISPLAY_LINE);
        }
        if let Some(s) = &mut self.structure {
            s.title = short(&s.title, MAX_DISPLAY_LINE);
            for l in &mut s.lines {
                *l = short(l, MAX_DISPLAY_LINE);
            }
        }
        for s in &mut self.suggestions {
            s.purpose = short(&s.purpose, MAX_DISPLAY_LINE);
        }
        if self.rendered_chars() <= cap {
            return (self, None);
        }
        // Room for the note that counts what was left out (its numbers can take
        // up to 20 digits each).
        let room = cap.saturating_sub(reserve);
        let c = |s: &str| s.chars().count();
        let mut used = c(HEADING) + 1;
        let mut dropped_facts = 0;
        let mut facts = Vec::new();
        for f in std::mem::take(&mut self.facts) {
            let cost = c(&f) + 1;
            if dropped_facts == 0 && used + cost <= room {
                used += cost;
                facts.push(f);
            } else {
                dropped_facts += 1;
            }
        }
        let mut dropped_suggestions = 0;
        let mut suggestions = Vec::new();
        let commands_head = c("\nCommands:\n");
        for s in std::mem::take(&mut self.suggestions) {
            let cost = c("  • ") + c(&s.render()) + 1;
            let head = if suggestions.is_empty() {
                commands_head
            } else {
                0
            };
            if used + head + cost <= room {
                used += head + cost;
                suggestions.push(s);
            } else {
                dropped_suggestions += 1;
            }
        }
        let mut dropped_structure = 0;
        if let Some(mut s) = self.structure.take() {
            let head = 1 + c(&s.title) + 2;
            let mut lines = Vec::new();
            for l in std::mem::take(&mut s.lines) {
                let h = if lines.is_empty() { head } else { 0 };
                let cost = h + 2 + c(&l) + 1;
                if dropped_structure == 0 && used + cost <= room {
                    used += cost;
                    lines.push(l);
                } else {
                    dropped_structure += 1;
                }
            }
            if !lines.is_empty() {
                s.lines = lines;
                self.structure = Some(s);
            }
        }
        // the notes section's blank line
        used += 1;
        let mut dropped_notes = 0;
        let mut notes = Vec::new();
        for n in std::mem::take(&mut self.notes) {
            let cost = c(&n) + 1;
            if dropped_notes == 0 && used + cost <= room {
                used += cost;
                notes.push(n);
            } else {
                dropped_notes += 1;
            }
        }
        let mut parts = Vec::new();
        for (n, one, many) in [
            (dropped_facts, "fact", "facts"),
            (dropped_suggestions, "command", "commands"),
            (dropped_structure, "structure line", "structure lines"),
            (dropped_notes, "note", "notes"),
        ] {
            if n > 0 {
                parts.push(format!(
                    "{} more {}",
                    thousands(n),
                    if n == 1 { one } else { many }
                ));
            }
        }
        let mut note = None;
        if !parts.is_empty() {
            let n = format!(
                "[... {} not shown: recovery options are capped at {} chars ...]",
                parts.join(", "),
                thousands(cap)
            );
            // with its newline, and the blank line before the notes
            note = Some(c(&n) + 2);
            notes.push(n);
        }
        self.facts = facts;
        self.suggestions = suggestions;
        self.notes = notes;
        (self, note)
    }
}

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
    pub errors: Option<crate::scan::ErrorStats>,
    /// What terminal-noise cleaning did, when it changed anything.
    pub cleaning: Option<crate::clean::CleanStats>,
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
    /// The whole original's lines, when the whole original is at hand (`idx`
    /// may hold only what a bounded scan kept of a command's output).
    pub whole: Option<&'a LineIndex<'a>>,
    /// The tool call id the full result is stored under, when it is: reading
    /// and searching the result then go through the recovery tools.
    pub stored: Option<&'a str>,
    /// A command's whole output, tallied in one pass (the shell family: its
    /// lines are not all kept by the bounded scan).
    pub tally: Option<&'a tally::LineTally>,
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
        format!(
            "{}, {}",
            plural(self.totals.lines, "line", "lines"),
            plural(self.totals.chars, "char", "chars")
        )
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

/// `1 line` / `3,520 lines`.
pub(crate) use crate::text::{ellipsize, plural};

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
        format!(
            "the next {}, {} (lines {a}-{end} of {}), right after the cut",
            plural(end + 1 - a, "line", "lines"),
            plural(chars, "char", "chars"),
            ctx.totals.lines
        ),
    )
}

/// The recovery section for one result.
pub fn build(ctx: &Context<'_>) -> Recovery {
    match ctx.entry.family {
        Family::ReadFile => read_file::build(ctx),
        Family::Grep => grep::build(ctx),
        Family::Shell => jq::build_shell(ctx),
        Family::WebSearch => web_search::build(ctx),
        Family::WebFetch => web_fetch::build(ctx),
        Family::Glob => glob::build(ctx),
        Family::Generic => generic::build(ctx),
    }
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
