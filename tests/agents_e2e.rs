//! End-to-end tests with the real agents (issue 22, part 3): Claude Code, Codex CLI,
//! Gemini CLI and opencode, installed from npm by `bash .ci/install-agents`, each run
//! non-interactively in a throwaway project (HOME and config isolated) against a
//! scripted model server on 127.0.0.1 (tests/agents/server.rs).
//!
//! Each shell test: `toolcap install <agent> --project DIR`; the scripted model asks
//! the agent's shell tool to run a real failing test run (tests/agents/project/
//! stdlib_all_test.py under python3, about 79 KB); the next request the agent sends
//! must carry toolcap's view (at most the shell threshold, the exact marker, the
//! stored id, the failing tests' values, the command's exit status); the scripted
//! model then runs the view's first recovery suggestion exactly as printed, and the
//! request after that must carry the exact lines of the original.
//! The `*_without_toolcap` tests record what each agent sends its model on its own,
//! for the same command (the "before" of docs/agents.md).
//!
//! Without the agents (or python3) these tests are skipped with the reason; under
//! CI=true they fail.

#[path = "agents/agent.rs"]
pub(crate) mod agent;
#[path = "agents/server.rs"]
pub(crate) mod server;

use std::sync::Arc;

use agent::{Kind, Sandbox, test_command};
use serde_json::{Value, json};
use server::{Call, Script, Server};

/// The `shell` family's threshold (thresholds.toml, DESIGN.md): toolcap's view of a
/// shell result is never longer.
const SHELL_THRESHOLD: usize = 3_500;

/// A recovery suggestion as the view prints it: `tool(key="value", n=3)  # purpose`.
#[derive(Debug, Clone)]
pub(crate) struct Suggestion {
    tool: String,
    args: serde_json::Map<String, Value>,
}

/// The first suggestion under "Commands:" in the view's recovery section that
/// reads a stored range of lines (a search of the error lines may come first).
pub(crate) fn first_suggestion(view: &str) -> Option<Suggestion> {
    let section = &view[view.find("--- Recovery Options ---")?..];
    section
        .lines()
        .skip_while(|l| l.trim() != "Commands:")
        .filter(|l| l.trim_start().starts_with('•'))
        .filter_map(parse_suggestion)
        .find(|s| s.target().is_some())
}

/// One `• tool(key="value", n=3)  # purpose` line.
fn parse_suggestion(line: &str) -> Option<Suggestion> {
    let call = line.trim_start().trim_start_matches('•').trim_start();
    let open = call.find('(')?;
    let tool = call[..open].to_string();
    let mut args = serde_json::Map::new();
    let mut rest = &call[open + 1..];
    loop {
        rest = rest.trim_start_matches([',', ' ']);
        if rest.starts_with(')') || rest.is_empty() {
            break;
        }
        let eq = rest.find('=')?;
        let key = rest[..eq].trim().to_string();
        rest = &rest[eq + 1..];
        // a JSON string (escaped as JSON) or a bare number
        let value = if rest.starts_with('"') {
            let mut de = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
            let value = de.next()?.ok()?;
            rest = &rest[de.byte_offset()..];
            value
        } else {
            let end = rest.find([',', ')'])?;
            let value = serde_json::from_str(rest[..end].trim()).ok()?;
            rest = &rest[end..];
            value
        };
        args.insert(key, value);
    }
    Some(Suggestion { tool, args })
}

impl Suggestion {
    /// The stored id and line range it reads: `toolcap continue ID --start-line A
    /// --end-line B` through a shell, or get_continuation's `tool_call_id`,
    /// `start_line` (and `end_line`).
    pub(crate) fn target(&self) -> Option<(String, usize, Option<usize>)> {
        match self.command() {
            Some(c) => {
                let words: Vec<&str> = c.split_whitespace().collect();
                let after = |flag: &str| {
                    words
                        .iter()
                        .position(|w| *w == flag)
                        .and_then(|i| words.get(i + 1))
                        .and_then(|w| w.parse::<usize>().ok())
                };
                Some((stored_id(c)?, after("--start-line")?, after("--end-line")))
            }
            None => {
                let id = self
                    .args
                    .get("tool_call_id")
                    .or_else(|| self.args.get("id"))?;
                let n = |k: &str| self.args.get(k).and_then(Value::as_u64).map(|v| v as usize);
                Some((id.as_str()?.to_string(), n("start_line")?, n("end_line")))
            }
        }
    }

    /// The command this suggestion runs through a shell, if it is a shell suggestion.
    fn command(&self) -> Option<&str> {
        self.args
            .get("command")
            .or_else(|| self.args.get("cmd"))
            .and_then(Value::as_str)
    }

    /// The call the scripted model makes to follow it in `kind`: a shell suggestion
    /// through the agent's shell tool with the command exactly as printed; a recovery
    /// tool through the MCP server `toolcap install` added.
    pub(crate) fn as_call(&self, kind: Kind) -> Call {
        match self.command() {
            Some(c) => shell_call(kind, c),
            None => {
                let tool = self
                    .tool
                    .rsplit("__")
                    .next()
                    .unwrap_or(&self.tool)
                    .to_string();
                Call {
                    name: kind.mcp_tool("toolcap", &tool),
                    args: Value::Object(self.args.clone()),
                }
            }
        }
    }
}

pub(crate) fn shell_call(kind: Kind, command: &str) -> Call {
    let (tool, arg) = kind.shell_tool();
    let mut args = json!({ arg: command });
    if matches!(kind, Kind::ClaudeCode | Kind::Opencode | Kind::Kilo) {
        args["description"] = json!("run it");
    }
    Call {
        name: tool.to_string(),
        args,
    }
}

/// `lines a..=b` (1-based) of `text`, joined with newlines.
pub(crate) fn lines(text: &str, a: usize, b: usize) -> String {
    text.lines()
        .skip(a.saturating_sub(1))
        .take(b + 1 - a)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Two runs of the test command differ only in the run time and object addresses.
fn stable(line: &str) -> bool {
    !line.starts_with("Ran ") && !line.contains(" object at 0x")
}

/// `N,NNN` as the view prints counts.
pub(crate) fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The last line a continuation says it shows: `[showing lines A-B of N ...`.
pub(crate) fn shown_until(text: &str) -> Option<usize> {
    let at = text.find("[showing lines ")? + "[showing lines ".len();
    let range = text[at..].split_whitespace().next()?;
    range.split_once('-')?.1.parse().ok()
}

/// The id a `toolcap continue ID ...` / `toolcap search ID ...` command names.
fn stored_id(command: &str) -> Option<String> {
    let mut words = command.split_whitespace();
    words.find(|w| *w == "continue" || *w == "search")?;
    words.next().map(|w| w.trim_matches('\'').to_string())
}

/// The scripted model for the shell scenario: run `command`, then follow the
/// first recovery suggestion of what came back, then stop.
fn shell_script(kind: Kind, command: String) -> Script {
    Arc::new(move |results: &[String]| {
        let (done, running) = kind.fold(results);
        if let Some(session) = running {
            return Some(kind.poll(session));
        }
        match done.len() {
            0 => Some(shell_call(kind, &command)),
            1 => first_suggestion(&kind.shell_view(&done[0])).map(|s| s.as_call(kind)),
            _ => None,
        }
    })
}

/// The tool call id the scripted server gave the first call, as the agent keeps it
/// (Gemini CLI's hook input carries none: toolcap makes one up).
fn first_call_id(kind: Kind) -> Option<&'static str> {
    match kind {
        Kind::ClaudeCode => Some("toolu_e2e_0"),
        Kind::Codex | Kind::Opencode => Some("call_e2e_0"),
        Kind::GeminiCli => None,
        Kind::Pi => Some("call_e2e_0"),
        // Copilot's hook input carries no tool call id: toolcap makes one
        Kind::Copilot => None,
        Kind::QwenCode | Kind::Kilo => Some("call_e2e_0"),
    }
}

pub(crate) fn shell_round_trip(kind: Kind) {
    shell_round_trip_of(kind, test_command(), 1);
}

/// The shell round trip with `command` (a test run that exits with `status`).
pub(crate) fn shell_round_trip_of(kind: Kind, command: &str, status: i32) {
    let Some(bin) = agent::find(kind) else { return };
    let sb = Sandbox::new();
    let server = Server::start(kind.api(), shell_script(kind, command.to_string()));
    sb.configure(kind, &server);
    let project = sb.project.display().to_string();
    let (ok, out, err) = sb.toolcap(&["install", kind.name(), "--project", &project]);
    assert!(ok, "toolcap install {} failed:\n{out}\n{err}", kind.name());

    let run = sb.run_agent(kind, &bin, &server, &[]);
    assert!(run.success, "{}", run.describe());
    let turns: Vec<Vec<String>> = server.turns().iter().map(|t| kind.fold(t).0).collect();
    let after_first = turns.iter().find(|t| t.len() == 1).unwrap_or_else(|| {
        panic!(
            "no request carried the first tool result\n{}",
            run.describe()
        )
    });
    let result = &after_first[0];
    let view = kind.shell_view(result);

    // toolcap's view, not the agent's own cut
    assert!(
        view.chars().count() <= SHELL_THRESHOLD,
        "the model got {} chars (over the shell threshold {SHELL_THRESHOLD}):\n{result}",
        view.chars().count()
    );
    assert!(
        view.contains("\n--- Recovery Options ---\n"),
        "no recovery section in what the model got:\n{result}"
    );
    let first = first_suggestion(&view)
        .unwrap_or_else(|| panic!("no recovery suggestion in what the model got:\n{result}"));
    let (id, a, b) = first
        .target()
        .unwrap_or_else(|| panic!("the first suggestion names no stored range: {first:?}"));
    if let Some(expected) = first_call_id(kind) {
        assert_eq!(
            id, expected,
            "the result is stored under the agent's tool call id"
        );
    }

    // the original as stored, checked against a direct run of the same command
    let (ok, original, err) = sb.toolcap(&["show", &id]);
    assert!(ok, "toolcap show {id} (run in the project) failed: {err}");
    let (direct, direct_code) = sb.run_command(command);
    assert_eq!(direct_code, status, "the test run's status:\n{direct}");
    let stored_lines: Vec<&str> = original.lines().collect();
    let direct_lines: Vec<&str> = direct.lines().collect();
    assert_eq!(
        stored_lines.len(),
        direct_lines.len(),
        "the stored output has the command's lines"
    );
    for (n, (s, d)) in stored_lines.iter().zip(&direct_lines).enumerate() {
        if stable(d) {
            assert_eq!(s, d, "stored line {} differs from the command's", n + 1);
        }
    }

    // exact counts, computed from the original
    let total_lines = stored_lines.len();
    let total_chars = original.chars().count();
    assert!(
        view.contains(&format!(
            "Output: {} lines, {} chars",
            thousands(total_lines),
            thousands(total_chars)
        )),
        "the recovery header counts the original ({total_lines} lines, {total_chars} chars):\n{view}"
    );
    assert!(
        view.contains(&format!(" of {total_lines}) ...]")),
        "the markers count the original's {total_lines} lines:\n{view}"
    );
    // the failing tests' values, as the run printed them
    assert!(view.contains("AssertionError: asyncio/__init__.py: __all__ is not a literal (line "));
    assert!(view.contains("FAILED (failures="), "{view}");
    // the exit status the agent saw is the command's
    match kind.reported_exit(result) {
        Some(code) => assert_eq!(
            code, status,
            "the agent reported the command's exit status:\n{result}"
        ),
        None => assert_eq!(
            run.opencode_exit("call_e2e_0"),
            Some(i64::from(status)),
            "opencode recorded the command's exit status\n{}",
            run.describe()
        ),
    }

    // turn 2: the first suggestion run exactly as printed gives the original's lines
    let after_second = turns.iter().find(|t| t.len() == 2).unwrap_or_else(|| {
        panic!(
            "no request carried the second tool result\n{}",
            run.describe()
        )
    });
    let second = kind.shell_view(&after_second[1]);
    let b = b.or_else(|| shown_until(&second)).unwrap_or(a);
    let want = lines(&original, a, b);
    // (Qwen Code trims the blank lines at either end of a command's output)
    assert!(
        second.contains(want.trim_matches('\n')),
        "following {first:?} gave the model:\n{second}\n--- expected lines {a}-{b} of the original:\n{want}"
    );
    eprintln!(
        "{}: with toolcap the model got {} chars for the {total_chars}-char run ({:.1}s)",
        kind.name(),
        result.chars().count(),
        run.seconds
    );
}

/// The same command without toolcap: what the agent's own cut sends the model.
pub(crate) fn without_toolcap(kind: Kind) {
    let Some(bin) = agent::find(kind) else { return };
    let sb = Sandbox::new();
    let script: Script = Arc::new(move |results: &[String]| {
        let (done, running) = kind.fold(results);
        match running {
            Some(session) => Some(kind.poll(session)),
            None => done.is_empty().then(|| shell_call(kind, test_command())),
        }
    });
    let server = Server::start(kind.api(), script);
    sb.configure(kind, &server);
    let run = sb.run_agent(kind, &bin, &server, &[]);
    assert!(run.success, "{}", run.describe());
    let turns: Vec<Vec<String>> = server.turns().iter().map(|t| kind.fold(t).0).collect();
    let result = turns.iter().find(|t| t.len() == 1).map_or_else(
        || panic!("no request carried the tool result\n{}", run.describe()),
        |t| t[0].clone(),
    );
    let (direct, _) = sb.run_test_command();
    assert!(
        !result.contains("--- Recovery Options ---"),
        "toolcap is not installed here"
    );
    // the agent cut the output its own way: the model never got the whole run
    assert!(
        kind.shell_view(&result).chars().count() < direct.chars().count(),
        "{} sent the whole {}-char run",
        kind.name(),
        direct.chars().count()
    );
    eprintln!(
        "{}: without toolcap the model got {} chars for the {}-char run; failures kept: {}/9; ({:.1}s)\n--- head ---\n{}\n--- tail ---\n{}",
        kind.name(),
        result.chars().count(),
        direct.chars().count(),
        result.matches("AssertionError: ").count(),
        run.seconds,
        result.chars().take(400).collect::<String>(),
        result
            .chars()
            .skip(result.chars().count().saturating_sub(300))
            .collect::<String>()
    );
}

#[test]
fn claude_code_bash_through_toolcap_run() {
    shell_round_trip(Kind::ClaudeCode);
}

#[test]
fn codex_shell_through_toolcap_run() {
    shell_round_trip(Kind::Codex);
}

#[test]
fn gemini_cli_shell_through_toolcap_run() {
    shell_round_trip(Kind::GeminiCli);
}

#[test]
fn opencode_bash_through_toolcap_run() {
    shell_round_trip(Kind::Opencode);
}

#[test]
fn claude_code_without_toolcap() {
    without_toolcap(Kind::ClaudeCode);
}

#[test]
fn codex_without_toolcap() {
    without_toolcap(Kind::Codex);
}

#[test]
fn gemini_cli_without_toolcap() {
    without_toolcap(Kind::GeminiCli);
}

#[test]
fn opencode_without_toolcap() {
    without_toolcap(Kind::Opencode);
}

#[test]
pub(crate) fn first_suggestion_reads_the_printed_call() {
    let view = "x\n\n--- Recovery Options ---\nCommand: c\n\nCommands:\n  • shell(command=\"toolcap continue call_1 --start-line 1 --end-line 18\")  # omitted lines\n  • shell(command=\"other\")\n";
    let s = first_suggestion(view).expect("a suggestion");
    assert_eq!(s.tool, "shell");
    assert_eq!(
        s.command(),
        Some("toolcap continue call_1 --start-line 1 --end-line 18")
    );
    assert_eq!(
        stored_id(s.command().unwrap_or_default()).as_deref(),
        Some("call_1")
    );
    let m = first_suggestion(
        "--- Recovery Options ---\nCommands:\n  • mcp__toolcap__get_continuation(tool_call_id=\"a\\\"b\", start_line=19)  # next\n",
    )
    .expect("a suggestion");
    assert_eq!(m.tool, "mcp__toolcap__get_continuation");
    assert_eq!(m.args["tool_call_id"], "a\"b");
    assert_eq!(m.args["start_line"], 19);
    assert_eq!(thousands(79031), "79,031");
    assert_eq!(thousands(842), "842");
}

/// The reference MCP filesystem server that `bash .ci/install-mcp-peers` installs.
pub(crate) fn filesystem_server() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("TOOLCAP_MCP_PEERS")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cache/toolcap-ci"))
        })?;
    let js = dir.join("npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    if js.exists() {
        return Some(js);
    }
    agent::skip_or_fail(&format!(
        "Claude Code MCP end-to-end test: missing {} (install it with `bash .ci/install-mcp-peers`)",
        js.display()
    ));
    None
}

/// An MCP tool's big result reaches Claude Code's model capped by toolcap's
/// PostToolUse hook, and the first recovery suggestion brings back the exact lines.
#[test]
fn claude_code_mcp_result_capped_by_the_post_tool_use_hook() {
    let kind = Kind::ClaudeCode;
    let Some(bin) = agent::find(kind) else { return };
    let Some(fs_js) = filesystem_server() else {
        return;
    };
    let sb = Sandbox::new();
    let file = sb.project.join("typing.py");
    let real =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/read_file/typing.py");
    std::fs::copy(&real, &file).expect("copy typing.py");
    let original = std::fs::read_to_string(&file).expect("read typing.py");
    let path = file.display().to_string();
    let script: Script = Arc::new(move |results: &[String]| match results.len() {
        0 => Some(Call {
            name: kind.mcp_tool("fs", "read_text_file"),
            args: json!({ "path": path }),
        }),
        1 => first_suggestion(&results[0]).map(|s| s.as_call(kind)),
        _ => None,
    });
    let server = Server::start(kind.api(), script);
    let project = sb.project.display().to_string();
    let (ok, out, err) = sb.toolcap(&["install", kind.name(), "--project", &project]);
    assert!(ok, "toolcap install claude-code failed:\n{out}\n{err}");
    sb.write(
        "~/fs-mcp.json",
        &json!({"mcpServers": {"fs": {"command": "node", "args": [fs_js, &project]}}}).to_string(),
    );
    let mcp_config = sb.home.join("fs-mcp.json").display().to_string();
    let run = sb.run_agent(
        kind,
        &bin,
        &server,
        &[
            "--mcp-config",
            &mcp_config,
            "--allowedTools",
            "mcp__fs__read_text_file,mcp__toolcap__get_continuation,mcp__toolcap__search_tool_output,mcp__toolcap__fetch_tool_output",
        ],
    );
    assert!(run.success, "{}", run.describe());
    let turns: Vec<Vec<String>> = server.turns().iter().map(|t| kind.fold(t).0).collect();
    let first = turns.iter().find(|t| t.len() == 1).map_or_else(
        || panic!("no request carried the MCP result\n{}", run.describe()),
        |t| t[0].clone(),
    );
    assert!(
        first.chars().count() <= 3_500,
        "the model got {} chars of the MCP result:\n{first}",
        first.chars().count()
    );
    assert!(first.contains("\n--- Recovery Options ---\n"), "{first}");
    let s = first_suggestion(&first).unwrap_or_else(|| panic!("no suggestion:\n{first}"));
    let (id, a, b) = s
        .target()
        .unwrap_or_else(|| panic!("the first suggestion names no stored range: {s:?}"));
    assert_eq!(id, "toolu_e2e_0", "stored under Claude Code's tool_use_id");
    let second = turns.iter().find(|t| t.len() == 2).map_or_else(
        || panic!("no request carried the second result\n{}", run.describe()),
        |t| t[1].clone(),
    );
    let b = b.or_else(|| shown_until(&second)).unwrap_or(a);
    let want = lines(&original, a, b);
    assert!(
        second.contains(&want),
        "following {s:?} gave the model:\n{second}\n--- expected lines {a}-{b} of typing.py:\n{want}"
    );
    eprintln!(
        "claude-code MCP: with toolcap the model got {} chars for the {}-char file",
        first.chars().count(),
        original.chars().count()
    );
}
