//! grep results read: their layout (`file:line:text`, heading mode, a file
//! list...), every match and its file; and whether the call ignored case.

use std::sync::LazyLock;

use regex::Regex;

use crate::text::static_regex;

/// How the result lines were laid out; its name (`as_str`) is how the
/// recovery section describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr)]
pub enum Format {
    /// `file:line:text` (grep -rn, rg --no-heading).
    #[strum(serialize = "file:line:text")]
    FileLine,
    /// ripgrep's heading mode: a file name, then `line:text` lines.
    #[strum(serialize = "heading mode")]
    Heading,
    /// `line:text` from one file.
    #[strum(serialize = "line:text")]
    SingleFile,
    /// `file:text` (grep -r without -n).
    #[strum(serialize = "file:text")]
    FileText,
    /// one file name per line (grep -l, rg --files-with-matches).
    #[strum(serialize = "file list")]
    FilesOnly,
    /// `File: PATH` headings, then `L12: text` lines (Gemini CLI's grep_search).
    #[strum(serialize = "File:/L<n>: blocks")]
    Labelled,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        self.into()
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

static FILE_COUNT: LazyLock<Regex> = LazyLock::new(|| static_regex(r"^(.*[^\s:]):(\d+)$"));

/// Counts per file (`grep -c`, `rg --count`, a grep tool's count mode): each
/// `path:count` line's file, count and result line (0-based). Read as counts
/// when the call asked for them (`asked`: an `output_mode` of `count`) or
/// when every line but a few closing ones (a tool's own total) has that
/// shape and names a file that is not a number (`12:3` is a single file's
/// line 12); None otherwise.
pub fn counts<'a>(lines: &[&'a str], asked: bool) -> Option<Vec<(&'a str, usize, usize)>> {
    let mut out = Vec::new();
    let mut other_at = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        match FILE_COUNT.captures(l) {
            Some(c) if !c[1].bytes().all(|b| b.is_ascii_digit()) => {
                let n = c[2].parse().ok()?;
                out.push((c.get(1).map_or("", |m| m.as_str()), n, i));
            }
            _ => other_at.push(i),
        }
    }
    // (the lines that are not counts: a closing total or note after them)
    let last_count = out.last().map_or(0, |&(_, _, i)| i);
    let closing = other_at.iter().all(|&i| i > last_count) && other_at.len() <= 3;
    (!out.is_empty() && (asked || (out.len() >= 2 && closing))).then_some(out)
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
    fn counts_per_file() {
        let lines = [
            "./fileinput.py:29",
            "./a b.py:0",
            "Found 29 total occurrences",
        ];
        assert_eq!(
            counts(&lines, false),
            Some(vec![("./fileinput.py", 29, 0), ("./a b.py", 0, 1)])
        );
        // a single file's numbered lines holding numbers are not counts
        assert_eq!(counts(&["12:3", "14:7"], false), None);
        // matches whose text is not a number are not either
        assert_eq!(counts(&["a.py:import os", "b.py:2"], false), None);
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
