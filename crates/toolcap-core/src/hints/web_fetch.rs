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

use super::{
    Context, Entry, Fact, Intent, Listing, Note, Pattern, Purpose, RecoveryModel, Source,
    Suggestion, Title,
};
use crate::outline::html::Heading;
use crate::outline::html::is_html;
pub(crate) use crate::outline::text::{headings, title};
use crate::quote;

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

/// The recovery section of a cut page: its title, size and headings, and
/// the reads of the page (stored, or saved to a file first).
pub fn model(ctx: &Context<'_>) -> RecoveryModel {
    let mut r = RecoveryModel::default();
    let url = ctx.arg(|a| &a.url);
    let html = is_html(ctx.idx.text);
    let page_title = title(ctx.idx);
    if page_title.is_some() || url.is_some() {
        r.facts.push(Fact::Page {
            title: page_title,
            url: url.clone(),
        });
    }
    r.facts.push(Fact::PageSize {
        size: ctx.size(),
        html,
    });
    let hs = headings(ctx.idx);
    r.structure = heading_listing(ctx, &hs, html);
    let Some(url) = url else {
        r.notes.push(Note::NoUrl);
        return r;
    };
    // Stored, the page is read and searched through the recovery tools; else
    // it is saved to a file first, and the file is read and searched.
    let file = save_name(Some(&url), html);
    let src = if ctx.stored() {
        Source::Nowhere
    } else {
        let Some(save) = save_page(ctx, url, &file) else {
            return r;
        };
        r.suggestions.push(save);
        Source::File(&file)
    };
    r.suggestions.extend(find_section(ctx, &hs, src));
    r.suggestions.extend(after_the_cut(ctx, src));
    r
}

/// The page's headings, each with its line (and its section's lines in
/// markdown), when it has any.
fn heading_listing(ctx: &Context<'_>, hs: &[Heading], html: bool) -> Option<Listing> {
    let min_level = hs.iter().map(|h| h.level).min()?;
    // Markdown sections: each heading's span, up to the next heading of the
    // same or a higher level.
    let sections = if html {
        Vec::new()
    } else {
        crate::outline::text::markdown_headings(ctx.idx.text)
    };
    let lines = hs
        .iter()
        .map(|h| Entry::Heading {
            depth: h.level - min_level,
            label: h.label(),
            line: h.line + 1,
            end: sections
                .iter()
                .find(|s| s.line == h.line + 1)
                .filter(|s| s.end_line > s.line)
                .map(|s| s.end_line),
            shown: ctx.line_shown(h.line),
        })
        .collect();
    Some(Listing::capped(
        Title::Headings { count: hs.len() },
        lines,
        "headings",
        super::MAX_STRUCTURE_LINES,
    ))
}

/// The call that saves the whole page to `file`: the fetch tool's, when it
/// can save, else `curl`.
fn save_page(ctx: &Context<'_>, url: String, file: &str) -> Option<Suggestion> {
    let f = &ctx.config.suggest.web_fetch;
    if !f.tool.is_empty() && !f.save_to.is_empty() {
        let mut args = serde_json::Map::new();
        args.insert(f.url.clone(), serde_json::Value::String(url));
        args.insert(
            f.save_to.clone(),
            serde_json::Value::String(file.to_string()),
        );
        for (k, v) in &f.args {
            args.entry(k.clone()).or_insert_with(|| v.clone());
        }
        return Some(Suggestion {
            tool: f.tool.clone(),
            args,
            purpose: Purpose::SavePage {
                file: file.to_string(),
                then_search: true,
            }
            .into(),
        });
    }
    let (u, fq) = (quote::shell_word(&url)?, quote::shell_word(file)?);
    ctx.offer(
        Source::Nowhere,
        Intent::Shell(format!("curl -sL -o {fq} {u}")),
        Purpose::SavePage {
            file: file.to_string(),
            then_search: false,
        },
    )
}

/// A search of the page for the first heading cut off whose text is on few
/// lines (a word that is on every other line does not narrow).
fn find_section(ctx: &Context<'_>, hs: &[Heading], src: Source<'_>) -> Option<Suggestion> {
    let lines_with = |t: &str| {
        (0..ctx.idx.len())
            .filter(|&i| ctx.idx.line(i).contains(t))
            .count()
    };
    let (h, n) = hs
        .iter()
        .filter(|h| !ctx.line_shown(h.line) && h.text.chars().count() >= 3)
        .map(|h| (h, lines_with(&h.text)))
        .find(|(_, n)| (1..=MAX_GREP_LINES).contains(n))?;
    ctx.offer(
        src,
        Intent::Search(Pattern::fixed(&h.text)),
        Purpose::FindSection {
            label: h.label(),
            line: h.line + 1,
            lines: n,
        },
    )
}

/// The page's lines right after the cut, as many as come back whole; or
/// the first chars of the line there, when that line alone is longer.
fn after_the_cut(ctx: &Context<'_>, src: Source<'_>) -> Option<Suggestion> {
    let (a, b) = ctx.gaps().find_map(|g| g.lines)?;
    let budget = ctx.lines_room(src);
    let stored = ctx.stored();
    if let Some((end, chars)) = ctx.lines_within(a, b, budget) {
        let purpose = Purpose::PageLines {
            start: a,
            end,
            chars,
            stored,
        };
        return ctx.offer(src, Intent::Lines { start: a, end }, purpose);
    }
    // line `a` alone is longer than comes back whole
    let budget = if stored {
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
    let span = if stored {
        (from_char + 1, from_char + chars)
    } else {
        (from + 1, from + len)
    };
    let purpose = Purpose::PageLineStart {
        line: a,
        chars,
        stored,
        span,
    };
    let intent = Intent::Chars {
        from_char,
        from_byte: from,
        bytes: len,
    };
    ctx.offer(src, intent, purpose)
}

/// A heading is searched for only when at most this many lines of the page
/// mention it.
pub const MAX_GREP_LINES: usize = 10;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cut::index::LineIndex;

    #[test]
    fn a_cut_page_states_its_title_size_and_headings_as_data() {
        // a real page: the Rust book's chapter on strings, as fetched
        let text = crate::test_fixture("web_fetch/ch08-02-strings.html");
        let url = "https://doc.rust-lang.org/book/ch08-02-strings.html";
        let args = serde_json::json!({ "url": url });
        let m = crate::hints::head_cut("web_fetch", text, 60, &args, None, None, model);
        assert_eq!(
            m.facts,
            [
                Fact::Page {
                    title: Some(
                        "Storing UTF-8 Encoded Text with Strings - The Rust Programming Language"
                            .into()
                    ),
                    url: Some(url.into()),
                },
                Fact::PageSize {
                    size: crate::hints::Size {
                        lines: text.lines().count(),
                        chars: text.chars().count(),
                    },
                    html: true,
                },
            ]
        );
        let hs = headings(&LineIndex::new(text));
        let l = m.structure.clone().expect("headings");
        assert_eq!(l.title, Title::Headings { count: hs.len() });
        // every heading is on a line past the cut: none is shown
        let first = &hs[0];
        assert!(first.line >= 60);
        assert_eq!(
            l.lines[0],
            Entry::Heading {
                depth: first.level - hs.iter().map(|h| h.level).min().unwrap_or(1),
                label: first.label(),
                line: first.line + 1,
                end: None,
                shown: false,
            }
        );
        // nothing stored: the page is saved first, then read
        let r = m.render();
        assert!(
            r.suggestions[0]
                .purpose
                .starts_with("save the whole page to ch08-02-strings.html"),
            "{:?}",
            r.suggestions
        );
        assert!(r.notes.is_empty());
    }

    #[test]
    fn a_page_without_its_url_says_so() {
        let text = crate::test_fixture("web_fetch/ch08-02-strings.md");
        let m = crate::hints::head_cut(
            "web_fetch",
            text,
            20,
            &serde_json::json!({}),
            None,
            None,
            model,
        );
        assert_eq!(m.notes, [Note::NoUrl]);
        assert!(m.suggestions.is_empty());
        assert!(matches!(
            m.facts.last(),
            Some(Fact::PageSize { html: false, .. })
        ));
    }

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
