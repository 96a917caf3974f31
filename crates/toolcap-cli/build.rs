// `toolcap --version` names the commit it was built from: `toolcap 0.1.0 (b0c83f6
// 2026-11-28)`. Sets `TOOLCAP_VERSION` for the command line (src/lib.rs).
//
// Where the commit comes from, first found wins:
// 1. `$TOOLCAP_BUILD_COMMIT` (`SHA [DATE]`, for a build from an exported tree);
// 2. `.cargo_vcs_info.json`, which `cargo package` writes into a crate tarball
//    (the hash only: a tarball has no history to date it from);
// 3. git, when the sources are a git checkout (`git log -1`: abbreviated hash and
//    commit date; no git on PATH is not an error).
//
// Without any of them the version is the bare package version. Cheap: git runs
// only when HEAD or the branch it names moves (the rerun-if-changed lines), never
// on a plain rebuild. The `toolcap` binary and the Python wheel's command are
// this crate, so both name the same commit.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=TOOLCAP_BUILD_COMMIT");
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    // a crate tarball says which commit it was packed from, even when it is
    // unpacked inside some other git checkout (vendored)
    let packed = dir.join(".cargo_vcs_info.json").exists();
    let commit = from_env().or_else(|| {
        if packed {
            from_vcs_info(&dir)
        } else {
            from_git(&dir)
        }
    });
    let long = match commit {
        Some(c) => format!("{version} ({c})"),
        None => version,
    };
    println!("cargo:rustc-env=TOOLCAP_VERSION={long}");
}

fn from_env() -> Option<String> {
    let v = std::env::var("TOOLCAP_BUILD_COMMIT").ok()?;
    let v = v.trim();
    (!v.is_empty()).then(|| v.to_string())
}

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?;
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

fn from_git(dir: &Path) -> Option<String> {
    // rebuild when HEAD moves: HEAD itself (a checkout), the branch it names (a
    // commit) and packed-refs (a gc)
    let mut watch = vec![git(dir, &["rev-parse", "--git-path", "HEAD"])?];
    if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        watch.extend(git(dir, &["rev-parse", "--git-path", &branch]));
    }
    watch.extend(git(dir, &["rev-parse", "--git-path", "packed-refs"]));
    for w in watch {
        let p = dir.join(&w); // (an absolute path stays as it is)
        // a missing file would rerun this script on every build
        if p.exists() {
            println!("cargo:rerun-if-changed={}", p.display());
        }
    }
    git(dir, &["log", "-1", "--format=%h %cs"])
}

fn from_vcs_info(dir: &Path) -> Option<String> {
    let info = dir.join(".cargo_vcs_info.json");
    println!("cargo:rerun-if-changed={}", info.display());
    let text = std::fs::read_to_string(&info).ok()?;
    // {"git": {"sha1": "<40 hex>"}, "path_in_vcs": ""}: no JSON parser in a build
    // script for one field
    let at = text.find("\"sha1\"")?;
    let rest = text.get(at + 6..)?;
    let start = rest.find('"')? + 1;
    let sha: String = rest
        .get(start..)?
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    (sha.len() >= 7).then(|| sha.chars().take(7).collect())
}
