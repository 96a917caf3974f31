//! Non-code outlines: the structure of markdown, JSON, YAML, TOML, CSV/TSV,
//! logs and HTML, with exact numbers.
//!
//! [`detect`] picks the format from a file name or the content, and
//! [`outline_capped`] returns a [`TextOutline`]: a format name, a title for
//! the listing and its lines.
//! Every count is computed from the whole text; every line number is 1-based.

use crate::text::static_regex;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// A non-code format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Markdown,
    Json,
    Yaml,
    Toml,
    Csv,
    Tsv,
    Log,
    Html,
}

impl Format {
    /// Every format, in the order `toolcap outline`'s error lists them.
    pub const ALL: [Format; 8] = [
        Format::Markdown,
        Format::Json,
        Format::Yaml,
        Format::Toml,
        Format::Csv,
        Format::Tsv,
        Format::Log,
        Format::Html,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Markdown => "markdown",
            Format::Json => "json",
            Format::Yaml => "yaml",
            Format::Toml => "toml",
            Format::Csv => "csv",
            Format::Tsv => "tsv",
            Format::Log => "log",
            Format::Html => "html",
        }
    }

    /// The format named `s` (case-insensitive): its name or a usual file
    /// extension for it (`markdown`, `md`, `yml`, `htm`, ...).
    pub fn from_name(s: &str) -> Option<Format> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "markdown" | "md" | "mdx" => Format::Markdown,
            "json" | "jsonc" => Format::Json,
            "yaml" | "yml" => Format::Yaml,
            "toml" => Format::Toml,
            "csv" => Format::Csv,
            "tsv" => Format::Tsv,
            "log" => Format::Log,
            "html" | "htm" | "xhtml" => Format::Html,
            _ => return None,
        })
    }
}

/// The structure of a non-code text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TextOutline {
    pub format: Format,
    /// Title of the listing, with its exact totals ("Headings (12)").
    pub title: String,
    /// One entry per line of the listing.
    pub lines: Vec<String>,
}

/// The format of a text: by file extension first, then by content.
pub fn detect(path: Option<&str>, text: &str) -> Option<Format> {
    let by_ext = path.and_then(super::extension).and_then(|ext| {
        Some(match ext.as_str() {
            "md" | "markdown" | "mdx" | "rst" => Format::Markdown,
            "json" | "jsonc" | "geojson" | "ipynb" => Format::Json,
            "yaml" | "yml" => Format::Yaml,
            "toml" => Format::Toml,
            "csv" => Format::Csv,
            "tsv" | "tab" => Format::Tsv,
            "log" | "out" | "err" => Format::Log,
            "html" | "htm" | "xhtml" => Format::Html,
            _ => return None,
        })
    });
    if by_ext.is_some() {
        return by_ext;
    }
    let t = text.trim_start();
    if (t.starts_with('{') || t.starts_with('[')) && serde_json::from_str::<Value>(text).is_ok() {
        return Some(Format::Json);
    }
    if super::html::is_html(text) {
        return Some(Format::Html);
    }
    let head: Vec<&str> = text.lines().take(200).collect();
    if head.is_empty() {
        return None;
    }
    // code in a language not detected: no outline rather than a wrong one
    if sniffs_as_code(text) {
        return None;
    }
    let leveled = head.iter().filter(|l| LOG_LEVEL.is_match(l)).count();
    if leveled * 2 >= head.len() && leveled >= 3 {
        return Some(Format::Log);
    }
    let headings = head.iter().filter(|l| MD_HEADING.is_match(l)).count();
    if headings >= 2 && !reads_as_code(&head, headings) {
        return Some(Format::Markdown);
    }
    None
}

/// The outline of `text` in `format`; None when there is nothing to list
/// (no headings, invalid JSON, ...). At most `max` lines are listed (at least 2): when there are more
/// entries, the first `max - 1` and a last line counting the rest exactly
/// (`... and 109 more keys`), counted from all the entries found in `text`.
pub fn outline_capped(format: Format, text: &str, max: usize) -> Option<TextOutline> {
    let max = max.max(2);
    match format {
        Format::Markdown => markdown(text, max),
        Format::Json => json(text, max),
        Format::Yaml => yaml(text, max),
        Format::Toml => toml_keys(text, max),
        Format::Csv => delimited(text, b',', max),
        Format::Tsv => delimited(text, b'\t', max),
        Format::Log => log(text),
        Format::Html => html(text, max),
    }
}

/// Cap a listing at `max` lines, counting the rest exactly.
fn cap(mut lines: Vec<String>, what: &str, max: usize) -> Vec<String> {
    if lines.len() > max {
        let rest = lines.len() - (max - 1);
        lines.truncate(max - 1);
        lines.push(format!(
            "... and {} more {what}",
            crate::text::thousands(rest)
        ));
    }
    lines
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!(
        "{} {}",
        crate::text::thousands(n),
        if n == 1 { one } else { many }
    )
}

fn short(s: &str, max: usize) -> String {
    crate::text::ellipsize(s.trim(), max)
}

/// A line only code starts with at the left margin: a Perl `package`,
/// `use strict`, `sub name`; a Python `def`, `class`, `import`, `from ...
/// import`; a shell function; a Ruby `require` / `module`; a C preprocessor
/// include.
static CODE_START: LazyLock<Regex> = LazyLock::new(|| {
    static_regex(
        r"^(package\s+[\w:]+\s*;|use\s+(strict|warnings|[\w:]+(\s+[^;]*)?)\s*;|sub\s+\w+\s*\{?|(async\s+)?def\s+\w+\s*\(|class\s+\w+\s*[(:]|import\s+[\w.]+(\s+as\s+\w+)?\s*(,\s*[\w.]+)*\s*$|from\s+[\w.]+\s+import\s|\w+\s*\(\)\s*\{|require\s+['\x22]|module\s+[A-Z]\w*|#include\s*[<\x22])",
    )
});

/// Whether `text` reads as code: a `#!` first line, or at least three lines
/// (outside fenced blocks, anywhere in the first 2,000 lines: code may start
/// after a long comment block) that only code starts with.
fn sniffs_as_code(text: &str) -> bool {
    if text.starts_with("#!") {
        return true;
    }
    let mut fenced = false;
    let mut code = 0;
    for l in text.lines().take(2000) {
        let t = l.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
        } else if !fenced && CODE_START.is_match(l) {
            code += 1;
            if code >= 3 {
                return true;
            }
        }
    }
    false
}

static MD_HEADING: LazyLock<Regex> =
    LazyLock::new(|| static_regex(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$"));
/// A line of code at the left margin: an import, an assignment, a call, a block
/// header, a `return` (Python, shell, Ruby, ... scripts whose `#` comments read
/// like Markdown headings).
static CODE_LINE: LazyLock<Regex> = LazyLock::new(|| {
    static_regex(
        r"^(import\s+\w|from\s+[\w.]+\s+import\s|[A-Za-z_][\w.]*(\[[^\]]*\])?\s*([-+*/%|&]|//|\*\*)?=[^=]|[A-Za-z_][\w.]*\(.*\)\s*;?\s*$|(if|elif|else|for|while|with|try|except|def|class|async\s+def)\b.*:\s*$|return\b|export\s+\w+=)",
    )
});

/// Whether `#`-headed lines are more likely code comments: at least as many
/// code lines (outside fenced blocks) as headings.
fn reads_as_code(head: &[&str], headings: usize) -> bool {
    let mut fenced = false;
    let mut code = 0;
    for l in head {
        let t = l.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
        } else if !fenced && CODE_LINE.is_match(l) {
            code += 1;
        }
    }
    code >= headings.max(2)
}

static SETEXT: LazyLock<Regex> = LazyLock::new(|| static_regex(r"^ {0,3}(=+|-+)[ \t]*$"));

/// A markdown heading: level, text, 1-based line, and the last line of its
/// section (up to the next heading of the same or a higher level).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MdHeading {
    pub level: usize,
    pub text: String,
    pub line: usize,
    pub end_line: usize,
}

/// ATX (`## x`) and setext (`x` over `===`/`---`) headings outside fenced
/// code blocks, with their section spans.
pub fn markdown_headings(text: &str) -> Vec<MdHeading> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<MdHeading> = Vec::new();
    let mut fence: Option<(u8, usize)> = None;
    let mut in_comment = false;
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        let indent = l.len() - t.len();
        let fence_char = t.bytes().next().filter(|c| *c == b'`' || *c == b'~');
        if indent < 4
            && let Some(c) = fence_char
        {
            let n = t.bytes().take_while(|&b| b == c).count();
            if n >= 3 {
                match fence {
                    None => fence = Some((c, n)),
                    Some((fc, fnum)) if fc == c && n >= fnum && t[n..].trim().is_empty() => {
                        fence = None
                    }
                    Some(_) => {}
                }
                continue;
            }
        }
        if fence.is_some() {
            continue;
        }
        // inside an HTML comment (`<!-- ... -->`, over several lines): not
        // rendered, so not a heading
        if in_comment {
            if l.contains("-->") {
                in_comment = false;
            }
            continue;
        }
        if let Some(at) = l.find("<!--")
            && !l[at + 4..].contains("-->")
        {
            in_comment = true;
            continue;
        }
        if let Some(c) = MD_HEADING.captures(l) {
            out.push(MdHeading {
                level: c.get(1).map_or(1, |m| m.as_str().len()),
                text: c.get(2).map_or("", |m| m.as_str()).trim().to_string(),
                line: i + 1,
                end_line: 0,
            });
        } else if i > 0
            && let Some(c) = SETEXT.captures(l)
        {
            let prev = lines[i - 1].trim();
            let prev_is_heading = out.last().is_some_and(|h| h.line == i);
            if !prev.is_empty()
                && !prev_is_heading
                && !prev.starts_with(['-', '*', '>', '|', '#'])
                && lines[i - 1].len() - lines[i - 1].trim_start().len() < 4
            {
                let level = if c.get(1).is_some_and(|m| m.as_str().starts_with('=')) {
                    1
                } else {
                    2
                };
                out.push(MdHeading {
                    level,
                    text: prev.to_string(),
                    line: i,
                    end_line: 0,
                });
            }
        }
    }
    // Section spans: up to the line before the next heading of the same or a
    // higher level, else the last line.
    let total = lines.len();
    for i in 0..out.len() {
        let level = out[i].level;
        let next = out[i + 1..]
            .iter()
            .find(|h| h.level <= level)
            .map_or(total + 1, |h| h.line);
        out[i].end_line = (next - 1).max(out[i].line);
    }
    out
}

fn markdown(text: &str, max: usize) -> Option<TextOutline> {
    let hs = markdown_headings(text);
    if hs.is_empty() {
        return None;
    }
    let min = hs.iter().map(|h| h.level).min().unwrap_or(1);
    let lines = hs
        .iter()
        .map(|h| {
            format!(
                "{}{} {} (lines {}-{})",
                "  ".repeat((h.level - min).min(4)),
                "#".repeat(h.level),
                short(&h.text, 90),
                h.line,
                h.end_line
            )
        })
        .collect();
    Some(TextOutline {
        format: Format::Markdown,
        title: format!("Headings ({})", crate::text::thousands(hs.len())),
        lines: cap(lines, "headings", max),
    })
}

/// How deep the JSON skeleton goes.
pub const JSON_DEPTH: usize = 3;

fn json(text: &str, max: usize) -> Option<TextOutline> {
    let v: Value = serde_json::from_str(text).ok()?;
    let mut lines = Vec::new();
    json_lines(&v, 0, None, &mut lines);
    Some(TextOutline {
        format: Format::Json,
        title: format!("JSON structure (to depth {JSON_DEPTH})"),
        lines: cap(lines, "entries", max),
    })
}

fn json_lines(v: &Value, depth: usize, key: Option<&str>, out: &mut Vec<String>) {
    let pad = "  ".repeat(depth);
    let label = key.map_or(String::new(), |k| {
        format!("{}: ", short(&crate::quote::json_string(k), 60))
    });
    out.push(format!("{pad}- {label}{}", super::json_shape::type_of(v)));
    if depth + 1 >= JSON_DEPTH {
        return;
    }
    match v {
        Value::Object(o) => {
            for (k, val) in o {
                json_lines(val, depth + 1, Some(k), out);
            }
        }
        Value::Array(a) => {
            // Arrays: the first element stands for the rest.
            if let Some(first) = a.first()
                && (first.is_object() || first.is_array())
            {
                json_lines(first, depth + 1, Some("[0]"), out);
            }
        }
        _ => {}
    }
}

/// Top-level YAML keys (`key:` at column 0, outside block scalars), with the
/// line each starts on and the last line of its value. Documents separated
/// by `---` are counted.
fn yaml(text: &str, max: usize) -> Option<TextOutline> {
    static KEY: LazyLock<Regex> =
        LazyLock::new(|| static_regex(r#"^("[^"]*"|'[^']*'|[^\s#\-?:][^:#]*?)\s*:(\s|$)"#));
    let lines: Vec<&str> = text.lines().collect();
    let mut keys: Vec<(String, usize)> = Vec::new();
    let mut documents = usize::from(!text.trim().is_empty());
    for (i, l) in lines.iter().enumerate() {
        if l.starts_with("---") && l[3..].trim().is_empty() {
            if i > 0 {
                documents += 1;
            }
            continue;
        }
        if let Some(c) = KEY.captures(l) {
            keys.push((c.get(1).map_or("", |m| m.as_str()).to_string(), i + 1));
        }
    }
    if keys.is_empty() {
        return None;
    }
    let total = lines.len();
    let entries = keys
        .iter()
        .enumerate()
        .map(|(i, (k, line))| {
            let end = keys.get(i + 1).map_or(total, |(_, next)| next - 1);
            let end = last_content_line(&lines, *line, end);
            format!("{} (lines {line}-{end})", short(k, 80))
        })
        .collect();
    Some(TextOutline {
        format: Format::Yaml,
        title: format!(
            "Top-level keys ({}{})",
            keys.len(),
            if documents > 1 {
                format!(" in {documents} documents")
            } else {
                String::new()
            }
        ),
        lines: cap(entries, "keys", max),
    })
}

/// The last line in `start..=end` (1-based) that is not blank or a comment.
fn last_content_line(lines: &[&str], start: usize, end: usize) -> usize {
    (start..=end)
        .rev()
        .find(|&n| {
            lines.get(n - 1).is_some_and(|l| {
                let t = l.trim();
                !t.is_empty() && !t.starts_with('#')
            })
        })
        .unwrap_or(start)
}

/// TOML: the keys before the first table, then each `[table]` and
/// `[[array]]` header, with lines. Invalid TOML is said to be so.
fn toml_keys(text: &str, max: usize) -> Option<TextOutline> {
    static HEADER: LazyLock<Regex> =
        LazyLock::new(|| static_regex(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$"));
    static KEY: LazyLock<Regex> =
        LazyLock::new(|| static_regex(r#"^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_.\-]+)\s*="#));
    let lines: Vec<&str> = text.lines().collect();
    let mut items: Vec<(String, usize)> = Vec::new();
    let mut in_table = false;
    let mut multiline: Option<&str> = None;
    for (i, l) in lines.iter().enumerate() {
        if let Some(delim) = multiline {
            if l.contains(delim) {
                multiline = None;
            }
            continue;
        }
        if let Some(c) = HEADER.captures(l) {
            in_table = true;
            let open = c.get(1).map_or("[", |m| m.as_str());
            let name = c.get(2).map_or("", |m| m.as_str());
            let shown = if open == "[[" {
                format!("[[{name}]]")
            } else {
                format!("[{name}]")
            };
            items.push((shown, i + 1));
        } else if let Some(c) = KEY.captures(l) {
            if !in_table {
                items.push((c.get(1).map_or("", |m| m.as_str()).to_string(), i + 1));
            }
            for delim in ["\"\"\"", "'''"] {
                if l.matches(delim).count() == 1 {
                    multiline = Some(delim);
                }
            }
        }
    }
    if items.is_empty() {
        return None;
    }
    let valid = text.parse::<toml::Table>().is_ok();
    let total = lines.len();
    let entries = items
        .iter()
        .enumerate()
        .map(|(i, (k, line))| {
            let end = items.get(i + 1).map_or(total, |(_, next)| next - 1);
            let end = last_content_line(&lines, *line, end);
            format!("{} (lines {line}-{end})", short(k, 80))
        })
        .collect();
    Some(TextOutline {
        format: Format::Toml,
        title: format!(
            "Top-level keys and tables ({}){}",
            items.len(),
            if valid { "" } else { "; not valid TOML" }
        ),
        lines: cap(entries, "keys and tables", max),
    })
}

/// CSV/TSV records, honouring quotes (a quoted field may span lines).
fn records(text: &str, delim: u8) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut row: Vec<String> = Vec::new();
    let mut field: Vec<u8> = Vec::new();
    let mut quoted = false;
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut any = false;
    while i < bytes.len() {
        let b = bytes[i];
        if quoted {
            if b == b'"' {
                if bytes.get(i + 1) == Some(&b'"') {
                    field.push(b'"');
                    i += 1;
                } else {
                    quoted = false;
                }
            } else {
                field.push(b);
            }
        } else if b == b'"' && field.is_empty() {
            quoted = true;
            any = true;
        } else if b == delim {
            row.push(String::from_utf8_lossy(&field).into_owned());
            field.clear();
            any = true;
        } else if b == b'\n' || b == b'\r' {
            if b == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
                i += 1;
            }
            if any || !field.is_empty() {
                row.push(String::from_utf8_lossy(&field).into_owned());
                out.push(std::mem::take(&mut row));
            }
            field.clear();
            any = false;
        } else {
            field.push(b);
            any = true;
        }
        i += 1;
    }
    if any || !field.is_empty() {
        row.push(String::from_utf8_lossy(&field).into_owned());
        out.push(row);
    }
    out
}

/// The delimiter of a delimited text: the one of `,`, `\t`, `;`, `|` that
/// splits the first lines into the same number (> 1) of fields most often.
pub fn sniff_delimiter(text: &str) -> Option<u8> {
    let head: Vec<&str> = text.lines().filter(|l| !l.is_empty()).take(20).collect();
    if head.len() < 2 {
        return None;
    }
    [b',', b'\t', b';', b'|']
        .into_iter()
        .filter_map(|d| {
            let counts: Vec<usize> = head
                .iter()
                .map(|l| l.bytes().filter(|&b| b == d).count())
                .collect();
            let first = *counts.first()?;
            let same = counts.iter().filter(|&&c| c == first).count();
            (first > 0 && same * 10 >= head.len() * 8).then_some((d, same, first))
        })
        .max_by_key(|&(_, same, fields)| (same, fields))
        .map(|(d, _, _)| d)
}

fn delimited(text: &str, default: u8, max: usize) -> Option<TextOutline> {
    let delim = sniff_delimiter(text).unwrap_or(default);
    let recs = records(text, delim);
    let header = recs.first()?;
    let rows = recs.len() - 1;
    let cols = header.len();
    let ragged = recs.iter().skip(1).filter(|r| r.len() != cols).count();
    let name = match delim {
        b',' => "comma",
        b'\t' => "tab",
        b';' => "semicolon",
        _ => "pipe",
    };
    let format = if delim == b'\t' {
        Format::Tsv
    } else {
        Format::Csv
    };
    let mut lines = vec![format!(
        "{} after the header, {}, delimiter: {name}{}",
        plural(rows, "data row", "data rows"),
        plural(cols, "column", "columns"),
        if ragged > 0 {
            format!(
                "; {} with a different number of fields",
                plural(ragged, "row", "rows")
            )
        } else {
            String::new()
        }
    )];
    let mut cols_list: Vec<String> = header
        .iter()
        .enumerate()
        .map(|(i, h)| format!("{}. {}", i + 1, short(h, 60)))
        .collect();
    cols_list = cap(cols_list, "columns", max - 1);
    lines.extend(cols_list);
    Some(TextOutline {
        format,
        title: "Table".to_string(),
        lines,
    })
}

static LOG_LEVEL: LazyLock<Regex> = LazyLock::new(|| {
    static_regex(
        r"\b(TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|CRITICAL|CRIT|FATAL|PANIC|SEVERE)\b",
    )
});

/// Log level of a line, normalized: WARNING -> WARN, ERR -> ERROR, ...
fn level_of(line: &str) -> Option<&'static str> {
    let m = LOG_LEVEL.find(line)?;
    Some(match m.as_str() {
        "TRACE" => "TRACE",
        "DEBUG" => "DEBUG",
        "INFO" | "NOTICE" => "INFO",
        "WARN" | "WARNING" => "WARN",
        "ERROR" | "ERR" | "SEVERE" => "ERROR",
        _ => "FATAL",
    })
}

fn log(text: &str) -> Option<TextOutline> {
    const LEVELS: [&str; 6] = ["FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE"];
    let mut counts = [0usize; 6];
    let mut first_error: Option<(usize, &str)> = None;
    let mut last_error: Option<(usize, &str)> = None;
    let mut total = 0;
    for (i, l) in text.lines().enumerate() {
        total += 1;
        let Some(level) = level_of(l) else { continue };
        if let Some(k) = LEVELS.iter().position(|x| *x == level) {
            counts[k] += 1;
        }
        if matches!(level, "ERROR" | "FATAL") {
            if first_error.is_none() {
                first_error = Some((i + 1, l));
            }
            last_error = Some((i + 1, l));
        }
    }
    let leveled: usize = counts.iter().sum();
    if leveled == 0 {
        return None;
    }
    let per_level: Vec<String> = LEVELS
        .iter()
        .zip(counts)
        .filter(|(_, n)| *n > 0)
        .map(|(l, n)| format!("{l} {}", crate::text::thousands(n)))
        .collect();
    let mut lines = vec![format!(
        "{} (of {} with a level)",
        per_level.join(", "),
        plural(total, "line", "lines")
    )];
    if let Some((n, l)) = first_error {
        lines.push(format!("first error, line {n}: {}", short(l, 160)));
    }
    if let Some((n, l)) = last_error
        && Some(n) != first_error.map(|(f, _)| f)
    {
        lines.push(format!("last error, line {n}: {}", short(l, 160)));
    }
    Some(TextOutline {
        format: Format::Log,
        title: "Log levels".to_string(),
        lines,
    })
}

/// Headings (HTML h1-h3, or markdown ATX `#` and setext `===`/`---` headings
/// outside code fences), in order.
/// The page title.
pub fn title(idx: &crate::cut::index::LineIndex<'_>) -> Option<String> {
    if let Some(c) = super::html::HTML_TITLE.captures(idx.text) {
        let t = super::html::clean(c.get(1).map_or("", |m| m.as_str()));
        if !t.is_empty() {
            return Some(t);
        }
    }
    if let Some(h) = headings(idx).into_iter().find(|h| h.level == 1) {
        return Some(h.label());
    }
    let trimmed = idx.text.trim_start();
    if trimmed.starts_with('{')
        && let Ok(v) = serde_json::from_str::<serde_json::Value>(idx.text)
        && let Some(t) = v.get("title").and_then(|t| t.as_str())
    {
        return Some(t.to_string());
    }
    None
}

/// Headings (HTML h1-h3, or markdown ATX `#` and setext `===`/`---` headings
/// outside code fences), in order.
pub fn headings(idx: &crate::cut::index::LineIndex<'_>) -> Vec<super::html::Heading> {
    if !super::html::is_html(idx.text) {
        // the same headings `preview` lists for a markdown file
        return markdown_headings(idx.text)
            .into_iter()
            .filter(|h| !h.text.is_empty())
            .map(|h| super::html::Heading {
                level: h.level,
                text: h.text,
                line: h.line - 1,
            })
            .collect();
    }
    super::html::html_headings(idx)
}

fn html(text: &str, max: usize) -> Option<TextOutline> {
    let idx = crate::cut::index::LineIndex::new(text);
    let title = title(&idx);
    let hs = headings(&idx);
    if title.is_none() && hs.is_empty() {
        return None;
    }
    let mut lines = Vec::new();
    if let Some(t) = &title {
        lines.push(format!("title: {}", short(t, 120)));
    }
    let min = hs.iter().map(|h| h.level).min().unwrap_or(1);
    lines.extend(hs.iter().map(|h| {
        format!(
            "{}h{} {} (line {})",
            "  ".repeat((h.level - min).min(4)),
            h.level,
            short(&h.label(), 90),
            h.line + 1
        )
    }));
    Some(TextOutline {
        format: Format::Html,
        title: format!("Page structure ({} headings)", hs.len()),
        lines: cap(lines, "headings", max),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: usize = 40;

    fn lines(o: &TextOutline) -> Vec<&str> {
        o.lines.iter().map(String::as_str).collect()
    }

    #[test]
    fn markdown_headings_have_levels_lines_and_sections() {
        let md = "Title\n=====\n\nintro\n\n## Install\n\n```sh\n# not a heading\n```\n\n### From source ###\ntext\n\nUsage\n-----\n\n# Appendix\nend\n";
        let o = outline_capped(Format::Markdown, md, MAX).expect("headings");
        assert_eq!(o.title, "Headings (5)");
        assert_eq!(
            lines(&o),
            [
                "# Title (lines 1-17)",
                "  ## Install (lines 6-14)",
                "    ### From source (lines 12-14)",
                "  ## Usage (lines 15-17)",
                "# Appendix (lines 18-19)",
            ]
        );
    }

    #[test]
    fn json_skeleton_is_depth_limited_with_exact_counts() {
        let j =
            r#"{"name":"x","deps":[{"id":1,"v":"a"},{"id":2}],"meta":{"a":{"deep":{"deeper":1}}}}"#;
        let o = outline_capped(Format::Json, j, MAX).expect("json");
        assert_eq!(
            lines(&o),
            [
                "- object (3 keys)",
                "  - \"name\": string (1 char)",
                "  - \"deps\": array[2] of object (keys: id 2, v 1)",
                "    - \"[0]\": object (2 keys)",
                "  - \"meta\": object (1 key)",
                "    - \"a\": object (1 key)",
            ]
        );
    }

    #[test]
    fn yaml_and_toml_top_level_keys_with_lines() {
        let y = "# config\nname: app\nservices:\n  web:\n    image: nginx\n\n  db: {}\n\"quoted key\": 1\n---\nother: 2\n";
        let o = outline_capped(Format::Yaml, y, MAX).expect("yaml");
        assert_eq!(o.title, "Top-level keys (4 in 2 documents)");
        assert_eq!(
            lines(&o),
            [
                "name (lines 2-2)",
                "services (lines 3-7)",
                "\"quoted key\" (lines 8-9)",
                "other (lines 10-10)",
            ]
        );
        let t = "title = \"x\"\ndesc = \"\"\"\n[not] = a table\n\"\"\"\n\n[package]\nname = \"a\"\n\n[[bin]]\nname = \"b\"\n";
        let o = outline_capped(Format::Toml, t, MAX).expect("toml");
        assert_eq!(o.title, "Top-level keys and tables (4)");
        assert_eq!(
            lines(&o),
            [
                "title (lines 1-1)",
                "desc (lines 2-4)",
                "[package] (lines 6-7)",
                "[[bin]] (lines 9-10)",
            ]
        );
    }

    #[test]
    fn csv_counts_rows_columns_and_delimiter() {
        let c = "id,name,note\n1,a,\"multi\nline, with comma\"\n2,b,plain\n3,c\n";
        let o = outline_capped(Format::Csv, c, MAX).expect("csv");
        assert_eq!(
            lines(&o),
            [
                "3 data rows after the header, 3 columns, delimiter: comma; 1 row with a different number of fields",
                "1. id",
                "2. name",
                "3. note",
            ]
        );
        let t = "a\tb\n1\t2\n";
        let o = outline_capped(Format::Tsv, t, MAX).expect("tsv");
        assert_eq!(o.format, Format::Tsv);
        assert_eq!(
            o.lines[0],
            "1 data row after the header, 2 columns, delimiter: tab"
        );
    }

    #[test]
    fn logs_count_levels_and_locate_errors() {
        let l = "2024-01-01 INFO start\n2024-01-01 WARNING slow\nplain line\n2024-01-01 ERROR boom 1\n2024-01-01 INFO mid\n2024-01-01 ERROR boom 2\n";
        assert_eq!(detect(None, l), Some(Format::Log));
        let o = outline_capped(Format::Log, l, MAX).expect("log");
        assert_eq!(
            lines(&o),
            [
                "ERROR 2, WARN 1, INFO 2 (of 6 lines with a level)",
                "first error, line 4: 2024-01-01 ERROR boom 1",
                "last error, line 6: 2024-01-01 ERROR boom 2",
            ]
        );
    }

    #[test]
    fn html_title_and_headings() {
        let h = "<!DOCTYPE html><html><head><title>The Page</title></head>\n<body>\n<h1>Top</h1>\n<h2>Sub &amp; more</h2>\n</body></html>\n";
        let o = outline_capped(Format::Html, h, MAX).expect("html");
        assert_eq!(o.title, "Page structure (2 headings)");
        assert_eq!(
            lines(&o),
            [
                "title: The Page",
                "h1 Top (line 3)",
                "  h2 Sub & more (line 4)"
            ]
        );
    }

    #[test]
    fn a_heading_inside_an_html_comment_is_not_listed() {
        let md =
            "# Title\n\n<!--\n## Hidden draft\n-->\n\n## Shown\n<!-- one line -->\n## Also shown\n";
        let h: Vec<String> = markdown_headings(md).into_iter().map(|h| h.text).collect();
        assert_eq!(h, ["Title", "Shown", "Also shown"]);
    }

    #[test]
    fn code_in_an_undetected_language_is_not_markdown() {
        let perl = "package ExtUtils::MM_Unix;\n\nuse strict;\nuse warnings;\n\n# Heading-like comment\n\n# Another one\nsub new {\n}\n";
        assert_eq!(detect(None, perl), None);
        let py =
            "# Licence\n# more\n\nimport re\nimport sys\n\n# Section\n\ndef f(x):\n    return x\n";
        assert_eq!(detect(None, py), None);
        assert_eq!(
            detect(None, "#!/bin/sh\n# Usage\n# Options\necho hi\n"),
            None
        );
        let doc = "# Title\n\nSome text.\n\n## Usage\n\n```python\nimport os\nimport re\ndef f():\n    pass\n```\n";
        assert_eq!(detect(None, doc), Some(Format::Markdown));
    }

    #[test]
    fn hash_comments_of_a_script_are_not_markdown_headings() {
        let script =
            "# Settings\nimport os\nROOT = os.getcwd()\n\n# Run\nprint(ROOT)\nrows = [1, 2]\n";
        assert_eq!(detect(None, script), None);
        let doc =
            "# Title\n\nSome text.\n\n## Usage\n\n```python\nx = 1\ny = f(x)\nprint(y)\n```\n";
        assert_eq!(detect(None, doc), Some(Format::Markdown));
    }

    #[test]
    fn detection_by_extension_then_content() {
        assert_eq!(detect(Some("a/b.yml"), ""), Some(Format::Yaml));
        assert_eq!(detect(Some("Cargo.toml"), ""), Some(Format::Toml));
        assert_eq!(detect(Some("x.TSV"), ""), Some(Format::Tsv));
        assert_eq!(detect(None, "[1, 2]"), Some(Format::Json));
        assert_eq!(detect(None, "# A\ntext\n## B\n"), Some(Format::Markdown));
        assert_eq!(detect(None, "just words\n"), None);
    }

    #[test]
    fn long_listings_are_capped_and_counted() {
        let md: String = (1..=50).map(|i| format!("# H{i}\n")).collect();
        let o = outline_capped(Format::Markdown, &md, MAX).expect("md");
        assert_eq!(o.lines.len(), MAX);
        assert_eq!(o.lines[MAX - 1], "... and 11 more headings");
    }

    #[test]
    fn the_rest_is_counted_from_all_entries_whatever_the_cap() {
        // issue 17: a YAML of 133 keys listed 24 and said "16 more"
        let y: String = (0..133).map(|i| format!("key{i}:\n  a: {i}\n")).collect();
        let o = outline_capped(Format::Yaml, &y, 25).expect("yaml");
        assert_eq!(o.title, "Top-level keys (133)");
        assert_eq!(o.lines.len(), 25);
        assert_eq!(o.lines[24], "... and 109 more keys");
        let t: String = (0..60).map(|i| format!("[t{i}]\nx = 1\n")).collect();
        let o = outline_capped(Format::Toml, &t, 25).expect("toml");
        assert_eq!(o.lines[24], "... and 36 more keys and tables");
        let m: String = (0..30).map(|i| format!("H{i}\n===\n\ntext\n")).collect();
        let o = outline_capped(Format::Markdown, &m, 25).expect("md");
        assert_eq!(o.lines[24], "... and 6 more headings");
        assert_eq!(Format::from_name("Markdown"), Some(Format::Markdown));
        assert_eq!(Format::from_name("md"), Some(Format::Markdown));
        assert_eq!(Format::from_name("rust"), None);
    }
}
