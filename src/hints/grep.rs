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
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::FileLine => "file:line:text",
            Format::Heading => "heading mode",
            Format::SingleFile => "line:text",
            Format::FileText => "file:text",
            Format::FilesOnly => "file list",
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

static FILE_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(.+?):(\d+):").expect("static regex"));
static FILE_LINE_CONTEXT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(.+?)-(\d+)-").expect("static regex"));
static NUM_MATCH: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^(\d+):").expect("static regex"));
static NUM_CONTEXT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\d+)-").expect("static regex"));
static FILE_TEXT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([^:\s][^:]*):").expect("static regex"));

/// Parse grep-like output, one line per item of `lines`; `default_file` is the file
/// searched when the output names none (single-file `line:text`).
pub fn parse<'a>(lines: &[&'a str], default_file: Option<&'a str>) -> Parsed<'a> {
    let (mut fl, mut num, mut ft, mut other) = (0usize, 0usize, 0usize, 0usize);
    for l in lines {
        if l.is_empty() || *l == "--" {
            continue;
        }
        if FILE_LINE.is_match(l) {
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
        }
    }
    Parsed {
        format,
        matches,
        context_lines,
    }
}

pub fn build(ctx: &Context<'_>) -> Recovery {
    let pattern = ctx.arg(|a| &a.pattern);
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
    }
    if let Some(pa) = &path {
        head.push(format!("Path: {}", ellipsize(pa, 120)));
    }
    let what = if p.format == Format::FilesOnly {
        "files"
    } else {
        "matches"
    };
    head.push(format!(
        "{} shown of {} ({})",
        shown,
        plural(p.matches.len(), what.trim_end_matches('s'), what),
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
    let Some(pat) = pattern else {
        r.notes.push(
            "The search pattern is not in the tool arguments, so no narrower search can be \
             suggested; pass it as `pattern` to get runnable suggestions."
                .to_string(),
        );
        return r;
    };
    if p.format != Format::FilesOnly {
        r.suggestions.extend(super::next_stored_lines(ctx));
    }
    let top = files.first().map(|(f, n)| (f.to_string(), *n));
    let search_root = path.clone().unwrap_or_else(|| ".".to_string());
    if let Some((file, n)) = &top
        && p.format != Format::FilesOnly
        && files.len() > 1
    {
        let purpose = format!(
            "only the {} in {}",
            plural(*n, "match", "matches"),
            ellipsize(file, 80)
        );
        // stored `file:line:` lines are found in the stored result itself
        let stored_lines = ctx.stored() && p.format == Format::FileLine;
        let intent = if stored_lines {
            Intent::Search(Pattern {
                regex: format!("^{}:[0-9]+:", quote::regex_literal(file)),
                shell: None,
            })
        } else {
            Intent::Grep {
                pattern: pat.clone(),
                path: file.clone(),
            }
        };
        r.suggestions
            .extend(ctx.offer(Source::Nowhere, intent, purpose));
    }
    let (Some(pq), Some(rq)) = (quote::shell_word(&pat), quote::shell_path(&search_root)) else {
        return r;
    };
    let shell = |command: String, purpose: String| {
        ctx.offer(Source::Nowhere, Intent::Shell(command), purpose)
    };
    if let Some((file, _)) = &top
        && p.format != Format::FilesOnly
        && let Some(fq) = quote::shell_path(file)
    {
        r.suggestions.extend(shell(
            format!("grep -n -E -C 3 -e {pq} {fq}"),
            format!("matches in {} with 3 lines of context", ellipsize(file, 80)),
        ));
    }
    if p.format != Format::SingleFile && p.format != Format::FilesOnly {
        let budget = ctx.shell_budget();
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
                    format!("grep -rn -E -m {m} -e {pq} {rq}"),
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
                    "grep -rc -E -e {pq} {rq} | grep -v ':0$' | sort -t: -k2,2 -nr | head -n {n}"
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
                    "grep -rl -E -e {pq} {rq} | sed -n '{},{}p'",
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
}
