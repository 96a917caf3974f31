//! Data formats: a JSON skeleton, YAML and TOML top-level keys, CSV/TSV
//! columns, each with exact counts and lines.

use std::sync::LazyLock;
use toolcap_text::text::static_regex;

use regex::Regex;
use serde_json::Value;

use super::{Format, TextOutline, cap, plural, short};

/// How deep the JSON skeleton goes: the outline of a JSON text lists its keys
/// down to this many levels (the title says so: `JSON structure (to depth 3)`).
pub const JSON_DEPTH: usize = 3;

pub(super) fn json(text: &str, max: usize) -> Option<TextOutline> {
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
    out.push(format!("{pad}- {label}{}", crate::json_shape::type_of(v)));
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
pub(super) fn yaml(text: &str, max: usize) -> Option<TextOutline> {
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
pub(super) fn toml_keys(text: &str, max: usize) -> Option<TextOutline> {
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
/// splits the first lines into the same number (> 1) of fields most often;
/// `None` when none does (or there are fewer than two non-empty lines).
///
/// ```
/// use toolcap_outline::text::sniff_delimiter;
///
/// assert_eq!(sniff_delimiter("id;name;size\n1;a;10\n2;b;20\n"), Some(b';'));
/// assert_eq!(sniff_delimiter("just some prose\nover two lines\n"), None);
/// ```
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

pub(super) fn delimited(text: &str, default: u8, max: usize) -> Option<TextOutline> {
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
