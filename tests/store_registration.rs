//! A store backend is its crate and one registration (issue 38): each
//! `crates/toolcap-store-NAME` has one row in the table of backends
//! (`crates/toolcap-stores/src/location.rs`) and one optional dependency and
//! feature in `crates/toolcap-stores/Cargo.toml`, and no other crate, binding or
//! the façade names a backend crate: they open stores through `toolcap-stores`.
//! Read from the repository's own sources and manifests.

use std::path::{Path, PathBuf};

use crate::support::sources::{members, root, rust_files};

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The backend crates: `crates/toolcap-store-NAME`, as (NAME, directory).
fn backends() -> Vec<(String, PathBuf)> {
    members()
        .into_iter()
        .filter_map(|dir| {
            let name = dir
                .file_name()?
                .to_str()?
                .strip_prefix("toolcap-store-")?
                .to_string();
            Some((name, dir))
        })
        .collect()
}

/// The lines of a Rust source without their comments (doc comments included).
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split("//").next().unwrap_or("")))
}

#[test]
fn every_backend_crate_has_one_row_and_one_feature_in_the_table() {
    let found = backends();
    let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["postgres", "sqlite"], "the backend crates");
    let table = read(&root().join("crates/toolcap-stores/src/location.rs"));
    let stores: toml::Value =
        toml::from_str(&read(&root().join("crates/toolcap-stores/Cargo.toml")))
            .expect("crates/toolcap-stores/Cargo.toml parses");
    let facade: toml::Value =
        toml::from_str(&read(&root().join("Cargo.toml"))).expect("Cargo.toml parses");
    for (name, dir) in &found {
        let krate = format!("toolcap_store_{name}");
        // one row naming its opener, under the backend's name
        let opener = format!("Some({krate}::open_at)");
        let rows = code_lines(&table)
            .filter(|(_, l)| l.contains(&opener))
            .count();
        assert_eq!(rows, 1, "{opener} in the table of backends");
        assert!(
            table.contains(&format!("name: \"{name}\"")),
            "the row of {name} is named {name:?}"
        );
        // the opener the row names is the crate's own, public
        let lib = read(&dir.join("src/lib.rs"));
        assert!(
            lib.contains("pub fn open_at("),
            "{}: pub fn open_at",
            dir.display()
        );
        // one optional dependency, one feature turning it on (read as TOML: any
        // spelling of the same entries passes)
        let krate_dep = format!("toolcap-store-{name}");
        let optional = stores["dependencies"]
            .get(&krate_dep)
            .and_then(|d| d.get("optional"))
            .and_then(toml::Value::as_bool);
        assert_eq!(
            optional,
            Some(true),
            "toolcap-stores: {krate_dep} is not an optional dependency"
        );
        let turns_on = |features: &toml::Value, feature: &str, what: &str| {
            features
                .get(feature)
                .and_then(toml::Value::as_array)
                .is_some_and(|a| a.iter().any(|v| v.as_str() == Some(what)))
        };
        assert!(
            turns_on(&stores["features"], name, &format!("dep:{krate_dep}")),
            "toolcap-stores: feature `{name}` does not turn on dep:{krate_dep}"
        );
        // its feature reaches the façade
        assert!(
            turns_on(&facade["features"], name, &format!("toolcap-stores/{name}")),
            "the root's `{name}` feature does not turn on toolcap-stores/{name}"
        );
    }
}

#[test]
fn no_crate_but_the_table_names_a_backend_crate() {
    let backends = backends();
    let mut files = Vec::new();
    for dir in members() {
        let name = dir.file_name().unwrap_or_default().to_string_lossy();
        if name == "toolcap-stores" || name.starts_with("toolcap-store-") {
            continue;
        }
        rust_files(&dir.join("src"), &mut files);
    }
    for other in ["src", "python/src", "node/src"] {
        rust_files(&root().join(other), &mut files);
    }
    assert!(files.len() > 100, "only {} sources read", files.len());
    let mut named = Vec::new();
    for file in &files {
        let text = read(file);
        for (n, line) in code_lines(&text) {
            for (name, _) in &backends {
                if line.contains(&format!("toolcap_store_{name}")) {
                    let rel = file.strip_prefix(root()).unwrap_or(file);
                    named.push(format!("{}:{n}: {}", rel.display(), line.trim()));
                }
            }
        }
    }
    // and no manifest but the table's depends on one
    let mut manifests = vec![
        root().join("python/Cargo.toml"),
        root().join("node/Cargo.toml"),
    ];
    for dir in members() {
        let name = dir.file_name().unwrap_or_default().to_string_lossy();
        if name != "toolcap-stores" && !name.starts_with("toolcap-store-") {
            manifests.push(dir.join("Cargo.toml"));
        }
    }
    for manifest in &manifests {
        let Ok(text) = std::fs::read_to_string(manifest) else {
            continue;
        };
        for (name, _) in &backends {
            if text.contains(&format!("toolcap-store-{name}")) {
                named.push(format!("{}: toolcap-store-{name}", manifest.display()));
            }
        }
    }
    let root_manifest = read(&root().join("Cargo.toml"));
    let deps = root_manifest
        .split("\n[dependencies]")
        .nth(1)
        .and_then(|s| s.split("\n[").next())
        .expect("the root's [dependencies]");
    for (name, _) in &backends {
        if deps.contains(&format!("toolcap-store-{name}")) {
            named.push(format!("Cargo.toml [dependencies]: toolcap-store-{name}"));
        }
    }
    assert!(
        named.is_empty(),
        "a backend crate named outside the table of backends (open stores through \
         toolcap_stores: Location, open, open_existing, or its re-exports):\n{}",
        named.join("\n")
    );
}
