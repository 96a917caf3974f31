//! No crate of the workspace (the members under crates/ and the `toolcap`
//! façade's src/) has `#[doc(hidden)]` API (issue 38): what another crate
//! needs of a member is that member's documented API, what none needs is
//! `pub(crate)`, and a helper only tests share lives in the dev-only
//! `crates/toolcap-testkit`. A hidden item is public all the same, so the
//! crates' boundaries would say nothing of what is API; this check keeps the
//! count at zero.

use std::path::{Path, PathBuf};

use regex::Regex;

/// `doc(hidden)` in code (an attribute, `cfg_attr(..., doc(hidden))` too),
/// with any spacing.
fn hidden_re() -> Regex {
    Regex::new(r"\bdoc\s*\(\s*hidden\s*\)").unwrap()
}

/// The lines (1-based) of a Rust source that hide an item: comments aside,
/// and the `#[cfg(test)]` modules (a test's own items are no API).
fn hidden_lines(source: &str) -> Vec<usize> {
    let re = hidden_re();
    let lines: Vec<&str> = source.lines().collect();
    let code = |l: &str| l.split("//").next().unwrap_or("").to_string();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let next = lines.get(i + 1).map_or(String::new(), |l| code(l));
        if code(line).trim() == "#[cfg(test)]"
            && next.trim_start().starts_with("mod ")
            && next.trim_end().ends_with('{')
        {
            // an inline test module ends at the `}` of its own indentation
            // (rustfmt's layout)
            let close = format!("{}}}", &line[..line.len() - line.trim_start().len()]);
            i += 2;
            while i < lines.len() && lines[i].trim_end() != close {
                i += 1;
            }
        } else if re.is_match(&code(line)) {
            out.push(i + 1);
        }
        i += 1;
    }
    out
}

/// The `.rs` files under `dir`, but for test files (`tests.rs`, `*_tests.rs`,
/// a `tests/` folder).
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "tests" {
                sources(&path, out);
            }
        } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_crate_of_the_workspace_hides_api() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut members: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("crates/ lists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    members.sort();
    let names: Vec<String> = members
        .iter()
        .filter_map(|p| Some(p.file_name()?.to_str()?.to_string()))
        .collect();
    // the pipeline's floors are all here (the check covers what it claims to)
    for want in [
        "toolcap-text",
        "toolcap-config",
        "toolcap-render",
        "toolcap-cut",
        "toolcap-outline",
        "toolcap-store",
        "toolcap-store-sqlite",
        "toolcap-store-postgres",
        "toolcap-stores",
        "toolcap-core",
    ] {
        assert!(
            names.iter().any(|n| n == want),
            "crates/{want} is missing: {names:?}"
        );
    }
    let mut files = Vec::new();
    for krate in members.iter().map(PathBuf::as_path).chain([root]) {
        sources(&krate.join("src"), &mut files);
    }
    files.sort();
    let mut hidden = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a source reads");
        for line in hidden_lines(&text) {
            let rel = file.strip_prefix(root).unwrap_or(file);
            let shown = text.lines().nth(line - 1).unwrap_or("").trim();
            hidden.push(format!("{}:{line}: {shown}", rel.display()));
        }
    }
    assert!(
        files.len() > 100,
        "only {} sources found under crates/*/src and src/",
        files.len()
    );
    assert!(
        hidden.is_empty(),
        "#[doc(hidden)] in a crate of the workspace: document the item and drop the attribute when \
         another crate uses it, make it pub(crate) when none does, or move a helper only \
         tests use into crates/toolcap-testkit:\n{}",
        hidden.join("\n")
    );
}

/// The scan finds the attribute in its forms and leaves comments and test
/// modules alone (so the check above can fail, and fails only on API).
#[test]
fn the_scan_finds_hidden_items_and_only_those() {
    let source = "\
//! A crate.
/// Not API.
#[doc(hidden)]
pub fn a() {}
// #[doc(hidden)] in a comment is no attribute
#[cfg_attr(feature = \"x\", doc( hidden ))]
pub mod b;
pub struct C; // doc(hidden) said in passing
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests {
    #[doc(hidden)]
    pub fn helper() {}
    mod inner {
    }
}
#![doc(hidden)]
";
    assert_eq!(hidden_lines(source), [3, 6, 18]);
}
