//! A page's structure: its title and headings (HTML h1-h3, or Markdown's),
//! for web_fetch results and HTML files.

use super::markdown::markdown_headings;
use super::{Format, TextOutline, cap, short};

/// The page's title: an HTML `<title>`, else its first level-1 heading
/// ([`headings`]), else a JSON object's `"title"`; `None` when it has none.
pub fn title(idx: &crate::cut::index::LineIndex<'_>) -> Option<String> {
    if let Some(c) = crate::html::HTML_TITLE.captures(idx.text) {
        let t = crate::html::clean(c.get(1).map_or("", |m| m.as_str()));
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
pub fn headings(idx: &crate::cut::index::LineIndex<'_>) -> Vec<crate::html::Heading> {
    if !crate::html::is_html(idx.text) {
        // the same headings `preview` lists for a markdown file
        return markdown_headings(idx.text)
            .into_iter()
            .filter(|h| !h.text.is_empty())
            .map(|h| crate::html::Heading {
                level: h.level,
                text: h.text,
                line: h.line - 1,
            })
            .collect();
    }
    crate::html::html_headings(idx)
}

pub(super) fn html(text: &str, max: usize) -> Option<TextOutline> {
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
