//! Near-duplicate lines: runs of consecutive lines equal but for numbers, ids,
//! paths or names (`test tests::parses_x ... ok`, `Compiling foo v1.2.3`),
//! which the `head_tail` cut shows as one line with the count and line range:
//! `test tests::parses_* ... ok  (×40, lines 27-66)`.
//!
//! Two lines are near-duplicates when they have the same indentation and the
//! same number of words (split at white space), every word that differs is at a
//! position where the run's words vary, and at most half the words (rounded up)
//! vary. A position starts to vary only where the two words look like values
//! (one holds a digit or one of `_ - . / : \ @ #`) or share a start or an end of
//! three characters or more: `ok` and `FAILED` never make a run, nor do lines
//! whose ranks differ (an error line never joins a progress line). At least one
//! word with a letter stays the same. The varying words are shown as their
//! common start and end around `*`. The cut shows a run's own lines as far
//! as its budget allows and collapses only the others ([`sub_pattern`] gives
//! the line for part of a run).

use crate::blocks::{LineClass, Rank};
use crate::index::LineIndex;

/// Runs shorter than this are left as they are.
pub const MIN_RUN: usize = 3;

/// A run of near-duplicate lines: lines `first..=last` of the index, and the
/// line that stands for them (without the count and range).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The run's first line (0-based, in the index).
    pub first: usize,
    /// The run's last line (0-based, inclusive).
    pub last: usize,
    /// The line shown for the run (its varying parts replaced).
    pub pattern: String,
}

/// The words of a line with their byte spans.
fn words(s: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    words_into(s, &mut out);
    out
}

/// [`words`] into `out` (cleared first), to reuse its allocation.
fn words_into(s: &str, out: &mut Vec<(usize, usize)>) {
    out.clear();
    let mut start = None;
    for (i, c) in s.char_indices() {
        if c.is_whitespace() {
            if let Some(a) = start.take() {
                out.push((a, i));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(a) = start {
        out.push((a, s.len()));
    }
}

/// Whether two different words at the same position look like values of one thing.
fn may_vary(a: &str, b: &str) -> bool {
    let valueish = |w: &str| {
        w.bytes()
            .any(|c| c.is_ascii_digit() || b"_-./:\\@#".contains(&c))
    };
    valueish(a) || valueish(b) || common_prefix(a, b) >= 3 || common_suffix(a, b) >= 3
}

/// Bytes of the common start of `a` and `b`, on a char boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    let mut n = 0;
    for ((i, x), y) in a.char_indices().zip(b.chars()) {
        if x != y {
            return i;
        }
        n = i + x.len_utf8();
    }
    n
}

/// Bytes of the common end of `a` and `b`, on a char boundary.
fn common_suffix(a: &str, b: &str) -> usize {
    let mut n = 0;
    for (x, y) in a.chars().rev().zip(b.chars().rev()) {
        if x != y {
            break;
        }
        n += x.len_utf8();
    }
    n
}

/// Whether line `i` may be part of a run.
fn candidate(idx: &LineIndex<'_>, classes: &[LineClass], i: usize) -> bool {
    let c = classes[i];
    !idx.blocked(i)
        && !c.in_block
        && matches!(
            c.rank,
            Rank::Error | Rank::ErrorContext | Rank::Warning | Rank::Rest
        )
        && !idx.line(i).trim().is_empty()
        && !crate::blocks::is_separator(idx.line(i))
        // a line the cleaning found repeated stays with its `(repeated N
        // more times)` line: after a collapsed line it would say nothing
        && (i + 1 >= idx.len() || !is_repeat_note(idx.line(i + 1)))
        && !is_repeat_note(idx.line(i))
}

/// The line terminal-noise cleaning writes for a line's exact repeats.
fn is_repeat_note(line: &str) -> bool {
    line.strip_prefix("(repeated ")
        .and_then(|r| {
            r.strip_suffix(" more times)")
                .or_else(|| r.strip_suffix(" more time)"))
        })
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit() || b == b','))
}

/// The rank a line has in a run: context lines count as the rest.
fn run_rank(r: Rank) -> Rank {
    if r == Rank::ErrorContext {
        Rank::Rest
    } else {
        r
    }
}

fn leading_ws(s: &str) -> &str {
    &s[..s.len() - s.trim_start().len()]
}

/// The runs of near-duplicate lines of `idx`, in order.
pub fn runs(idx: &LineIndex<'_>, classes: &[LineClass]) -> Vec<Run> {
    let n = idx.len();
    let mut out = Vec::new();
    let mut wo = Vec::new();
    let mut next: Vec<bool> = Vec::new();
    let mut i = 0;
    while i < n {
        if !candidate(idx, classes, i) {
            i += 1;
            continue;
        }
        let line = idx.line(i);
        let ws = words(line);
        let max_var = ws.len().div_ceil(2);
        let mut vary = vec![false; ws.len()];
        let rank = run_rank(classes[i].rank);
        let mut j = i + 1;
        while j < n && candidate(idx, classes, j) && run_rank(classes[j].rank) == rank {
            let other = idx.line(j);
            if leading_ws(other) != leading_ws(line) {
                break;
            }
            words_into(other, &mut wo);
            if wo.len() != ws.len() {
                break;
            }
            next.clear();
            next.extend_from_slice(&vary);
            let mut ok = true;
            for (p, (&(a, b), &(c, d))) in ws.iter().zip(&wo).enumerate() {
                let (x, y) = (&line[a..b], &other[c..d]);
                if x != y && !next[p] {
                    if !may_vary(x, y) {
                        ok = false;
                        break;
                    }
                    next[p] = true;
                }
            }
            let varied = next.iter().filter(|&&v| v).count();
            let constant_word = ws
                .iter()
                .zip(&next)
                .any(|(&(a, b), &v)| !v && line[a..b].chars().any(char::is_alphabetic));
            if !ok || varied > max_var || !constant_word {
                break;
            }
            std::mem::swap(&mut vary, &mut next);
            j += 1;
        }
        if j - i >= MIN_RUN && names_differ(idx, i, j - 1, &ws, &vary) {
            // each line names another thing: not duplicates (the lines are
            // kept or left out as they are)
            i = j;
        } else if j - i >= MIN_RUN {
            out.push(Run {
                first: i,
                last: j - 1,
                pattern: pattern(idx, i, j - 1, &ws, &vary),
            });
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// Whether the lines `first..=last` differ in their only informative field:
/// the one varying position whose words hold letters (the others are
/// numbers: times, sizes, counts), its words sharing no start and no end
/// (`import time: 469 | 469 | posix`, then `... | marshal`): what tells the
/// lines apart is what they are about, and a collapsed `*` would erase it.
/// Names sharing a start or an end (`tests::parses_x`, `tests::parses_y`)
/// are values of one thing; a name with a version (`Compiling * v*`) is not
/// the only informative field; a name varying alone (`test * ... ok`) is a
/// list of one status.
fn names_differ(
    idx: &LineIndex<'_>,
    first: usize,
    last: usize,
    ws: &[(usize, usize)],
    vary: &[bool],
) -> bool {
    let line = idx.line(first);
    let word = |k: usize, p: usize| -> Option<&str> {
        let l = idx.line(k);
        words(l).get(p).map(|&(c, d)| &l[c..d])
    };
    let letters = |p: usize| {
        (first..=last).all(|k| word(k, p).is_some_and(|w| w.chars().any(char::is_alphabetic)))
    };
    let named: Vec<usize> = (0..ws.len()).filter(|&p| vary[p] && letters(p)).collect();
    let [p] = named[..] else {
        return false;
    };
    // rows of measurements per name (a time, a size per module): a name
    // alone varying (`test * ... ok`, every test passed) is a list of one
    // status, which the count says
    if !(0..ws.len()).any(|q| q != p && vary[q]) {
        return false;
    }
    let Some(&(a, b)) = ws.get(p) else {
        return false;
    };
    let w0 = &line[a..b];
    let (mut pre, mut suf) = (w0.len(), w0.len());
    for k in first + 1..=last {
        let Some(w) = word(k, p) else {
            return false;
        };
        pre = pre.min(common_prefix(w0, w));
        suf = suf.min(common_suffix(w0, w));
    }
    pre == 0 && suf == 0
}

/// The line that stands for lines `first..=last` of a run (part of a run the
/// cut shows in part): the first line with the words that vary among these
/// lines replaced by their common start and end around `*`.
pub fn sub_pattern(idx: &LineIndex<'_>, first: usize, last: usize) -> String {
    let line = idx.line(first);
    let ws = words(line);
    let mut vary = vec![false; ws.len()];
    for k in first + 1..=last {
        let l = idx.line(k);
        for (p, &(c, d)) in words(l).iter().enumerate() {
            if let (Some(v), Some(&(a, b))) = (vary.get_mut(p), ws.get(p)) {
                *v |= line[a..b] != l[c..d];
            }
        }
    }
    pattern(idx, first, last, &ws, &vary)
}

/// The first line of the run with its varying words replaced by their common
/// start and end around `*`.
fn pattern(
    idx: &LineIndex<'_>,
    first: usize,
    last: usize,
    ws: &[(usize, usize)],
    vary: &[bool],
) -> String {
    let line = idx.line(first);
    // each line's words, once
    let all: Vec<(&str, Vec<(usize, usize)>)> = (first..=last)
        .map(|k| {
            let l = idx.line(k);
            (l, words(l))
        })
        .collect();
    let mut out = String::new();
    let mut at = 0;
    for (p, &(a, b)) in ws.iter().enumerate() {
        if !vary[p] {
            continue;
        }
        let w0 = &line[a..b];
        let (mut pre, mut suf) = (w0.len(), w0.len());
        let mut shortest = w0.len();
        for (l, lw) in &all[1..] {
            if let Some(&(c, d)) = lw.get(p) {
                let w = &l[c..d];
                pre = pre.min(common_prefix(w0, w));
                suf = suf.min(common_suffix(w0, w));
                shortest = shortest.min(d - c);
            }
        }
        // the start and end must not overlap in the shortest word
        if pre + suf > shortest {
            suf = shortest.saturating_sub(pre);
        }
        // (a suffix on a char boundary of w0)
        while suf > 0 && !w0.is_char_boundary(w0.len() - suf) {
            suf -= 1;
        }
        // digits next to the `*` are part of the varying number: `1*` of
        // 13, 14, 15 reads as a number starting with 1, show `*`
        while pre > 0 && w0.as_bytes()[pre - 1].is_ascii_digit() {
            pre -= 1;
        }
        while suf > 0 && w0.as_bytes()[w0.len() - suf].is_ascii_digit() {
            suf -= 1;
        }
        out.push_str(&line[at..a]);
        out.push_str(&w0[..pre]);
        out.push('*');
        out.push_str(&w0[w0.len() - suf..]);
        at = b;
    }
    out.push_str(&line[at..]);
    out
}

#[cfg(test)]
mod audit_tests {
    use super::*;
    use crate::blocks::classify;

    fn runs_of(text: &str) -> Vec<Run> {
        let idx = LineIndex::new(text);
        runs(&idx, &classify(&idx))
    }

    #[test]
    fn lines_naming_different_things_are_not_a_run() {
        // python3 -X importtime: the module name is what tells lines apart
        let t = "import time:        93 |         93 |   marshal\n\
                 import time:       469 |        469 |   posix\n\
                 import time:       812 |       1374 |   _frozen_importlib_external\n\
                 import time:        77 |         77 |   time\ndone\n";
        assert!(runs_of(t).is_empty());
        // names sharing a start are values of one thing
        let t = "test tests::parses_a ... ok\ntest tests::parses_b ... ok\ntest tests::parses_c ... ok\ndone\n";
        assert_eq!(runs_of(t).len(), 1);
    }

    #[test]
    fn a_repeated_line_is_not_collapsed_away_from_its_note() {
        let t = "fetch 1 ok\nfetch 2 ok\nfetch 3 ok\nfetch 4 ok\n(repeated 2 more times)\ndone\n";
        let r = runs_of(t);
        assert!(r.iter().all(|r| r.last < 3), "{r:?}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs_of(t: &str) -> Vec<Run> {
        let idx = LineIndex::new(t);
        let classes = crate::blocks::classify(&idx);
        runs(&idx, &classes)
    }

    #[test]
    fn test_progress_lines_collapse_with_their_names_starred() {
        let t = "test tests::parses_a_1 ... ok\ntest tests::parses_b_2 ... ok\ntest tests::parses_c_3 ... ok\ntest tests::other ... FAILED\ndone\n";
        let r = runs_of(t);
        assert_eq!(r.len(), 1);
        assert_eq!((r[0].first, r[0].last), (0, 2));
        assert_eq!(r[0].pattern, "test tests::parses_* ... ok");
    }

    #[test]
    fn status_words_and_lone_paths_do_not_collapse() {
        let t = "test a_1 ... ok\ntest a_2 ... ignored\ntest a_3 ... ok\nend\n";
        assert!(runs_of(t).is_empty());
        let t = "./src/a.rs\n./src/b.rs\n./src/c.rs\n./src/d.rs\nend\n";
        assert!(runs_of(t).is_empty());
    }

    #[test]
    fn versions_and_names_vary_together() {
        let t = "   Compiling proc-macro2 v1.0.107\n   Compiling quote v1.0.47\n   Compiling syn v3.0.9\n    Finished\n";
        let r = runs_of(t);
        assert_eq!(r[0].pattern, "   Compiling * v*");
        assert_eq!((r[0].first, r[0].last), (0, 2));
    }
}
