//! `toolcap doctor` for Qwen Code and Kilo.

use std::path::{Path, PathBuf};

use super::{AgentState, hook_agent, plugin_agent};

/// Qwen Code: toolcap's `PostToolUse` hook in `~/.qwen/settings.json` or the
/// project's `.qwen/settings.json`.
pub(super) fn qwen_code(home: &Path, project: &Path) -> AgentState {
    hook_agent(
        "qwen-code",
        &[
            home.join(".qwen/settings.json"),
            project.join(".qwen/settings.json"),
        ],
        "results are capped after the tool ran; Qwen Code shows the user \"Tool ... was not run\" for a capped result, which did run (docs/agents.md)",
    )
}

/// Kilo: opencode's plugin named in Kilo's user config or the project's
/// `kilo.json` / `kilo.jsonc`.
pub(super) fn kilo(home: &Path, project: &Path) -> AgentState {
    let dir = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map_or_else(|| home.join(".config"), PathBuf::from)
        .join("kilo");
    let mut files: Vec<PathBuf> = [
        "kilo.jsonc",
        "kilo.json",
        "opencode.jsonc",
        "opencode.json",
        "config.json",
    ]
    .iter()
    .map(|n| dir.join(n))
    .collect();
    files.push(project.join("kilo.jsonc"));
    files.push(project.join("kilo.json"));
    plugin_agent("kilo", &files)
}
