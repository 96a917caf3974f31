//! Issue 23 loss 5: a shell command that prints a file's lines (`sed -n 'A,Bp'`,
//! `head -n N`, `cat -n`...) is the file's content, cut as `read_file` cuts a
//! file: a line-aligned head, the outline of the printed lines with the file's
//! own line numbers (checked with Python's `ast`), and follow-ups that re-read
//! the file unwrapped, sized to come back whole. On a real module of the
//! running Python's standard library; the commands are run for real, and so
//! are the suggestions.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

use regex::Regex;
use serde_json::{Value, json};
use toolcap::{Config, Processed, ToolCall, ToolResultProcessor};

fn sh(cmd: &str) -> Option<String> {
    let out = Command::new("bash").arg("-c").arg(cmd).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// typing.py of the running Python, when there is one.
fn typing_py() -> Option<PathBuf> {
    sh("python3 -c 'import sysconfig;print(sysconfig.get_paths()[\"stdlib\"])'")
        .map(|s| PathBuf::from(s.trim()).join("typing.py"))
        .filter(|p| p.is_file())
}

/// Every function and class of the file by (name, first line): its last line,
/// as Python's `ast` reads them.
fn ast_spans(path: &str) -> HashMap<(String, usize), usize> {
    let script = format!(
        "import ast\nfor n in ast.walk(ast.parse(open({path:?}).read())):\n    \
         if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):\n        \
         print(n.name, n.lineno, n.end_lineno)\n"
    );
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let w: Vec<&str> = l.split(' ').collect();
            (
                (w[0].to_string(), w[1].parse().unwrap()),
                w[2].parse().unwrap(),
            )
        })
        .collect()
}

fn process(cmd: &str, output: &str) -> Processed {
    ToolResultProcessor::new(Config::defaults()).process("bash", output, &json!({"command": cmd}))
}

/// The shell command of a suggestion (the default preset's shell tool).
fn command_of(s: &toolcap::Suggestion) -> String {
    s.args["command"].as_str().unwrap().to_string()
}

/// The structure section's signature lines of definitions after the cut
/// (`  1049: class TypeVarTuple(...):`): the name the line defines and its
/// number.
fn signature_entries(text: &str) -> Vec<(String, usize)> {
    let section: String = text
        .split("\nStructure (")
        .nth(1)
        .map(|s| s.split("\n\n").next().unwrap().to_string())
        .unwrap_or_default();
    let sig = Regex::new(r"^  (\d+): .*?\b(?:def|class)\s+([A-Za-z_][A-Za-z_0-9]*)").unwrap();
    section
        .lines()
        .filter_map(|l| {
            let c = sig.captures(l)?;
            Some((c[2].to_string(), c[1].parse().unwrap()))
        })
        .collect()
}

/// The structure section's `name A-B` entries.
fn structure_entries(text: &str) -> Vec<(String, usize, usize)> {
    let section: String = text
        .split("\nStructure (")
        .nth(1)
        .map(|s| s.split("\n\n").next().unwrap().to_string())
        .unwrap_or_default();
    let entry = Regex::new(r"([A-Za-z_][A-Za-z_0-9]*) (\d+)-(\d+)").unwrap();
    section
        .lines()
        .skip(1)
        .flat_map(|l| {
            entry
                .captures_iter(l)
                .map(|c| {
                    (
                        c[1].to_string(),
                        c[2].parse().unwrap(),
                        c[3].parse().unwrap(),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Runs every suggestion and checks it prints what its purpose says: as many
/// chars and lines as claimed, and for `sed -n 'X,Yp' FILE` exactly lines
/// X-Y of the file. None is wrapped in `bash -c`.
fn check_suggestions(out: &Processed, file: &str) -> usize {
    let file_lines: Vec<&str> = file.split_inclusive('\n').collect();
    let chars_re = Regex::new(r"([\d,]+) chars?\b").unwrap();
    let lines_re = Regex::new(r"\((\d+) lines?\)").unwrap();
    let sed_re = Regex::new(r"^sed -n '(\d+),(\d+)p' \S+$").unwrap();
    assert!(!out.suggestions.is_empty(), "{}", out.text);
    for s in &out.suggestions {
        let cmd = command_of(s);
        assert!(!cmd.starts_with("bash -c"), "wrapped: {cmd}");
        let printed = sh(&cmd).unwrap_or_else(|| panic!("{cmd} failed"));
        if let Some(c) = chars_re.captures(&s.purpose) {
            let n: usize = c[1].replace(',', "").parse().unwrap();
            assert_eq!(printed.chars().count(), n, "{cmd}  # {}", s.purpose);
        }
        if let Some(c) = lines_re.captures(&s.purpose) {
            let n: usize = c[1].parse().unwrap();
            assert_eq!(printed.lines().count(), n, "{cmd}  # {}", s.purpose);
        }
        if let Some(c) = sed_re.captures(&cmd) {
            let (x, y): (usize, usize) = (c[1].parse().unwrap(), c[2].parse().unwrap());
            assert_eq!(printed, file_lines[x - 1..y].concat(), "{cmd}");
        }
    }
    out.suggestions.len()
}

/// The kept part is the output's first lines, whole, and the rest is omitted.
fn assert_line_aligned_head(out: &Processed, output: &str) -> usize {
    assert!(out.truncated, "{}", out.text);
    assert_eq!(out.kept.len(), 1, "{:?}", out.kept);
    let k = &out.kept[0];
    assert_eq!((k.start_line, k.partial), (1, false), "{k:?}");
    let head: String = output.split_inclusive('\n').take(k.end_line).collect();
    assert!(out.text.starts_with(&head));
    // and nothing of the lines after it (no error line or tail kept)
    assert_eq!(out.omitted.ranges.len(), 1);
    assert_eq!(out.omitted.ranges[0].start_line, k.end_line + 1);
    k.end_line
}

#[test]
fn sed_range_of_a_module_is_cut_as_the_file() {
    let Some(path) = typing_py() else {
        eprintln!("no Python stdlib here: skipped");
        return;
    };
    let p = path.display().to_string();
    let file = std::fs::read_to_string(&path).unwrap();
    let spans = ast_spans(&p);
    let q = format!("'{}'", p.replace('\'', r"'\''"));
    // from inside a definition (lines 1000-1048 are the end of TypeVar) to past
    // several classes
    let (a, b) = (1000, 1300);
    let cmd = format!("sed -n '{a},{b}p' {q}");
    let output = sh(&cmd).unwrap();
    let out = process(&cmd, &output);
    assert_line_aligned_head(&out, &output);
    assert_eq!(out.family, "shell");
    assert_eq!(out.language.as_deref(), Some("python"));
    let pf = out.printed_file.as_ref().unwrap();
    assert_eq!(
        (pf.start_line, pf.end_line, pf.numbered),
        (Some(a), Some(b), false)
    );
    assert!(
        out.text
            .contains(&format!("lines {a}-{b} (lines 1-301 of this output)")),
        "{}",
        out.text
    );
    // the outline, numbered as the file is: every span is ast's (a definition
    // that goes on past the printed lines ends at the last of them)
    let entries = structure_entries(&out.text);
    let signatures = signature_entries(&out.text);
    assert!(entries.len() + signatures.len() >= 3, "{}", out.text);
    assert!(
        entries.contains(&("TypeVarTuple".to_string(), 1049, 1125))
            || signatures.contains(&("TypeVarTuple".to_string(), 1049)),
        "{}",
        out.text
    );
    for (name, s) in &signatures {
        assert!(spans.contains_key(&(name.clone(), *s)), "{name} {s}");
    }
    for (name, s, e) in &entries {
        let end = spans
            .get(&(name.clone(), *s))
            .unwrap_or_else(|| panic!("{name} {s}-{e}: no such definition"));
        assert!(
            *e == *end || (*e == b && *end > b),
            "{name} {s}-{e}, ast ends at {end}"
        );
    }
    assert!(check_suggestions(&out, &file) >= 2);
    // the next range starts right after the kept head, in the file's numbers
    let next = command_of(&out.suggestions[0]);
    let kept_end = out.kept[0].end_line;
    assert!(
        next.starts_with(&format!("sed -n '{},", a + kept_end)),
        "{next}"
    );
    // a search of the printed lines keeps to them
    assert!(
        out.suggestions
            .iter()
            .any(|s| command_of(s).ends_with(&format!("| awk -F: '$1 >= {a} && $1 <= {b}'"))),
        "{:#?}",
        out.suggestions
    );

    // as Codex sends it (an argv array), and read as a stream: the same
    let argv = json!({"command": ["bash", "-lc", cmd]});
    let p2 = ToolResultProcessor::new(Config::defaults());
    let codex = p2.process("shell", &output, &argv);
    assert_eq!(codex.text, out.text);
    let (streamed, _) = p2
        .process_stream(
            &ToolCall::new("bash", &json!({"command": cmd})),
            output.as_bytes(),
        )
        .unwrap();
    assert_eq!(streamed.text, out.text);
}

#[test]
fn head_and_cat_n_of_a_module() {
    let Some(path) = typing_py() else {
        eprintln!("no Python stdlib here: skipped");
        return;
    };
    let p = path.display().to_string();
    let file = std::fs::read_to_string(&path).unwrap();
    let spans = ast_spans(&p);
    let q = format!("'{}'", p.replace('\'', r"'\''"));

    // head -n N: the file's first lines, numbered as the file
    let cmd = format!("head -n 600 {q}");
    let output = sh(&cmd).unwrap();
    let out = process(&cmd, &output);
    assert_line_aligned_head(&out, &output);
    for (name, s, e) in structure_entries(&out.text) {
        let end = spans[&(name.clone(), s)];
        assert!(e == end || (e == 600 && end > 600), "{name} {s}-{e}");
    }
    check_suggestions(&out, &file);

    // cat -n: the numbers are the file's; follow-ups print the same form
    let cmd = format!("cat -n {q}");
    let output = sh(&cmd).unwrap();
    let out = process(&cmd, &output);
    assert_line_aligned_head(&out, &output);
    let entries = structure_entries(&out.text);
    let signatures = signature_entries(&out.text);
    assert!(
        !entries.is_empty() || !signatures.is_empty(),
        "{}",
        out.text
    );
    for (name, s, e) in &entries {
        assert_eq!(spans.get(&(name.clone(), *s)), Some(e), "{name} {s}-{e}");
    }
    for (name, s) in &signatures {
        assert!(spans.contains_key(&(name.clone(), *s)), "{name} {s}");
    }
    let numbered: Vec<&str> = output.split_inclusive('\n').collect();
    let re = Regex::new(r"^cat -n \S+ \| sed -n '(\d+),(\d+)p'$").unwrap();
    let mut ranges = 0;
    for s in &out.suggestions {
        let c = command_of(s);
        if let Some(m) = re.captures(&c) {
            let (x, y): (usize, usize) = (m[1].parse().unwrap(), m[2].parse().unwrap());
            assert_eq!(sh(&c).unwrap(), numbered[x - 1..y].concat());
            ranges += 1;
        }
    }
    assert!(ranges >= 1, "{:#?}", out.suggestions);
    check_suggestions(&out, &file);
}

#[test]
fn a_pipeline_stays_shell_output() {
    let Some(path) = typing_py() else {
        eprintln!("no Python stdlib here: skipped");
        return;
    };
    let cmd = format!("sed -n '1000,1300p' '{}' | cat", path.display());
    let output = sh(&cmd).unwrap();
    let out = process(&cmd, &output);
    assert!(out.truncated);
    assert!(out.printed_file.is_none());
    // cut as a command's output: its head and its tail
    assert!(out.kept.len() >= 2, "{:?}", out.kept);
    let v: Value = serde_json::to_value(&out).unwrap();
    assert!(v.get("printed_file").is_none());
}

/// A log printed by `cat` is a log: its failures and its tail are kept.
#[test]
fn a_printed_log_stays_a_log() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/shell/pytest_toolz.log"
    );
    let cmd = format!("cat {path}");
    let output = std::fs::read_to_string(path).unwrap();
    let out = process(&cmd, &output);
    assert!(out.truncated);
    assert!(out.printed_file.is_none());
    assert_eq!(out.kept.last().unwrap().end_line, out.original.lines);
}

/// Every other form, run for real: a line-aligned head, the outline's spans
/// are ast's (in the file's numbers, or the output's for `tail -n N`), and
/// every suggestion prints what it says; a range printed again by the command
/// piped into `sed -n` prints exactly those lines of its output.
#[test]
fn every_form_is_cut_as_the_file() {
    let Some(path) = typing_py() else {
        eprintln!("no Python stdlib here: skipped");
        return;
    };
    let p = path.display().to_string();
    let file = std::fs::read_to_string(&path).unwrap();
    let n = file.lines().count();
    let spans = ast_spans(&p);
    let q = format!("'{}'", p.replace('\'', r"'\''"));
    let piped = Regex::new(r"^(.*) \| sed -n '(\d+),(\d+)p'$").unwrap();
    // (command, what the shown numbers add to be the file's)
    for (cmd, shift) in [
        (format!("sed -n '2000,+300p' {q}"), 0),
        (format!("awk 'NR>=2000 && NR<=2300' {q}"), 0),
        (format!("tail -n +3000 {q}"), 0),
        (format!("tail -n 400 {q}"), n - 400),
        (format!("nl -ba {q}"), 0),
        (format!("head -n 900 {q}"), 0),
    ] {
        let output = sh(&cmd).unwrap();
        let out = process(&cmd, &output);
        assert_line_aligned_head(&out, &output);
        assert!(out.printed_file.is_some(), "{cmd}");
        let entries = structure_entries(&out.text);
        let signatures = signature_entries(&out.text);
        assert!(
            !entries.is_empty() || !signatures.is_empty(),
            "{cmd}:\n{}",
            out.text
        );
        for (name, s) in &signatures {
            assert!(
                spans.contains_key(&(name.clone(), s + shift)),
                "{cmd}: {name} {s}"
            );
        }
        // the last line printed, as the section numbers it
        let f = out.printed_file.as_ref().unwrap();
        let last_shown = out.original.lines + f.start_line.map_or(0, |a| a - 1);
        for (name, s, e) in &entries {
            let end = spans
                .get(&(name.clone(), s + shift))
                .unwrap_or_else(|| panic!("{cmd}: {name} {s}-{e}: no such definition"));
            assert!(
                e + shift == *end || (*e == last_shown && *end > last_shown + shift),
                "{cmd}: {name} {s}-{e}, ast ends at {end}"
            );
        }
        check_suggestions(&out, &file);
        let lines: Vec<&str> = output.split_inclusive('\n').collect();
        for s in &out.suggestions {
            let c = command_of(s);
            if let Some(m) = piped.captures(&c) {
                assert_eq!(&m[1], cmd, "the same command, unwrapped");
                let (x, y): (usize, usize) = (m[2].parse().unwrap(), m[3].parse().unwrap());
                assert_eq!(sh(&c).unwrap(), lines[x - 1..y].concat(), "{c}");
            }
        }
    }
}

/// With a store, the stored output is read by its own lines: the section
/// numbers lines as the output does (its first fact says which lines of the
/// file they are), and the next range is `get_continuation` right after the
/// kept head.
#[test]
fn a_stored_file_print_is_numbered_as_stored() {
    let Some(path) = typing_py() else {
        eprintln!("no Python stdlib here: skipped");
        return;
    };
    let p = path.display().to_string();
    let spans = ast_spans(&p);
    let cmd = format!("sed -n '1049,1300p' '{}'", p.replace('\'', r"'\''"));
    let output = sh(&cmd).unwrap();
    let store = std::sync::Arc::new(toolcap::store::MemoryStore::new());
    let proc = ToolResultProcessor::new(Config::defaults())
        .with_store(store, toolcap::store::SaveWhen::Cut);
    let args = json!({"command": cmd});
    let mut call = ToolCall::new("bash", &args);
    call.id = Some("call_1");
    let out = proc.process_call(&call, &output);
    let end = assert_line_aligned_head(&out, &output);
    assert!(out.stored.is_some());
    assert!(
        out.text.contains("its lines 1049-1300 as lines 1-252 here"),
        "{}",
        out.text
    );
    let entries = structure_entries(&out.text);
    assert!(
        entries.contains(&("TypeVarTuple".to_string(), 1, 77)),
        "{}",
        out.text
    );
    for (name, s, _) in &entries {
        assert!(spans.contains_key(&(name.clone(), s + 1048)), "{name} {s}");
    }
    let next = &out.suggestions[0];
    assert_eq!(next.tool, "get_continuation");
    assert_eq!(next.args["start_line"], json!(end + 1));
}
