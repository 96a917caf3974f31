//! The outline, for every language, on arbitrary bytes (decoded lossily), and
//! language detection on the same text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolcap::{Language, outline};

fuzz_target!(|data: &[u8]| {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    let langs = Language::all();
    let lang = langs[sel as usize % langs.len()];
    let text = String::from_utf8_lossy(body);
    if let Ok(o) = outline::outline(&text, lang) {
        let lines = text.split_inclusive('\n').count();
        assert_eq!(o.lines, lines);
        for s in &o.symbols {
            assert!(1 <= s.line && s.line <= s.end_line && s.end_line <= lines.max(1));
        }
    }
    let _ = toolcap::detect::language(None, Some("x.unknown"), &text);
    let _ = toolcap::detect::text_kind(None, &text);
});
