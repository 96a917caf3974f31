//! `toolcap install opencode`: toolcap's opencode plugin, written whole into
//! toolcap's state directory and named in `opencode.json`'s `plugin` list, and
//! the MCP server.

use serde_json::json;

use super::super::common::Failure;
use super::writers::{opencode_plugin, set_list_item, set_mcp};
use super::{Change, Edit, Scope, agent_file, env_dir};

/// The files `toolcap install opencode` changes.
pub(super) fn edits(
    scope: &Scope,
    program: &str,
    mcp: bool,
    install: bool,
) -> Result<Vec<Edit>, Failure> {
    let mut out = Vec::new();
    let dir = match scope {
        Scope::User(h) => env_dir("XDG_CONFIG_HOME")
            .unwrap_or_else(|| h.join(".config"))
            .join("opencode"),
        Scope::Project(d) => d.join(".opencode"),
    };
    let config = match scope {
        Scope::User(_) => dir.join("opencode.json"),
        Scope::Project(d) => d.join("opencode.json"),
    };
    // the plugin lives in toolcap's state dir, named in opencode.json's
    // `plugin` list: a plugin file in the project's .opencode/ would make
    // opencode install its plugin API there (node_modules in the project)
    let plugin_path = agent_file(scope, "opencode-plugin", ".ts")?;
    let plugin_url = format!("file://{}", plugin_path.display());
    out.push(Edit {
        path: plugin_path,
        change: Change::Whole(install.then(|| opencode_plugin(program))),
    });
    // where earlier installs put it
    out.push(Edit {
        path: dir.join("plugin").join("toolcap.ts"),
        change: Change::Whole(None),
    });
    let mcp_on = mcp && install;
    let entry = json!({"type": "local", "command": [program, "mcp"], "enabled": true});
    out.push(Edit {
        path: config,
        change: Change::Json(Box::new(move |v| {
            set_list_item(v, "plugin", &plugin_url, install);
            set_mcp(v, "mcp", entry.clone(), mcp_on);
        })),
    });
    Ok(out)
}
