//! The source's layout, read from its lines: which rows are code and how
//! far each is indented, the statement around a line and the candidates to
//! blank around an error, and whether an outline's definitions agree with it.

use std::ops::Range;

use tree_sitter::Node;

use crate::Symbol;

/// What a row of the source is, for finding the statement around a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Row {
    /// Empty or whitespace only.
    Blank,
    /// A comment, a preprocessor line, or a line inside a string, a here
    /// document or a comment over several lines: not part of the layout.
    Other,
    /// Code starting at this column (a tab counts 4).
    Code(usize),
}

/// The source's rows: their starts and what each is.
pub(super) struct Layout<'a> {
    source: &'a str,
    starts: Vec<usize>,
    rows: Vec<Row>,
    /// The least indentation of a code line.
    top_indent: usize,
}

impl<'a> Layout<'a> {
    pub(super) fn new(source: &'a str, root: Node<'_>) -> Layout<'a> {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', source.as_bytes()).map(|i| i + 1));
        if starts.last() == Some(&source.len()) && starts.len() > 1 {
            starts.pop();
        }
        let mut rows: Vec<Row> = (0..starts.len())
            .map(|r| {
                let line = line_text(source, &starts, r);
                let t = line.trim_start();
                if t.trim().is_empty() {
                    Row::Blank
                } else if is_comment_start(t) {
                    Row::Other
                } else {
                    Row::Code(indent_width(line))
                }
            })
            .collect();
        mask_literals(root, &mut rows);
        let top_indent = rows
            .iter()
            .filter_map(|r| match r {
                Row::Code(i) => Some(*i),
                _ => None,
            })
            .min()
            .unwrap_or(0);
        Layout {
            source,
            starts,
            rows,
            top_indent,
        }
    }

    /// How many rows the source has.
    pub(super) fn row_count(&self) -> usize {
        self.rows.len()
    }

    fn text(&self, row: usize) -> &str {
        line_text(self.source, &self.starts, row).trim()
    }

    fn indent(&self, row: usize) -> Option<usize> {
        match self.rows.get(row) {
            Some(Row::Code(i)) => Some(*i),
            _ => None,
        }
    }

    /// The length in bytes of a row without its line end.
    pub(super) fn row_len(&self, row: usize) -> usize {
        line_text(self.source, &self.starts, row).len()
    }

    /// The bytes of rows `a..=b`, line end of `b` excluded.
    pub(super) fn bytes(&self, a: usize, b: usize) -> Option<Range<usize>> {
        let start = *self.starts.get(a)?;
        let end = self.starts.get(b)? + self.row_len(b);
        (start <= end).then_some(start..end)
    }

    /// How many of `symbols` agree with the layout ([`Layout::agrees`]).
    pub(super) fn agreeing(&self, symbols: &[Symbol]) -> usize {
        // The enclosing symbol of each, by depth.
        let mut open: Vec<&Symbol> = Vec::new();
        let mut n = 0;
        for s in symbols {
            open.truncate(s.depth);
            n += usize::from(self.agrees(s, open.last().copied()));
            open.push(s);
        }
        n
    }

    /// Whether a symbol agrees with the layout: indented deeper than the
    /// symbol it is listed in (at the least indentation when listed at the
    /// top), and ending before the next code line indented as little as it
    /// that neither closes nor continues it. A line that is not code tells
    /// nothing.
    pub(super) fn agrees(&self, s: &Symbol, parent: Option<&Symbol>) -> bool {
        let row = s.line.saturating_sub(1);
        let Some(indent) = self.indent(row) else {
            return true;
        };
        let nested = match parent {
            Some(p) => self
                .indent(p.line.saturating_sub(1))
                .is_none_or(|pi| indent > pi),
            None => indent <= self.top_indent,
        };
        let next = (row + 1..self.rows.len()).find(|&r| {
            self.indent(r)
                .is_some_and(|i| i < indent || i == indent && closes(self.text(r)).is_none())
        });
        nested && next.is_none_or(|r| s.end_line <= r)
    }

    /// The regions to try blanking for an error starting on `row`, smallest
    /// first: for the statement the error sits in and each one around it,
    /// its body (when it has a closing line: the header and the closing line
    /// kept, so the definition is still listed), then all of it.
    pub(super) fn candidates(&self, row: usize) -> Vec<(usize, usize)> {
        let mut out: Vec<(usize, usize)> = Vec::new();
        // The error's row, or the nearest code row after it (before it at
        // the end of the file).
        let Some(mut row) = (row..self.rows.len())
            .find(|&r| self.indent(r).is_some())
            .or_else(|| {
                (0..row.min(self.rows.len()))
                    .rev()
                    .find(|&r| self.indent(r).is_some())
            })
        else {
            return out;
        };
        while let Some(indent) = self.indent(row) {
            let s = self.statement(row, indent);
            if s.closed && s.header_end + 1 < s.end {
                out.push((s.header_end + 1, s.end - 1));
            }
            out.push((s.start, s.end));
            // An error is sometimes found only after the statement that
            // caused it (a token read in the wrong mode): the statement
            // before it at the same level, with it.
            if let Some(prev) = self.previous_sibling(s.start, indent) {
                out.push((prev, s.start - 1));
                out.push((prev, s.end));
            }
            // The statement around it: the nearest code row before it that
            // is indented less.
            let Some(parent) = (0..s.start)
                .rev()
                .find(|&r| self.indent(r).is_some_and(|i| i < indent))
            else {
                break;
            };
            row = parent;
        }
        out.dedup();
        out
    }

    /// The first row of the statement before the one starting at `start`
    /// at the same `indent` (none indented less between them).
    fn previous_sibling(&self, start: usize, indent: usize) -> Option<usize> {
        let mut found = None;
        for r in (0..start).rev() {
            match self.indent(r) {
                Some(i) if i < indent => break,
                Some(i) if i == indent => {
                    if closes(self.text(r)).is_none() {
                        found = Some(r);
                        // Its header may span rows at this indentation.
                        if r.checked_sub(1).and_then(|p| self.indent(p)) != Some(indent) {
                            break;
                        }
                    } else if found.is_some() {
                        break;
                    }
                }
                _ => {}
            }
        }
        found
    }

    /// The statement that `row` (code, at `indent`) is part of: the code
    /// rows at the same indentation right above it (no blank line between),
    /// then down: rows indented deeper, and rows at the same indentation
    /// that continue it (`} else {`, `) {`, `{` on its own line) up to one
    /// that closes it (`}`, `end`, `fi`, ...).
    fn statement(&self, row: usize, indent: usize) -> Statement {
        let mut start = row;
        while let Some(prev) = start.checked_sub(1) {
            if self.indent(prev) != Some(indent) || closes(self.text(prev)).is_some() {
                break;
            }
            start = prev;
        }
        let mut s = Statement {
            start,
            header_end: row,
            end: row,
            closed: false,
        };
        for r in row + 1..self.rows.len() {
            let Some(i) = self.indent(r) else {
                continue;
            };
            if i > indent {
                s.end = r;
                continue;
            }
            if i < indent {
                break;
            }
            match closes(self.text(r)) {
                Some(true) => {
                    s.end = r;
                    s.closed = true;
                    break;
                }
                Some(false) => {
                    s.end = r;
                    s.header_end = r;
                }
                None => break,
            }
        }
        s
    }
}

struct Statement {
    start: usize,
    /// The last row at its own indentation before its closing row (the
    /// header's last row, or `} else {`, `) {`): its body follows.
    header_end: usize,
    end: usize,
    /// Its last row closes it (`}`, `end`, ...).
    closed: bool,
}

/// Whether a code line at a statement's indentation ends it (`Some(true)`:
/// `}`, `});`, `end`, `fi`, `done`, `esac`), continues it (`Some(false)`:
/// `} else {`, `) {`, `{`, `else:`, `.method()`, ...) or starts another
/// (`None`).
fn closes(t: &str) -> Option<bool> {
    let word = t
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    let trivial = |rest: &str| {
        let rest = rest.trim_start_matches(['}', ')', ']', ';', ',', ' ', '\t']);
        rest.is_empty() || rest.starts_with("//") || rest.starts_with('#')
    };
    if matches!(word, "end" | "fi" | "done" | "esac") {
        return trivial(t.get(word.len()..).unwrap_or("")).then_some(true);
    }
    if matches!(
        word,
        "else"
            | "elif"
            | "elsif"
            | "elseif"
            | "catch"
            | "finally"
            | "except"
            | "rescue"
            | "ensure"
            | "then"
            | "do"
            | "where"
    ) {
        return Some(false);
    }
    match t.chars().next()? {
        '}' | ')' | ']' => Some(trivial(t)),
        '{' | '.' | ':' | '?' | '|' | '&' | '+' | '=' => Some(false),
        '-' if !t.starts_with("--") => Some(false),
        _ => None,
    }
}

/// A line that is a comment or a preprocessor line in some language
/// (`//`, `/*`, `*`, `#`, `--`, `;;` is not one: `;;` ends a Bash case).
fn is_comment_start(t: &str) -> bool {
    t.starts_with("//")
        || t.starts_with("/*")
        || t.starts_with('*')
        || t.starts_with('#')
        || t.starts_with("--")
        || t.starts_with("<!--")
}

/// Rows inside a literal or comment over several lines (every row after
/// its first; the first too for a comment) are not layout.
fn mask_literals(root: Node<'_>, rows: &mut [Row]) {
    let mut walk = root.walk();
    'walk: loop {
        let node = walk.node();
        let (a, b) = (node.start_position().row, node.end_position().row);
        let kind = node.kind();
        let literal = kind.contains("string")
            || kind.contains("heredoc")
            || kind.contains("comment")
            || kind.contains("template");
        // An extra is a comment, or an error wrapping code.
        let comment = node.is_extra() && !node.is_error() && !node.has_error();
        let mut descend = true;
        if b > a && (literal || comment) && !node.has_error() {
            let first = if comment || kind.contains("comment") {
                a
            } else {
                a + 1
            };
            for r in rows.iter_mut().take(b + 1).skip(first) {
                if *r != Row::Blank {
                    *r = Row::Other;
                }
            }
            descend = false;
        } else if b == a {
            // A node on one row holds no row of its own.
            descend = false;
        }
        if descend && walk.goto_first_child() {
            continue;
        }
        while !walk.goto_next_sibling() {
            if !walk.goto_parent() {
                break 'walk;
            }
        }
    }
}

fn line_text<'s>(source: &'s str, starts: &[usize], row: usize) -> &'s str {
    let Some(&start) = starts.get(row) else {
        return "";
    };
    let end = starts.get(row + 1).map_or(source.len(), |&n| n - 1);
    let line = source.get(start..end).unwrap_or("");
    line.strip_suffix('\r').unwrap_or(line)
}

fn indent_width(line: &str) -> usize {
    line.chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closing_and_continuing_lines() {
        for t in [
            "}", "};", "});", "end", "end)", "fi", "done", "esac", ")", ");",
        ] {
            assert_eq!(closes(t), Some(true), "{t}");
        }
        for t in [
            "} else {",
            ") {",
            "{",
            "else",
            "else:",
            "elif x:",
            ".map(f)",
            "} catch (E e) {",
        ] {
            assert_eq!(closes(t), Some(false), "{t}");
        }
        for t in ["x = 1", "fun f() {", "def g():", "return x", "endpoint()"] {
            assert_eq!(closes(t), None, "{t}");
        }
    }
}
