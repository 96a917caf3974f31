//! Structure of HTML pages (and of fetched markdown): whether a text is HTML,
//! its title, and its content headings (menus, sidebars and help popups left
//! out). Used by the non-code outlines, language detection and the web_fetch hints.

use std::sync::LazyLock;
use toolcap_text::text::static_regex;

use regex::Regex;

use crate::cut::html_text::{find_ignore_case, is_chrome};
use crate::cut::index::LineIndex;

pub(super) static HTML_TITLE: LazyLock<Regex> =
    LazyLock::new(|| static_regex(r"(?is)<title[^>]*>(.*?)</title>"));
static MD_LINK: LazyLock<Regex> = LazyLock::new(|| static_regex(r"\[([^\]]*)\]\([^)]*\)"));
static TAG: LazyLock<Regex> = LazyLock::new(|| static_regex(r"<[^>]*>"));

/// A heading: level, text, 0-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heading {
    /// 1 for a top-level heading (`#`, `<h1>`) to 6.
    pub level: usize,
    /// The heading as written on its line (markdown: after the `#`s).
    pub text: String,
    /// The 0-based line it is on.
    pub line: usize,
}

impl Heading {
    /// The heading for display: markdown links reduced to their text.
    pub fn label(&self) -> String {
        MD_LINK.replace_all(&self.text, "$1").into_owned()
    }
}

/// Decode the handful of entities that matter in titles and headings.
pub fn decode_entities(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&")
}

pub(super) fn clean(s: &str) -> String {
    let t = TAG.replace_all(s, "");
    decode_entities(&t)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether the text looks like HTML.
pub fn is_html(text: &str) -> bool {
    let head: String = text
        .chars()
        .take(2000)
        .collect::<String>()
        .to_ascii_lowercase();
    head.contains("<!doctype html") || head.contains("<html") || head.contains("<head")
}

static ANY_TAG: LazyLock<Regex> =
    LazyLock::new(|| static_regex(r"<(/?)([A-Za-z][A-Za-z0-9-]*)([^>]*)>"));
/// HTML h1-h3 headings of the content: not inside menus, sidebars, help
/// popups ([`is_chrome`]), scripts or styles.
pub fn html_headings(idx: &LineIndex<'_>) -> Vec<Heading> {
    const VOID: [&str; 14] = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
        "source", "track", "wbr",
    ];
    let text = idx.text;
    let mut out = Vec::new();
    let mut stack: Vec<(String, bool)> = Vec::new();
    let mut chrome = 0usize;
    let mut pos = 0;
    while let Some(c) = ANY_TAG.captures_at(text, pos) {
        let Some(whole) = c.get(0) else { break };
        pos = whole.end();
        let close = c.get(1).is_some_and(|m| !m.as_str().is_empty());
        let name = c.get(2).map_or("", |m| m.as_str()).to_ascii_lowercase();
        let attrs = c.get(3).map_or("", |m| m.as_str());
        if close {
            if let Some(i) = stack.iter().rposition(|(n, _)| *n == name) {
                chrome -= stack.drain(i..).filter(|(_, ch)| *ch).count();
            }
            continue;
        }
        if name == "script" || name == "style" {
            let end = format!("</{name}");
            match find_ignore_case(text, pos, &end) {
                Some(e) => pos = e,
                None => break,
            }
            continue;
        }
        let level = match name.as_str() {
            "h1" => Some(1),
            "h2" => Some(2),
            "h3" => Some(3),
            _ => None,
        };
        if let Some(level) = level {
            let end = find_ignore_case(text, pos, &format!("</{name}")).unwrap_or(text.len());
            // the heading's text as a reader sees it (no buttons, no markup)
            let t = crate::cut::html_text::page_text(&text[pos..end])
                .text
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            if chrome == 0 && !t.is_empty() {
                out.push(Heading {
                    level,
                    text: t,
                    line: idx.locate(whole.start()).0,
                });
            }
            pos = end;
            continue;
        }
        if VOID.contains(&name.as_str()) || attrs.trim_end().ends_with('/') {
            continue;
        }
        let ch = is_chrome(&name, attrs);
        chrome += usize::from(ch);
        stack.push((name, ch));
    }
    out
}
