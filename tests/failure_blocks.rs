//! The runner fixtures' failure blocks (listed line by line in
//! `fixtures/shell/EXPECTED.md`, written by `fixtures/shell/expected.py`) are
//! what a shell cut keeps first: for every fixture listed there, the text the
//! model sees is checked line by line against the report's kept spans.
//!
//! What must hold for each fixture: the first failure block is shown whole
//! where it matters (its name, every line of its message with the values, and
//! its first frame in the user's code); every block's name is shown when there
//! are at most [`ALL_NAMES_UP_TO`] of them (a 20-error `tsc` run cannot show 20
//! excerpts in 2,000 characters); the last summary line is shown. The counts
//! per fixture are printed (`cargo test --test tests failure_blocks -- --nocapture`).

use crate::support::colour;
use colour::strip_colour;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;
use toolcap::{Config, Processed, ToolResultProcessor};

/// Up to this many failure blocks, every block's name is shown.
const ALL_NAMES_UP_TO: usize = 5;

#[derive(Debug, Default)]
struct Block {
    name: usize,
    message: Vec<usize>,
    frame: Vec<usize>,
}

#[derive(Debug, Default)]
struct Expected {
    file: String,
    blocks: Vec<Block>,
    summary: Vec<usize>,
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/shell")
}

/// `895-918` or `12` or `198-199, 206-207, 213` as line numbers.
fn numbers(s: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(a), Ok(b)) = (a.trim().parse::<usize>(), b.trim().parse::<usize>()) {
            out.extend(a..=b);
        }
    }
    out
}

/// The leading line numbers of a cell such as `895: \`---- x stdout ----\``.
fn cell_lines(cell: &str) -> Vec<usize> {
    let head = cell.split(':').next().unwrap_or("");
    numbers(head)
}

fn expected() -> Vec<Expected> {
    let md = std::fs::read_to_string(dir().join("EXPECTED.md")).expect("EXPECTED.md");
    let mut out: Vec<Expected> = Vec::new();
    let mut in_summary = false;
    for line in md.lines() {
        if let Some(f) = line.strip_prefix("## ") {
            out.push(Expected {
                file: f.trim().to_string(),
                ..Expected::default()
            });
            in_summary = false;
            continue;
        }
        let Some(cur) = out.last_mut() else { continue };
        if line.starts_with("Summary lines") {
            in_summary = true;
            continue;
        }
        if in_summary && let Some(rest) = line.strip_prefix("- ") {
            cur.summary.extend(cell_lines(rest));
            continue;
        }
        // | # | block | name | message with values | first user frame |
        let cells: Vec<&str> = line.split(" | ").collect();
        if line.starts_with("| ")
            && cells.len() >= 5
            && cells[0][2..].trim().parse::<usize>().is_ok()
        {
            let name = cell_lines(cells[2]).first().copied().unwrap_or(0);
            cur.blocks.push(Block {
                name,
                message: numbers(cells[3]),
                frame: cell_lines(cells[4].trim_end_matches(" |")),
            });
        }
    }
    out
}

fn process(file: &str) -> (String, Processed) {
    let data = dir().join(file);
    let text = String::from_utf8_lossy(&std::fs::read(&data).expect("fixture")).into_owned();
    let call: Value = serde_json::from_str(
        &std::fs::read_to_string(dir().join(format!("{file}.call.json"))).expect("sidecar"),
    )
    .expect("sidecar JSON");
    let p = ToolResultProcessor::new(Config::defaults()).process(
        call["tool"].as_str().expect("tool"),
        &text,
        &call["args"],
    );
    (text, p)
}

/// Original line numbers shown verbatim (in a kept span, not cut).
fn shown(p: &Processed) -> BTreeSet<usize> {
    p.kept
        .iter()
        .filter(|k| !k.partial)
        .flat_map(|k| k.start_line..=k.end_line)
        .collect()
}

#[test]
fn failure_blocks_are_kept_before_progress_lines() {
    let all = expected();
    assert!(all.len() >= 10, "EXPECTED.md lists {} fixtures", all.len());
    let mut problems = Vec::new();
    println!(
        "{:<28} {:>6} {:>6} {:>8} {:>6} {:>8}",
        "fixture", "blocks", "names", "messages", "frames", "summary"
    );
    for e in &all {
        if !dir().join(&e.file).exists() {
            problems.push(format!("{}: listed but missing", e.file));
            continue;
        }
        let (text, p) = process(&e.file);
        assert!(p.truncated, "{} is not cut", e.file);
        let s = shown(&p);
        // every line claimed as shown is in the text (colour stripped)
        let lines: Vec<&str> = text.lines().collect();
        for &n in &s {
            let l = strip_colour(lines[n - 1]);
            assert!(
                p.text.contains(l.trim_end()),
                "{}: line {n} not in the text",
                e.file
            );
        }
        let names = e.blocks.iter().filter(|b| s.contains(&b.name)).count();
        let messages = e
            .blocks
            .iter()
            .filter(|b| b.message.iter().all(|n| s.contains(n)))
            .count();
        let frames = e
            .blocks
            .iter()
            .filter(|b| b.frame.iter().all(|n| s.contains(n)))
            .count();
        let summary = e.summary.iter().filter(|n| s.contains(n)).count();
        println!(
            "{:<28} {:>6} {:>6} {:>8} {:>6} {:>5}/{}",
            e.file,
            e.blocks.len(),
            names,
            messages,
            frames,
            summary,
            e.summary.len()
        );
        if let Some(b) = e.blocks.first() {
            for n in std::iter::once(b.name).chain(b.message.iter().copied()) {
                if !s.contains(&n) {
                    problems.push(format!("{}: first block's line {n} not shown", e.file));
                }
            }
        }
        if e.blocks.len() <= ALL_NAMES_UP_TO && names < e.blocks.len() {
            problems.push(format!(
                "{}: {names} of {} failing names shown",
                e.file,
                e.blocks.len()
            ));
        }
        if let Some(last) = e.summary.iter().max()
            && !s.contains(last)
        {
            problems.push(format!("{}: last summary line {last} not shown", e.file));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// A failure in the middle of a long output (past the head and tail a bounded
/// scan holds) is still shown with its message and values, and the streamed
/// path shows exactly what the in-memory one does.
#[test]
fn a_failure_deep_in_a_long_output_is_kept_when_streamed_too() {
    let fixture = std::fs::read_to_string(dir().join("cargo_test_failure.log")).expect("fixture");
    let (before, after) = fixture
        .split_once("\nfailures:\n")
        .expect("a failures section");
    let mut text = String::from(before);
    text.push('\n');
    for i in 0..4000 {
        text.push_str(&format!("test tests::generated_case_{i:05} ... ok\n"));
    }
    text.push_str("failures:\n");
    text.push_str(after);
    for i in 0..4000 {
        text.push_str(&format!("test more::generated_case_{i:05} ... ok\n"));
    }
    text.push_str("\ntest result: ok. 4000 passed; 0 failed\n");
    assert!(text.len() > 300_000);
    let args = serde_json::json!({"command": "cargo test"});
    let p = ToolResultProcessor::new(Config::defaults());
    let mem = p.process("shell", &text, &args);
    for want in [
        "thread 'tests::newer_compares_versions_numerically' (23378) panicked at src/lib.rs:82:9:",
        "assertion `left == right` failed",
        "  left: \"0.9.0\"",
        " right: \"0.10.0\"",
        "test result: FAILED. 42 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.07s",
        "test result: ok. 4000 passed; 0 failed",
    ] {
        assert!(
            mem.text.lines().any(|l| l == want),
            "{want} missing:\n{}",
            mem.text
        );
    }
    let call = toolcap::ToolCall::new("shell", &args);
    for piece in [1usize, 4096, 65_536] {
        let (streamed, _) = p
            .process_chunks(&call, |sink| {
                text.as_bytes().chunks(piece).for_each(sink);
                Ok(())
            })
            .expect("in memory");
        assert_eq!(streamed.text, mem.text, "pieces of {piece}");
        assert_eq!(streamed.omitted, mem.omitted);
        assert_eq!(streamed.collapsed, mem.collapsed);
    }
}

/// Issue 23, losses 2 and 3, on every runner fixture: the first failure's
/// location (pytest's `tests/x.py:499: AssertionError`, unittest's `File "...",
/// line 701` frame, a Rust backtrace's first frame in the crate) is shown
/// with its message, and the last failure (or compiler error) with its name
/// and message: what a reader of the end of the log is after, as a plain tail
/// would show it.
#[test]
fn the_first_failures_location_and_the_last_failure_are_shown() {
    // the last block's lines a 2,000-char view cannot hold: jest's last
    // failure is 900 chars, its diff's `@@ -9,11 +9,11 @@` line is left out
    let known: &[(&str, usize)] = &[("jest_failure.log", 214)];
    let mut problems = Vec::new();
    for e in &expected() {
        if !dir().join(&e.file).exists() {
            continue;
        }
        let (_, p) = process(&e.file);
        let s = shown(&p);
        if let Some(b) = e.blocks.first() {
            for n in &b.frame {
                if !s.contains(n) {
                    problems.push(format!(
                        "{}: first block's location line {n} not shown",
                        e.file
                    ));
                }
            }
        }
        if let Some(b) = e.blocks.last() {
            for n in std::iter::once(b.name).chain(b.message.iter().copied()) {
                if !s.contains(&n) && !known.contains(&(e.file.as_str(), n)) {
                    problems.push(format!("{}: last block's line {n} not shown", e.file));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}
