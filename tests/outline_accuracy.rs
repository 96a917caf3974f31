//! Accuracy of the Python outline against Python's own `ast` module.
//!
//! tests/ast_outline.py applies the outline rule with `ast` (classes,
//! functions, methods; descending into class bodies and module/class-level
//! compound statements, never into function bodies). This test runs it over
//! every .py file directly under the Python standard library directory
//! (sorted, so the sample is deterministic), runs the tree-sitter outline over
//! the same files, compares the sets of (kind, name, line, end_line) and
//! asserts recall and precision of at least 99.5%.
//!
//! Skipped, with a message, when `python3` is not available. Set
//! `TOOLCAP_OUTLINE_CORPUS` to a directory to measure its .py files instead.

#![cfg(feature = "lang-python")]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use toolcap::outline::{Language, outline};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ast_outline.py");
const MIN_RATE: f64 = 0.995;

type Key = (String, String, usize, usize);

fn python3(args: &[&str]) -> Option<std::process::Output> {
    Command::new("python3").args(args).output().ok()
}

fn corpus_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("TOOLCAP_OUTLINE_CORPUS") {
        return Some(PathBuf::from(dir));
    }
    let out = python3(&[
        "-c",
        "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
    ])?;
    if !out.status.success() {
        return None;
    }
    let dir = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!dir.is_empty()).then(|| PathBuf::from(dir))
}

fn python_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "py"))
        .collect();
    files.sort();
    files
}

fn ast_outlines(files: &[PathBuf]) -> serde_json::Map<String, serde_json::Value> {
    let mut cmd = Command::new("python3");
    cmd.arg(SCRIPT).args(files);
    let out = cmd.output().expect("run python3 tests/ast_outline.py");
    assert!(
        out.status.success(),
        "ast_outline.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut json: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("ast_outline.py prints JSON");
    match json.get_mut("files").map(serde_json::Value::take) {
        Some(serde_json::Value::Object(map)) => map,
        _ => panic!("ast_outline.py output has no \"files\" object"),
    }
}

fn expected_keys(symbols: &[serde_json::Value]) -> BTreeSet<Key> {
    symbols
        .iter()
        .map(|s| {
            let str_field = |f: &str| s[f].as_str().expect("string field").to_string();
            let num_field = |f: &str| s[f].as_u64().expect("number field") as usize;
            (
                str_field("kind"),
                str_field("name"),
                num_field("line"),
                num_field("end_line"),
            )
        })
        .collect()
}

#[test]
fn python_outline_matches_ast() {
    match python3(&["--version"]) {
        Some(out) if out.status.success() => {}
        _ => {
            println!("SKIPPED python_outline_matches_ast: python3 is not available");
            return;
        }
    }
    let Some(dir) = corpus_dir() else {
        println!("SKIPPED python_outline_matches_ast: cannot find the Python stdlib directory");
        return;
    };
    let files = python_files(&dir);
    assert!(
        files.len() >= 20,
        "too few .py files under {} ({})",
        dir.display(),
        files.len()
    );
    let expected = ast_outlines(&files);

    let (mut n_files, mut n_lines, mut n_skipped) = (0usize, 0usize, 0usize);
    let (mut n_expected, mut n_actual, mut n_matched) = (0usize, 0usize, 0usize);
    let mut partial_files = Vec::new();
    let mut missing: Vec<(String, Key)> = Vec::new();
    let mut extra: Vec<(String, Key)> = Vec::new();
    let mut ts_time = std::time::Duration::ZERO;

    for file in &files {
        let key = file.to_string_lossy().into_owned();
        let Some(serde_json::Value::Array(symbols)) = expected.get(&key) else {
            n_skipped += 1; // ast could not parse it (or it is not UTF-8)
            continue;
        };
        let Ok(source) = std::fs::read_to_string(file) else {
            n_skipped += 1;
            continue;
        };
        let started = Instant::now();
        let got = outline(&source, Language::Python).expect("outline");
        ts_time += started.elapsed();
        if got.partial {
            partial_files.push(key.clone());
        }
        let want = expected_keys(symbols);
        let have: BTreeSet<Key> = got
            .symbols
            .iter()
            .map(|s| {
                (
                    s.kind.as_str().to_string(),
                    s.name.clone(),
                    s.line,
                    s.end_line,
                )
            })
            .collect();
        n_files += 1;
        n_lines += got.lines;
        n_expected += want.len();
        n_actual += have.len();
        n_matched += want.intersection(&have).count();
        let short = file
            .file_name()
            .map_or(key.clone(), |n| n.to_string_lossy().into_owned());
        missing.extend(want.difference(&have).map(|k| (short.clone(), k.clone())));
        extra.extend(have.difference(&want).map(|k| (short.clone(), k.clone())));
    }

    let recall = n_matched as f64 / n_expected.max(1) as f64;
    let precision = n_matched as f64 / n_actual.max(1) as f64;
    println!(
        "outline accuracy on {}: {n_files} files ({n_skipped} skipped), {n_lines} lines, \
         {n_expected} ast symbols, {n_actual} outline symbols, {n_matched} matched",
        dir.display()
    );
    println!(
        "recall {:.3}%  precision {:.3}%  (tree-sitter time {:.2?})",
        recall * 100.0,
        precision * 100.0,
        ts_time
    );
    if !partial_files.is_empty() {
        println!(
            "{} files with syntax errors per tree-sitter: {:?}",
            partial_files.len(),
            partial_files.iter().take(10).collect::<Vec<_>>()
        );
    }
    for (file, (kind, name, line, end)) in missing.iter().take(15) {
        println!("  missing (in ast only):   {file}:{line}-{end} {kind} {name}");
    }
    for (file, (kind, name, line, end)) in extra.iter().take(15) {
        println!("  extra (in outline only): {file}:{line}-{end} {kind} {name}");
    }

    assert!(n_files >= 20, "too few files compared ({n_files})");
    assert!(
        recall >= MIN_RATE,
        "recall {:.3}% < {}%",
        recall * 100.0,
        MIN_RATE * 100.0
    );
    assert!(
        precision >= MIN_RATE,
        "precision {:.3}% < {}%",
        precision * 100.0,
        MIN_RATE * 100.0
    );
}
