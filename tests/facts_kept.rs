//! Issue 43 items 4 and 5: grep results, listings, commit lists, dependency
//! trees and failing runs keep the facts an agent uses next. Real material
//! only: `grep -rn` and `find` over the Python standard library, and the real
//! runs kept in fixtures/shell/ (`git log` of this repository, `cargo tree`,
//! `npm ls`, `pip list -v`, strsim's `cargo test` with 8 failures; made by
//! fixtures/shell/generate.sh). Each view is also made streamed in pieces:
//! both must be the same.

use std::path::{Path, PathBuf};
use std::process::Command;

use regex::Regex;
use serde_json::{Value, json};
use toolcap::{Config, MemoryStore, Processed, SaveWhen, ToolCall, ToolResultProcessor};

fn sh(cmd: &str) -> Option<String> {
    let out = Command::new("bash").arg("-c").arg(cmd).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn stdlib() -> Option<PathBuf> {
    sh("python3 -c 'import sysconfig;print(sysconfig.get_paths()[\"stdlib\"])'")
        .map(|s| PathBuf::from(s.trim()))
        .filter(|p| p.join("email").is_dir())
}

/// Lines `a..=b` (1-based) of `text`.
fn lines_of(text: &str, a: usize, b: usize) -> Vec<&str> {
    text.lines().skip(a - 1).take(b + 1 - a).collect()
}

/// The result of `tool` with `args` processed, stored (in memory and
/// streamed: the same view).
fn process(tool: &str, args: &Value, text: &str) -> Processed {
    let p = ToolResultProcessor::new(Config::defaults())
        .with_store(std::sync::Arc::new(MemoryStore::new()), SaveWhen::Cut);
    let mut call = ToolCall::new(tool, args);
    call.id = Some("facts_1");
    let out = p.process_call(&call, text);
    let q = ToolResultProcessor::new(Config::defaults())
        .with_store(std::sync::Arc::new(MemoryStore::new()), SaveWhen::Cut);
    let (streamed, _) = q
        .process_chunks(&call, |sink| {
            for piece in text.as_bytes().chunks(4093) {
                sink(piece);
            }
            Ok(())
        })
        .expect("streamed");
    assert_eq!(
        streamed.text, out.text,
        "streamed and in-memory views differ"
    );
    assert!(out.truncated, "{}", out.text);
    out
}

/// A shell fixture and its call's arguments.
fn shell_fixture(name: &str) -> (String, Value) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/shell");
    let text = std::fs::read_to_string(dir.join(name)).expect("fixture");
    let call: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join(format!("{name}.call.json"))).expect("call"),
    )
    .expect("json");
    (text, call["args"].clone())
}

/// The view without its recovery section, and the section.
fn parts(out: &Processed) -> (&str, &str) {
    out.text
        .split_once("\n--- Recovery Options ---")
        .unwrap_or((&out.text, ""))
}

/// The lines the first suggestion reads, when it reads lines of the stored
/// result.
fn first_read(out: &Processed) -> Option<(usize, usize)> {
    let s = out.suggestions.first()?;
    let get = |k: &str| s.args.get(k).and_then(Value::as_u64).map(|v| v as usize);
    Some((get("start_line")?, get("end_line")?))
}

#[test]
fn a_commit_list_is_a_log_and_reaches_its_middle_and_last_commits() {
    let (text, args) = shell_fixture("git_log.log");
    let out = process("shell", &args, &text);
    let (_, recovery) = parts(&out);
    let hashes: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("commit "))
        .collect();
    assert_eq!(hashes.len(), 60);
    // no patch in it: a log, not a diff
    assert!(recovery.contains("Log: 60 commits"), "{}", out.text);
    assert!(!recovery.contains("Diff:"), "{}", out.text);
    // one row each for commits spread over the list: its middle and its last
    let row = Regex::new(r"(?m)^  ([0-9a-f]{7}) .* \(lines (\d+)-(\d+)\)$").unwrap();
    let mut listed = Vec::new();
    for m in row.captures_iter(recovery) {
        let k = hashes
            .iter()
            .position(|h| h.starts_with(&m[1]))
            .unwrap_or_else(|| panic!("{} is no commit of the log", &m[1]));
        // its lines are that commit's
        let a: usize = m[2].parse().unwrap();
        assert!(lines_of(&text, a, a)[0].starts_with(&format!("commit {}", &m[1])));
        listed.push(k);
    }
    assert!(
        listed.contains(&59),
        "the last commit is not listed:\n{recovery}"
    );
    assert!(
        listed.iter().any(|&k| (20..40).contains(&k)),
        "no commit of the middle is listed: {listed:?}\n{recovery}"
    );
}

#[test]
fn dependency_trees_name_their_top_level_entries() {
    for name in ["cargo_tree.log", "npm_ls.log"] {
        let (text, args) = shell_fixture(name);
        let out = process("shell", &args, &text);
        let (body, recovery) = parts(&out);
        assert!(recovery.contains("Listing: "), "{name}:\n{}", out.text);
        let top: Vec<(usize, &str)> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| ["├", "└", "+--", "`--"].iter().any(|p| l.starts_with(p)))
            .map(|(i, l)| (i + 1, l))
            .collect();
        assert!(top.len() > 10, "{name}");
        // the top-level entries the view leaves out are named, the last one
        // with its lines
        let (n, last) = *top.last().unwrap();
        let entry_of = |l: &str| {
            l.trim_start_matches(['├', '└', '─', '┬', '+', '`', '-', ' '])
                .to_string()
        };
        let entry = entry_of(last);
        assert!(
            body.contains(last) || recovery.contains(&entry),
            "{name}: the last top-level entry {entry:?} (line {n}) is not named:\n{}",
            out.text
        );
        // every one the view leaves out
        let left_out: Vec<&str> = top
            .iter()
            .map(|(_, l)| *l)
            .filter(|l| !body.lines().any(|b| b == *l))
            .collect();
        let named = left_out
            .iter()
            .filter(|l| recovery.contains(&entry_of(l)))
            .count();
        // (as many as the summary's chars hold: 30 of npm's 83)
        assert!(
            left_out.len() >= 10 && named >= left_out.len().min(25),
            "{name}: {named} of the {} entries left out are named:\n{recovery}",
            left_out.len()
        );
    }
    // `pip list`: the packages the view leaves out are named
    let (text, args) = shell_fixture("pip_list.log");
    let out = process("shell", &args, &text);
    let (body, recovery) = parts(&out);
    let left_out: Vec<&str> = text
        .lines()
        .skip(2)
        .filter(|l| !body.lines().any(|b| b == *l))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let named = left_out
        .iter()
        .filter(|p| recovery.contains(&format!(" {p},")))
        .count();
    assert!(
        named >= 10,
        "{named} of the {} packages left out are named:\n{}",
        left_out.len(),
        out.text
    );
}

#[test]
fn a_listing_names_the_files_its_view_leaves_out() {
    let Some(lib) = stdlib() else {
        eprintln!("no Python stdlib here: skipped");
        return;
    };
    let lib = lib.display().to_string();
    let cmd = format!(
        "cd {lib} && find . -path ./site-packages -prune -o -path ./test -prune -o -name '*.py' -print"
    );
    let text = sh(&cmd).expect("find");
    let out = process("shell", &json!({ "command": cmd, "exit_code": 0 }), &text);
    let (body, recovery) = parts(&out);
    // `dir/ (N): a.py, b.py, …`: N is what the directory holds, the names are
    // its files, none of them shown above
    let row = Regex::new(r"(?m)^  (\S+/) \(([\d,]+)\): (.+)$").unwrap();
    let mut named = 0;
    for m in row.captures_iter(recovery) {
        let dir = &m[1];
        let n = text
            .lines()
            .filter(|l| l.strip_prefix(dir).is_some_and(|r| !r.contains('/')))
            .count();
        assert_eq!(
            m[2].replace(',', "").parse::<usize>().unwrap(),
            n,
            "{}",
            &m[0]
        );
        for f in m[3].split(", ").filter(|f| *f != "…") {
            let path = format!("{dir}{f}");
            assert!(text.lines().any(|l| l == path), "{path} is not listed");
            assert!(!body.lines().any(|l| l == path), "{path} is shown already");
            named += 1;
        }
    }
    assert!(named >= 40, "{named} files named:\n{}", out.text);
}

#[test]
fn grep_shows_the_first_match_of_more_files_and_reads_the_top_files_first() {
    let Some(lib) = stdlib() else {
        eprintln!("no Python stdlib here: skipped");
        return;
    };
    let lib = lib.display().to_string();
    let cmd = format!("cd {lib} && grep -rn --include=*.py -e 'raise ' email asyncio json");
    let text = sh(&cmd).expect("grep");
    let out = process("shell", &json!({ "command": cmd }), &text);
    let (body, _) = parts(&out);
    let file = |l: &str| l.split(':').next().unwrap_or("").to_string();
    let shown: std::collections::BTreeSet<String> = body
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with("[... "))
        .map(file)
        .collect();
    assert!(
        shown.len() >= 5,
        "{} files shown:\n{}",
        shown.len(),
        out.text
    );
    // the files with the most matches have one shown
    let mut counts: Vec<(usize, String)> = Vec::new();
    for l in text.lines() {
        let f = file(l);
        match counts.iter_mut().find(|(_, g)| *g == f) {
            Some(c) => c.0 += 1,
            None => counts.push((1, f)),
        }
    }
    counts.sort_by_key(|(n, _)| std::cmp::Reverse(*n));
    for (_, f) in counts.iter().take(4) {
        assert!(shown.contains(f), "{f} has no match shown:\n{}", out.text);
    }
    // the first suggestion reads one file's matches, not the next lines
    let (a, b) = first_read(&out).expect("a read first");
    let read = lines_of(&text, a, b);
    let f = file(read[0]);
    assert!(read.iter().all(|l| file(l) == f), "{a}-{b}");
    assert_eq!(f, counts[0].1, "not the top file:\n{}", out.text);
}

#[test]
fn a_grep_tools_first_suggestion_reads_the_top_files_matches() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/grep");
    let text = std::fs::read_to_string(dir.join("raise_asyncio.txt")).expect("fixture");
    let out = process(
        "grep_content",
        &json!({"pattern": "raise ", "path": "Lib/asyncio"}),
        &text,
    );
    let first = out.suggestions.first().expect("a suggestion");
    assert_eq!(first.tool, "search_tool_output", "{}", out.text);
    assert!(
        first.render().contains("Lib/asyncio/base_events"),
        "{}",
        out.text
    );
}

#[test]
fn a_failing_cargo_test_reads_on_at_failures_not_at_backtraces() {
    let (text, args) = shell_fixture("cargo_test_strsim_backtrace.log");
    let out = process("shell", &args, &text);
    let (body, _) = parts(&out);
    // all 8 failures named, each with its assertion message
    let names =
        Regex::new(r"(?m)^thread '(tests::\w+)' \(\d+\) panicked at (src/lib\.rs:\d+:\d+):$")
            .unwrap();
    assert_eq!(names.captures_iter(body).count(), 8, "{}", out.text);
    assert_eq!(body.matches("assertion `left == right` failed").count(), 8);
    // the first read holds lines that are not a backtrace's frames
    let (a, b) = first_read(&out).expect("a read first");
    let frame =
        Regex::new(r"^(\s+\d+: |\s+at |stack backtrace:|note: .*backtrace|---- .* ----$|\s*$)")
            .unwrap();
    let read = lines_of(&text, a, b);
    assert!(
        read.iter().any(|l| !frame.is_match(l)),
        "lines {a}-{b} are a backtrace:\n{}",
        read.join("\n")
    );
}
