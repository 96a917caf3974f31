//! Content kind and language: explicit (`--lang` / a `language` argument) > shebang
//! > file extension > content sniffing.

use std::sync::LazyLock;

use regex::{Regex, RegexSet};

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
    Regex::new(
        r"(?m)^\s*(namespace\s+\w*\s*\{|template\s*<|class\s+\w+[^;]*\{?\s*$|(public|private|protected):\s*$|using\s+namespace\s)|\bstd::",
    )
    .expect("static regex")
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

/// Line patterns that point at one language, for sniffing content without a
/// file name. Each pattern counts once per line it matches.
static SNIFF: LazyLock<Vec<(&'static str, RegexSet)>> = LazyLock::new(|| {
    let table: &[(&str, &[&str])] = &[
        (
            "python",
            &[
                r"^(async\s+)?def \w+.*:\s*$",
                r"^\s+(async\s+)?def \w+\(.*:\s*$",
                r"^class \w+.*:\s*$",
                r"^(import \w[\w.]*(\s+as \w+)?\s*$|from [\w.]+ import )",
                r#"^if __name__ == ['"]__main__['"]:"#,
            ],
        ),
        (
            "rust",
            &[
                r"^\s*(pub(\([\w:]+\))?\s+)?(async\s+)?(unsafe\s+)?fn \w",
                r"^\s*impl(<.*>)?\s",
                r"^\s*use [\w:{}, *]+;\s*$",
                r"^\s*#\[(derive|cfg|test)\b",
                r"^\s*(pub\s+)?mod \w+;",
                r"^\s*pub(\([\w:]+\))? (struct|enum|trait) ",
            ],
        ),
        (
            "go",
            &[
                r"^package \w+\s*$",
                r"^func (\(\w+ \*?[\w\[\]]+\) )?\w+(\[.*\])?\(",
                r"^import \($",
                r"^\s+\w+(, \w+)* := ",
                r"^type \w+ (struct|interface) \{",
            ],
        ),
        (
            "javascript",
            &[
                r"^(export )?(async )?function\*? \w+\(",
                r"^(const|let|var) \{?[\w, ]+\}? = require\(",
                r"^module\.exports\b",
                r#"^import .* from ['"]"#,
                r"^export (default )?(class|const|function|async)\b",
                r"^\s*(const|let) \w+ = (async )?\(.*\) =>",
            ],
        ),
        (
            "typescript",
            &[
                r"^(export )?(declare )?(interface|type) \w+.*[={]",
                r"^(export )?(abstract )?class \w+.* implements ",
                r"\w+\??: (string|number|boolean|void|unknown|any)\b[;,)=]",
                r"^(export )?enum \w+ \{",
            ],
        ),
        (
            "java",
            &[
                r"^package [\w.]+;\s*$",
                r"^import (static )?[\w.]+(\.\*)?;\s*$",
                r"^\s*(public |private |protected )?(abstract |final |static )*(class|interface|enum|record) \w+.*\{\s*$",
                r"^\s*@Override\b",
                r"^\s*(public|private|protected) (static )?(final )?[\w<>\[\], ]+ \w+\(.*\)\s*(throws [\w, ]+)?\{?\s*$",
            ],
        ),
        (
            "csharp",
            &[
                r"^using [\w.]+;\s*$",
                r"^\s*namespace [\w.]+\s*[;{]?\s*$",
                r"^\s*(public|internal|private|protected)\s+(sealed |static |partial |abstract )*(class|interface|struct|record|enum)\s",
                r"\{\s*get;",
                r"^\s*\[\w+(\(.*\))?\]\s*$",
            ],
        ),
        (
            "c",
            &[
                r#"^#\s*include\s*[<"]"#,
                r"^#\s*(define|ifdef|ifndef|endif)\b",
                r"^(static\s+)?(inline\s+)?(const\s+)?(int|void|char|unsigned|long|size_t|bool|struct \w+)\s*\**\s*\w+\(.*\)\s*\{?\s*$",
                r"^typedef\s",
            ],
        ),
        (
            "cpp",
            &[
                r"^\s*namespace \w*\s*\{",
                r"^\s*template\s*<",
                r"\bstd::",
                r"^\s*(public|private|protected):\s*$",
                r"^#include <(iostream|string|vector|memory|map|algorithm)>",
            ],
        ),
        (
            "ruby",
            &[
                r"^\s*def (self\.)?\w+[?!=]?(\(.*\))?\s*$",
                r#"^require(_relative)? ['"]"#,
                r"^\s*module [A-Z]\w*(::\w+)*\s*$",
                r"^\s*class [A-Z]\w*(::\w+)*( < [\w:]+)?\s*$",
                r"^\s*attr_(reader|accessor|writer) :",
            ],
        ),
        (
            "php",
            &[
                r"^<\?php",
                r"^\s*(public |private |protected )?function \w+\(.*\$",
            ],
        ),
        (
            "bash",
            &[
                r"^\s*(if|elif|while|for|until) .*; (then|do)\s*$",
                r"^\s*(fi|done|esac)\s*$",
                r"^\s*(function \w+|\w+\(\))\s*\{\s*$",
                r"^\s*(export|local|readonly) \w+=",
                r"^\s*set -[euxo]+",
            ],
        ),
        (
            "kotlin",
            &[
                r"^\s*(private |internal |public |override |suspend )*fun (<.*> )?[\w.]+\(",
                r"^\s*(data |sealed |open |abstract )?class \w+.*\(.*\)",
                r"^\s*(private |internal )?val \w+(: [\w<>?]+)? =",
                r"^import [\w.]+\s*$",
            ],
        ),
        (
            "swift",
            &[
                r"^import (Foundation|UIKit|SwiftUI|AppKit|Combine)\s*$",
                r"^\s*(public |private |internal |@\w+ )*func \w+.*\) (throws )?->",
                r"^\s*guard (let|var) ",
                r"^\s*(public )?(struct|protocol|extension) \w+.*\{\s*$",
            ],
        ),
        (
            "scala",
            &[
                r"^\s*(case )?object \w+",
                r"^\s*def \w+(\[.*\])?(\(.*\))*(: [\w\[\], ]+)? =",
                r"^\s*(sealed |abstract |final )*(case class|trait) \w+",
                r"^import [\w.]+\.(_|\{.*\})\s*$",
            ],
        ),
        (
            "lua",
            &[
                r"^\s*local function \w",
                r"^\s*local \w+ = require",
                r"^function [\w.:]+\(",
                r"^\s*local \w+ = \{\s*\}?\s*$",
                r"^return \w+\s*$",
            ],
        ),
    ];
    table
        .iter()
        .filter_map(|(name, patterns)| {
            let set = RegexSet::new(patterns.iter()).ok()?;
            Some((*name, set))
        })
        .collect()
});

/// Guess from the first 200 lines: count lines that point at one language.
/// The best language must have at least 2 such lines and twice as many as
/// the runner-up; TypeScript and C++ win over JavaScript and C when their
/// own signs are there.
fn sniff(text: &str) -> Option<Language> {
    if text.trim_start().starts_with("<?php") {
        return Language::from_name("php");
    }
    let mut counts: Vec<(&str, usize)> = SNIFF.iter().map(|(name, _)| (*name, 0)).collect();
    for line in text.lines().take(200) {
        for ((_, set), count) in SNIFF.iter().zip(counts.iter_mut()) {
            if set.is_match(line) {
                count.1 += 1;
            }
        }
    }
    let get = |name: &str| counts.iter().find(|(n, _)| *n == name).map_or(0, |c| c.1);
    // Dialects: their own signs added to the base language's.
    let merged: Vec<(&str, usize)> = counts
        .iter()
        .map(|&(name, n)| match name {
            "typescript" if n >= 2 => (name, n + get("javascript")),
            "typescript" => (name, 0),
            "cpp" if n >= 1 => (name, n + get("c")),
            "cpp" => (name, 0),
            _ => (name, n),
        })
        .collect();
    let (best, n) = merged
        .iter()
        .copied()
        .filter_map(|(name, n)| Language::from_name(name).map(|_| (name, n)))
        .max_by_key(|&(_, n)| n)?;
    let runner_up = merged
        .iter()
        .filter(|(name, _)| {
            *name != best
                && !matches!(
                    (best, *name),
                    ("typescript", "javascript")
                        | ("cpp", "c")
                        | ("javascript", "typescript")
                        | ("c", "cpp")
                )
        })
        .map(|&(_, n)| n)
        .max()
        .unwrap_or(0);
    (n >= 2 && n >= runner_up * 2 && n > runner_up).then(|| Language::from_name(best))?
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
    if crate::outline::html::is_html(text) {
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
