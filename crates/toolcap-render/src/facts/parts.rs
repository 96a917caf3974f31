//! The parts of a purpose that have more than one form: how many error lines
//! a search prints, which chars a window reads, where mentions are searched.

use std::fmt;

use crate::text::{plural, thousands};

/// How many error lines a search prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCount {
    /// All of the stored output's: `12 lines`.
    Stored {
        /// Lines found.
        lines: usize,
    },
    /// All of them: `12 lines, 900 chars`.
    All {
        /// Lines found.
        lines: usize,
        /// Chars they print.
        chars: usize,
    },
    /// The first that come back whole: `the first 40 of 1,200, 4,000 chars`.
    First {
        /// Lines printed.
        first: usize,
        /// Lines found, when the count reached the end.
        of: Option<usize>,
        /// Chars printed.
        chars: usize,
    },
}

impl fmt::Display for ErrorCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorCount::Stored { lines } => f.write_str(&plural(*lines, "line", "lines")),
            ErrorCount::All { lines, chars } => write!(
                f,
                "{}, {}",
                plural(*lines, "line", "lines"),
                plural(*chars, "char", "chars")
            ),
            ErrorCount::First { first, of, chars } => {
                write!(f, "the first {}", thousands(*first))?;
                if let Some(n) = of {
                    write!(f, " of {}", thousands(*n))?;
                }
                write!(f, ", {}", plural(*chars, "char", "chars"))
            }
        }
    }
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

/// What a call that looks at binary data prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look {
    /// Its first bytes in hex.
    Hex {
        /// Bytes dumped.
        bytes: usize,
    },
    /// Its first printable strings.
    Strings {
        /// Strings printed.
        count: usize,
    },
}

/// Whose binary data a call looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOf {
    /// The stored output.
    Stored,
    /// The file read.
    File,
    /// The output of the command run again.
    Output,
}
