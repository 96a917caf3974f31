//! What a release ships: `toolcap --version` names the commit it was built from
//! (crates/toolcap-cli/build.rs), and the crate `cargo package` makes holds what the build needs and
//! none of the repository's test data, fuzz targets or Node/Python packages.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use assert_cmd::Command as Cmd;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root())
        .args(args)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// `toolcap 0.1.0 (b0c83f6 2026-11-28)`: the package version, the abbreviated
/// commit and its date, as git says (a checkout without git says the version only).
#[test]
fn version_names_the_commit() {
    let out = Cmd::cargo_bin("toolcap")
        .unwrap()
        .arg("--version")
        .output()
        .unwrap();
    assert!(out.status.success());
    let shown = String::from_utf8(out.stdout).unwrap();
    let want = match git(&["log", "-1", "--format=%h %cs"]) {
        Some(commit) if !commit.is_empty() => {
            format!("toolcap {} ({commit})\n", env!("CARGO_PKG_VERSION"))
        }
        _ => format!("toolcap {}\n", env!("CARGO_PKG_VERSION")),
    };
    assert_eq!(shown, want);
}

/// What `cargo package --list -p NAME` puts in the package `name`.
fn packaged(name: &str) -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = Command::new(cargo)
        .current_dir(root())
        .args([
            "package",
            "--list",
            "--allow-dirty",
            "--offline",
            "-p",
            name,
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo package --list -p {name} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The files the sources under `dir/src` compile in (`include_str!`) and the
/// outline queries there, relative to `dir`; an error (the path) for a file
/// outside `dir`, which no package of `dir` can carry.
fn needed_by(dir: &Path) -> BTreeSet<Result<String, String>> {
    let base = dir.canonicalize().unwrap();
    let rel = |p: &Path| match p.strip_prefix(&base) {
        Ok(r) => Ok(r.to_string_lossy().replace('\\', "/")),
        Err(_) => Err(p.to_string_lossy().into_owned()),
    };
    let mut needed = BTreeSet::new();
    let mut dirs = vec![dir.join("src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_some_and(|e| e == "scm") {
                needed.insert(rel(&path.canonicalize().unwrap()));
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for piece in text.split("include_str!(\"").skip(1) {
                let Some(end) = piece.find('"') else { continue };
                let target = path.parent().unwrap().join(&piece[..end]);
                if let Ok(target) = target.canonicalize() {
                    needed.insert(rel(&target));
                }
            }
        }
    }
    needed
}

/// Every package of the workspace (the `toolcap` façade and each member under
/// crates/) carries the files its build includes, each from inside its own
/// directory.
#[test]
fn every_package_lists_what_its_build_needs() {
    let mut members = vec![(root().to_path_buf(), "toolcap".to_string())];
    for entry in std::fs::read_dir(root().join("crates")).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        members.push((dir, name));
    }
    let mut all = BTreeSet::new();
    for (dir, name) in &members {
        let needed = needed_by(dir);
        let outside: Vec<&String> = needed.iter().filter_map(|n| n.as_ref().err()).collect();
        assert!(
            outside.is_empty(),
            "{name} includes files outside its directory (a package cannot carry them): {outside:?}"
        );
        let listed = packaged(name);
        let missing: Vec<&String> = needed
            .iter()
            .filter_map(|n| n.as_ref().ok())
            .filter(|n| !listed.contains(*n))
            .collect();
        assert!(
            missing.is_empty(),
            "the package {name} lacks files its build includes: {missing:?}"
        );
        all.extend(
            needed
                .into_iter()
                .filter_map(Result::ok)
                .map(|n| format!("{name}/{n}")),
        );
    }
    for must in [
        "toolcap-config/thresholds.toml",
        "toolcap-cli/integrations/opencode/toolcap.ts",
        "toolcap-cli/integrations/pi/toolcap.ts",
        "toolcap/README.md",
        "toolcap-outline/src/queries/python.scm",
    ] {
        assert!(
            all.contains(must),
            "{must} is not included by the sources any more: update this test"
        );
    }
}

/// The `toolcap` package carries what a build needs and no fixture, test,
/// bench, fuzz target, binding package or workspace member.
#[test]
fn the_crate_lists_what_the_build_needs_and_nothing_else() {
    let listed = packaged("toolcap");
    for must in [
        "Cargo.toml",
        "Cargo.lock",
        "src/main.rs",
        "src/lib.rs",
        "CHANGELOG.md",
    ] {
        assert!(listed.contains(must), "the crate lacks {must}");
    }

    let stray: Vec<&String> = listed
        .iter()
        .filter(|f| {
            [
                "fixtures/",
                "tests/",
                "benches/",
                "fuzz/",
                "node/",
                "python/",
                "scripts/",
                "tools/",
                ".ci/",
                "target/",
                "crates/",
            ]
            .iter()
            .any(|d| f.starts_with(d))
        })
        .collect();
    assert!(
        stray.is_empty(),
        "the crate carries files it does not need: {stray:?}"
    );
}

/// The five places a version is written (the crate, the Python and Node packages'
/// manifests) say the same version: RELEASING.md's first step.
#[test]
fn every_package_has_the_crates_version() {
    let want = env!("CARGO_PKG_VERSION");
    let read = |p: &str| std::fs::read_to_string(root().join(p)).unwrap();
    let first_version = |text: &str, key: &str| -> String {
        text.lines()
            .find_map(|l| {
                let l = l.trim();
                let rest = l.strip_prefix(key)?;
                let v = rest.trim_start().trim_start_matches([':', '=']).trim();
                Some(v.trim_matches(|c| c == '"' || c == ',').to_string())
            })
            .unwrap()
    };
    for toml in [
        "python/Cargo.toml",
        "python/pyproject.toml",
        "node/Cargo.toml",
    ] {
        assert_eq!(first_version(&read(toml), "version "), want, "{toml}");
    }
    assert_eq!(
        first_version(&read("node/package.json"), "\"version\""),
        want,
        "node/package.json"
    );
}
