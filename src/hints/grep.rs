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

use crate::text::static_regex;
use std::sync::LazyLock;

use regex::Regex;

use super::{Context, Intent, Pattern, Recovery, Source, Structure, top_counts};
use crate::quote;
use crate::text::{ellipsize, plural};

/// How the result lines were laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `file:line:text` (grep -rn, rg --no-heading).
    FileLine,
    /// ripgrep's heading mode: a file name, then `line:text` lines.
    Heading,
    /// `line:text` from one file.
    SingleFile,
    /// `file:text` (grep -r without -n).
    FileText,
    /// one file name per line (grep -l, rg --files-with-matches).
    FilesOnly,
    /// `File: PATH` headings, then `L12: text` lines (Gemini CLI's grep_search).
    Labelled,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::FileLine => "file:line:text",
            Format::Heading => "heading mode",
            Format::SingleFile => "line:text",
            Format::FileText => "file:text",
            Format::FilesOnly => "file list",
            Format::Labelled => "File:/L<n>: blocks",
        }
    }
}

/// One match line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match<'a> {
    /// 0-based line of the result text.
    pub result_line: usize,
    pub file: Option<&'a str>,
}

/// Parsed grep output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed<'a> {
    pub format: Format,
    pub matches: Vec<Match<'a>>,
    pub context_lines: usize,
}

static FILE_LINE: LazyLock<Regex> = LazyLock::new(|| static_regex(r"^(.+?):(\d+):"));
static FILE_LINE_CONTEXT: LazyLock<Regex> = LazyLock::new(|| static_regex(r"^(.+?)-(\d+)-"));
static NUM_MATCH: LazyLock<Regex> = LazyLock::new(|| static_regex(r"^(\d+):"));
static NUM_CONTEXT: LazyLock<Regex> = LazyLock::new(|| static_regex(r"^(\d+)-"));
static FILE_TEXT: LazyLock<Regex> = LazyLock::new(|| static_regex(r"^([^:\s][^:]*):"));
static LABELLED_MATCH: LazyLock<Regex> = LazyLock::new(|| static_regex(r"^L\d+: "));

/// Gemini CLI's grep_search layout: a `Found N matches ...` line, then per file
/// `---`, `File: PATH` and its matches as `L12: text`.
fn labelled<'a>(lines: &[&'a str]) -> Option<Parsed<'a>> {
    let labelled = lines.iter().filter(|l| LABELLED_MATCH.is_match(l)).count();
    let headings = lines.iter().filter(|l| l.starts_with("File: ")).count();
    if labelled == 0 || headings == 0 {
        return None;
    }
    let mut matches = Vec::new();
    let mut file = None;
    for (i, l) in lines.iter().enumerate() {
        if let Some(f) = l.strip_prefix("File: ") {
            file = Some(f);
        } else if LABELLED_MATCH.is_match(l) {
            matches.push(Match {
                result_line: i,
                file,
            });
        }
    }
    Some(Parsed {
        format: Format::Labelled,
        matches,
        context_lines: 0,
    })
}

/// Parse grep-like output, one line per item of `lines`; `default_file` is the file
/// searched when the output names none (single-file `line:text`).
pub fn parse<'a>(lines: &[&'a str], default_file: Option<&'a str>) -> Parsed<'a> {
    if let Some(p) = labelled(lines) {
        return p;
    }
    let (mut fl, mut num, mut ft, mut other) = (0usize, 0usize, 0usize, 0usize);
    for l in lines {
        if l.is_empty() || *l == "--" {
            continue;
        }
        // `12:text` whose text holds `:34:` (minified code) is a line of a
        // single file's search, not a file named `12:text...` (a file name
        // with a colon, after a line number, is not what grep prints)
        let file_line = FILE_LINE
            .captures(l)
            .and_then(|c| c.get(1))
            .is_some_and(|f| !(f.as_str().contains(':') && NUM_MATCH.is_match(l)));
        if file_line {
            fl += 1;
        } else if NUM_MATCH.is_match(l) || NUM_CONTEXT.is_match(l) {
            num += 1;
        } else if FILE_TEXT.is_match(l) {
            ft += 1;
        } else {
            other += 1;
        }
    }
    let format = if num > fl && num >= ft {
        if other > 0 {
            Format::Heading
        } else {
            Format::SingleFile
        }
    } else if fl > 0 && fl >= ft {
        Format::FileLine
    } else if ft > other {
        Format::FileText
    } else {
        Format::FilesOnly
    };
    let mut matches = Vec::new();
    let mut context_lines = 0;
    let mut heading: Option<&str> = default_file;
    for (i, l) in lines.iter().enumerate() {
        if l.is_empty() || *l == "--" {
            continue;
        }
        match format {
            Format::FileLine => {
                if let Some(c) = FILE_LINE.captures(l) {
                    let file = c.get(1).map(|m| m.as_str());
                    matches.push(Match {
                        result_line: i,
                        file,
                    });
                } else if FILE_LINE_CONTEXT.is_match(l) {
                    context_lines += 1;
                }
            }
            Format::Heading | Format::SingleFile => {
                if NUM_MATCH.is_match(l) {
                    matches.push(Match {
                        result_line: i,
                        file: heading,
                    });
                } else if NUM_CONTEXT.is_match(l) {
                    context_lines += 1;
                } else {
                    heading = Some(l);
                }
            }
            Format::FileText => {
                if let Some(c) = FILE_TEXT.captures(l) {
                    matches.push(Match {
                        result_line: i,
                        file: c.get(1).map(|m| m.as_str()),
                    });
                }
            }
            Format::FilesOnly => matches.push(Match {
                result_line: i,
                file: Some(l),
            }),
            Format::Labelled => {}
        }
    }
    Parsed {
        format,
        matches,
        context_lines,
    }
}

/// Whether the call searched ignoring case, in any harness's spelling: a true
/// `-i` / `i` / `ignore_case` / `case_insensitive` (or camelCase) argument, a
/// false `case_sensitive`, or an inline `(?i)` at the head of the pattern;
/// and the pattern without that inline flag (`grep -E` does not take it).
pub fn case_option(args: &serde_json::Value, pattern: &str) -> (bool, String) {
    let truthy = |v: &serde_json::Value| match v {
        serde_json::Value::Bool(b) => Some(*b),
        serde_json::Value::String(s) => match s.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" => Some(true),
            "false" | "0" | "no" => Some(false),
            _ => None,
        },
        serde_json::Value::Number(n) => n.as_i64().map(|n| n != 0),
        _ => None,
    };
    let mut ignore = false;
    if let Some(obj) = args.as_object() {
        for (k, v) in obj {
            let key = k
                .trim_start_matches('-')
                .replace(['_', '-'], "")
                .to_ascii_lowercase();
            match key.as_str() {
                "i" | "ignorecase" | "caseinsensitive" | "insensitive" => {
                    ignore |= truthy(v) == Some(true);
                }
                "casesensitive" => ignore |= truthy(v) == Some(false),
                _ => {}
            }
        }
    }
    match pattern.strip_prefix("(?i)") {
        Some(rest) => (true, rest.to_string()),
        None => (ignore, pattern.to_string()),
    }
}

/// Chars of a huge line shown either side of a match.
const HUGE_LINE_SIDE: usize = 80;

pub fn build(ctx: &Context<'_>) -> Recovery {
    let pattern = ctx.arg(|a| &a.pattern);
    let (ignore_case, bare) = case_option(ctx.args, pattern.as_deref().unwrap_or(""));
    let i_flag = if ignore_case { " -i" } else { "" };
    let path = ctx.arg(|a| &a.path);
    let lines: Vec<&str> = (0..ctx.idx.len()).map(|i| ctx.idx.line(i)).collect();
    let p = parse(&lines, path.as_deref());
    let mut r = Recovery::default();
    let shown = p
        .matches
        .iter()
        .filter(|m| ctx.line_shown(m.result_line))
        .count();
    let files = top_counts(p.matches.iter().filter_map(|m| m.file));
    let mut head = Vec::new();
    if let Some(pat) = &pattern {
        head.push(format!(
            "Pattern: {}",
            ellipsize(&quote::json_string(pat), 120)
        ));
        if ignore_case {
            head.push("ignoring case".to_string());
        }
    }
    if let Some(pa) = &path {
        head.push(format!("Path: {}", ellipsize(pa, 120)));
    }
    let (one, many) = if p.format == Format::FilesOnly {
        ("file", "files")
    } else {
        ("match", "matches")
    };
    head.push(format!(
        "{} shown of {} ({})",
        shown,
        plural(p.matches.len(), one, many),
        p.format.as_str()
    ));
    r.facts.push(head.join(" | "));
    if p.format != Format::FilesOnly && p.format != Format::SingleFile {
        let mut f = format!("{} with matches", plural(files.len(), "file", "files"));
        if p.context_lines > 0 {
            f.push_str(&format!(
                "; {} of context",
                plural(p.context_lines, "line", "lines")
            ));
        }
        r.facts.push(f);
    }
    r.facts.push(format!("Result: {}", ctx.size_fact()));
    if files.len() > 1 && p.format != Format::FilesOnly {
        let lines: Vec<String> = files
            .iter()
            .take(5)
            .map(|(f, n)| {
                format!(
                    "- {} ({})",
                    ellipsize(f, 120),
                    plural(*n, "match", "matches")
                )
            })
            .collect();
        r.structure = Some(Structure {
            title: format!(
                "Top files by matches ({} of {})",
                crate::text::thousands(lines.len()),
                crate::text::thousands(files.len())
            ),
            lines,
        });
    }
    if pattern.is_none() {
        r.notes.push(
            "The search pattern is not in the tool arguments, so no narrower search can be \
             suggested; pass it as `pattern` to get runnable suggestions."
                .to_string(),
        );
        return r;
    }
    if p.format != Format::FilesOnly {
        r.suggestions.extend(super::next_stored_lines(ctx));
    }
    let top = files.first().map(|(f, n)| (f.to_string(), *n));
    let search_root = path.clone().unwrap_or_else(|| ".".to_string());
    let budget = ctx.shell_budget();
    // The top file's match lines as a search of that one file prints them
    // (`N:text`, without the `file:` prefix), with their line ends: what the
    // narrowing suggestions below print, counted from this result.
    // In the file's order (a sorted result puts line 10 before line 9), so
    // that the first K of them are what `grep -m K` prints.
    let top_sizes: Vec<usize> = match &top {
        Some((file, _)) if p.format != Format::FilesOnly => {
            let mut v: Vec<(usize, usize)> = p
                .matches
                .iter()
                .filter(|m| m.file == Some(file.as_str()))
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
        _ => Vec::new(),
    };
    // A file whose matching lines are huge (minified code, data on one line)
    // is not narrowed line by line: one line would not fit.
    let huge = top_sizes.iter().any(|&c| c > budget / 2);
    // The most matches of the top file, from the first, that print within `room`.
    let fitting = |room: usize| -> (usize, usize) {
        let mut used = 0;
        let mut k = 0;
        for &c in &top_sizes {
            if used + c > room {
                break;
            }
            used += c;
            k += 1;
        }
        (k, used)
    };
    let top_file_q = top
        .as_ref()
        .and_then(|(f, _)| quote::shell_path(f).map(|q| (f.clone(), q)));
    let pq = quote::shell_word(&bare);
    if let Some((file, n)) = &top
        && p.format != Format::FilesOnly
        && files.len() > 1
        && !huge
    {
        let (k, chars) = fitting(budget);
        // stored `file:line:` lines are found in the stored result itself
        let stored_lines = ctx.stored() && p.format == Format::FileLine;
        if stored_lines {
            let intent = Intent::Search(Pattern {
                regex: format!("^{}:[0-9]+:", quote::regex_literal(file)),
                shell: None,
            });
            let purpose = format!(
                "only the {} in {}",
                plural(*n, "match", "matches"),
                ellipsize(file, 80)
            );
            r.suggestions
                .extend(ctx.offer(Source::Nowhere, intent, purpose));
        } else if k == *n {
            let intent = Intent::Grep {
                pattern: bare.clone(),
                path: file.clone(),
                ignore_case,
            };
            let purpose = format!(
                "only the {} in {} ({})",
                plural(*n, "match", "matches"),
                ellipsize(file, 80),
                plural(chars, "char", "chars")
            );
            r.suggestions
                .extend(ctx.offer(Source::Nowhere, intent, purpose));
        } else if k > 0
            && let (Some(pq), Some((_, fq))) = (&pq, &top_file_q)
        {
            r.suggestions.extend(ctx.offer(
                Source::Nowhere,
                Intent::Shell(format!("grep -n -E{i_flag} -m {k} -e {pq} {fq}")),
                format!(
                    "the first {k} of the {} in {} ({})",
                    plural(*n, "match", "matches"),
                    ellipsize(file, 80),
                    plural(chars, "char", "chars")
                ),
            ));
        }
    }
    let (Some(pq), Some(rq)) = (pq, quote::shell_path(&search_root)) else {
        return r;
    };
    let shell = |command: String, purpose: String| {
        ctx.offer(Source::Nowhere, Intent::Shell(command), purpose)
    };
    if let Some((file, fq)) = &top_file_q
        && let Some((_, n)) = &top
        && p.format != Format::FilesOnly
    {
        if huge {
            // each match with a little of its line either side, as many as fit
            let each = 2 * HUGE_LINE_SIDE + 20;
            let k = (budget / each).max(1);
            if let Some(wq) = quote::shell_word(&format!(
                ".{{0,{HUGE_LINE_SIDE}}}({bare}).{{0,{HUGE_LINE_SIDE}}}"
            )) {
                r.suggestions.extend(shell(
                    format!("grep -n -o -E{i_flag} -e {wq} {fq} | head -n {k}"),
                    format!(
                        "the first {k} matches in {} with up to {HUGE_LINE_SIDE} chars either \
                         side (its matching lines are up to {} long)",
                        ellipsize(file, 80),
                        plural(
                            top_sizes.iter().max().copied().unwrap_or(0) - 1,
                            "char",
                            "chars"
                        )
                    ),
                ));
            }
        } else {
            // context lines are not in this result: room for each match's
            // line and its context lines counted at the match lines' average
            let total: usize = top_sizes.iter().sum();
            let avg = total.div_ceil(top_sizes.len().max(1)).max(1);
            if let Some((c, k)) = [3usize, 2, 1]
                .iter()
                .map(|&c| (c, (budget / ((2 * c + 1) * avg)).min(*n)))
                .find(|&(_, k)| k > 0)
            {
                r.suggestions.extend(shell(
                    format!("grep -n -E{i_flag} -m {k} -C {c} -e {pq} {fq}"),
                    format!(
                        "{} in {} with {} of context each (at most {}, sized from the match lines)",
                        if k == *n {
                            format!("the {}", plural(*n, "match", "matches"))
                        } else {
                            format!("the first {k} of the {}", plural(*n, "match", "matches"))
                        },
                        ellipsize(file, 80),
                        plural(c, "line", "lines"),
                        plural((2 * c + 1) * k, "line", "lines")
                    ),
                ));
            }
        }
    }
    if p.format != Format::SingleFile && p.format != Format::FilesOnly {
        // Sized from this result (the same search prints the same lines): the
        // most matches per file whose lines print within the budget.
        if p.format == Format::FileLine {
            let per_file = |m: usize| -> (usize, usize) {
                let mut seen: std::collections::HashMap<&str, usize> = Default::default();
                let mut lines = 0;
                let mut chars = 0;
                for x in &p.matches {
                    let k = seen.entry(x.file.unwrap_or("")).or_insert(0);
                    *k += 1;
                    if *k <= m {
                        lines += 1;
                        chars += ctx.idx.line_with_end(x.result_line).chars().count();
                    }
                }
                (lines, chars)
            };
            if let Some((m, (lines, _))) = (1..=3)
                .rev()
                .map(|m| (m, per_file(m)))
                .find(|(_, (_, c))| *c <= budget)
                && lines < p.matches.len()
            {
                r.suggestions.extend(shell(
                    format!("grep -rn -E{i_flag} -m {m} -e {pq} {rq}"),
                    format!(
                        "at most {} per file: {} in this result",
                        plural(m, "match", "matches"),
                        plural(lines, "line", "lines")
                    ),
                ));
            }
        }
        // `file:count` lines, as many as print within the budget
        let mut n = 0;
        let mut chars = 0;
        for (f, c) in &files {
            let l = f.chars().count() + 1 + c.to_string().len() + 1;
            if n == 40 || chars + l > budget {
                break;
            }
            chars += l;
            n += 1;
        }
        if n > 0 {
            r.suggestions.extend(shell(
                format!(
                    "grep -rc -E{i_flag} -e {pq} {rq} | grep -v ':0$' | sort -t: -k2,2 -nr | head -n {n}"
                ),
                format!("match counts per file, most first (the top {n})"),
            ));
        }
    }
    if p.format == Format::FilesOnly {
        let room = ctx.lines_room(Source::Nowhere);
        let from = shown + 1;
        if ctx.stored() {
            // the next names of the stored list, as many as come back whole
            if let Some((end, chars)) = ctx.lines_within(from, ctx.totals.lines, room) {
                r.suggestions.extend(ctx.offer(
                    Source::Nowhere,
                    Intent::Lines { start: from, end },
                    format!(
                        "the next {} after the {} shown (lines {from}-{end}, {})",
                        plural(end + 1 - from, "file name", "file names"),
                        crate::text::thousands(shown),
                        plural(chars, "char", "chars")
                    ),
                ));
            }
        } else {
            r.suggestions.extend(shell(
                format!(
                    "grep -rl -E{i_flag} -e {pq} {rq} | sed -n '{},{}p'",
                    shown + 1,
                    shown + 200
                ),
                format!(
                    "the next file names after the {} shown",
                    crate::text::thousands(shown)
                ),
            ));
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Parsed<'_> {
        let lines: Vec<&str> = s.lines().collect();
        parse(&lines, Some("f.py"))
    }

    #[test]
    fn file_line_with_context_and_separators() {
        let r = p("a.py-1-ctx\na.py:2:hit\n--\nb.py:9:hit\nb.py-10-ctx\n");
        assert_eq!(r.format, Format::FileLine);
        assert_eq!(r.matches.len(), 2);
        assert_eq!(r.context_lines, 2);
        assert_eq!(r.matches[1].file, Some("b.py"));
    }

    #[test]
    fn gemini_cli_labelled_blocks() {
        // the layout of Gemini CLI 0.61.0's grep_search (its GrepTool fallback)
        let r = p(
            "Found 3 matches for pattern \"def \" in path \"/p\":\n---\nFile: json/__init__.py\nL60:     >>> def as_complex(dct):\nL75: def encode(\n---\nFile: json/decoder.py\nL31:     def __init__(self, msg, doc, pos):\n",
        );
        assert_eq!(r.format, Format::Labelled);
        let files: Vec<_> = r.matches.iter().map(|m| (m.result_line, m.file)).collect();
        assert_eq!(
            files,
            [
                (3, Some("json/__init__.py")),
                (4, Some("json/__init__.py")),
                (7, Some("json/decoder.py"))
            ]
        );
    }

    #[test]
    fn heading_mode() {
        let r = p("src/a.rs\n3:fn a()\n7:fn b()\n\nsrc/b.rs\n1:fn c()\n");
        assert_eq!(r.format, Format::Heading);
        assert_eq!(r.matches.len(), 3);
        assert_eq!(r.matches[2].file, Some("src/b.rs"));
    }

    #[test]
    fn single_file_and_files_only_and_file_text() {
        let r = p("3:x\n4:y\n");
        assert_eq!(r.format, Format::SingleFile);
        assert_eq!(r.matches[0].file, Some("f.py"));
        let r = p("a/b.py\nc/d.py\ne.py\n");
        assert_eq!(r.format, Format::FilesOnly);
        assert_eq!(r.matches.len(), 3);
        let r = p("a.py:import os\nb.py:import os\n");
        assert_eq!(r.format, Format::FileText);
        assert_eq!(r.matches[1].file, Some("b.py"));
    }

    #[test]
    fn a_minified_line_holding_a_colon_and_a_number_is_a_single_file_line() {
        // jquery.min.js searched alone: `2:!function(e,t){...?t(e,!0):1:...`
        // was read as a match in a file named `2:!function(e,t){...`
        let r = p("2:!function(e,t){return t?e:0:e}(this,function(w){var a={x:1:2}})\n");
        assert_eq!(r.format, Format::SingleFile);
        assert_eq!(r.matches[0].file, Some("f.py"));
        // a real file:line:text line still is one
        let r = p("src/a.js:12:var a = b ? c:3: d\n");
        assert_eq!(r.format, Format::FileLine);
        assert_eq!(r.matches[0].file, Some("src/a.js"));
    }
}
