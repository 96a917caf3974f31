//! Qwen Code's chat records (seen on disk after runs of Qwen Code 0.24.4, a fork
//! of Gemini CLI whose records follow Claude Code's shape): one JSONL file per
//! session, `~/.qwen/projects/<project path with / as ->/chats/<session>.jsonl`.
//! Each line has `type` (`user`, `assistant`, `tool_result`, `system`),
//! `timestamp`, `cwd` and `message.parts[]`: an assistant's `functionCall`
//! (`id`, `name`, `args`), a tool result's `functionResponse` (`id`, `name`,
//! `response.output`: what the model read; a shell result wrapped as `Command:
//! C\nDirectory: D\nOutput: O\nError: E\nExit Code: N...`). An output too large
//! is cut ("Tool output was too large and has been truncated.\nThe full output
//! has been saved to: PATH", then its start and end) and saved whole, wrapped the
//! same way, to `~/.qwen/tmp/<project hash>/<tool>_<id>.output`: discover reads
//! that file.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value;
use toolcap_config::Config;

use super::super::common::Failure;
use super::super::saved;
use super::gemini::shell_output;
use super::{Agent, Found, JsonLines, Scope, Seen, home, jsonl_files, unwrap_run, utc_ms};

/// The first line of Qwen Code's notice of a cut output.
const SAVED: &str =
    "Tool output was too large and has been truncated.\nThe full output has been saved to: ";

pub fn collect(scope: &Scope, config: &Config) -> Result<Found, Failure> {
    let qwen = home("a HOME with .qwen")?.join(".qwen");
    let root = qwen.join("projects");
    let mut found = Found::new(Agent::QwenCode, root.clone(), config);
    let Ok(projects) = std::fs::read_dir(&root) else {
        return Ok(found);
    };
    let mut files: Vec<PathBuf> = projects
        .filter_map(Result::ok)
        .flat_map(|e| jsonl_files(&e.path().join("chats")))
        .collect();
    files.sort();
    let tmp = qwen.join("tmp");
    for f in files {
        read_chat(&f, scope, &tmp, &mut found);
    }
    Ok(found)
}

fn read_chat(file: &Path, scope: &Scope, tmp: &Path, found: &mut Found) {
    let Some(mut lines) = JsonLines::open(file) else {
        return;
    };
    let mut calls: HashMap<String, (String, Value)> = HashMap::new();
    let mut done: HashSet<String> = HashSet::new();
    let mut counted = false;
    for v in &mut lines {
        let cwd = v.get("cwd").and_then(Value::as_str).map(Path::new);
        let time = v.get("timestamp").and_then(Value::as_str).and_then(utc_ms);
        if !scope.keeps_dir(cwd) || !scope.keeps_time(time) {
            continue;
        }
        let Some(parts) = v.pointer("/message/parts").and_then(Value::as_array) else {
            continue;
        };
        for p in parts {
            if let Some(c) = p.get("functionCall") {
                if let (Some(id), Some(name)) = (
                    c.get("id").and_then(Value::as_str),
                    c.get("name").and_then(Value::as_str),
                ) {
                    let input = c.get("args").cloned().unwrap_or(Value::Null);
                    calls.insert(id.to_string(), (name.to_string(), input));
                }
            } else if let Some(r) = p.get("functionResponse") {
                let Some(id) = r.get("id").and_then(Value::as_str) else {
                    continue;
                };
                if !done.insert(id.to_string()) {
                    continue;
                }
                let (name, input) = calls.remove(id).unwrap_or_else(|| {
                    let name = r.get("name").and_then(Value::as_str).unwrap_or_default();
                    (name.to_string(), Value::Null)
                });
                let shown = match r
                    .pointer("/response/output")
                    .or_else(|| r.pointer("/response/error"))
                {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => r.get("response").map_or_else(String::new, Value::to_string),
                };
                result(&name, &input, shown, tmp, found);
                if !counted {
                    found.sessions += 1;
                    counted = true;
                }
            }
        }
    }
    lines.count_into(found);
}

/// One tool result, counted.
fn result(name: &str, input: &Value, shown: String, tmp: &Path, found: &mut Found) {
    let shell = name == "run_shell_command";
    let command = shell
        .then(|| input.get("command").and_then(Value::as_str))
        .flatten()
        .map(unwrap_run);
    found.call(name, command.as_deref());
    // `<~/.qwen/tmp>/<project hash>/<tool>_<id>.output`
    let under_tmp = |p: &Path| {
        p.parent().and_then(Path::parent) == Some(tmp)
            && p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".output"))
    };
    let saved = shown
        .strip_prefix(SAVED)
        .and_then(|rest| rest.lines().next())
        .map(PathBuf::from)
        .and_then(|p| found.read_saved(&p, &saved::Where::Matching(&under_tmp)));
    let full = match (saved, shell) {
        (Some(s), true) => Some(shell_output(&s).to_string()),
        (Some(s), false) => Some(s),
        (None, true) if !shown.starts_with(SAVED) => Some(shell_output(&shown).to_string()),
        (None, _) => None,
    };
    found.result(Seen {
        tool: name,
        input,
        command,
        shown,
        full,
        full_cut: false,
    });
}
