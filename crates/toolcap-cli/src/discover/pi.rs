//! Pi's sessions (seen on disk after runs of Pi 0.73.1 without `--no-session`):
//! `~/.pi/agent/sessions/<the cwd, encoded>/<time>_<id>.jsonl` (the directory
//! is `$PI_CODING_AGENT_SESSION_DIR`, else `$PI_CODING_AGENT_DIR/sessions`), a
//! line per entry, `{"type", "id", "parentId", "timestamp", ...}`: `session`
//! (`cwd`: the project), `message` entries whose `message` is the model's turn
//! (`role: "assistant"`, `content` items `{"type": "toolCall", "id", "name",
//! "arguments"}`) or a tool's result (`role: "toolResult"`, `toolCallId`,
//! `toolName`, `content` text items: what the model read, `isError`, and for a
//! cut `bash` output `details.fullOutputPath`). Pi's `bash` keeps the last 2000
//! lines or 50 KB and saves the whole output to `<tmp>/pi-bash-<hex>.log`: read
//! back the way toolcap's Pi hook reads it (`hook::pi_saved_output`) while it is
//! there, else the result's size is known only as at least what the model read.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use toolcap_config::Config;

use super::super::common::Failure;
use super::super::hook::{pi_names_saved, pi_saved_output};
use super::{
    Agent, Found, JsonLines, Scope, Seen, env_dir, home, jsonl_files, jsonl_in_subdirs, unwrap_run,
    utc_ms,
};

/// Where Pi keeps its sessions.
fn sessions_dir() -> Result<PathBuf, Failure> {
    if let Some(d) = env_dir("PI_CODING_AGENT_SESSION_DIR") {
        return Ok(d);
    }
    let agent = match env_dir("PI_CODING_AGENT_DIR") {
        Some(d) => d,
        None => home("a HOME with .pi")?.join(".pi/agent"),
    };
    Ok(agent.join("sessions"))
}

pub fn collect(scope: &Scope, config: &Config) -> Result<Found, Failure> {
    let root = sessions_dir()?;
    let mut found = Found::new(Agent::Pi, root.clone(), config);
    // a directory per working directory, a file per session (and a session dir
    // given by --session-dir holds the files themselves)
    let mut files = jsonl_in_subdirs(&root);
    files.extend(jsonl_files(&root));
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
    let mut called: HashMap<String, (String, Value)> = HashMap::new();
    let mut in_project = scope.project.is_none();
    let mut counted = false;
    for v in &mut lines {
        match v["type"].as_str() {
            Some("session") => {
                in_project = scope.keeps_dir(v["cwd"].as_str().map(Path::new));
            }
            Some("message") => {
                let m = &v["message"];
                match m["role"].as_str() {
                    Some("assistant") => {
                        for c in m["content"].as_array().into_iter().flatten() {
                            if c["type"] == "toolCall"
                                && let (Some(id), Some(name)) =
                                    (c["id"].as_str(), c["name"].as_str())
                            {
                                called.insert(
                                    id.to_string(),
                                    (name.to_string(), c["arguments"].clone()),
                                );
                            }
                        }
                    }
                    Some("toolResult") => {
                        let Some((name, input)) =
                            m["toolCallId"].as_str().and_then(|id| called.remove(id))
                        else {
                            found.results_without_call += 1;
                            continue;
                        };
                        let time = v["timestamp"].as_str().and_then(utc_ms);
                        if !in_project || !scope.keeps_time(time) {
                            continue;
                        }
                        let shown: String = m["content"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter(|c| c["type"] == "text")
                            .filter_map(|c| c["text"].as_str())
                            .collect::<Vec<_>>()
                            .join("\n");
                        result(
                            &name,
                            &input,
                            shown,
                            &m["details"],
                            m["isError"] == true,
                            found,
                        );
                        if !counted {
                            found.sessions += 1;
                            counted = true;
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    lines.count_into(found);
}

/// One tool result, counted.
fn result(
    name: &str,
    input: &Value,
    shown: String,
    details: &Value,
    is_error: bool,
    found: &mut Found,
) {
    let command = (name == "bash")
        .then(|| input.get("command").and_then(Value::as_str))
        .flatten()
        .map(unwrap_run);
    found.call(name, command.as_deref());
    let mut full = None;
    let mut gone = false;
    if name == "bash" && pi_names_saved(&shown, details) {
        found.persisted += 1;
        full = pi_saved_output(&shown, details, is_error);
        if full.is_none() {
            // Pi's temporary file is gone: the result is known by its tail
            found.persisted_missing += 1;
            gone = true;
        }
    }
    found.result(Seen {
        tool: name,
        input,
        command,
        shown,
        full,
        full_cut: gone,
    });
}
