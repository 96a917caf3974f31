//! An outline written densely: a container on one line with its members
//! compacted (`class TypeVar 981-1046: __init__ 990-1012, __repr__ 1014-1020`),
//! definitions of one kind in a row joined (`function cast 2195-2204, overload
//! 2487-2520`), as many as fit in a budget in the order a caller ranks them, and an
//! exact count of the rest by kind.
//!
//! The caller hands plain data ([`Def`]s in source order, with their depth) and
//! its ranking; the lines come back in source order.

use crate::text::{ellipsize, plural, thousands};

/// Lines are wrapped before this many chars (a member list goes on on the next
/// line, indented).
const WRAP: usize = 120;

/// Longest name or label written (a longer one is shortened with `…`).
const MAX_NAME: usize = 80;

/// One definition, as the outline found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Def {
    /// The kind's word (`class`, `function`, `method`, `impl`...).
    pub kind: &'static str,
    /// The name as written.
    pub name: String,
    /// What a container's line starts with instead of `kind name`, when it has
    /// its own (an impl block's header: `impl Display for Foo`).
    pub label: Option<String>,
    /// First line (1-based, the line holding the name).
    pub line: usize,
    /// Last line.
    pub end_line: usize,
    /// Nesting depth; 0 = top level.
    pub depth: usize,
}

impl Def {
    fn head(&self) -> String {
        match &self.label {
            Some(l) => ellipsize(l, MAX_NAME),
            None => format!("{} {}", self.kind, ellipsize(&self.name, MAX_NAME)),
        }
    }

    fn span(&self) -> String {
        if self.line == self.end_line {
            self.line.to_string()
        } else {
            format!("{}-{}", self.line, self.end_line)
        }
    }
}

/// The dense listing of `defs` (source order), choosing definitions in the
/// order `rank` gives (indexes into `defs`; those missing from it are neither
/// listed nor counted: a caller leaves out what the reader already sees) while
/// the lines fit in `budget` chars (each line counted with `indent` chars before
/// it and its line end), then a last line counting the rest of the ranked ones
/// by kind. A member chosen brings its containers along (listed, whether ranked
/// or not). Empty when nothing fits.
pub fn dense_within(defs: &[Def], rank: &[usize], budget: usize, indent: usize) -> Vec<String> {
    let mut ranked = vec![false; defs.len()];
    for &i in rank {
        if let Some(r) = ranked.get_mut(i) {
            *r = true;
        }
    }
    let cost =
        |lines: &[String]| -> usize { lines.iter().map(|l| indent + l.chars().count() + 1).sum() };
    let build = |k: usize| -> Vec<String> {
        let mut chosen = vec![false; defs.len()];
        for &i in rank.iter().take(k) {
            if i < defs.len() {
                chosen[i] = true;
            }
        }
        close_upwards(defs, &mut chosen);
        let mut lines = dense_lines(defs, &chosen);
        let left: Vec<&Def> = defs
            .iter()
            .zip(chosen.iter().zip(&ranked))
            .filter(|(_, (c, r))| !**c && **r)
            .map(|(d, _)| d)
            .collect();
        if !left.is_empty() {
            lines.push(rest_line(&left, k > 0));
        }
        lines
    };
    // the largest prefix of the ranking whose listing fits (its cost grows
    // with every definition added)
    let (mut lo, mut hi) = (0usize, rank.len());
    if cost(&build(hi)) <= budget {
        return build(hi);
    }
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if cost(&build(mid)) <= budget {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    if lo == 0 {
        return Vec::new();
    }
    build(lo)
}

/// Every container of a chosen definition is chosen too.
fn close_upwards(defs: &[Def], chosen: &mut [bool]) {
    // walking backwards, a chosen definition marks the nearest earlier one
    // that is shallower and contains it, which in turn marks its own
    for i in (0..defs.len()).rev() {
        if !chosen[i] || defs[i].depth == 0 {
            continue;
        }
        if let Some(p) = parent_of(defs, i) {
            chosen[p] = true;
        }
    }
}

fn parent_of(defs: &[Def], i: usize) -> Option<usize> {
    let d = &defs[i];
    (0..i).rev().find(|&j| {
        defs[j].depth < d.depth && defs[j].line <= d.line && defs[j].end_line >= d.end_line
    })
}

/// The lines for the chosen definitions, in source order.
pub fn dense_lines(defs: &[Def], chosen: &[bool]) -> Vec<String> {
    let mut lines = Vec::new();
    // a run of top-level definitions of one kind without listed members
    let mut run: Option<(&'static str, Vec<String>)> = None;
    let flush = |run: &mut Option<(&'static str, Vec<String>)>, lines: &mut Vec<String>| {
        if let Some((kind, items)) = run.take() {
            wrap(format!("{kind} "), &items, lines);
        }
    };
    let mut i = 0;
    while i < defs.len() {
        let d = &defs[i];
        // its descendants: the definitions after it that are deeper
        let end = (i + 1..defs.len())
            .find(|&j| defs[j].depth <= d.depth)
            .unwrap_or(defs.len());
        if !chosen.get(i).copied().unwrap_or(false) {
            i = if d.depth == 0 { end } else { i + 1 };
            continue;
        }
        let members: Vec<String> = (i + 1..end)
            .filter(|&j| chosen.get(j).copied().unwrap_or(false))
            .map(|j| format!("{} {}", member_name(defs, i, j), defs[j].span()))
            .collect();
        if members.is_empty() && d.label.is_none() {
            match &mut run {
                Some((kind, items)) if *kind == d.kind => {
                    items.push(format!("{} {}", ellipsize(&d.name, MAX_NAME), d.span()));
                }
                _ => {
                    flush(&mut run, &mut lines);
                    run = Some((
                        d.kind,
                        vec![format!("{} {}", ellipsize(&d.name, MAX_NAME), d.span())],
                    ));
                }
            }
        } else {
            flush(&mut run, &mut lines);
            if members.is_empty() {
                lines.push(format!("{} {}", d.head(), d.span()));
            } else {
                wrap(format!("{} {}: ", d.head(), d.span()), &members, &mut lines);
            }
        }
        i = end;
    }
    flush(&mut run, &mut lines);
    lines
}

/// `Inner.method` for a member nested below a direct member of the container at
/// `top`.
fn member_name(defs: &[Def], top: usize, j: usize) -> String {
    let mut parts = vec![ellipsize(&defs[j].name, MAX_NAME)];
    let mut k = j;
    while let Some(p) = parent_of(defs, k) {
        if p == top {
            break;
        }
        parts.push(ellipsize(&defs[p].name, MAX_NAME));
        k = p;
    }
    parts.reverse();
    parts.join(".")
}

/// `head` then `items` joined with `, `, wrapped before [`WRAP`] chars; the
/// following lines are indented by two spaces.
fn wrap(head: String, items: &[String], lines: &mut Vec<String>) {
    let mut line = head;
    let mut first = true;
    for it in items {
        let sep = if first { "" } else { ", " };
        if !first && line.chars().count() + sep.len() + it.chars().count() > WRAP {
            line.push(',');
            lines.push(std::mem::take(&mut line));
            line = format!("  {it}");
        } else {
            line.push_str(sep);
            line.push_str(it);
        }
        first = false;
    }
    lines.push(line);
}

/// `... and 230 more: 150 methods, 60 functions, 20 classes` (or `412
/// definitions: ...` when none is listed), kinds by count.
fn rest_line(left: &[&Def], some_listed: bool) -> String {
    let mut counts: Vec<(&'static str, usize)> = Vec::new();
    for d in left {
        match counts.iter_mut().find(|(k, _)| *k == d.kind) {
            Some((_, n)) => *n += 1,
            None => counts.push((d.kind, 1)),
        }
    }
    counts.sort_by_key(|&(_, n)| std::cmp::Reverse(n));
    let kinds: Vec<String> = counts
        .iter()
        .map(|&(k, n)| {
            let many = if k.ends_with('s') {
                format!("{k}es")
            } else {
                format!("{k}s")
            };
            plural(n, k, &many)
        })
        .collect();
    if some_listed {
        format!(
            "... and {} more: {}",
            thousands(left.len()),
            kinds.join(", ")
        )
    } else {
        format!(
            "{} definitions: {}",
            thousands(left.len()),
            kinds.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(kind: &'static str, name: &str, line: usize, end_line: usize, depth: usize) -> Def {
        Def {
            kind,
            name: name.to_string(),
            label: None,
            line,
            end_line,
            depth,
        }
    }

    fn sample() -> Vec<Def> {
        vec![
            def("function", "a", 1, 5, 0),
            def("function", "b", 7, 9, 0),
            def("class", "C", 11, 40, 0),
            def("method", "x", 12, 20, 1),
            def("class", "Inner", 21, 30, 1),
            def("method", "y", 22, 30, 2),
            def("method", "_z", 31, 40, 1),
            def("constant", "K", 42, 42, 0),
        ]
    }

    #[test]
    fn everything_that_fits_is_listed_in_source_order() {
        let d = sample();
        let rank: Vec<usize> = (0..d.len()).collect();
        assert_eq!(
            dense_within(&d, &rank, 10_000, 2),
            [
                "function a 1-5, b 7-9",
                "class C 11-40: x 12-20, Inner 21-30, Inner.y 22-30, _z 31-40",
                "constant K 42",
            ]
        );
    }

    #[test]
    fn the_rest_is_counted_by_kind_and_members_bring_their_class() {
        let d = sample();
        // y first: it brings Inner and C along
        let rank = vec![5, 0, 1, 2, 3, 4, 6, 7];
        let lines = dense_within(&d, &rank, 100, 2);
        assert_eq!(
            lines,
            [
                "class C 11-40: Inner 21-30, Inner.y 22-30",
                "... and 5 more: 2 functions, 2 methods, 1 constant",
            ]
        );
        assert!(dense_within(&d, &rank, 10, 2).is_empty());
    }

    #[test]
    fn what_the_caller_leaves_out_of_the_ranking_is_not_counted() {
        let d = sample();
        // a and b are already in the reader's view: not ranked, so neither listed
        // nor among "more"
        let rank = vec![7, 2, 3, 4, 5, 6];
        let lines = dense_within(&d, &rank, 60, 2);
        assert_eq!(
            lines,
            ["constant K 42", "... and 5 more: 3 methods, 2 classes"]
        );
        let all = dense_within(&d, &rank, 10_000, 2);
        assert_eq!(
            all,
            [
                "class C 11-40: x 12-20, Inner 21-30, Inner.y 22-30, _z 31-40",
                "constant K 42",
            ]
        );
    }

    #[test]
    fn long_member_lists_wrap() {
        let mut d = vec![def("class", "C", 1, 1000, 0)];
        for i in 0..30 {
            d.push(def(
                "method",
                &format!("method_{i}"),
                2 + i * 10,
                10 + i * 10,
                1,
            ));
        }
        let rank: Vec<usize> = (0..d.len()).collect();
        let lines = dense_within(&d, &rank, 10_000, 2);
        assert!(lines.len() > 3, "{lines:?}");
        assert!(lines.iter().all(|l| l.chars().count() <= WRAP + 20));
        assert!(lines[1].starts_with("  method_"));
    }
}
