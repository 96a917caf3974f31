//! `toolcap doctor` for GitHub Copilot CLI: the settings files whose
//! `hooks.postToolUse` runs `toolcap hook copilot`, and the program it names.

use std::path::{Path, PathBuf};

use super::{AgentState, programs_in, read_json};

pub(super) fn copilot(home: &Path, project: &Path) -> AgentState {
    let mut s = AgentState {
        agent: "copilot",
        installed_in: Vec::new(),
        active: None,
        note: None,
        programs: Vec::new(),
    };
    let copilot_home = std::env::var_os("COPILOT_HOME")
        .filter(|v| !v.is_empty())
        .map_or_else(|| home.join(".copilot"), PathBuf::from);
    let user = copilot_home.join("settings.json");
    for f in [
        user.clone(),
        project.join(".github/copilot/settings.json"),
        project.join(".github/copilot/settings.local.json"),
    ] {
        let Some(v) = read_json(&f) else { continue };
        let ours: Vec<String> = v["hooks"]["postToolUse"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|h| h["bash"].as_str())
            .filter(|c| c.contains("toolcap") && c.contains(" hook copilot"))
            .map(str::to_string)
            .collect();
        if ours.is_empty() {
            continue;
        }
        for c in &ours {
            s.programs.extend(programs_in(c));
        }
        if f != user {
            s.note = Some("Copilot runs a project's hooks only in a folder you trusted (it asks at start and keeps the answer in trustedFolders of ~/.copilot/config.json; COPILOT_ALLOW_ALL=true trusts it too)".into());
        }
        s.installed_in.push(f);
    }
    s.programs.dedup();
    if !s.installed_in.is_empty() {
        s.active = Some(s.programs.iter().all(|(_, ok)| *ok));
    }
    s
}
