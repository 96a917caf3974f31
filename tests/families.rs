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

/// Every `.rs` file under `dir`, tests left out (`tests/` folders,
/// `tests.rs`).
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if p.is_dir() {
            if name != "tests" && name != "target" {
                sources(&p, out);
            }
        } else if name.ends_with(".rs") && name != "tests.rs" {
            out.push(p);
        }
    }
}

/// The lines of `text` before its `#[cfg(test)]` module.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .take_while(|(_, l)| l.trim() != "#[cfg(test)]")
        .map(|(i, l)| (i + 1, l))
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
/// a family's variant except the rules issue 38 lists as still to move into
/// the `Strategy` trait (a shell-only and a read_file-only step).
#[test]
fn family_rules_live_in_the_table() {
    let mut files = Vec::new();
    sources(&root().join("src"), &mut files);
    sources(&root().join("crates"), &mut files);
    let names: Vec<String> = Family::ALL.iter().map(|&f| variant(f)).collect();
    let mut table_rows = None;
    let mut elsewhere = Vec::new();
    for p in &files {
        let text = fs::read_to_string(p).unwrap();
        if text.contains("pub enum Family {") {
            continue; // the enum itself
        }
        let mentions: Vec<(usize, &str)> = code_lines(&text)
            .filter(|(_, l)| names.iter().any(|n| l.contains(&format!("Family::{n}"))))
            .collect();
        if text.contains("fn builtin(family: Family) -> &'static dyn Strategy") {
            let rows = mentions.iter().filter(|(_, l)| l.contains(" => &")).count();
            table_rows = Some(rows);
            elsewhere.extend(
                mentions
                    .iter()
                    .filter(|(_, l)| !l.contains(" => &"))
                    .map(|(n, l)| format!("{}:{n}: {}", p.display(), l.trim())),
            );
        } else {
            elsewhere.extend(
                mentions
                    .iter()
                    .map(|(n, l)| format!("{}:{n}: {}", p.display(), l.trim())),
            );
        }
    }
    assert_eq!(
        table_rows,
        Some(Family::ALL.len()),
        "the builtin table has one row per family"
    );
    // binary.rs (3: read_file and shell suggestions for binary data),
    // finish.rs (1), resolve.rs (2) and the custom family's entry in
    // processor/mod.rs (1): issue 38's "family rules outside the trait". The
    // number may only go down.
    assert!(
        elsewhere.len() <= 7,
        "a family's rule outside the table (docs/architecture.md, \"Adding a tool family\"):\n{}",
        elsewhere.join("\n")
    );
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
