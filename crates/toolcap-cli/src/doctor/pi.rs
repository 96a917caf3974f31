//! `toolcap doctor` for Pi: the settings files whose `extensions` list names
//! toolcap's extension, whether that file is there, and the toolcap program it
//! calls.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{AgentState, programs_in, read_json};

pub(super) fn pi(home: &Path, project: &Path) -> AgentState {
    let mut s = AgentState {
        agent: "pi",
        installed_in: Vec::new(),
        active: None,
        note: None,
        programs: Vec::new(),
    };
    let agent_dir = std::env::var_os("PI_CODING_AGENT_DIR")
        .filter(|v| !v.is_empty())
        .map_or_else(|| home.join(".pi/agent"), PathBuf::from);
    let mut extension_ok = true;
    for f in [
        agent_dir.join("settings.json"),
        project.join(".pi/settings.json"),
    ] {
        let Some(v) = read_json(&f) else { continue };
        let ours: Vec<String> = v["extensions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|p| p.contains("toolcap") && p.contains("pi-extension"))
            .map(str::to_string)
            .collect();
        if ours.is_empty() {
            continue;
        }
        for path in &ours {
            match super::read_text(Path::new(path)) {
                Ok(ts) => {
                    for line in ts.lines().filter(|l| l.contains("TOOLCAP_BIN ??")) {
                        s.programs.extend(programs_in(&line.replace('"', " ")));
                    }
                }
                Err(_) => {
                    extension_ok = false;
                    s.note = Some(format!(
                        "the extension {path} is missing: run `toolcap install pi` again"
                    ));
                }
            }
        }
        s.installed_in.push(f);
    }
    s.programs.dedup();
    if !s.installed_in.is_empty() {
        s.active = Some(extension_ok && s.programs.iter().all(|(_, ok)| *ok));
    }
    s
}
