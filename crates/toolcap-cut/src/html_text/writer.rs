//! The page's text as it is written: blocks, headings, list items, whitespace.

use super::markup::reference;
use super::{PageText, Run};

/// Builds the text: whitespace and line breaks are held back until a word
/// follows, so lines never start or end with spaces and blank lines never pile up.
#[derive(Default)]
pub(super) struct Writer {
    pub(super) out: PageText,
    /// A space owed before the next word: its source.
    pub(super) space: Option<(usize, usize)>,
    /// Line ends owed before the next word (1 or 2), and the source of the first.
    pub(super) newlines: Option<(usize, (usize, usize))>,
    /// Written at the start of the next word's line (`#`, `-`), with its source.
    pub(super) prefix: Option<(String, (usize, usize))>,
}

impl Writer {
    pub(super) fn push(&mut self, s: &str, src: (usize, usize), verbatim: bool) {
        let start = self.out.text.len();
        self.out.text.push_str(s);
        self.out.runs.push(Run {
            text: (start, self.out.text.len()),
            src,
            verbatim,
        });
    }

    pub(super) fn newline(&mut self, from: usize, to: usize, n: usize) {
        self.space = None;
        let n = match self.newlines {
            Some((m, _)) => m.max(n),
            None => n,
        };
        let src = self.newlines.map_or((from, to), |(_, s)| s);
        self.newlines = Some((n, src));
    }

    pub(super) fn space(&mut self, from: usize, to: usize) {
        if self.newlines.is_none() && self.space.is_none() && !self.out.text.is_empty() {
            self.space = Some((from, to));
        }
    }

    pub(super) fn prefix(&mut self, p: &str, from: usize, to: usize) {
        self.prefix = Some((p.to_string(), (from, to)));
    }

    /// Write what is owed before a word.
    pub(super) fn before_word(&mut self) {
        if let Some((n, src)) = self.newlines.take() {
            if !self.out.text.is_empty() {
                let n = if self.out.text.ends_with("\n\n") {
                    0
                } else if self.out.text.ends_with('\n') {
                    n - 1
                } else {
                    n
                };
                if n > 0 {
                    self.push(&"\n".repeat(n), src, false);
                }
            }
            self.space = None;
        }
        if let Some((p, src)) = self.prefix.take() {
            let at_line_start = self.out.text.is_empty() || self.out.text.ends_with('\n');
            if at_line_start {
                self.push(&format!("{p} "), src, false);
                self.space = None;
            }
        }
        if let Some(src) = self.space.take()
            && !self.out.text.is_empty()
            && !self.out.text.ends_with('\n')
        {
            self.push(" ", src, false);
        }
    }

    /// The text between tags, `html[from..to]`.
    pub(super) fn text(&mut self, html: &str, from: usize, to: usize, pre: bool) {
        let s = &html[from..to];
        let mut i = 0;
        let b = s.as_bytes();
        while i < b.len() {
            let c = b[i];
            if pre && (c == b'\n' || c == b'\r') {
                // a line of preformatted text ends
                let len = if c == b'\r' && b.get(i + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                self.newlines = None;
                self.space = None;
                if let Some((p, src)) = self.prefix.take() {
                    self.push(&format!("{p} "), src, false);
                }
                if self.out.text.is_empty() {
                    // no leading blank line
                } else {
                    self.push("\n", (from + i, from + i + len), false);
                }
                i += len;
                continue;
            }
            if c.is_ascii_whitespace() && !pre {
                let start = i;
                while i < b.len() && b[i].is_ascii_whitespace() {
                    i += 1;
                }
                self.space(from + start, from + i);
                continue;
            }
            if c == b'&'
                && let Some((decoded, len)) = reference(&s[i..])
            {
                let src = (from + i, from + i + len);
                i += len;
                if decoded.is_empty() {
                    // a soft hyphen or joiner: nothing to read
                } else if !pre && decoded.chars().all(char::is_whitespace) {
                    // `&nbsp;` between words is a space like any other
                    self.space(src.0, src.1);
                } else {
                    self.before_word();
                    self.push(&decoded, src, false);
                }
                continue;
            }
            // a run of ordinary characters (spaces too, inside <pre>), copied verbatim
            let start = i;
            while i < b.len() {
                let c = b[i];
                if c == b'&'
                    || (!pre && c.is_ascii_whitespace())
                    || (pre && (c == b'\n' || c == b'\r'))
                {
                    break;
                }
                i += 1;
            }
            if i == start {
                // an '&' that is not a reference
                i += 1;
            }
            self.before_word();
            self.push(&s[start..i], (from + start, from + i), true);
        }
    }

    pub(super) fn finish(mut self) -> PageText {
        if !self.out.text.is_empty() && !self.out.text.ends_with('\n') {
            let at = self.out.runs.last().map_or(0, |r| r.src.1);
            self.push("\n", (at, at), false);
        }
        // no blank lines at the end
        while self.out.text.ends_with("\n\n") {
            self.out.text.pop();
            if let Some(r) = self.out.runs.last_mut() {
                r.text.1 = r.text.1.min(self.out.text.len());
                if r.text.1 <= r.text.0 {
                    self.out.runs.pop();
                }
            }
        }
        self.out
    }
}
