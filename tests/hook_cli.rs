//! `toolcap hook AGENT`: one round trip per agent on hook input shaped like the
//! agent's real one. The shapes are the ones the agents sent to a logging hook
//! here (Claude Code 2.1.328, Gemini CLI 0.61.0, Codex 0.169.0; recorded in
//! docs/agents.md) and match their published types: Claude Code's
//! `PreToolUseHookInput` / `PostToolUseHookInput` (@anthropic-ai/claude-agent-sdk
//! sdk.d.ts), Gemini CLI's `BeforeToolInput` (packages/core/src/hooks/types.ts),
//! Codex's `pre-tool-use.command.input.schema.json` (codex-rs/hooks/schema).

use std::io::Write;
use std::process::{Command, Stdio};

use assert_cmd::cargo::CommandCargoExt;
use serde_json::{Value, json};

use crate::support::sandbox::{Sandbox, sandbox as env};

impl Sandbox {
    /// The hook's reply to `input` (None: it printed nothing).
    fn hook(&self, args: &[&str], input: &Value) -> Option<Value> {
        let mut c = self.toolcap();
        c.arg("hook").args(args);
        reply_of(c, input)
    }
    /// Run a command line the way the agent's shell tool would.
    fn sh(&self, command: &str) -> std::process::Output {
        self.cmd("bash")
            .args(["-c", command])
            .output()
            .expect("bash")
    }
}

/// What a hook command prints for `input` on its stdin: its JSON reply, or None
/// when it printed nothing; it must exit 0.
fn reply_of(mut c: Command, input: &Value) -> Option<Value> {
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().expect("the hook starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.to_string().as_bytes())
        .expect("write the hook input");
    let out = child.wait_with_output().expect("the hook ends");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    (!text.trim().is_empty()).then(|| serde_json::from_str(&text).expect("JSON reply"))
}

fn toolcap_path() -> String {
    Command::cargo_bin("toolcap")
        .expect("binary builds")
        .get_program()
        .to_string_lossy()
        .into_owned()
}

/// Claude Code's Bash tool script around `command`, as 2.1.328 hands it to its
/// `CLAUDE_CODE_SHELL_PREFIX` (one argument; recorded with a logging prefix).
fn claude_script(command: &str, cwd_file: &str) -> String {
    let quoted = format!("'{}'", command.replace('\'', "'\\''"));
    format!(
        "source /nonexistent/.claude/shell-snapshots/snapshot-bash-1-x.sh 2>/dev/null || true && {{ \\builtin shopt -u extglob || \\builtin setopt NO_EXTENDED_GLOB; }} >/dev/null 2>&1 || true && eval {quoted} < /dev/null && pwd -P >| {cwd_file}"
    )
}

#[test]
fn claude_code_bash_is_noted_not_rewritten_and_the_prefix_prints_the_view() {
    let e = env();
    // the PreToolUse input Claude Code 2.1.328 sent (one line, ids shortened)
    let input = json!({
        "session_id": "s1", "transcript_path": "/h/.claude/projects/p/s1.jsonl",
        "cwd": e.proj, "permission_mode": "default", "effort": {"level": "medium"},
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "cd sub && seq 1 20000", "description": "Count", "timeout": 120000},
        "tool_use_id": "toolu_probe0"
    });
    // nothing is rewritten: Claude Code's rules decide on the model's own command
    assert_eq!(e.hook(&["claude-code"], &input), None);
    std::fs::create_dir_all(e.proj.join("sub")).expect("mkdir sub");
    let cwd_file = e.proj.join("claude-1a2b-cwd");
    let script = claude_script("cd sub && seq 1 20000", &cwd_file.display().to_string());
    // Claude Code runs the script through its shell prefix, in the session the
    // hook's input names
    let run = e
        .toolcap()
        .env("CLAUDE_CODE_SESSION_ID", "s1")
        .args(["shell-prefix", "claude-code", &script])
        .stdin(Stdio::null())
        .output()
        .expect("toolcap runs");
    assert_eq!(run.status.code(), Some(0));
    let view = String::from_utf8(run.stdout).expect("utf-8");
    assert!(view.chars().count() <= 3500, "{view}");
    assert!(
        view.contains(
            "Command: cd sub && seq 1 20000 | exit code 0 | Output: 20,000 lines, 108,894 chars"
        ),
        "{view}"
    );
    assert!(
        view.contains(" continue toolu_probe0 --start-line "),
        "{view}"
    );
    // the `cd` reached Claude Code's own cwd file
    let cwd = std::fs::read_to_string(&cwd_file).expect("the cwd file");
    assert!(cwd.trim_end().ends_with("/sub"), "{cwd}");

    // a background command is noted as such and runs untouched (its output is read
    // while it runs); so does one the hook never saw
    let mut bg = input;
    bg["tool_input"]["command"] = json!("seq 1 30000");
    bg["tool_input"]["run_in_background"] = json!(true);
    assert_eq!(e.hook(&["claude-code"], &bg), None);
    for command in ["seq 1 30000", "seq 1 30000 | cat"] {
        let run = e
            .toolcap()
            .env("CLAUDE_CODE_SESSION_ID", "s1")
            .args([
                "shell-prefix",
                "claude-code",
                &claude_script(
                    command,
                    &e.proj.join("claude-3c4d-cwd").display().to_string(),
                ),
            ])
            .stdin(Stdio::null())
            .output()
            .expect("toolcap runs");
        let expected: String = (1..=30000).map(|i| format!("{i}\n")).collect();
        assert_eq!(String::from_utf8_lossy(&run.stdout), expected, "{command}");
    }
    // anything else Claude Code hands its prefix (hooks, MCP servers) runs as is
    let run = e
        .toolcap()
        .args(["shell-prefix", "claude-code", "echo hook-ran; exit 7"])
        .output()
        .expect("toolcap runs");
    assert_eq!(run.status.code(), Some(7));
    assert_eq!(String::from_utf8_lossy(&run.stdout), "hook-ran\n");
}

#[test]
fn claude_code_mcp_result_is_capped_and_stored() {
    let e = env();
    let lines: Vec<String> = (1..=30000).map(|i| format!("line {i}")).collect();
    let content = lines.join("\n");
    // MCP tool_response as Claude Code hands it to PostToolUse: the structured
    // content as JSON text (server-filesystem read_text_file)
    let input = json!({
        "session_id": "s1", "transcript_path": "/t.jsonl", "cwd": e.proj,
        "permission_mode": "default", "hook_event_name": "PostToolUse",
        "tool_name": "mcp__fs__read_text_file", "tool_input": {"path": "/data/big.txt"},
        "tool_response": json!({"content": content}).to_string(),
        "tool_use_id": "toolu_mcp1", "duration_ms": 12
    });
    let reply = e.hook(&["claude-code"], &input).expect("a reply");
    let out = &reply["hookSpecificOutput"];
    assert_eq!(out["hookEventName"], "PostToolUse");
    let text = out["updatedMCPToolOutput"][0]["text"]
        .as_str()
        .expect("text block");
    assert_eq!(out["updatedMCPToolOutput"][0]["type"], "text");
    assert!(text.starts_with("line 1\nline 2\n"));
    assert!(text.chars().count() <= 3500);
    assert!(text.contains("--- Recovery Options ---"));
    // the suggestion, run through the shell, gives the exact lines
    let start = text.find("Bash(command=").expect("a shell suggestion") + "Bash(command=".len();
    let cmd: String = serde_json::Deserializer::from_str(&text[start..])
        .into_iter::<String>()
        .next()
        .expect("a command")
        .expect("JSON string");
    assert!(cmd.contains(" continue toolu_mcp1 --start-line "), "{cmd}");
    let got = String::from_utf8(e.sh(&cmd).stdout).expect("utf-8");
    let a: usize = cmd
        .split_whitespace()
        .skip_while(|w| *w != "--start-line")
        .nth(1)
        .and_then(|w| w.parse().ok())
        .expect("start line");
    assert!(
        got.starts_with(&format!("line {a}\nline {}\n", a + 1)),
        "{got}"
    );
    // with toolcap's MCP server installed: its tools, in Claude Code's naming
    let reply = e
        .hook(&["claude-code", "--mcp-prefix", "mcp__toolcap__"], &input)
        .expect("a reply");
    let text = reply["hookSpecificOutput"]["updatedMCPToolOutput"][0]["text"]
        .as_str()
        .expect("text");
    assert!(
        text.contains("mcp__toolcap__get_continuation(tool_call_id=\"toolu_mcp1\", start_line="),
        "{text}"
    );
    // a small result passes unchanged: no reply
    let mut small = input;
    small["tool_response"] = json!(json!({"content": "a\nb"}).to_string());
    assert_eq!(e.hook(&["claude-code"], &small), None);
}

/// `toolcap hook gemini-cli` run by a parent process that looks like Gemini CLI
/// with `gemini_args` (argv[0] `/usr/bin/gemini`): the hook reads its approval mode
/// from the Gemini CLI process above it, as under the real agent.
fn gemini_hook(e: &Sandbox, gemini_args: &[&str], input: &Value) -> Option<Value> {
    use std::os::unix::process::CommandExt;
    let script = format!("{} hook gemini-cli; true", toolcap_path());
    let mut c = e.cmd("bash");
    c.arg0("/usr/bin/gemini")
        .args(["-c", &script, "gemini"])
        .args(gemini_args);
    reply_of(c, input)
}

#[test]
fn gemini_cli_before_tool_rewrites_only_where_no_rule_can_tell() {
    let e = env();
    // the BeforeTool input Gemini CLI 0.61.0 sent (no tool call id in it)
    let input = json!({
        "session_id": "s", "transcript_path": "/h/.gemini/tmp/proj/chats/session-1.jsonl",
        "cwd": e.proj, "hook_event_name": "BeforeTool", "timestamp": "2026-11-25T20:06:58.553Z",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "sh -c \"seq 1 5; exit 3\""}
    });
    // not under Gemini CLI, or in a session that asks for approvals: left alone
    assert_eq!(e.hook(&["gemini-cli"], &input), None);
    assert_eq!(
        gemini_hook(&e, &["-p", "x", "--approval-mode", "default"], &input),
        None
    );
    // a session that approves every call, no shell rule anywhere: rewritten
    let reply = gemini_hook(&e, &["-p", "x", "--yolo"], &input).expect("a reply");
    let out = &reply["hookSpecificOutput"];
    assert_eq!(out["hookEventName"], "BeforeTool");
    let cmd = out["tool_input"]["command"].as_str().expect("command");
    assert_eq!(
        cmd,
        format!(
            "{} run --tool run_shell_command -- bash -c 'sh -c \"seq 1 5; exit 3\"'",
            toolcap_path()
        )
    );
    let run = e.sh(cmd);
    assert_eq!(run.status.code(), Some(3));
    assert_eq!(run.stdout, b"1\n2\n3\n4\n5\n");
    // a settings file that excludes a shell command (comments and all): left alone
    let settings = e.proj.join(".gemini/settings.json");
    std::fs::create_dir_all(settings.parent().expect("dir")).expect("mkdir");
    std::fs::write(
        &settings,
        "{\n  // no rm for the model\n  \"tools\": {\"exclude\": [\"run_shell_command(rm)\"]}\n}\n",
    )
    .expect("write");
    assert_eq!(gemini_hook(&e, &["-y"], &input), None);
}

#[test]
fn codex_wraps_only_where_approvals_are_off_and_caps_mcp_by_block() {
    let e = env();
    // the PreToolUse input Codex 0.169.0 sent
    let mut input = json!({
        "session_id": "s", "turn_id": "t", "transcript_path": "/c/sessions/r.jsonl",
        "cwd": e.proj, "hook_event_name": "PreToolUse", "model": "m",
        "permission_mode": "bypassPermissions", "tool_name": "Bash",
        "tool_input": {"command": "seq 1 3"}, "tool_use_id": "call_probe0"
    });
    let reply = e.hook(&["codex"], &input).expect("a reply");
    let out = &reply["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "allow");
    assert_eq!(
        out["updatedInput"]["command"],
        format!(
            "{} run --id call_probe0 --tool exec_command -- bash -c 'seq 1 3'",
            toolcap_path()
        )
    );
    // with approvals on, "allow" would skip them: left alone
    input["permission_mode"] = json!("default");
    assert_eq!(e.hook(&["codex"], &input), None);
    // MCP: the CallToolResult object; the reply's reason is what the model gets
    let content: String = (1..=20000).map(|i| format!("{i}\n")).collect();
    let post = json!({
        "session_id": "s", "turn_id": "t", "transcript_path": null, "cwd": e.proj,
        "hook_event_name": "PostToolUse", "model": "m", "permission_mode": "bypassPermissions",
        "tool_name": "mcp__fs__read_text_file", "tool_input": {"path": "/d/n.txt"},
        "tool_response": {"content": [{"type": "text", "text": content}]},
        "tool_use_id": "call_m1"
    });
    let reply = e.hook(&["codex"], &post).expect("a reply");
    assert_eq!(reply["decision"], "block");
    let reason = reply["reason"].as_str().expect("reason");
    assert!(reason.starts_with("1\n2\n3\n") && reason.contains("--- Recovery Options ---"));
    // the wrapped command's suggestions call Codex's shell tool as its model does
    let run = e.sh(&format!(
        "{} run --id call_big --tool exec_command -- seq 1 20000",
        toolcap_path()
    ));
    let view = String::from_utf8(run.stdout).expect("utf-8");
    assert!(view.contains("exec_command(cmd=\""), "{view}");
}

#[test]
fn opencode_plugin_messages() {
    let e = env();
    // nothing is changed before a tool runs (opencode's rules decide on the command)
    assert_eq!(
        e.hook(
            &["opencode"],
            &json!({"event": "before", "tool": "bash", "callID": "call_1",
                    "args": {"command": "seq 1 3", "description": "count"}}),
        ),
        None
    );
    // a long bash output opencode cut is read whole from the file it saved, and
    // its exit status goes into the view
    let full: String = (1..=20000).map(|i| format!("{i}\n")).collect();
    // where opencode keeps them: `<data dir>/opencode/tool-output/tool_<id>`
    let saved = e.proj.join("data/opencode/tool-output/tool_saved");
    std::fs::create_dir_all(saved.parent().expect("a dir")).expect("make tool-output");
    std::fs::write(&saved, &full).expect("write the saved output");
    let tail: String = full[full.len() - 2000..].to_string();
    let reply = e
        .hook(
            &["opencode"],
            &json!({"event": "after", "tool": "bash", "callID": "call_b",
                    "args": {"command": "seq 1 20000; exit 3", "description": "count"},
                    "output": format!("...output truncated...\nFull output saved to: {}\n{tail}", saved.display()),
                    "metadata": {"exit": 3, "truncated": true, "outputPath": saved}}),
        )
        .expect("a reply");
    let text = reply["output"].as_str().expect("output");
    assert!(
        text.contains("Output: 20,000 lines, 108,894 chars"),
        "{text}"
    );
    assert!(text.contains("continue call_b"), "{text}");
    // a path that is not one of opencode's own output files is never read: the
    // same output elsewhere, a device that never ends, a link into tool-output
    let elsewhere = e.proj.join("elsewhere.txt");
    std::fs::write(&elsewhere, &full).expect("write a copy");
    let link = saved.with_file_name("tool_link");
    std::os::unix::fs::symlink(&elsewhere, &link).expect("link");
    for path in [elsewhere, "/dev/zero".into(), link] {
        let reply = e.hook(
            &["opencode"],
            &json!({"event": "after", "tool": "bash", "callID": "call_h",
                    "args": {"command": "seq 1 20000; exit 3", "description": "count"},
                    "output": format!("...output truncated...\nFull output saved to: {}\n{tail}", path.display()),
                    "metadata": {"exit": 3, "truncated": true, "outputPath": path}}),
        );
        let shown = reply.map(|r| r["output"].as_str().unwrap_or_default().to_string());
        assert!(
            !shown.as_deref().unwrap_or_default().contains("108,894"),
            "{}: {shown:?}",
            path.display()
        );
    }
    let output: String = (1..=5000).map(|i| format!("{i:05}| line {i}\n")).collect();
    let reply = e
        .hook(
            &["opencode"],
            &json!({"event": "after", "tool": "read", "callID": "call_2",
                    "args": {"filePath": "/p/big.txt"}, "output": output}),
        )
        .expect("a reply");
    let text = reply["output"].as_str().expect("output");
    assert!(
        text.starts_with("00001| line 1\n") && text.contains("bash(command="),
        "{text}"
    );
    // edits are left alone
    assert_eq!(
        e.hook(
            &["opencode"],
            &json!({"event": "after", "tool": "edit", "callID": "c", "args": {}, "output": output}),
        ),
        None
    );
}

#[test]
fn bad_input_never_blocks_the_tool() {
    let mut c = Command::cargo_bin("toolcap").expect("binary builds");
    let mut child = c
        .args(["hook", "claude-code"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("toolcap starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"not json")
        .expect("write");
    let out = child.wait_with_output().expect("ends");
    // 1: "non-blocking error" for each agent (2 would block the tool call)
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not JSON"));
}

/// Codex with approvals on: the `PostToolUse` input on `Bash` (shape as Codex
/// 0.169.0 sent it) carries Codex's cut; the whole output comes from the
/// session's rollout file, an `item_completed` line as Codex wrote it
/// (`CommandExecution`, `aggregated_output`, `exit_code`, status `failed` for a
/// non-zero exit), and only when it is provably whole.
#[test]
fn codex_post_tool_use_caps_a_shell_result_read_whole_from_the_rollout() {
    let e = env();
    let seq = |n: usize| -> String { (1..=n).map(|i| format!("{i}\n")).collect() };
    let rollout = e
        .state
        .join("home/.codex/sessions/2026/12/08/rollout-2026-12-08T03-09-36-x.jsonl");
    std::fs::create_dir_all(rollout.parent().expect("dir")).expect("mkdir");
    let item = |id: &str, output: &str, exit: i64| {
        json!({"timestamp": "2026-12-08T03:09:37.633Z", "type": "event_msg",
            "payload": {"type": "item_completed", "thread_id": "t", "turn_id": "u",
                "item": {"type": "CommandExecution", "id": id, "process_id": "1",
                    "command": ["/bin/bash", "-lc", "seq"], "cwd": "file:///p",
                    "source": "unified_exec_startup",
                    "status": if exit == 0 { "completed" } else { "failed" },
                    "aggregated_output": output, "exit_code": exit,
                    "duration": {"secs": 0, "nanos": 6650}}}})
        .to_string()
    };
    // seq 1 20000 as Codex 0.169.0 recorded it: 65,536 bytes, its first and
    // last 32,743 around Codex's notice
    let long = seq(20000);
    let kept = format!(
        "{}\n... command output truncated for persistence ...\n{}",
        &long[..32_743],
        &long[long.len() - 32_743..]
    );
    assert_eq!(kept.len(), 65_536);
    std::fs::write(
        &rollout,
        [item("call_c1", &seq(10000), 3), item("call_c2", &kept, 0)].join("\n") + "\n",
    )
    .expect("write the rollout");
    let cut = |tokens: usize, lines: usize| {
        format!(
            "Warning: truncated output (original token count: {tokens})\nTotal output lines: {lines}\n\n1\n2\n"
        )
    };
    let post = |id: &str, command: &str, response: String| {
        json!({"session_id": "s", "turn_id": "u", "transcript_path": rollout, "cwd": e.proj,
            "hook_event_name": "PostToolUse", "model": "m", "permission_mode": "default",
            "tool_name": "Bash", "tool_input": {"command": command},
            "tool_response": response, "tool_use_id": id})
    };
    let reply = e
        .hook(
            &["codex"],
            &post("call_c1", "seq 1 10000; exit 3", cut(12224, 10000)),
        )
        .expect("a reply");
    assert_eq!(reply["decision"], "block");
    let reason = reply["reason"].as_str().expect("reason");
    assert!(
        reason.starts_with("Process exited with code 3\nOutput:\n1\n2\n3\n")
            && reason.contains(
                "Command: seq 1 10000; exit 3 | exit code 3 | Output: 10,000 lines, 48,894 chars"
            )
            && reason.contains("\n10000\n")
            && reason.chars().count() < 3_600,
        "{reason}"
    );
    // the stored output is the whole one
    let shown = e.sh(&format!(
        "{} continue call_c1 --start-line 5000 --end-line 5002",
        toolcap_path()
    ));
    assert!(
        String::from_utf8_lossy(&shown.stdout).contains("5000\n5001\n5002"),
        "{shown:?}"
    );
    // what Codex kept of seq 1 20000 is not whole: its cut stays
    assert_eq!(
        e.hook(
            &["codex"],
            &post("call_c2", "seq 1 20000", cut(27224, 20000))
        ),
        None
    );
    // no record of the call: its cut stays
    assert_eq!(
        e.hook(
            &["codex"],
            &post("call_c3", "seq 1 10000", cut(12224, 10000))
        ),
        None
    );
    // an output Codex did not cut is processed as it is; a short one passes
    let reply = e
        .hook(&["codex"], &post("call_c4", "seq 1 3000", seq(3000)))
        .expect("a reply");
    assert!(
        reply["reason"]
            .as_str()
            .is_some_and(|r| r.contains("--- Recovery Options ---"))
    );
    assert_eq!(
        e.hook(&["codex"], &post("call_c5", "seq 1 3", seq(3))),
        None
    );
    // a command toolcap ran already printed its view
    let under = format!("{} run --id call_c6 -- seq 1 3000", toolcap_path());
    assert_eq!(
        e.hook(&["codex"], &post("call_c6", &under, seq(3000))),
        None
    );
}

/// A command whose rewrite quoting would grow past Linux's one-argument limit
/// (128 KiB: E2BIG, the command would not run at all) is left as it is.
#[test]
fn a_rewrite_past_the_argument_limit_is_not_made() {
    let e = env();
    // a 107 KB heredoc full of single quotes: each grows to '\'' when quoted
    let body: String = (0..6000).map(|i| format!("echo 'line {i}'\n")).collect();
    let command = format!("cat <<'EOF'\n{body}EOF");
    assert!(command.len() < 131_072, "{}", command.len());
    let input = json!({
        "hook_event_name": "PreToolUse", "permission_mode": "bypassPermissions",
        "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "call_big",
        "cwd": e.proj
    });
    assert_eq!(e.hook(&["codex"], &input), None);
    let mut small = input;
    small["tool_input"]["command"] = json!("cat <<'EOF'\necho 'x'\nEOF");
    assert!(e.hook(&["codex"], &small).is_some());
}
