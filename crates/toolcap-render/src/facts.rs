//! The recovery section's typed model: facts, notes and suggestion purposes
//! as values with their numbers, and the one place their words are written.
//!
//! A built-in family's hints fill a [`RecoveryModel`]: every fact a
//! [`Fact`], every note a [`Note`], and every suggestion's purpose made from a
//! [`Purpose`]. Tests assert on these values; [`RecoveryModel::render`] turns
//! them into the public [`Recovery`] (facts and notes as lines of text), whose
//! layout and fit to the cap are `recovery`'s.
//!
//! The public [`Recovery`] keeps its text fields, so a harness's own hint
//! builder (a `CustomFamily`) writes its lines as before. A family not typed
//! yet, or a line that has no variant, goes through the `Text` variants
//! (`Fact::from(String)`): the words then come from its builder.

use std::fmt;

use crate::quote;
use crate::recovery::{Recovery, Structure, Suggestion};
use crate::text::{ellipsize, plural, thousands};

/// Chars of a pattern or a searched path shown in a fact.
const FACT_ARG_CHARS: usize = 120;
/// Chars of a file name shown in a suggestion's purpose.
const PURPOSE_FILE_CHARS: usize = 80;

/// A result's size: its lines and chars (`3,520 lines, 120,077 chars`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    /// Lines of the original result.
    pub lines: usize,
    /// Chars of the original result.
    pub chars: usize,
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}, {}",
            plural(self.lines, "line", "lines"),
            plural(self.chars, "char", "chars")
        )
    }
}

/// What a search result's items are: match lines, or file names (a files-only
/// list such as `grep -l`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Items {
    /// Match lines.
    Matches,
    /// File names.
    Files,
}

impl Items {
    fn words(self) -> (&'static str, &'static str) {
        match self {
            Items::Matches => ("match", "matches"),
            Items::Files => ("file", "files"),
        }
    }
}

/// A header line of the recovery section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fact {
    /// A line as written by its builder (a custom family, or a family whose
    /// facts are not typed yet).
    Text(String),
    /// A search's matches: `Pattern: "x" | ignoring case | Path: src | 12
    /// shown of 340 matches (file:line:text)`.
    Matches {
        /// The pattern searched for, when the call's arguments hold it.
        pattern: Option<String>,
        /// Whether the search ignored case.
        ignore_case: bool,
        /// The path searched, when the call's arguments hold it.
        path: Option<String>,
        /// Items the model saw whole.
        shown: usize,
        /// Items in the whole result.
        total: usize,
        /// What the items are.
        items: Items,
        /// The result's layout as read (`file:line:text`, `heading mode`...).
        format: &'static str,
    },
    /// `12 files with matches; 30 lines of context`.
    MatchFiles {
        /// Files with at least one match.
        files: usize,
        /// Context lines in the result (none: the clause is left out).
        context_lines: usize,
    },
    /// `Result: 3,520 lines, 120,077 chars`.
    Result(Size),
    /// A file read: `File: typing.py | 3,520 lines, 120,077 chars | python`
    /// (with what printed them when the lines are a command's output).
    File {
        /// The file, when the call names it.
        path: Option<String>,
        /// When the result is a command's output that is lines of the file.
        printed: Option<PrintedLines>,
        /// The result's size.
        size: Size,
        /// Its language or text format.
        language: Option<String>,
    },
    /// The outline found no definitions (in the lines it reached, when
    /// partial).
    NoDefinitions {
        /// When a limit stopped the outline: how far it read.
        partial: Option<Outlined>,
    },
}

/// A command's output that is lines of a file (`sed -n 'A,Bp' F`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrintedLines {
    /// The file's line the output's first line is (none: counted from the
    /// file's end).
    pub first: Option<usize>,
    /// The lines are numbered as the file's (not as the output's).
    pub renumbered: bool,
    /// The program that printed them (`sed`).
    pub program: String,
}

/// How far a partial outline read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outlined {
    /// Line n of the result is line n + off of the file.
    pub off: usize,
    /// Lines of the result the outline covers.
    pub covered: usize,
    /// Lines of the result.
    pub total: usize,
    /// What stopped it (`the time budget`).
    pub stopped_by: &'static str,
}

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
            Fact::NoDefinitions { partial: None } => f.write_str("Structure: no definitions found"),
            Fact::NoDefinitions { partial: Some(o) } => {
                write!(
                    f,
                    "Structure: no definitions found in lines {}-{} of ",
                    1 + o.off,
                    o.covered + o.off
                )?;
                if o.off == 0 {
                    write!(f, "{}", o.total)?;
                } else {
                    write!(f, "{}-{}", 1 + o.off, o.total + o.off)?;
                }
                write!(f, " (partial: {} stopped the outline there)", o.stopped_by)
            }
        }
    }
}

/// A plain-text note after the commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// A note as written by its builder.
    Text(String),
    /// A search's pattern is not in the call's arguments: nothing narrower
    /// can be suggested.
    NoPattern,
    /// A file's path is not in the call's arguments: no read can be
    /// suggested.
    NoPath,
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::Text(s) => f.write_str(s),
            Note::NoPattern => f.write_str(
                "The search pattern is not in the tool arguments, so no narrower search can be \
                 suggested; pass it as `pattern` to get runnable suggestions.",
            ),
            Note::NoPath => f.write_str(
                "The file path is not in the tool arguments, so no command can be suggested; \
                 pass it as `path` to get runnable suggestions.",
            ),
        }
    }
}

/// What a suggested call gets back: the comment after the call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Purpose {
    /// A purpose as written by its builder.
    Text(String),
    /// `the next 120 lines, 4,000 chars (lines 41-160 of 3520), right after the cut`.
    NextLines {
        /// First line read (1-based).
        start: usize,
        /// Last line read.
        end: usize,
        /// Chars those lines print.
        chars: usize,
        /// Lines of the whole result.
        total: usize,
    },
    /// `only the 12 matches in src/a.rs` (with the chars they print when known).
    OnlyMatchesIn {
        /// The file's matches.
        matches: usize,
        /// The file.
        file: String,
        /// Chars the matches print, when the call re-runs the search.
        chars: Option<usize>,
    },
    /// `the first 7 of the 12 matches in src/a.rs (900 chars)`.
    FirstMatchesIn {
        /// Matches the call prints.
        first: usize,
        /// The file's matches.
        matches: usize,
        /// The file.
        file: String,
        /// Chars the first matches print.
        chars: usize,
    },
    /// A file whose matching lines are huge, each match with a little of its
    /// line either side.
    MatchesInHugeLines {
        /// Matches the call prints at most.
        first: usize,
        /// Chars shown either side of a match.
        side: usize,
        /// The file.
        file: String,
        /// Chars of its longest matching line.
        longest: usize,
    },
    /// The matches of a file with context lines around each.
    MatchesWithContext {
        /// Matches the call prints.
        first: usize,
        /// The file's matches.
        matches: usize,
        /// The file.
        file: String,
        /// Context lines either side of a match.
        context: usize,
    },
    /// `at most 2 matches per file: 80 lines in this result`.
    MatchesPerFile {
        /// Matches per file.
        per_file: usize,
        /// Match lines of this result those would be.
        lines: usize,
    },
    /// `match counts per file, most first (the top 40)`.
    MatchCounts {
        /// File lines printed.
        top: usize,
    },
    /// The next names of a stored files-only list.
    NextFileNames {
        /// Names shown.
        shown: usize,
        /// First line read (1-based).
        start: usize,
        /// Last line read.
        end: usize,
        /// Chars those lines print.
        chars: usize,
    },
    /// The next names of a files-only list, from the search run again.
    NextFileNamesRerun {
        /// Names shown.
        shown: usize,
    },
    /// `next 100 lines, 4,000 chars (lines 53-152 of 3520)` of a file.
    NextFileLines {
        /// First line read, as shown.
        start: usize,
        /// Last line read, as shown.
        end: usize,
        /// Chars those lines print.
        chars: usize,
        /// Lines of the result.
        total: usize,
        /// Line n of the result is line n + off of the file.
        off: usize,
    },
    /// `the first 140 lines, 4,000 chars (lines 53-140 are new)`.
    FirstLines {
        /// Lines read from the first.
        lines: usize,
        /// Chars they print.
        chars: usize,
        /// The first of them not shown.
        new_from: usize,
    },
    /// The rest of the definition the cut fell inside.
    RestOf {
        /// The definition (`class TypeVar`).
        what: String,
        /// First line read, as shown.
        start: usize,
        /// Last line read.
        end: usize,
        /// Chars those lines print.
        chars: usize,
        /// The definition's first line.
        starts_at: usize,
    },
    /// A stored result's definition asked for by name.
    DefinitionByName {
        /// The definition (`class TypeVar`).
        what: String,
        /// Its first line.
        start: usize,
        /// Its last line.
        end: usize,
        /// It holds members (a class): larger than a reply, their first lines.
        container: bool,
        /// Definitions in the outline.
        definitions: usize,
    },
    /// One of the largest definitions cut off, whole.
    CutOffDefinition {
        /// The definition.
        what: String,
        /// Its first line.
        start: usize,
        /// Its last line.
        end: usize,
        /// Chars its lines print.
        chars: usize,
    },
    /// The first lines of one of the largest definitions cut off.
    CutOffDefinitionHead {
        /// The definition.
        what: String,
        /// Its first line.
        start: usize,
        /// The last line read.
        end: usize,
        /// Chars the lines read print.
        chars: usize,
        /// Its last line.
        ends_at: usize,
    },
    /// The chars after a cut inside a line.
    CharsAfterCut {
        /// Chars read.
        chars: usize,
        /// Where they are: first line and char, last line and char (1-based).
        at: (usize, usize, usize, usize),
        /// Which of the result's chars or bytes they are.
        range: CharRange,
    },
    /// Every line that mentions a name.
    Mentions {
        /// The name searched for.
        name: String,
        /// Lines that mention it.
        lines: usize,
        /// Where they are searched.
        within: MentionsIn,
    },
}

/// Which chars or bytes of a result a window reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CharRange {
    /// Of the stored result, by char: its first char (0-based) and the
    /// result's chars.
    Stored {
        /// The window's first char (0-based).
        from_char: usize,
        /// Chars of the result.
        total: usize,
    },
    /// Of a file or a command's output, by byte.
    Bytes {
        /// The window's first byte (0-based).
        from: usize,
        /// Bytes read.
        len: usize,
        /// Bytes of the result.
        total: usize,
        /// Whose bytes they are.
        of: BytesOf,
    },
}

/// Whose bytes a window counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BytesOf {
    /// The file's.
    File,
    /// The file's text in UTF-8 (decoded from a legacy encoding).
    Utf8,
    /// The output of the command run again.
    Output,
}

/// Where a search for a name's mentions runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MentionsIn {
    /// The file (or the stored result).
    File,
    /// Lines A-B of the file.
    Lines(usize, usize),
    /// The output of the command run again.
    Rerun,
}

impl fmt::Display for Purpose {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let matches = |n: usize| plural(n, "match", "matches");
        let file = |s: &str| ellipsize(s, PURPOSE_FILE_CHARS);
        match self {
            Purpose::Text(s) => f.write_str(s),
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
            Purpose::CharsAfterCut { chars, at, range } => {
                let (line, col, end_line, end_col) = *at;
                write!(
                    f,
                    "the next {} after the cut (",
                    plural(*chars, "char", "chars")
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
        }
    }
}

macro_rules! from_text {
    ($($t:ident),*) => {$(
        impl From<String> for $t {
            fn from(s: String) -> Self {
                $t::Text(s)
            }
        }
        impl From<&str> for $t {
            fn from(s: &str) -> Self {
                $t::Text(s.to_string())
            }
        }
        impl From<$t> for String {
            fn from(v: $t) -> String {
                match v {
                    $t::Text(s) => s,
                    v => v.to_string(),
                }
            }
        }
    )*};
}

from_text!(Fact, Note, Purpose);

/// A recovery section as typed values: what a built-in family's hints return
/// before [`RecoveryModel::render`] writes its words.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RecoveryModel {
    /// Header lines.
    pub facts: Vec<Fact>,
    /// The structure listing, when there is one.
    pub structure: Option<Structure>,
    /// The calls that get the omitted part back (their purposes written from
    /// a [`Purpose`] when offered).
    pub suggestions: Vec<Suggestion>,
    /// Notes after the commands.
    pub notes: Vec<Note>,
}

impl RecoveryModel {
    /// The section's text model: every fact and note in words.
    pub fn render(self) -> Recovery {
        Recovery {
            facts: self.facts.into_iter().map(String::from).collect(),
            structure: self.structure,
            suggestions: self.suggestions,
            notes: self.notes.into_iter().map(String::from).collect(),
        }
    }
}

impl From<RecoveryModel> for Recovery {
    fn from(m: RecoveryModel) -> Recovery {
        m.render()
    }
}

/// A model of text lines (a family not typed yet, a custom family's section).
impl From<Recovery> for RecoveryModel {
    fn from(r: Recovery) -> RecoveryModel {
        RecoveryModel {
            facts: r.facts.into_iter().map(Fact::Text).collect(),
            structure: r.structure,
            suggestions: r.suggestions,
            notes: r.notes.into_iter().map(Note::Text).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_fact_in_words() {
        let f = Fact::Matches {
            pattern: Some("def \"x\"".into()),
            ignore_case: true,
            path: Some("src".into()),
            shown: 1234,
            total: 5678,
            items: Items::Matches,
            format: "file:line:text",
        };
        assert_eq!(
            f.to_string(),
            "Pattern: \"def \\\"x\\\"\" | ignoring case | Path: src | 1234 shown of 5,678 \
             matches (file:line:text)"
        );
        let f = Fact::MatchFiles {
            files: 1,
            context_lines: 0,
        };
        assert_eq!(f.to_string(), "1 file with matches");
    }

    #[test]
    fn text_variants_keep_the_builders_words() {
        assert_eq!(String::from(Fact::from("File: a.py")), "File: a.py");
        let m = RecoveryModel {
            facts: vec![Fact::Result(Size {
                lines: 3520,
                chars: 120_077,
            })],
            notes: vec![Note::from("n")],
            ..Default::default()
        };
        let r = m.render();
        assert_eq!(r.facts, ["Result: 3,520 lines, 120,077 chars"]);
        assert_eq!(r.notes, ["n"]);
    }

    #[test]
    fn purposes_in_words() {
        let p = Purpose::MatchesWithContext {
            first: 3,
            matches: 12,
            file: "a.rs".into(),
            context: 2,
        };
        assert_eq!(
            String::from(p),
            "the first 3 of the 12 matches in a.rs with 2 lines of context each (at most 15 \
             lines, sized from the match lines)"
        );
    }
}
