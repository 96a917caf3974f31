//! Markdown: ATX and setext headings outside fenced code blocks and HTML
//! comments, with the lines of their sections.

use std::sync::LazyLock;
use toolcap_text::text::static_regex;

use regex::Regex;

use super::{Format, TextOutline, cap, short};

static MD_HEADING: LazyLock<Regex> =
    LazyLock::new(|| static_regex(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$"));

/// Whether a line is an ATX heading (`## x`).
pub(super) fn is_heading(line: &str) -> bool {
    MD_HEADING.is_match(line)
}

static SETEXT: LazyLock<Regex> = LazyLock::new(|| static_regex(r"^ {0,3}(=+|-+)[ \t]*$"));

/// A markdown heading: level, text, 1-based line, and the last line of its
/// section (up to the next heading of the same or a higher level).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MdHeading {
    /// 1 for `#` (or `===` under the text) to 6 for `######` (`---`: 2).
    pub level: usize,
    /// The heading's text, without its `#` marks (empty for a bare `#`).
    pub text: String,
    /// The heading's line (1-based; a setext heading's text line).
    pub line: usize,
    /// The last line of its section (1-based).
    pub end_line: usize,
}

/// ATX (`## x`) and setext (`x` over `===`/`---`) headings outside fenced
/// code blocks, with their section spans.
///
/// ```
/// use toolcap_outline::text::markdown_headings;
///
/// let md = "# Install\n\nRun it.\n\n## From source\n\n```sh\n# not a heading\n```\n\nUsage\n=====\n";
/// let h = markdown_headings(md);
/// let got: Vec<(usize, &str, usize, usize)> =
///     h.iter().map(|h| (h.level, h.text.as_str(), h.line, h.end_line)).collect();
/// assert_eq!(got, [(1, "Install", 1, 10), (2, "From source", 5, 10), (1, "Usage", 11, 12)]);
/// ```
pub fn markdown_headings(text: &str) -> Vec<MdHeading> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<MdHeading> = Vec::new();
    let mut fence: Option<(u8, usize)> = None;
    let mut in_comment = false;
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        let indent = l.len() - t.len();
        let fence_char = t.bytes().next().filter(|c| *c == b'`' || *c == b'~');
        if indent < 4
            && let Some(c) = fence_char
        {
            let n = t.bytes().take_while(|&b| b == c).count();
            if n >= 3 {
                match fence {
                    None => fence = Some((c, n)),
                    Some((fc, fnum)) if fc == c && n >= fnum && t[n..].trim().is_empty() => {
                        fence = None;
                    }
                    Some(_) => {}
                }
                continue;
            }
        }
        if fence.is_some() {
            continue;
        }
        // inside an HTML comment (`<!-- ... -->`, over several lines): not
        // rendered, so not a heading
        if in_comment {
            if l.contains("-->") {
                in_comment = false;
            }
            continue;
        }
        if let Some(at) = l.find("<!--")
            && !l[at + 4..].contains("-->")
        {
            in_comment = true;
            continue;
        }
        if let Some(c) = MD_HEADING.captures(l) {
            out.push(MdHeading {
                level: c.get(1).map_or(1, |m| m.as_str().len()),
                text: c.get(2).map_or("", |m| m.as_str()).trim().to_string(),
                line: i + 1,
                end_line: 0,
            });
        } else if i > 0
            && let Some(c) = SETEXT.captures(l)
        {
            let prev = lines[i - 1].trim();
            let prev_is_heading = out.last().is_some_and(|h| h.line == i);
            if !prev.is_empty()
                && !prev_is_heading
                && !prev.starts_with(['-', '*', '>', '|', '#'])
                && lines[i - 1].len() - lines[i - 1].trim_start().len() < 4
            {
                let level = if c.get(1).is_some_and(|m| m.as_str().starts_with('=')) {
                    1
                } else {
                    2
                };
                out.push(MdHeading {
                    level,
                    text: prev.to_string(),
                    line: i,
                    end_line: 0,
                });
            }
        }
    }
    // Section spans: up to the line before the next heading of the same or a
    // higher level, else the last line.
    let total = lines.len();
    for i in 0..out.len() {
        let level = out[i].level;
        let next = out[i + 1..]
            .iter()
            .find(|h| h.level <= level)
            .map_or(total + 1, |h| h.line);
        out[i].end_line = (next - 1).max(out[i].line);
    }
    out
}

pub(super) fn markdown(text: &str, max: usize) -> Option<TextOutline> {
    let hs = markdown_headings(text);
    if hs.is_empty() {
        return None;
    }
    let min = hs.iter().map(|h| h.level).min().unwrap_or(1);
    let lines = hs
        .iter()
        .map(|h| {
            format!(
                "{}{} {} (lines {}-{})",
                "  ".repeat((h.level - min).min(4)),
                "#".repeat(h.level),
                short(&h.text, 90),
                h.line,
                h.end_line
            )
        })
        .collect();
    Some(TextOutline {
        format: Format::Markdown,
        title: format!("Headings ({})", toolcap_text::text::thousands(hs.len())),
        lines: cap(lines, "headings", max),
    })
}
