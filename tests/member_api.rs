//! No crate of the workspace (the members under crates/ and the `toolcap`
//! façade's src/) has `#[doc(hidden)]` API (issue 38): what another crate
//! needs of a member is that member's documented API, what none needs is
//! `pub(crate)`, and a helper only tests share lives in the dev-only
//! `crates/toolcap-testkit`. A hidden item is public all the same, so the
//! crates' boundaries would say nothing of what is API; this check keeps the
//! count at zero.

use regex::Regex;

use crate::support::sources::{library_code, members, root, without_tests};

/// `doc(hidden)` in code (an attribute, `cfg_attr(..., doc(hidden))` too),
/// with any spacing.
fn hidden_re() -> Regex {
    Regex::new(r"\bdoc\s*\(\s*hidden\s*\)").unwrap()
}

/// The lines (1-based) of code that hide an item: `code` is a source as
/// [`without_tests`] leaves it (comments, literals and test items blanked: a
/// test's own items are no API).
fn hidden_lines(code: &str) -> Vec<usize> {
    let re = hidden_re();
    code.lines()
        .enumerate()
        .filter(|(_, l)| re.is_match(l))
        .map(|(i, _)| i + 1)
        .collect()
}

#[test]
fn no_crate_of_the_workspace_hides_api() {
    let members = members();
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
    let files = library_code();
    let mut hidden = Vec::new();
    for (file, code) in &files {
        for line in hidden_lines(code) {
            let rel = file.strip_prefix(root()).unwrap_or(file);
            let text = std::fs::read_to_string(file).expect("a source reads");
            let shown = text.lines().nth(line - 1).unwrap_or("").trim().to_string();
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
    assert_eq!(hidden_lines(&without_tests(source).0), [3, 6, 18]);
}
