//! The recovery section: its model (facts, a structure listing, suggested
//! calls, notes), laid out in one place, and fitted to a cap in chars.
//!
//! A family's hints fill a [`Recovery`] in; only this module makes its text
//! (`--- Recovery Options ---`, the `Commands:` list, the note that counts what
//! a cap left out).

use serde_json::{Map, Value};

use crate::text::{ellipsize, thousands};

/// Heading of the recovery section.
pub const HEADING: &str = "--- Recovery Options ---";

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

/// The section's layout, written by [`Recovery::render`] and counted by
/// [`Recovery::rendered_chars`] and [`Recovery::fit`] from the same pieces: the
/// heading line, then a line per fact; a blank line, the structure title with
/// `:` and its lines indented; a blank line, `Commands:` and a bulleted line
/// per suggestion; a blank line and a line per note.
mod layout {
    /// Before the structure title (a blank line) and after it.
    pub(super) const TITLE_BEFORE: &str = "\n";
    pub(super) const TITLE_AFTER: &str = ":\n";
    /// Before each structure line.
    pub(super) const INDENT: &str = "  ";
    /// The commands' heading, with the blank line before it.
    pub(super) const COMMANDS: &str = "\nCommands:\n";
    /// Before each suggestion.
    pub(super) const BULLET: &str = "  • ";
    /// Before the notes (a blank line).
    pub(super) const NOTES_BEFORE: &str = "\n";

    fn chars(s: &str) -> usize {
        s.chars().count()
    }

    /// Chars of a line written as it is (a fact, a note, the heading).
    pub(super) fn line(s: &str) -> usize {
        chars(s) + 1
    }

    /// Chars of the structure title's line, with the blank line before it.
    pub(super) fn title(t: &str) -> usize {
        chars(TITLE_BEFORE) + chars(t) + chars(TITLE_AFTER)
    }

    /// Chars of a structure line.
    pub(super) fn structure_line(l: &str) -> usize {
        chars(INDENT) + chars(l) + 1
    }

    /// Chars of a suggestion's line (`rendered`: the call and its purpose).
    pub(super) fn command(rendered: &str) -> usize {
        chars(BULLET) + chars(rendered) + 1
    }

    /// Chars of the commands' heading.
    pub(super) fn commands_head() -> usize {
        chars(COMMANDS)
    }

    /// Chars before the notes.
    pub(super) fn notes_head() -> usize {
        chars(NOTES_BEFORE)
    }
}

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
            out.push_str(layout::TITLE_BEFORE);
            out.push_str(&s.title);
            out.push_str(layout::TITLE_AFTER);
            for l in &s.lines {
                out.push_str(layout::INDENT);
                out.push_str(l);
                out.push('\n');
            }
        }
        if !self.suggestions.is_empty() {
            out.push_str(layout::COMMANDS);
            for s in &self.suggestions {
                out.push_str(layout::BULLET);
                out.push_str(&s.render());
                out.push('\n');
            }
        }
        if !self.notes.is_empty() {
            out.push_str(layout::NOTES_BEFORE);
            for n in &self.notes {
                out.push_str(n);
                out.push('\n');
            }
        }
        out
    }

    /// Chars of the section rendered without the cap, computed without rendering.
    pub fn rendered_chars(&self) -> usize {
        let mut n = layout::line(HEADING);
        n += self.facts.iter().map(|f| layout::line(f)).sum::<usize>();
        if let Some(s) = &self.structure
            && !s.lines.is_empty()
        {
            n += layout::title(&s.title);
            n += s
                .lines
                .iter()
                .map(|l| layout::structure_line(l))
                .sum::<usize>();
        }
        if !self.suggestions.is_empty() {
            n += layout::commands_head();
            n += self
                .suggestions
                .iter()
                .map(|s| layout::command(&s.render()))
                .sum::<usize>();
        }
        if !self.notes.is_empty() {
            n += layout::notes_head() + self.notes.iter().map(|l| layout::line(l)).sum::<usize>();
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
        let mut used = layout::line(HEADING);
        let mut dropped_facts = 0;
        let mut facts = Vec::new();
        for f in std::mem::take(&mut self.facts) {
            let cost = layout::line(&f);
            if dropped_facts == 0 && used + cost <= room {
                used += cost;
                facts.push(f);
            } else {
                dropped_facts += 1;
            }
        }
        let mut dropped_suggestions = 0;
        let mut suggestions = Vec::new();
        let commands_head = layout::commands_head();
        for s in std::mem::take(&mut self.suggestions) {
            let cost = layout::command(&s.render());
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
            let head = layout::title(&s.title);
            let mut lines = Vec::new();
            for l in std::mem::take(&mut s.lines) {
                let h = if lines.is_empty() { head } else { 0 };
                let cost = h + layout::structure_line(&l);
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
        used += layout::notes_head();
        let mut dropped_notes = 0;
        let mut notes = Vec::new();
        for n in std::mem::take(&mut self.notes) {
            let cost = layout::line(&n);
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
            note = Some(layout::line(&n) + layout::notes_head());
            notes.push(n);
        }
        self.facts = facts;
        self.suggestions = suggestions;
        self.notes = notes;
        (self, note)
    }
}
