//! web_fetch: a fetched page was cut.
//!
//! **What it does.** States the page's title (HTML `<title>`, the first markdown
//! `#` heading, or a JSON `title`), its URL and size, lists its headings with line
//! numbers, and suggests saving the page to a file and grepping the saved file for a
//! heading that was cut off.
//!
//! **Why.** Re-fetching a page returns the same cut; a saved copy can be searched
//! and paged without spending the context again.
//!
//! **Example.** `web_fetch(url="https://doc.rust-lang.org/book/ch08-02-strings.html", save_to="ch08-02-strings.html")`

use super::{Context, Intent, Pattern, Recovery, Source, Structure, cap_lines};
use crate::outline::html::is_html;
pub(crate) use crate::outline::text::{headings, title};
use crate::quote;
use crate::text::ellipsize;

/// A file name for saving the page: the URL's last path segment, or its host,
/// reduced to `[A-Za-z0-9._-]`.
pub fn save_name(url: Option<&str>, html: bool) -> String {
    let ext = if html { "html" } else { "md" };
    let base = url
        .and_then(|u| u.split_once("://").map(|(_, r)| r))
        .map(|r| r.split(['?', '#']).next().unwrap_or(r))
        .map(|r| {
            let r = r.trim_end_matches('/');
            r.rsplit('/').next().unwrap_or(r).to_string()
        })
        .unwrap_or_default();
    let mut s: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    s = s.trim_start_matches(['.', '-']).to_string();
    if s.is_empty() {
        s = "page".to_string();
    }
    if s.len() > 80 {
        s.truncate(80);
    }
    let has_ext = s.ends_with(&format!(".{ext}")) || (html && s.ends_with(".htm"));
    if !has_ext {
        // `page.html` saved as markdown becomes `page.md`
        if let Some((stem, old)) = s.rsplit_once('.')
            && !stem.is_empty()
            && matches!(old, "html" | "htm" | "php" | "asp" | "aspx" | "md" | "txt")
        {
            s = stem.to_string();
        }
        s = format!("{s}.{ext}");
    }
    s
}

pub fn build(ctx: &Context<'_>) -> Recovery {
    let mut r = Recovery::default();
    let url = ctx.arg(|a| &a.url);
    let html = is_html(ctx.idx.text);
    let mut head = Vec::new();
    if let Some(t) = title(ctx.idx) {
        head.push(format!("Page: {}", ellipsize(&t, 120)));
    }
    if let Some(u) = &url {
        head.push(format!("URL: {}", ellipsize(u, 200)));
    }
    if !head.is_empty() {
        r.facts.push(head.join(" | "));
    }
    r.facts.push(format!(
        "Size: {} | {}",
        ctx.size_fact(),
        if html { "HTML" } else { "text" }
    ));
    let hs = headings(ctx.idx);
    // Markdown sections: each heading's span, up to the next heading of the
    // same or a higher level.
    let sections = if html {
        Vec::new()
    } else {
        crate::outline::text::markdown_headings(ctx.idx.text)
    };
    if !hs.is_empty() {
        let min_level = hs.iter().map(|h| h.level).min().unwrap_or(1);
        let lines: Vec<String> = hs
            .iter()
            .map(|h| {
                let span = match sections.iter().find(|s| s.line == h.line + 1) {
                    Some(s) if s.end_line > s.line => format!("lines {}-{}", s.line, s.end_line),
                    _ => format!("line {}", h.line + 1),
                };
                format!(
                    "{}- {} ({span}{})",
                    "  ".repeat((h.level - min_level).min(3)),
                    ellipsize(&h.label(), 90),
                    if ctx.line_shown(h.line) {
                        ", heading shown"
                    } else {
                        ""
                    }
                )
            })
            .collect();
        r.structure = Some(Structure {
            title: format!("Headings ({})", crate::text::thousands(hs.len())),
            lines: cap_lines(lines, "headings", super::MAX_STRUCTURE_LINES),
        });
    }
    let Some(url) = url else {
        r.notes.push(
            "The URL is not in the tool arguments; pass it as `url` to get runnable suggestions."
                .to_string(),
        );
        return r;
    };
    let file = save_name(Some(&url), html);
    // Stored, the page is read and searched through the recovery tools; else
    // it is saved to a file first, and the file is read and searched.
    let src = if ctx.stored() {
        Source::Nowhere
    } else {
        let f = &ctx.config.suggest.web_fetch;
        let save = if !f.tool.is_empty() && !f.save_to.is_empty() {
            let mut args = serde_json::Map::new();
            args.insert(f.url.clone(), serde_json::Value::String(url));
            args.insert(f.save_to.clone(), serde_json::Value::String(file.clone()));
            for (k, v) in &f.args {
                args.entry(k.clone()).or_insert_with(|| v.clone());
            }
            Some(super::Suggestion {
                tool: f.tool.clone(),
                args,
                purpose: format!(
                    "save the whole page to {file} (then search it with the commands below)"
                ),
            })
        } else {
            match (quote::shell_word(&url), quote::shell_word(&file)) {
                (Some(u), Some(fq)) => ctx.offer(
                    Source::Nowhere,
                    Intent::Shell(format!("curl -sL -o {fq} {u}")),
                    format!("save the whole page to {file}"),
                ),
                _ => None,
            }
        };
        let Some(save) = save else {
            return r;
        };
        r.suggestions.push(save);
        Source::File(&file)
    };
    let here = if ctx.stored() {
        "of the stored page"
    } else {
        "of the saved page"
    };
    // grep the page for the first heading cut off whose text is on few
    // lines (a word that is on every other line does not narrow)
    let lines_with = |t: &str| {
        (0..ctx.idx.len())
            .filter(|&i| ctx.idx.line(i).contains(t))
            .count()
    };
    let target = hs
        .iter()
        .filter(|h| !ctx.line_shown(h.line) && h.text.chars().count() >= 3)
        .map(|h| (h, lines_with(&h.text)))
        .find(|(_, n)| (1..=MAX_GREP_LINES).contains(n));
    if let Some((h, n)) = target {
        r.suggestions.extend(ctx.offer(
            src,
            Intent::Search(Pattern::fixed(&h.text)),
            format!(
                "find the section {}, the first heading cut off that few lines mention (line {} here; on {} of this page)",
                quote::json_string(&ellipsize(&h.label(), 60)),
                h.line + 1,
                crate::text::plural(n, "line", "lines")
            ),
        ));
    }
    if let Some((a, b)) = ctx.gaps().find_map(|g| g.lines) {
        let budget = ctx.lines_room(src);
        match ctx.lines_within(a, b, budget) {
            Some((end, chars)) => r.suggestions.extend(ctx.offer(
                src,
                Intent::Lines { start: a, end },
                format!(
                    "lines {a}-{end} {here}, right after the cut ({})",
                    crate::text::plural(chars, "char", "chars")
                ),
            )),
            None => {
                // line `a` alone is longer than comes back whole
                let budget = if ctx.stored() {
                    ctx.config.max_kept_chars
                } else {
                    budget
                };
                let from = ctx.idx.start(a - 1);
                let rest = &ctx.idx.text[from..];
                let len = rest
                    .char_indices()
                    .nth(budget)
                    .map_or(rest.len(), |(i, _)| i);
                let chars = rest[..len].chars().count();
                let from_char = crate::text::count_chars(&ctx.idx.text[..from]);
                let span = if ctx.stored() {
                    format!(
                        "chars {}-{}",
                        crate::text::thousands(from_char + 1),
                        crate::text::thousands(from_char + chars)
                    )
                } else {
                    format!(
                        "bytes {}-{}",
                        crate::text::thousands(from + 1),
                        crate::text::thousands(from + len)
                    )
                };
                r.suggestions.extend(ctx.offer(
                    src,
                    Intent::Chars {
                        from_char,
                        from_byte: from,
                        bytes: len,
                    },
                    format!(
                        "the first {} of line {a} {here}, right after the cut ({span})",
                        crate::text::plural(chars, "char", "chars"),
                    ),
                ));
            }
        }
    }
    r
}

/// A heading is searched for only when at most this many lines of the page
/// mention it.
pub const MAX_GREP_LINES: usize = 10;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cut::index::LineIndex;

    #[test]
    fn titles_and_headings() {
        let t = "<!DOCTYPE html><html><head><title>Storing UTF-8 Text with Strings - The Rust Programming Language</title></head>\n<body>\n<h1 id=\"x\"><a href=\"#x\">Storing UTF-8 &amp; Text</a></h1>\n<h2>Creating a New String</h2>\n";
        let idx = LineIndex::new(t);
        assert_eq!(
            title(&idx).as_deref(),
            Some("Storing UTF-8 Text with Strings - The Rust Programming Language")
        );
        let h = headings(&idx);
        assert_eq!(h.len(), 2);
        assert_eq!(h[0].text, "Storing UTF-8 & Text");
        assert_eq!(h[1].line, 3);
        let md = LineIndex::new("intro\n# Title\n```\n# not a heading\n```\n## Sub\n");
        assert_eq!(title(&md).as_deref(), Some("Title"));
        assert_eq!(headings(&md).len(), 2);
    }

    #[test]
    fn save_names_are_plain() {
        assert_eq!(
            save_name(
                Some("https://doc.rust-lang.org/book/ch08-02-strings.html"),
                true
            ),
            "ch08-02-strings.html"
        );
        assert_eq!(
            save_name(Some("https://example.com/"), false),
            "example.com.md"
        );
        assert_eq!(
            save_name(Some("https://x.org/a b/$(rm -rf)?q=1"), true),
            "__rm_-rf_.html"
        );
        assert_eq!(save_name(None, true), "page.html");
    }

    #[test]
    fn raw_markdown_setext_headings_are_found() {
        let md: String = (0..30)
            .map(|i| {
                format!(
                    "Part {i}\n{}\n\ntext {i}\n\n",
                    if i % 2 == 0 { "=======" } else { "-------" }
                )
            })
            .collect();
        let h = headings(&LineIndex::new(&md));
        assert_eq!(h.len(), 30);
        assert_eq!(
            (h[1].level, h[1].text.as_str(), h[1].line),
            (2, "Part 1", 5)
        );
    }

    #[test]
    fn menus_and_help_popups_are_not_content_headings() {
        let page = "<!DOCTYPE html><html class=\"sidebar-visible\"><body>\n<div id=\"mdbook-help-container\"><div id=\"mdbook-help-popup\"><h2 class=\"t\">Keyboard shortcuts</h2><p>x</p></div></div>\n<nav class=\"sidebar\"><h2>Contents</h2></nav>\n<div id=\"menu-bar\"><h1 class=\"menu-title\">The Book</h1></div>\n<main><h1>Strings</h1>\n<script>var s = '<h2>not one</h2>';</script>\n<h2>Creating</h2></main></body></html>\n";
        let h = headings(&LineIndex::new(page));
        let texts: Vec<&str> = h.iter().map(|h| h.text.as_str()).collect();
        assert_eq!(texts, ["Strings", "Creating"]);
        assert_eq!(h[0].line, 4);
    }
}
