//! The repository's Rust sources read as code, for the tests that check the
//! shape of the code itself (families.rs: no family rule outside its row;
//! member_api.rs: no hidden API; store_registration.rs: no backend crate named
//! outside the table): the files, and their code with comments, literals and
//! test items blanked.

use std::fs;
use std::path::{Path, PathBuf};

/// The repository's root.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The workspace's member crates: the folders under `crates/` with a
/// `Cargo.toml`, sorted.
pub fn members() -> Vec<PathBuf> {
    let mut members: Vec<PathBuf> = fs::read_dir(root().join("crates"))
        .expect("crates/ lists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    members.sort();
    members
}

/// Every `.rs` file under `dir` (a crate's `src/`), added to `out`.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The library's code: the `.rs` files under the root crate's `src/` and
/// every member's `crates/NAME/src/` (not their integration tests).
pub fn library_sources() -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    for m in members() {
        rust_files(&m.join("src"), &mut files);
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
pub fn without_tests(text: &str) -> (String, Vec<String>) {
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
pub fn library_code() -> Vec<(PathBuf, String)> {
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
