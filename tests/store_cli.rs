#![cfg(feature = "sqlite")]
//! The result store from the command line: process --store, continue, fetch,
//! show --meta, prune, tools, and the errors a user can run into.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use regex::Regex;
use serde_json::{Value, json};
use tempfile::TempDir;

fn toolcap() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_toolcap"));
    c.env_remove("TOOL_RESULT_BYPASS_TOOLS")
        .env_remove("TOOLCAP_CONFIG")
        .env_remove("TOOLCAP_STORE")
        .env_remove("TOOLCAP_DIALOG");
    c
}

fn run(args: &[&str]) -> Output {
    toolcap().args(args).output().expect("toolcap runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8 stdout")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `n` distinct numbered lines, `{prefix}0000\n` on (identical lines would be
/// collapsed as terminal noise instead of cut).
fn numbered(prefix: &str, n: usize) -> String {
    (0..n).map(|i| format!("{prefix}{i:04}\n")).collect()
}

struct Fixture {
    dir: TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    fn db(&self) -> String {
        self.dir.path().join("results.db").display().to_string()
    }

    fn file(&self, name: &str, content: &str) -> PathBuf {
        let p = self.dir.path().join(name);
        std::fs::write(&p, content).expect("write input");
        p
    }

    /// `process --store DB` with extra args; panics unless it exits 0.
    fn process(&self, input: &Path, extra: &[&str]) -> String {
        let db = self.db();
        let mut args = vec!["process", "--store", &db];
        args.extend_from_slice(extra);
        let o = toolcap()
            .args(&args)
            .arg(input)
            .output()
            .expect("toolcap runs");
        assert!(o.status.success(), "process failed: {}", stderr(&o));
        stdout(&o)
    }
}

/// `continue` from `first_offset` (None: no --offset) to the end; returns the chunks
/// concatenated with their markers removed, after checking every marker's numbers.
fn page_to_end(
    db: &str,
    id: &str,
    dialog: &str,
    first_offset: Option<usize>,
    total: usize,
) -> String {
    let marker = Regex::new(
        r#"\n\n\[truncated — showing (\d+)-(\d+)/(\d+) chars\. (\d+) chars remaining\. Run `[^`]* continue ([^ `]+) [^`]*--offset (\d+)` to read more\]\n\z"#,
    )
    .unwrap();
    let mut out = String::new();
    let mut offset = first_offset;
    let mut calls = 0;
    loop {
        let mut c = toolcap();
        c.args(["continue", id, "--store", db, "--dialog", dialog]);
        if let Some(o) = offset {
            c.args(["--offset", &o.to_string()]);
        }
        let o = c.output().expect("toolcap runs");
        assert!(o.status.success(), "continue failed: {}", stderr(&o));
        let text = stdout(&o);
        calls += 1;
        let Some(m) = marker.captures(&text) else {
            // the final chunk: no marker
            assert!(!text.contains("[truncated — showing"));
            out.push_str(&text);
            break;
        };
        let n = |i: usize| m[i].parse::<usize>().unwrap();
        let chunk = &text[..m.get(0).unwrap().start()];
        let start = offset.unwrap_or(n(1));
        assert_eq!(n(1), start, "the marker names the chunk's start");
        assert_eq!(n(2), start + chunk.chars().count(), "B = A + chunk chars");
        assert_eq!(n(2) - n(1), 2000, "default chunk: the kept size");
        assert_eq!(n(3), total);
        assert_eq!(n(4), total - n(2));
        assert_eq!(&m[5], id);
        assert_eq!(n(6), n(2));
        out.push_str(chunk);
        offset = Some(n(6));
        assert!(calls < 2000, "paging does not end");
    }
    out
}

#[test]
fn paging_a_1mb_ascii_result_gives_it_back_byte_for_byte() {
    let f = Fixture::new();
    let text: String = (0..1_048_576 / 64)
        .map(|i| {
            format!(
                "{i:08} {}\n",
                "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQR"
            )
        })
        .collect();
    assert_eq!(text.len(), 1_048_576);
    let input = f.file("big.log", &text);
    let shown = f.process(
        &input,
        &[
            "--tool",
            "bash",
            "--arg",
            "command=./gen",
            "--id",
            "call_ascii",
        ],
    );
    // lines equal but for their number are shown as one line with their count and
    // range (none verbatim from the start): reading on starts at the beginning
    assert!(shown.starts_with(
        "* abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQR  (×1,024, lines 1-1024)\n"
    ));
    assert!(shown.contains("(tool_call_id=\"call_ascii\", "), "{shown}");
    let back = page_to_end(&f.db(), "call_ascii", "default", Some(0), 1_048_576);
    assert!(back == text, "paged text differs from the original");
}

#[test]
fn paging_a_1mb_multibyte_result_from_where_the_model_stopped() {
    let f = Fixture::new();
    // 2-, 3- and 4-byte characters on lines of varied length
    let mut text = String::new();
    let mut i = 0usize;
    while text.len() < 1_000_000 {
        text.push_str(&format!(
            "{i} żółć 日本語テキスト 🦀{}\n",
            "é".repeat(i % 13)
        ));
        i += 1;
    }
    let chars = text.chars().count();
    let input = f.file("notes.md", &text);
    let shown = f.process(
        &input,
        &[
            "--tool",
            "read_file",
            "--arg",
            "path=notes.md",
            "--id",
            "call_mb",
            "--dialog",
            "thread-7",
            "--json",
        ],
    );
    let v: Value = serde_json::from_str(&shown).unwrap();
    let shown = v["text"].as_str().unwrap().to_string();
    assert!(
        shown.contains("(tool_call_id=\"call_mb\", "),
        "the recovery section reads the stored result: {shown}"
    );
    let offset = v["stored"]["offset"].as_u64().unwrap() as usize;
    // the kept head is exactly the first `offset` characters of the original
    let head: String = text.chars().take(offset).collect();
    assert!(shown.starts_with(&head));
    assert!(!shown.starts_with(&text.chars().take(offset + 1).collect::<String>()));
    // no --offset: right after what was shown
    let rest = page_to_end(&f.db(), "call_mb", "thread-7", None, chars);
    assert!(
        head + &rest == text,
        "head + paged rest differs from the original"
    );
}

#[test]
fn json_report_says_where_the_result_was_stored() {
    let f = Fixture::new();
    let input = f.file("out.txt", &numbered("x", 3000));
    let out = f.process(
        &input,
        &[
            "--tool", "bash", "--id", "call_9", "--dialog", "d1", "--json",
        ],
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["tool_call_id"], "call_9");
    assert_eq!(
        v["stored"],
        json!({"tool_call_id": "call_9", "dialog_id": "d1", "storage_type": "sqlite", "offset": 396})
    );
    assert!(v["text"].as_str().unwrap().contains(
        "The full result is stored. Call get_continuation with tool_call_id=\"call_9\" offset=396 to read more"
    ));
}

#[test]
fn fetch_returns_name_args_and_output_and_pages() {
    let f = Fixture::new();
    let output = format!("{}tail ü\n", "row\n".repeat(1000));
    let input = f.file("out.txt", &output);
    f.process(
        &input,
        &[
            "--tool",
            "grep",
            "--args-json",
            r#"{"pattern": "row", "path": "src"}"#,
            "--id",
            "call_f",
        ],
    );
    let o = run(&["fetch", "call_f", "--store", &f.db()]);
    assert!(o.status.success());
    assert_eq!(
        stdout(&o),
        format!(
            "{}\n",
            serde_json::to_string(&output).map(|s| format!(
                r#"{{"tool_name": "grep", "tool_args": {{"pattern": "row", "path": "src"}}, "tool_output": {s}}}"#
            ))
            .unwrap()
        )
    );
    let o = run(&[
        "fetch",
        "call_f",
        "--store",
        &f.db(),
        "--offset",
        "3996",
        "--limit",
        "5",
    ]);
    assert_eq!(
        stdout(&o),
        r#"{"tool_name": "grep", "tool_args": {"pattern": "row", "path": "src"}, "tool_output": "row\nt", "offset": 3996, "total_chars": 4007, "next_offset": 4001}"#
            .to_string()
            + "\n"
    );
    let o = run(&["fetch", "call_f", "--store", &f.db(), "--offset", "4000"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["tool_output"], "tail ü\n");
    assert_eq!(v["next_offset"], Value::Null);

    let o = run(&["fetch", "call_f", "--store", &f.db(), "--offset", "4007"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "{\"error\": \"Offset beyond end of result\"}\n");

    let o = run(&["fetch", "call_nope", "--store", &f.db()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        "{\"error\": \"no tool call with id call_nope\"}\n"
    );
}

#[test]
fn continue_errors_are_the_exact_json() {
    let f = Fixture::new();
    let input = f.file("out.txt", &numbered("y", 3000));
    f.process(&input, &["--tool", "bash", "--id", "call_c"]);
    let o = run(&["continue", "call_zzz", "--store", &f.db()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        "{\"error\": \"No cached result for tool_call_id 'call_zzz'\"}\n"
    );
    assert!(stderr(&o).contains("no result stored under id \"call_zzz\" in dialog \"default\""));

    // the right id in another dialog is not there either
    let o = run(&[
        "continue",
        "call_c",
        "--store",
        &f.db(),
        "--dialog",
        "other",
    ]);
    assert_eq!(
        stdout(&o),
        "{\"error\": \"No cached result for tool_call_id 'call_c'\"}\n"
    );

    for offset in ["18000", "18001", "99999999"] {
        let o = run(&["continue", "call_c", "--store", &f.db(), "--offset", offset]);
        assert_eq!(o.status.code(), Some(1));
        assert_eq!(stdout(&o), "{\"error\": \"Offset beyond end of result\"}\n");
    }
    // the last character
    let o = run(&[
        "continue",
        "call_c",
        "--store",
        &f.db(),
        "--offset",
        "17999",
    ]);
    assert!(o.status.success());
    assert_eq!(stdout(&o), "\n");

    // no store file at all: nothing cached, and the file is not created
    let missing = f.dir.path().join("none.db").display().to_string();
    let o = run(&["continue", "call_c", "--store", &missing]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        "{\"error\": \"No cached result for tool_call_id 'call_c'\"}\n"
    );
    assert!(stderr(&o).contains("(no store file there yet)"));
    assert!(!Path::new(&missing).exists());
}

#[test]
fn continue_can_cut_chunks_on_line_ends() {
    let f = Fixture::new();
    let text: String = (1..=400)
        .map(|i| format!("entry {i:03} {}\n", "-".repeat(i % 17)))
        .collect();
    let input = f.file("out.txt", &text);
    f.process(&input, &["--tool", "bash", "--id", "call_l"]);
    let o = run(&[
        "continue",
        "call_l",
        "--store",
        &f.db(),
        "--offset",
        "0",
        "--chunk",
        "100",
        "--lines",
    ]);
    let out = stdout(&o);
    let at = out.find("\n\n[truncated").unwrap();
    let (chunk, marker) = (&out[..at], &out[at + "\n\n[truncated".len()..]);
    // lines of 12, 13, ... 17 chars: six whole lines (87 chars) fit in 100
    let expect: String = text.lines().take(6).map(|l| format!("{l}\n")).collect();
    assert_eq!(expect.len(), 87);
    assert_eq!(chunk, expect);
    assert!(marker.starts_with(&format!(
        " — showing 0-{}/{} chars.",
        expect.len(),
        text.len()
    )));
}

#[test]
fn search_and_line_ranges_read_the_stored_result() {
    let f = Fixture::new();
    let text: String = (1..=400)
        .map(|i| {
            if i % 100 == 0 {
                format!("step {i}: error: disk full\n")
            } else {
                format!("step {i}: ok\n")
            }
        })
        .collect();
    let input = f.file("out.txt", &text);
    f.process(&input, &["--tool", "bash", "--id", "call_s"]);
    let db = f.db();
    let o = run(&[
        "search",
        "call_s",
        "error",
        "--context",
        "0",
        "--max",
        "2",
        "--store",
        &db,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // the next page, as a command of the CLI's own (not a recovery tool's call)
    assert_eq!(
        stdout(&o),
        format!(
            "4 of 400 lines match \"error\"; showing 2 of them (lines 100-200):\n\
             100: step 100: error: disk full\n--\n200: step 200: error: disk full\n\
             [2 more matching lines. Run `{} search call_s error --store {db} --context 0 --max 2 --skip 2` to see them]\n",
            env!("CARGO_BIN_EXE_toolcap")
        )
    );
    let o = run(&["continue", "call_s", "--start-line", "399", "--store", &db]);
    assert_eq!(stdout(&o), "step 399: ok\nstep 400: error: disk full\n");
    let o = run(&[
        "continue",
        "call_s",
        "--start-line",
        "2",
        "--end-line",
        "3",
        "--store",
        &db,
    ]);
    assert_eq!(stdout(&o), "step 2: ok\nstep 3: ok\n");
    // bad arguments are usage errors naming the fix; an unknown id exits 1
    let o = run(&["search", "call_s", "disk (", "--store", &db]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("escape regex characters"),
        "{}",
        stderr(&o)
    );
    let o = run(&["continue", "call_s", "--start-line", "401", "--store", &db]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("past the last line of the result (400 lines)"));
    let o = run(&["search", "call_x", "error", "--store", &db]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no result stored under id \"call_x\""));
    let o = run(&[
        "continue",
        "call_s",
        "--start-line",
        "2",
        "--offset",
        "5",
        "--store",
        &db,
    ]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "--start-line and --offset exclude each other"
    );
}

#[test]
fn show_meta_reads_the_record_without_the_output() {
    let f = Fixture::new();
    let text = numbered("ü", 2000);
    let input = f.file("out.txt", &text);
    f.process(
        &input,
        &[
            "--tool",
            "Bash",
            "--arg",
            "command=make",
            "--id",
            "call_m",
            "--dialog",
            "t1",
            "--save",
            "all",
        ],
    );
    let o = run(&[
        "show",
        "call_m",
        "--meta",
        "--store",
        &f.db(),
        "--dialog",
        "t1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let created = v["created_at"].as_str().unwrap().to_string();
    assert!(
        Regex::new(r"^20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
            .unwrap()
            .is_match(&created)
    );
    assert_eq!(
        v,
        json!({"tool_call_id": "call_m", "dialog_id": "t1", "tool_name": "Bash",
               "tool_args": {"command": "make"}, "size_bytes": 14000, "size_chars": 12000,
               "size_lines": 2000, "truncated": true, "shown_chars": 396, "created_at": created})
    );
    let o = run(&["show", "call_m", "--store", &f.db(), "--dialog", "t1"]);
    assert_eq!(o.stdout, text.as_bytes());

    let o = run(&["show", "call_m", "--meta", "--store", &f.db()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no result stored under id \"call_m\" in dialog \"default\""));
}

#[test]
fn save_all_keeps_results_that_were_not_cut() {
    let f = Fixture::new();
    let input = f.file("small.txt", "ok\n");
    let out = f.process(&input, &["--tool", "bash", "--id", "call_s"]);
    assert_eq!(out, "ok\n");
    let o = run(&["show", "call_s", "--store", &f.db()]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "only cut results are kept by default"
    );
    let out = f.process(
        &input,
        &["--tool", "bash", "--id", "call_s", "--save", "all"],
    );
    assert_eq!(out, "ok\n", "the model still sees the result unchanged");
    let o = run(&["show", "call_s", "--store", &f.db()]);
    assert_eq!(stdout(&o), "ok\n");
    // nothing more to read: the model saw it all
    let o = run(&["continue", "call_s", "--store", &f.db()]);
    assert_eq!(stdout(&o), "{\"error\": \"Offset beyond end of result\"}\n");
}

#[test]
fn prune_by_age_and_by_dialog() {
    let f = Fixture::new();
    let input = f.file("out.txt", &numbered("z", 3000));
    for (id, dialog) in [("old_1", "a"), ("new_1", "a"), ("new_2", "b")] {
        f.process(&input, &["--tool", "bash", "--id", id, "--dialog", dialog]);
    }
    // age one result by 8 days
    let conn = rusqlite::Connection::open(f.db()).unwrap();
    let n = conn
        .execute(
            "UPDATE results SET created_at = created_at - 8 * 86400000 WHERE tool_call_id = 'old_1'",
            [],
        )
        .unwrap();
    assert_eq!(n, 1);
    drop(conn);

    let o = run(&["prune", "--older-than", "7d", "--store", &f.db()]);
    assert!(o.status.success());
    assert_eq!(
        stdout(&o),
        format!("pruned 1 result older than 7d from {}\n", f.db())
    );
    assert_eq!(
        run(&["show", "old_1", "--store", &f.db(), "--dialog", "a"])
            .status
            .code(),
        Some(1)
    );
    assert!(
        run(&["show", "new_1", "--store", &f.db(), "--dialog", "a"])
            .status
            .success()
    );

    let o = run(&["prune", "--dialog", "a", "--store", &f.db()]);
    assert_eq!(
        stdout(&o),
        format!("deleted 1 result of dialog \"a\" from {}\n", f.db())
    );
    assert_eq!(
        run(&["show", "new_1", "--store", &f.db(), "--dialog", "a"])
            .status
            .code(),
        Some(1)
    );
    assert!(
        run(&["show", "new_2", "--store", &f.db(), "--dialog", "b"])
            .status
            .success()
    );

    let o = run(&["prune", "--older-than", "7 days", "--store", &f.db()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(
        "--older-than \"7 days\": expected a number and a unit (s, m, h, d, w), like 7d or 12h"
    ));
    // no flag: the config's [store] keep and max_bytes (7d and 1 GiB by default)
    let o = run(&["prune", "--store", &f.db()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "pruned 0 results older than 7d from {db}\npruned 0 results to keep at most 1,073,741,824 bytes from {db}\n",
            db = f.db()
        )
    );
}

#[test]
fn tools_prints_definitions_in_both_formats() {
    let o = run(&["tools", "--format", "openai"]);
    assert!(o.status.success());
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "get_continuation",
            "fetch_tool_output",
            "get_tool_result",
            "search_tool_output",
            "query_tool_output"
        ]
    );
    assert_eq!(v[0]["type"], "function");
    assert_eq!(
        v[0]["function"]["parameters"]["required"],
        json!(["tool_call_id"])
    );
    assert!(
        v[0]["function"]["description"]
            .as_str()
            .unwrap()
            .contains("up to 2000 characters")
    );

    let o = run(&["tools", "--format", "anthropic"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[1]["name"], "fetch_tool_output");
    assert_eq!(
        v[1]["input_schema"]["properties"]["limit"]["type"],
        "integer"
    );

    let o = run(&["tools", "--format", "gemini"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn ids_are_validated_with_clear_errors() {
    let f = Fixture::new();
    let input = f.file("out.txt", "x\n");
    let long = "c".repeat(257);
    for (id, problem) in [
        (long.as_str(), "is 257 characters long, more than 256"),
        (
            "call\u{7}1",
            "holds a control character (\\u{7}) at character 5",
        ),
    ] {
        let o = toolcap()
            .args(["process", "--tool", "bash", "--store", &f.db(), "--id", id])
            .arg(&input)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains(problem), "{}", stderr(&o));
        let o = run(&["continue", id, "--store", &f.db()]);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains(problem));
    }
    let o = toolcap()
        .args(["process", "--tool", "bash", "--store", &f.db()])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--store needs --id ID"));
    let o = toolcap()
        .args(["process", "--tool", "bash", "--dialog", "d"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--dialog: only used with a store"));
}

#[test]
fn unusable_store_paths_fail_clearly_without_panicking() {
    let f = Fixture::new();
    let input = f.file("out.txt", &"x\n".repeat(3000));
    let process = |db: &str| {
        toolcap()
            .args(["process", "--tool", "bash", "--id", "c1", "--store", db])
            .arg(&input)
            .output()
            .unwrap()
    };
    // a directory
    let dir = f.dir.path().display().to_string();
    let o = process(&dir);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains(&format!(
        "{dir}: cannot open the result store: it is a directory"
    )));
    // under a regular file: a usage error, nothing created
    let under_file = format!("{}/db", input.display());
    let o = process(&under_file);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&format!(
        "{under_file}: not a usable result store location: {} is not a directory",
        input.display()
    )));
    // in a directory that does not exist: not created (a typo is not a new tree)
    let missing = f.dir.path().join("no/such/dir/r.db").display().to_string();
    let o = process(&missing);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("/no/such/dir does not exist"),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o)
            .contains("fix: pass a path in an existing directory (or create it first: mkdir -p ")
    );
    assert!(!f.dir.path().join("no").exists());
    // not a database
    let junk = f.file("junk.db", &"this is not a database\n".repeat(400));
    let junk = junk.display().to_string();
    for args in [
        vec!["continue", "c1", "--store", &junk],
        vec!["show", "c1", "--meta", "--store", &junk],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(1));
        assert!(
            stderr(&o).contains("file is not a database"),
            "{}",
            stderr(&o)
        );
        assert!(stderr(&o).contains("fix: the file is not a toolcap store or is damaged"));
    }
    let o = process(&junk);
    assert_eq!(o.status.code(), Some(1));
    assert!(!stderr(&o).contains("panicked"));
    // another program's database is left alone
    let other = f.dir.path().join("app.db");
    let conn = rusqlite::Connection::open(&other).unwrap();
    conn.execute_batch("CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ann');")
        .unwrap();
    drop(conn);
    let o = process(&other.display().to_string());
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("it is a SQLite database of another program, not a toolcap store"));
    let conn = rusqlite::Connection::open(&other).unwrap();
    let tables: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(tables, 1);
}

#[test]
fn a_damaged_store_is_reported_not_panicked_on() {
    let f = Fixture::new();
    let input = f.file("out.txt", &"x\n".repeat(3000));
    for i in 0..20 {
        f.process(&input, &["--tool", "bash", "--id", &format!("c{i}")]);
    }
    // checkpoint the WAL into the main file, then overwrite its pages after the header
    let conn = rusqlite::Connection::open(f.db()).unwrap();
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE;")
        .unwrap();
    drop(conn);
    let mut bytes = std::fs::read(f.db()).unwrap();
    assert!(bytes.len() > 8192);
    for b in &mut bytes[4096..] {
        *b = 0xA5;
    }
    std::fs::write(f.db(), &bytes).unwrap();
    let o = run(&["fetch", "c3", "--store", &f.db()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains(&f.db()), "{err}");
    assert!(
        err.contains("malformed") || err.contains("not a database"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn toolcap_store_env_turns_storing_on() {
    let f = Fixture::new();
    let input = f.file("out.txt", &numbered("q", 3000));
    let o = toolcap()
        .env("TOOLCAP_STORE", f.db())
        .env("TOOLCAP_DIALOG", "envd")
        .args(["process", "--tool", "bash", "--id", "call_e"])
        .arg(&input)
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(stdout(&o).contains("tool_call_id=\"call_e\" offset=396"));
    let o = toolcap()
        .env("TOOLCAP_STORE", f.db())
        .env("TOOLCAP_DIALOG", "envd")
        .args(["continue", "call_e", "--chunk", "4"])
        .output()
        .unwrap();
    assert_eq!(
        stdout(&o),
        format!(
            "q006\n\n[truncated — showing 396-400/18000 chars. 17600 chars remaining. Run `{} continue call_e --chunk 4 --offset 400` to read more]\n",
            env!("CARGO_BIN_EXE_toolcap")
        )
    );
}

/// About 3 MB of log with multi-byte characters, CRLF lines and a few invalid bytes.
fn tricky_stream() -> Vec<u8> {
    let mut b = Vec::new();
    let mut i = 0usize;
    while b.len() < 3_000_000 {
        let line = match i % 9 {
            0 => format!("{i} é€😀 ünïcödé\r\n"),
            4 => format!("{i} 日本語のログ行\n"),
            _ => format!("{i} ordinary log line\n"),
        };
        b.extend_from_slice(line.as_bytes());
        i += 1;
    }
    // a 4-byte character across the first 1 MiB read, a bad byte, a cut sequence
    b[(1 << 20) - 2..(1 << 20) + 2].copy_from_slice("😀".as_bytes());
    b[1_500_000] = 0xFF;
    b[2_500_000] = 0xE2;
    b
}

fn table_count(db: &str, table: &str) -> Option<i64> {
    let conn = rusqlite::Connection::open(db).ok()?;
    conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .ok()
}

#[test]
fn a_stream_on_stdin_is_kept_in_chunks_and_read_back_exactly() {
    use std::io::Write;
    let f = Fixture::new();
    let input = tricky_stream();
    let text = String::from_utf8_lossy(&input).into_owned();
    let total = text.chars().count();
    let db = f.db();
    let mut child = toolcap()
        .args(["process", "--tool", "bash", "--arg", "command=./build"])
        .args(["--id", "call_s", "--store", &db, "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feed = input;
    let writer = std::thread::spawn(move || stdin.write_all(&feed));
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("(tool_call_id=\"call_s\", "),
        "{}",
        stdout(&o)
    );
    // kept in chunks of at most 1 MiB, nothing left unfinished
    assert_eq!(table_count(&db, "chunks"), Some(3));
    assert_eq!(table_count(&db, "spills"), Some(0));

    let o = run(&["show", "call_s", "--store", &db]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout == text.as_bytes(), "show differs from the input");
    let o = run(&["show", "call_s", "--meta", "--store", &db]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["size_chars"], json!(total));
    assert_eq!(v["size_bytes"], json!(text.len()));
    assert_eq!(v["size_lines"], json!(text.lines().count()));

    // the last chunk, and a window across the first stored chunk's end
    let o = run(&[
        "continue",
        "call_s",
        "--store",
        &db,
        "--offset",
        &(total - 700).to_string(),
    ]);
    assert_eq!(
        stdout(&o),
        text.chars().skip(total - 700).collect::<String>()
    );
    let at = text[..(1 << 20) - 2].chars().count() - 10;
    let o = run(&[
        "fetch",
        "call_s",
        "--store",
        &db,
        "--offset",
        &at.to_string(),
        "--limit",
        "20",
    ]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["tool_output"],
        json!(text.chars().skip(at).take(20).collect::<String>())
    );
    assert_eq!(v["total_chars"], json!(total));
    let back = page_to_end(&db, "call_s", "default", Some(total - 9000), total);
    assert_eq!(back, text.chars().skip(total - 9000).collect::<String>());
}

#[test]
fn a_killed_stream_writer_leaves_nothing_visible_and_prune_clears_it() {
    use std::io::Write;
    let f = Fixture::new();
    let db = f.db();
    let mut child = toolcap()
        .args([
            "process", "--tool", "bash", "--id", "call_k", "--store", &db, "-",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&tricky_stream()).unwrap();
    // wait for a chunk to be written, then kill the writer mid-stream
    let started = std::time::Instant::now();
    while table_count(&db, "chunks").unwrap_or(0) < 1 {
        assert!(started.elapsed().as_secs() < 60, "no chunk written in 60 s");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    drop(stdin);
    assert_eq!(table_count(&db, "spills"), Some(1));
    let o = run(&["show", "call_k", "--store", &db]);
    assert_eq!(o.status.code(), Some(1), "half a result is never visible");
    let o = run(&["continue", "call_k", "--store", &db]);
    assert_eq!(
        stdout(&o),
        "{\"error\": \"No cached result for tool_call_id 'call_k'\"}\n"
    );
    // the store is sound and still takes results
    let conn = rusqlite::Connection::open(&db).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let input = f.file("out.txt", &numbered("k", 3000));
    f.process(&input, &["--tool", "bash", "--id", "call_after"]);
    std::thread::sleep(std::time::Duration::from_millis(5));
    let o = run(&["prune", "--older-than", "0s", "--store", &db]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(table_count(&db, "chunks"), Some(0));
    assert_eq!(table_count(&db, "spills"), Some(0));
    assert_eq!(table_count(&db, "results"), Some(0));
}

/// `continue --start-line` serves exactly the stored bytes (issue 34): a
/// result whose last line has no line end comes back without one, whether
/// the range is open, runs to the end or ends there; a range that stops
/// before the end ends its closing marker with a line end.
#[test]
fn line_ranges_serve_exactly_the_stored_bytes() {
    let f = Fixture::new();
    // a real file's text without its final line end (as `printf` or a
    // truncated log leaves it)
    let mut text: String = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/shell/cargo_test_failure.log"
    ))
    .unwrap();
    assert!(text.ends_with('\n'));
    text.pop();
    let total = text.lines().count();
    let input = f.file("noeol.txt", &text);
    f.process(&input, &["--tool", "bash", "--id", "call_e"]);
    let db = f.db();
    let from = |k: usize| -> String { text.split_inclusive('\n').skip(k - 1).collect() };
    let last = total.to_string();
    let before = (total - 2).to_string();
    for args in [
        vec!["--start-line", before.as_str()],
        vec!["--start-line", before.as_str(), "--end-line", last.as_str()],
        vec!["--start-line", last.as_str(), "--end-line", last.as_str()],
    ] {
        let mut a = vec!["continue", "call_e"];
        a.extend(args.iter().copied());
        a.extend(["--store", db.as_str()]);
        let o = run(&a);
        assert!(o.status.success(), "{}", stderr(&o));
        let want = from(args[1].parse().unwrap());
        assert!(!want.ends_with('\n'));
        assert_eq!(stdout(&o), want, "{args:?}");
    }
    // a range that stops short: its lines, then the closing line end of the
    // marker when there is one
    let o = run(&[
        "continue",
        "call_e",
        "--start-line",
        "1",
        "--end-line",
        "2",
        "--store",
        &db,
    ]);
    assert_eq!(
        stdout(&o),
        text.split_inclusive('\n').take(2).collect::<String>()
    );
}
