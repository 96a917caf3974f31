//! The declared minimum Rust version (`rust-version` in Cargo.toml) is at least what
//! every dependency declares (issue 28, item 18: tree-sitter 0.27 needs 1.90 while
//! 1.85 was promised). This reads the dependencies' own `rust-version` fields
//! through `cargo metadata`; it does not compile with an older toolchain, which
//! this project's machines cannot fetch; clippy's `incompatible_msrv` lint (on in CI
//! through `-D warnings`) checks the standard library items used against it.

use std::process::Command;

fn version(v: &str) -> Vec<u64> {
    let mut parts: Vec<u64> = v.split('.').map(|p| p.parse().unwrap_or(0)).collect();
    parts.resize(3, 0);
    parts
}

#[test]
fn the_declared_rust_version_covers_every_dependency() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let vv = Command::new(&rustc)
        .arg("-vV")
        .output()
        .expect("run rustc -vV");
    let host = String::from_utf8_lossy(&vv.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .expect("rustc -vV names the host");
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--all-features"])
        .args(["--filter-platform", &host])
        .arg("--manifest-path")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let m: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    let resolved: Vec<&str> = m["resolve"]["nodes"]
        .as_array()
        .expect("a resolve graph")
        .iter()
        .filter_map(|n| n["id"].as_str())
        .collect();
    let packages = m["packages"].as_array().expect("packages");
    let ours = packages
        .iter()
        .find(|p| p["name"] == "toolcap")
        .and_then(|p| p["rust_version"].as_str())
        .expect("toolcap declares rust-version");
    assert_eq!(ours, env!("CARGO_PKG_RUST_VERSION"));
    let mut over: Vec<String> = packages
        .iter()
        .filter(|p| p["id"].as_str().is_some_and(|id| resolved.contains(&id)))
        .filter_map(|p| {
            let rv = p["rust_version"].as_str()?;
            (version(rv) > version(ours)).then(|| {
                format!(
                    "{} {} needs Rust {rv}",
                    p["name"].as_str().unwrap_or("?"),
                    p["version"].as_str().unwrap_or("?")
                )
            })
        })
        .collect();
    over.sort();
    assert!(
        over.is_empty(),
        "Cargo.toml declares rust-version = {ours:?}, but: {}; raise rust-version (and README.md's Install line)",
        over.join("; ")
    );
}
