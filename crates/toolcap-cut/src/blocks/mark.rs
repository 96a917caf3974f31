//! One block: where it ends ([`extent`]) and how its lines rank
//! ([`mark_block`]).

use super::compiled::{COMPILED, INNER};
use super::rules::{BlockRule, Body, Kind, RULES};
use super::{LineClass, Rank, is_separator};
use crate::error_lines::is_error_line;
use crate::index::LineIndex;

/// Leading spaces and tabs.
fn indent(s: &str) -> usize {
    s.bytes().take_while(|&b| b == b' ' || b == b'\t').count()
}

/// Where the block that rule `r` starts at line `s` ends (exclusive).
pub(super) fn extent(
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

/// Rank the lines `s..e` of a block of `rule`; `counts` are the key and where
/// lines of the failure so far (see [`next_nth`]).
pub(super) fn mark_block(
    idx: &LineIndex<'_>,
    out: &mut [LineClass],
    (s, e): (usize, usize),
    rule: &BlockRule,
    first: bool,
    counts: &mut [u16; 3],
) {
    let mut block = Block {
        idx,
        out,
        s,
        e,
        rule,
        first,
        counts,
        user_frame_seen: false,
    };
    let mut j = s;
    while j < e {
        j = match rule.kind {
            Kind::Error | Kind::Warning => block.diagnostic(j),
            Kind::Failure => match block.failure_rank(j) {
                Some(rank) => block.failure_line(j, rank),
                None => block.frame(j),
            },
        };
    }
}

/// The nth of the next key or where line of a failure (counts: key and where
/// lines so far; a key line that does not advance the failure's nth counts in
/// `counts[2]` too).
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

/// The lines `s..e` of one block being ranked.
struct Block<'b, 'a> {
    idx: &'b LineIndex<'a>,
    out: &'b mut [LineClass],
    s: usize,
    e: usize,
    rule: &'b BlockRule,
    first: bool,
    counts: &'b mut [u16; 3],
    /// A stack frame in the user's code was seen (the first is key).
    user_frame_seen: bool,
}

impl Block<'_, '_> {
    /// Rank line `j` of a compiler's diagnostic; the next line.
    fn diagnostic(&mut self, j: usize) -> usize {
        let (s, e, idx) = (self.s, self.e, self.idx);
        let line = idx.line(j);
        let rank = if self.rule.kind == Kind::Error {
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
            || self.first
            || j + 1 == e && is_error_line(line) && !is_error_line(idx.line(s))
        {
            0
        } else if INNER.place.is_match(line) {
            1
        } else {
            2
        };
        self.out[j] = LineClass::of_block(rank, n, self.first);
        j + 1
    }

    /// The rank of line `j` of a failure block, `None` for a stack frame
    /// (ranked with the line that goes with it by [`Block::frame`]).
    fn failure_rank(&self, j: usize) -> Option<Rank> {
        let c = &*INNER;
        let line = self.idx.line(j);
        Some(if j == self.s {
            if self.rule.names {
                Rank::FailureKey
            } else {
                Rank::Failure
            }
        } else if j + 1 == self.e && is_error_line(line) {
            Rank::FailureKey
        } else if c.frame.is_match(line) {
            return None;
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
        })
    }

    /// Rank the stack frame at line `j` and the line that goes with it
    /// (Rust's `at path`, Python's source line): the first in the user's
    /// code is key. The next line.
    fn frame(&mut self, j: usize) -> usize {
        let c = &*INNER;
        let (idx, e) = (self.idx, self.e);
        let line = idx.line(j);
        let next = (j + 1 < e).then(|| idx.line(j + 1));
        let companion = next.filter(|l| {
            let t = l.trim_start();
            t.starts_with("at ") && !line.trim_start().starts_with("at ")
                || indent(l) > indent(line) && !c.frame.is_match(l)
        });
        let lib = c.library.is_match(line) || companion.is_some_and(|l| c.library.is_match(l));
        let rank = if !lib && !self.user_frame_seen {
            self.user_frame_seen = true;
            Rank::FailureWhere
        } else {
            Rank::Rest
        };
        let n = next_nth(self.counts, rank);
        let upto = j + 1 + usize::from(companion.is_some());
        for c in &mut self.out[j..upto] {
            *c = LineClass::of_block(rank, n, self.first);
        }
        j + 1 + usize::from(companion.is_some())
    }

    /// Mark line `j` of a failure block with `rank`; the next line.
    fn failure_line(&mut self, j: usize, rank: Rank) -> usize {
        let (s, idx) = (self.s, self.idx);
        let line = idx.line(j);
        // a key line that says again what an earlier one of the failure said
        // ranks with it: the test's name (cargo's panic line under its
        // `---- name stdout ----`), the values under a message
        // (`left:`/`right:`, `Expected:`/`Received:`)
        let again = rank == Rank::FailureKey
            && self.rule.kind == Kind::Failure
            && if j == s {
                self.counts[0] > 0
            } else {
                self.out[j - 1].rank == Rank::FailureKey && INNER.values.is_match(line)
            };
        let nth = if again {
            self.counts[0] = self.counts[0].saturating_add(1);
            self.counts[2] = self.counts[2].saturating_add(1);
            if j == s {
                // the line that named it first is then only a heading: the
                // panic line names the test and where it failed
                if let Some(h) = (0..s).rev().find(|&k| !idx.line(k).trim().is_empty())
                    && self.out[h].rank == Rank::FailureKey
                    && self.out[h].nth == 0
                {
                    self.out[h].rank = Rank::Failure;
                }
                0
            } else {
                self.out[j - 1].nth
            }
        } else {
            next_nth(self.counts, rank)
        };
        self.out[j] = LineClass::of_block(rank, nth, self.first);
        j + 1
    }
}
