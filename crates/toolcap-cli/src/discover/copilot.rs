//! GitHub Copilot CLI's session events (seen on disk after runs of Copilot CLI
//! 1.0.102): one directory per session, `~/.copilot/session-state/<id>/`, its
//! `events.jsonl` a line per event, `{"type", "data", "id", "timestamp"}`:
//! `session.start` (`data.context.cwd`: the project), `tool.execution_start`
//! (`toolCallId`, `toolName`, `arguments`) and `tool.execution_complete`
//! (`toolCallId`, `success`, `result.content`: what the model read; a `bash`
//! result ends with `<shellId: N completed with exit code K>`). An output too
//! large is given as "Output too large to read at once (106.3 KB). Saved to:
//! PATH" and a preview, the whole output in PATH (a temporary file that lives
//! while the session runs): discover reads it back the way toolcap's hook does
//! (`hook::copilot_output`) while it is there; once the session has ended the
//! file is gone and the result's size is known only as at least its preview.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use toolcap_config::Config;

use super::super::common::Failure;
use super::super::hook::copilot_output;
use super::{Agent, Found, JsonLines, Scope, Seen, home, unwrap_run, utc_ms};

pub fn collect(scope: &Scope, config: &Config) -> Result<Found, Failure> {
    let root = home("a HOME with .copilot")?.join(".copilot/session-state");
    let mut found = Found::new(Agent::Copilot, root.clone(), config);
    let Ok(sessions) = std::fs::read_dir(&root) else {
        return Ok(found);
    };
    let mut files: Vec<PathBuf> = sessions
        .filter_map(Result::ok)
        .map(|e| e.path().join("events.jsonl"))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    for f in files {
        read_session(&f, scope, &mut found);
    }
    Ok(found)
}

fn read_session(file: &Path, scope: &Scope, found: &mut Found) {
    let Some(mut lines) = JsonLines::open(file) else {
        return;
    };
    let mut started: HashMap<String, (String, Value)> = HashMap::new();
    let mut in_project = scope.project.is_none();
    let mut counted = false;
    for v in &mut lines {
        let data = &v["data"];
        match v["type"].as_str() {
            Some("session.start") => {
                let cwd = data.pointer("/context/cwd").and_then(Value::as_str);
                in_project = scope.keeps_dir(cwd.map(Path::new));
            }
            Some("tool.execution_start") => {
                if let (Some(id), Some(name)) =
                    (data["toolCallId"].as_str(), data["toolName"].as_str())
                {
                    started.insert(
                        id.to_string(),
                        (name.to_string(), data["arguments"].clone()),
                    );
                }
            }
            Some("tool.execution_complete") => {
                let time = v["timestamp"].as_str().and_then(utc_ms);
                let Some((name, input)) = data["toolCallId"]
                    .as_str()
                    .and_then(|id| started.remove(id))
                else {
                    continue;
                };
                if !in_project || !scope.keeps_time(time) {
                    continue;
                }
                let shown = match data.pointer("/result/content") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => match data.pointer("/error/message").and_then(Value::as_str) {
                        Some(e) => e.to_string(),
                        None => continue,
                    },
                };
                result(&name, &input, shown, found);
                if !counted {
                    found.sessions += 1;
                    counted = true;
                }
            }
            _ => {}
        }
    }
    lines.count_into(found);
}

/// One tool result, counted.
fn result(name: &str, input: &Value, shown: String, found: &mut Found) {
    let command = (name == "bash")
        .then(|| input.get("command").and_then(Value::as_str))
        .flatten()
        .map(unwrap_run);
    found.call(name, command.as_deref());
    let named_a_file = shown.starts_with("Output too large to read at once (");
    let (output, _, from_file) = copilot_output(name, &shown);
    if named_a_file {
        found.persisted += 1;
        if !from_file {
            found.persisted_missing += 1;
        }
    }
    // Copilot removes the file when its session ends: the result is then known
    // only by the preview the model read, a lower bound of its size
    let gone = named_a_file && !from_file;
    let full = (from_file || output != shown).then_some(output);
    found.result(Seen {
        tool: name,
        input,
        command,
        shown,
        full,
        full_cut: gone,
    });
}
