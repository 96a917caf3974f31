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
//! - Codex's shell after it ran (`PostToolUse` on `Bash`, where approvals are
//!   on or rules exist): a long output read whole from Codex's rollout file
//!   and replaced by `decision: "block"` (hook/codex.rs).
//! - Qwen Code (`PostToolUse` on its shell, read, search, list, fetch and MCP
//!   tools): a long result is replaced after the tool ran (hook/qwen.rs).
//!
//! - Files, searches, listings and fetches after they ran: Claude Code's `Read`
//!   and `Grep` (`PostToolUse` `updatedToolOutput` in the tool's own shape),
//!   Gemini CLI's `read_file`, `grep_search`, `glob`, `list_directory`,
//!   `web_fetch` and `run_shell_command` (`AfterTool`: a `read_file` tail call
//!   of the view, in every approval mode, see hook/gemini_after.rs), and the other agents' results (opencode, Kilo, Pi,
//!   Copilot CLI, Qwen Code: their own modules). A whole-file read's way back is
//!   the agent's read tool on the file.
//!
//! The protocols, with the files and versions they were read from, are in
//! docs/agents.md. A hook never blocks the tool: on a failure it says why on
//! stderr and exits 1, which each of these agents takes as "go on unchanged".

use std::io::Read;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde_json::{Value, json};
use toolcap_config::RecoveryCalls;
use toolcap_core::{ToolCall, ToolResultProcessor};
use toolcap_store::SaveWhen;

use super::common::{Failure, load_config, other, write_out};

mod claude;
mod codex;
mod copilot;
mod gemini;
mod gemini_after;
mod opencode;
mod pi;
mod qwen;
mod shell;
use super::project::{project_store_path, toolcap_program, use_cli_recovery};
use super::stored::{dialog_id, env_store, expire_on_open, open_store_creating_dir};
use claude::{claude_grep_reply, claude_read_reply};
pub(crate) use copilot::{SKIP as COPILOT_SKIP, output_of as copilot_output};
pub(crate) use gemini_after::cut_notice_path as gemini_cut_notice_path;
pub(crate) use opencode::OPENCODE_SKIP;
use opencode::opencode_reply;
pub(crate) use pi::{
    SKIP as PI_SKIP, names_saved_output as pi_names_saved, saved_output as pi_saved_output,
};
use shell::{codex_rules_exist, wrapped_input};

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
            if let Some(command) = ti["command"].as_str()
                && let Some(why) = super::shell_prefix::too_long_for_the_prefix(command)
            {
                // Claude Code cannot start it (E2BIG) through any prefix: no note
                // (nothing will take it), and the model is told why
                return Ok(Some(json!({
                    "hookSpecificOutput": {
                        "hookEventName": "PreToolUse",
                        "additionalContext": why,
                    }
                })));
            }
            if let (Some(command), Some(session)) =
                (ti["command"].as_str(), input["session_id"].as_str())
            {
                let background = ti["run_in_background"].as_bool() == Some(true)
                    || (command.trim_end().ends_with('&') && !command.trim_end().ends_with("&&"));
                let id = input["tool_use_id"]
                    .as_str()
                    .filter(|id| toolcap_store::validate_id("tool_call_id", id).is_ok());
                super::shell_prefix::note_call(session, command, id, background).map_err(|e| {
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
        (Agent::Codex, "PostToolUse") if tool == "Bash" => codex::post_shell_reply(a, input),
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
) -> Result<Option<toolcap_core::Processed>, Failure> {
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
) -> Result<Option<toolcap_core::Processed>, Failure> {
    process_full(a, input, text, preset, keep, None)
}

/// The argument naming the file a whole output was saved to (see
/// [`process_saved`]); toolcap's own, never one of the agent's.
const SAVED_ARG: &str = "toolcap_saved_output";

/// [`process_with`] for a result whose whole text was saved to `saved`, a file
/// the agent's read tool reads: nothing is stored, and the view's ways back
/// read that file (the tool's entry takes the file as its path argument).
fn process_saved(
    a: &HookArgs,
    input: &Value,
    text: &str,
    preset: Option<&str>,
    saved: &Path,
) -> Result<Option<toolcap_core::Processed>, Failure> {
    process_full(a, input, text, preset, false, Some(saved))
}

fn process_full(
    a: &HookArgs,
    input: &Value,
    text: &str,
    preset: Option<&str>,
    keep: bool,
    saved: Option<&Path>,
) -> Result<Option<toolcap_core::Processed>, Failure> {
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
    if let Some(p) = preset.and_then(toolcap_config::presets::preset) {
        config.suggest = p.suggest(preset.unwrap_or_default());
    }
    match &a.mcp_prefix {
        Some(prefix) => {
            if preset.is_none() {
                config.suggest = toolcap_config::Suggest::from_listed(&[]);
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
                    Some(p) => toolcap_text::quote::shell_word(&p.to_string_lossy())
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
            if let Some(p) = preset.and_then(toolcap_config::presets::preset) {
                let recovery = config.suggest.recovery.clone();
                config.suggest = p.suggest(preset.unwrap_or_default());
                config.suggest.recovery = recovery;
            }
        }
    }
    let id = input["tool_use_id"]
        .as_str()
        .filter(|id| !id.is_empty() && toolcap_store::validate_id("tool_call_id", id).is_ok())
        .map_or_else(super::project::generated_id, str::to_string);
    let dialog = dialog_id(None)?;
    let mut args = match &input["tool_input"] {
        Value::Object(o) => Value::Object(o.clone()),
        _ => json!({}),
    };
    if let Some(path) = saved {
        let key = config.entry_for(name).key.clone();
        let Some(entry) = config.tools.iter_mut().find(|t| t.key == key) else {
            return Ok(None);
        };
        entry.args.path.insert(0, SAVED_ARG.to_string());
        args[SAVED_ARG] = json!(path.to_string_lossy());
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
