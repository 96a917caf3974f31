//! What `toolcap install qwen-code` and `toolcap install kilo` write.
//!
//! - Qwen Code reads hooks and MCP servers from `settings.json` (`~/.qwen/`, or
//!   the project's `.qwen/`): a `PostToolUse` hook (`toolcap hook qwen-code`) on
//!   its shell, read, search, list and fetch tools and MCP tools, and
//!   `mcpServers.toolcap`. No hook of Qwen Code can change a command, so nothing
//!   runs before a tool (see src/cli/hook/qwen.rs).
//! - Kilo Code's CLI is a fork of opencode: the same plugin API, so the same
//!   plugin file (integrations/opencode/toolcap.ts, through `toolcap hook
//!   opencode`) named in its config's `plugin` list, and `mcp.toolcap`. Its config
//!   is `kilo.jsonc` / `kilo.json` (also `opencode.json[c]`) in the project, and
//!   `~/.config/kilo/kilo.jsonc` for the user (Kilo writes that file itself on its
//!   first start).

use std::path::{Path, PathBuf};

use serde_json::json;

use super::super::common::Failure;
use super::writers::{opencode_plugin, set_hook, set_list_item, set_mcp};
use super::{Change, Edit, Scope, agent_file, env_dir};

/// Qwen Code's tools whose results toolcap caps: an anchored regex (Qwen Code
/// tests an unanchored one against the tool name: `glob` alone would match any
/// name holding it).
pub const QWEN_MATCHER: &str =
    "^(run_shell_command|read_file|grep_search|glob|list_directory|web_fetch|mcp__.*)$";

/// Qwen Code's `settings.json`: toolcap's `PostToolUse` hook (`hook_cmd`) and
/// MCP server.
pub(super) fn qwen_edits(
    scope: &Scope,
    program: &str,
    hook_cmd: String,
    mcp: bool,
    install: bool,
) -> Vec<Edit> {
    let settings = match scope {
        Scope::User(h) => h.join(".qwen").join("settings.json"),
        Scope::Project(d) => d.join(".qwen").join("settings.json"),
    };
    let mcp_on = mcp && install;
    let entry = json!({"command": program, "args": ["mcp"]});
    vec![Edit {
        path: settings,
        change: Change::Json(Box::new(move |v| {
            set_hook(
                v,
                "PostToolUse",
                QWEN_MATCHER,
                &hook_cmd,
                "qwen-code",
                Some("toolcap"),
                install,
            );
            set_mcp(v, "mcpServers", entry.clone(), mcp_on);
        })),
    }]
}

/// Kilo's config: opencode's plugin file (in toolcap's state dir) named in
/// `plugin`, and `mcp.toolcap`.
pub(super) fn kilo_edits(
    scope: &Scope,
    program: &str,
    mcp: bool,
    install: bool,
) -> Result<Vec<Edit>, Failure> {
    let config = kilo_config(scope);
    let plugin_path = agent_file(scope, "kilo-plugin", ".ts")?;
    let plugin_url = format!("file://{}", plugin_path.display());
    let mcp_on = mcp && install;
    let entry = json!({"type": "local", "command": [program, "mcp"], "enabled": true});
    Ok(vec![
        Edit {
            path: plugin_path,
            change: Change::Whole(install.then(|| opencode_plugin(program))),
        },
        Edit {
            path: config,
            change: Change::Json(Box::new(move |v| {
                set_list_item(v, "plugin", &plugin_url, install);
                set_mcp(v, "mcp", entry.clone(), mcp_on);
            })),
        },
    ])
}

/// The config file Kilo reads that toolcap edits: the user's first existing
/// one in Kilo's config dir (the order Kilo picks it in), else `kilo.jsonc`; a
/// project's `kilo.jsonc` when it exists, else its `kilo.json`.
pub fn kilo_config(scope: &Scope) -> PathBuf {
    match scope {
        Scope::User(h) => {
            let dir = kilo_user_dir(h);
            [
                "kilo.jsonc",
                "kilo.json",
                "opencode.jsonc",
                "opencode.json",
                "config.json",
            ]
            .iter()
            .map(|n| dir.join(n))
            .find(|p| p.is_file())
            .unwrap_or_else(|| dir.join("kilo.jsonc"))
        }
        Scope::Project(d) => {
            let jsonc = d.join("kilo.jsonc");
            if jsonc.is_file() {
                jsonc
            } else {
                d.join("kilo.json")
            }
        }
    }
}

/// `$XDG_CONFIG_HOME/kilo`, else `~/.config/kilo`.
pub fn kilo_user_dir(home: &Path) -> PathBuf {
    env_dir("XDG_CONFIG_HOME")
        .unwrap_or_else(|| home.join(".config"))
        .join("kilo")
}
