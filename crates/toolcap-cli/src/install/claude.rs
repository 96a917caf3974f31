//! `toolcap install claude-code`: Claude Code's shell prefix script (Bash runs
//! through `toolcap run`), its hooks and `CLAUDE_CODE_SHELL_PREFIX` in
//! `settings.json`, and the MCP server (`~/.claude.json` for the user,
//! `DIR/.mcp.json` for a project).

use serde_json::json;

use super::super::common::Failure;
use super::writers::{claude_prefix_script, set_env, set_hook, set_list_item, set_mcp};
use super::{Change, Edit, Scope, Target, agent_file, open_hook_cmd};

/// The files `toolcap install claude-code` changes.
pub(super) fn edits(
    scope: &Scope,
    program: &str,
    mcp: bool,
    install: bool,
) -> Result<Vec<Edit>, Failure> {
    let mut out = Vec::new();
    let (settings, mcp_file) = match scope {
        Scope::User(h) => (
            h.join(".claude").join("settings.json"),
            h.join(".claude.json"),
        ),
        Scope::Project(d) => (d.join(".claude").join("settings.json"), d.join(".mcp.json")),
    };
    let extra = if mcp {
        " --mcp-prefix mcp__toolcap__"
    } else {
        ""
    };
    let cmd = open_hook_cmd(program, Target::ClaudeCode, extra);
    let project = matches!(scope, Scope::Project(_));
    let mcp_on = mcp && install;
    // Bash runs through toolcap as Claude Code's shell prefix, after its
    // permission rules decided on the model's own command (see shell_prefix.rs)
    let prefix = agent_file(scope, "claude-code-shell-prefix", "")?;
    let prefix_str = prefix.to_string_lossy().into_owned();
    out.push(Edit {
        path: prefix,
        change: Change::Whole(install.then(|| claude_prefix_script(program))),
    });
    out.push(Edit {
        path: settings,
        change: Change::Json(Box::new(move |v| {
            // PreToolUse on Bash notes the call for the prefix (its id; whether
            // it runs in the background); it changes nothing of the command
            set_hook(v, "PreToolUse", "Bash", &cmd, "claude-code", None, install);
            set_env(v, "CLAUDE_CODE_SHELL_PREFIX", &prefix_str, install);
            // MCP results, and Read and Grep results, capped after they ran
            set_hook(
                v,
                "PostToolUse",
                "mcp__.*|Read|Grep",
                &cmd,
                "claude-code",
                None,
                install,
            );
            if project {
                set_list_item(v, "enabledMcpjsonServers", "toolcap", mcp_on);
            }
        })),
    });
    let entry = json!({"type": "stdio", "command": program, "args": ["mcp"]});
    out.push(Edit {
        path: mcp_file,
        change: Change::Json(Box::new(move |v| {
            set_mcp(v, "mcpServers", entry.clone(), mcp_on);
        })),
    });
    Ok(out)
}
