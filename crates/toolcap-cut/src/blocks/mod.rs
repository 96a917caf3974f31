//! What each line of command output is worth, for the `head_tail` cut: the
//! failure blocks of common test runners and the diagnostics of compilers,
//! recognised by one table of block rules ([`RULES`]), and the error, warning
//! and summary lines outside them.
//!
//! A block rule names a runner family, the kind of block (a test failure, a
//! compiler error or warning), the line that starts a block, and how the block
//! goes on: every line until a stop line (`Until`), or the lines indented
//! deeper than the start line, with blank lines between them (`Indented`). A
//! block also ends where another block starts, and after `max_lines` lines.
//! Inside a failure block the *key* lines (the start line with the test's name,
//! error lines, assertion messages and their values, locations, the first
//! stack frame in the user's code) come before the other lines; stack frames in
//! library code count as ordinary lines. The first failure's key lines and
//! its location rank first; the last failure (or, without a failed test, the
//! last compiler error) is marked [`LineClass::last`], for the cut to keep as
//! one unit with the end of the output.
//!
//! The table is data: adding a runner is adding a row (and a fixture). The
//! patterns are compiled once; a line is matched against all start patterns at
//! once (one literal search finds which rules' starts a line may match). The cut classifies only the lines the scan kept (on a
//! bounded scan: the head, the tail and error lines with the lines after them),
//! so the cost does not grow with the size of a streamed result.

use crate::error_lines::is_error_line;
use crate::index::LineIndex;

mod compiled;
mod rules;

use compiled::{
    COMPILED, FAILED_RX, INNER, LISTED_NAME_RX, LISTED_RX, SEPARATOR_RX, START_BITS, SUMMARY_BITS,
    WARNING_BITS,
};
use rules::{BlockRule, Body, CHAINED, FIRST_KEYS, FIRST_WHERE, Kind, NAME_ABOVE, RULES};

/// How much a line is worth keeping: the lower, the sooner it is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rank {
    /// The last line with text: how the run ended.
    Last = 0,
    /// A failure block's key line: the test's name, the message and its values.
    FailureKey = 1,
    /// A runner's or build's summary line.
    Summary = 2,
    /// Where a failure happened: the failing source line, its location, the
    /// first stack frame in the user's code.
    FailureWhere = 3,
    /// An error line, or a line of a compiler's error diagnostic.
    Error = 4,
    /// One of the lines right after an error line.
    ErrorContext = 5,
    /// A warning line or a line of a warning diagnostic.
    Warning = 6,
    /// Another line of a failure block (source excerpts, notes).
    Failure = 7,
    /// The first lines (set by the cut, within its head share).
    Head = 8,
    /// Everything else (progress, library stack frames, separators).
    Rest = 9,
}

/// What the classification found for a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineClass {
    /// How much the line is worth keeping.
    pub rank: Rank,
    /// Inside a recognised block (never collapsed with its neighbours).
    pub in_block: bool,
    /// For a failure's key or where line: how many lines of the same rank
    /// come before it in its block (the name is 0, its first message line
    /// usually 1), so that every failure gets its first lines before any gets
    /// more.
    pub nth: u16,
    /// In the first failure block of the output (kept whole before the others
    /// get more than their names and first message lines).
    pub first: bool,
    /// In the last failure block or compiler error of the output (what a
    /// reader of the end of a log is after: it ranks with the first).
    pub last: bool,
    /// In a failure block between the first and the last of more than
    /// [`MANY_FAILURES`]: its name ranks after the last one's key lines.
    pub middle: bool,
    /// A line of a closing list that names one failed test (pytest's short
    /// summary `FAILED tests/test_x.py::test_y - AssertionError: ...`, the
    /// names under cargo's last `failures:`): a summary line, never collapsed
    /// with its neighbours (each names another test).
    pub listed: bool,
}

impl LineClass {
    /// The order in which the cut fills its budget: lower first. The last
    /// line; the first failure's name, first [`FIRST_KEYS`] key lines and
    /// where it failed, and the summary lines that count failures; every other
    /// failure's name; every failure's first message line; the last failure's
    /// other first key lines and where it failed; with many failures, the
    /// names and first message lines of those between the first and the last;
    /// the other summary lines; the failures' other key lines (breadth first),
    /// where they happened, and the other ranks in their order.
    pub fn tier(self) -> (u8, u16) {
        let firsts = |n: u16| usize::from(n) < FIRST_KEYS;
        match (self.rank, self.nth) {
            (Rank::Last, _) => (0, 0),
            (Rank::FailureKey, n) if self.first && firsts(n) => (1, 0),
            // where the first failure happened ranks with its message
            (Rank::FailureWhere, n) if self.first && n < FIRST_WHERE => (1, 0),
            (Rank::Summary, 0) => (1, 0),
            (Rank::FailureKey, 0 | 1) if self.middle => MIDDLE_NAMES,
            (Rank::FailureKey, 0) => (1, 1),
            (Rank::FailureKey, 1) => (2, 0),
            (Rank::FailureKey, n) if self.last && firsts(n) => LAST_KEYS,
            (Rank::FailureWhere, n) if self.last && n < FIRST_WHERE => LAST_KEYS,
            (Rank::Summary, _) => (3, 0),
            (Rank::FailureKey, n) => (4, n),
            (Rank::FailureWhere, n) => (5, n),
            // a diagnostic's headline, then its location, then the rest of it
            (Rank::Error | Rank::Warning, n) => (6 + self.rank as u8, n.min(2)),
            (r, _) => (6 + r as u8, 0),
        }
    }
}

/// The fill order of the last failure's first key lines (see
/// [`LineClass::tier`]).
pub const LAST_KEYS: (u8, u16) = (2, 1);

/// The fill order of the names and first message lines of the failures
/// between the first and the last, when there are many.
const MIDDLE_NAMES: (u8, u16) = (2, 2);

/// More failures than this: the names of those between the first and the
/// last rank after the last one's key lines.
pub const MANY_FAILURES: usize = 5;

/// The failure blocks (chains) with a message, in order, and the last
/// compiler error with more than its headline.
#[derive(Debug, Default)]
struct Ends {
    failures: Vec<(usize, usize)>,
    diagnostic: Option<(usize, usize)>,
}

/// Failure blocks that follow each other with only blank lines between.
#[derive(Debug, Clone, Copy)]
struct Chain {
    start: usize,
    end: usize,
    first: bool,
    /// Key and where lines so far, and of the key lines those that did not
    /// advance the failure's `nth` (a name said again, values of a message).
    counts: [u16; 3],
    /// The rule of its last block, and of its first.
    rule: usize,
    head_rule: usize,
    /// How many blocks it has.
    blocks: u8,
    /// A compiler's error diagnostic (first whole, whatever it holds).
    diagnostic: bool,
}

/// Whether a line between two blocks may leave them one failure: a blank
/// line, or Python's line between chained tracebacks.
fn joins(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || CHAINED.contains(&t)
}

/// Leading spaces and tabs.
fn indent(s: &str) -> usize {
    s.bytes().take_while(|&b| b == b' ' || b == b'\t').count()
}

/// Classify the lines of `idx` (placeholders stay `Rest`, outside blocks).
pub fn classify(idx: &LineIndex<'_>) -> Vec<LineClass> {
    let c = &*COMPILED;
    let n = idx.len();
    let mut out = vec![
        LineClass {
            rank: Rank::Rest,
            in_block: false,
            nth: 0,
            first: false,
            last: false,
            middle: false,
            listed: false,
        };
        n
    ];
    // which lines hold the literals of a block start, a summary, a warning
    let masks = c.lines.masks(idx);
    let start_of = |i: usize| -> Option<usize> {
        if idx.blocked(i) {
            return None;
        }
        c.lines.first_of(idx.line(i), masks[i] & START_BITS)
    };
    let mut i = 0;
    let mut context = 0usize;
    // right after cargo's closing `failures:` line (its names follow)
    let mut in_list = false;
    let mut seen_failure = false;
    let mut names_seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    // the failure block before: where it ended, whether it was the first, and
    // its key and where lines so far (a block right after it, with only blank
    // lines between, goes on with it: cargo's `---- name stdout ----`, then
    // the panic)
    let mut prev: Option<Chain> = None;
    // a chain of failure blocks taken as the first failure is the first only
    // if it has a message, not just a name (mocha lists `  1) name` as the
    // test runs, before the failures)
    // (and the last chain with a message is the last failure, marked when the
    // whole output has been read: the last failed test, or in output without
    // one the last compiler error with more than its headline, not a closing
    // `error: test failed` line)
    let mut ends = Ends::default();
    let close = |p: Option<Chain>, out: &mut [LineClass], seen: &mut bool, ends: &mut Ends| {
        let Some(p) = p else { return };
        let named_only = !p.diagnostic && p.counts[0] < 2;
        if !named_only {
            if !p.diagnostic {
                ends.failures.push((p.start, p.end));
            } else if p.end - p.start > 1 {
                ends.diagnostic = Some((p.start, p.end));
            }
        }
        // a name alone (a runner's progress line, `  1) name` as it runs,
        // named again in its failure block) ranks with the failures' other
        // key lines
        if named_only {
            out[p.start..p.end]
                .iter_mut()
                .filter(|c| c.rank == Rank::FailureKey)
                .for_each(|c| c.nth = c.nth.max(2));
        }
        if p.first {
            if named_only {
                out[p.start..p.end].iter_mut().for_each(|c| c.first = false);
            } else {
                *seen = true;
            }
        }
    };
    while i < n {
        if let Some(r) = start_of(i) {
            let end = extent(idx, i, r, &start_of);
            // a failure named again in a closing list (nextest's summary lists
            // each `FAIL [ 0.140s] name` line once more): a summary line
            let name = idx.line(i).trim();
            if end == i + 1 && !names_seen.insert(name) {
                out[i] = LineClass {
                    rank: Rank::Summary,
                    in_block: false,
                    nth: 1,
                    first: false,
                    last: false,
                    middle: false,
                    listed: true,
                };
                i += 1;
                continue;
            }
            let failure = RULES[r].kind == Kind::Failure;
            // (a block of the same rule is the next failure, not more of this
            // one; so is a third block: cargo's next `---- name stdout ----`
            // after a name and its panic)
            // (and a traceback chained to the one of a runner's failure block:
            // unittest's `FAIL: name`, its traceback, `During handling of the
            // above exception, ...` and the traceback of the assertion)
            let between = |ok: &dyn Fn(&str) -> bool| {
                prev.is_some_and(|p| (p.end..i).all(|k| !idx.blocked(k) && ok(idx.line(k))))
            };
            let blank = between(&|l: &str| l.trim().is_empty());
            let chained = !blank && between(&joins);
            let goes_on = prev.filter(|p| {
                failure && (p.rule != r && p.blocks == 1 && blank || p.head_rule != r && chained)
            });
            let mut chain = match goes_on {
                Some(p) => p,
                None => {
                    close(prev.take(), &mut out, &mut seen_failure, &mut ends);
                    Chain {
                        start: i,
                        end,
                        first: (failure || RULES[r].kind == Kind::Error) && !seen_failure,
                        counts: [0, 0, 0],
                        rule: r,
                        head_rule: r,
                        blocks: 0,
                        diagnostic: RULES[r].kind == Kind::Error,
                    }
                }
            };
            let first = chain.first;
            mark_block(idx, &mut out, (i, end), &RULES[r], first, &mut chain.counts);
            // the exception a chained traceback ends with is what was raised
            // last (`AssertionError: ...` after the `ValueError` it handled):
            // the failure's first message line, before the one it handled
            if chained
                && let Some(p) = goes_on
                && out[end - 1].rank == Rank::FailureKey
            {
                for c in &mut out[p.start..i] {
                    if c.rank == Rank::FailureKey && c.nth == 1 {
                        c.nth = 2;
                    }
                }
                out[end - 1].nth = 1;
            }
            chain.end = end;
            chain.rule = r;
            chain.blocks += 1;
            prev = (failure || RULES[r].kind == Kind::Error).then_some(chain);
            // the line above that names the test, when the runner prints it first
            if let Some(m) = &c.rule(r).name_before
                && let Some(k) = (i.saturating_sub(NAME_ABOVE)..i)
                    .rev()
                    .find(|&k| !idx.blocked(k) && m.is_match(idx.line(k)))
            {
                out[k] = LineClass {
                    rank: Rank::FailureKey,
                    in_block: true,
                    nth: 0,
                    first,
                    last: false,
                    middle: false,
                    listed: false,
                };
            }
            context = 0;
            i = end;
            continue;
        }
        if !idx.blocked(i) {
            let line = idx.line(i);
            // a closing list naming the failed tests, one a line
            let listed = LISTED_RX.is_match(line) || in_list && LISTED_NAME_RX.is_match(line);
            in_list = line.trim_end() == "failures:" || in_list && listed;
            if listed {
                // with the heading it is under (cargo's `failures:`, pytest's
                // `=== short test summary info ===`)
                if let Some(h) = i.checked_sub(1)
                    && !idx.blocked(h)
                    && !out[h].listed
                    && !out[h].in_block
                    && (idx.line(h).trim_end() == "failures:"
                        || idx.line(h).contains(" short test summary info "))
                {
                    out[h].rank = Rank::Summary;
                    out[h].nth = 1;
                    out[h].listed = true;
                }
                out[i] = LineClass {
                    rank: Rank::Summary,
                    in_block: false,
                    nth: 1,
                    first: false,
                    last: false,
                    middle: false,
                    listed: true,
                };
                i += 1;
                continue;
            }
            let error = is_error_line(line);
            // a summary line is a summary even when it holds an error word
            // (`test result: FAILED. 866 passed; 9 failed`): it says how the
            // run ended; the lines after it are still an error's context
            let rank = if c.lines.matches(line, masks[i] & SUMMARY_BITS) {
                context = if error {
                    crate::error_lines::ERROR_CONTEXT
                } else {
                    context.saturating_sub(1)
                };
                Rank::Summary
            } else if error {
                context = crate::error_lines::ERROR_CONTEXT;
                Rank::Error
            } else if context > 0 {
                context -= 1;
                Rank::ErrorContext
            } else if c.lines.matches(line, masks[i] & WARNING_BITS) {
                Rank::Warning
            } else {
                Rank::Rest
            };
            out[i].rank = rank;
            if rank == Rank::Summary && !FAILED_RX.is_match(line) {
                out[i].nth = 1;
            }
        } else {
            context = 0;
        }
        i += 1;
    }
    close(prev.take(), &mut out, &mut seen_failure, &mut ends);
    if let Some(&(s, e)) = ends.failures.last().or(ends.diagnostic.as_ref()) {
        out[s..e].iter_mut().for_each(|c| c.last = true);
    }
    // with many failures, the first and the last come before the names of
    // those between them (each then ranks with its first message line)
    if let [_, between @ .., _] = &ends.failures[..]
        && ends.failures.len() > MANY_FAILURES
    {
        for &(s, e) in between {
            out[s..e].iter_mut().for_each(|c| c.middle = true);
        }
    }
    // the last line with text says how the command ended
    if let Some(last) = (0..n)
        .rev()
        .find(|&i| !idx.blocked(i) && !idx.line(i).trim().is_empty())
    {
        out[last].rank = Rank::Last;
        // and the line it finishes (`error: 1 target failed:` before
        // `` `--test test_buf` ``)
        if let Some(k) = last.checked_sub(1)
            && !idx.blocked(k)
            && idx.line(k).trim_end().ends_with(':')
        {
            out[k].rank = Rank::Last;
        }
    }
    out
}

/// Where the block that rule `r` starts at line `s` ends (exclusive).
fn extent(
    idx: &LineIndex<'_>,
    s: usize,
    r: usize,
    start_of: &dyn Fn(usize) -> Option<usize>,
) -> usize {
    let rx = COMPILED.rule(r);
    let rule = &RULES[r];
    let n = idx.len();
    let limit = (s + rule.max_lines).min(n);
    let base = indent(idx.line(s));
    let goes_on = |j: usize| -> bool {
        let l = idx.line(j);
        indent(l) > base && !l.trim().is_empty() && rx.cont.as_ref().is_none_or(|m| m.is_match(l))
            || rx.more.as_ref().is_some_and(|m| m.is_match(l))
    };
    let mut j = s + 1;
    let mut end = j;
    while j < limit {
        if idx.blocked(j) {
            break;
        }
        let l = idx.line(j);
        if rx.stop.as_ref().is_some_and(|m| m.is_match(l)) {
            break;
        }
        let blank = l.trim().is_empty();
        if !blank && start_of(j).is_some() && indent(l) <= base {
            break;
        }
        match rule.body {
            Body::Until => {
                j += 1;
                if !blank {
                    end = j;
                }
            }
            Body::Indented | Body::IndentedThenLast => {
                if blank {
                    j += 1;
                    continue;
                }
                if goes_on(j) {
                    j += 1;
                    end = j;
                    continue;
                }
                if rule.body == Body::IndentedThenLast {
                    end = j + 1;
                }
                break;
            }
        }
    }
    end.min(limit).max(s + 1)
}

/// Rank the lines `s..e` of a block of `kind`.
fn mark_block(
    idx: &LineIndex<'_>,
    out: &mut [LineClass],
    (s, e): (usize, usize),
    rule: &BlockRule,
    first: bool,
    counts: &mut [u16; 3],
) {
    let c = &*INNER;
    let mut user_frame_seen = false;
    // (counts: key and where lines so far in this block; a key line that
    // does not advance the failure's nth counts in counts[2] too)
    fn next_nth(counts: &mut [u16; 3], rank: Rank) -> u16 {
        let k = match rank {
            Rank::FailureKey => 0,
            Rank::FailureWhere => 1,
            _ => return 0,
        };
        counts[k] = counts[k].saturating_add(1);
        let same = if k == 0 { counts[2] } else { 0 };
        counts[k].saturating_sub(1 + same)
    }
    let mut j = s;
    while j < e {
        let line = idx.line(j);
        let rank = match rule.kind {
            Kind::Error | Kind::Warning => {
                let rank = if rule.kind == Kind::Error {
                    Rank::Error
                } else {
                    Rank::Warning
                };
                // headline first, then where, then the excerpt (the first
                // error shown whole before the others' headlines)
                // (a diagnostic that ends with its message, Python's
                // `SyntaxError: ...` under its `File "x.py", line 3`
                // location, which holds no error word: a headline too)
                let n = if j == s
                    || first
                    || j + 1 == e && is_error_line(line) && !is_error_line(idx.line(s))
                {
                    0
                } else if c.place.is_match(line) {
                    1
                } else {
                    2
                };
                out[j] = LineClass {
                    rank,
                    in_block: true,
                    nth: n,
                    first,
                    last: false,
                    middle: false,
                    listed: false,
                };
                j += 1;
                continue;
            }
            Kind::Failure => {
                if j == s {
                    if rule.names {
                        Rank::FailureKey
                    } else {
                        Rank::Failure
                    }
                } else if j + 1 == e && is_error_line(line) {
                    Rank::FailureKey
                } else if c.frame.is_match(line) {
                    // a frame and the line that goes with it (Rust's `at path`,
                    // Python's source line): the first in the user's code is key
                    let next = (j + 1 < e).then(|| idx.line(j + 1));
                    let companion = next.filter(|l| {
                        let t = l.trim_start();
                        t.starts_with("at ") && !line.trim_start().starts_with("at ")
                            || indent(l) > indent(line) && !c.frame.is_match(l)
                    });
                    let lib = c.library.is_match(line)
                        || companion.is_some_and(|l| c.library.is_match(l));
                    let rank = if !lib && !user_frame_seen {
                        user_frame_seen = true;
                        Rank::FailureWhere
                    } else {
                        Rank::Rest
                    };
                    let n = next_nth(counts, rank);
                    let upto = j + 1 + usize::from(companion.is_some());
                    for c in &mut out[j..upto] {
                        *c = LineClass {
                            rank,
                            in_block: true,
                            nth: n,
                            first,
                            last: false,
                            middle: false,
                            listed: false,
                        };
                    }
                    j += 1 + usize::from(companion.is_some());
                    continue;
                } else if is_separator(line) || line.trim().is_empty() {
                    Rank::Rest
                } else if c.key.is_match(line)
                    || is_error_line(line) && indent(line) < 4 && !c.local.is_match(line)
                {
                    // (an error word deeper in is mostly in quoted source code,
                    // and in a local variable's value that pytest shows,
                    // `popenargs = ([..., 'cannot open ...'],)`, it is data)
                    Rank::FailureKey
                } else if c.place.is_match(line) {
                    Rank::FailureWhere
                } else {
                    Rank::Failure
                }
            }
        };
        // a key line that says again what an earlier one of the failure said
        // ranks with it: the test's name (cargo's panic line under its
        // `---- name stdout ----`), the values under a message
        // (`left:`/`right:`, `Expected:`/`Received:`)
        let again = rank == Rank::FailureKey
            && rule.kind == Kind::Failure
            && if j == s {
                counts[0] > 0
            } else {
                out[j - 1].rank == Rank::FailureKey && c.values.is_match(line)
            };
        let nth = if again {
            counts[0] = counts[0].saturating_add(1);
            counts[2] = counts[2].saturating_add(1);
            if j == s {
                // the line that named it first is then only a heading: the
                // panic line names the test and where it failed
                if let Some(h) = (0..s).rev().find(|&k| !idx.line(k).trim().is_empty())
                    && out[h].rank == Rank::FailureKey
                    && out[h].nth == 0
                {
                    out[h].rank = Rank::Failure;
                }
                0
            } else {
                out[j - 1].nth
            }
        } else {
            next_nth(counts, rank)
        };
        out[j] = LineClass {
            rank,
            in_block: true,
            nth,
            first,
            last: false,
            middle: false,
            listed: false,
        };
        j += 1;
    }
}

/// Whether a line is a row of separator characters.
pub fn is_separator(line: &str) -> bool {
    // (most lines start with something else: no regex for them)
    let t = line.trim_start();
    t.len() >= 8
        && t.starts_with(['=', '-', '_', '~', '*', '#', '⎯', '─', '━'])
        && SEPARATOR_RX.is_match(line)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod debug_dump {
    #[test]
    #[ignore]
    fn dump() {
        let p = std::env::var("DUMP").unwrap_or_default();
        let t = std::fs::read_to_string(p).unwrap_or_default();
        let idx = super::LineIndex::new(&t);
        for (i, c) in super::classify(&idx).iter().enumerate() {
            let l = idx.line(i);
            println!(
                "{:4} {:?}{}{}{} {:?} {}",
                i + 1,
                c.rank,
                if c.in_block { "*" } else { "" },
                if c.first { "F" } else { "" },
                if c.last { "L" } else { "" },
                c.tier(),
                l.chars().take(90).collect::<String>()
            );
        }
    }
}
