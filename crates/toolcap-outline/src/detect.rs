//! Content kind and language: explicit (`--lang` / a `language` argument) > shebang
//! > file extension > content sniffing.

use std::sync::LazyLock;
use toolcap_text::text::static_regex;

use regex::{Regex, RegexSet};

use crate::languages::{Sniff, sniff_rows};
use crate::{Language, extension};

impl Language {
    /// The language of a file's content, as `toolcap outline` and the processor
    /// decide it: the shebang's interpreter, else the file name's extension (a `.h`
    /// header that reads as C++ is C++), else — with no path — what the content
    /// looks like. `None` when nothing tells (or the extension is not code).
    pub fn detect(path: Option<&str>, text: &str) -> Option<Language> {
        language(None, path, text).map(|(l, _)| l)
    }
}

/// How the language was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Evidence {
    /// Named by the caller (`--lang`, a `ToolCall`'s language).
    Explicit,
    /// The `#!` line's interpreter.
    Shebang,
    /// The file name's extension.
    Extension,
    /// Sniffed from the text itself.
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
        // A `.h` header is C unless it reads as C++.
        if ext == "h"
            && let Some(cpp) = Language::from_name("cpp")
            && looks_like_cpp_header(text)
        {
            return Some((cpp, Evidence::Extension));
        }
        // A known non-code extension settles it: no sniffing a .txt into Python.
        return Language::from_extension(&ext).map(|l| (l, Evidence::Extension));
    }
    sniff(text).map(|l| (l, Evidence::Sniffed))
}

/// Lines that only C++ has, in the first 400 lines of a header.
static CPP_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    static_regex(
        r"(?m)^\s*(namespace\s+\w*\s*\{|template\s*<|class\s+\w+[^;]*\{?\s*$|(public|private|protected):\s*$|using\s+namespace\s)|\bstd::",
    )
});

fn looks_like_cpp_header(text: &str) -> bool {
    let head = head_lines(text, 400);
    CPP_HEADER.is_match(head)
}

/// The first `n` lines of `text`.
fn head_lines(text: &str, n: usize) -> &str {
    let end = memchr::memchr_iter(b'\n', text.as_bytes())
        .nth(n.saturating_sub(1))
        .map_or(text.len(), |i| i + 1);
    text.get(..end).unwrap_or(text)
}

/// Each sniffed language's line patterns (its row of the language table,
/// `super::languages::sniff_rows`), compiled once. Each pattern counts once per line
/// it matches.
static SNIFF_SETS: LazyLock<Vec<(&'static Sniff, RegexSet)>> = LazyLock::new(|| {
    sniff_rows()
        .filter(|row| !row.patterns.is_empty())
        .filter_map(|row| Some((row, RegexSet::new(row.patterns).ok()?)))
        .collect()
});

/// Whether `a` and `b` are a dialect and its base (TypeScript and JavaScript,
/// C++ and C), either way round.
fn related(a: &Sniff, b: &Sniff) -> bool {
    a.dialect_of.is_some_and(|(base, _)| base == b.name)
        || b.dialect_of.is_some_and(|(base, _)| base == a.name)
}

/// Guess from the first 200 lines: count lines that point at one language.
/// The best language must have at least 2 such lines and twice as many as
/// the runner-up; TypeScript and C++ win over JavaScript and C when their
/// own signs are there.
fn sniff(text: &str) -> Option<Language> {
    if text.trim_start().starts_with("<?php") {
        return Language::from_name("php");
    }
    let mut counts = vec![0usize; SNIFF_SETS.len()];
    for line in text.lines().take(200) {
        for ((_, set), count) in SNIFF_SETS.iter().zip(counts.iter_mut()) {
            if set.is_match(line) {
                *count += 1;
            }
        }
    }
    let get = |name: &str| {
        SNIFF_SETS
            .iter()
            .zip(&counts)
            .find(|((row, _), _)| row.name == name)
            .map_or(0, |(_, n)| *n)
    };
    // Dialects: their own signs added to the base language's.
    let merged: Vec<(&Sniff, usize)> = SNIFF_SETS
        .iter()
        .zip(&counts)
        .map(|(&(row, _), &n)| match row.dialect_of {
            Some((base, needed)) if n >= needed => (row, n + get(base)),
            Some(_) => (row, 0),
            None => (row, n),
        })
        .collect();
    let (best, n) = merged
        .iter()
        .copied()
        .filter(|(row, _)| Language::from_name(row.name).is_some())
        .max_by_key(|&(_, n)| n)?;
    let runner_up = merged
        .iter()
        .filter(|(row, _)| row.name != best.name && !related(best, row))
        .map(|&(_, n)| n)
        .max()
        .unwrap_or(0);
    (n >= 2 && n >= runner_up * 2 && n > runner_up).then(|| Language::from_name(best.name))?
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
    if crate::html::is_html(text) {
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

    /// Sniffing without a file name: a few lines typical of each language.
    #[test]
    fn sniffs_each_language_from_content() {
        let samples: &[(&str, &str)] = &[
            ("python", "import os\n\ndef main():\n    pass\n"),
            ("rust", "use std::fmt;\n\npub fn a() {}\nimpl X {}\n"),
            (
                "go",
                "package main\n\nimport (\n\t\"fmt\"\n)\n\nfunc main() {\n\tx := 1\n}\n",
            ),
            (
                "javascript",
                "const fs = require('fs');\n\nfunction main(a) {\n}\nmodule.exports = main;\n",
            ),
            (
                "typescript",
                "export interface User {\n  name: string;\n  age: number;\n}\nexport type Id = string | number;\n",
            ),
            (
                "java",
                "package a.b;\n\nimport java.util.List;\n\npublic class A {\n    @Override\n    public String toString() {\n    }\n}\n",
            ),
            (
                "csharp",
                "using System;\nusing System.Linq;\n\nnamespace App\n{\n    public class A { public int X { get; set; } }\n}\n",
            ),
            (
                "c",
                "#include <stdio.h>\n#define N 3\n\nint main(void)\n{\n}\n",
            ),
            (
                "cpp",
                "#include <vector>\n\nnamespace app {\nclass A {\npublic:\n  std::vector<int> v;\n};\n}\n",
            ),
            (
                "ruby",
                "require 'json'\n\nmodule App\n  class User < Base\n    attr_reader :name\n    def greet\n    end\n  end\nend\n",
            ),
            ("php", "<?php\necho 1;\n"),
            (
                "bash",
                "set -euo pipefail\nmain() {\n  local x=1\n  if true; then\n    echo\n  fi\n}\n",
            ),
            (
                "lua",
                "local M = {}\nlocal json = require(\"json\")\n\nlocal function helper() end\nfunction M.run() end\nreturn M\n",
            ),
        ];
        for (name, text) in samples {
            let Some(expected) = Language::from_name(name) else {
                continue;
            };
            assert_eq!(
                language(None, None, text),
                Some((expected, Evidence::Sniffed)),
                "{name}"
            );
        }
        // Prose and config are not code.
        for text in [
            "hello world\nthis is text\n",
            "key: value\nother: 2\n",
            "[a]\nb = 1\n",
        ] {
            assert_eq!(language(None, None, text), None, "{text:?}");
        }
    }

    #[cfg(all(feature = "lang-c", feature = "lang-cpp"))]
    #[test]
    fn headers_are_c_unless_they_read_as_cpp() {
        let c = Language::from_name("c").unwrap();
        let cpp = Language::from_name("cpp").unwrap();
        assert_eq!(
            language(
                None,
                Some("a.h"),
                "#ifndef A_H\nstruct s { int x; };\nint f(void);\n#endif\n"
            ),
            Some((c, Evidence::Extension))
        );
        assert_eq!(
            language(
                None,
                Some("a.h"),
                "#pragma once\nnamespace a {\nclass B {\npublic:\n  int f();\n};\n}\n"
            ),
            Some((cpp, Evidence::Extension))
        );
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
