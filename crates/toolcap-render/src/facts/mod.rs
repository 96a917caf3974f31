//! The recovery section's typed model: facts, notes and suggestion purposes
//! as values with their numbers, and the one place their words are written.
//!
//! A built-in family's hints fill a [`RecoveryModel`]: every fact a
//! [`Fact`], every note a [`Note`], and every suggestion's purpose made from a
//! [`Purpose`]. Tests assert on these values; [`RecoveryModel::render`] turns
//! them into the public [`Recovery`] (facts and notes as lines of text), whose
//! layout and fit to the cap are `recovery`'s.
//!
//! Every built-in family, the binary summary and the facts every family
//! shares (encoding, cleaning, tokens, where the full result is stored) are
//! typed; so is the structure listing ([`Listing`]: a [`Title`] and
//! [`Entry`] lines). The words are written here: `heads.rs` (searches, files,
//! commands), `results.rs` (listings, pages, other tools, binary data, the
//! shared facts, their notes), `words.rs` and `calls.rs` (purposes),
//! `listing.rs` (structure listings).
//!
//! The public [`Recovery`] keeps its text fields, so a harness's own hint
//! builder (a `CustomFamily`) writes its lines as before. A line that has no
//! structure (a listing another crate wrote, a custom family's line) goes
//! through the `Text` variants (`Fact::from(String)`): the words then come
//! from its builder.

mod calls;
mod heads;
mod listing;
mod parts;
mod purpose;
mod results;
mod words;

use std::fmt;

pub use listing::{CountsOf, Entry, Inside, Listing, Title};
pub use parts::{BinaryOf, BytesOf, CharRange, ErrorCount, Look, MentionsIn};
pub use purpose::Purpose;
pub use results::{Evidence, ReadBack, read_back, stored_fact};

use crate::recovery::{Recovery, Suggestion};
use crate::text::plural;

/// Chars of a pattern or a searched path shown in a fact.
const FACT_ARG_CHARS: usize = 120;

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
    /// A command's output: `Command: make | exit code 2 | Output: 120 lines,
    /// 4,000 chars`.
    Command {
        /// The command, when the call's arguments hold it.
        command: Option<String>,
        /// Its exit code, when the call's arguments hold it.
        exit: Option<String>,
        /// The output's size.
        size: Size,
    },
    /// `3 error-looking lines (2 not shown); first at line 40, last at line 97`.
    ErrorLines {
        /// Error-looking lines in the whole output.
        count: usize,
        /// Those the model did not see.
        not_shown: usize,
        /// The first one's line.
        first: usize,
        /// The last one's line.
        last: usize,
    },
    /// The outline found no definitions (in the lines it reached, when
    /// partial).
    NoDefinitions {
        /// When a limit stopped the outline: how far it read.
        partial: Option<Outlined>,
    },
    /// A file listing: `Pattern: **/*.py | Path: Lib | 40 shown of 1,790 paths`.
    Paths {
        /// The pattern, when the call's arguments hold it.
        pattern: Option<String>,
        /// The path listed, when the call's arguments hold it.
        path: Option<String>,
        /// Paths the model saw whole.
        shown: usize,
        /// Paths listed.
        total: usize,
    },
    /// Search results: `Query: "x" | 3 shown of 10 results (numbered list)`.
    SearchResults {
        /// The query, when the call's arguments hold it.
        query: Option<String>,
        /// Results the model saw whole.
        shown: usize,
        /// Results found.
        total: usize,
        /// How the results were read (`JSON results`, `numbered list`...).
        format: &'static str,
    },
    /// `Domains (4): docs.rs (3), ...`: every domain of the results with its
    /// results, most first.
    Domains(Vec<(String, usize)>),
    /// A fetched page: `Page: Title | URL: https://...` (one of them at
    /// least).
    Page {
        /// Its title, when it has one.
        title: Option<String>,
        /// Its URL, when the call's arguments hold it.
        url: Option<String>,
    },
    /// `Size: 120 lines, 4,000 chars | HTML`.
    PageSize {
        /// The page's size.
        size: Size,
        /// It is HTML (else text).
        html: bool,
    },
    /// Any other tool's result: `Tool: lookup | Result: 12 lines, 900 chars`.
    ToolResult {
        /// The tool as called.
        tool: String,
        /// The result's size.
        size: Size,
    },
    /// A binary result: what it looks like and why it was taken for binary.
    Binary {
        /// The tool as called.
        tool: String,
        /// What the data looks like (`PNG image`).
        what: String,
        /// Chars of the result as decoded.
        chars: usize,
        /// Why it was taken for binary.
        evidence: Evidence,
    },
    /// The result was decoded from a legacy encoding.
    Decoded {
        /// The encoding (`Shift_JIS`).
        encoding: String,
        /// The name iconv reads it by with the same table (`CP932`).
        iconv: String,
    },
    /// What cleaning did before the cut.
    Cleaned {
        /// What it removed, as the cleaning stage counted it.
        what: String,
    },
    /// A token-counted result's size.
    Tokens {
        /// The encoding counted with (`o200k_base`).
        unit: String,
        /// Tokens of the whole result.
        total: usize,
        /// The most kept.
        kept: usize,
    },
    /// Where the full result is stored, and how to read on.
    Stored {
        /// The id it is stored under.
        id: String,
        /// Where the shown part stops (chars).
        offset: usize,
        /// How it is read back.
        read: ReadBack,
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
    /// A command is not in the call's arguments: nothing can be run again.
    NoCommand,
    /// A page's URL is not in the call's arguments.
    NoUrl,
    /// A search's query is not in the call's arguments.
    NoQuery,
    /// A command's output is one JSON document, shortened as JSON: jq paths
    /// reach its parts.
    JsonDocument,
    /// Any other tool: call it again more narrowly (`args`: this call's, each
    /// key with its value as JSON; none: the call had none).
    CallAgain {
        /// The tool as called.
        tool: String,
        /// This call's arguments.
        args: Vec<(String, String)>,
    },
    /// A binary output that could not be kept: nothing reads it back, and
    /// the command is not run again.
    BinaryUnkept,
    /// A binary result no suggested command can look at.
    BinaryNoText {
        /// The tool as called.
        tool: String,
        /// The command that dumps a file's first bytes.
        hex: &'static str,
    },
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::Text(s) => f.write_str(s),
            Note::NoUrl
            | Note::NoQuery
            | Note::JsonDocument
            | Note::CallAgain { .. }
            | Note::BinaryUnkept
            | Note::BinaryNoText { .. } => results::write_note(self, f),
            Note::NoPattern => f.write_str(
                "The search pattern is not in the tool arguments, so no narrower search can be \
                 suggested; pass it as `pattern` to get runnable suggestions.",
            ),
            Note::NoCommand => f.write_str(
                "The command is not in the tool arguments, so no command can be suggested; pass \
                 it as `command` to get runnable suggestions.",
            ),
            Note::NoPath => f.write_str(
                "The file path is not in the tool arguments, so no command can be suggested; \
                 pass it as `path` to get runnable suggestions.",
            ),
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
    pub structure: Option<Listing>,
    /// The calls that get the omitted part back (their purposes written from
    /// a [`Purpose`] when offered).
    pub suggestions: Vec<Suggestion>,
    /// Notes after the commands.
    pub notes: Vec<Note>,
}

impl RecoveryModel {
    /// The section's text model: every fact and note in words.
    ///
    /// Two kinds of line are not written, as they held none of the facts agents
    /// used next on the next-use benchmark (issue 43 item 7,
    /// `benches/nextuse/recovery_lines.py`): the count of error-looking lines
    /// ([`Fact::ErrorLines`], 49 views; the lines themselves are ranked into
    /// the view and searched by a suggestion), and the note to call the tool
    /// again with narrower arguments ([`Note::CallAgain`], 490 views) when a
    /// command reads on (it stays the only pointer when none does).
    pub fn render(self) -> Recovery {
        let has_commands = !self.suggestions.is_empty();
        Recovery {
            facts: self
                .facts
                .into_iter()
                .filter(|f| !matches!(f, Fact::ErrorLines { .. }))
                .map(String::from)
                .collect(),
            structure: self.structure.map(Listing::render),
            suggestions: self.suggestions,
            notes: self
                .notes
                .into_iter()
                .filter(|n| !(has_commands && matches!(n, Note::CallAgain { .. })))
                .map(String::from)
                .collect(),
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
            structure: r.structure.map(Listing::from),
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
