//! A tool family is its rows (docs/architecture.md, "Adding a tool family"):
//! the `Family` variant, its `[tools.NAME]` row in thresholds.toml, its row in
//! the processor's `builtin` table and its hints. These tests fail when a
//! family is missing one of them, or when a rule about one family shows up
//! anywhere else in the code.

use std::fs;

use toolcap::{Config, Family, Reason};

use crate::support::sources::{library_code, root, without_tests};

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
        if p.ends_with("toolcap-config/src/compiled.rs") {
            continue; // thresholds.toml's rows as data, generated from the file
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
