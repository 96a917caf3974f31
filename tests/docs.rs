//! The documentation's console examples are real: every ```console block in
//! README.md and docs/*.md is run and its output compared with what the block shows.
//!
//! A block holds one or more `$ COMMAND` lines, each followed by the output it
//! prints. Commands run in bash from the repository root with the `toolcap` under
//! test first on PATH. In the expected output a line `...` stands for any number
//! of lines (elided for the page); every other line must match exactly, in order.

use std::path::{Path, PathBuf};
use std::process::Command;

struct Example {
    file: PathBuf,
    line: usize,
    command: String,
    expected: Vec<String>,
}

fn examples(file: &Path) -> Vec<Example> {
    let text = std::fs::read_to_string(file).expect("read doc");
    let mut out: Vec<Example> = Vec::new();
    let mut in_block = false;
    for (i, line) in text.lines().enumerate() {
        if !in_block {
            in_block = line.trim_end() == "```console";
            continue;
        }
        if line.trim_end() == "```" {
            in_block = false;
        } else if let Some(cmd) = line.strip_prefix("$ ") {
            out.push(Example {
                file: file.to_path_buf(),
                line: i + 1,
                command: cmd.to_string(),
                expected: Vec::new(),
            });
        } else if let Some(ex) = out.last_mut() {
            ex.expected.push(line.to_string());
        }
    }
    out
}

/// Does `actual` match `expected`, where an expected `...` line stands for any
/// number of actual lines?
fn matches(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e == "..." => (0..=actual.len()).any(|k| matches(rest, &actual[k..])),
        Some((e, rest)) => actual
            .split_first()
            .is_some_and(|(a, more)| a == e && matches(rest, more)),
    }
}

fn doc_files(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![root.join("README.md")];
    if let Ok(dir) = std::fs::read_dir(root.join("docs")) {
        let mut docs: Vec<PathBuf> = dir
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .collect();
        docs.sort();
        files.extend(docs);
    }
    files
}

#[test]
fn console_examples_print_what_the_docs_show() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_toolcap"));
    let bin_dir = bin.parent().expect("bin dir");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut failures = Vec::new();
    let mut ran = 0;
    for file in doc_files(root) {
        for ex in examples(&file) {
            ran += 1;
            let out = Command::new("bash")
                .arg("-c")
                .arg(format!("set -o pipefail; {}", ex.command))
                .current_dir(root)
                .env("PATH", &path)
                .env_remove("TOOLCAP_STORE")
                .env_remove("TOOLCAP_CONFIG")
                .env_remove("TOOLCAP_DIALOG")
                .env_remove("TOOL_RESULT_BYPASS_TOOLS")
                .output()
                .expect("run bash");
            let stdout = String::from_utf8_lossy(&out.stdout);
            let actual: Vec<&str> = stdout.lines().collect();
            // `| head` closes the pipe early: that is not a failure of the example
            let ok_status = out.status.success() || out.status.code() == Some(141);
            if !ok_status || !matches(&ex.expected, &actual) {
                failures.push(format!(
                    "{}:{}: `{}` (exit {:?})\n--- the docs show:\n{}\n--- it printed:\n{}{}",
                    ex.file.strip_prefix(root).unwrap_or(&ex.file).display(),
                    ex.line,
                    ex.command,
                    out.status.code(),
                    ex.expected.join("\n"),
                    stdout,
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(
        ran >= 5,
        "expected console examples in the docs, found {ran}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn elision_matches_any_number_of_lines() {
    let e = |v: &[&str]| v.iter().map(ToString::to_string).collect::<Vec<_>>();
    assert!(matches(&e(&["a", "...", "d"]), &["a", "b", "c", "d"]));
    assert!(matches(&e(&["a", "...", "d"]), &["a", "d"]));
    assert!(!matches(&e(&["a", "...", "d"]), &["a", "b"]));
    assert!(!matches(&e(&["a", "b"]), &["a", "b", "c"]));
}
