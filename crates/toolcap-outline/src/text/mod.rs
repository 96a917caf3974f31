//! Non-code outlines: the structure of markdown, JSON, YAML, TOML, CSV/TSV,
//! logs and HTML, with exact numbers.
//!
//! [`detect`] picks the format from a file name or the content, and
//! [`outline_capped`] returns a [`TextOutline`]: a format name, a title for
//! the listing and its lines.
//! Every count is computed from the whole text; every line number is 1-based.
//!
//! The formats each have a file: `markdown.rs` (headings and their
//! sections), `data.rs` (JSON, YAML, TOML, CSV/TSV), `log.rs` (levels),
//! `page.rs` (a page's title and headings, HTML or Markdown); `sniff.rs`
//! tells code from text, so a script's `#` comments are not taken for
//! Markdown headings.

mod data;
mod log;
mod markdown;
mod page;
mod sniff;
#[cfg(test)]
mod tests;

pub use data::{JSON_DEPTH, sniff_delimiter};
pub use markdown::{MdHeading, markdown_headings};
pub use page::{headings, title};

use serde_json::Value;

/// A non-code format.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    serde::Serialize,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::VariantArray,
    strum::EnumCount,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase", ascii_case_insensitive)]
pub enum Format {
    /// Markdown (`md`, `mdx`): its headings and their sections.
    #[strum(to_string = "markdown", serialize = "md", serialize = "mdx")]
    Markdown,
    /// JSON (`jsonc`): its keys, to [`JSON_DEPTH`] levels.
    #[strum(to_string = "json", serialize = "jsonc")]
    Json,
    /// YAML (`yml`): its top-level keys.
    #[strum(to_string = "yaml", serialize = "yml")]
    Yaml,
    /// TOML: its tables and top-level keys.
    Toml,
    /// Comma-separated values: the columns (the delimiter sniffed).
    Csv,
    /// Tab-separated values: the columns.
    Tsv,
    /// A log: its lines by level.
    Log,
    /// An HTML page (`htm`, `xhtml`): its title and headings.
    #[strum(to_string = "html", serialize = "htm", serialize = "xhtml")]
    Html,
}

impl Format {
    /// Every format, in the order `toolcap outline`'s error lists them.
    pub const ALL: [Format; <Format as strum::EnumCount>::COUNT] =
        toolcap_text::all_variants(<Format as strum::VariantArray>::VARIANTS);

    /// The format's name, as serialized: "markdown", "json", ...
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The format named `s` (case-insensitive): its name or a usual file
    /// extension for it (`markdown`, `md`, `yml`, `htm`, ...).
    pub fn from_name(s: &str) -> Option<Format> {
        s.trim().parse().ok()
    }
}

/// The structure of a non-code text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TextOutline {
    /// The text's format.
    pub format: Format,
    /// Title of the listing, with its exact totals ("Headings (12)").
    pub title: String,
    /// One entry per line of the listing.
    pub lines: Vec<String>,
}

/// The format of a text: by its file extension first (`path`), then by its
/// content (a JSON document, an HTML page, lines with log levels, markdown
/// headings); `None` when it is none of these, or reads as code.
///
/// ```
/// use toolcap_outline::text::{Format, detect};
///
/// assert_eq!(detect(Some("notes/CHANGES.md"), ""), Some(Format::Markdown));
/// assert_eq!(detect(None, "{\"name\": \"toolcap\", \"tags\": [1, 2]}"), Some(Format::Json));
/// assert_eq!(detect(None, "fn main() {}\n"), None);
/// ```
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
    if sniff::sniffs_as_code(text) {
        return None;
    }
    let leveled = head.iter().filter(|l| log::has_level(l)).count();
    if leveled * 2 >= head.len() && leveled >= 3 {
        return Some(Format::Log);
    }
    let headings = head.iter().filter(|l| markdown::is_heading(l)).count();
    if headings >= 2 && !sniff::reads_as_code(&head, headings) {
        return Some(Format::Markdown);
    }
    None
}

/// The outline of `text` in `format`; None when there is nothing to list
/// (no headings, invalid JSON, ...). At most `max` lines are listed (at least 2): when there are more
/// entries, the first `max - 1` and a last line counting the rest exactly
/// (`... and 109 more keys`), counted from all the entries found in `text`.
///
/// ```
/// use toolcap_outline::text::{Format, outline_capped};
///
/// let md = "# Guide\n## Install\n## Use\n## Configure\n## Uninstall\n";
/// let o = outline_capped(Format::Markdown, md, 3).expect("headings");
/// assert_eq!(o.format, Format::Markdown);
/// assert_eq!(o.lines.len(), 3);
/// assert_eq!(o.lines[2], "... and 3 more headings");
/// assert!(outline_capped(Format::Json, "not json", 10).is_none());
/// ```
pub fn outline_capped(format: Format, text: &str, max: usize) -> Option<TextOutline> {
    let max = max.max(2);
    match format {
        Format::Markdown => markdown::markdown(text, max),
        Format::Json => data::json(text, max),
        Format::Yaml => data::yaml(text, max),
        Format::Toml => data::toml_keys(text, max),
        Format::Csv => data::delimited(text, b',', max),
        Format::Tsv => data::delimited(text, b'\t', max),
        Format::Log => log::log(text),
        Format::Html => page::html(text, max),
    }
}

/// Cap a listing at `max` lines, counting the rest exactly.
pub(super) fn cap(mut lines: Vec<String>, what: &str, max: usize) -> Vec<String> {
    if lines.len() > max {
        let rest = lines.len() - (max - 1);
        lines.truncate(max - 1);
        lines.push(format!(
            "... and {} more {what}",
            toolcap_text::text::thousands(rest)
        ));
    }
    lines
}

pub(super) fn plural(n: usize, one: &str, many: &str) -> String {
    format!(
        "{} {}",
        toolcap_text::text::thousands(n),
        if n == 1 { one } else { many }
    )
}

pub(super) fn short(s: &str, max: usize) -> String {
    toolcap_text::text::ellipsize(s.trim(), max)
}
