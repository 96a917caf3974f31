//! Line starts of a text and its sizes, and the map from a scanned text's
//! lines back to the original's: the index every stage counts lines with.

use crate::text::{count_char_starts, count_chars};

/// Sizes of a text: Unicode characters, bytes and lines (`\n`-terminated lines plus
/// a final unterminated one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Totals {
    /// Unicode scalar values (what Python's `len()` counts).
    pub chars: usize,
    /// UTF-8 bytes.
    pub bytes: usize,
    /// Lines, as `wc -l` counts them plus a final line without a line end.
    pub lines: usize,
}

impl Totals {
    /// Sizes of `text`, without indexing its lines.
    pub fn of(text: &str) -> Totals {
        let b = text.as_bytes();
        let newlines = memchr::memchr_iter(b'\n', b).count();
        let lines = newlines + usize::from(b.last().is_some_and(|&c| c != b'\n'));
        Totals {
            chars: count_chars(text),
            bytes: b.len(),
            lines,
        }
    }
}

/// Where a line of a scanned text came from in the original.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    /// First original line (0-based).
    pub first_line: usize,
    /// Number of original lines it stands for.
    pub lines: usize,
    /// Original characters before it.
    pub chars_before: usize,
    /// Original characters it stands for, terminators included.
    pub chars: usize,
    /// For a single line: its characters without the terminator.
    pub content_chars: usize,
    /// A giant line kept by its ends: (byte in this line where the original's
    /// middle was left out, characters left out).
    pub skipped: Option<(usize, usize)>,
    /// A placeholder for omitted lines: never kept, never shown.
    pub placeholder: bool,
}

/// Map from the lines of a scanned text back to the original.
#[derive(Debug, Clone, Copy)]
pub struct OriginMap<'a> {
    /// Per line of the scanned text: what it stands for in the original.
    pub lines: &'a [Origin],
    /// Lines of the original.
    pub original_lines: usize,
}

/// Line starts of a text, for mapping byte offsets to lines; optionally the map
/// back to the original when the text is a cleaned version of it.
#[derive(Debug, Clone)]
pub struct LineIndex<'a> {
    /// The text indexed.
    pub text: &'a str,
    starts: Vec<usize>,
    origin: Option<OriginMap<'a>>,
}

impl<'a> LineIndex<'a> {
    /// The index of `text`'s lines.
    pub fn new(text: &'a str) -> Self {
        let mut starts = Vec::with_capacity(text.len() / 40 + 1);
        if !text.is_empty() {
            starts.push(0);
            starts.extend(
                memchr::memchr_iter(b'\n', text.as_bytes())
                    .map(|i| i + 1)
                    .filter(|&i| i < text.len()),
            );
        }
        LineIndex {
            text,
            starts,
            origin: None,
        }
    }

    /// An index over a cleaned text whose lines map back to `map.original`.
    pub fn with_origin(text: &'a str, map: OriginMap<'a>) -> Self {
        let mut idx = LineIndex::new(text);
        if map.lines.len() == idx.len() {
            idx.origin = Some(map);
        }
        idx
    }

    /// Whether line `i` stands for omitted lines and must never be kept.
    pub fn blocked(&self, i: usize) -> bool {
        self.origin
            .and_then(|o| o.lines.get(i))
            .is_some_and(|x| x.placeholder)
    }

    /// Lines of the original text.
    pub fn original_lines(&self) -> usize {
        self.origin.map_or(self.len(), |o| o.original_lines)
    }

    /// 1-based original line number of (the first original line behind) line `i`.
    pub fn orig_line_no(&self, i: usize) -> usize {
        match self.origin {
            Some(o) => o.lines.get(i).map_or(o.original_lines, |x| x.first_line) + 1,
            None => i + 1,
        }
    }

    /// 1-based last original line behind line `i`.
    pub fn orig_last_line_no(&self, i: usize) -> usize {
        match self.origin {
            Some(o) => o
                .lines
                .get(i)
                .map_or(o.original_lines, |x| x.first_line + x.lines),
            None => i + 1,
        }
    }

    /// Characters of the original behind whole lines `a..=b` (0-based).
    pub(super) fn orig_chars(&self, a: usize, b: usize) -> usize {
        match self.origin {
            Some(o) => match (o.lines.get(a), o.lines.get(b)) {
                (Some(x), Some(y)) => y.chars_before + y.chars - x.chars_before,
                _ => 0,
            },
            None => count_chars(&self.text[self.start(a)..self.end(b)]),
        }
    }

    /// Characters of line `i`'s content in the original.
    pub(super) fn orig_line_chars(&self, i: usize) -> usize {
        match self.origin.and_then(|o| o.lines.get(i)) {
            Some(x) => x.content_chars,
            None => count_chars(self.line(i)),
        }
    }

    /// Characters of the original left out of line `i` before byte `at` of the
    /// line (a giant line kept by its ends), to add to positions and counts.
    pub(super) fn skipped_before(&self, i: usize, byte_in_line: usize) -> usize {
        match self
            .origin
            .and_then(|o| o.lines.get(i))
            .and_then(|x| x.skipped)
        {
            Some((at, n)) if byte_in_line > at => n,
            _ => 0,
        }
    }

    /// Number of lines.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Whether the text has no line (it is empty).
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// Characters, bytes and lines of the text.
    pub fn totals(&self) -> Totals {
        Totals {
            chars: count_chars(self.text),
            bytes: self.text.len(),
            lines: self.len(),
        }
    }

    /// Byte where line `i` (0-based) starts.
    pub fn start(&self, i: usize) -> usize {
        self.starts.get(i).copied().unwrap_or(self.text.len())
    }

    /// Byte after line `i`, terminator included.
    pub fn end(&self, i: usize) -> usize {
        self.start(i + 1)
    }

    /// Line `i` with its terminator.
    pub fn line_with_end(&self, i: usize) -> &'a str {
        &self.text[self.start(i)..self.end(i)]
    }

    /// Line `i` without `\n` / `\r\n`.
    pub fn line(&self, i: usize) -> &'a str {
        let l = self.line_with_end(i);
        let l = l.strip_suffix('\n').unwrap_or(l);
        l.strip_suffix('\r').unwrap_or(l)
    }

    /// (0-based line, char column) of a byte offset; the end of the text maps to
    /// (`len()`, 0).
    pub fn locate(&self, byte: usize) -> (usize, usize) {
        if byte >= self.text.len() {
            return (self.len(), 0);
        }
        let line = match self.starts.binary_search(&byte) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let col = count_char_starts(&self.text.as_bytes()[self.start(line)..byte]);
        (line, col)
    }
}
