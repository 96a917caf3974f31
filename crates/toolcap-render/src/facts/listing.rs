//! The structure section as typed values: its title and entries with their
//! numbers (a listing's words are written here, from them).

use std::fmt;

use super::Outlined;
use crate::quote;
use crate::recovery::Structure;
use crate::text::{ellipsize, plural, thousands};

/// Chars of a heading's label shown in a listing.
const HEADING_CHARS: usize = 90;

/// Chars of a JSON key shown in a skeleton.
const KEY_CHARS: usize = 60;

/// Chars of a search result's title shown in a listing.
const HIT_TITLE_CHARS: usize = 70;

/// Chars of a file name shown in a search's top files.
const FILE_CHARS: usize = 120;

/// Names listed in one counts line (the rest are counted).
const COUNTS_SHOWN: usize = 6;

/// A structure listing: its title and entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    /// The title line.
    pub title: Title,
    /// One entry a line.
    pub lines: Vec<Entry>,
}

impl Listing {
    /// A listing of `lines` under `title`, at most `max` of them: the last
    /// one kept says how many more `what` there are.
    pub fn capped(title: Title, mut lines: Vec<Entry>, what: &'static str, max: usize) -> Self {
        if lines.len() > max && max > 0 {
            let count = lines.len() - (max - 1);
            lines.truncate(max - 1);
            lines.push(Entry::More { count, what });
        }
        Listing { title, lines }
    }

    /// The listing in words.
    pub fn render(self) -> Structure {
        Structure {
            title: String::from(self.title),
            lines: self.lines.into_iter().map(String::from).collect(),
        }
    }
}

/// A listing of text lines (a family whose listing is not typed).
impl From<Structure> for Listing {
    fn from(s: Structure) -> Listing {
        Listing {
            title: Title::Text(s.title),
            lines: s.lines.into_iter().map(Entry::Text).collect(),
        }
    }
}

/// A structure listing's title.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Title {
    /// A title as written by its builder.
    Text(String),
    /// A file listing's counts: `Where the files are`.
    WhereFilesAre,
    /// `Headings (12)`.
    Headings {
        /// Headings in the whole result.
        count: usize,
    },
    /// `Results not shown (7)`.
    ResultsNotShown {
        /// Search results the model did not see.
        count: usize,
    },
    /// A JSON document's skeleton: `JSON structure`.
    JsonStructure,
    /// A file's outline: `Structure (lines 1-3519)`, with what limited it.
    Outline {
        /// Line n of the result is line n + off of the file.
        off: usize,
        /// Lines of the result.
        total: usize,
        /// When a limit stopped the outline: how far it read.
        partial: Option<Outlined>,
        /// Lines printed from inside a file that continue a definition begun
        /// above them (not outlined): the last of them, in the result's lines.
        begun_above: Option<usize>,
        /// Lines printed from inside a file whose first line is inside a
        /// definition begun above them: the innermost one.
        starts_inside: Option<Inside>,
        /// The same for the last line, inside a definition that goes on
        /// past it.
        ends_inside: Option<Inside>,
        /// The parser found syntax errors (the outline is its best effort).
        syntax_errors: bool,
    },
    /// `Top files by matches (5 of 12)`.
    TopFilesByMatches {
        /// Files listed.
        shown: usize,
        /// Files with matches.
        total: usize,
    },
    /// A binary result's printable strings.
    PrintableStrings {
        /// Chars looked at.
        sample: usize,
        /// Strings listed.
        shown: usize,
        /// Strings found.
        total: usize,
        /// The fewest chars a listed string has.
        min: usize,
    },
}

/// A definition lines printed from inside a file start or end inside:
/// `class Foo (lines 120-480)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inside {
    /// What it is: `class Foo`, `method Foo.bar`.
    pub what: String,
    /// Its first line in the file.
    pub start: usize,
    /// Its last line in the file.
    pub end: usize,
}

impl fmt::Display for Inside {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (lines {}-{})", self.what, self.start, self.end)
    }
}

impl fmt::Display for Title {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Title::Text(s) => f.write_str(s),
            Title::WhereFilesAre => f.write_str("Where the files are"),
            Title::Headings { count } => write!(f, "Headings ({})", thousands(*count)),
            Title::ResultsNotShown { count } => {
                write!(f, "Results not shown ({})", thousands(*count))
            }
            Title::JsonStructure => f.write_str("JSON structure"),
            Title::Outline {
                off,
                total,
                partial,
                begun_above,
                starts_inside,
                ends_inside,
                syntax_errors,
            } => {
                match partial {
                    Some(o) => {
                        f.write_str("Structure (lines ")?;
                        o.write_span(f)?;
                        write!(f, "; partial: {} stopped the outline there", o.stopped_by)?;
                    }
                    None => write!(f, "Structure (lines {}-{}", 1 + off, total + off)?,
                }
                if let Some(k) = begun_above {
                    write!(
                        f,
                        "; lines {}-{} continue a definition begun above them: not outlined",
                        1 + off,
                        k + off
                    )?;
                }
                if let Some(d) = starts_inside {
                    write!(f, "; starts inside {d}")?;
                }
                if let Some(d) = ends_inside {
                    write!(f, "; ends inside {d}")?;
                }
                if *syntax_errors {
                    f.write_str("; best effort: the parser found syntax errors")?;
                }
                f.write_str(")")
            }
            Title::TopFilesByMatches { shown, total } => write!(
                f,
                "Top files by matches ({} of {})",
                thousands(*shown),
                thousands(*total)
            ),
            Title::PrintableStrings {
                sample,
                shown,
                total,
                min,
            } => write!(
                f,
                "Printable strings in the first {} ({shown} of {total}, at least {min} chars each)",
                plural(*sample, "char", "chars"),
            ),
        }
    }
}

/// What a counts line of a file listing counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountsOf {
    /// The directories right below the common one, with the files at any
    /// depth in each.
    Subdirectories,
    /// Every directory, with the files directly in it.
    Directories,
    /// File extensions (without their dot), with the files of each.
    Extensions,
}

/// One line of a structure listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A line as written by its builder.
    Text(String),
    /// `... and 12 more headings`: the lines left out.
    More {
        /// Lines left out.
        count: usize,
        /// What they are (`headings`).
        what: &'static str,
    },
    /// `All under: Lib/`: the directory every listed path is in.
    AllUnder(String),
    /// A listing that names directories along with their files.
    FilesAndDirs {
        /// Files listed.
        files: usize,
        /// Directories listed.
        dirs: usize,
    },
    /// `Directories (40, files directly in): a (12), b (3), and 38 more`.
    Counts {
        /// What is counted.
        of: CountsOf,
        /// Every name with its count, most first.
        items: Vec<(String, usize)>,
    },
    /// A heading: `  - Creating a New String (lines 12-40, heading shown)`.
    Heading {
        /// Levels below the highest heading of the result.
        depth: usize,
        /// Its text (with its number, when numbered).
        label: String,
        /// Its line (1-based).
        line: usize,
        /// The last line of its section, when known and past its own line.
        end: Option<usize>,
        /// The model saw the heading's line.
        shown: bool,
    },
    /// A search result not shown: `7. Title — https://x.org/a (line 40)`.
    Hit {
        /// Its number in the results (1-based).
        n: usize,
        /// Its title, when it has one.
        title: Option<String>,
        /// Its URL, when it has one (never shortened: a cut URL cannot be
        /// fetched).
        url: Option<String>,
        /// Its first line (1-based), when the results are lines.
        line: Option<usize>,
    },
    /// A JSON key and its value's shape: `- "packages": array[42] of object`
    /// (indented when the key is one level down).
    JsonKey {
        /// One level below the top.
        nested: bool,
        /// The key.
        key: String,
        /// Its value's shape.
        shape: String,
    },
    /// `  - ... and 12 more keys` of an object one level down.
    MoreKeys(usize),
    /// A document that is not an object: its shape.
    JsonValue(String),
    /// A string found in the data, quoted as JSON.
    Quoted(String),
    /// `- src/a.rs (12 matches)`: a file of a search's results.
    FileMatches {
        /// The file.
        file: String,
        /// Its matches.
        matches: usize,
    },
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Entry::Text(s) => f.write_str(s),
            Entry::More { count, what } => write!(f, "... and {} more {what}", thousands(*count)),
            Entry::AllUnder(dir) => write!(f, "All under: {dir}"),
            Entry::FilesAndDirs { files, dirs } => write!(
                f,
                "{} and {} (directories listed with their files)",
                plural(*files, "file", "files"),
                plural(*dirs, "directory", "directories")
            ),
            Entry::Counts { of, items } => write_counts(f, *of, items),
            Entry::Heading {
                depth,
                label,
                line,
                end,
                shown,
            } => {
                write!(
                    f,
                    "{}- {} (",
                    "  ".repeat((*depth).min(3)),
                    ellipsize(label, HEADING_CHARS)
                )?;
                match end {
                    Some(e) => write!(f, "lines {line}-{e}")?,
                    None => write!(f, "line {line}")?,
                }
                f.write_str(if *shown { ", heading shown)" } else { ")" })
            }
            Entry::Hit {
                n,
                title,
                url,
                line,
            } => {
                let t = title
                    .as_deref()
                    .map_or_else(String::new, |t| ellipsize(t, HIT_TITLE_CHARS));
                let u = url.as_deref().unwrap_or("");
                let sep = if t.is_empty() || u.is_empty() {
                    ""
                } else {
                    " — "
                };
                write!(f, "{n}. {t}{sep}{u}")?;
                if let Some(l) = line {
                    write!(f, " (line {l})")?;
                }
                Ok(())
            }
            Entry::JsonKey { nested, key, shape } => write!(
                f,
                "{}- {}: {shape}",
                if *nested { "  " } else { "" },
                ellipsize(&quote::json_string(key), KEY_CHARS)
            ),
            Entry::MoreKeys(n) => write!(f, "  - ... and {} more keys", thousands(*n)),
            Entry::JsonValue(shape) => write!(f, "- {shape}"),
            Entry::Quoted(s) => f.write_str(&quote::json_string(s)),
            Entry::FileMatches { file, matches } => write!(
                f,
                "- {} ({})",
                ellipsize(file, FILE_CHARS),
                plural(*matches, "match", "matches")
            ),
        }
    }
}

/// `Extensions (3): .py (1,700), .txt (12), and 1 more`: names are never
/// shortened (a shortened directory name cannot be used); the recovery
/// section's cap bounds the line.
fn write_counts(
    f: &mut fmt::Formatter<'_>,
    of: CountsOf,
    items: &[(String, usize)],
) -> fmt::Result {
    let head = match of {
        CountsOf::Subdirectories => "Subdirectories (",
        CountsOf::Directories => "Directories (",
        CountsOf::Extensions => "Extensions (",
    };
    // (the directory counts are written without separators, as they always were)
    let count = match of {
        CountsOf::Extensions => thousands(items.len()),
        _ => items.len().to_string(),
    };
    let tail = match of {
        CountsOf::Subdirectories => ", files at any depth): ",
        CountsOf::Directories => ", files directly in): ",
        CountsOf::Extensions => "): ",
    };
    write!(f, "{head}{count}{tail}")?;
    let dot = if of == CountsOf::Extensions { "." } else { "" };
    for (i, (name, n)) in items.iter().take(COUNTS_SHOWN).enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{dot}{name} ({})", thousands(*n))?;
    }
    if items.len() > COUNTS_SHOWN {
        write!(f, ", and {} more", thousands(items.len() - COUNTS_SHOWN))?;
    }
    Ok(())
}

macro_rules! text_words {
    ($($t:ident),*) => {$(
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

text_words!(Title, Entry);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capped_listing_counts_what_it_leaves_out() {
        let lines = (1..=30)
            .map(|i| Entry::Heading {
                depth: 0,
                label: format!("Part {i}"),
                line: i,
                end: None,
                shown: false,
            })
            .collect();
        let l = Listing::capped(Title::Headings { count: 30 }, lines, "headings", 25);
        assert_eq!(l.lines.len(), 25);
        assert_eq!(
            l.lines[24],
            Entry::More {
                count: 6,
                what: "headings"
            }
        );
        let s = l.render();
        assert_eq!(s.title, "Headings (30)");
        assert_eq!(s.lines[24], "... and 6 more headings");
    }

    #[test]
    fn counts_list_six_names_and_count_the_rest() {
        let items: Vec<(String, usize)> = (0..8).map(|i| (format!("d{i}"), 1000 - i)).collect();
        let e = Entry::Counts {
            of: CountsOf::Extensions,
            items,
        };
        assert_eq!(
            e.to_string(),
            "Extensions (8): .d0 (1,000), .d1 (999), .d2 (998), .d3 (997), .d4 (996), .d5 \
             (995), and 2 more"
        );
    }
}
