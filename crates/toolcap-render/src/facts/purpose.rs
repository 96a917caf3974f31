//! Suggestion purposes: what a suggested call gets back, with its numbers
//! (their words are `words.rs`').

use super::parts::{BinaryOf, CharRange, ErrorCount, Look, MentionsIn};

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
    /// `omitted lines 41-160 of 900, 4,000 chars` of a command's output.
    OmittedLines {
        /// The call runs the command again (not a read of the stored output).
        rerun: bool,
        /// First line read.
        start: usize,
        /// Last line read.
        end: usize,
        /// Lines of the output.
        total: usize,
        /// Chars those lines print, when the output was tallied.
        chars: Option<usize>,
    },
    /// A command's error lines with their line numbers.
    ErrorLinesOf {
        /// The call runs the command again.
        rerun: bool,
        /// How many it prints, when counted.
        count: Option<ErrorCount>,
        /// Colour codes are stripped before the search.
        stripped: bool,
    },
    /// The last lines of a command's output.
    LastLines {
        /// The call runs the command again.
        rerun: bool,
        /// Lines read.
        lines: usize,
        /// The first of them, the output's lines and their chars, when the
        /// output was tallied.
        span: Option<(usize, usize, usize)>,
    },
    /// The command run once more, its output saved to a new file to page.
    SaveOnce {
        /// The file as the comment names it (a new file each run: its name
        /// is known once the command has run).
        file: &'static str,
    },
    /// Every header line of a diff's commits or files (`^commit `, `^diff `).
    EveryHeaderLine {
        /// Commits' headers, else files' diff lines.
        commits: bool,
        /// Lines found.
        lines: usize,
    },
    /// The lines of one part of an everyday output (a file's diff, a
    /// directory's entries...).
    Part {
        /// The part (`the diff of src/a.rs`).
        what: String,
        /// Its first line.
        start: usize,
        /// The last line read.
        end: usize,
        /// Its last line.
        part_end: usize,
        /// Chars the lines read print.
        chars: usize,
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
    /// `only under Lib/email/ (120 files, 4,000 chars in this listing)`.
    OnlyUnder {
        /// The directory, as listed.
        dir: String,
        /// Its files (or paths) in this listing.
        items: usize,
        /// They are files (the listing names directories too), else paths.
        files: bool,
        /// Chars their lines print.
        chars: usize,
    },
    /// `only .py files (1,700 paths, 40,000 chars in this listing)`.
    OnlyExtension {
        /// The extension, without its dot.
        ext: String,
        /// Its paths in this listing.
        paths: usize,
        /// Chars their lines print.
        chars: usize,
    },
    /// The page saved to a file.
    SavePage {
        /// The file.
        file: String,
        /// The commands after it search the saved file.
        then_search: bool,
    },
    /// A search of the page for the first heading cut off that few lines
    /// mention.
    FindSection {
        /// The heading.
        label: String,
        /// Its line (1-based).
        line: usize,
        /// Lines of the page that mention it.
        lines: usize,
    },
    /// `lines 41-160 of the saved page, right after the cut (4,000 chars)`.
    PageLines {
        /// First line read.
        start: usize,
        /// Last line read.
        end: usize,
        /// Chars those lines print.
        chars: usize,
        /// The page is the stored result (else a saved copy).
        stored: bool,
    },
    /// The first chars of a page's line longer than comes back whole.
    PageLineStart {
        /// The line.
        line: usize,
        /// Chars read.
        chars: usize,
        /// The page is the stored result (its chars counted), else a saved
        /// copy (its bytes).
        stored: bool,
        /// The first and last char (or byte) read, 1-based.
        span: (usize, usize),
    },
    /// The keys of an object in a JSON document, in order.
    JqKeys {
        /// The call runs the command again.
        rerun: bool,
        /// The object's jq path.
        path: String,
        /// Keys printed, from the first.
        first: usize,
        /// Keys of the object.
        keys: usize,
        /// Chars they print.
        chars: usize,
    },
    /// Items of an array in a JSON document.
    JqItems {
        /// The call runs the command again.
        rerun: bool,
        /// The array's jq path.
        path: String,
        /// The first item printed (0-based).
        from: usize,
        /// The item after the last printed.
        to: usize,
        /// Items of the array.
        len: usize,
        /// Chars printed, when jq prints them as counted.
        chars: Option<usize>,
    },
    /// One naming field of every item of an array in a JSON document.
    JqNames {
        /// The call runs the command again.
        rerun: bool,
        /// The array's jq path.
        path: String,
        /// The field.
        key: String,
        /// Items of the array.
        items: usize,
        /// Chars printed.
        chars: usize,
    },
    /// Each top-level key of a JSON document with the size of its value.
    JqTopKeys {
        /// The call runs the command again.
        rerun: bool,
        /// Keys of the document.
        keys: usize,
    },
    /// The same search on the domain most results are from.
    SameSearchOn {
        /// The domain.
        domain: String,
        /// Results of this search from it.
        results: usize,
    },
    /// The same search for the exact phrase.
    ExactPhrase,
    /// The first search result cut off, fetched.
    FetchResult {
        /// Its number (1-based).
        n: usize,
        /// Its title, when it has one.
        title: Option<String>,
    },
    /// The first bytes of the first search result cut off.
    ResultHead {
        /// Bytes printed.
        bytes: usize,
        /// Its number (1-based).
        n: usize,
        /// Its title, when it has one.
        title: Option<String>,
    },
    /// A look at binary data.
    Binary {
        /// What the call prints.
        look: Look,
        /// Whose data.
        of: BinaryOf,
    },
}
