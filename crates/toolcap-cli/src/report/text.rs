//! The page's words: text escaped for HTML, times and numbers as a person
//! reads them (the page and its charts share them).

use super::super::common::visible_char;

/// `s` escaped for HTML text and attribute values; control characters but
/// line ends and tab (a terminal's escape sequences, a NUL) shown as their
/// Unicode control pictures (`␛`, `␀`), and the bidirectional controls and
/// line separators as `<U+202E>` (see [`visible_char`]), instead of reaching
/// the parser or reordering the page's text.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\r' => out.push(c),
            _ => match visible_char(c) {
                // (its `<` and `>` escaped too)
                Some(v) => out.push_str(&v.replace('<', "&lt;").replace('>', "&gt;")),
                None => out.push(c),
            },
        }
    }
    out
}

/// `2026-11-28 06:34:19` (UTC) from milliseconds since the epoch.
pub fn when(ms: i64) -> String {
    let t = toolcap_store::format_utc_ms(ms);
    t.get(..19).unwrap_or(&t).replace('T', " ")
}

/// `12,345`.
pub fn n(x: u64) -> String {
    toolcap_text::text::thousands(usize::try_from(x).unwrap_or(usize::MAX))
}
