//! `toolcap hook claude-code|gemini-cli|codex|opencode|pi|copilot`: an agent's hook. Reads the hook
//! input (JSON) on stdin, prints the hook reply (JSON) on stdout, or nothing
//! when the call is left alone.
//!
//! - Shell commands (Claude Code and Codex `PreToolUse` on `Bash`, Gemini CLI
//!   `BeforeTool` on `run_shell_command`): the command is rewritten to
//!   `toolcap run --id <tool call id> --tool <shell tool> -- bash -c '<command>'`,
//!   every other input field kept. Left alone: a command already under toolcap,
//!   a backgrounded one, one that changes the shell's own state (`cd`, `export`,
//!   ...) or one that needs a terminal (an editor, a pager, a bare REPL).
//! - MCP tools (Claude Code `PostToolUse` on `mcp__.*`; Codex `PostToolUse`):
//!   the result's text is processed as the MCP tool's result (its name without
//!   the `mcp__<server>__` prefix), the full text kept in the store under the tool
//!   call id, and the reply replaces what the model gets: Claude Code's
//!   `updatedMCPToolOutput` (text blocks), Codex's `decision: "block"` whose
//!   `reason` is what its model gets as the output (Codex 0.169 does not take
//!   `updatedMCPToolOutput`).
//! - Qwen Code (`PostToolUse` on its shell, read, search, list, fetch and MCP
//!   tools): a long result is replaced after the tool ran (hook/qwen.rs).
//!
//! - Files, searches, listings and fetches after they ran: Claude Code's `Read`
//!   and `Grep` (`PostToolUse` `updatedToolOutput` in the tool's own shape),
//!   Gemini CLI's `read_file`, `grep_search`, `glob`, `list_directory` and
//!   `web_fetch` (`AfterTool`: a `read_file` tail call of the view, see
//!   hook/gemini_after.rs), and the other agents' results (opencode, Kilo, Pi,
//!   Copilot CLI, Qwen Code: their own modules). A whole-file read's way back is
//!   the agent's read tool on the file.
//!
//! The protocols, with the files and versions they were read from, are in
//! docs/agents.md. A hook never blocks the tool: on a failure it says why on
//! stderr and exits 1, which each of these agents takes as "go on unchanged".

use std::io::Read;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde_json::{Map, Value, json};
use toolcap::config::RecoveryCalls;
use toolcap::store::{self, SaveWhen};
use toolcap::{ToolCall, ToolResultProcessor};

use super::common::{Failure, load_config, other, write_out};

mod copilot;
mod gemini;
mod gemini_after;
mod pi;
mod qwen;
use super::project::{project_store_path, toolcap_program, use_cli_recovery};
use super::stored::{dialog_id, env_store, expire_on_open, open_store_creating_dir};
pub use gemini::strip_comments as strip_json_comments;
pub use gemini_after::CAPPED as GEMINI_AFTER_TOOLS;

/// The agents with a hook protocol toolcap speaks.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum, Debug)]
pub enum Agent {
    /// Claude Code (`.claude/settings.json` hooks).
    ClaudeCode,
    /// Gemini CLI (`.gemini/settings.json` hooks).
    GeminiCli,
    /// Codex CLI (`hooks.json`).
    Codex,
    /// opencode, through toolcap's plugin (integrations/opencode/toolcap.ts):
    /// `{"event": "before"|"after", "tool", "callID", "args", "output"}` in,
    /// `{"args": {...}}` / `{"output": "..."}` out.
    Opencode,
    /// Pi, through toolcap's extension (integrations/pi/toolcap.ts):
    /// `{"tool", "callID", "args", "output", "details", "isError"}` in,
    /// `{"output": "..."}` out.
    Pi,
    /// GitHub Copilot CLI (`postToolUse` hooks in its settings.json):
    /// `{"toolName", "toolArgs", "toolResult"}` in, `{"modifiedResult": {...}}` out.
    Copilot,
    /// Qwen Code (`.qwen/settings.json` hooks): `PostToolUse` only (see hook/qwen.rs).
    QwenCode,
}

impl Agent {
    /// The agent's shell tool as its model calls it (suggestions name it; Codex's
    /// hooks call it `Bash`, its model `exec_command(cmd)`).
    pub fn shell_tool(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Bash",
            Agent::Codex => "exec_command",
            Agent::GeminiCli => "run_shell_command",
            Agent::Opencode => "bash",
            Agent::Pi => "bash",
            Agent::Copilot => "bash",
            Agent::QwenCode => "run_shell_command",
        }
    }
}

#[derive(Args)]
pub struct HookArgs {
    /// The agent whose hook input comes on stdin.
    #[arg(value_enum)]
    agent: Agent,
    /// The toolcap program wrapped commands call (default: this program's
    /// absolute path: the agent's PATH may not have toolcap).
    #[arg(long, value_name = "PATH")]
    toolcap: Option<PathBuf>,
    /// Suggestions for a capped MCP result call toolcap's own MCP tools under
    /// this prefix (`mcp__toolcap__` in Claude Code once `toolcap mcp` is added
    /// as the server `toolcap`), instead of `toolcap continue` through the shell.
    #[arg(long, value_name = "PREFIX")]
    mcp_prefix: Option<String>,
    /// The store (else $TOOLCAP_STORE, else the project's store in the state
    /// directory, as `toolcap run` uses).
    #[arg(long, value_name = "SPEC")]
    store: Option<PathBuf>,
    /// User config merged over the built-in thresholds (else $TOOLCAP_CONFIG).
    #[arg(long)]
    config: Option<PathBuf>,
}

pub fn hook(a: HookArgs) -> Result<(), Failure> {
    // a hook never blocks the tool: every failure exits 1 ("non-blocking")
    hook_inner(a).map_err(|f| Failure {
        code: 1,
        message: format!("hook: {}", f.message),
    })
}

fn hook_inner(a: HookArgs) -> Result<(), Failure> {
    let mut raw = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut raw)
        .map_err(|e| other(format!("cannot read the hook input on stdin: {e}")))?;
    let input: Value = serde_json::from_slice(&raw).map_err(|e| {
        other(format!(
            "the hook input on stdin is not JSON ({e}); this command is meant to be run by the agent as its hook (see `toolcap install`)"
        ))
    })?;
    match reply(&a, &input)? {
        Some(v) => write_out(format!("{v}\n").as_bytes()),
        None => Ok(()),
    }
}

/// The hook's reply to `input`, or None to leave the call alone.
pub fn reply(a: &HookArgs, input: &Value) -> Result<Option<Value>, Failure> {
    let event = input["hook_event_name"].as_str().unwrap_or_default();
    let tool = input["tool_name"].as_str().unwrap_or_default();
    match (a.agent, event) {
        // Claude Code's Bash goes through toolcap as its shell prefix (shell_prefix.rs),
        // after its permission rules decided on the model's command: the hook only
        // notes the call (its id, whether it runs in the background), and changes nothing
        (Agent::ClaudeCode, "PreToolUse") if tool == "Bash" => {
            let ti = &input["tool_input"];
            if let Some(command) = ti["command"].as_str() {
                let background = ti["run_in_background"].as_bool() == Some(true)
                    || (command.trim_end().ends_with('&') && !command.trim_end().ends_with("&&"));
                let id = input["tool_use_id"]
                    .as_str()
                    .filter(|id| store::validate_id("tool_call_id", id).is_ok());
                super::shell_prefix::note_call(command, id, background).map_err(|e| {
                    other(format!(
                        "cannot note the Bash call for the shell prefix: {e}"
                    ))
                })?;
            }
            Ok(None)
        }
        (Agent::Codex, "PreToolUse") if tool == "Bash" => {
            let Some(new) = wrapped_input(a, input, "command", "run_in_background")? else {
                return Ok(None);
            };
            let mut out = json!({
                "hookEventName": "PreToolUse",
                "updatedInput": new,
            });
            // Codex applies updatedInput only with an "allow" decision, which
            // also skips its approval and its execpolicy rules: given only where
            // approvals are off anyway and no rules file could forbid the command
            if input["permission_mode"].as_str() != Some("bypassPermissions")
                || codex_rules_exist(input["cwd"].as_str().map(Path::new))
            {
                return Ok(None);
            }
            out["permissionDecision"] = json!("allow");
            Ok(Some(json!({ "hookSpecificOutput": out })))
        }
        (Agent::GeminiCli, "BeforeTool") if tool == "run_shell_command" => {
            let cwd = input["cwd"].as_str().map(PathBuf::from);
            if !gemini::parity_holds(cwd.as_deref()) {
                return Ok(None);
            }
            let Some(new) = wrapped_input(a, input, "command", "is_background")? else {
                return Ok(None);
            };
            // Gemini CLI merges the fields given into the tool's input
            let command = new.get("command").cloned().unwrap_or(Value::Null);
            Ok(Some(json!({
                "hookSpecificOutput": {
                    "hookEventName": "BeforeTool",
                    "tool_input": {"command": command},
                }
            })))
        }
        (Agent::GeminiCli, "AfterTool") => gemini_after::reply(a, input),
        (Agent::ClaudeCode, "PostToolUse") if tool == "Read" => claude_read_reply(a, input),
        (Agent::ClaudeCode, "PostToolUse") if tool == "Grep" => claude_grep_reply(a, input),
        (Agent::ClaudeCode, "PostToolUse") if tool.starts_with("mcp__") => {
            let Some(capped) = cap_result(a, input, &input["tool_response"])? else {
                return Ok(None);
            };
            Ok(Some(json!({
                "hookSpecificOutput": {
                    "hookEventName": "PostToolUse",
                    "updatedMCPToolOutput": [{"type": "text", "text": capped}],
                }
            })))
        }
        (Agent::Opencode, _) => opencode_reply(a, input),
        (Agent::QwenCode, "PostToolUse") => qwen::reply(a, input),
        (Agent::Codex, "PostToolUse") if tool.starts_with("mcp__") => {
            let Some(capped) = cap_result(a, input, &input["tool_response"])? else {
                return Ok(None);
            };
            Ok(Some(json!({"decision": "block", "reason": capped})))
        }
        (Agent::Pi, _) => pi::reply(a, input),
        (Agent::Copilot, _) => copilot::reply(a, input),
        _ => Ok(None),
    }
}

/// Whether any Codex execpolicy rules file (`*.rules` in `$CODEX_HOME/rules`
/// or a `.codex/rules` of the working directory or one above it) exists: its
/// `prefix_rule`s decide on the model's command, and an "allow" from a hook
/// would skip them (seen on 0.169.0: a `forbidden` rm ran), so toolcap then
/// leaves the command alone.
fn codex_rules_exist(cwd: Option<&Path>) -> bool {
    let has_rules = |dir: &Path| {
        std::fs::read_dir(dir).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "rules"))
        })
    };
    let home = std::env::var_os("CODEX_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".codex")));
    if home.is_some_and(|h| has_rules(&h.join("rules"))) {
        return true;
    }
    let start = cwd
        .map(Path::to_path_buf)
        .or_else(|| std::env::current_dir().ok());
    start.is_some_and(|d| {
        d.ancestors()
            .any(|a| has_rules(&a.join(".codex").join("rules")))
    })
}

/// opencode's tools whose output is left as it is (edits, plans, questions).
pub(crate) const OPENCODE_SKIP: [&str; 11] = [
    "edit",
    "write",
    "patch",
    "multiedit",
    "apply_patch",
    "todowrite",
    "todoread",
    "task",
    "question",
    "skill",
    "invalid",
];

/// toolcap's opencode plugin: `after` any tool but edits and plans, its output
/// capped and stored under the call id (`{"output": ...}`). Nothing is changed
/// `before` a tool runs: opencode's permission rules decide on the model's own
/// command. A `bash` output opencode already cut is read whole from the file it
/// saved it to.
fn opencode_reply(a: &HookArgs, input: &Value) -> Result<Option<Value>, Failure> {
    let tool = input["tool"].as_str().unwrap_or_default();
    let call_id = input["callID"].clone();
    match input["event"].as_str() {
        Some("after") if !OPENCODE_SKIP.contains(&tool) => {
            let mut args = input["args"].clone();
            let mut output = input["output"].clone();
            if tool == "bash" {
                if let Some(text) = opencode_bash_output(input) {
                    output = Value::String(text);
                }
                if let (Some(exit), Some(o)) =
                    (input["metadata"]["exit"].as_i64(), args.as_object_mut())
                {
                    o.insert("exit_code".into(), json!(exit));
                }
            }
            let shaped = json!({
                "tool_name": tool,
                "tool_input": args,
                "tool_use_id": call_id,
            });
            Ok(cap_result(a, &shaped, &output)?.map(|text| json!({ "output": text })))
        }
        _ => Ok(None),
    }
}

/// The whole output of an opencode `bash` call that opencode cut: its
/// `...output truncated...` text keeps only the tail, the file named by
/// `metadata.outputPath` holds it all (its shell notes, such as a timeout, are
/// kept after it). None when it was not cut or the file cannot be read.
fn opencode_bash_output(input: &Value) -> Option<String> {
    if input["metadata"]["truncated"].as_bool() != Some(true) {
        return None;
    }
    let path = input["metadata"]["outputPath"].as_str()?;
    let mut whole = String::from_utf8_lossy(&std::fs::read(path).ok()?).into_owned();
    if let Some(at) = input["output"]
        .as_str()
        .and_then(|o| o.find("\n<shell_metadata>"))
    {
        whole.push_str(&input["output"].as_str().unwrap_or_default()[at..]);
    }
    Some(whole)
}

/// The tool input with its command wrapped in `toolcap run`, or None when the
/// command is to be left alone.
fn wrapped_input(
    a: &HookArgs,
    input: &Value,
    key: &str,
    background_key: &str,
) -> Result<Option<Map<String, Value>>, Failure> {
    let Some(tool_input) = input["tool_input"].as_object() else {
        return Ok(None);
    };
    if tool_input.get(background_key).and_then(Value::as_bool) == Some(true) {
        return Ok(None);
    }
    let Some(command) = tool_input.get(key).and_then(Value::as_str) else {
        return Ok(None);
    };
    let program = match &a.toolcap {
        Some(p) => p.to_string_lossy().into_owned(),
        None => super::common::this_program()
            .map(|p| p.to_string_lossy().into_owned())
            .map_err(|e| {
                other(format!(
                    "cannot tell where this toolcap is: {e}; pass --toolcap PATH"
                ))
            })?,
    };
    if leave_alone(command, &program) {
        return Ok(None);
    }
    let id = input["tool_use_id"]
        .as_str()
        .filter(|id| !id.is_empty() && store::validate_id("tool_call_id", id).is_ok());
    let q = |s: &str| {
        toolcap::internals::shell_word(s).ok_or_else(|| {
            other(format!(
                "{s:?} cannot be passed to a shell (it holds a NUL byte)"
            ))
        })
    };
    let mut words = vec![q(&program)?, "run".to_string()];
    if let Some(id) = id {
        words.push(format!("--id {}", q(id)?));
    }
    words.push(format!("--tool {}", a.agent.shell_tool()));
    if let Some(s) = &a.store {
        words.push(format!("--store {}", q(&s.to_string_lossy())?));
    }
    if let Some(c) = &a.config {
        words.push(format!("--config {}", q(&c.to_string_lossy())?));
    }
    words.push("-- bash -c".to_string());
    words.push(q(command)?);
    let rewritten = words.join(" ");
    // the agent hands the command to its shell as one argument: one that quoting
    // grew past Linux's single-argument limit (E2BIG) would not run at all
    if !super::run::fits_one_argument(&rewritten) {
        return Ok(None);
    }
    let mut out = tool_input.clone();
    out.insert(key.to_string(), Value::String(rewritten));
    Ok(Some(out))
}

/// Programs that need a terminal (full-screen, pagers, editors) or wait for one
/// when started without arguments (REPLs).
const INTERACTIVE: [&str; 16] = [
    "vi", "vim", "nvim", "nano", "emacs", "less", "more", "man", "top", "htop", "watch", "ssh",
    "tmux", "screen", "mc", "fzf",
];
const REPLS: [&str; 9] = [
    "python", "python3", "node", "irb", "bash", "sh", "zsh", "psql", "sqlite3",
];

/// `ssh`'s options that take an argument (OpenSSH 9).
const SSH_OPTIONS_WITH_ARG: &str = "BbcDEeFIiJLlmOoPpQRSWw";

/// Whether `ssh ARGS` runs a remote command without a terminal (its output then
/// comes back as any command's): a word after the destination, and no `-t` or
/// `RequestTTY` option asking for a terminal. `ssh host` alone opens a login shell.
fn ssh_runs_a_command(args: &[&str]) -> bool {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if *arg == "--" {
            break;
        }
        let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) else {
            // the destination: a command follows it, or none does
            return i < args.len();
        };
        for (at, flag) in cluster.char_indices() {
            if flag == 't' {
                return false;
            }
            if SSH_OPTIONS_WITH_ARG.contains(flag) {
                let value = match &cluster[at + flag.len_utf8()..] {
                    "" => {
                        i += 1;
                        args.get(i - 1).copied().unwrap_or_default()
                    }
                    attached => attached,
                };
                if flag == 'o' && value.to_ascii_lowercase().starts_with("requesttty") {
                    return false;
                }
                break;
            }
        }
    }
    // after `--`: the destination, then the command
    i + 1 < args.len()
}

/// Whether a command is left as it is: empty, already under toolcap (never
/// wrapped twice), backgrounded with a trailing `&`, or needing a terminal
/// (`ssh` only without a remote command or with a terminal asked for). (`cd`, `export`, `source` are wrapped: Codex and Gemini CLI, the agents whose
/// commands are rewritten, run each command in a fresh shell, so inside `toolcap
/// run` they have the same effect.)
pub fn leave_alone(command: &str, program: &str) -> bool {
    let c = command.trim();
    if c.is_empty() {
        return true;
    }
    let words: Vec<&str> = c.split_whitespace().collect();
    // skip leading VAR=value assignments
    let first_i = words
        .iter()
        .position(|w| !(w.contains('=') && !w.starts_with('=') && !w.starts_with('-')))
        .unwrap_or(words.len());
    let Some(first) = words.get(first_i) else {
        return true;
    };
    let first_unquoted = first.trim_matches(|c| c == '\'' || c == '"');
    let name = Path::new(first_unquoted)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(first_unquoted);
    if name == "toolcap" || first_unquoted == program || c.contains("toolcap run ") {
        return true;
    }
    if c.ends_with('&') && !c.ends_with("&&") {
        return true;
    }
    let rest = &words[first_i + 1..];
    if INTERACTIVE.contains(&name) && !(name == "ssh" && ssh_runs_a_command(rest)) {
        return true;
    }
    if REPLS.contains(&name) && rest.is_empty() {
        return true;
    }
    false
}

/// The text of an MCP tool's result as the hook gets it: a string (Claude Code
/// gives the structured content as JSON text: when that is an object with one
/// string field, that string), text blocks, or a `CallToolResult` object
/// (`{"content": [...]}`, Codex).
fn mcp_text(response: &Value) -> Option<String> {
    let blocks = |items: &Vec<Value>| -> Option<String> {
        let texts: Vec<&str> = items
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str())
            .collect();
        (!texts.is_empty() && texts.len() == items.len()).then(|| texts.join("\n"))
    };
    match response {
        Value::String(s) => {
            if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(s)
                && o.len() == 1
                && let Some(Value::String(inner)) = o.values().next()
            {
                return Some(inner.clone());
            }
            Some(s.clone())
        }
        Value::Array(items) => blocks(items),
        Value::Object(o) => match o.get("content") {
            Some(Value::Array(items)) if o.get("isError") != Some(&Value::Bool(true)) => {
                blocks(items)
            }
            _ => None,
        },
        _ => None,
    }
}

/// The capped text of a tool's result (an MCP tool's, or an opencode tool's), or None when it passes unchanged.
fn cap_result(a: &HookArgs, input: &Value, response: &Value) -> Result<Option<String>, Failure> {
    let Some(text) = mcp_text(response) else {
        return Ok(None);
    };
    Ok(process_result(a, input, &text, None)?
        .filter(|out| out.truncated)
        .map(|out| out.text))
}

/// A tool's result text processed as `input`'s tool's (kept in the project's
/// store under its tool call id when cut), with suggestions from `preset` (the
/// agent's own tools) or, without one, only the recovery tools; None when the
/// tool is bypassed.
fn process_result(
    a: &HookArgs,
    input: &Value,
    text: &str,
    preset: Option<&str>,
) -> Result<Option<toolcap::Processed>, Failure> {
    process_with(a, input, text, preset, true)
}

/// [`process_result`], with the full result kept in the store or not (a file
/// read whose way back is the agent's own read tool on the file).
fn process_with(
    a: &HookArgs,
    input: &Value,
    text: &str,
    preset: Option<&str>,
    keep: bool,
) -> Result<Option<toolcap::Processed>, Failure> {
    let full_name = input["tool_name"].as_str().unwrap_or_default();
    // mcp__<server>__<tool>: the server's own tool name picks the family
    let name = full_name
        .strip_prefix("mcp__")
        .and_then(|rest| rest.split_once("__").map(|(_, t)| t))
        .filter(|t| !t.is_empty())
        .unwrap_or(full_name);
    let mut config = load_config(a.config.as_deref())?;
    if config.is_bypassed(name) || config.is_bypassed(full_name) {
        return Ok(None);
    }
    let results = if keep {
        let spec = match a.store.clone().or_else(env_store) {
            Some(s) => s,
            None => project_store_path()?,
        };
        let results = open_store_creating_dir(&spec, "")?;
        expire_on_open(&*results, &config, "hook");
        Some(results)
    } else {
        None
    };
    if let Some(p) = preset.and_then(toolcap::config::presets::preset) {
        config.suggest = p.suggest(preset.unwrap_or_default());
    }
    match &a.mcp_prefix {
        Some(prefix) => {
            if preset.is_none() {
                config.suggest = toolcap::config::Suggest::from_listed(&[]);
            }
            config.suggest.recovery = RecoveryCalls::Tools {
                prefix: prefix.clone(),
            };
        }
        None => {
            use_cli_recovery(
                &mut config,
                a.agent.shell_tool(),
                a.store.as_deref(),
                a.config.as_deref(),
            );
            if let RecoveryCalls::Cli { options, .. } = &config.suggest.recovery {
                let program = match &a.toolcap {
                    Some(p) => toolcap::internals::shell_word(&p.to_string_lossy())
                        .unwrap_or_else(toolcap_program),
                    None => toolcap_program(),
                };
                config.suggest.recovery = RecoveryCalls::Cli {
                    program,
                    options: options.clone(),
                };
            }
            // the agent's own tools (its read tool with a line range, its grep)
            // beside the stored result's `toolcap` commands
            if let Some(p) = preset.and_then(toolcap::config::presets::preset) {
                let recovery = config.suggest.recovery.clone();
                config.suggest = p.suggest(preset.unwrap_or_default());
                config.suggest.recovery = recovery;
            }
        }
    }
    let id = input["tool_use_id"]
        .as_str()
        .filter(|id| !id.is_empty() && store::validate_id("tool_call_id", id).is_ok())
        .map_or_else(super::project::generated_id, str::to_string);
    let dialog = dialog_id(None)?;
    let args = match &input["tool_input"] {
        Value::Object(o) => Value::Object(o.clone()),
        _ => json!({}),
    };
    let processor = match results {
        Some(results) => ToolResultProcessor::new(config).with_store(results, SaveWhen::Cut),
        None => ToolResultProcessor::new(config),
    };
    let mut call = ToolCall::new(name, &args);
    call.id = Some(&id);
    call.dialog = Some(&dialog);
    let out = processor
        .try_process_call(&call, text)
        .map_err(|e| other(e.to_string()))?;
    Ok(Some(out))
}

/// Claude Code's `Read` of a whole file (or of its head) over the threshold:
/// the reply keeps the tool's own shape (`{"type": "text", "file": {...}}`, to
/// which Claude Code adds line numbers) with `content` cut to the view's kept
/// head, so every number the model sees is the file's own, and the marker and
/// recovery section (outline, `Read(file_path, offset, limit)` ranges of the
/// file itself: Read needs no other permission than the one just given) as the
/// hook's `additionalContext`. A ranged Read (`offset`
/// past the first line) is what the model asked for: left as it is.
fn claude_read_reply(a: &HookArgs, input: &Value) -> Result<Option<Value>, Failure> {
    let response = &input["tool_response"];
    let file = &response["file"];
    let (Some(content), Some(1)) = (file["content"].as_str(), file["startLine"].as_u64()) else {
        return Ok(None);
    };
    if response["type"] != "text" {
        return Ok(None);
    }
    let Some(out) = process_with(a, input, content, Some("claude-code"), false)? else {
        return Ok(None);
    };
    if !out.truncated {
        return Ok(None);
    }
    let Some(head) = out.kept.first().filter(|k| k.start_line == 1 && !k.partial) else {
        return Ok(None);
    };
    let kept: String = content
        .split_inclusive('\n')
        .take(head.end_line)
        .collect::<String>();
    let kept = kept.strip_suffix('\n').unwrap_or(&kept);
    // the view is the kept head, then the marker and the recovery section
    let Some(rest) = out.text.strip_prefix(kept) else {
        return Ok(None);
    };
    let mut new = response.clone();
    new["file"]["content"] = json!(kept);
    new["file"]["numLines"] = json!(head.end_line);
    Ok(Some(json!({
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "updatedToolOutput": new,
            "additionalContext": rest.trim_start_matches('\n'),
        }
    })))
}

/// Claude Code's `Grep` in content mode over the threshold: `content` replaced
/// by toolcap's view of the matches (the tool's own shape kept).
fn claude_grep_reply(a: &HookArgs, input: &Value) -> Result<Option<Value>, Failure> {
    let response = &input["tool_response"];
    let Some(content) = response["content"].as_str() else {
        return Ok(None);
    };
    if response["mode"] != "content" {
        return Ok(None);
    }
    let Some(out) = process_result(a, input, content, Some("claude-code"))? else {
        return Ok(None);
    };
    if !out.truncated {
        return Ok(None);
    }
    let mut new = response.clone();
    new["content"] = json!(out.text);
    Ok(Some(json!({
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "updatedToolOutput": new,
        }
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_left_alone() {
        let p = "/usr/local/bin/toolcap";
        for c in [
            "",
            "toolcap continue run-1 --start-line 3",
            "/usr/local/bin/toolcap search x 'y'",
            "'/usr/local/bin/toolcap' run -- bash -c 'ls'",
            "sleep 10 &",
            "vim a.txt",
            "python3",
            "FOO=1 less x",
            // a login shell on the other side
            "ssh host",
            "ssh -p 2222 -i ~/.ssh/k user@host",
            "ssh -t host top",
            "ssh -tt host make",
            "ssh -o RequestTTY=yes host make",
            "ssh -p",
        ] {
            assert!(leave_alone(c, p), "{c:?}");
        }
        for c in [
            "make test",
            "python3 -m pytest",
            "a && b",
            "FOO=1 cargo test",
            "git log | head",
            // a rewrite runs them in the same fresh shell Codex and Gemini CLI
            // start for every command: the same effect
            "cd sub && cargo test",
            "source .venv/bin/activate && pytest",
            "export A=1; make",
            "pushd x && make",
            // a remote command without a terminal: its output comes back as any other
            "ssh host uptime",
            "ssh -p 2222 -i ~/.ssh/k user@host 'cd app && make test'",
            "ssh -o BatchMode=yes -l deploy host ls /srv",
            "ssh -p2222 host -- journalctl -n 50",
        ] {
            assert!(!leave_alone(c, p), "{c:?}");
        }
    }

    #[test]
    fn mcp_text_from_each_shape() {
        assert_eq!(
            mcp_text(&json!("{\"content\":\"1\\n2\"}")).as_deref(),
            Some("1\n2")
        );
        assert_eq!(mcp_text(&json!("plain")).as_deref(), Some("plain"));
        assert_eq!(
            mcp_text(&json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]))
                .as_deref(),
            Some("a\nb")
        );
        assert_eq!(
            mcp_text(&json!({"content": [{"type": "text", "text": "x"}]})).as_deref(),
            Some("x")
        );
        assert_eq!(mcp_text(&json!([{"type": "image", "data": ""}])), None);
    }
}
