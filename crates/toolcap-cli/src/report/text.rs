//! The page's words: text escaped for HTML, times and numbers as a person
//! reads them (the page and its charts share them).

/// `s` escaped for HTML text and attribute values; control characters but
/// line ends and tab (a terminal's escape sequences, a NUL) shown as their
/// Unicode control pictures (`␛`, `␀`) instead of reaching the parser.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' | '\r' => out.push(c),
            '\u{0}'..='\u{1f}' => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}')),
            '\u{7f}' => out.push('\u{2421}'),
            _ => out.push(c),
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
