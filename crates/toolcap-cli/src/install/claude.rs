//! `toolcap install claude-code`: Claude Code's shell prefix script (Bash runs
//! through `toolcap run`), its hooks in `settings.json` and
//! `CLAUDE_CODE_SHELL_PREFIX` (in `~/.claude/settings.json` for the user, in
//! the project's `.claude/settings.local.json`, the file a team does not
//! commit: the prefix names a script on this machine), and the MCP server
//! (`~/.claude.json` for the user, `DIR/.mcp.json` for a project).

use serde_json::json;

use super::super::common::Failure;
use super::super::install::MARK;
use super::writers::{set_env, set_hook, set_list_item, set_mcp};
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
    // the prefix names a script on this machine: never in the file a team commits
    let env_file = match scope {
        Scope::User(_) => None,
        Scope::Project(d) => Some(d.join(".claude").join("settings.local.json")),
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
    let in_settings = env_file.is_none();
    let prefix_for_settings = prefix_str.clone();
    out.push(Edit {
        path: prefix,
        change: Change::Whole(install.then(|| prefix_script(program))),
    });
    out.push(Edit {
        path: settings,
        change: Change::Json(Box::new(move |v| {
            // PreToolUse on Bash notes the call for the prefix (its id; whether
            // it runs in the background); it changes nothing of the command
            set_hook(v, "PreToolUse", "Bash", &cmd, "claude-code", None, install);
            // (a project's: in settings.local.json; an older toolcap's entry here goes)
            set_env(
                v,
                "CLAUDE_CODE_SHELL_PREFIX",
                &prefix_for_settings,
                install && in_settings,
            );
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
    if let Some(env_file) = env_file {
        out.push(Edit {
            path: env_file,
            change: Change::Json(Box::new(move |v| {
                set_env(v, "CLAUDE_CODE_SHELL_PREFIX", &prefix_str, install);
            })),
        });
    }
    let entry = json!({"type": "stdio", "command": program, "args": ["mcp"]});
    out.push(Edit {
        path: mcp_file,
        change: Change::Json(Box::new(move |v| {
            set_mcp(v, "mcpServers", entry.clone(), mcp_on);
        })),
    });
    Ok(out)
}

/// The script Claude Code runs as `CLAUDE_CODE_SHELL_PREFIX` (one argument:
/// its Bash tool's script; for a hook or an MCP server, that command line).
/// It runs toolcap's `shell-prefix` only when the program answers `ready` to
/// `shell-prefix claude-code --ready` (so a program that is gone, cannot run,
/// is cut short, or is an older toolcap without it is never handed the
/// command), else the script exactly as Claude Code runs it without a prefix:
/// with the shell it would use, by path (`$SHELL`, which Claude Code sets to
/// its bash for the command; zsh for a zsh snapshot), so nothing of the
/// command changes, `$0` included. Anything else it is handed runs as it is.
pub(super) fn prefix_script(program: &str) -> String {
    let q = toolcap_text::quote::shell_word(program).unwrap_or_else(|| program.to_string());
    format!(
        r#"#!/bin/sh
# {MARK}: Claude Code runs each Bash command as `<this file> SCRIPT`
# (CLAUDE_CODE_SHELL_PREFIX in its settings), after its permission rules
# decided on the command; toolcap caps the output. Whatever is wrong with
# toolcap at this path, the command runs as it would without a prefix.
t={q}
[ "$#" -eq 1 ] || exec "$@"
r=
[ -x "$t" ] && {{ r=$("$t" shell-prefix claude-code --ready </dev/null); }} 2>/dev/null
[ "$r" = ready ] && exec "$t" shell-prefix claude-code "$1"
case "$1" in
*"/shell-snapshots/snapshot-zsh-"*)
  for s in "$CLAUDE_CODE_SHELL" "$SHELL" /bin/zsh /usr/bin/zsh /usr/local/bin/zsh /opt/homebrew/bin/zsh; do
    case "$s" in /*zsh*) [ -x "$s" ] && exec "$s" -c "$1" ;; esac
  done
  exec zsh -c "$1" ;;
esac
for s in "$SHELL" /bin/bash /usr/bin/bash /usr/local/bin/bash /opt/homebrew/bin/bash; do
  case "$s" in /*/bash) [ -x "$s" ] && exec "$s" -c "$1" ;; esac
done
exec bash -c "$1"
"#
    )
}
