//! The `head_tail` cut: by information, not position.

use super::*;

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
/// first lines within a fifth of the budget, the rest), runs of near-duplicate
/// lines become one line each ([`collapse`]), and the budget is filled
/// rank by rank (the rest from the end backwards), each new omitted part
/// paying for its marker. The kept parts are shown in their original order.
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
    // the first lines, within a fifth of the budget; the first line even when it
    // is longer than that, up to half the budget (a long first line, such as a
    // log's newest entry, is still where the output starts)
    let mut used = 0;
    for (k, u) in units.iter_mut().enumerate() {
        let room = if k == 0 { budget / 2 } else { budget / 5 };
        if u.blocked || used + u.cost > room {
            break;
        }
        used += u.cost;
        if u.rank == Rank::Rest {
            u.rank = Rank::Head;
        }
    }
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
    let mut sel = vec![false; units.len()];
    // the whole text is one omitted part until something is kept
    let mut gaps = 1usize;
    let Some(mut left) = budget.checked_sub(marker) else {
        return (tail(idx, budget, 0, m).into_iter().collect(), Vec::new());
    };
    let mut stopped: Option<Rank> = None;
    for k in order {
        let u = &units[k];
        if stopped == Some(u.rank) {
            continue;
        }
        let open_left = k > 0 && !sel[k - 1];
        let open_right = k + 1 < units.len() && !sel[k + 1];
        let after = gaps + usize::from(open_left) + usize::from(open_right) - 1;
        let cost = u.cost + if after > gaps { marker } else { 0 };
        let refund = if after < gaps { marker } else { 0 };
        if after > MAX_GAPS || cost > left + refund {
            // the first lines and the rest stay in one piece each
            if matches!(u.rank, Rank::Head | Rank::Rest) {
                stopped = Some(u.rank);
            }
            continue;
        }
        sel[k] = true;
        left = left + refund - cost;
        gaps = after;
    }
    // A marker costs more than a short gap: fill gaps of a few lines (or runs
    // of near-duplicates shown as one line each) between kept parts when the
    // budget allows.
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
        let inner = s > 0 && k < units.len();
        // lines with text shown if filled
        let lines = units[s..k]
            .iter()
            .filter(|u| u.collapsed.is_some() || !idx.line(u.first).trim().is_empty())
            .count();
        let cost: usize = units[s..k].iter().map(|u| u.cost).sum();
        if inner
            && lines <= SMALL_GAP_LINES
            && !units[s..k].iter().any(|u| u.blocked)
            && cost <= left + marker
        {
            left = left + marker - cost;
            sel[s..k].iter_mut().for_each(|x| *x = true);
        }
    }
    let mut ranges: Vec<Range> = Vec::new();
    let mut collapsed = Vec::new();
    for (k, u) in units.iter().enumerate() {
        if !sel[k] {
            continue;
        }
        let (start, end) = (idx.start(u.first), idx.end(u.last));
        match &u.collapsed {
            Some(t) => collapsed.push(Collapsed {
                start,
                end,
                text: t.clone(),
            }),
            None => match ranges.last_mut() {
                Some(r) if r.end == start => r.end = end,
                _ => ranges.push(Range {
                    start,
                    end,
                    numbered: false,
                }),
            },
        }
    }
    if ranges.is_empty() && collapsed.is_empty() {
        // not one line fits: the end of the last line
        return (tail(idx, budget, 0, m).into_iter().collect(), Vec::new());
    }
    (ranges, collapsed)
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
