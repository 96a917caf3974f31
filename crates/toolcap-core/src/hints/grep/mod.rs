//! grep: search results were cut.
//!
//! **What it does.** Parses the common result formats (`file:line:text`, context
//! lines `file-line-text`, `--` separators, ripgrep's heading mode, single-file
//! `line:text`, `file:text` without line numbers, and files-only lists), counts the
//! matches and the files exactly, says how many matches the model saw, lists the
//! files with the most matches, and suggests narrowing to the top file, asking for
//! context there, capping matches per file, or listing the files only.
//!
//! **Why.** A cut grep result hides whether the first screen is 5% or 95% of the
//! matches, and which files dominate; the model then re-runs the same broad search.
//!
//! **Example.** `grep_content(pattern="def __init__", path="email/_header_value_parser.py")`

mod parse;

use super::{
    Context, Entry, Fact, Intent, Items, Listing, Note, Pattern, Purpose, RecoveryModel, Source,
    Suggestion, Title, top_counts,
};
use crate::quote;
use parse::{Format, Parsed, case_option, counts, parse};

/// Chars of a huge line shown either side of a match.
const HUGE_LINE_SIDE: usize = 80;

/// What a search's hints read: the call, the parsed result and its top file.
struct Search<'c, 'a> {
    ctx: &'c Context<'a>,
    p: Parsed<'c>,
    /// Files by matches, most first.
    files: Vec<(&'c str, usize)>,
    /// Matches the model saw whole.
    shown: usize,
    /// The pattern without an inline `(?i)`.
    bare: String,
    ignore_case: bool,
    /// ` -i` when the search ignored case.
    i_flag: &'static str,
    /// The top file and its matches.
    top: Option<(String, usize)>,
    /// The top file's match lines as a search of that one file prints them,
    /// with their line ends, in the file's order.
    top_sizes: Vec<usize>,
    /// Its matching lines are too long to narrow line by line.
    huge: bool,
    budget: usize,
    /// The top file and its shell-quoted path.
    top_file_q: Option<(String, String)>,
    /// The bare pattern shell-quoted.
    pq: Option<String>,
}

/// The recovery section of a cut search result: its facts, the top files, and
/// the searches that narrow it.
pub fn model(ctx: &Context<'_>) -> RecoveryModel {
    let pattern = ctx.arg(|a| &a.pattern);
    let path = ctx.arg(|a| &a.path);
    let lines: Vec<&str> = (0..ctx.idx.len()).map(|i| ctx.idx.line(i)).collect();
    let (ignore_case, bare) = case_option(ctx.args, pattern.as_deref().unwrap_or(""));
    let asked = ctx
        .args
        .get("output_mode")
        .and_then(|v| v.as_str())
        .is_some_and(|m| m.eq_ignore_ascii_case("count"));
    if let Some(c) = counts(&lines, asked) {
        return counts_model(ctx, pattern, path, ignore_case, bare, &c);
    }
    let p = parse(&lines, path.as_deref());
    let mut r = RecoveryModel::default();
    let shown = p
        .matches
        .iter()
        .filter(|m| ctx.line_shown(m.result_line))
        .count();
    let mut files = top_counts(p.matches.iter().filter_map(|m| m.file));
    // the most likely wanted first: outside generated trees (stable: most
    // matches first within each)
    files.sort_by_key(|&(f, _)| crate::cut::everyday::generated_path(f));
    r.facts.push(Fact::Matches {
        pattern: pattern.clone(),
        ignore_case,
        path: path.clone(),
        shown,
        total: p.matches.len(),
        items: if p.format == Format::FilesOnly {
            Items::Files
        } else {
            Items::Matches
        },
        format: p.format.as_str(),
    });
    if p.format != Format::FilesOnly && p.format != Format::SingleFile {
        r.facts.push(Fact::MatchFiles {
            files: files.len(),
            context_lines: p.context_lines,
        });
    }
    r.facts.push(Fact::Result(ctx.size()));
    r.structure = top_files(&p, &files);
    if pattern.is_none() {
        r.notes.push(Note::NoPattern);
        return r;
    }
    let lines_too = p.format != Format::FilesOnly;
    let s = Search::new(ctx, p, files, shown, bare, ignore_case);
    // first the file the matches point to: its matches, then the file
    // around them; the next lines of the result after them
    s.narrow_to_top_file(&mut r);
    let search_root = path.as_deref().unwrap_or(".");
    let (Some(pq), Some(rq)) = (&s.pq, quote::shell_path(search_root)) else {
        if lines_too {
            r.suggestions.extend(super::next_stored_lines(ctx));
        }
        return r;
    };
    s.top_file_in_context(&mut r);
    if lines_too {
        r.suggestions.extend(super::next_stored_lines(ctx));
    }
    s.per_file(&mut r, pq, &rq);
    s.next_file_names(&mut r, pq, &rq);
    r
}

/// The recovery section of cut counts per file (`path:count` lines): the
/// counts' sum, the files with a match, how many counts the model saw, the
/// files with the most, and the search of the top one (its count is how many
/// lines it prints).
fn counts_model(
    ctx: &Context<'_>,
    pattern: Option<String>,
    path: Option<String>,
    ignore_case: bool,
    bare: String,
    c: &[(&str, usize, usize)],
) -> RecoveryModel {
    let mut r = RecoveryModel::default();
    let sum: usize = c.iter().map(|&(_, n, _)| n).sum();
    let mut files: Vec<(&str, usize)> = c
        .iter()
        .filter(|&&(_, n, _)| n > 0)
        .map(|&(f, n, _)| (f, n))
        .collect();
    // most first, ties in the result's order
    files.sort_by_key(|&(_, n)| std::cmp::Reverse(n));
    let shown = c.iter().filter(|&&(_, _, i)| ctx.line_shown(i)).count();
    let mut fact = String::new();
    if let Some(p) = &pattern {
        fact.push_str(&format!(
            "Pattern: {} | ",
            crate::text::ellipsize(&quote::json_string(p), 160)
        ));
    }
    if ignore_case {
        fact.push_str("ignoring case | ");
    }
    if let Some(p) = &path {
        fact.push_str(&format!("Path: {} | ", crate::text::ellipsize(p, 160)));
    }
    fact.push_str(&format!(
        "Counts per file (file:count): {} in {}; {} of the {} counts shown",
        crate::text::plural(sum, "matching line", "matching lines"),
        crate::text::plural(files.len(), "file", "files"),
        crate::text::thousands(shown),
        crate::text::thousands(c.len()),
    ));
    if c.len() > files.len() {
        fact.push_str(&format!(
            " ({} with none)",
            crate::text::plural(c.len() - files.len(), "file", "files")
        ));
    }
    r.facts.push(Fact::Text(fact));
    r.facts.push(Fact::Result(ctx.size()));
    if files.len() > 1 {
        let lines: Vec<Entry> = files
            .iter()
            .take(5)
            .map(|(f, n)| Entry::FileMatches {
                file: (*f).to_string(),
                matches: *n,
            })
            .collect();
        r.structure = Some(Listing {
            title: Title::TopFilesByMatches {
                shown: lines.len(),
                total: files.len(),
            },
            lines,
        });
    }
    if pattern.is_none() {
        r.notes.push(Note::NoPattern);
        return r;
    }
    r.suggestions.extend(super::next_stored_lines(ctx));
    if let Some(&(file, n)) = files.first()
        && files.len() > 1
    {
        r.suggestions.extend(ctx.offer(
            Source::Nowhere,
            Intent::Grep {
                pattern: bare,
                path: file.to_string(),
                ignore_case,
            },
            Purpose::OnlyMatchesIn {
                matches: n,
                file: file.to_string(),
                chars: None,
            },
        ));
    }
    r
}

/// The files with the most matches, when there are several.
fn top_files(p: &Parsed<'_>, files: &[(&str, usize)]) -> Option<Listing> {
    if files.len() <= 1 || p.format == Format::FilesOnly {
        return None;
    }
    let mut lines: Vec<Entry> = files
        .iter()
        .take(5)
        .map(|(f, n)| Entry::FileMatches {
            file: (*f).to_string(),
            matches: *n,
        })
        .collect();
    // the other files named under their directories, as far as a line goes
    if let Some(rest) = files.get(5..).filter(|r| !r.is_empty()) {
        lines.push(Entry::Text(super::everyday::named_rest(
            format!(
                "... and {}",
                crate::text::plural(rest.len(), "more file", "more files")
            ),
            rest.iter().copied(),
        )));
    }
    Some(Listing {
        title: Title::TopFilesByMatches {
            shown: files.len().min(5),
            total: files.len(),
        },
        lines,
    })
}

impl<'c, 'a> Search<'c, 'a> {
    fn new(
        ctx: &'c Context<'a>,
        p: Parsed<'c>,
        files: Vec<(&'c str, usize)>,
        shown: usize,
        bare: String,
        ignore_case: bool,
    ) -> Self {
        let top = files.first().map(|(f, n)| (f.to_string(), *n));
        let budget = ctx.shell_budget();
        let top_sizes = match &top {
            Some((file, _)) if p.format != Format::FilesOnly => top_sizes(ctx, &p, file),
            _ => Vec::new(),
        };
        // A file whose matching lines are huge (minified code, data on one line)
        // is not narrowed line by line: one line would not fit.
        let huge = top_sizes.iter().any(|&c| c > budget / 2);
        let top_file_q = top
            .as_ref()
            .and_then(|(f, _)| quote::shell_path(f).map(|q| (f.clone(), q)));
        let pq = quote::shell_word(&bare);
        Search {
            ctx,
            p,
            files,
            shown,
            bare,
            ignore_case,
            i_flag: if ignore_case { " -i" } else { "" },
            top,
            top_sizes,
            huge,
            budget,
            top_file_q,
            pq,
        }
    }

    /// The most matches of the top file, from the first, that print within
    /// `room`, and their chars.
    fn fitting(&self, room: usize) -> (usize, usize) {
        let mut used = 0;
        let mut k = 0;
        for &c in &self.top_sizes {
            if used + c > room {
                break;
            }
            used += c;
            k += 1;
        }
        (k, used)
    }

    fn shell(&self, command: String, purpose: Purpose) -> Option<Suggestion> {
        self.ctx
            .offer(Source::Nowhere, Intent::Shell(command), purpose)
    }

    /// Only the top file's matches: from the stored result, the search of
    /// that file, or its first matches that fit.
    fn narrow_to_top_file(&self, r: &mut RecoveryModel) {
        let ctx = self.ctx;
        let Some((file, n)) = &self.top else {
            return;
        };
        if self.p.format == Format::FilesOnly || self.files.len() <= 1 || self.huge {
            return;
        }
        let (k, chars) = self.fitting(self.budget);
        // stored `file:line:` lines are found in the stored result itself
        if ctx.stored() && self.p.format == Format::FileLine {
            let intent = Intent::Search(Pattern {
                regex: format!("^{}:[0-9]+:", quote::regex_literal(file)),
                shell: None,
            });
            let purpose = Purpose::OnlyMatchesIn {
                matches: *n,
                file: file.clone(),
                chars: None,
            };
            r.suggestions
                .extend(ctx.offer(Source::Nowhere, intent, purpose));
        } else if k == *n {
            let intent = Intent::Grep {
                pattern: self.bare.clone(),
                path: file.clone(),
                ignore_case: self.ignore_case,
            };
            let purpose = Purpose::OnlyMatchesIn {
                matches: *n,
                file: file.clone(),
                chars: Some(chars),
            };
            r.suggestions
                .extend(ctx.offer(Source::Nowhere, intent, purpose));
        } else if k > 0
            && let (Some(pq), Some((_, fq))) = (&self.pq, &self.top_file_q)
        {
            let i_flag = self.i_flag;
            r.suggestions.extend(self.shell(
                format!("grep -n -E{i_flag} -m {k} -e {pq} {fq}"),
                Purpose::FirstMatchesIn {
                    first: k,
                    matches: *n,
                    file: file.clone(),
                    chars,
                },
            ));
        }
    }

    /// The top file's matches with context lines (or, in huge lines, with a
    /// little of each line either side).
    fn top_file_in_context(&self, r: &mut RecoveryModel) {
        let (Some((file, fq)), Some((_, n)), Some(pq)) = (&self.top_file_q, &self.top, &self.pq)
        else {
            return;
        };
        if self.p.format == Format::FilesOnly {
            return;
        }
        let (i_flag, budget, bare) = (self.i_flag, self.budget, &self.bare);
        if self.huge {
            // each match with a little of its line either side, as many as fit
            let each = 2 * HUGE_LINE_SIDE + 20;
            let k = (budget / each).max(1);
            if let Some(wq) = quote::shell_word(&format!(
                ".{{0,{HUGE_LINE_SIDE}}}({bare}).{{0,{HUGE_LINE_SIDE}}}"
            )) {
                r.suggestions.extend(
                    self.shell(
                        format!("grep -n -o -E{i_flag} -e {wq} {fq} | head -n {k}"),
                        Purpose::MatchesInHugeLines {
                            first: k,
                            side: HUGE_LINE_SIDE,
                            file: file.clone(),
                            longest: self
                                .top_sizes
                                .iter()
                                .max()
                                .copied()
                                .unwrap_or(0)
                                .saturating_sub(1),
                        },
                    ),
                );
            }
            return;
        }
        // context lines are not in this result: room for each match's
        // line and its context lines counted at the match lines' average
        let total: usize = self.top_sizes.iter().sum();
        let avg = total.div_ceil(self.top_sizes.len().max(1)).max(1);
        if let Some((c, k)) = [3usize, 2, 1]
            .iter()
            .map(|&c| (c, (budget / ((2 * c + 1) * avg)).min(*n)))
            .find(|&(_, k)| k > 0)
        {
            r.suggestions.extend(self.shell(
                format!("grep -n -E{i_flag} -m {k} -C {c} -e {pq} {fq}"),
                Purpose::MatchesWithContext {
                    first: k,
                    matches: *n,
                    file: file.clone(),
                    context: c,
                },
            ));
        }
    }

    /// The search again with at most a few matches per file, and the match
    /// counts per file: sized from this result (the same search prints the
    /// same lines).
    fn per_file(&self, r: &mut RecoveryModel, pq: &str, rq: &str) {
        if self.p.format == Format::SingleFile || self.p.format == Format::FilesOnly {
            return;
        }
        let (i_flag, budget) = (self.i_flag, self.budget);
        // the most matches per file whose lines print within the budget
        if self.p.format == Format::FileLine
            && let Some((m, (lines, _))) = (1..=3)
                .rev()
                .map(|m| (m, self.per_file_lines(m)))
                .find(|(_, (_, c))| *c <= budget)
            && lines < self.p.matches.len()
        {
            r.suggestions.extend(self.shell(
                format!("grep -rn -E{i_flag} -m {m} -e {pq} {rq}"),
                Purpose::MatchesPerFile { per_file: m, lines },
            ));
        }
        // `file:count` lines, as many as print within the budget
        let mut n = 0;
        let mut chars = 0;
        for (f, c) in &self.files {
            let l = f.chars().count() + 1 + c.to_string().len() + 1;
            if n == 40 || chars + l > budget {
                break;
            }
            chars += l;
            n += 1;
        }
        if n > 0 {
            r.suggestions.extend(self.shell(
                format!(
                    "grep -rc -E{i_flag} -e {pq} {rq} | grep -v ':0$' | sort -t: -k2,2 -nr | head -n {n}"
                ),
                Purpose::MatchCounts { top: n },
            ));
        }
    }

    /// Lines and chars of this result's matches, at most `m` per file.
    fn per_file_lines(&self, m: usize) -> (usize, usize) {
        let mut seen: std::collections::HashMap<&str, usize> = Default::default();
        let mut lines = 0;
        let mut chars = 0;
        for x in &self.p.matches {
            let k = seen.entry(x.file.unwrap_or("")).or_insert(0);
            *k += 1;
            if *k <= m {
                lines += 1;
                chars += self.ctx.idx.line_with_end(x.result_line).chars().count();
            }
        }
        (lines, chars)
    }

    /// The next names of a files-only list: from the stored list, or the
    /// search run again.
    fn next_file_names(&self, r: &mut RecoveryModel, pq: &str, rq: &str) {
        if self.p.format != Format::FilesOnly {
            return;
        }
        let ctx = self.ctx;
        let (shown, i_flag) = (self.shown, self.i_flag);
        let room = ctx.lines_room(Source::Nowhere);
        let from = shown + 1;
        if ctx.stored() {
            // the next names of the stored list, as many as come back whole
            if let Some((end, chars)) = ctx.lines_within(from, ctx.totals.lines, room) {
                r.suggestions.extend(ctx.offer(
                    Source::Nowhere,
                    Intent::Lines { start: from, end },
                    Purpose::NextFileNames {
                        shown,
                        start: from,
                        end,
                        chars,
                    },
                ));
            }
        } else {
            r.suggestions.extend(self.shell(
                format!(
                    "grep -rl -E{i_flag} -e {pq} {rq} | sed -n '{},{}p'",
                    shown + 1,
                    shown + 200
                ),
                Purpose::NextFileNamesRerun { shown },
            ));
        }
    }
}

/// The top file's match lines as a search of that one file prints them
/// (`N:text`, without the `file:` prefix), with their line ends: what the
/// narrowing suggestions print, counted from this result. In the file's order
/// (a sorted result puts line 10 before line 9), so that the first K of them
/// are what `grep -m K` prints.
fn top_sizes(ctx: &Context<'_>, p: &Parsed<'_>, file: &str) -> Vec<usize> {
    let mut v: Vec<(usize, usize)> = p
        .matches
        .iter()
        .filter(|m| m.file == Some(file))
        .map(|m| {
            let line = ctx.idx.line(m.result_line);
            let prefix = match p.format {
                Format::FileLine | Format::FileText => file.len() + 1,
                _ => 0,
            };
            let rest = line.get(prefix..).unwrap_or(line);
            let no = rest
                .split(':')
                .next()
                .and_then(|d| d.parse::<usize>().ok())
                .unwrap_or(usize::MAX);
            (no, rest.chars().count() + 1)
        })
        .collect();
    v.sort_by_key(|&(no, _)| no);
    v.into_iter().map(|(_, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hints of a real search result (CPython's `raise ` in
    /// Lib/asyncio) cut after its first `kept` lines.
    fn cut_after(kept: usize, args: serde_json::Value) -> RecoveryModel {
        let text = crate::test_fixture("grep/raise_asyncio.txt");
        crate::hints::head_cut("grep_content", text, kept, &args, None, None, model)
    }

    #[test]
    fn a_cut_search_states_its_matches_and_files_as_data() {
        let text = crate::test_fixture("grep/raise_asyncio.txt");
        // counted here from the text itself: every line is `file:line:text`
        let files: std::collections::HashSet<&str> =
            text.lines().filter_map(|l| l.split(':').next()).collect();
        let args = serde_json::json!({"pattern": "raise ", "path": "Lib/asyncio"});
        let m = cut_after(40, args);
        assert_eq!(
            m.facts[0],
            Fact::Matches {
                pattern: Some("raise ".into()),
                ignore_case: false,
                path: Some("Lib/asyncio".into()),
                shown: 40,
                total: text.lines().count(),
                items: Items::Matches,
                format: "file:line:text",
            }
        );
        assert_eq!(
            m.facts[1],
            Fact::MatchFiles {
                files: files.len(),
                context_lines: 0
            }
        );
        assert_eq!(
            m.facts[2],
            Fact::Result(crate::hints::Size {
                lines: text.lines().count(),
                chars: text.chars().count()
            })
        );
        assert!(m.notes.is_empty());
        // the files with the most matches, counted from the text itself
        let mut counts: Vec<(&str, usize)> = files
            .iter()
            .map(|f| {
                (
                    *f,
                    text.lines()
                        .filter(|l| l.split(':').next() == Some(f))
                        .count(),
                )
            })
            .collect();
        counts.sort_by_key(|&(f, n)| (std::cmp::Reverse(n), f));
        let l = m.structure.clone().expect("top files");
        assert_eq!(
            l.title,
            Title::TopFilesByMatches {
                shown: 5,
                total: files.len()
            }
        );
        let Entry::FileMatches { matches, .. } = &l.lines[0] else {
            panic!("{:?}", l.lines[0]);
        };
        assert_eq!(*matches, counts[0].1);
        // the words come from the data, numbers exact
        let r = m.render();
        assert_eq!(
            r.facts[0],
            format!(
                "Pattern: \"raise \" | Path: Lib/asyncio | 40 shown of {} matches (file:line:text)",
                text.lines().count()
            )
        );
        assert!(
            r.suggestions
                .iter()
                .any(|s| s.purpose.starts_with("match counts per file"))
        );
    }

    #[test]
    fn a_search_without_its_pattern_says_so_and_suggests_nothing() {
        let m = cut_after(40, serde_json::json!({"path": "Lib/asyncio"}));
        assert_eq!(m.notes, [Note::NoPattern]);
        assert!(m.suggestions.is_empty());
        assert!(matches!(
            m.facts[0],
            Fact::Matches {
                pattern: None,
                shown: 40,
                ..
            }
        ));
    }
}
