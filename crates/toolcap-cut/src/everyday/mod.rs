//! Everyday command output — diffs and logs, grep results, file listings —
//! read for its structure, the way an outline serves code.
//!
//! [`kind_of`] tells from the command (`git log -p`, `git diff`, `diff -u`,
//! `grep -rn`, `rg`, `grep -c`, `grep -l`, `find`, `ls -R`, `tree`) what kind
//! of output it prints; a [`Builder`] reads the output line by line (whole or
//! streamed, in bounded memory) and finds its parts with their exact line
//! spans: the commits (hash, subject) and files (path, lines added and
//! removed) of a diff, the files of grep matches with their counts (count
//! mode `file:N` read as counts), the directories of a listing with their
//! entries. The output is content, not a report of how the command went: the
//! cut ranks none of its lines by the error words inside them (see
//! [`crate::shape::Prepared`]), and the shell hints list the parts and
//! suggest reading one of them from the stored output.
//!
//! A leaf of the cut stage: it imports nothing of the crate but `text`.

mod command;
mod diff;
mod grep;
mod levels;
mod listing;

pub use command::kind_of;
pub use diff::{Commit, DiffView};
pub use grep::{GrepFile, GrepView};
pub use levels::LevelsView;
pub use listing::{Group, Leaf, ListingView};

/// Whether a path lies in a generated or vendored tree (`target/`,
/// `node_modules/`, `build/`, `dist/`, `__pycache__/`, `.git/`, `vendor/`,
/// `site-packages/`) or is a compiled file (`.class`, `.pyc`, `.o`): what an
/// agent opens next from a grep or a listing is seldom there. Both `/` and
/// `\` separate (listings of Windows machines).
pub fn generated_path(path: &str) -> bool {
    const DIRS: [&str; 9] = [
        "target",
        "node_modules",
        "build",
        "dist",
        "__pycache__",
        ".git",
        "vendor",
        "site-packages",
        ".venv",
    ];
    const EXTS: [&str; 5] = [".class", ".pyc", ".o", ".min.js", ".map"];
    let mut parts = path.split(['/', '\\']).filter(|p| !p.is_empty());
    let last = parts.next_back().unwrap_or("");
    parts.any(|p| DIRS.contains(&p)) || EXTS.iter().any(|e| last.ends_with(e))
}

/// At most this many parts (commits, files, directories) are held with their
/// spans; the rest are counted.
pub const MAX_PARTS: usize = 20_000;

/// A line longer than this is read by its first bytes only.
const MAX_LINE: usize = 64 << 10;

/// What kind of everyday output a command prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `git log`, `git show`, `git diff`, `diff -u`: commits and file diffs.
    Diff,
    /// `grep`, `rg`, `git grep`, in one of their output modes.
    Grep(GrepMode),
    /// `find`, `ls -R`, `tree`, `git ls-files`, `rg --files`: paths.
    Listing(ListingMode),
    /// Any other command's output, read for log levels (a log is a report:
    /// its error lines still rank).
    Levels,
}

/// How grep prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrepMode {
    /// Matching lines (`file:line:text`, `file:text`, `line:text`), with
    /// context lines (`file-line-text`) and `--` separators.
    Lines,
    /// `-c`: `file:N` per file searched (`N` alone for one file).
    Count,
    /// `-l` / `-L`: one file name a line.
    Files,
}

/// How a listing prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListingMode {
    /// One path a line (`find`, `fd`, `git ls-files`, `grep -l`).
    Paths,
    /// `ls -R`: a `dir:` line, then its entries, a blank line between.
    Sections,
    /// `tree`: entries drawn under their parents with `├──`/`└──`.
    Tree,
}

impl Kind {
    /// The kind's name in the recovery section and `--json`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Diff => "diff",
            Kind::Grep(GrepMode::Lines) => "grep",
            Kind::Grep(GrepMode::Count) => "grep counts",
            Kind::Grep(GrepMode::Files) => "grep file list",
            Kind::Listing(_) => "listing",
            Kind::Levels => "log",
        }
    }

    /// Whether the output is content (a diff, grep results, a listing), not
    /// a report of how the command went.
    pub fn is_content(self) -> bool {
        !matches!(self, Kind::Levels)
    }
}

/// What was read of an everyday output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum View {
    /// Commits and file diffs.
    Diff(DiffView),
    /// Matches per file.
    Grep(GrepView),
    /// Entries per directory.
    Listing(ListingView),
    /// A log's levels.
    Levels(LevelsView),
}

/// An everyday output's kind and what its lines hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Everyday {
    /// The kind the command prints.
    pub kind: Kind,
    /// The parts found, when the output has the kind's shape (else `None`:
    /// the command's name promised a kind its output does not show).
    pub view: Option<View>,
    /// Lines read.
    pub lines: usize,
    /// The chars of each of the first [`MAX_SIZED`] lines, its `\n` included
    /// (what a read of the stored output by lines returns).
    line_chars: Vec<u32>,
}

/// The sizes of at most this many lines are held (4 MiB).
pub const MAX_SIZED: usize = 1 << 20;

impl Everyday {
    /// The longest range of lines from line `a` (1-based), ending no later
    /// than `max_end`, whose chars are at most `budget`: its last line and
    /// its chars. `None` when line `a` alone is longer, or its size is not
    /// held.
    pub fn lines_within(&self, a: usize, max_end: usize, budget: usize) -> Option<(usize, usize)> {
        let mut used = 0usize;
        let mut end = None;
        for n in a.max(1)..=max_end.min(self.lines) {
            let c = *self.line_chars.get(n - 1)? as usize;
            if used + c > budget {
                break;
            }
            used += c;
            end = Some((n, used));
        }
        end
    }
}

/// A log's levels, read from the lines a scan finds as it finds them
/// ([`crate::scan::Scanner::with_levels`]): the same [`Everyday`] as a
/// [`Builder`] of [`Kind::Levels`] fed the same pieces, without a second pass
/// over the bytes. The scan marks the bytes of each block of lines that may
/// start a level word in one vector pass; a line is read only at those.
#[derive(Debug, Default)]
pub struct LevelFeed {
    reader: levels::Reader,
    bits: Vec<u64>,
}

impl LevelFeed {
    /// The next block of whole lines (the first starts at its start).
    pub(crate) fn block(&mut self, block: &[u8]) {
        levels::candidates(block, &mut self.bits);
    }

    /// Line `n`, without its `\n`, starting at byte `at` of the last block.
    pub(crate) fn line_at(&mut self, n: usize, line: &[u8], at: usize) {
        self.reader.level(n, levels::level_at(line, &self.bits, at));
    }

    /// Line `n`, without its `\n`, read in pieces (its first bytes at least,
    /// up to [`MAX_LINE`]): read as [`Builder`] reads a line it held.
    pub(crate) fn held_line(&mut self, n: usize, line: &[u8]) {
        let text = String::from_utf8_lossy(&line[..line.len().min(MAX_LINE)]);
        let line = text.strip_suffix('\r').unwrap_or(&text);
        self.reader.line(n, line.as_bytes());
    }

    /// The end of the output, of `lines` lines.
    pub fn finish(self, lines: usize) -> Everyday {
        Everyday {
            kind: Kind::Levels,
            view: self.reader.finish(lines).map(View::Levels),
            lines,
            line_chars: Vec::new(),
        }
    }
}

/// Reads an output of a kind line by line: [`Builder::feed`] raw pieces (or
/// [`Builder::of`] a whole text), then [`Builder::finish`].
#[derive(Debug)]
pub struct Builder {
    kind: Kind,
    pending: Vec<u8>,
    /// The pending line passed [`MAX_LINE`]: its rest is not held.
    long: bool,
    n: usize,
    parts: Parts,
    line_chars: Vec<u32>,
}

#[derive(Debug)]
enum Parts {
    Diff(diff::Reader),
    Grep(grep::Reader),
    Listing(listing::Reader),
    Levels(levels::Reader),
}

impl Builder {
    /// A reader of an output of `kind`, nothing read yet.
    pub fn new(kind: Kind) -> Builder {
        let parts = match kind {
            Kind::Diff => Parts::Diff(diff::Reader::default()),
            Kind::Grep(GrepMode::Files) => Parts::Listing(listing::Reader::new(ListingMode::Paths)),
            Kind::Grep(m) => Parts::Grep(grep::Reader::new(m)),
            Kind::Listing(m) => Parts::Listing(listing::Reader::new(m)),
            Kind::Levels => Parts::Levels(levels::Reader::default()),
        };
        Builder {
            kind,
            pending: Vec::new(),
            long: false,
            n: 0,
            parts,
            line_chars: Vec::new(),
        }
    }

    /// The structure of a whole text.
    pub fn of(kind: Kind, text: &str) -> Everyday {
        let mut b = Builder::new(kind);
        b.feed(text.as_bytes());
        b.finish()
    }

    /// The next piece of the output, as read.
    pub fn feed(&mut self, data: &[u8]) {
        let mut rest = data;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            if let Parts::Levels(r) = &mut self.parts
                && self.pending.is_empty()
            {
                // a log's levels: its bytes are enough (no sizes, no text)
                self.n += 1;
                r.line(self.n, &rest[..i]);
            } else if self.pending.is_empty() && !self.long && i <= MAX_LINE {
                // a whole line in this piece: read where it lies
                self.line_at(&rest[..i], true);
            } else {
                self.push(&rest[..i]);
                self.end_line(true);
            }
            rest = &rest[i + 1..];
        }
        self.push(rest);
    }

    /// One whole line, not held in `pending`.
    fn line_at(&mut self, bytes: &[u8], newline: bool) {
        self.n += 1;
        let text = String::from_utf8_lossy(bytes);
        self.record(&text, newline);
    }

    fn push(&mut self, part: &[u8]) {
        if self.long {
            return;
        }
        let room = MAX_LINE.saturating_sub(self.pending.len());
        if part.len() > room {
            self.pending.extend_from_slice(&part[..room]);
            self.long = true;
        } else {
            self.pending.extend_from_slice(part);
        }
    }

    fn end_line(&mut self, newline: bool) {
        self.n += 1;
        let bytes = std::mem::take(&mut self.pending);
        let text = String::from_utf8_lossy(&bytes);
        self.record(&text, newline);
        self.long = false;
        drop(text);
        self.pending = bytes;
        self.pending.clear();
    }

    /// Line `self.n`'s size and what it holds.
    fn record(&mut self, text: &str, newline: bool) {
        // (a log's line sizes are never read: its hints read no parts)
        if self.line_chars.len() < MAX_SIZED && self.kind != Kind::Levels {
            // (a line longer than MAX_LINE is not held: its size is not known)
            let c = if self.long {
                u32::MAX
            } else {
                u32::try_from(crate::text::count_chars(text) + usize::from(newline))
                    .unwrap_or(u32::MAX)
            };
            self.line_chars.push(c);
        }
        let line = text.strip_suffix('\r').unwrap_or(text);
        match &mut self.parts {
            Parts::Diff(r) => r.line(self.n, line),
            Parts::Grep(r) => r.line(self.n, line),
            Parts::Listing(r) => r.line(self.n, line),
            Parts::Levels(r) => r.line(self.n, line.as_bytes()),
        }
    }

    /// The end of the output.
    pub fn finish(mut self) -> Everyday {
        if !self.pending.is_empty() || self.long {
            self.end_line(false);
        }
        let n = self.n;
        let view = match self.parts {
            Parts::Diff(r) => r.finish(n).map(View::Diff),
            Parts::Grep(r) => r.finish(n).map(View::Grep),
            Parts::Listing(r) => r.finish(n).map(View::Listing),
            Parts::Levels(r) => r.finish(n).map(View::Levels),
        };
        Everyday {
            kind: self.kind,
            view,
            lines: n,
            line_chars: self.line_chars,
        }
    }
}

#[cfg(test)]
mod tests;
