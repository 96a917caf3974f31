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

    hostile_saved_paths(&sb, &transcript);
}

/// `toolcap discover` within 60 s (a read that blocks fails the test instead of
/// hanging it): its JSON.
fn discover_within_a_minute(sb: &Sandbox) -> Value {
    let project = sb.project.display().to_string();
    let out = sb
        .command(Path::new("timeout"))
        .args(["60", env!("CARGO_BIN_EXE_toolcap")])
        .args([
            "discover",
            "--agent",
            "claude-code",
            "--json",
            "--project",
            &project,
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "discover failed or took over a minute ({:?}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The path of the file Claude Code saved a long output to is text of the
/// transcript, which a command's output can imitate (`Full output saved to:
/// /dev/zero`): discover reads only a regular file of Claude Code's own
/// `tool-results/` under its projects directory, of bounded size, never a
/// device, a FIFO (it would wait for ever), a link or another file (issue 44,
/// item 2). Each hostile path is counted as a saved output that is gone. And a
/// command's terminal escapes are shown, not sent, in the text report (item 11).
fn hostile_saved_paths(sb: &Sandbox, transcript: &Path) {
    let original = std::fs::read_to_string(transcript).unwrap();
    let key = "Full output saved to: ";
    let at = original.find(key).expect("a persisted output") + key.len();
    let len = original[at..].find('\\').expect("the line's end");
    let saved = original[at..at + len].to_string();
    let results = Path::new(&saved).parent().unwrap().to_path_buf();
    assert!(results.ends_with("tool-results"), "{saved}");
    let fifo = results.join("fifo.txt");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let link = results.join("link.txt");
    std::os::unix::fs::symlink(&saved, &link).unwrap();
    let elsewhere = sb.project.join("copy.txt");
    std::fs::copy(&saved, &elsewhere).unwrap();
    let here = discover_within_a_minute(sb);
    assert_eq!(u(&here, "persisted_outputs_missing"), 0, "{here:#}");
    assert_eq!(u(row(&here, "Bash", "seq"), "chars"), 108_894);
    for hostile in [
        "/dev/zero".to_string(),
        "/etc/hostname".to_string(),
        fifo.display().to_string(),
        link.display().to_string(),
        elsewhere.display().to_string(),
        format!("{}/../../copy.txt", results.display()),
    ] {
        std::fs::write(transcript, original.replace(&saved, &hostile)).unwrap();
        let d = discover_within_a_minute(sb);
        assert_eq!(
            (
                u(&d, "persisted_outputs"),
                u(&d, "persisted_outputs_missing")
            ),
            (1, 1),
            "{hostile}: {d:#}"
        );
        // the preview's size, not the other file's
        assert!(u(row(&d, "Bash", "seq"), "chars") < 3_000, "{hostile}");
    }
    // a command that starts with terminal escapes and a bidi override
    let escaped = original.replace(
        "\"command\":\"echo hi\"",
        "\"command\":\"\\u001b]0;pwned\\u0007\\u001b[2J\\u202eecho hi\"",
    );
    assert_ne!(escaped, original, "the echo call is in the transcript");
    std::fs::write(transcript, escaped).unwrap();
    let project = sb.project.display().to_string();
    let (ok, out, err) = sb.toolcap(&["discover", "--agent", "claude-code", "--project", &project]);
    assert!(ok, "{err}");
    assert!(!out.contains(['\u{1b}', '\u{7}', '\u{202e}']), "{out:?}");
    assert!(out.contains("␛]0;pwned␇␛[2J<U+202E>echo"), "{out}");
    std::fs::write(transcript, original).unwrap();
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
