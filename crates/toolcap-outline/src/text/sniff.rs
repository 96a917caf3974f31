//! Code or text: the one test that keeps a script's `#` comments from being
//! listed as Markdown headings, in two strengths read the same way (lines
//! outside fenced blocks that match a set of line patterns):
//! - lines that only code starts with at the left margin, each language's
//!   own in its row of the language table (`margin`: a Python `def`, a
//!   Perl `sub`, a C `#include`, ...): three of them make a text code;
//! - statements of a script (an import, an assignment, a call, a block
//!   header, a `return`): as many as it has `#` headings make them
//!   comments.

use std::sync::LazyLock;

use regex::RegexSet;

use crate::languages::sniff_rows;

/// The left-margin lines of every row of the language table, built or not.
static MARGIN: LazyLock<RegexSet> = LazyLock::new(|| {
    let patterns = sniff_rows().flat_map(|row| row.margin.iter().copied());
    // The patterns are constants, checked by a test.
    RegexSet::new(patterns).unwrap_or_else(|_| RegexSet::empty())
});

/// A script's statements at the left margin (Python, shell, Ruby, ...).
const STATEMENT_PATTERNS: &[&str] = &[
    r"^import\s+\w",
    r"^from\s+[\w.]+\s+import\s",
    r"^[A-Za-z_][\w.]*(\[[^\]]*\])?\s*([-+*/%|&]|//|\*\*)?=[^=]",
    r"^[A-Za-z_][\w.]*\(.*\)\s*;?\s*$",
    r"^(if|elif|else|for|while|with|try|except|def|class|async\s+def)\b.*:\s*$",
    r"^return\b",
    r"^export\s+\w+=",
];

static STATEMENTS: LazyLock<RegexSet> = LazyLock::new(|| {
    // Constants, checked by a test.
    RegexSet::new(STATEMENT_PATTERNS).unwrap_or_else(|_| RegexSet::empty())
});

/// How many of `lines` outside fenced blocks (```` ``` ````, `~~~`) match
/// `signs`, counting stopped at `enough`.
fn code_lines<'a>(lines: impl Iterator<Item = &'a str>, signs: &RegexSet, enough: usize) -> usize {
    let mut fenced = false;
    let mut code = 0;
    for l in lines {
        let t = l.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
        } else if !fenced && signs.is_match(l) {
            code += 1;
            if code >= enough {
                break;
            }
        }
    }
    code
}

/// Whether `text` reads as code: a `#!` first line, or at least three lines
/// (anywhere in the first 2,000 lines: code may start after a long comment
/// block) that only code starts with.
pub(super) fn sniffs_as_code(text: &str) -> bool {
    text.starts_with("#!") || code_lines(text.lines().take(2000), &MARGIN, 3) >= 3
}

/// Whether `#`-headed lines among `head` are more likely code comments: at
/// least as many statements as headings (and two).
pub(super) fn reads_as_code(head: &[&str], headings: usize) -> bool {
    let needed = headings.max(2);
    code_lines(head.iter().copied(), &STATEMENTS, needed) >= needed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_patterns_compile() {
        let margin: Vec<&str> = sniff_rows()
            .flat_map(|row| row.margin.iter().copied())
            .collect();
        assert!(margin.len() >= 10, "{margin:?}");
        assert_eq!(
            RegexSet::new(&margin).map(|s| s.len()).ok(),
            Some(margin.len())
        );
        assert_eq!(MARGIN.len(), margin.len());
        assert_eq!(STATEMENTS.len(), STATEMENT_PATTERNS.len());
    }

    #[test]
    fn margin_lines_of_each_language() {
        for line in [
            "package ExtUtils::MM_Unix;",
            "use strict;",
            "sub new {",
            "def f(x):",
            "class A(B):",
            "import os, sys",
            "from a.b import c",
            "main() {",
            "require 'json'",
            "module Rack",
            "#include <stdio.h>",
        ] {
            assert!(MARGIN.is_match(line), "{line}");
        }
        for line in ["# Heading", "Some text.", "  def indented(x):"] {
            assert!(!MARGIN.is_match(line), "{line}");
        }
    }
}
