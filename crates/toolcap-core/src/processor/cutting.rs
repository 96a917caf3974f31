//! The cut at one kept budget: JSON shortened as JSON, a page shown as its
//! text, or lines (head / tail / head_tail), with the pieces the report and
//! the hints describe.

use super::report::HtmlStats;
use crate::config::Shape;
use crate::config::ToolEntry;
use crate::config::Unit;
use crate::cut::html_text::PageText;
use crate::cut::index::LineIndex;
use crate::cut::index::Totals;
use crate::cut::jsoncut;
use crate::cut::jsoncut::JsonStats;
use crate::cut::shape;
use crate::cut::shape::Gap;
use crate::cut::shape::KeptSpan;
use crate::cut::shape::Piece;
use crate::measure::Measure;
use crate::render::marker::{self, PageEnd};
use serde_json::Value;

/// One way of cutting a result: the shown body, kept spans, gaps, the kept
/// verbatim prefix, and what reshaping did when JSON stayed JSON or a page was
/// shown as its text.
pub(super) struct Cutting {
    pub(super) body: String,
    pub(super) kept: Vec<KeptSpan>,
    pub(super) gaps: Vec<Gap>,
    pub(super) prefix_bytes: Option<usize>,
    pub(super) json: Option<JsonStats>,
    /// The shortened value shown, when JSON stayed JSON.
    pub(super) shown_json: Option<Value>,
    pub(super) page: Option<HtmlStats>,
}

/// What a result is cut from, made once for every budget tried.
pub(super) struct Cutter<'a> {
    pub(super) entry: &'a ToolEntry,
    pub(super) m: &'a dyn Measure,
    /// The lines cut: the scanned text's, else the original's.
    pub(super) work_idx: &'a LineIndex<'a>,
    /// The parsed result, when it is JSON to be shortened as JSON.
    pub(super) json: Option<&'a Value>,
    /// The page's text, when a fetched page is shown as its text, and the
    /// original's lines.
    pub(super) page: Option<(&'a PageText, &'a LineIndex<'a>)>,
    /// The lines' ranks, learnt once for every budget tried.
    pub(super) prepared: shape::Prepared,
    pub(super) original: Totals,
    /// Cleaning changed the text cut (markers count the original output).
    pub(super) cleaned: bool,
    /// The text cut is a scan of the original (no verbatim prefix).
    pub(super) scanned: bool,
}

impl Cutter<'_> {
    /// The cut at a kept budget.
    pub(super) fn at(&self, budget: usize) -> Cutting {
        let m = self.m;
        if let Some((p, idx)) = self.page {
            return page_cut(p, idx, budget, m);
        }
        if let Some((json_text, stats, shown)) = self.json.and_then(|v| jsoncut::cut(v, budget, m))
        {
            let original = self.original;
            let gap = Gap {
                chars: original.chars,
                lines: (original.lines > 0).then_some((1, original.lines)),
                cut_after: None,
                resumes_at: None,
                within: None,
                tokens: None,
                range: (0, self.work_idx.text.len()),
                collapsed: None,
            };
            return Cutting {
                body: marker::json_body(
                    &json_text,
                    original.chars,
                    stats.shown_chars,
                    &stats.describe(),
                ),
                kept: Vec::new(),
                gaps: vec![gap],
                prefix_bytes: None,
                json: Some(stats),
                shown_json: Some(shown),
                page: None,
            };
        }
        self.lines(budget)
    }

    /// The lines cut in the entry's shape.
    fn lines(&self, budget: usize) -> Cutting {
        let (idx, m) = (self.work_idx, self.m);
        let the_cut = cut_within(idx, self.entry.shape, budget, m, &self.prepared);
        let mut pieces = the_cut.pieces(idx);
        if matches!(self.entry.unit, Unit::Tokens(_)) {
            for p in &mut pieces {
                if let Piece::Omitted(g) = p {
                    g.tokens = Some(m.cost(&idx.text[g.range.0..g.range.1]));
                }
            }
        }
        let body = marker::body(&shape::parts(idx, &pieces, self.cleaned));
        let mut kept = Vec::new();
        let mut gaps = Vec::new();
        for p in pieces {
            match p {
                Piece::Kept(_, span) => kept.push(span),
                Piece::Omitted(g) => gaps.push(g),
            }
        }
        // the kept verbatim prefix: ranges from byte 0 that follow each other
        // (whole lines, then the start of a long line)
        let prefix_bytes = match (self.scanned, the_cut.ranges.first()) {
            (false, Some(r)) if r.start == 0 => Some(
                the_cut.ranges[1..]
                    .iter()
                    .try_fold(r.end, |end, x| (x.start == end).then_some(x.end))
                    .unwrap_or_else(|| {
                        the_cut
                            .ranges
                            .windows(2)
                            .take_while(|w| w[1].start == w[0].end)
                            .last()
                            .map_or(r.end, |w| w[1].end)
                    }),
            ),
            _ => None,
        };
        Cutting {
            body,
            kept,
            gaps,
            prefix_bytes,
            json: None,
            shown_json: None,
            page: None,
        }
    }
}

/// Cut, then make sure the kept part measured as a whole fits the budget (token
/// counts of lines do not always add up to the count of their concatenation).
fn cut_within(
    idx: &LineIndex<'_>,
    shape: Shape,
    budget: usize,
    m: &dyn Measure,
    prep: &shape::Prepared,
) -> shape::Cut {
    let mut b = budget;
    loop {
        let c = shape::cut_prepared(idx, shape, b, m, prep);
        let mut kept: String = c.ranges.iter().map(|r| &idx.text[r.start..r.end]).collect();
        // the lines shown for runs of near-duplicates are shown too
        for r in &c.collapsed {
            kept.push_str(&r.text);
            kept.push('\n');
        }
        let cost = m.cost(&kept);
        if cost <= budget || b == 0 {
            return c;
        }
        b = b.saturating_sub((cost - budget).max(1));
    }
}

/// An HTML page cut as its text: the first lines of the page's text within
/// `budget` (the first line cut on a character boundary when it alone is longer),
/// under a note saying so, and the marker of everything of the page after the
/// source of the last character shown.
fn page_cut(page: &PageText, idx: &LineIndex<'_>, budget: usize, m: &dyn Measure) -> Cutting {
    let text = page.text.as_str();
    let mut end = 0;
    let mut used = 0;
    for line in text.split_inclusive('\n') {
        let c = m.cost(line);
        if used + c > budget {
            break;
        }
        used += c;
        end += line.len();
    }
    if end == 0 {
        // the first line alone is longer than the budget: its longest start that fits
        let first = text.split_inclusive('\n').next().unwrap_or("");
        let (mut lo, mut hi) = (0usize, first.len());
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            let b = (0..=mid)
                .rev()
                .find(|&i| first.is_char_boundary(i))
                .unwrap_or(0);
            if b > lo && m.cost(&first[..b]) <= budget {
                lo = b;
            } else {
                hi = mid - 1;
            }
        }
        end = lo;
    }
    let shown = text[..end].trim_end_matches('\n');
    let mut source_end = page.source_end(shown.len());
    // When the rest of the last shown line holds no text (only markup), the line
    // goes with what was shown: the omitted part starts on a line of its own.
    let next = page.next_source(end).unwrap_or(idx.text.len());
    if let Some(nl) = idx.text[source_end..next.max(source_end)].find('\n') {
        source_end += nl + 1;
    }
    let shown_chars = crate::text::count_chars(shown);
    let text_chars = crate::text::count_chars(text.trim_end_matches('\n'));
    let stats = HtmlStats {
        text_chars,
        shown_chars,
    };
    let mut gaps = Vec::new();
    let end = if source_end < idx.text.len() {
        let g = shape::gap(idx, source_end, idx.text.len());
        let omission = g.omission(idx.original_lines(), false);
        gaps.push(g);
        PageEnd::Omitted {
            omission,
            // what is left out holds no text of the page
            markup_only: shown_chars == text_chars,
        }
    } else {
        PageEnd::Nothing {
            chars: crate::text::count_chars(idx.text),
        }
    };
    let body = marker::page_body(shown, shown_chars, text_chars, &end);
    let (last, _) = idx.locate(source_end.saturating_sub(1));
    let kept = vec![KeptSpan {
        start_line: 1,
        end_line: idx.orig_line_no(last).max(1),
        chars: shown_chars,
        partial: true,
    }];
    Cutting {
        body,
        kept,
        gaps,
        prefix_bytes: None,
        json: None,
        shown_json: None,
        page: Some(stats),
    }
}
