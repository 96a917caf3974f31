//! The words of a suggestion's purpose, from its numbers.

use std::fmt;

use super::calls;
use super::parts::{BytesOf, CharRange, MentionsIn};
use super::purpose::Purpose;
use crate::text::{ellipsize, plural, thousands};

/// Chars of a file name shown in a suggestion's purpose.
const PURPOSE_FILE_CHARS: usize = 80;

impl fmt::Display for Purpose {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Purpose::Text(s) => f.write_str(s),
            Purpose::NextLines { .. }
            | Purpose::OnlyMatchesIn { .. }
            | Purpose::FirstMatchesIn { .. }
            | Purpose::MatchesInHugeLines { .. }
            | Purpose::MatchesWithContext { .. }
            | Purpose::MatchesPerFile { .. }
            | Purpose::MatchCounts { .. }
            | Purpose::NextFileNames { .. }
            | Purpose::NextFileNamesRerun { .. } => write_search(self, f),
            Purpose::NextFileLines { .. }
            | Purpose::FirstLines { .. }
            | Purpose::RestOf { .. }
            | Purpose::DefinitionByName { .. }
            | Purpose::CutOffDefinition { .. }
            | Purpose::CutOffDefinitionHead { .. }
            | Purpose::CharsAfterCut { .. }
            | Purpose::Mentions { .. } => write_file(self, f),
            Purpose::OmittedLines { .. }
            | Purpose::ErrorLinesOf { .. }
            | Purpose::LastLines { .. }
            | Purpose::SaveOnce { .. } => write_command(self, f),
            Purpose::EveryHeaderLine { .. } | Purpose::Part { .. } => write_part(self, f),
            Purpose::OnlyUnder { .. }
            | Purpose::OnlyExtension { .. }
            | Purpose::SavePage { .. }
            | Purpose::FindSection { .. }
            | Purpose::PageLines { .. }
            | Purpose::PageLineStart { .. } => calls::write_listing(self, f),
            Purpose::JqKeys { .. }
            | Purpose::JqItems { .. }
            | Purpose::JqNames { .. }
            | Purpose::JqTopKeys { .. } => calls::write_jq(self, f),
            Purpose::SameSearchOn { .. }
            | Purpose::ExactPhrase
            | Purpose::FetchResult { .. }
            | Purpose::ResultHead { .. }
            | Purpose::Binary { .. } => calls::write_web(self, f),
        }
    }
}

/// The purposes of a search's reads, and of a result's next lines.
fn write_search(p: &Purpose, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let matches = |n: usize| plural(n, "match", "matches");
    let file = |s: &str| ellipsize(s, PURPOSE_FILE_CHARS);
    match p {
        Purpose::NextLines {
            start,
            end,
            chars,
            total,
        } => write!(
            f,
            "the next {}, {} (lines {start}-{end} of {total}), right after the cut",
            plural(end + 1 - start, "line", "lines"),
            plural(*chars, "char", "chars"),
        ),
        Purpose::OnlyMatchesIn {
            matches: n,
            file: name,
            chars,
        } => {
            write!(f, "only the {} in {}", matches(*n), file(name))?;
            if let Some(c) = chars {
                write!(f, " ({})", plural(*c, "char", "chars"))?;
            }
            Ok(())
        }
        Purpose::FirstMatchesIn {
            first,
            matches: n,
            file: name,
            chars,
        } => write!(
            f,
            "the first {first} of the {} in {} ({})",
            matches(*n),
            file(name),
            plural(*chars, "char", "chars")
        ),
        Purpose::MatchesInHugeLines {
            first,
            side,
            file: name,
            longest,
        } => write!(
            f,
            "the first {first} matches in {} with up to {side} chars either side (its \
             matching lines are up to {} long)",
            file(name),
            plural(*longest, "char", "chars")
        ),
        Purpose::MatchesWithContext {
            first,
            matches: n,
            file: name,
            context,
        } => {
            if first == n {
                write!(f, "the {}", matches(*n))?;
            } else {
                write!(f, "the first {first} of the {}", matches(*n))?;
            }
            write!(
                f,
                " in {} with {} of context each (at most {}, sized from the match lines)",
                file(name),
                plural(*context, "line", "lines"),
                plural((2 * context + 1) * first, "line", "lines")
            )
        }
        Purpose::MatchesPerFile { per_file, lines } => write!(
            f,
            "at most {} per file: {} in this result",
            matches(*per_file),
            plural(*lines, "line", "lines")
        ),
        Purpose::MatchCounts { top } => {
            write!(f, "match counts per file, most first (the top {top})")
        }
        Purpose::NextFileNames {
            shown,
            start,
            end,
            chars,
        } => write!(
            f,
            "the next {} after the {} shown (lines {start}-{end}, {})",
            plural(end + 1 - start, "file name", "file names"),
            thousands(*shown),
            plural(*chars, "char", "chars")
        ),
        Purpose::NextFileNamesRerun { shown } => write!(
            f,
            "the next file names after the {} shown",
            thousands(*shown)
        ),
        _ => Ok(()),
    }
}

/// The purposes of a file's reads.
fn write_file(p: &Purpose, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match p {
        Purpose::NextFileLines {
            start,
            end,
            chars,
            total,
            off,
        } => {
            write!(
                f,
                "next {}, {} (lines {start}-{end} of ",
                plural(end + 1 - start, "line", "lines"),
                plural(*chars, "char", "chars"),
            )?;
            if *off == 0 {
                write!(f, "{total})")
            } else {
                write!(f, "{}-{})", 1 + off, total + off)
            }
        }
        Purpose::FirstLines {
            lines,
            chars,
            new_from,
        } => write!(
            f,
            "the first {}, {} (lines {new_from}-{lines} are new)",
            plural(*lines, "line", "lines"),
            plural(*chars, "char", "chars")
        ),
        Purpose::RestOf {
            what,
            start,
            end,
            chars,
            starts_at,
        } => write!(
            f,
            "rest of {what} (lines {start}-{end}, {}; it starts at line {starts_at})",
            plural(*chars, "char", "chars"),
        ),
        Purpose::DefinitionByName {
            what,
            start,
            end,
            container,
            definitions,
        } => write!(
            f,
            "{what} {start}-{end}{}; any definition by name, outline=true for all {}",
            if *container {
                " (its members' first lines if larger than a reply)"
            } else {
                ""
            },
            thousands(*definitions)
        ),
        Purpose::CutOffDefinition {
            what,
            start,
            end,
            chars,
        } => write!(
            f,
            "{what} (lines {start}-{end}, {}), one of the largest definitions cut off",
            plural(*chars, "char", "chars")
        ),
        Purpose::CutOffDefinitionHead {
            what,
            start,
            end,
            chars,
            ends_at,
        } => write!(
            f,
            "the first {} of {} lines of {what} (lines {start}-{end}, {}; it ends at line \
             {ends_at}), one of the largest definitions cut off",
            end + 1 - start,
            ends_at + 1 - start,
            plural(*chars, "char", "chars"),
        ),
        Purpose::CharsAfterCut { chars, at, range } => write_chars_after_cut(*chars, *at, range, f),
        Purpose::Mentions {
            name,
            lines,
            within,
        } => {
            let count = plural(*lines, "line", "lines");
            match within {
                MentionsIn::Lines(a, b) => write!(
                    f,
                    "every line of lines {a}-{b} of the file that mentions {name} ({count})"
                ),
                MentionsIn::Rerun => write!(
                    f,
                    "re-runs the command; every line of its output that mentions {name} \
                     ({count})"
                ),
                MentionsIn::File => {
                    write!(f, "every line of the file that mentions {name} ({count})")
                }
            }
        }
        _ => Ok(()),
    }
}

/// The purposes of a command's reads.
fn write_command(p: &Purpose, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match p {
        Purpose::OmittedLines {
            rerun,
            start,
            end,
            total,
            chars,
        } => {
            write!(
                f,
                "{}omitted lines {start}-{end} of {total}",
                rerun_head(*rerun)
            )?;
            if let Some(c) = chars {
                write!(f, ", {}", plural(*c, "char", "chars"))?;
            }
            f.write_str(rerun_tail(*rerun))
        }
        Purpose::ErrorLinesOf {
            rerun,
            count,
            stripped,
        } => {
            write!(
                f,
                "{}error lines with their line numbers",
                rerun_head(*rerun)
            )?;
            if let Some(c) = count {
                write!(f, " ({c})")?;
            }
            if *stripped {
                f.write_str(", colour codes stripped")?;
            }
            Ok(())
        }
        Purpose::LastLines { rerun, lines, span } => {
            write!(f, "{}the last ", rerun_head(*rerun))?;
            match span {
                Some((start, total, chars)) => write!(
                    f,
                    "{}, {} (lines {start}-{total})",
                    plural(*lines, "line", "lines"),
                    plural(*chars, "char", "chars")
                ),
                None => write!(f, "{lines} lines"),
            }
        }
        Purpose::SaveOnce { file } => write!(
            f,
            "re-runs the command once, saving all output to a new file; then page it with \
             sed -n 'A,Bp' {file}"
        ),
        _ => Ok(()),
    }
}

/// The purposes of an everyday output's reads.
fn write_part(p: &Purpose, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match p {
        Purpose::EveryHeaderLine { commits, lines } => write!(
            f,
            "every {} ({} lines)",
            if *commits {
                "commit's header line"
            } else {
                "file's diff line"
            },
            thousands(*lines)
        ),
        Purpose::Part {
            what,
            start,
            end,
            part_end,
            chars,
        } => {
            if end == part_end {
                write!(f, "{what} (")?;
                if start == part_end {
                    write!(f, "line {start}")?;
                } else {
                    write!(f, "lines {start}-{part_end}")?;
                }
                write!(f, "), {}", plural(*chars, "char", "chars"))
            } else {
                write!(
                    f,
                    "{what}: its first {} (lines {start}-{end} of its {start}-{part_end}), {}",
                    plural(end + 1 - start, "line", "lines"),
                    plural(*chars, "char", "chars")
                )
            }
        }
        _ => Ok(()),
    }
}

/// What a call that runs a command again says first.
fn rerun_head(rerun: bool) -> &'static str {
    if rerun { "re-runs the command; " } else { "" }
}

/// And last, after what it prints.
fn rerun_tail(rerun: bool) -> &'static str {
    if rerun {
        " (if the output is the same)"
    } else {
        ""
    }
}

/// `the next 4,000 chars after the cut (chars 1-4,000 of line 12; bytes ...)`.
fn write_chars_after_cut(
    chars: usize,
    at: (usize, usize, usize, usize),
    range: &CharRange,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    let (line, col, end_line, end_col) = at;
    write!(
        f,
        "the next {} after the cut (",
        plural(chars, "char", "chars")
    )?;
    if line == end_line {
        write!(
            f,
            "chars {}-{} of line {line}",
            thousands(col),
            thousands(end_col)
        )?;
    } else {
        write!(
            f,
            "line {line} char {} to line {end_line} char {}",
            thousands(col),
            thousands(end_col)
        )?;
    }
    match range {
        CharRange::Stored { from_char, total } => write!(
            f,
            "; chars {}-{} of {})",
            thousands(from_char + 1),
            thousands(from_char + chars),
            thousands(*total)
        ),
        CharRange::Bytes {
            from,
            len,
            total,
            of,
        } => {
            write!(
                f,
                "; bytes {}-{} ",
                thousands(from + 1),
                thousands(from + len)
            )?;
            match of {
                BytesOf::Utf8 => write!(f, "of its {} in UTF-8)", thousands(*total)),
                BytesOf::Output => {
                    write!(f, "of the output's {})", thousands(*total))
                }
                BytesOf::File => write!(f, "of {})", thousands(*total)),
            }
        }
    }
}
