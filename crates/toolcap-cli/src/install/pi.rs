//! `toolcap install pi`: toolcap's extension for Pi (@mariozechner/pi-coding-agent),
//! written whole into toolcap's state directory with the toolcap path filled in,
//! and named in Pi's `settings.json` `extensions` list (`~/.pi/agent/`, or
//! `$PI_CODING_AGENT_DIR`, for the user; `DIR/.pi/` for a project), so nothing is
//! added to the project but that one settings entry. Pi has no MCP client of its
//! own: no MCP server is added.

use std::path::PathBuf;

use super::super::common::Failure;
use super::writers::set_list_item;
use super::{Change, Edit, Scope, agent_file, env_dir};

/// The files `toolcap install pi` changes.
pub(super) fn edits(scope: &Scope, program: &str, install: bool) -> Result<Vec<Edit>, Failure> {
    let settings = settings_file(scope);
    let extension = agent_file(scope, "pi-extension", ".ts")?;
    let listed = extension.to_string_lossy().into_owned();
    Ok(vec![
        Edit {
            path: extension,
            change: Change::Whole(install.then(|| pi_extension(program))),
        },
        Edit {
            path: settings,
            change: Change::Json(Box::new(move |v| {
                set_list_item(v, "extensions", &listed, install);
            })),
        },
    ])
}

/// Pi's settings file for the scope.
fn settings_file(scope: &Scope) -> PathBuf {
    match scope {
        Scope::User(h) => env_dir("PI_CODING_AGENT_DIR")
            .unwrap_or_else(|| h.join(".pi").join("agent"))
            .join("settings.json"),
        Scope::Project(d) => d.join(".pi").join("settings.json"),
    }
}

/// The Pi extension, with the toolcap program filled in.
pub(super) fn pi_extension(program: &str) -> String {
    const EXTENSION: &str = include_str!("../../integrations/pi/toolcap.ts");
    EXTENSION.replace(
        "process.env.TOOLCAP_BIN ?? \"toolcap\"",
        &format!(
            "process.env.TOOLCAP_BIN ?? {}",
            serde_json::Value::String(program.to_string())
        ),
    )
}
