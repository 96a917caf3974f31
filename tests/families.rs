//! A tool family is its rows (docs/architecture.md, "Adding a tool family"):
//! the `Family` variant, its `[tools.NAME]` row in thresholds.toml, its row in
//! the processor's `builtin` table and its hints. These tests fail when a
//! family is missing one of them, or when a rule about one family shows up
//! anywhere else in the code.

use std::fs;
use std::path::{Path, PathBuf};

use toolcap::{Config, Family, Reason};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The variant's name in Rust: `read_file` is `ReadFile`.
fn variant(f: Family) -> String {
    f.as_str()
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|h| h.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// Every `.rs` file under `dir` (a crate's `src/`).
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The library's code: the `.rs` files under the root crate's `src/` and
/// every member's `crates/NAME/src/` (not their integration tests).
fn library_sources() -> Vec<PathBuf> {
    let mut files = Vec::new();
    sources(&root().join("src"), &mut files);
    let mut members: Vec<PathBuf> = fs::read_dir(root().join("crates"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    members.sort();
    for m in members {
        sources(&m.join("src"), &mut files);
    }
    files.sort();
    files
}

/// The end (exclusive) of the literal or comment starting at `i`, or `None`
/// when none starts there (a lifetime's `'`, any other char).
fn literal_end(chars: &[char], i: usize) -> Option<usize> {
    let at = |k: usize| chars.get(k).copied();
    let find = |from: usize, pat: &[char]| {
        (from..chars.len())
            .find(|&k| chars[k..].starts_with(pat))
            .map_or(chars.len(), |k| k + pat.len())
    };
    let ident_before = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
    match (chars[i], at(i + 1)) {
        ('/', Some('/')) => Some(
            (i..chars.len())
                .find(|&k| chars[k] == '\n')
                .unwrap_or(chars.len()),
        ),
        ('/', Some('*')) => {
            let mut depth = 0;
            let mut k = i;
            while k + 1 < chars.len() {
                if chars[k] == '/' && chars[k + 1] == '*' {
                    depth += 1;
                    k += 2;
                } else if chars[k] == '*' && chars[k + 1] == '/' {
                    depth -= 1;
                    k += 2;
                    if depth == 0 {
                        return Some(k);
                    }
                } else {
                    k += 1;
                }
            }
            Some(chars.len())
        }
        ('"', _) => {
            let mut k = i + 1;
            while k < chars.len() && chars[k] != '"' {
                k += if chars[k] == '\\' { 2 } else { 1 };
            }
            Some((k + 1).min(chars.len()))
        }
        // a raw string: r"..", r#".."#, br".."
        ('r', Some('"' | '#')) if !ident_before || (i > 0 && chars[i - 1] == 'b') => {
            let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
            if at(i + 1 + hashes) != Some('"') {
                return None;
            }
            let mut close = vec!['"'];
            close.extend(std::iter::repeat_n('#', hashes));
            Some(find(i + 2 + hashes, &close))
        }
        ('\'', Some('\\')) => Some(find(i + 3, &['\''])),
        ('\'', Some(_)) if at(i + 2) == Some('\'') => Some(i + 3),
        _ => None,
    }
}

/// `text` with its comments and its string and char literals blanked
/// (newlines kept, so its lines keep their numbers): what is left is code.
fn blank(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        match literal_end(&chars, i) {
            Some(end) => {
                out.extend(
                    chars[i..end]
                        .iter()
                        .map(|&c| if c == '\n' { c } else { ' ' }),
                );
                i = end;
            }
            None => {
                out.push(chars[i]);
                i += 1;
            }
        }
    }
    out
}

/// The length of the item that starts `code` (its attributes first): up to
/// its closing brace, or its `;` when it has no body (`mod tests;`).
fn item_len(code: &str) -> usize {
    let (mut braces, mut other) = (0i32, 0i32);
    for (i, c) in code.char_indices() {
        match c {
            '(' | '[' => other += 1,
            ')' | ']' => other -= 1,
            '{' => braces += 1,
            '}' => {
                braces -= 1;
                if braces == 0 && other == 0 {
                    return i + 1;
                }
            }
            ';' if braces == 0 && other == 0 => return i + 1,
            _ => {}
        }
    }
    code.len()
}

/// The code of a source file (see [`blank`]) with its test items blanked
/// too (the item after each `#[cfg(test)]`: a `mod tests { .. }`, a helper
/// function), and the modules it declares as tests kept in their own files
/// (`#[cfg(test)] mod tests;`).
fn without_tests(text: &str) -> (String, Vec<String>) {
    const TEST: &str = "#[cfg(test)]";
    let code = blank(text);
    let mut out = String::with_capacity(code.len());
    let mut test_mods = Vec::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find(TEST) {
        out.push_str(&rest[..at]);
        let after = &rest[at + TEST.len()..];
        let item = &after[..item_len(after)];
        let words: Vec<&str> = item.split_whitespace().collect();
        if !item.contains('{')
            && let Some(k) = words.iter().position(|&w| w == "mod")
            && let Some(name) = words.get(k + 1)
        {
            test_mods.push(name.trim_end_matches(';').to_string());
        }
        let skipped = &rest[at..at + TEST.len() + item.len()];
        out.extend(skipped.chars().map(|c| if c == '\n' { c } else { ' ' }));
        rest = &rest[at + skipped.len()..];
    }
    out.push_str(rest);
    (out, test_mods)
}

/// The file or folder of module `name` declared in the source file `p`.
fn module_path(p: &Path, name: &str) -> PathBuf {
    let dir = p.parent().unwrap_or(Path::new(""));
    let owns_dir = matches!(
        p.file_name().and_then(|n| n.to_str()),
        Some("mod.rs" | "lib.rs" | "main.rs")
    );
    let dir = if owns_dir {
        dir.to_path_buf()
    } else {
        dir.join(p.file_stem().unwrap_or_default())
    };
    dir.join(name)
}

/// The library's code, file by file: each file's code lines (numbered from
/// 1, comments, literals and test items blanked), the files of test modules
/// left out.
fn library_code() -> Vec<(PathBuf, String)> {
    let files: Vec<(PathBuf, String, Vec<String>)> = library_sources()
        .into_iter()
        .map(|p| {
            let (code, test_mods) = without_tests(&fs::read_to_string(&p).unwrap());
            (p, code, test_mods)
        })
        .collect();
    let test_paths: Vec<PathBuf> = files
        .iter()
        .flat_map(|(p, _, mods)| mods.iter().map(|m| module_path(p, m)))
        .collect();
    files
        .into_iter()
        .filter(|(p, _, _)| {
            !test_paths
                .iter()
                .any(|t| p.starts_with(t) || *p == t.with_extension("rs"))
        })
        .map(|(p, code, _)| (p, code))
        .collect()
}

#[test]
fn every_family_has_its_thresholds_row() {
    let c = Config::defaults();
    for f in Family::ALL {
        let row = c
            .tools
            .iter()
            .find(|t| t.key == f.as_str())
            .unwrap_or_else(|| panic!("thresholds.toml has no [tools.{}] row", f.as_str()));
        assert_eq!(row.family, f, "[tools.{}]", f.as_str());
        assert!(row.threshold > row.max_kept, "[tools.{}]", f.as_str());
        // its names lead to it (generic: any tool no row names)
        let name = row
            .names
            .first()
            .map_or("some_unnamed_tool", String::as_str);
        assert_eq!(c.entry_for(name).key, f.as_str(), "{name}");
    }
}

/// The table of strategies has one row per family, and no other code names
/// a family's variant: a rule about one family is a hook of its `Strategy`.
#[test]
fn family_rules_live_in_the_table() {
    let names: Vec<String> = Family::ALL.iter().map(|&f| variant(f)).collect();
    let mut table_rows = None;
    let mut elsewhere = Vec::new();
    for (p, code) in library_code() {
        if code.contains("pub enum Family {") {
            continue; // the enum itself
        }
        let table = code.contains("fn builtin(family: Family) -> &'static dyn Strategy");
        let mut rows = 0;
        for (n, l) in code.lines().enumerate() {
            if !names.iter().any(|v| l.contains(&format!("Family::{v}"))) {
                continue;
            }
            if table && l.contains(" => &") {
                rows += 1;
            } else {
                elsewhere.push(format!("{}:{}: {}", p.display(), n + 1, l.trim()));
            }
        }
        if table {
            table_rows = Some(rows);
        }
    }
    assert_eq!(
        table_rows,
        Some(Family::ALL.len()),
        "the builtin table has one row per family"
    );
    assert!(
        elsewhere.is_empty(),
        "a family's rule outside the table (docs/architecture.md, \"Adding a tool family\"):\n{}",
        elsewhere.join("\n")
    );
}

/// The counter above reads code only: comments, literals and test items
/// (the item after `#[cfg(test)]`, and the files of test modules) are left
/// out, and the code after a test item is still read.
#[test]
fn the_rule_counter_reads_code_only() {
    let (code, mods) = without_tests(
        "// Family::Shell\nfn a() { let c = '{'; let s = \"}\"; }\n#[cfg(test)]\n\
         fn helper() -> [u8; 2] { if x { Family::Grep } }\nfn b<'a>() { r#\"}\"#; Family::Glob }\n\
         #[cfg(test)]\nmod tests;\n",
    );
    let lines: Vec<&str> = code.lines().collect();
    assert_eq!(lines.len(), 7, "{code}");
    assert_eq!(lines[0].trim(), "");
    assert!(lines[1].starts_with("fn a() {"), "{code}");
    assert_eq!(lines[2].trim(), "");
    assert_eq!(lines[3].trim(), "");
    assert!(lines[4].contains("Family::Glob }"), "{code}");
    assert_eq!(mods, ["tests"]);
    // the real sources: a test helper between code (hints/mod.rs's
    // `head_cut`), a test module in a file of its own (tally.rs's)
    let code = library_code();
    let file = |end: &str| code.iter().find(|(p, _)| p.ends_with(end));
    let hints = file("crates/toolcap-core/src/hints/mod.rs").unwrap();
    assert!(!hints.1.contains("fn head_cut"));
    assert!(hints.1.contains("pub fn top_counts"));
    assert!(file("crates/toolcap-core/src/hints/tally.rs").is_some());
    assert!(file("crates/toolcap-core/src/hints/tally/tests.rs").is_none());
    assert!(file("crates/toolcap-outline/src/tests/rust.rs").is_none());
}

/// The Python binding's type literals list exactly the Rust names (the Node
/// binding's `index.d.ts` is generated and checked by node/test/types.test.js).
#[test]
fn python_literals_are_the_rust_names() {
    let types = fs::read_to_string(root().join("python/toolcap/_types.py")).unwrap();
    let literal = |name: &str| -> Vec<String> {
        let line = types
            .lines()
            .find(|l| l.starts_with(&format!("{name} = Literal[")))
            .unwrap_or_else(|| panic!("_types.py declares no {name} literal"));
        line.split('"')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    };
    let families: Vec<String> = Family::ALL.iter().map(|f| f.as_str().to_string()).collect();
    assert_eq!(literal("Family"), families);
    let reasons: Vec<String> = Reason::ALL
        .iter()
        .map(|r| {
            serde_json::to_value(r)
                .unwrap()
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(literal("Reason"), reasons);
}
