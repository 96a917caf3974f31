//! Markers and notes: the lines toolcap writes into what the model sees, each
//! made here from the numbers a stage hands over (every number exact, counted
//! by the stage from the original).

use super::recognise::{CLEANED_NOTE, CLEANED_NOTE_END};
use crate::config::{RecoveryCalls, Suggest};
use crate::facts::{ReadBack, read_back};
use crate::text::{plural, thousands};

/// An omitted part, as its marker states it (numbers in the original).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Omission {
    /// Characters omitted.
    pub chars: usize,
    /// Tokens omitted, when the tool counts in tokens.
    pub tokens: Option<usize>,
    /// Whole lines omitted, 1-based inclusive.
    pub lines: Option<(usize, usize)>,
    /// Starts inside a line: (line, chars kept before the cut, chars in the line).
    pub cut_after: Option<(usize, usize, usize)>,
    /// Ends inside a line: (line, first shown char, chars in the line).
    pub resumes_at: Option<(usize, usize, usize)>,
    /// Inside one line: (line, first omitted char, last omitted char, line chars).
    pub within: Option<(usize, usize, usize, usize)>,
    /// Lines of the original.
    pub total_lines: usize,
    /// The original output was cleaned of terminal noise before cutting.
    pub cleaned: bool,
}

impl Omission {
    fn whole_lines(&self) -> usize {
        self.lines.map_or(0, |(a, b)| b + 1 - a)
    }
}

/// The marker line for one omitted part:
/// `[... 118,077 chars, 3,468 lines omitted (lines 53-3520 of 3520) ...]`.
pub fn marker(o: &Omission) -> String {
    let total_lines = o.total_lines;
    let mut parts = Vec::new();
    if let Some((l, from, to, of)) = o.within {
        parts.push(format!(
            "line {l} of {total_lines}: chars {}-{} of {}",
            thousands(from),
            thousands(to),
            thousands(of)
        ));
    }
    if let Some((l, kept, of)) = o.cut_after {
        parts.push(format!(
            "line {l} cut after char {} of {}",
            thousands(kept),
            thousands(of)
        ));
    }
    if let Some((a, b)) = o.lines {
        if a == b {
            parts.push(format!("line {a} of {total_lines}"));
        } else {
            parts.push(format!("lines {a}-{b} of {total_lines}"));
        }
    }
    if let Some((l, from, of)) = o.resumes_at {
        parts.push(format!(
            "line {l} shown from char {} of {}",
            thousands(from),
            thousands(of)
        ));
    }
    let mut head = plural(o.chars, "char", "chars");
    if let Some(t) = o.tokens {
        head.push_str(&format!(" ({})", plural(t, "token", "tokens")));
    }
    if o.whole_lines() > 0 {
        head.push_str(", ");
        head.push_str(&plural(o.whole_lines(), "line", "lines"));
    }
    let of = if o.cleaned {
        " of the original output"
    } else {
        ""
    };
    format!("[... {head}{of} omitted ({}) ...]", parts.join("; "))
}

/// A marker of typical size with the blank lines around it: what the
/// `head_tail` cut budgets for each omitted part it opens.
pub fn typical_marker() -> String {
    let o = Omission {
        chars: 1791,
        tokens: None,
        lines: Some((27, 71)),
        cut_after: None,
        resumes_at: None,
        within: None,
        total_lines: 159,
        cleaned: false,
    };
    format!("{}\n\n", marker(&o))
}

/// The line shown for a run of near-duplicate lines:
/// `test tests::parses_* ... ok  (×40, lines 27-66)`.
pub fn collapsed_line(pattern: &str, first: usize, last: usize) -> String {
    format!(
        "{pattern}  (×{}, lines {first}-{last})",
        thousands(last + 1 - first)
    )
}

/// The line standing for lines equal to the one before, when cleaning keeps
/// one of them: `(repeated 41 more times)`.
pub fn repeated(n: usize) -> String {
    format!(
        "(repeated {} more {})",
        thousands(n),
        if n == 1 { "time" } else { "times" }
    )
}

/// One part of the shown body, in order.
pub enum Part<'a> {
    /// Text kept verbatim.
    Kept(&'a str),
    /// Lines kept from an omitted middle, each with its original line number.
    Numbered(Vec<(usize, &'a str)>),
    /// The line shown for a run of near-duplicate lines.
    Collapsed(&'a str),
    /// An omitted part.
    Marker(Omission),
}

/// The kept parts and markers as the model sees them (without the recovery
/// section): a kept part ends with a newline; a marker has a blank line on each
/// side (one between two markers); numbered lines are labelled `[line N] `.
pub fn body(parts: &[Part<'_>]) -> String {
    let mut out = String::new();
    for (i, p) in parts.iter().enumerate() {
        match p {
            Part::Kept(s) => {
                out.push_str(s);
                if !out.ends_with('\n') {
                    out.push('\n');
                }
            }
            Part::Numbered(lines) => {
                for (n, line) in lines {
                    out.push_str(&format!("[line {n}] "));
                    out.push_str(line);
                }
                if !out.ends_with('\n') {
                    out.push('\n');
                }
            }
            Part::Collapsed(line) => {
                out.push_str(line);
                out.push('\n');
            }
            Part::Marker(o) => {
                // (after a marker, the blank line is there already)
                let after_marker = i > 0 && matches!(&parts[i - 1], Part::Marker(_));
                if i > 0 && !after_marker {
                    out.push('\n');
                }
                out.push_str(&marker(o));
                out.push('\n');
                if i + 1 < parts.len() {
                    out.push('\n');
                }
            }
        }
    }
    out
}

/// A result shortened as valid JSON: the JSON, then the marker saying so.
pub fn json_body(json: &str, original_chars: usize, shown_chars: usize, what: &str) -> String {
    format!(
        "{json}\n\n[... JSON shortened to stay valid JSON: {} shown as {}; {what} ...]\n",
        plural(original_chars, "char", "chars"),
        plural(shown_chars, "char", "chars"),
    )
}

/// How a page shown as its text ends.
pub enum PageEnd {
    /// The rest of the page's source is omitted; `markup_only`: it holds no
    /// text of the page (the whole text is shown).
    Omitted {
        /// What of the page's source is omitted.
        omission: Omission,
        /// The omitted part holds no text of the page.
        markup_only: bool,
    },
    /// Nothing of the page's text is omitted: the rest of its `chars` are markup.
    Nothing {
        /// The characters of markup after the text.
        chars: usize,
    },
}

/// A fetched HTML page shown as its text: a note, the text shown, and how it
/// ends.
pub fn page_body(shown: &str, shown_chars: usize, text_chars: usize, end: &PageEnd) -> String {
    let mut body = format!(
        "[toolcap: HTML page shown as text (markup, scripts, styles and menus left out): {} of its text's {} below]\n{shown}\n",
        thousands(shown_chars),
        plural(text_chars, "char", "chars")
    );
    body.push('\n');
    match end {
        PageEnd::Omitted {
            omission,
            markup_only,
        } => {
            let marker = marker(omission);
            if *markup_only {
                // what is left out holds no text of the page
                body.push_str(marker.trim_end_matches(" ...]"));
                body.push_str("; markup only: the page's whole text is shown above ...]");
            } else {
                body.push_str(&marker);
            }
        }
        PageEnd::Nothing { chars } => body.push_str(&format!(
            "[... nothing of the page's text omitted: the rest of its {} is markup, scripts and styles ...]",
            plural(*chars, "char", "chars")
        )),
    }
    body.push('\n');
    body
}

/// A result that fit once cleaned of terminal noise: the cleaned text and the
/// note saying what cleaning did (`what`) and that nothing else was omitted.
pub fn cleaned(text: &str, what: &str) -> String {
    format!(
        "{}{CLEANED_NOTE}{what}{CLEANED_NOTE_END}",
        text.trim_end_matches('\n')
    )
}

/// What the note on a cleaned result adds when the output as it was is stored
/// (collapsed lines and terminal noise included): `the output as it was: run
/// `toolcap continue ID``, or the recovery tool's call.
pub fn cleaned_stored(s: &Suggest, id: &str) -> String {
    match read_back(s, id) {
        ReadBack::Command(command) => {
            format!("the output as it was is stored: run `{command} --offset 0`")
        }
        ReadBack::Tool(prefix) => format!(
            "the output as it was is stored: call {prefix}get_continuation with tool_call_id={} offset=0",
            crate::quote::json_string(id),
        ),
    }
}

/// Whether suggestion `g` reads the result stored under `id` back from the store:
/// a recovery tool called with that `tool_call_id`, or (`[suggest] recovery` by
/// the CLI) a shell command running `PROGRAM continue ID` / `PROGRAM search ID`.
/// The fact [`crate::facts::stored_fact`] makes is left out then: the call already says the
/// result is kept and how to read it.
pub fn reads_stored(s: &Suggest, g: &super::recovery::Suggestion, id: &str) -> bool {
    if g.args.get("tool_call_id").and_then(|v| v.as_str()) == Some(id) {
        return true;
    }
    let RecoveryCalls::Cli { program, .. } = &s.recovery else {
        return false;
    };
    let Some(id_word) = crate::quote::shell_word(id) else {
        return false;
    };
    let command = match g.args.get(&s.shell.command) {
        Some(serde_json::Value::String(c)) => c.as_str(),
        Some(serde_json::Value::Array(a)) => a.last().and_then(|v| v.as_str()).unwrap_or(""),
        _ => return false,
    };
    ["continue", "search"].iter().any(|sub| {
        command.starts_with(&format!("{program} {sub} {id_word}"))
            || command.starts_with(&format!("{program} {sub} "))
                && command.ends_with(&format!("-- {id_word}"))
    })
}

/// The marker of a binary result: its size as decoded, why it was taken for
/// binary (`why`) and what it looks like.
pub fn binary_marker(chars: usize, lines: usize, why: &str, what: &str) -> String {
    format!(
        "[... binary result omitted: {} as decoded (invalid UTF-8 replaced), {}; {why}; looks like: {what} ...]",
        plural(chars, "char", "chars"),
        plural(lines, "line", "lines"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_typical_marker_is_a_marker() {
        assert_eq!(
            typical_marker(),
            "[... 1,791 chars, 45 lines omitted (lines 27-71 of 159) ...]\n\n"
        );
        assert!(super::super::recognise::already_cut(&format!(
            "{}{}\n",
            typical_marker(),
            super::super::recovery::HEADING
        )));
    }
}
