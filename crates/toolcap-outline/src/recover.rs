//! Containing the damage of a syntax error: one error costs at most the
//! definition it sits in, not the outline of the rest of the file.
//!
//! tree-sitter recovers from an error by skipping or wrapping tokens in an
//! `ERROR` node, and where it recovers is its own guess: a Kotlin class
//! whose nested class it cannot read becomes one `ERROR` holding every
//! method (each then listed as a top-level function), a C# class ends at an
//! `#if` that splits an `if`/`else`, a Bash function swallows the next
//! definitions. So when the parse has errors, each error is contained by
//! the lines around it: the statement it sits in, read from the source's
//! layout (indentation and the lines that open and close blocks), is
//! blanked (replaced by spaces, newlines kept: every offset, line and column
//! stays the source's) and the source parsed again, incrementally. A
//! candidate is kept when the parse then has no error up to its last line;
//! the candidates go from the smallest (the body of the statement the error
//! sits in, keeping its header and closing line, so the definition is still
//! listed) outwards (the whole statement, then the body of the one around
//! it, ...), never more than half the file. The lines blanked, and those of
//! an error no candidate contains, are what the outline reports as read
//! best-effort.

use std::ops::Range;

use std::collections::HashSet;

use tree_sitter::{InputEdit, Node, Point, Tree};

use super::Symbol;

mod layout;

use layout::Layout;

/// Re-parses tried per outline (incremental: each costs about the edited
/// region, not the whole file, plus reading the outline again). Together
/// they are held to one budget's parser work as well (`parse.rs`).
pub(super) const MAX_ATTEMPTS: usize = 16;

/// The outcome: the tree to outline, the text it was parsed from (the
/// source with the contained statements blanked) and the 0-based rows read
/// best-effort (inclusive ranges, sorted, merged).
pub(super) struct Contained {
    pub(super) tree: Tree,
    pub(super) text: String,
    pub(super) best_effort: Vec<(usize, usize)>,
}

/// Contain the errors of `tree`, parsed from `source`. `reparse` parses a
/// text given the previous tree edited to match it (None: the parser ran
/// out of its work budget, shared by every re-parse, and the containing
/// stops there: the errors not contained yet are read best-effort);
/// `symbols` is the outline of a tree and its text.
pub(super) fn contain(
    source: &str,
    tree: Tree,
    mut reparse: impl FnMut(&str, &Tree) -> Option<Tree>,
    symbols: impl Fn(&Tree, &str) -> Vec<Symbol>,
) -> Contained {
    let layout = Layout::new(source, tree.root_node());
    let mut listed = symbols(&tree, source);
    let mut text = source.to_string();
    let mut tree = tree;
    let mut best_effort: Vec<(usize, usize)> = Vec::new();
    let mut attempts = 0;
    // The re-parses or their budget ran out before every error was tried.
    let mut gave_up = false;
    // Errors before this row were given up on.
    let mut from_row = 0;
    let max_rows = layout.row_count().div_ceil(2).max(1);
    'errors: loop {
        let errors = error_rows(tree.root_node());
        let Some(&(first, last)) = errors.iter().find(|(start, _)| *start >= from_row) else {
            break;
        };
        let candidates = layout.candidates(first);
        for &(a, b) in &candidates {
            if b + 1 - a > max_rows {
                break;
            }
            if attempts == MAX_ATTEMPTS {
                gave_up = true;
                break 'errors;
            }
            attempts += 1;
            let Some(span) = layout.bytes(a, b) else {
                continue;
            };
            let mut edited = tree.clone();
            let blanked = blank(&text, span.clone());
            edited.edit(&edit(&layout, span, a, b));
            let Some(reparsed) = reparse(&blanked, &edited) else {
                gave_up = true;
                break 'errors;
            };
            let after = error_rows(reparsed.root_node());
            // Kept when it removes errors, and none is left from the one
            // being contained to the region's end or the error's (an error
            // pushed just past the region is the same error).
            let reach = b.max(last);
            if after.len() < errors.len()
                && after
                    .iter()
                    .all(|&(start, _)| start < from_row || start > reach)
                && let now = symbols(&reparsed, &blanked)
                && better(&layout, &listed, &now)
            {
                listed = now;
                text = blanked;
                tree = reparsed;
                best_effort.push((a, b));
                from_row = reach + 1;
                continue 'errors;
            }
        }
        // Nothing contained it: the error's own statement is a best effort.
        let own = candidates
            .first()
            .map_or((first, last), |&(a, b)| (a.min(first), b.max(last)));
        best_effort.push(own);
        from_row = own.1.max(first) + 1;
    }
    if gave_up {
        // every error not contained, this one and those after it, is read
        // best-effort
        best_effort.extend(
            error_rows(tree.root_node())
                .into_iter()
                .filter(|&(start, _)| start >= from_row),
        );
    }
    Contained {
        tree,
        text,
        best_effort: merged(best_effort),
    }
}

/// Whether the outline `after` blanking a statement is better than the one
/// `before`: more of its definitions agree with the source's layout (see
/// [`Layout::agrees`]: a method indented under its class, a function that
/// ends before the next line indented as little), or as many and none lost.
/// A C prototype whose macro is an error to the grammar, which the parser
/// read around, stays as it was read; a class that would swallow the next
/// one is not taken for a repair.
fn better(layout: &Layout, before: &[Symbol], after: &[Symbol]) -> bool {
    let (was, is) = (layout.agreeing(before), layout.agreeing(after));
    if is != was {
        return is > was;
    }
    let listed: HashSet<(&str, usize)> = after.iter().map(|s| (s.name.as_str(), s.line)).collect();
    before
        .iter()
        .all(|s| listed.contains(&(s.name.as_str(), s.line)))
}

/// `text` with the bytes of `span` other than line ends replaced by spaces.
fn blank(text: &str, span: Range<usize>) -> String {
    let mut bytes = text.as_bytes().to_vec();
    if let Some(region) = bytes.get_mut(span) {
        for b in region {
            if *b != b'\n' && *b != b'\r' {
                *b = b' ';
            }
        }
    }
    // Whole lines were blanked (a multi-byte character is wholly inside or
    // outside), so this is valid UTF-8; lossy only as a guard.
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The edit that blanking rows `a..=b` (bytes `span`) makes: the same length.
fn edit(layout: &Layout, span: Range<usize>, a: usize, b: usize) -> InputEdit {
    let end_point = Point {
        row: b,
        column: layout.row_len(b),
    };
    InputEdit {
        start_byte: span.start,
        old_end_byte: span.end,
        new_end_byte: span.end,
        start_position: Point { row: a, column: 0 },
        old_end_position: end_point,
        new_end_position: end_point,
    }
}

/// The rows (0-based, inclusive) of each innermost error: an `ERROR` node
/// holding no other, or a `MISSING` node; in source order.
pub(super) fn error_rows(root: Node<'_>) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    if !root.has_error() {
        return out;
    }
    let mut walk = root.walk();
    'walk: loop {
        let node = walk.node();
        let inner_error = node.is_error() && !has_error_below(node);
        if node.is_missing() || inner_error {
            out.push((node.start_position().row, node.end_position().row));
        }
        // Only subtrees holding an error are entered.
        if node.has_error() && !inner_error && walk.goto_first_child() {
            continue;
        }
        while !walk.goto_next_sibling() {
            if !walk.goto_parent() {
                break 'walk;
            }
        }
    }
    out.sort_unstable();
    out
}

/// Whether an error node holds another error node (or a missing one).
fn has_error_below(node: Node<'_>) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .any(|c| c.is_error() || c.is_missing() || c.has_error())
}

/// Sorted, with overlapping or adjacent ranges merged.
fn merged(mut ranges: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    ranges.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
    for (a, b) in ranges {
        match out.last_mut() {
            Some(last) if a <= last.1 + 1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_merge() {
        assert_eq!(
            merged(vec![(5, 6), (1, 2), (3, 3), (9, 9)]),
            [(1, 3), (5, 6), (9, 9)]
        );
    }
}
