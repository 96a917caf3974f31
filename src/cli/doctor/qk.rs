//! `toolcap doctor` for Qwen Code and Kilo.

use std::path::{Path, PathBuf};

use super::{AgentState, hook_commands, plugin_agent, programs_in, read_json};

/// Qwen Code: toolcap's `PostToolUse` hook in `~/.qwen/settings.json` or the
/// project's `.qwen/settings.json`.
pub(super) fn qwen_code(home: &Path, project: &Path) -> AgentState {
    let mut s = AgentState {
        agent: "qwen-code",
        installed_in: Vec::new(),
        active: None,
        note: None,
        programs: Vec::new(),
    };
    for f in [
        home.join(".qwen/settings.json"),
        project.join(".qwen/settings.json"),
    ] {
        let Some(v) = read_json(&f) else { continue };
        let hooks = hook_commands(&v, "qwen-code");
        if hooks.is_empty() {
            continue;
        }
        for h in &hooks {
            s.programs.extend(programs_in(h));
        }
        s.installed_in.push(f);
    }
    s.programs.dedup();
    if !s.installed_in.is_empty() {
        s.active = Some(s.programs.iter().all(|(_, ok)| *ok));
        s.note = Some("results are capped after the tool ran; Qwen Code shows the user \"Tool ... was not run\" for a capped result, which did run (docs/agents.md)".into());
    }
    s
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
