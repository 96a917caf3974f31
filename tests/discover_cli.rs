//! `toolcap discover --agent claude-code` on transcripts written by the real
//! Claude Code (tests/agents: the agent installed by `bash .ci/install-agents`,
//! run against the scripted model server), once on its own and once with
//! `toolcap install claude-code --project DIR`. The scripted model runs
//! `seq 1 20000` (an output Claude Code persists to a file, leaving a preview in
//! the transcript), reads typing.py, follows toolcap's first suggestion when
//! there is one, and runs `echo hi`. Skipped with the reason when the agent is
//! not installed, failed under CI=true.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::agents_e2e::agent::{self, Kind, Sandbox};
use crate::agents_e2e::server::{Call, Script, Server};

/// The command of the first `Bash(command="...")` suggestion of a view.
fn first_suggested_command(view: &str) -> Option<String> {
    let at = view.find("--- Recovery Options ---")?;
    let rest = &view[at..];
    let start = rest.find("(command=")? + "(command=".len();
    serde_json::Deserializer::from_str(&rest[start..])
        .into_iter::<String>()
        .next()?
        .ok()
}

/// Run Claude Code in `sb` with the script; the transcripts land under its home.
fn run_claude(sb: &Sandbox, bin: &Path) {
    let kind = Kind::ClaudeCode;
    let typing = sb.project.join("typing.py");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/read_file/typing.py"),
        &typing,
    )
    .unwrap();
    let path = typing.display().to_string();
    let bash = |c: &str| {
        Some(Call {
            name: "Bash".into(),
            args: json!({ "command": c }),
        })
    };
    let script: Script = Arc::new(move |results: &[String]| match results.len() {
        0 => bash("seq 1 20000"),
        1 => Some(Call {
            name: "Read".into(),
            args: json!({ "file_path": path }),
        }),
        2 => match first_suggested_command(&results[0]) {
            Some(c) => bash(&c),
            None => bash("echo hi"),
        },
        3 if !results[2].trim().eq("hi") => bash("echo hi"),
        _ => None,
    });
    let server = Server::start(kind.api(), script);
    let run = sb.run_agent(kind, bin, &server, &["--allowedTools", "Bash,Read"]);
    assert!(run.success, "{}", run.describe());
}

fn discover(sb: &Sandbox, extra: &[&str]) -> Value {
    let project = sb.project.display().to_string();
    let mut args = vec![
        "discover",
        "--agent",
        "claude-code",
        "--json",
        "--project",
        &project,
    ];
    args.extend_from_slice(extra);
    let (ok, out, err) = sb.toolcap(&args);
    assert!(ok, "toolcap discover failed: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn row<'a>(d: &'a Value, tool: &str, kind: &str) -> &'a Value {
    d["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["tool"] == tool && r["kind"] == kind)
        .unwrap_or_else(|| panic!("no {tool} {kind:?} row in {d:#}"))
}

fn u(v: &Value, k: &str) -> u64 {
    v[k].as_u64().unwrap_or_else(|| panic!("{k} in {v}"))
}

fn not_through(v: &Value, k: &str) -> u64 {
    u(&v["not_through_toolcap"], k)
}

/// What `toolcap process` shows for `seq 1 20000` as Claude Code's Bash result.
fn processed_seq_chars() -> u64 {
    let out = Command::new("sh")
        .args([
            "-c",
            &format!(
                "seq 1 20000 | '{}' process --tool Bash --arg 'command=seq 1 20000'",
                env!("CARGO_BIN_EXE_toolcap")
            ),
        ])
        .env_remove("TOOLCAP_CONFIG")
        .env_remove("TOOLCAP_STORE")
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().chars().count() as u64
}

#[test]
fn claude_code_sessions_without_toolcap() {
    let Some(bin) = agent::find(Kind::ClaudeCode) else {
        return;
    };
    let sb = Sandbox::new();
    run_claude(&sb, &bin);
    let d = discover(&sb, &[]);
    assert_eq!(u(&d, "sessions"), 1, "{d:#}");
    assert_eq!(u(&d, "unreadable_lines"), 0);
    assert_eq!(u(&d, "results"), 3, "seq, Read, echo: {d:#}");
    // the transcript holds a 2 KB preview; the size is the persisted file's
    assert!(u(&d, "persisted_outputs") >= 1, "{d:#}");
    let seq = row(&d, "Bash", "seq");
    assert_eq!(u(seq, "chars"), 108_894);
    assert!(
        u(seq, "shown_chars") < 3_000,
        "Claude Code's own preview: {seq}"
    );
    assert_eq!(
        (u(seq, "over_threshold"), u(seq, "through_toolcap")),
        (1, 0)
    );
    assert_eq!(not_through(seq, "not_capped"), 1);
    assert_eq!(u(seq, "would_show_chars"), processed_seq_chars());
    let read = row(&d, "Read", "");
    // Claude Code numbers the lines: more than the file's 120,077 chars
    assert!(u(read, "chars") > 120_077, "{read}");
    assert_eq!(not_through(read, "not_capped"), 1);
    assert!(u(read, "would_show_chars") <= 3_500, "{read}");
    let echo = row(&d, "Bash", "echo");
    assert_eq!(
        (u(echo, "chars"), not_through(echo, "under_threshold")),
        (2, 1)
    );
    assert_eq!(d["recovery_calls"], json!({}));

    // a line that is not JSON is counted, the rest still read
    let dir = sb.home.join(".claude/projects");
    let transcript = std::fs::read_dir(&dir)
        .unwrap()
        .flat_map(|e| std::fs::read_dir(e.unwrap().path()).unwrap())
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    let mut text = std::fs::read(&transcript).unwrap();
    text.extend_from_slice(b"{\"type\": \"user\", cut off here\n");
    std::fs::write(&transcript, text).unwrap();
    let again = discover(&sb, &[]);
    assert_eq!(u(&again, "unreadable_lines"), 1);
    assert_eq!(again["tools"], d["tools"]);
    // nothing since a time to come
    let none = discover(&sb, &["--since", "2999-01-01"]);
    assert_eq!(u(&none, "results"), 0);
}

#[test]
fn claude_code_sessions_with_toolcap() {
    let Some(bin) = agent::find(Kind::ClaudeCode) else {
        return;
    };
    let sb = Sandbox::new();
    let project = sb.project.display().to_string();
    let (ok, out, err) = sb.toolcap(&["install", "claude-code", "--project", &project]);
    assert!(ok, "toolcap install claude-code: {out}\n{err}");
    run_claude(&sb, &bin);
    let d = discover(&sb, &[]);
    assert_eq!(
        u(&d, "results"),
        4,
        "seq, Read, the suggestion, echo: {d:#}"
    );
    let seq = row(&d, "Bash", "seq");
    // the size toolcap's view states, the view what the model read
    assert_eq!(u(seq, "chars"), 108_894, "{seq}");
    assert_eq!(
        (u(seq, "over_threshold"), u(seq, "through_toolcap")),
        (1, 1)
    );
    assert_eq!(not_through(seq, "not_capped"), 0);
    assert!(u(seq, "shown_chars") <= 3_500, "{seq}");
    let read = row(&d, "Read", "");
    // the hook saw the file itself: typing.py's 120,077 chars
    assert_eq!(
        (u(read, "chars"), u(read, "through_toolcap")),
        (120_077, 1),
        "{read}"
    );
    let follow = row(&d, "Bash", "toolcap continue");
    assert_eq!(not_through(follow, "under_threshold"), 1);
    assert_eq!(d["recovery_calls"], json!({ "toolcap continue": 1 }));
}
