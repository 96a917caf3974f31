//! Where to cut: head / tail / head_tail, on line and character boundaries, and the
//! marker that says exactly what was omitted.
//!
//! A cut is a list of kept byte ranges over the original text. Every range starts
//! and ends on a line boundary, except one cut of a single line longer than the
//! budget, which lands on a character boundary. Everything printed about the
//! omitted parts (chars, lines, line ranges) is computed from those ranges.

use super::blocks::{self, LineClass, Rank};
use super::collapse::{self, Run};
use super::index::LineIndex;
use crate::config::Shape;
use crate::measure::Measure;
use crate::render::marker::{self, Omission, Part};
use crate::text::count_chars;

mod head_tail;

pub use head_tail::MAX_GAPS;
use head_tail::head_tail;

/// A kept byte range. `numbered` ranges (error lines from an omitted middle) are
/// shown with their line numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    /// Its first byte.
    pub start: usize,
    /// Right after its last byte.
    pub end: usize,
    /// Shown with its line numbers.
    pub numbered: bool,
}

/// A kept part, described for the report.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KeptSpan {
    /// The first line kept (1-based, in the original).
    pub start_line: usize,
    /// The last line kept (inclusive).
    pub end_line: usize,
    /// Characters of the original kept, counted as the omitted parts are (a
    /// cleaned output's colour codes included): the kept and omitted chars
    /// add up to the original's.
    pub chars: usize,
    /// Part of a line only (a line longer than the budget was cut).
    pub partial: bool,
}

/// An omitted part, described for the marker and the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gap {
    /// Characters omitted.
    pub chars: usize,
    /// Whole lines omitted, 1-based inclusive.
    pub lines: Option<(usize, usize)>,
    /// The gap starts inside a line: (line, chars kept before the cut, chars in the line).
    pub cut_after: Option<(usize, usize, usize)>,
    /// The gap ends inside a line: (line, first shown char (1-based), chars in the line).
    pub resumes_at: Option<(usize, usize, usize)>,
    /// The gap lies inside one line: (line, first omitted char, last omitted char, line chars).
    pub within: Option<(usize, usize, usize, usize)>,
    /// Tokens of the omitted text, when the tool counts in tokens.
    pub tokens: Option<usize>,
    /// Bytes of the cut text this gap covers.
    pub range: (usize, usize),
    /// A run of near-duplicate lines, shown as this line instead of a marker.
    pub collapsed: Option<String>,
}

impl Gap {
    /// What the marker of this omitted part states (`total_lines`: of the
    /// original; `cleaned`: it was cleaned before cutting).
    pub fn omission(&self, total_lines: usize, cleaned: bool) -> Omission {
        Omission {
            chars: self.chars,
            tokens: self.tokens,
            lines: self.lines,
            cut_after: self.cut_after,
            resumes_at: self.resumes_at,
            within: self.within,
            total_lines,
            cleaned,
        }
    }

    /// How many whole lines the part omits.
    pub fn whole_lines(&self) -> usize {
        self.lines.map_or(0, |(a, b)| b + 1 - a)
    }
}

/// The result of cutting: kept ranges in order, over the original text.
#[derive(Debug, Clone)]
pub struct Cut {
    /// The kept ranges, in order.
    pub ranges: Vec<Range>,
    /// Runs of near-duplicate lines shown as one line each (`head_tail`).
    pub collapsed: Vec<Collapsed>,
}

/// One piece of a cut text, in order: a kept range or an omitted gap.
pub enum Piece {
    /// A kept range and its span in the original.
    Kept(Range, KeptSpan),
    /// What was omitted there (before, between or after the kept ranges).
    Omitted(Gap),
}

/// Separate runs of error lines an earlier `head_tail` kept at most; the cut
/// is now bounded by [`MAX_GAPS`] omitted parts (kept as the bound of
/// the property tests).
pub const MAX_ERROR_RANGES: usize = 8;

/// Gaps of at most this many lines with text between kept parts are filled
/// rather than marked, when the budget allows.
const SMALL_GAP_LINES: usize = 2;

/// Cut `idx.text` to at most `budget` units of `m` (characters or tokens), in `shape`.
#[cfg(test)]
pub fn cut(idx: &LineIndex<'_>, shape: Shape, budget: usize, m: &dyn Measure) -> Cut {
    cut_prepared(idx, shape, budget, m, &Prepared::default())
}

/// What a `head_tail` cut learns of a text before it spends a budget: each
/// line's rank and the runs of near-duplicates. Made once per text (the
/// processor cuts at a few budgets while it fits the recovery section).
#[derive(Debug, Default)]
pub struct Prepared {
    cell: std::cell::OnceCell<(Vec<LineClass>, Vec<Run>)>,
    /// The command succeeded (exit code 0): error words outside a failure
    /// block are data (a commit subject, a log message), not how it failed.
    succeeded: bool,
    /// The output is content (a diff, grep results, a listing: see
    /// [`crate::everyday`]), whatever the exit status: no line ranks by
    /// the error words or failure blocks inside it, no run of its lines is
    /// folded into a `*` line (a grep's line numbers, a listing's names stay
    /// as printed), and the head, where such output answers, gets most of the
    /// budget.
    content: bool,
    /// Lines of content (1-based, in the original's numbers, sorted) kept
    /// before its first lines: a grep's first match in each of the files
    /// most likely wanted ([`Prepared::favour`]).
    favoured: Vec<usize>,
}

impl Prepared {
    /// For the output of a command that exited with 0: unless the output
    /// holds a failure summary or failure block, its error-looking lines rank
    /// as ordinary lines, so the head keeps its place.
    pub fn succeeded() -> Prepared {
        Prepared {
            succeeded: true,
            ..Prepared::default()
        }
    }

    /// For everyday output that is content (see the `content` field).
    pub fn content(succeeded: bool) -> Prepared {
        Prepared {
            succeeded,
            content: true,
            ..Prepared::default()
        }
    }

    /// Keep these lines of content (1-based, original numbers) before its
    /// first lines, each with its own marker when it stands alone: the view
    /// names them even when the head cannot reach them.
    pub fn favour(mut self, mut lines: Vec<usize>) -> Prepared {
        lines.sort_unstable();
        self.favoured = lines;
        self
    }

    /// The share of the budget the first lines get: most of it for content,
    /// a fifth otherwise.
    pub(super) fn head_share(&self, budget: usize) -> usize {
        if self.content {
            budget / 10 * 7
        } else {
            budget / 5
        }
    }

    fn get(&self, idx: &LineIndex<'_>) -> &(Vec<LineClass>, Vec<Run>) {
        self.cell.get_or_init(|| {
            let mut classes = blocks::classify(idx);
            if self.content {
                for (k, c) in classes.iter_mut().enumerate() {
                    if c.rank != Rank::Last {
                        c.rank = if self.favoured.binary_search(&idx.orig_line_no(k)).is_ok() {
                            // filled after the last line, before the head
                            Rank::Warning
                        } else {
                            Rank::Rest
                        };
                    }
                    c.in_block = false;
                    c.first = false;
                    c.last = false;
                    c.middle = false;
                    c.nth = 0;
                }
                return (classes, Vec::new());
            }
            // a failure summary or failure block says the output reports a
            // failure (a log of a past run read by `cat`): its errors still rank
            let reports_failure = classes.iter().any(|c| {
                matches!(
                    c.rank,
                    Rank::FailureKey | Rank::FailureWhere | Rank::Summary
                )
            });
            if self.succeeded && !reports_failure {
                for c in classes.iter_mut().filter(|c| !c.in_block) {
                    if matches!(c.rank, Rank::Error | Rank::ErrorContext | Rank::Warning) {
                        c.rank = Rank::Rest;
                    }
                }
            }
            let runs = collapse::runs(idx, &classes);
            (classes, runs)
        })
    }
}

/// The cut of `idx` (as `cut` in the tests), with what was learnt of `idx` kept in `prep` for the next budget
/// (`prep` must belong to this `idx`).
pub fn cut_prepared(
    idx: &LineIndex<'_>,
    shape: Shape,
    budget: usize,
    m: &dyn Measure,
    prep: &Prepared,
) -> Cut {
    let (mut ranges, collapsed) = match shape {
        Shape::Head => (head_into_long_line(idx, budget, m), Vec::new()),
        Shape::Tail => (tail(idx, budget, 0, m).into_iter().collect(), Vec::new()),
        Shape::HeadTail => head_tail(idx, budget, m, prep),
    };
    ranges.retain(|r| r.end > r.start);
    ranges.sort_by_key(|r| r.start);
    show_what_costs_less_than_its_marker(idx, &mut ranges, &collapsed, budget, m);
    Cut { ranges, collapsed }
}

/// A marker never costs more than what it hides: an omitted part (between
/// two kept parts, or before the first, or after the last) whose text costs
/// no more than its marker is shown instead. Only a part of plain text is
/// (no collapsed run, no placeholder of a bounded scan, nothing skipped
/// inside a line); showing it costs no more than the marker did. The kept
/// part stays within `budget` all the same (a short result cut inside a line
/// would otherwise be shown whole, over its budget).
fn show_what_costs_less_than_its_marker(
    idx: &LineIndex<'_>,
    ranges: &mut Vec<Range>,
    collapsed: &[Collapsed],
    budget: usize,
    m: &dyn Measure,
) {
    if ranges.is_empty() {
        return;
    }
    let kept = std::cell::Cell::new(
        ranges
            .iter()
            .map(|r| m.cost(&idx.text[r.start..r.end]))
            .sum::<usize>(),
    );
    let total_lines = idx.len().checked_sub(1).map_or(0, |l| idx.orig_line_no(l));
    let cheap = |a: usize, b: usize| -> bool {
        if a >= b || collapsed.iter().any(|c| c.start < b && c.end > a) {
            return false;
        }
        let (la, _) = idx.locate(a);
        let (lb, _) = idx.locate(b.saturating_sub(1).max(a));
        if (la..=lb.min(idx.len().saturating_sub(1))).any(|i| idx.blocked(i)) {
            return false;
        }
        let g = gap(idx, a, b);
        let text = &idx.text[a..b];
        // nothing hidden inside a line (a giant line kept by its ends)
        let cost = m.cost(text);
        let shown = g.chars == count_chars(text)
            && kept.get() + cost <= budget
            && cost <= m.cost(&marker::marker(&g.omission(total_lines, false)));
        if shown {
            kept.set(kept.get() + cost);
        }
        shown
    };
    let mut out: Vec<Range> = Vec::with_capacity(ranges.len());
    for r in ranges.drain(..) {
        match out.last_mut() {
            Some(prev) if prev.numbered == r.numbered && cheap(prev.end, r.start) => {
                prev.end = r.end;
            }
            _ => out.push(r),
        }
    }
    if let Some(first) = out.first_mut()
        && cheap(0, first.start)
    {
        first.start = 0;
    }
    let len = idx.text.len();
    if let Some(last) = out.last_mut()
        && cheap(last.end, len)
    {
        last.end = len;
    }
    *ranges = out;
}

/// Whole lines from the start (no further than line `limit`), or the start of the
/// first line cut on a character boundary when not even one line fits.
fn head(idx: &LineIndex<'_>, budget: usize, limit: usize, m: &dyn Measure) -> Option<Range> {
    let mut used = 0;
    let mut end = 0;
    for i in 0..limit.min(idx.len()) {
        if idx.blocked(i) {
            break;
        }
        let c = m.cost(idx.line_with_end(i));
        if used + c > budget {
            break;
        }
        used += c;
        end = idx.end(i);
    }
    if end == 0 && !idx.is_empty() && budget > 0 && !idx.blocked(0) {
        let line = idx.line(0);
        end = m.prefix_within(line, budget);
    }
    (end > 0).then_some(Range {
        start: 0,
        end,
        numbered: false,
    })
}

/// [`head`], and when the whole lines kept use less than half the budget
/// because the next line is longer than what is left (a minified file after its
/// licence comment), the start of that line too, as a second range cut on a
/// character boundary.
fn head_into_long_line(idx: &LineIndex<'_>, budget: usize, m: &dyn Measure) -> Vec<Range> {
    let Some(first) = head(idx, budget, idx.len(), m) else {
        return Vec::new();
    };
    let (next, _) = idx.locate(first.end);
    let mut out = vec![first];
    let used = m.cost(&idx.text[..first.end]);
    if first.end < idx.text.len()
        && next < idx.len()
        && idx.start(next) == first.end
        && !idx.blocked(next)
        && used < budget / 2
    {
        let more = m.prefix_within(idx.line(next), budget - used);
        if more > 0 {
            out.push(Range {
                start: first.end,
                end: first.end + more,
                numbered: false,
            });
        }
    }
    out
}

/// Whole lines from the end (none starting before byte `floor`), or the end of the
/// last line cut on a character boundary when not even one line fits.
fn tail(idx: &LineIndex<'_>, budget: usize, floor: usize, m: &dyn Measure) -> Option<Range> {
    let n = idx.len();
    let mut used = 0;
    let mut start = idx.text.len();
    for i in (0..n).rev() {
        if idx.start(i) < floor || idx.blocked(i) {
            break;
        }
        let c = m.cost(idx.line_with_end(i));
        if used + c > budget {
            break;
        }
        used += c;
        start = idx.start(i);
    }
    if start == idx.text.len() && n > 0 && budget > 0 && !idx.blocked(n - 1) {
        let last = idx.line_with_end(n - 1);
        let s = idx.start(n - 1) + m.suffix_within(last, budget);
        start = s.max(floor);
    }
    (start < idx.text.len()).then_some(Range {
        start,
        end: idx.text.len(),
        numbered: false,
    })
}

/// A run of near-duplicate lines shown as one line (see [`collapse`]):
/// bytes `start..end` of the cut text, and the line shown for them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collapsed {
    /// The run's first byte in the cut text.
    pub start: usize,
    /// Right after the run's last byte.
    pub end: usize,
    /// The line shown: the pattern, the count and the original line range.
    pub text: String,
}

impl Cut {
    /// Kept and omitted pieces in order, with exact descriptions.
    pub fn pieces(&self, idx: &LineIndex<'_>) -> Vec<Piece> {
        let mut out = Vec::new();
        let mut pos = 0;
        let mut runs = self.collapsed.iter().peekable();
        let run_piece = |out: &mut Vec<Piece>, pos: usize, c: &Collapsed| {
            if c.start > pos {
                out.push(Piece::Omitted(gap(idx, pos, c.start)));
            }
            let mut g = gap(idx, c.start, c.end);
            g.collapsed = Some(c.text.clone());
            out.push(Piece::Omitted(g));
            c.end
        };
        for r in &self.ranges {
            while let Some(c) = runs.next_if(|c| c.start < r.start) {
                pos = run_piece(&mut out, pos, c);
            }
            if r.start > pos {
                out.push(Piece::Omitted(gap(idx, pos, r.start)));
            }
            out.push(Piece::Kept(*r, kept_span(idx, r)));
            pos = r.end;
        }
        for c in runs {
            pos = run_piece(&mut out, pos, c);
        }
        if pos < idx.text.len() {
            out.push(Piece::Omitted(gap(idx, pos, idx.text.len())));
        }
        out
    }

    /// Characters kept from the original.
    #[cfg(test)]
    pub fn kept_chars(&self, idx: &LineIndex<'_>) -> usize {
        self.ranges
            .iter()
            .map(|r| count_chars(&idx.text[r.start..r.end]))
            .sum()
    }
}

fn kept_span(idx: &LineIndex<'_>, r: &Range) -> KeptSpan {
    let (l0, c0) = idx.locate(r.start);
    let (l1, c1) = idx.locate(r.end);
    // The last kept line: the one holding the last kept byte.
    let (last, _) = idx.locate(r.end.saturating_sub(1).max(r.start));
    KeptSpan {
        start_line: idx.orig_line_no(l0),
        end_line: idx.orig_last_line_no(last),
        // counted in the original as the omitted parts are (a cleaned
        // output's colour codes and repeats included): kept and omitted
        // chars add up to the original's
        chars: gap(idx, r.start, r.end).chars,
        partial: c0 != 0 || (c1 != 0 && l1 < idx.len()),
    }
}

/// The omitted part between bytes `a` and `b`. Whole lines are counted in the
/// original (when the text is a cleaned copy); parts of a cut line in the text.
pub fn gap(idx: &LineIndex<'_>, a: usize, b: usize) -> Gap {
    let (la, ca) = idx.locate(a);
    let (lb, cb) = idx.locate(b);
    // positions and counts in the original: a giant line kept by its ends has
    // characters left out between them
    let in_line = |l: usize, byte: usize| byte - idx.start(l);
    if la == lb {
        let extra = idx.skipped_before(la, in_line(la, b)) - idx.skipped_before(la, in_line(la, a));
        let to = cb + idx.skipped_before(la, in_line(la, b));
        return Gap {
            chars: count_chars(&idx.text[a..b]) + extra,
            lines: None,
            cut_after: None,
            resumes_at: None,
            within: Some((idx.orig_line_no(la), ca + 1, to, idx.orig_line_chars(la))),
            tokens: None,
            range: (a, b),
            collapsed: None,
        };
    }
    let cut_after = (ca > 0).then(|| (idx.orig_line_no(la), ca, idx.orig_line_chars(la)));
    let first_whole = if ca > 0 { la + 1 } else { la };
    let resumes_at = (cb > 0).then(|| {
        let from = cb + idx.skipped_before(lb, in_line(lb, b));
        (idx.orig_line_no(lb), from + 1, idx.orig_line_chars(lb))
    });
    // lines first_whole ..= lb-1 are wholly omitted
    let whole = (first_whole < lb).then(|| (first_whole, lb - 1));
    let mut chars = whole.map_or(0, |(x, y)| idx.orig_chars(x, y));
    if ca > 0 {
        let end = idx.end(la);
        chars += count_chars(&idx.text[a..end]) + idx.skipped_before(la, in_line(la, end))
            - idx.skipped_before(la, in_line(la, a));
    }
    if cb > 0 {
        chars += count_chars(&idx.text[idx.start(lb)..b]) + idx.skipped_before(lb, in_line(lb, b));
    }
    Gap {
        chars,
        lines: whole.map(|(x, y)| (idx.orig_line_no(x), idx.orig_last_line_no(y))),
        cut_after,
        resumes_at,
        within: None,
        tokens: None,
        range: (a, b),
        collapsed: None,
    }
}

/// The parts of the shown body, in order, for [`crate::render::marker::body`]:
/// kept text (error lines from an omitted middle with their original line
/// numbers), the lines shown for runs of near-duplicates, and what each
/// omitted part's marker states. `cleaned`: the counts are of the original
/// output, which was cleaned of terminal noise before cutting.
pub fn parts<'a>(idx: &LineIndex<'a>, pieces: &'a [Piece], cleaned: bool) -> Vec<Part<'a>> {
    let total = idx.original_lines();
    pieces
        .iter()
        .map(|p| match p {
            Piece::Kept(r, _) => {
                let s = &idx.text[r.start..r.end];
                if r.numbered {
                    let (first, _) = idx.locate(r.start);
                    Part::Numbered(
                        s.split_inclusive('\n')
                            .enumerate()
                            .map(|(k, line)| (idx.orig_line_no(first + k), line))
                            .collect(),
                    )
                } else {
                    Part::Kept(s)
                }
            }
            Piece::Omitted(g) => match &g.collapsed {
                Some(line) => Part::Collapsed(line),
                None => Part::Marker(g.omission(total, cleaned)),
            },
        })
        .collect()
}

#[cfg(test)]
mod tests;
