//! Test helper: text without its colour codes, as toolcap's cleaned output shows it.

/// `s` without colour codes (`ESC [ ... m`, and any other CSI sequence).
pub fn strip_colour(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\x1b' && it.peek() == Some(&'[') {
            for d in it.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}
