//! docs/architecture.md is held to the code: the crate table has one line per
//! workspace member, each at most 200 chars, naming exactly the workspace crates
//! the member depends on; every path its checklists name exists.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::support::sources::{members as crates, root};

fn page() -> String {
    std::fs::read_to_string(root().join("docs/architecture.md")).expect("docs/architecture.md")
}

/// The text of the section whose heading starts with `title`, up to the next `## `.
fn section<'a>(page: &'a str, title: &str) -> &'a str {
    let start = page
        .find(&format!("\n## {title}"))
        .unwrap_or_else(|| panic!("no section '## {title}' in docs/architecture.md"));
    let rest = &page[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    &rest[..end]
}

/// Every workspace member's manifest: the root, `crates/*`, `python`, `node`.
fn members() -> Vec<PathBuf> {
    let mut dirs = vec![
        root().to_path_buf(),
        root().join("python"),
        root().join("node"),
    ];
    dirs.extend(crates());
    dirs.into_iter().map(|d| d.join("Cargo.toml")).collect()
}

fn short(name: &str) -> String {
    name.strip_prefix("toolcap-").unwrap_or(name).to_string()
}

/// The package name and the workspace crates among its normal dependencies.
fn manifest(path: &Path) -> (String, BTreeSet<String>) {
    let text = std::fs::read_to_string(path).expect("manifest");
    let doc: toml::Table = toml::from_str(&text).expect("manifest parses");
    let name = doc["package"]["name"]
        .as_str()
        .expect("package.name")
        .to_string();
    let deps = doc
        .get("dependencies")
        .and_then(|d| d.as_table())
        .map(|t| {
            t.keys()
                .filter(|k| k.as_str() == "toolcap" || k.starts_with("toolcap-"))
                .map(|k| short(k))
                .collect()
        })
        .unwrap_or_default();
    (name, deps)
}

#[test]
fn every_crate_has_one_true_line_in_the_map() {
    let page = page();
    let table = section(&page, "The crates");
    let rows: Vec<&str> = table.lines().filter(|l| l.starts_with("| `")).collect();
    let mut problems = Vec::new();
    for path in members() {
        let (name, deps) = manifest(&path);
        let cell = format!("| `{name}` |");
        let mine: Vec<&&str> = rows.iter().filter(|r| r.starts_with(&cell)).collect();
        let [row] = mine.as_slice() else {
            problems.push(format!(
                "{name}: {} lines in the crate table, want 1",
                mine.len()
            ));
            continue;
        };
        if row.chars().count() > 200 {
            problems.push(format!(
                "{name}: its line is {} chars, over 200",
                row.chars().count()
            ));
        }
        let uses = row
            .trim_end_matches('|')
            .rsplit('|')
            .next()
            .unwrap_or("")
            .trim();
        let named: BTreeSet<String> = if uses == "none" {
            BTreeSet::new()
        } else {
            uses.split(',').map(|u| u.trim().to_string()).collect()
        };
        if named != deps {
            problems.push(format!(
                "{name}: the map says it uses {named:?}, its Cargo.toml {deps:?}"
            ));
        }
    }
    if rows.len() != members().len() {
        problems.push(format!(
            "{} rows for {} members",
            rows.len(),
            members().len()
        ));
    }
    assert!(
        problems.is_empty(),
        "docs/architecture.md's crate table:\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_path_a_checklist_names_exists() {
    let page = page();
    let mut missing = Vec::new();
    let mut seen = 0;
    for title in [
        "Adding an agent",
        "Adding a tool family",
        "Adding a language",
        "Adding a store backend",
    ] {
        for (i, piece) in section(&page, title).split('`').enumerate() {
            let pathlike = i % 2 == 1
                && !piece.contains([' ', '<', '(', ':', '='])
                && (piece.contains('/')
                    || [".rs", ".toml", ".md", ".py", ".ts"]
                        .iter()
                        .any(|e| piece.ends_with(e)));
            if pathlike {
                seen += 1;
                if !root().join(piece).exists() {
                    missing.push(format!("{title}: {piece}"));
                }
            }
        }
    }
    assert!(
        seen >= 20,
        "the checklists name only {seen} paths: did the page's shape change?"
    );
    assert!(
        missing.is_empty(),
        "paths named in docs/architecture.md that do not exist:\n{}",
        missing.join("\n")
    );
}
