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

use std::collections::HashSet;

use crate::error_lines::is_error_line;
use crate::index::LineIndex;

mod compiled;
mod mark;
mod rules;

use compiled::{
    COMPILED, FAILED_RX, LISTED_NAME_RX, LISTED_RX, SEPARATOR_RX, START_BITS, SUMMARY_BITS,
    WARNING_BITS,
};
use mark::{extent, mark_block};
use rules::{CHAINED, FIRST_KEYS, FIRST_WHERE, Kind, NAME_ABOVE, RULES};

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

impl LineClass {
    /// A line outside any block, worth no more than the rest.
    const REST: LineClass = LineClass {
        rank: Rank::Rest,
        in_block: false,
        nth: 0,
        first: false,
        last: false,
        middle: false,
        listed: false,
    };

    /// A line of a closing list that names one failed test.
    const LISTED: LineClass = LineClass {
        rank: Rank::Summary,
        in_block: false,
        nth: 1,
        first: false,
        last: false,
        middle: false,
        listed: true,
    };

    /// A line of a recognised block.
    fn of_block(rank: Rank, nth: u16, first: bool) -> LineClass {
        LineClass {
            rank,
            in_block: true,
            nth,
            first,
            last: false,
            middle: false,
            listed: false,
        }
    }
}

/// Classify the lines of `idx` (placeholders stay `Rest`, outside blocks).
pub fn classify(idx: &LineIndex<'_>) -> Vec<LineClass> {
    let mut cl = Classifier {
        idx,
        // which lines hold the literals of a block start, a summary, a warning
        masks: COMPILED.lines.masks(idx),
        out: vec![LineClass::REST; idx.len()],
        context: 0,
        in_list: false,
        seen_failure: false,
        names_seen: HashSet::new(),
        prev: None,
        ends: Ends::default(),
    };
    let mut i = 0;
    while i < idx.len() {
        if let Some(r) = cl.start_of(i) {
            i = cl.block(i, r);
            continue;
        }
        cl.plain_line(i);
        i += 1;
    }
    cl.close();
    cl.finish()
}

/// The state of one classification, read line by line.
struct Classifier<'c, 'a> {
    idx: &'c LineIndex<'a>,
    masks: Vec<u64>,
    out: Vec<LineClass>,
    /// Lines after an error line still to be ranked as its context.
    context: usize,
    /// Right after cargo's closing `failures:` line (its names follow).
    in_list: bool,
    seen_failure: bool,
    names_seen: HashSet<&'a str>,
    /// The failure block before: where it ended, whether it was the first,
    /// and its key and where lines so far (a block right after it, with only
    /// blank lines between, goes on with it: cargo's `---- name stdout ----`,
    /// then the panic).
    /// (A chain of failure blocks taken as the first failure is the first
    /// only if it has a message, not just a name: mocha lists `  1) name` as
    /// the test runs, before the failures.)
    prev: Option<Chain>,
    /// (The last chain with a message is the last failure, marked when the
    /// whole output has been read: the last failed test, or in output
    /// without one the last compiler error with more than its headline, not
    /// a closing `error: test failed` line.)
    ends: Ends,
}

impl Classifier<'_, '_> {
    /// The rule whose block starts at line `i`, if any.
    fn start_of(&self, i: usize) -> Option<usize> {
        if self.idx.blocked(i) {
            return None;
        }
        COMPILED
            .lines
            .first_of(self.idx.line(i), self.masks[i] & START_BITS)
    }

    /// Close the chain of failure blocks before.
    fn close(&mut self) {
        let Some(p) = self.prev.take() else { return };
        let named_only = !p.diagnostic && p.counts[0] < 2;
        if !named_only {
            if !p.diagnostic {
                self.ends.failures.push((p.start, p.end));
            } else if p.end - p.start > 1 {
                self.ends.diagnostic = Some((p.start, p.end));
            }
        }
        // a name alone (a runner's progress line, `  1) name` as it runs,
        // named again in its failure block) ranks with the failures' other
        // key lines
        if named_only {
            self.out[p.start..p.end]
                .iter_mut()
                .filter(|c| c.rank == Rank::FailureKey)
                .for_each(|c| c.nth = c.nth.max(2));
        }
        if p.first {
            if named_only {
                self.out[p.start..p.end]
                    .iter_mut()
                    .for_each(|c| c.first = false);
            } else {
                self.seen_failure = true;
            }
        }
    }

    /// Rank the block rule `r` starts at line `i`; the line after it.
    fn block(&mut self, i: usize, r: usize) -> usize {
        let idx = self.idx;
        let end = extent(idx, i, r, &|j| self.start_of(j));
        // a failure named again in a closing list (nextest's summary lists
        // each `FAIL [ 0.140s] name` line once more): a summary line
        let name = idx.line(i).trim();
        if end == i + 1 && !self.names_seen.insert(name) {
            self.out[i] = LineClass::LISTED;
            return i + 1;
        }
        let failure = RULES[r].kind == Kind::Failure;
        // (a block of the same rule is the next failure, not more of this
        // one; so is a third block: cargo's next `---- name stdout ----`
        // after a name and its panic)
        // (and a traceback chained to the one of a runner's failure block:
        // unittest's `FAIL: name`, its traceback, `During handling of the
        // above exception, ...` and the traceback of the assertion)
        let between = |ok: &dyn Fn(&str) -> bool| {
            self.prev
                .is_some_and(|p| (p.end..i).all(|k| !idx.blocked(k) && ok(idx.line(k))))
        };
        let blank = between(&|l: &str| l.trim().is_empty());
        let chained = !blank && between(&joins);
        let goes_on = self.prev.filter(|p| {
            failure && (p.rule != r && p.blocks == 1 && blank || p.head_rule != r && chained)
        });
        let mut chain = match goes_on {
            Some(p) => p,
            None => {
                self.close();
                Chain {
                    start: i,
                    end,
                    first: (failure || RULES[r].kind == Kind::Error) && !self.seen_failure,
                    counts: [0, 0, 0],
                    rule: r,
                    head_rule: r,
                    blocks: 0,
                    diagnostic: RULES[r].kind == Kind::Error,
                }
            }
        };
        let first = chain.first;
        mark_block(
            idx,
            &mut self.out,
            (i, end),
            &RULES[r],
            first,
            &mut chain.counts,
        );
        // the exception a chained traceback ends with is what was raised
        // last (`AssertionError: ...` after the `ValueError` it handled):
        // the failure's first message line, before the one it handled
        if chained
            && let Some(p) = goes_on
            && self.out[end - 1].rank == Rank::FailureKey
        {
            for c in &mut self.out[p.start..i] {
                if c.rank == Rank::FailureKey && c.nth == 1 {
                    c.nth = 2;
                }
            }
            self.out[end - 1].nth = 1;
        }
        chain.end = end;
        chain.rule = r;
        chain.blocks += 1;
        self.prev = (failure || RULES[r].kind == Kind::Error).then_some(chain);
        self.name_above(i, r, first);
        self.context = 0;
        end
    }

    /// The line above the block rule `r` starts at line `i` that names the
    /// test, when the runner prints it first.
    fn name_above(&mut self, i: usize, r: usize, first: bool) {
        let idx = self.idx;
        if let Some(m) = &COMPILED.rule(r).name_before
            && let Some(k) = (i.saturating_sub(NAME_ABOVE)..i)
                .rev()
                .find(|&k| !idx.blocked(k) && m.is_match(idx.line(k)))
        {
            self.out[k] = LineClass::of_block(Rank::FailureKey, 0, first);
        }
    }

    /// Rank line `i`, outside any block.
    fn plain_line(&mut self, i: usize) {
        let idx = self.idx;
        if idx.blocked(i) {
            self.context = 0;
            return;
        }
        let line = idx.line(i);
        // a closing list naming the failed tests, one a line
        let listed = LISTED_RX.is_match(line) || self.in_list && LISTED_NAME_RX.is_match(line);
        self.in_list = line.trim_end() == "failures:" || self.in_list && listed;
        if listed {
            // with the heading it is under (cargo's `failures:`, pytest's
            // `=== short test summary info ===`)
            let out = &mut self.out;
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
            out[i] = LineClass::LISTED;
            return;
        }
        let error = is_error_line(line);
        let lines = &COMPILED.lines;
        // a summary line is a summary even when it holds an error word
        // (`test result: FAILED. 866 passed; 9 failed`): it says how the
        // run ended; the lines after it are still an error's context
        let rank = if lines.matches(line, self.masks[i] & SUMMARY_BITS) {
            self.context = if error {
                crate::error_lines::ERROR_CONTEXT
            } else {
                self.context.saturating_sub(1)
            };
            Rank::Summary
        } else if error {
            self.context = crate::error_lines::ERROR_CONTEXT;
            Rank::Error
        } else if self.context > 0 {
            self.context -= 1;
            Rank::ErrorContext
        } else if lines.matches(line, self.masks[i] & WARNING_BITS) {
            Rank::Warning
        } else {
            Rank::Rest
        };
        self.out[i].rank = rank;
        if rank == Rank::Summary && !FAILED_RX.is_match(line) {
            self.out[i].nth = 1;
        }
    }

    /// Mark the last failure, the failures between the first and the last,
    /// and the last line.
    fn finish(self) -> Vec<LineClass> {
        let (idx, ends, mut out) = (self.idx, self.ends, self.out);
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
        if let Some(last) = (0..idx.len())
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
