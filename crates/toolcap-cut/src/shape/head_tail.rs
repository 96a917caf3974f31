//! The `head_tail` cut: by information, not position.

use super::{
    Collapsed, LineClass, LineIndex, Measure, Prepared, Range, Rank, SMALL_GAP_LINES, blocks,
    collapse, head, marker, tail,
};

/// Something the `head_tail` cut keeps or leaves out: one line, or a run of
/// near-duplicate lines that is shown as one line.
struct Unit {
    first: usize,
    last: usize,
    rank: Rank,
    /// The fill order of its rank (see [`LineClass::tier`]).
    tier: (u8, u16),
    cost: usize,
    /// The line shown for a run of near-duplicates.
    collapsed: Option<String>,
    /// A placeholder for lines a bounded scan left out: never kept.
    blocked: bool,
}

/// The fill order of the end of the output (see [`rank_the_end`]): after
/// the first failure's key lines, the failures' names and first messages,
/// before the other summaries and the other failures' values.
const END_TIER: (u8, u16) = (2, 1);

/// The fill order of the last failure block kept whole: with its key lines.
const WHOLE_TIER: (u8, u16) = blocks::LAST_KEYS;

/// At most this many omitted parts (markers) in a `head_tail` cut.
pub const MAX_GAPS: usize = 16;

/// Cut by information, not position: every line gets a rank
/// ([`blocks`]: failure blocks' key lines, their other lines, error
/// lines, the lines after them, warnings, summary lines and the last line, the
/// first lines within a fifth of the budget, the rest; the end of the output
/// as one unit, [`rank_the_end`]), runs of near-duplicate lines become one
/// line each ([`collapse`]), and the budget is filled rank by rank (the rest
/// from the end backwards), each new omitted part paying for its marker; a
/// run then shows as many of its own lines as the budget allows
/// ([`split_run`]). The kept parts are shown in their original order.
pub(super) fn head_tail(
    idx: &LineIndex<'_>,
    budget: usize,
    m: &dyn Measure,
    prep: &Prepared,
) -> (Vec<Range>, Vec<Collapsed>) {
    let n = idx.len();
    if n == 0 {
        return (Vec::new(), Vec::new());
    }
    // A single line: its start and its end.
    if n == 1 {
        let h = budget / 5;
        let mut v: Vec<Range> = head(idx, h, 1, m).into_iter().collect();
        let floor = v.first().map_or(0, |r| r.end);
        v.extend(tail(idx, budget - h, floor, m));
        return (v, Vec::new());
    }
    let (classes, runs) = prep.get(idx);
    let mut units = units(idx, m, classes, runs);
    rank_the_head(&mut units, budget, prep);
    let marker = m.cost(&marker::typical_marker());
    let mut order: Vec<usize> = (0..units.len()).filter(|&k| !units[k].blocked).collect();
    for u in units.iter_mut() {
        if u.collapsed.is_some() || u.rank == Rank::Head {
            u.tier = LineClass {
                rank: u.rank,
                in_block: false,
                nth: 0,
                first: false,
                last: false,
                middle: false,
                listed: false,
            }
            .tier();
        }
    }
    rank_the_end(&mut units, classes, budget);
    // by tier, in order; the rest from the end backwards
    order.sort_by_key(|&k| {
        let u = &units[k];
        (
            u.tier,
            if u.rank == Rank::Rest {
                units.len() - k
            } else {
                k
            },
        )
    });
    let Some(left) = budget.checked_sub(marker) else {
        return (tail(idx, budget, 0, m).into_iter().collect(), Vec::new());
    };
    let mut fill = Fill {
        sel: vec![false; units.len()],
        split: vec![None; units.len()],
        left,
        // the whole text is one omitted part until something is kept
        gaps: 1,
        marker,
    };
    // every failure named, with its message, when that fits (kept first)
    if let Some((picked, cost, n)) = roster(idx, &units, classes, budget, marker) {
        fill.sel = picked;
        fill.left = budget - cost;
        fill.gaps = n;
    }
    fill.by_rank(idx, m, &units, order);
    fill.runs(idx, m, &units);
    fill.short_gaps(idx, &units);
    let (ranges, collapsed) = fill.kept(idx, &units);
    if ranges.is_empty() && collapsed.is_empty() {
        // not one line fits: the end of the last line
        return (tail(idx, budget, 0, m).into_iter().collect(), Vec::new());
    }
    (ranges, collapsed)
}

/// The units of the cut: a run of near-duplicates as one, every other line
/// as one.
fn units(
    idx: &LineIndex<'_>,
    m: &dyn Measure,
    classes: &[LineClass],
    runs: &[collapse::Run],
) -> Vec<Unit> {
    let n = idx.len();
    let mut units: Vec<Unit> = Vec::with_capacity(n);
    let mut runs = runs.iter().peekable();
    let mut i = 0;
    while i < n {
        if let Some(r) = runs.next_if(|r| r.first == i) {
            let (a, b) = (idx.orig_line_no(r.first), idx.orig_last_line_no(r.last));
            let text = marker::collapsed_line(&r.pattern, a, b);
            units.push(Unit {
                first: r.first,
                last: r.last,
                rank: (r.first..=r.last)
                    .map(|k| classes[k].rank)
                    .min()
                    .map_or(Rank::Rest, |x| {
                        if x == Rank::ErrorContext {
                            Rank::Rest
                        } else {
                            x
                        }
                    }),
                tier: (0, 0),
                cost: m.cost(&text) + 1,
                collapsed: Some(text),
                blocked: false,
            });
            i = r.last + 1;
            continue;
        }
        units.push(Unit {
            first: i,
            last: i,
            rank: classes[i].rank,
            tier: classes[i].tier(),
            cost: m.cost(idx.line_with_end(i)),
            collapsed: None,
            blocked: idx.blocked(i),
        });
        i += 1;
    }
    units
}

/// The first lines, within a fifth of the budget; the first line even when
/// it is longer than that, up to half the budget (a long first line, such as
/// a log's newest entry, is still where the output starts).
fn rank_the_head(units: &mut [Unit], budget: usize, prep: &Prepared) {
    let mut used = 0;
    for (k, u) in units.iter_mut().enumerate() {
        let room = if k == 0 {
            (budget / 2).max(prep.head_share(budget))
        } else {
            prep.head_share(budget)
        };
        if u.blocked || used + u.cost > room {
            break;
        }
        used += u.cost;
        if u.rank == Rank::Rest {
            u.rank = Rank::Head;
        }
    }
}

/// The budget being filled: the units kept, the runs shown in part or whole,
/// what is left of the budget and how many omitted parts there are.
struct Fill {
    sel: Vec<bool>,
    split: Vec<Option<Split>>,
    left: usize,
    gaps: usize,
    /// What one marker costs.
    marker: usize,
}

impl Fill {
    /// Keep units in `order` while they fit, each new omitted part paying for
    /// its marker.
    fn by_rank(&mut self, idx: &LineIndex<'_>, m: &dyn Measure, units: &[Unit], order: Vec<usize>) {
        let marker = self.marker;
        let mut stopped: Option<Rank> = None;
        for k in order {
            let u = &units[k];
            if self.sel[k] || stopped == Some(u.rank) {
                continue;
            }
            let open_left = k > 0 && !self.sel[k - 1];
            let open_right = k + 1 < units.len() && !self.sel[k + 1];
            let after = self.gaps + usize::from(open_left) + usize::from(open_right) - 1;
            let cost = u.cost + if after > self.gaps { marker } else { 0 };
            let refund = if after < self.gaps { marker } else { 0 };
            if after > MAX_GAPS || cost > self.left + refund {
                // the first lines and the rest stay in one piece each
                if matches!(u.rank, Rank::Head | Rank::Rest) {
                    stopped = Some(u.rank);
                }
                continue;
            }
            self.sel[k] = true;
            self.left = self.left + refund - cost;
            self.gaps = after;
            // a run of near-duplicates filled with the rest (from the end
            // backwards): as many of its own lines as fit, the others collapsed
            // (its lines are worth no more than the rest)
            if u.rank == Rank::Rest
                && let Some((sp, c)) = split_run(idx, m, u, self.left + u.cost, true)
            {
                self.left = self.left + u.cost - c;
                self.split[k] = Some(sp);
            }
        }
    }

    /// The runs kept with the higher ranks get what is left, from the end
    /// backwards (a run among the first lines shows its first lines).
    fn runs(&mut self, idx: &LineIndex<'_>, m: &dyn Measure, units: &[Unit]) {
        for k in (0..units.len()).rev() {
            let u = &units[k];
            if self.sel[k]
                && self.split[k].is_none()
                && u.collapsed.is_some()
                && let Some((sp, c)) =
                    split_run(idx, m, u, self.left + u.cost, u.rank != Rank::Head)
            {
                self.left = self.left + u.cost - c;
                self.split[k] = Some(sp);
            }
        }
    }

    /// A marker costs more than a short gap: fill gaps of a few lines (or
    /// runs of near-duplicates shown as one line each) between kept parts
    /// when the budget allows.
    fn short_gaps(&mut self, idx: &LineIndex<'_>, units: &[Unit]) {
        for g in left_out(idx, units, &self.sel) {
            if g.inner
                && g.lines <= SMALL_GAP_LINES
                && !units[g.start..g.end].iter().any(|u| u.blocked)
                && g.cost <= self.left + self.marker
            {
                self.left = self.left + self.marker - g.cost;
                self.sel[g.start..g.end].iter_mut().for_each(|x| *x = true);
            }
        }
    }

    /// The kept lines as ranges, in order, and the runs shown collapsed.
    fn kept(&self, idx: &LineIndex<'_>, units: &[Unit]) -> (Vec<Range>, Vec<Collapsed>) {
        let mut ranges: Vec<Range> = Vec::new();
        let mut collapsed = Vec::new();
        for (k, u) in units.iter().enumerate() {
            if !self.sel[k] {
                continue;
            }
            let mut keep = |(a, b): (usize, usize)| {
                let (start, end) = (idx.start(a), idx.end(b));
                match ranges.last_mut() {
                    Some(r) if r.end == start => r.end = end,
                    _ => ranges.push(Range {
                        start,
                        end,
                        numbered: false,
                    }),
                }
            };
            match (&self.split[k], &u.collapsed) {
                (Some(sp), _) => {
                    let rest = |(a, b, t): &(usize, usize, String)| Collapsed {
                        start: idx.start(*a),
                        end: idx.end(*b),
                        text: t.clone(),
                    };
                    match &sp.rest {
                        Some(r) if r.0 < sp.shown.0 => {
                            collapsed.push(rest(r));
                            keep(sp.shown);
                        }
                        Some(r) => {
                            keep(sp.shown);
                            collapsed.push(rest(r));
                        }
                        None => keep(sp.shown),
                    }
                }
                (None, Some(t)) => collapsed.push(Collapsed {
                    start: idx.start(u.first),
                    end: idx.end(u.last),
                    text: t.clone(),
                }),
                (None, None) => keep((u.first, u.last)),
            }
        }
        (ranges, collapsed)
    }
}

/// A stretch of units left out (`start..end`).
struct Gap {
    start: usize,
    end: usize,
    /// Between kept parts (not at the start or the end of the output).
    inner: bool,
    /// Its lines with text, shown if it is filled.
    lines: usize,
    /// What showing it costs.
    cost: usize,
}

/// The stretches of units not in `sel`, in order.
fn left_out(idx: &LineIndex<'_>, units: &[Unit], sel: &[bool]) -> Vec<Gap> {
    let mut gaps = Vec::new();
    let mut k = 0;
    while k < units.len() {
        if sel[k] {
            k += 1;
            continue;
        }
        let s = k;
        while k < units.len() && !sel[k] {
            k += 1;
        }
        let stretch = &units[s..k];
        gaps.push(Gap {
            start: s,
            end: k,
            inner: s > 0 && k < units.len(),
            lines: stretch
                .iter()
                .filter(|u| u.collapsed.is_some() || !idx.line(u.first).trim().is_empty())
                .count(),
            cost: stretch.iter().map(|u| u.cost).sum(),
        });
    }
    gaps
}

/// The failures' roster: what a reader of a failed run needs first, kept
/// before the budget is filled rank by rank when all of it fits (issue 34).
/// First the last line, the first failure's name, first key lines and where
/// it failed, and the summary lines that count failures; then every
/// failure's name, every failure's first message line with its values, and
/// the closing list naming every failed test (pytest's short summary,
/// cargo's last `failures:`). Tried whole, then without the list, then with
/// the list as the only names (its lines name every failed test) and the
/// last failure's message, then the names and the last failure's message
/// (no list); with the selection, its cost
/// (kept lines, the short gaps shown between them, one marker a gap) and the
/// count of omitted parts. `None` in output without failure blocks, or when
/// not even the core and the names fit.
fn roster(
    idx: &LineIndex<'_>,
    units: &[Unit],
    classes: &[LineClass],
    budget: usize,
    marker: usize,
) -> Option<(Vec<bool>, usize, usize)> {
    let class = |u: &Unit| (u.collapsed.is_none() && !u.blocked).then(|| classes[u.first]);
    if !units
        .iter()
        .any(|u| class(u).is_some_and(|c| c.rank == Rank::FailureKey))
    {
        return None;
    }
    // the first failure's lines, the failure counts and the last line
    let first = |u: &Unit| class(u).is_some_and(|c| c.tier() <= (1, 0));
    let name = |u: &Unit| class(u).is_some_and(|c| c.rank == Rank::FailureKey && c.nth == 0);
    let message = |u: &Unit| class(u).is_some_and(|c| c.rank == Rank::FailureKey && c.nth == 1);
    // the last failure's name and message
    let last = |u: &Unit| class(u).is_some_and(|c| c.last) && (name(u) || message(u));
    let listed = |u: &Unit| class(u).is_some_and(|c| c.listed);
    let tries: [&dyn Fn(&Unit) -> bool; 4] = [
        &|u| first(u) || name(u) || message(u) || listed(u),
        &|u| first(u) || name(u) || message(u),
        &|u| first(u) || last(u) || listed(u),
        &|u| first(u) || last(u) || name(u),
    ];
    for want in tries {
        let mut sel: Vec<bool> = units.iter().map(want).collect();
        if !sel.iter().any(|&x| x) {
            return None;
        }
        let mut cost: usize = units
            .iter()
            .zip(&sel)
            .filter(|&(_, &x)| x)
            .map(|(u, _)| u.cost)
            .sum();
        let mut gaps = 0;
        for g in left_out(idx, units, &sel) {
            // a short gap between kept parts is shown when no dearer than its marker
            if g.inner
                && g.lines <= SMALL_GAP_LINES
                && g.cost <= marker
                && !units[g.start..g.end]
                    .iter()
                    .any(|u| u.blocked || u.collapsed.is_some())
            {
                sel[g.start..g.end].iter_mut().for_each(|x| *x = true);
                cost += g.cost;
            } else {
                gaps += 1;
                cost += marker;
            }
        }
        if gaps <= MAX_GAPS && cost <= budget {
            return Some((sel, cost, gaps));
        }
    }
    None
}

/// What a reader of the end of a log is after, ranked as one unit with the
/// tail: the last lines (within a tenth of the budget) and the last failure
/// block or compiler error, whole when it fits in a quarter of the budget,
/// with the few lines between it and the tail (else from its start to its
/// last key line, else its key lines alone: a failure's first key lines and
/// where it failed, a compiler error's headline and location).
fn rank_the_end(units: &mut [Unit], classes: &[LineClass], budget: usize) {
    let promote = |u: &mut Unit, tier: (u8, u16)| {
        if u.blocked || u.tier <= tier {
            return;
        }
        u.tier = tier;
        // (kept in order with the block, not from the end backwards, and a
        // line that does not fit does not stop the rest)
        if matches!(u.rank, Rank::Rest | Rank::Head) {
            u.rank = Rank::Failure;
        }
    };
    let cost = |us: &[Unit]| us.iter().map(|u| u.cost).sum::<usize>();
    // the tail
    let mut from = units.len();
    let mut used = 0;
    while from > 0 {
        let u = &units[from - 1];
        if u.blocked || used + u.cost > budget / 10 {
            break;
        }
        used += u.cost;
        from -= 1;
    }
    let in_last = |u: &Unit| u.collapsed.is_none() && classes[u.first].last;
    if let (Some(a), Some(b)) = (
        units.iter().position(in_last),
        units.iter().rposition(in_last),
    ) {
        // its key lines: a failure's first ones and where it failed (ranked
        // by the classification), a compiler error's headline and location
        let key = |u: &Unit| {
            let c = classes[u.first];
            u.tier <= WHOLE_TIER || matches!(c.rank, Rank::Error | Rank::Warning) && c.nth <= 1
        };
        let room = budget / 4;
        if cost(&units[a..=b]) <= room {
            // (one piece, ranked with its key lines: one marker, not one
            // between each two of them)
            units[a..=b].iter_mut().for_each(|u| promote(u, WHOLE_TIER));
            if b + 1 < from && cost(&units[b + 1..from]) <= budget / 10 {
                units[b + 1..from]
                    .iter_mut()
                    .for_each(|u| promote(u, END_TIER));
            }
        } else if let Some(k) = (a..=b).rev().find(|&k| key(&units[k]))
            && cost(&units[a..=k]) <= room
        {
            // else from its start to its last key line
            units[a..=k].iter_mut().for_each(|u| promote(u, WHOLE_TIER));
        } else {
            for u in &mut units[a..=b] {
                if key(u) {
                    promote(u, WHOLE_TIER);
                }
            }
        }
    }
    units[from..].iter_mut().for_each(|u| promote(u, END_TIER));
}

/// A run of near-duplicate lines shown in part: lines `shown` (first and last
/// line) as they are, and the others (`rest`: first and last line, the line
/// shown for them), if any, collapsed.
#[derive(Debug, Clone)]
struct Split {
    shown: (usize, usize),
    rest: Option<(usize, usize, String)>,
}

/// As many of run `u`'s own lines as fit in `room` (which its collapsed line
/// already holds), the others collapsed into one line (at least two of them):
/// its last lines when `from_end` (next to the end of the output, which the
/// rest is filled from), else its first. With the cost; `None` when not one
/// line of it fits.
fn split_run(
    idx: &LineIndex<'_>,
    m: &dyn Measure,
    u: &Unit,
    room: usize,
    from_end: bool,
) -> Option<(Split, usize)> {
    u.collapsed.as_ref()?;
    let (first, last) = (u.first, u.last);
    let line = |k: usize| m.cost(idx.line_with_end(k));
    let whole: usize = (first..=last).map(line).sum();
    if whole <= room {
        return Some((
            Split {
                shown: (first, last),
                rest: None,
            },
            whole,
        ));
    }
    let len = last + 1 - first;
    // the k-th line shown (0 the nearest the side it is shown from)
    let at = |j: usize| if from_end { last - j } else { first + j };
    // as many lines as fit beside a collapsed line as long as the run's (its
    // count and range have at most as many digits, plus a few)
    let mut shown = 0;
    let mut used = 0;
    let reserve = u.cost + 4;
    while shown + 2 < len && used + line(at(shown)) + reserve <= room {
        used += line(at(shown));
        shown += 1;
    }
    // then the exact line for the rest, one line fewer until it fits
    while shown > 0 {
        let (a, b, s) = if from_end {
            (first, last - shown, (last + 1 - shown, last))
        } else {
            (first + shown, last, (first, first + shown - 1))
        };
        let text = marker::collapsed_line(
            &collapse::sub_pattern(idx, a, b),
            idx.orig_line_no(a),
            idx.orig_last_line_no(b),
        );
        let cost = used + m.cost(&text) + 1;
        if cost <= room {
            return Some((
                Split {
                    shown: s,
                    rest: Some((a, b, text)),
                },
                cost,
            ));
        }
        shown -= 1;
        used -= line(at(shown));
    }
    None
}
