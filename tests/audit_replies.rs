//! Issue 44, items 16-21: suggestions, replies and numbers that must be what
//! they say, on real files and real command output: the save-once file, a
//! collapsed run's reads, a `symbol=` that names one definition, replies
//! within their budget (as printed, CRLF counted), grep counts per file, and
//! kept plus omitted chars adding up to the original.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use serde_json::{Value, json};
use toolcap::store::tools::{Dispatch, RecoveryTools};
use toolcap::{Config, MemoryStore, Processed, SaveWhen, ToolCall, ToolResultProcessor};

use crate::support::sandbox::sandbox;

const STDLIB: &str = "/root/.pyenv/versions/3.11.7/lib/python3.11";

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

fn process(tool: &str, args: Value, text: &str, store: Option<&Arc<MemoryStore>>) -> Processed {
    let mut p = ToolResultProcessor::new(Config::defaults());
    if let Some(s) = store {
        p = p.with_store(s.clone(), SaveWhen::Cut);
    }
    let mut call = ToolCall::new(tool, &args);
    call.id = Some("call_a");
    p.process_call(&call, text)
}

fn reply_text(d: Dispatch) -> String {
    match d {
        Dispatch::Handled(r) => r.text,
        Dispatch::NotMine => panic!("not a recovery tool"),
    }
}

/// Item 16: without a store, the save-once command writes a new file of the
/// user's own on every run (mktemp: mode 0600, never an existing name or a
/// link), prints its name, and holds the whole output; two runs never share
/// a file, and a link planted under the old fixed name is not followed.
#[cfg(unix)]
#[test]
fn the_save_once_file_is_new_and_private_on_every_run() {
    use std::os::unix::fs::PermissionsExt;
    let text: String = (1..=3000).map(|n| format!("line {n}\n")).collect();
    let out = process(
        "shell",
        json!({"command": "seq 1 3000 | sed 's/^/line /'", "exit_code": 0}),
        &text,
        None,
    );
    let save = out
        .suggestions
        .iter()
        .find(|s| s.purpose.contains("saving all output"))
        .expect("a save-once suggestion");
    let cmd = save.args["command"]
        .as_str()
        .expect("a command")
        .to_string();
    assert!(!cmd.contains("/tmp/toolcap-output.log"), "{cmd}");
    let tmp = tempfile::tempdir().unwrap();
    let victim = tmp.path().join("victim");
    std::fs::write(&victim, "keep me\n").unwrap();
    std::os::unix::fs::symlink(&victim, tmp.path().join("toolcap-output.log")).unwrap();
    let run = || {
        let o = Command::new("bash")
            .arg("-c")
            .arg(&cmd)
            .env("TMPDIR", tmp.path())
            .current_dir(tmp.path())
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&o.stdout).trim().to_string();
        // `3000 /path/to/file`
        let (n, file) = said.split_once(' ').expect("wc -l prints lines and name");
        assert_eq!(n, "3000", "{said}");
        PathBuf::from(file)
    };
    let (a, b) = (run(), run());
    assert_ne!(a, b, "two runs share one file");
    for f in [&a, &b] {
        assert!(f.starts_with(tmp.path()), "{} not in TMPDIR", f.display());
        assert_eq!(std::fs::read_to_string(f).unwrap(), text);
        let mode = std::fs::symlink_metadata(f).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{}", f.display());
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me\n");
    assert!(
        save.purpose.contains("the name wc -l prints"),
        "{}",
        save.purpose
    );
}

/// The line ranges a suggestion reads (`sed -n 'A,Bp'`, `tail -n N`,
/// `start_line`/`end_line`), given the output's lines.
fn read_ranges(out: &Processed, total: usize) -> Vec<(usize, usize)> {
    let sed = regex::Regex::new(r"sed -n '(\d+),(\d+)p'").unwrap();
    let tail = regex::Regex::new(r"tail -n (\d+)").unwrap();
    let mut v = Vec::new();
    for s in &out.suggestions {
        let cmd = s.args.get("command").and_then(Value::as_str).unwrap_or("");
        if let Some(m) = sed.captures(cmd) {
            v.push((m[1].parse().unwrap(), m[2].parse().unwrap()));
        } else if let Some(m) = tail.captures(cmd) {
            let n: usize = m[1].parse().unwrap();
            v.push((total + 1 - n, total));
        } else if let (Some(a), Some(b)) = (s.args.get("start_line"), s.args.get("end_line")) {
            v.push((a.as_u64().unwrap() as usize, b.as_u64().unwrap() as usize));
        }
    }
    v
}

/// Item 17: `seq 1 3000 | sed 's/^/line /'` cut as a collapsed run of 2,804
/// lines and the last 196 shown: the view, the marker and the recovery
/// section agree with the original, and no read offered repeats shown lines
/// (it was "the last 199 lines (lines 2802-3000)", 196 of them shown).
#[test]
fn a_collapsed_run_is_read_by_its_own_lines() {
    let text: String = (1..=3000).map(|n| format!("line {n}\n")).collect();
    let args = json!({"command": "seq 1 3000 | sed 's/^/line /'; exit 4", "exit_code": 4});
    let said = regex::Regex::new(r"omitted lines (\d+)-(\d+) of 3000, ([\d,]+) chars").unwrap();
    let store = Arc::new(MemoryStore::new());
    for stored in [None, Some(&store)] {
        let out = process("shell", args.clone(), &text, stored);
        assert!(out.truncated);
        assert_eq!(out.collapsed.len(), 1);
        let c = &out.collapsed[0];
        let (a, b) = (c.start_line, c.end_line);
        assert_eq!(
            c.text,
            format!("line *  (×{}, lines {a}-{b})", b - a + 1).replace("×2804", "×2,804")
        );
        // every line is kept or omitted, once
        let kept: Vec<(usize, usize)> = out
            .kept
            .iter()
            .map(|k| (k.start_line, k.end_line))
            .collect();
        assert_eq!(kept, [(b + 1, 3000)], "stored: {}", stored.is_some());
        assert_eq!(out.omitted.lines, b);
        let ranges = read_ranges(&out, 3000);
        assert!(!ranges.is_empty());
        for (x, y) in &ranges {
            assert!(
                *y <= b,
                "stored: {}: lines {x}-{y} read again lines {}-{y} shown\n{}",
                stored.is_some(),
                b + 1,
                out.text
            );
        }
        // the reads say their lines and chars as the original has them
        for s in &out.suggestions {
            if let Some(m) = said.captures(&s.purpose) {
                let (x, y): (usize, usize) = (m[1].parse().unwrap(), m[2].parse().unwrap());
                let chars: usize = m[3].replace(',', "").parse().unwrap();
                let want: usize = (x..=y).map(|n| format!("line {n}\n").len()).sum();
                assert_eq!(chars, want, "{}", s.purpose);
            }
        }
    }
}

/// A JDK's `java/util/concurrent/ConcurrentHashMap.java` (its src.zip), if
/// one is installed.
fn concurrent_hash_map() -> Option<String> {
    let zips = [
        "/usr/lib/jvm/temurin-25-jdk-amd64/lib/src.zip",
        "/usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip",
        "/usr/lib/jvm/default-java/lib/src.zip",
    ];
    let zip = zips.iter().find(|z| Path::new(z).exists())?;
    let o = Command::new("python3")
        .arg("-c")
        .arg("import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read('java.base/java/util/concurrent/ConcurrentHashMap.java'))")
        .arg(zip)
        .output()
        .ok()?;
    o.status
        .success()
        .then(|| String::from_utf8(o.stdout).ok())?
}

/// The `symbol=` suggestion of a stored file and what asking for it returns.
fn suggested_symbol(path: &str, text: &str) -> (String, String, String) {
    let store = Arc::new(MemoryStore::new());
    let out = process("read_file", json!({ "path": path }), text, Some(&store));
    let s = out
        .suggestions
        .iter()
        .find(|s| s.args.contains_key("symbol"))
        .unwrap_or_else(|| panic!("{path}: no symbol suggestion\n{}", out.text));
    let name = s.args["symbol"].as_str().unwrap().to_string();
    let tools = RecoveryTools::for_default_dialog(store);
    let reply = reply_text(tools.dispatch(
        "get_continuation",
        &json!({"tool_call_id": "call_a", "symbol": name}),
    ));
    (name, s.purpose.clone(), reply)
}

/// Item 18: a suggested symbol returns the definition its comment names, in
/// Java (a class and its constructors) and C++ (a class, its constructors and
/// a deduction guide); the constructors stay reachable as `Class.Class`.
#[test]
fn a_suggested_symbol_returns_the_definition_it_names() {
    let mut checked = 0;
    if let Some(text) = concurrent_hash_map() {
        let (name, purpose, reply) = suggested_symbol("ConcurrentHashMap.java", &text);
        assert_eq!(name, "ConcurrentHashMap");
        assert!(
            purpose.starts_with("class ConcurrentHashMap 266-6402"),
            "{purpose}"
        );
        assert!(
            reply.starts_with("class ConcurrentHashMap (lines 266-6402 of 6,402"),
            "{reply}"
        );
        assert!(reply.contains("ask for one with symbol=\"ConcurrentHashMap.NAME\""));
        checked += 1;
    } else {
        eprintln!("no JDK src.zip here: the Java case is not checked");
    }
    let cpp = std::fs::read_dir("/usr/include/c++").ok().and_then(|d| {
        d.flatten()
            .map(|e| e.path().join("bits/regex.h"))
            .find(|p| p.exists())
    });
    match cpp {
        Some(p) => {
            let text = std::fs::read_to_string(&p).unwrap();
            let store = Arc::new(MemoryStore::new());
            process(
                "read_file",
                json!({"path": "regex.hpp"}),
                &text,
                Some(&store),
            );
            let tools = RecoveryTools::for_default_dialog(store);
            let ask = |s: &str| {
                reply_text(tools.dispatch(
                    "get_continuation",
                    &json!({"tool_call_id": "call_a", "symbol": s}),
                ))
            };
            let class = ask("basic_regex");
            assert!(
                class.starts_with("class std.basic_regex (lines "),
                "{class}"
            );
            let ctors = ask("basic_regex.basic_regex");
            assert!(
                ctors.contains("definitions are named \"basic_regex.basic_regex\": method basic_regex.basic_regex"),
                "{ctors}"
            );
            checked += 1;
        }
        None => eprintln!("no libstdc++ headers here: the C++ case is not checked"),
    }
    // Python: a class's name
    let text = std::fs::read_to_string(fixture("read_file/typing.py")).unwrap();
    let (name, purpose, reply) = suggested_symbol("typing.py", &text);
    let what = purpose.split(" (its members").next().unwrap();
    // `class X 12-34`, the reply `class X (lines 12-34 of ...`
    let (kind_name, span) = what.rsplit_once(' ').unwrap();
    assert!(
        reply.starts_with(&format!("{kind_name} (lines {span} of ")),
        "{name}: {purpose}\n{reply}"
    );
    assert!(checked > 0 || cfg!(not(target_os = "linux")));
}

/// Item 19: replies within their budget, counted as the view counts: a
/// member listing of a large class, a `symbol=` reply under a harness's
/// lower reply budget, and a CRLF file's definition with its `\r`s counted.
#[test]
fn symbol_replies_hold_their_budget_and_count_crlf() {
    // large classes: stdlib and, where installed, pyparsing's ParserElement
    let mut cases = vec![(format!("{STDLIB}/_pydecimal.py"), "Decimal")];
    let pyparsing = format!("{STDLIB}/site-packages/pyparsing/core.py");
    if Path::new(&pyparsing).exists() {
        cases.push((pyparsing, "ParserElement"));
    }
    for (path, class) in &cases {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let store = Arc::new(MemoryStore::new());
        process("read_file", json!({ "path": path }), &text, Some(&store));
        for budget in [3500, 1500] {
            let tools = RecoveryTools::for_default_dialog(store.clone()).reply_chars(budget);
            let reply = reply_text(tools.dispatch(
                "get_continuation",
                &json!({"tool_call_id": "call_a", "symbol": class}),
            ));
            let n = reply.chars().count();
            assert!(n <= budget, "{class} at {budget}: {n} chars\n{reply}");
            assert!(reply.contains("more than one reply holds"), "{reply}");
        }
    }
    // a CRLF file: the stated chars are the lines' chars with their `\r\n`
    let lf = std::fs::read_to_string(format!("{STDLIB}/fileinput.py")).unwrap();
    let crlf = lf.replace('\n', "\r\n");
    let store = Arc::new(MemoryStore::new());
    process(
        "read_file",
        json!({"path": "fileinput.py"}),
        &crlf,
        Some(&store),
    );
    let tools = RecoveryTools::for_default_dialog(store);
    let reply = reply_text(tools.dispatch(
        "get_continuation",
        &json!({"tool_call_id": "call_a", "symbol": "FileInput.readline"}),
    ));
    let head = regex::Regex::new(
        r"^method FileInput\.readline \(lines (\d+)-(\d+) of [\d,]+, ([\d,]+) chars\):\n",
    )
    .unwrap();
    let m = head.captures(&reply).unwrap_or_else(|| panic!("{reply}"));
    let (a, b): (usize, usize) = (m[1].parse().unwrap(), m[2].parse().unwrap());
    let stated: usize = m[3].replace(',', "").parse().unwrap();
    let lines: Vec<&str> = crlf.split_inclusive('\n').collect();
    let want: usize = lines[a - 1..b].iter().map(|l| l.chars().count()).sum();
    assert_eq!(stated, want);
    assert_eq!(&reply[m[0].len()..], lines[a - 1..b].concat());
}

/// Item 19: the CLI's replies end with the command that reads on (the
/// program, the store and the pattern repeated): the reply as printed holds
/// at most 3,500 chars.
#[test]
fn cli_replies_count_their_closing_command() {
    let e = sandbox();
    let db = e.proj.join("a-store-directory-with-a-long-name/results.db");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    let typing = fixture("read_file/typing.py");
    let o = e
        .toolcap()
        .args([
            "process",
            "--tool",
            "read_file",
            "--arg",
            "path=typing.py",
            "--store",
        ])
        .arg(&db)
        .args(["--id", "call_typing"])
        .arg(&typing)
        .output()
        .unwrap();
    assert!(o.status.success());
    for pattern in ["def ", "^    def [a-z_]+\\(self"] {
        let o = e
            .toolcap()
            .args(["search", "call_typing", pattern, "--store"])
            .arg(&db)
            .output()
            .unwrap();
        let out = String::from_utf8(o.stdout).unwrap();
        assert!(out.contains("more matching lines. Run `"), "{out}");
        let n = out.trim_end_matches('\n').chars().count();
        assert!(n <= 3500, "{pattern}: {n} chars printed\n{out}");
    }
}

/// Item 20: counts per file (a grep tool's count mode, `grep -c`) over the
/// stdlib are read as counts: their sum, the files with a match, the top
/// file's count, and a narrowing that prints that many lines.
#[test]
fn grep_counts_are_read_as_counts() {
    let o = Command::new("grep")
        .args(["-rc", "--include=*.py", "raise", "."])
        .current_dir(STDLIB)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let counts: Vec<(&str, usize)> = text
        .lines()
        .filter_map(|l| {
            let (f, n) = l.rsplit_once(':')?;
            Some((f, n.parse().ok()?))
        })
        .collect();
    let sum: usize = counts.iter().map(|c| c.1).sum();
    let files = counts.iter().filter(|c| c.1 > 0).count();
    let top = counts.iter().max_by_key(|c| c.1).unwrap();
    let thousands = |n: usize| {
        let s = n.to_string();
        let mut out = String::new();
        for (i, ch) in s.chars().enumerate() {
            if i > 0 && (s.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(ch);
        }
        out
    };
    for args in [
        json!({"pattern": "raise", "path": ".", "output_mode": "count"}),
        json!({"pattern": "raise", "path": "."}),
    ] {
        let out = process("Grep", args, &text, None);
        assert!(out.truncated);
        let want = format!(
            "{} matching lines in {} files",
            thousands(sum),
            thousands(files)
        );
        assert!(out.text.contains(&want), "{want}\n{}", out.text);
        assert!(
            out.text
                .contains(&format!("{} ({} matches)", top.0, thousands(top.1))),
            "{}",
            out.text
        );
        let narrow = out
            .suggestions
            .iter()
            .find(|s| s.purpose.starts_with("only the "))
            .expect("the top file's search");
        assert_eq!(
            narrow.purpose,
            format!("only the {} matches in {}", thousands(top.1), top.0)
        );
        let file = narrow.args["path"].as_str().unwrap();
        let printed = Command::new("grep")
            .args(["-c", "raise", file])
            .current_dir(STDLIB)
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&printed.stdout).trim(),
            top.1.to_string()
        );
    }
}

/// Item 21: `kept[].chars` and `omitted.chars` count the original (a colour
/// log's escape codes included): they add up to `original.chars`.
#[test]
fn kept_and_omitted_chars_add_up_to_the_original() {
    for rel in [
        "shell/cargo_test_color_progress.log",
        "shell/pytest_failure_color.log",
        "shell/cargo_test_failure.log",
    ] {
        let text = std::fs::read_to_string(fixture(rel)).unwrap();
        let out = process("shell", json!({"command": "x"}), &text, None);
        assert!(out.truncated, "{rel}");
        let kept: usize = out.kept.iter().map(|k| k.chars).sum();
        assert_eq!(
            kept + out.omitted.chars,
            out.original.chars,
            "{rel}: kept {kept} + omitted {}",
            out.omitted.chars
        );
    }
}
