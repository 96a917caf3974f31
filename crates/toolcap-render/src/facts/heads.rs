//! The words of the header facts of searches, files and commands, from
//! their numbers (the other families' facts are `results.rs`').

use std::fmt;

use super::{FACT_ARG_CHARS, Fact, Outlined, PrintedLines, Size, results};
use crate::quote;
use crate::text::{ellipsize, plural, thousands};

/// `File: a.py | lines 5-9 (lines 1-5 of this output), printed by sed | ...`.
fn write_file(
    f: &mut fmt::Formatter<'_>,
    path: Option<&str>,
    printed: Option<&PrintedLines>,
    size: &Size,
    language: Option<&str>,
) -> fmt::Result {
    let name = path.unwrap_or("(path not given)");
    write!(f, "File: {}", ellipsize(name, 200))?;
    if let Some(p) = printed {
        let n = size.lines;
        let what = match p.first {
            Some(1) => format!("lines 1-{n}"),
            Some(a) if p.renumbered => {
                format!("lines {a}-{} (lines 1-{n} of this output)", a + n - 1)
            }
            Some(a) => format!(
                "its lines {a}-{} as lines 1-{n} here",
                (a + n).saturating_sub(1)
            ),
            None => format!("its last {}", plural(n, "line", "lines")),
        };
        write!(f, " | {what}, printed by {}", ellipsize(&p.program, 40))?;
    }
    write!(f, " | {size}")?;
    if let Some(lang) = language {
        write!(f, " | {lang}")?;
    }
    Ok(())
}

impl fmt::Display for Fact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fact::Text(s) => f.write_str(s),
            Fact::Paths { .. }
            | Fact::SearchResults { .. }
            | Fact::Domains(_)
            | Fact::Page { .. }
            | Fact::PageSize { .. }
            | Fact::ToolResult { .. }
            | Fact::Binary { .. }
            | Fact::Decoded { .. }
            | Fact::Cleaned { .. }
            | Fact::Tokens { .. }
            | Fact::Stored { .. } => results::write_fact(self, f),
            Fact::Matches {
                pattern,
                ignore_case,
                path,
                shown,
                total,
                items,
                format,
            } => {
                let mut head = Vec::new();
                if let Some(pat) = pattern {
                    head.push(format!(
                        "Pattern: {}",
                        ellipsize(&quote::json_string(pat), FACT_ARG_CHARS)
                    ));
                    if *ignore_case {
                        head.push("ignoring case".to_string());
                    }
                }
                if let Some(pa) = path {
                    head.push(format!("Path: {}", ellipsize(pa, FACT_ARG_CHARS)));
                }
                let (one, many) = items.words();
                head.push(format!(
                    "{shown} shown of {} ({format})",
                    plural(*total, one, many)
                ));
                f.write_str(&head.join(" | "))
            }
            Fact::MatchFiles {
                files,
                context_lines,
            } => {
                write!(f, "{} with matches", plural(*files, "file", "files"))?;
                if *context_lines > 0 {
                    write!(
                        f,
                        "; {} of context",
                        plural(*context_lines, "line", "lines")
                    )?;
                }
                Ok(())
            }
            Fact::Result(size) => write!(f, "Result: {size}"),
            Fact::File {
                path,
                printed,
                size,
                language,
            } => write_file(
                f,
                path.as_deref(),
                printed.as_ref(),
                size,
                language.as_deref(),
            ),
            Fact::Command {
                command,
                exit,
                size,
            } => {
                let mut fact = Vec::new();
                if let Some(c) = command {
                    fact.push(format!("Command: {}", one_line(c)));
                }
                if let Some(e) = exit {
                    fact.push(format!("exit code {e}"));
                }
                fact.push(format!("Output: {size}"));
                f.write_str(&fact.join(" | "))
            }
            Fact::ErrorLines {
                count,
                not_shown,
                first,
                last,
            } => {
                write!(
                    f,
                    "{} ({} not shown); first at line {first}",
                    plural(*count, "error-looking line", "error-looking lines"),
                    thousands(*not_shown)
                )?;
                if *count > 1 {
                    write!(f, ", last at line {last}")?;
                }
                Ok(())
            }
            Fact::NoDefinitions { partial: None } => f.write_str("Structure: no definitions found"),
            Fact::NoDefinitions { partial: Some(o) } => {
                f.write_str("Structure: no definitions found in lines ")?;
                o.write_span(f)?;
                write!(f, " (partial: {} stopped the outline there)", o.stopped_by)
            }
        }
    }
}

impl Outlined {
    /// `1-800 of 3520`, or `41-840 of 41-3560` when the lines are the file's
    /// from line 41.
    pub(super) fn write_span(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{} of ", 1 + self.off, self.covered + self.off)?;
        if self.off == 0 {
            write!(f, "{}", self.total)
        } else {
            write!(f, "{}-{}", 1 + self.off, self.total + self.off)
        }
    }
}

/// A command as one line of a fact: its first line, up to 160 chars, with `…`
/// when more follows (a here-document or a `python -c` script would otherwise
/// spill its lines into the section: on the next-use benchmark they held
/// none of the facts agents used next, issue 43 item 7).
fn one_line(command: &str) -> String {
    let c = command.trim();
    match c.split_once('\n') {
        Some((first, _)) => {
            let first = ellipsize(first, 159);
            if first.ends_with('…') {
                first
            } else {
                format!("{first} …")
            }
        }
        None => ellipsize(c, 160),
    }
}
