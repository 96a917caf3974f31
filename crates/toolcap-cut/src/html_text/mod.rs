//! A fetched HTML page as a reader sees it: the text of its content, one block a
//! line, without markup, scripts, styles or the page's menus — what a `web_fetch`
//! result keeps when it is cut, instead of the first 2,000 characters of `<head>`.
//!
//! Every piece of the text remembers where it came from in the page, so that the
//! marker after the kept text can say exactly which of the page's characters and
//! lines were not shown ([`PageText::source_end`]).
//!
//! The rules: only the `<main>` element when the page has one (else `<body>`);
//! `<script>`, `<style>`, `<noscript>`, `<template>`, `<svg>`, `<head>` and
//! `<button>` contents and comments are left out, as are menus, sidebars and other
//! page chrome (`<nav>`, `<header>`, `<footer>`, `<aside>`, and elements whose id or
//! class names a menu: the same rule as the page's headings); block elements start
//! a new line, headings are written `# Title` (`##` for h2, ...), list items
//! `- item`; whitespace runs collapse to one space except inside `<pre>`; character
//! references are decoded.

use crate::text::static_regex;
use std::sync::LazyLock;

use regex::Regex;

mod markup;
#[cfg(test)]
mod tests;
mod writer;

pub use markup::find_ignore_case;
use markup::{find_tag, parse_tag};
use writer::Writer;

static ID_CLASS: LazyLock<Regex> =
    LazyLock::new(|| static_regex(r#"(?i)\b(?:id|class)\s*=\s*["']([^"']*)["']"#));

/// Elements that hold a page's menus rather than its content: `<nav>`,
/// `<header>`, `<footer>`, `<aside>`, custom toolbars, and elements whose id or
/// class names a sidebar, menu, help popup, table of contents or banner.
pub fn is_chrome(name: &str, attrs: &str) -> bool {
    const WORDS: [&str; 10] = [
        "sidebar",
        "menu",
        "help",
        "popup",
        "navbar",
        "topbar",
        "toolbar",
        "breadcrumb",
        "banner",
        "cookie",
    ];
    if matches!(name, "html" | "body" | "main" | "article" | "section") {
        // page-wide classes (`sidebar-visible`) and content containers
        return false;
    }
    matches!(name, "nav" | "header" | "footer" | "aside")
        || (name.contains('-') && WORDS.iter().any(|w| name.contains(w)))
        || ID_CLASS.captures_iter(attrs).any(|c| {
            let v = c.get(1).map_or("", |m| m.as_str()).to_ascii_lowercase();
            WORDS.iter().any(|w| v.contains(w))
                || v.split_whitespace().any(|t| t == "toc" || t == "nav")
        })
}

/// The text of a page and the map back to the page.
#[derive(Debug, Clone, Default)]
pub struct PageText {
    /// The text: blocks on their own lines, at most one blank line between them,
    /// ending with a line end when not empty.
    pub text: String,
    /// Pieces of `text` in order, with their source in the page.
    runs: Vec<Run>,
}

/// A piece of the text and its source: copied verbatim (byte for byte), or
/// written for a character reference, a whitespace run or an element.
#[derive(Debug, Clone, Copy)]
struct Run {
    text: (usize, usize),
    src: (usize, usize),
    verbatim: bool,
}

impl PageText {
    /// The byte of the page right after the source of `text[..t]` (`t` on a
    /// character boundary): everything of the page before it was either shown
    /// with `text[..t]` or is markup, script, style or chrome.
    pub fn source_end(&self, t: usize) -> usize {
        if t == 0 {
            return self.runs.first().map_or(0, |r| r.src.0);
        }
        // the run holding the byte before t
        let i = self.runs.partition_point(|r| r.text.1 < t);
        match self.runs.get(i) {
            Some(r) if r.verbatim && t >= r.text.0 => r.src.0 + (t - r.text.0),
            Some(r) if t > r.text.0 => r.src.1,
            Some(r) => r.src.0,
            None => self.runs.last().map_or(0, |r| r.src.1),
        }
    }
}

impl PageText {
    /// Where in the page the text after `text[..t]` comes from: the source of the
    /// first character after `t` that is not a line end (None when there is none).
    pub fn next_source(&self, t: usize) -> Option<usize> {
        let i = self.runs.partition_point(|r| r.text.1 <= t);
        self.runs[i..]
            .iter()
            .find(|r| !self.text[r.text.0..r.text.1].trim_matches('\n').is_empty())
            .map(|r| {
                if r.verbatim && t > r.text.0 {
                    r.src.0 + (t - r.text.0)
                } else {
                    r.src.0
                }
            })
    }
}

/// Elements whose content is never text of the page.
pub(super) const SKIPPED: [&str; 9] = [
    "script", "style", "noscript", "template", "svg", "head", "button", "title", "iframe",
];

/// Elements without content (no closing tag).
pub(super) const VOID: [&str; 14] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];

/// Elements that start a new line.
pub(super) const BLOCK: &[&str] = &[
    "address",
    "article",
    "blockquote",
    "body",
    "br",
    "caption",
    "dd",
    "details",
    "dialog",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "form",
    "hr",
    "li",
    "main",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
    "ul",
];

/// The page's text: see the module docs.
pub fn page_text(html: &str) -> PageText {
    let b = html.as_bytes();
    // Only <main> when there is one.
    let (mut pos, end) = match find_tag(html, 0, "main") {
        Some(m) => {
            let close = find_ignore_case(html, m, "</main").unwrap_or(html.len());
            (m, close)
        }
        None => (0, html.len()),
    };
    let mut w = Writer::default();
    // open elements: (name, chrome)
    let mut stack: Vec<(String, bool)> = Vec::new();
    let mut chrome = 0usize;
    let mut pre = 0usize;
    while pos < end {
        if b[pos] != b'<' {
            let next = memchr::memchr(b'<', &b[pos..end]).map_or(end, |i| pos + i);
            if chrome == 0 {
                w.text(html, pos, next, pre > 0);
            }
            pos = next;
            continue;
        }
        // comments, doctype, processing instructions
        if html[pos..].starts_with("<!--") {
            pos = html[pos + 4..]
                .find("-->")
                .map_or(end, |i| pos + 4 + i + 3)
                .min(end);
            continue;
        }
        let Some(tag) = parse_tag(html, pos) else {
            // a lone '<': text
            if chrome == 0 {
                w.text(html, pos, pos + 1, pre > 0);
            }
            pos += 1;
            continue;
        };
        let tag_end = tag.end.min(end);
        let name = tag.name.as_str();
        if tag.special {
            pos = tag_end;
            continue;
        }
        if tag.close {
            if let Some(i) = stack.iter().rposition(|(n, _)| n == name) {
                chrome -= stack.drain(i..).filter(|(_, ch)| *ch).count();
            }
            if name == "pre" {
                pre = pre.saturating_sub(1);
            }
            if chrome == 0 && is_block(name) {
                w.newline(
                    pos,
                    tag_end,
                    if is_heading(name) || name == "p" {
                        2
                    } else {
                        1
                    },
                );
            }
            pos = tag_end;
            continue;
        }
        if SKIPPED.contains(&name) {
            let close = format!("</{name}");
            let closed = find_ignore_case(html, tag_end, &close)
                .map(|c| parse_tag(html, c).map_or(c + close.len(), |t| t.end));
            // `</head>` may be left out: the body starts all the same
            let body = (name == "head")
                .then(|| find_tag(html, tag_end, "body"))
                .flatten();
            pos = match (closed, body) {
                (Some(c), Some(b)) => c.min(b),
                (c, b) => c.or(b).unwrap_or(end),
            }
            .min(end);
            continue;
        }
        let void = VOID.contains(&name) || tag.self_closing;
        if chrome == 0 {
            if is_heading(name) {
                let level = usize::from(name.as_bytes()[1] - b'0');
                w.newline(pos, tag_end, 2);
                w.prefix(&"#".repeat(level), pos, tag_end);
            } else if name == "li" {
                w.newline(pos, tag_end, 1);
                w.prefix("-", pos, tag_end);
            } else if name == "p" {
                w.newline(pos, tag_end, 2);
            } else if is_block(name) {
                w.newline(pos, tag_end, 1);
            } else if name == "td" || name == "th" {
                w.space(pos, tag_end);
            }
        }
        if !void {
            let ch = is_chrome(name, &tag.attrs);
            chrome += usize::from(ch);
            stack.push((name.to_string(), ch));
            if name == "pre" {
                pre += 1;
            }
        }
        pos = tag_end;
    }
    w.finish()
}

fn is_heading(name: &str) -> bool {
    matches!(name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

fn is_block(name: &str) -> bool {
    BLOCK.contains(&name) || is_heading(name)
}
