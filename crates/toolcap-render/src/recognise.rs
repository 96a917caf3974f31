//! Recognising toolcap's own output, so that it is never cut twice: the
//! marker lines, the recovery heading, the `[line N] ` labels and the note on a
//! cleaned result that [`super::marker`] and [`super::recovery`] write.

use crate::text::static_regex;
use std::sync::LazyLock;

use regex::Regex;

use super::recovery::HEADING;

/// The longest marker line toolcap writes, in chars (every count at its widest).
pub const MAX_MARKER_CHARS: usize = 600;

/// The start of the note on a result that fit once cleaned of terminal noise.
pub const CLEANED_NOTE: &str = "\n[toolcap: terminal noise removed: ";

/// The end of that note.
pub const CLEANED_NOTE_END: &str = "; nothing else omitted]\n";

/// The cleaned text of a result that fit once cleaned (see
/// [`super::marker::cleaned`]): the text before its note.
pub fn cleaned_body(text: &str) -> Option<&str> {
    text.strip_suffix(CLEANED_NOTE_END)
        .and_then(|t| t.rfind(CLEANED_NOTE).map(|i| &t[..i]))
}

static MARKER_LINE: LazyLock<Regex> =
    LazyLock::new(|| static_regex(r"^\[\.\.\. .+ \.\.\.\]\r?\n?$"));
static LINE_LABEL: LazyLock<Regex> = LazyLock::new(|| static_regex(r"^\[line \d+\] "));

/// A cut result split into its parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CutParts<'a> {
    /// The shown part without marker lines, the blank lines around them, and
    /// `[line N] ` labels: what was kept of the result.
    pub kept: String,
    /// The marker lines, without their newline.
    pub markers: Vec<&'a str>,
    /// Chars of `[line N] ` labels and of blank lines around markers.
    pub labels: usize,
    /// The recovery section, from its heading to the end.
    pub recovery: &'a str,
}

/// Split `text` as a cut result: everything up to the last line that is the
/// recovery heading, and that section. `None` when there is no heading line.
pub fn split_cut(text: &str) -> Option<CutParts<'_>> {
    let at = if text.starts_with(HEADING) {
        0
    } else {
        text.rfind(&format!("\n{HEADING}\n"))? + 1
    };
    let (body, recovery) = text.split_at(at);
    let mut kept = String::new();
    let mut markers = Vec::new();
    let mut labels = 0;
    let lines: Vec<&str> = body.split_inclusive('\n').collect();
    let is_marker = |i: usize| lines.get(i).is_some_and(|l| MARKER_LINE.is_match(l));
    for (i, l) in lines.iter().enumerate() {
        if is_marker(i) {
            markers.push(l.trim_end_matches(['\n', '\r']));
            continue;
        }
        // the blank lines render puts before and after a marker
        if *l == "\n" && ((i > 0 && is_marker(i - 1)) || is_marker(i + 1)) {
            labels += 1;
            continue;
        }
        match LINE_LABEL.find(l) {
            Some(m) => {
                labels += m.end();
                kept.push_str(&l[m.end()..]);
            }
            None => kept.push_str(l),
        }
    }
    Some(CutParts {
        kept,
        markers,
        labels,
        recovery,
    })
}

/// Whether a text already carries toolcap's marker (so it is never cut twice).
pub fn already_cut(text: &str) -> bool {
    static MARK: LazyLock<Regex> = LazyLock::new(|| static_regex(r"(?m)^\[\.\.\. .+ \.\.\.\]\r?$"));
    text.contains(HEADING) && MARK.is_match(text)
}
