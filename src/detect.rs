//! Content kind and language: explicit (`--lang` / a `language` argument) > shebang
//! > file extension > content sniffing.

use crate::outline::Language;

/// How the language was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Evidence {
    Explicit,
    Shebang,
    Extension,
    Sniffed,
}

/// The interpreter named by a `#!` line (`#!/usr/bin/env -S python3 -u` → `python3`).
pub fn shebang_interpreter(text: &str) -> Option<&str> {
    let first = text.lines().next()?.strip_prefix("#!")?;
    let mut words = first.split_whitespace();
    let mut prog = words.next()?;
    if prog.ends_with("/env") || prog == "env" {
        prog = words.find(|w| !w.starts_with('-') && !w.contains('='))?;
    }
    prog.rsplit('/').next()
}

/// The extension of a path's file name, lowercased.
pub fn extension(path: &str) -> Option<String> {
    let name = path.rsplit(['/', '\\']).next()?;
    let (stem, ext) = name.rsplit_once('.')?;
    (!stem.is_empty() && !ext.is_empty()).then(|| ext.to_ascii_lowercase())
}

/// Detect the programming language of a file's content.
pub fn language(
    explicit: Option<Language>,
    path: Option<&str>,
    text: &str,
) -> Option<(Language, Evidence)> {
    if let Some(l) = explicit {
        return Some((l, Evidence::Explicit));
    }
    if let Some(l) = shebang_interpreter(text).and_then(Language::from_interpreter) {
        return Some((l, Evidence::Shebang));
    }
    if let Some(ext) = path.and_then(extension) {
        // A known non-code extension settles it: no sniffing a .txt into Python.
        return Language::from_extension(&ext).map(|l| (l, Evidence::Extension));
    }
    sniff(text).map(|l| (l, Evidence::Sniffed))
}

/// Guess from the first 200 lines: count lines that only one language starts with.
fn sniff(text: &str) -> Option<Language> {
    let (mut py, mut rs) = (0usize, 0usize);
    for line in text.lines().take(200) {
        let t = line.trim_start();
        let indent = line.len() - t.len();
        if (t.starts_with("def ") || t.starts_with("async def ") || t.starts_with("class "))
            && t.trim_end().ends_with(':')
            || indent == 0
                && (t.starts_with("import ") || t.starts_with("from ") && t.contains(" import "))
        {
            py += 1;
        }
        if t.starts_with("fn ")
            || t.starts_with("pub fn ")
            || t.starts_with("pub(crate) ")
            || t.starts_with("impl ")
            || t.starts_with("impl<")
            || t.starts_with("use ") && t.trim_end().ends_with(';')
            || t.starts_with("#[derive(")
            || t.starts_with("mod ") && t.trim_end().ends_with(';')
        {
            rs += 1;
        }
    }
    let pick = |lang: &str| Language::from_name(lang);
    match (py >= 2 && py > rs * 2, rs >= 2 && rs > py * 2) {
        (true, _) => pick("python"),
        (_, true) => pick("rust"),
        _ => None,
    }
}

/// A coarse content kind for non-code text: `json`, `html`, `markdown`, or None.
pub fn text_kind(path: Option<&str>, text: &str) -> Option<&'static str> {
    match path.and_then(extension).as_deref() {
        Some("json" | "jsonl") => return Some("json"),
        Some("html" | "htm" | "xhtml") => return Some("html"),
        Some("md" | "markdown") => return Some("markdown"),
        _ => {}
    }
    let t = text.trim_start();
    if (t.starts_with('{') || t.starts_with('['))
        && serde_json::from_str::<serde_json::Value>(text).is_ok()
    {
        return Some("json");
    }
    if crate::hints::web_fetch::is_html(text) {
        return Some("html");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_explicit_shebang_extension_sniff() {
        let py = Language::from_name("python").unwrap();
        let rs = Language::from_name("rust").unwrap();
        assert_eq!(
            language(Some(rs), Some("a.py"), "#!/usr/bin/python3\n"),
            Some((rs, Evidence::Explicit))
        );
        assert_eq!(
            language(None, Some("a.rs"), "#!/usr/bin/env python3\n"),
            Some((py, Evidence::Shebang))
        );
        assert_eq!(
            language(None, Some("x/y/a.PY"), ""),
            Some((py, Evidence::Extension))
        );
        assert_eq!(
            language(None, Some("notes.txt"), "def a():\n    pass\nclass B:\n"),
            None
        );
        assert_eq!(
            language(None, None, "use std::fmt;\n\npub fn a() {}\nimpl X {}\n"),
            Some((rs, Evidence::Sniffed))
        );
        assert_eq!(
            language(None, None, "import os\n\ndef main():\n    pass\n"),
            Some((py, Evidence::Sniffed))
        );
        assert_eq!(language(None, None, "hello world\n"), None);
    }

    #[test]
    fn shebangs() {
        assert_eq!(
            shebang_interpreter("#!/usr/bin/env -S python3 -u\n"),
            Some("python3")
        );
        assert_eq!(shebang_interpreter("#! /bin/bash\n"), Some("bash"));
        assert_eq!(shebang_interpreter("no"), None);
    }
}
