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

use std::sync::LazyLock;

use regex::Regex;

static ID_CLASS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)\b(?:id|class)\s*=\s*["']([^"']*)["']"#).expect("static regex")
});

/// Elements that hold a page's menus rather than its content: `<nav>`,
/// `<header>`, `<footer>`, `<aside>`, custom toolbars, and elements whose id or
/// class names a sidebar, menu, help popup, table of contents or banner.
pub(crate) fn is_chrome(name: &str, attrs: &str) -> bool {
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
pub(crate) struct PageText {
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
const SKIPPED: [&str; 9] = [
    "script", "style", "noscript", "template", "svg", "head", "button", "title", "iframe",
];

/// Elements without content (no closing tag).
const VOID: [&str; 14] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];

/// Elements that start a new line.
const BLOCK: &[&str] = &[
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
pub(crate) fn page_text(html: &str) -> PageText {
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

/// Builds the text: whitespace and line breaks are held back until a word
/// follows, so lines never start or end with spaces and blank lines never pile up.
#[derive(Default)]
struct Writer {
    out: PageText,
    /// A space owed before the next word: its source.
    space: Option<(usize, usize)>,
    /// Line ends owed before the next word (1 or 2), and the source of the first.
    newlines: Option<(usize, (usize, usize))>,
    /// Written at the start of the next word's line (`#`, `-`), with its source.
    prefix: Option<(String, (usize, usize))>,
}

impl Writer {
    fn push(&mut self, s: &str, src: (usize, usize), verbatim: bool) {
        let start = self.out.text.len();
        self.out.text.push_str(s);
        self.out.runs.push(Run {
            text: (start, self.out.text.len()),
            src,
            verbatim,
        });
    }

    fn newline(&mut self, from: usize, to: usize, n: usize) {
        self.space = None;
        let n = match self.newlines {
            Some((m, _)) => m.max(n),
            None => n,
        };
        let src = self.newlines.map_or((from, to), |(_, s)| s);
        self.newlines = Some((n, src));
    }

    fn space(&mut self, from: usize, to: usize) {
        if self.newlines.is_none() && self.space.is_none() && !self.out.text.is_empty() {
            self.space = Some((from, to));
        }
    }

    fn prefix(&mut self, p: &str, from: usize, to: usize) {
        self.prefix = Some((p.to_string(), (from, to)));
    }

    /// Write what is owed before a word.
    fn before_word(&mut self) {
        if let Some((n, src)) = self.newlines.take() {
            if !self.out.text.is_empty() {
                let n = if self.out.text.ends_with("\n\n") {
                    0
                } else if self.out.text.ends_with('\n') {
                    n - 1
                } else {
                    n
                };
                if n > 0 {
                    self.push(&"\n".repeat(n), src, false);
                }
            }
            self.space = None;
        }
        if let Some((p, src)) = self.prefix.take() {
            let at_line_start = self.out.text.is_empty() || self.out.text.ends_with('\n');
            if at_line_start {
                self.push(&format!("{p} "), src, false);
                self.space = None;
            }
        }
        if let Some(src) = self.space.take()
            && !self.out.text.is_empty()
            && !self.out.text.ends_with('\n')
        {
            self.push(" ", src, false);
        }
    }

    /// The text between tags, `html[from..to]`.
    fn text(&mut self, html: &str, from: usize, to: usize, pre: bool) {
        let s = &html[from..to];
        let mut i = 0;
        let b = s.as_bytes();
        while i < b.len() {
            let c = b[i];
            if pre && (c == b'\n' || c == b'\r') {
                // a line of preformatted text ends
                let len = if c == b'\r' && b.get(i + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                self.newlines = None;
                self.space = None;
                if let Some((p, src)) = self.prefix.take() {
                    self.push(&format!("{p} "), src, false);
                }
                if self.out.text.is_empty() {
                    // no leading blank line
                } else {
                    self.push("\n", (from + i, from + i + len), false);
                }
                i += len;
                continue;
            }
            if c.is_ascii_whitespace() && !pre {
                let start = i;
                while i < b.len() && b[i].is_ascii_whitespace() {
                    i += 1;
                }
                self.space(from + start, from + i);
                continue;
            }
            if c == b'&'
                && let Some((decoded, len)) = reference(&s[i..])
            {
                let src = (from + i, from + i + len);
                i += len;
                if decoded.is_empty() {
                    // a soft hyphen or joiner: nothing to read
                } else if !pre && decoded.chars().all(char::is_whitespace) {
                    // `&nbsp;` between words is a space like any other
                    self.space(src.0, src.1);
                } else {
                    self.before_word();
                    self.push(&decoded, src, false);
                }
                continue;
            }
            // a run of ordinary characters (spaces too, inside <pre>), copied verbatim
            let start = i;
            while i < b.len() {
                let c = b[i];
                if c == b'&'
                    || (!pre && c.is_ascii_whitespace())
                    || (pre && (c == b'\n' || c == b'\r'))
                {
                    break;
                }
                i += 1;
            }
            if i == start {
                // an '&' that is not a reference
                i += 1;
            }
            self.before_word();
            self.push(&s[start..i], (from + start, from + i), true);
        }
    }

    fn finish(mut self) -> PageText {
        if !self.out.text.is_empty() && !self.out.text.ends_with('\n') {
            let at = self.out.runs.last().map_or(0, |r| r.src.1);
            self.push("\n", (at, at), false);
        }
        // no blank lines at the end
        while self.out.text.ends_with("\n\n") {
            self.out.text.pop();
            if let Some(r) = self.out.runs.last_mut() {
                r.text.1 = r.text.1.min(self.out.text.len());
                if r.text.1 <= r.text.0 {
                    self.out.runs.pop();
                }
            }
        }
        self.out
    }
}

/// A tag at `pos` (`html[pos] == '<'`).
struct Tag {
    /// Lower-case element name.
    name: String,
    attrs: String,
    close: bool,
    self_closing: bool,
    /// `<!DOCTYPE ...>` or `<?...?>`: no element.
    special: bool,
    /// The byte after its `>`.
    end: usize,
}

fn parse_tag(html: &str, pos: usize) -> Option<Tag> {
    let b = html.as_bytes();
    let mut i = pos + 1;
    let special = matches!(b.get(i), Some(b'!' | b'?'));
    let close = b.get(i) == Some(&b'/');
    if close || special {
        i += 1;
    }
    let name_start = i;
    if !special && !b.get(i).is_some_and(u8::is_ascii_alphabetic) {
        return None;
    }
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'-' || b[i] == b':') {
        i += 1;
    }
    let name = html[name_start..i].to_ascii_lowercase();
    let attrs_start = i;
    // to the '>' outside quotes
    let mut quote = None;
    while i < b.len() {
        match (quote, b[i]) {
            (None, b'>') => break,
            (None, q @ (b'"' | b'\'')) => quote = Some(q),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
        i += 1;
    }
    let attrs = html[attrs_start..i.min(b.len())].to_string();
    let self_closing = attrs.trim_end().ends_with('/');
    Some(Tag {
        name,
        attrs,
        close,
        self_closing,
        special,
        end: (i + 1).min(b.len()),
    })
}

/// The first `<name` tag (followed by `>`, a space or `/`) at or after `from`.
fn find_tag(html: &str, from: usize, name: &str) -> Option<usize> {
    let needle = format!("<{name}");
    let mut at = from;
    while let Some(i) = find_ignore_case(html, at, &needle) {
        match html.as_bytes().get(i + needle.len()) {
            Some(b'>' | b' ' | b'\t' | b'\n' | b'\r' | b'/') | None => return Some(i),
            _ => at = i + 1,
        }
    }
    None
}

/// Byte offset of the first `needle` (ASCII) at or after `from`, ignoring ASCII case.
fn find_ignore_case(text: &str, from: usize, needle: &str) -> Option<usize> {
    let n = needle.as_bytes();
    let first = n.first()?.to_ascii_lowercase();
    let hay = text.as_bytes().get(from..)?;
    let mut i = 0;
    while i + n.len() <= hay.len() {
        let j = memchr::memchr2(first, first.to_ascii_uppercase(), &hay[i..])?;
        let at = i + j;
        if at + n.len() <= hay.len() && hay[at..at + n.len()].eq_ignore_ascii_case(n) {
            return Some(from + at);
        }
        i = at + 1;
    }
    None
}

/// A character reference at the start of `s` (`&amp;`, `&#8212;`, `&#x27;`):
/// the text it stands for and its length in bytes.
fn reference(s: &str) -> Option<(String, usize)> {
    let end = s[1..].find(';').map(|i| i + 1).filter(|&i| i <= 32)?;
    let body = &s[1..end];
    let text = if let Some(num) = body.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse::<u32>().ok()?,
        };
        char::from_u32(code)
            .filter(|c| *c != '\0')
            .unwrap_or('\u{FFFD}')
            .to_string()
    } else {
        let i = NAMED.binary_search_by(|(n, _)| (*n).cmp(body)).ok()?;
        match NAMED[i].1 {
            // soft hyphens, joiners and direction marks: nothing to read
            '\u{ad}' | '\u{200c}' | '\u{200d}' | '\u{200e}' | '\u{200f}' => String::new(),
            c => c.to_string(),
        }
    };
    Some((text, end + 1))
}

/// Named character references (HTML 4's set, with `&apos;`), sorted by name.
const NAMED: &[(&str, char)] = &[
    ("AElig", '\u{c6}'),
    ("Aacute", '\u{c1}'),
    ("Acirc", '\u{c2}'),
    ("Agrave", '\u{c0}'),
    ("Alpha", '\u{391}'),
    ("Aring", '\u{c5}'),
    ("Atilde", '\u{c3}'),
    ("Auml", '\u{c4}'),
    ("Beta", '\u{392}'),
    ("Ccedil", '\u{c7}'),
    ("Chi", '\u{3a7}'),
    ("Dagger", '\u{2021}'),
    ("Delta", '\u{394}'),
    ("ETH", '\u{d0}'),
    ("Eacute", '\u{c9}'),
    ("Ecirc", '\u{ca}'),
    ("Egrave", '\u{c8}'),
    ("Epsilon", '\u{395}'),
    ("Eta", '\u{397}'),
    ("Euml", '\u{cb}'),
    ("Gamma", '\u{393}'),
    ("Iacute", '\u{cd}'),
    ("Icirc", '\u{ce}'),
    ("Igrave", '\u{cc}'),
    ("Iota", '\u{399}'),
    ("Iuml", '\u{cf}'),
    ("Kappa", '\u{39a}'),
    ("Lambda", '\u{39b}'),
    ("Mu", '\u{39c}'),
    ("Ntilde", '\u{d1}'),
    ("Nu", '\u{39d}'),
    ("OElig", '\u{152}'),
    ("Oacute", '\u{d3}'),
    ("Ocirc", '\u{d4}'),
    ("Ograve", '\u{d2}'),
    ("Omega", '\u{3a9}'),
    ("Omicron", '\u{39f}'),
    ("Oslash", '\u{d8}'),
    ("Otilde", '\u{d5}'),
    ("Ouml", '\u{d6}'),
    ("Phi", '\u{3a6}'),
    ("Pi", '\u{3a0}'),
    ("Prime", '\u{2033}'),
    ("Psi", '\u{3a8}'),
    ("Rho", '\u{3a1}'),
    ("Scaron", '\u{160}'),
    ("Sigma", '\u{3a3}'),
    ("THORN", '\u{de}'),
    ("Tau", '\u{3a4}'),
    ("Theta", '\u{398}'),
    ("Uacute", '\u{da}'),
    ("Ucirc", '\u{db}'),
    ("Ugrave", '\u{d9}'),
    ("Upsilon", '\u{3a5}'),
    ("Uuml", '\u{dc}'),
    ("Xi", '\u{39e}'),
    ("Yacute", '\u{dd}'),
    ("Yuml", '\u{178}'),
    ("Zeta", '\u{396}'),
    ("aacute", '\u{e1}'),
    ("acirc", '\u{e2}'),
    ("acute", '\u{b4}'),
    ("aelig", '\u{e6}'),
    ("agrave", '\u{e0}'),
    ("alefsym", '\u{2135}'),
    ("alpha", '\u{3b1}'),
    ("amp", '\u{26}'),
    ("and", '\u{2227}'),
    ("ang", '\u{2220}'),
    ("apos", '\u{27}'),
    ("aring", '\u{e5}'),
    ("asymp", '\u{2248}'),
    ("atilde", '\u{e3}'),
    ("auml", '\u{e4}'),
    ("bdquo", '\u{201e}'),
    ("beta", '\u{3b2}'),
    ("brvbar", '\u{a6}'),
    ("bull", '\u{2022}'),
    ("cap", '\u{2229}'),
    ("ccedil", '\u{e7}'),
    ("cedil", '\u{b8}'),
    ("cent", '\u{a2}'),
    ("chi", '\u{3c7}'),
    ("circ", '\u{2c6}'),
    ("clubs", '\u{2663}'),
    ("cong", '\u{2245}'),
    ("copy", '\u{a9}'),
    ("crarr", '\u{21b5}'),
    ("cup", '\u{222a}'),
    ("curren", '\u{a4}'),
    ("dArr", '\u{21d3}'),
    ("dagger", '\u{2020}'),
    ("darr", '\u{2193}'),
    ("deg", '\u{b0}'),
    ("delta", '\u{3b4}'),
    ("diams", '\u{2666}'),
    ("divide", '\u{f7}'),
    ("eacute", '\u{e9}'),
    ("ecirc", '\u{ea}'),
    ("egrave", '\u{e8}'),
    ("empty", '\u{2205}'),
    ("emsp", '\u{2003}'),
    ("ensp", '\u{2002}'),
    ("epsilon", '\u{3b5}'),
    ("equiv", '\u{2261}'),
    ("eta", '\u{3b7}'),
    ("eth", '\u{f0}'),
    ("euml", '\u{eb}'),
    ("euro", '\u{20ac}'),
    ("exist", '\u{2203}'),
    ("fnof", '\u{192}'),
    ("forall", '\u{2200}'),
    ("frac12", '\u{bd}'),
    ("frac14", '\u{bc}'),
    ("frac34", '\u{be}'),
    ("frasl", '\u{2044}'),
    ("gamma", '\u{3b3}'),
    ("ge", '\u{2265}'),
    ("gt", '\u{3e}'),
    ("hArr", '\u{21d4}'),
    ("harr", '\u{2194}'),
    ("hearts", '\u{2665}'),
    ("hellip", '\u{2026}'),
    ("iacute", '\u{ed}'),
    ("icirc", '\u{ee}'),
    ("iexcl", '\u{a1}'),
    ("igrave", '\u{ec}'),
    ("image", '\u{2111}'),
    ("infin", '\u{221e}'),
    ("int", '\u{222b}'),
    ("iota", '\u{3b9}'),
    ("iquest", '\u{bf}'),
    ("isin", '\u{2208}'),
    ("iuml", '\u{ef}'),
    ("kappa", '\u{3ba}'),
    ("lArr", '\u{21d0}'),
    ("lambda", '\u{3bb}'),
    ("lang", '\u{2329}'),
    ("laquo", '\u{ab}'),
    ("larr", '\u{2190}'),
    ("lceil", '\u{2308}'),
    ("ldquo", '\u{201c}'),
    ("le", '\u{2264}'),
    ("lfloor", '\u{230a}'),
    ("lowast", '\u{2217}'),
    ("loz", '\u{25ca}'),
    ("lrm", '\u{200e}'),
    ("lsaquo", '\u{2039}'),
    ("lsquo", '\u{2018}'),
    ("lt", '\u{3c}'),
    ("macr", '\u{af}'),
    ("mdash", '\u{2014}'),
    ("micro", '\u{b5}'),
    ("middot", '\u{b7}'),
    ("minus", '\u{2212}'),
    ("mu", '\u{3bc}'),
    ("nabla", '\u{2207}'),
    ("nbsp", '\u{a0}'),
    ("ndash", '\u{2013}'),
    ("ne", '\u{2260}'),
    ("ni", '\u{220b}'),
    ("not", '\u{ac}'),
    ("notin", '\u{2209}'),
    ("nsub", '\u{2284}'),
    ("ntilde", '\u{f1}'),
    ("nu", '\u{3bd}'),
    ("oacute", '\u{f3}'),
    ("ocirc", '\u{f4}'),
    ("oelig", '\u{153}'),
    ("ograve", '\u{f2}'),
    ("oline", '\u{203e}'),
    ("omega", '\u{3c9}'),
    ("omicron", '\u{3bf}'),
    ("oplus", '\u{2295}'),
    ("or", '\u{2228}'),
    ("ordf", '\u{aa}'),
    ("ordm", '\u{ba}'),
    ("oslash", '\u{f8}'),
    ("otilde", '\u{f5}'),
    ("otimes", '\u{2297}'),
    ("ouml", '\u{f6}'),
    ("para", '\u{b6}'),
    ("part", '\u{2202}'),
    ("permil", '\u{2030}'),
    ("perp", '\u{22a5}'),
    ("phi", '\u{3c6}'),
    ("pi", '\u{3c0}'),
    ("plusmn", '\u{b1}'),
    ("pound", '\u{a3}'),
    ("prime", '\u{2032}'),
    ("prod", '\u{220f}'),
    ("prop", '\u{221d}'),
    ("psi", '\u{3c8}'),
    ("quot", '\u{22}'),
    ("rArr", '\u{21d2}'),
    ("radic", '\u{221a}'),
    ("rang", '\u{232a}'),
    ("raquo", '\u{bb}'),
    ("rarr", '\u{2192}'),
    ("rceil", '\u{2309}'),
    ("rdquo", '\u{201d}'),
    ("real", '\u{211c}'),
    ("reg", '\u{ae}'),
    ("rfloor", '\u{230b}'),
    ("rho", '\u{3c1}'),
    ("rlm", '\u{200f}'),
    ("rsaquo", '\u{203a}'),
    ("rsquo", '\u{2019}'),
    ("sbquo", '\u{201a}'),
    ("scaron", '\u{161}'),
    ("sdot", '\u{22c5}'),
    ("sect", '\u{a7}'),
    ("shy", '\u{ad}'),
    ("sigma", '\u{3c3}'),
    ("sigmaf", '\u{3c2}'),
    ("sim", '\u{223c}'),
    ("spades", '\u{2660}'),
    ("sub", '\u{2282}'),
    ("sube", '\u{2286}'),
    ("sum", '\u{2211}'),
    ("sup", '\u{2283}'),
    ("sup1", '\u{b9}'),
    ("sup2", '\u{b2}'),
    ("sup3", '\u{b3}'),
    ("supe", '\u{2287}'),
    ("szlig", '\u{df}'),
    ("tau", '\u{3c4}'),
    ("there4", '\u{2234}'),
    ("theta", '\u{3b8}'),
    ("thinsp", '\u{2009}'),
    ("thorn", '\u{fe}'),
    ("tilde", '\u{2dc}'),
    ("times", '\u{d7}'),
    ("trade", '\u{2122}'),
    ("uArr", '\u{21d1}'),
    ("uacute", '\u{fa}'),
    ("uarr", '\u{2191}'),
    ("ucirc", '\u{fb}'),
    ("ugrave", '\u{f9}'),
    ("uml", '\u{a8}'),
    ("upsilon", '\u{3c5}'),
    ("uuml", '\u{fc}'),
    ("weierp", '\u{2118}'),
    ("xi", '\u{3be}'),
    ("yacute", '\u{fd}'),
    ("yen", '\u{a5}'),
    ("yuml", '\u{ff}'),
    ("zeta", '\u{3b6}'),
    ("zwj", '\u{200d}'),
    ("zwnj", '\u{200c}'),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_headings_lists_and_references() {
        let html = "<!DOCTYPE html><html><head><title>T</title><style>p{}</style></head>\
            <body><nav><a href=/>Home</a> <a>Menu</a></nav>\
            <h1>Strings &amp; text</h1><p>A  <b>string</b>\n is   UTF-8 &#8212; see \
            <a href=\"x\">the&nbsp;docs</a>.</p><ul><li>one</li><li>two &lt;3</li></ul>\
            <script>var x = '<p>no</p>';</script><pre>fn main() {\n    let s = 1;\n}</pre>\
            <footer>© 2026</footer></body></html>";
        let p = page_text(html);
        assert_eq!(
            p.text,
            "# Strings & text\n\nA string is UTF-8 — see the docs.\n\n- one\n- two <3\nfn main() {\n    let s = 1;\n}\n"
        );
    }

    #[test]
    fn only_main_when_there_is_one() {
        let html = "<body><div class=x>Sidebar words</div><main><h2>Title</h2><p>Body</p></main><div>after</div></body>";
        assert_eq!(page_text(html).text, "## Title\n\nBody\n");
    }

    #[test]
    fn the_reference_table_is_sorted_for_its_search() {
        assert!(NAMED.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(NAMED.len() > 240);
    }

    #[test]
    fn source_positions_map_back_exactly() {
        let html = "<p>alpha beta</p>\n<p>gamma &amp; delta</p>";
        let p = page_text(html);
        assert_eq!(p.text, "alpha beta\n\ngamma & delta\n");
        // right after "alpha bet": inside a verbatim word
        let t = p.text.find("beta").unwrap() + 3;
        assert_eq!(&html[..p.source_end(t)], "<p>alpha bet");
        // right after "alpha beta": the end of that word
        let t = p.text.find("beta").unwrap() + 4;
        assert_eq!(&html[..p.source_end(t)], "<p>alpha beta");
        // after the decoded '&': the whole reference
        let t = p.text.find('&').unwrap() + 1;
        assert_eq!(
            &html[..p.source_end(t)],
            "<p>alpha beta</p>\n<p>gamma &amp;"
        );
        assert_eq!(p.source_end(p.text.len()), html.len() - "</p>".len());
    }

    #[test]
    fn broken_markup_does_not_lose_text_or_panic() {
        for html in [
            "a < b and c > d",
            "<p>unclosed <b>bold",
            "<div attr=\"a>b\">quoted</div>",
            "<script>never closed",
            "<!-- never closed",
            "&#xFFFFFFFF; &#0; &bogus; &",
            "caf&eacute; &Eacute;t&eacute; &shy; &euro;5",
            "<",
            "",
            "<p>é</p><p>日本</p>",
        ] {
            let p = page_text(html);
            for t in 0..=p.text.len() {
                if p.text.is_char_boundary(t) {
                    let s = p.source_end(t);
                    assert!(
                        s <= html.len() && html.is_char_boundary(s),
                        "{html:?} at {t}"
                    );
                }
            }
        }
        assert_eq!(page_text("a < b and c > d").text, "a < b and c > d\n");
        assert_eq!(page_text("<div attr=\"a>b\">quoted</div>").text, "quoted\n");
        assert_eq!(page_text("&#0; &bogus; &").text, "\u{FFFD} &bogus; &\n");
        assert_eq!(
            page_text("caf&eacute; &Eacute;t&eacute;&shy; &euro;5").text,
            "café Été €5\n"
        );
    }
}
