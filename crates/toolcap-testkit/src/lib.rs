//! Test helpers shared by the workspace's crates (dev-only, never published):
//! the repository's `fixtures/` read by path, and `grep` run as the recovery
//! section's suggested search runs it.
//!
//! Each member's tests name it as a dev-dependency by path only
//! (`toolcap-testkit = { path = "../toolcap-testkit" }`): cargo drops such a
//! dev-dependency when it packages the member, so the published crates carry
//! neither it nor the fixtures.

#![warn(missing_docs)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The repository's root (this crate sits at `crates/toolcap-testkit`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Where a fixture of the repository's `fixtures/` folder is (`rel` below it,
/// `shell/tsc_errors.log`; a folder too).
pub fn fixture_path(rel: &str) -> PathBuf {
    repo_root().join("fixtures").join(rel)
}

/// The text of a fixture of the repository's `fixtures/` folder, read when a
/// test runs (never compiled in). Leaked, so that a test can hold it as
/// `&'static str` like a string literal.
///
/// # Panics
///
/// When the file cannot be read as UTF-8 text: the message names its path.
pub fn fixture(rel: &str) -> &'static str {
    let path = fixture_path(rel);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("fixture {}: {e}", path.display()));
    Box::leak(text.into_boxed_str())
}

/// The numbers (1-based) of the lines of `text` that `LC_ALL=C grep -n -E
/// PATTERN` prints: what a suggested `grep -n -E 'PATTERN' FILE` finds, for the
/// tests that check it finds what the Rust regex does. `pattern` is passed to
/// `grep` as one argument (no shell).
///
/// Errors: `grep` cannot be started, or exits with status 2 or above (a
/// pattern `grep -E` does not take): the error holds what it wrote to stderr.
/// No line matching (status 1) is no error.
pub fn grep_line_numbers(pattern: &str, text: &str) -> std::io::Result<Vec<usize>> {
    let mut child = Command::new("grep")
        .args(["-n", "-E", "-e", pattern])
        .env("LC_ALL", "C")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    // write from a thread of its own: grep's output may fill its pipe before
    // it has read all of a large text
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| std::io::Error::other("grep's stdin is not piped"))?;
    let input = text.as_bytes().to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let mut out = Vec::new();
    if let Some(mut stdout) = child.stdout.take() {
        stdout.read_to_end(&mut out)?;
    }
    let mut err = Vec::new();
    if let Some(mut stderr) = child.stderr.take() {
        stderr.read_to_end(&mut err)?;
    }
    let status = child.wait()?;
    let written = writer
        .join()
        .map_err(|_| std::io::Error::other("writing grep's input panicked"))?;
    // (grep refusing a pattern exits before it reads its input: that is the
    // error, not the broken pipe the writer then meets)
    if status.code().is_none_or(|c| c >= 2) {
        return Err(std::io::Error::other(format!(
            "grep -n -E {pattern:?} failed ({status}): {}",
            String::from_utf8_lossy(&err).trim()
        )));
    }
    written?;
    Ok(String::from_utf8_lossy(&out)
        .lines()
        .filter_map(|l| l.split(':').next()?.parse().ok())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grep_finds_the_lines_and_refuses_a_bad_pattern() {
        let text = "ok\nerror: x\nfine\nError: y\n";
        assert_eq!(grep_line_numbers("error", text).unwrap(), [2]);
        assert_eq!(grep_line_numbers("[Ee]rror", text).unwrap(), [2, 4]);
        assert_eq!(
            grep_line_numbers("absent", text).unwrap(),
            Vec::<usize>::new()
        );
        // a pattern starting with '-' is a pattern, not an option
        assert_eq!(grep_line_numbers("-x", "a\n-x\n").unwrap(), [2]);
        let e = grep_line_numbers("(", text).unwrap_err().to_string();
        assert!(
            e.contains("grep -n -E \"(\" failed") && e.contains("Unmatched ("),
            "{e}"
        );
        // a large text whose output fills the pipe before the input is written
        let big = "error\n".repeat(200_000);
        assert_eq!(grep_line_numbers("error", &big).unwrap().len(), 200_000);
    }

    #[test]
    fn fixtures_are_found_from_any_member() {
        assert!(fixture_path("shell").is_dir());
        assert!(fixture("shell/tsc_errors.log").contains("TS2322: "));
    }
}
