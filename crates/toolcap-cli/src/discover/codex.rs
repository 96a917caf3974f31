//! Codex's session rollouts (seen on disk after runs of Codex 0.169.0; the
//! writer is `codex-rs/core/src/rollout/` in openai/codex): one JSONL file per
//! session, `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`
//! (`~/.codex` when `CODEX_HOME` is not set). Every line is
//! `{"timestamp", "type", "payload"}`:
//! - `session_meta` and `turn_context`: `payload.cwd`, the session's directory;
//! - `response_item` with `payload.type` `function_call` (`name`, `arguments` as a
//!   JSON string, `call_id`) or `custom_tool_call` (`input`): a tool call the model
//!   made; `function_call_output` / `custom_tool_call_output` (`call_id`, `output`):
//!   what the model got back (for `exec_command`, a header of chunk id, wall time,
//!   exit code and "Original token count", then `Output:` and the output, which
//!   Codex cuts to about 10 KB with "Total output lines: N");
//! - `event_msg` with `payload.type` `item_completed` and an `item` of type
//!   `CommandExecution` (`id` the call id, `aggregated_output`): the command's own
//!   output, which Codex keeps up to 64 KiB (head and tail): longer outputs are
//!   counted at that size and flagged as a lower bound.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use toolcap_config::Config;

use super::super::common::Failure;
use super::{Agent, Found, JsonLines, Scope, Seen, env_dir, home, unwrap_run, utc_ms};

pub fn collect(scope: &Scope, config: &Config) -> Result<Found, Failure> {
    let dir = match env_dir("CODEX_HOME") {
        Some(d) => d,
        None => home("CODEX_HOME")?.join(".codex"),
    };
    let root = dir.join("sessions");
    let mut found = Found::new(Agent::Codex, root.clone(), config);
    let mut files = Vec::new();
    rollouts(&root, 0, &mut files);
    files.sort();
    for file in files {
        read_rollout(&file, scope, &mut found);
    }
    Ok(found)
}

/// Every `rollout-*.jsonl` under `dir` (YYYY/MM/DD: three levels down).
fn rollouts(dir: &Path, depth: u8, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.filter_map(Result::ok) {
        let p = e.path();
        if p.is_dir() && depth < 3 {
            rollouts(&p, depth + 1, out);
        } else if p.is_file()
            && p.extension().is_some_and(|x| x == "jsonl")
            && e.file_name().to_string_lossy().starts_with("rollout-")
        {
            out.push(p);
        }
    }
}

/// A call waiting for its output.
struct Pending {
    tool: String,
    input: Value,
    command: Option<String>,
    /// The command's own output (`CommandExecution.aggregated_output`).
    output: Option<String>,
}

fn read_rollout(file: &Path, scope: &Scope, found: &mut Found) {
    let Some(mut lines) = JsonLines::open(file) else {
        return;
    };
    let mut cwd: Option<PathBuf> = None;
    let mut pending: HashMap<String, Pending> = HashMap::new();
    let mut counted = false;
    for v in &mut lines {
        let p = &v["payload"];
        match v.get("type").and_then(Value::as_str) {
            Some("session_meta" | "turn_context") => {
                if let Some(c) = p.get("cwd").and_then(Value::as_str) {
                    cwd = Some(PathBuf::from(c));
                }
                continue;
            }
            Some("response_item" | "event_msg") => {}
            _ => continue,
        }
        let time = v.get("timestamp").and_then(Value::as_str).and_then(utc_ms);
        if !scope.keeps_time(time) || !scope.keeps_dir(cwd.as_deref()) {
            continue;
        }
        if !counted {
            found.sessions += 1;
            counted = true;
        }
        item(p, found, &mut pending);
    }
    lines.count_into(found);
}

/// One `payload` of a response item or an event.
fn item(p: &Value, found: &mut Found, pending: &mut HashMap<String, Pending>) {
    let s = |k: &str| p.get(k).and_then(Value::as_str);
    match s("type") {
        Some("function_call" | "custom_tool_call") => {
            let (Some(id), Some(name)) = (s("call_id"), s("name")) else {
                return;
            };
            let input = match (s("arguments"), p.get("input")) {
                (Some(a), _) => serde_json::from_str(a).unwrap_or(Value::String(a.to_string())),
                (None, Some(i)) => i.clone(),
                (None, None) => Value::Null,
            };
            let command = ["cmd", "command"]
                .iter()
                .find_map(|k| match input.get(k) {
                    Some(Value::String(c)) => Some(c.clone()),
                    // the older `shell` tool: an argv list
                    Some(Value::Array(argv)) => Some(
                        argv.iter()
                            .filter_map(Value::as_str)
                            .collect::<Vec<_>>()
                            .join(" "),
                    ),
                    _ => None,
                })
                .map(|c| unwrap_run(&c));
            found.call(name, command.as_deref());
            pending.insert(
                id.to_string(),
                Pending {
                    tool: name.to_string(),
                    input,
                    command,
                    output: None,
                },
            );
        }
        Some("item_completed") => {
            let it = &p["item"];
            if it["type"] != "CommandExecution" {
                return;
            }
            let (Some(id), Some(out)) = (
                it.get("id").and_then(Value::as_str),
                it.get("aggregated_output").and_then(Value::as_str),
            ) else {
                return;
            };
            if let Some(call) = pending.get_mut(id) {
                call.output = Some(out.to_string());
            }
        }
        Some("function_call_output" | "custom_tool_call_output") => {
            let Some(id) = s("call_id") else { return };
            let Some(call) = pending.remove(id) else {
                found.results_without_call += 1;
                return;
            };
            let shown = output_text(p.get("output"));
            let full_cut = call
                .output
                .as_deref()
                .is_some_and(|o| cut_by_codex(&shown, o));
            found.result(Seen {
                tool: &call.tool,
                input: &call.input,
                command: call.command,
                shown,
                full: call.output,
                full_cut,
            });
        }
        _ => {}
    }
}

/// A function call output: a string, or content items whose text is joined.
fn output_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Some(Value::Object(o)) => output_text(o.get("content")),
        _ => String::new(),
    }
}

/// The command's kept output has fewer lines than the "Total output lines: N"
/// Codex told the model: Codex kept only part of it.
fn cut_by_codex(shown: &str, kept: &str) -> bool {
    let marker = "Total output lines: ";
    let Some(at) = shown.find(marker) else {
        return false;
    };
    let total: Option<usize> = shown[at + marker.len()..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|d| d.parse().ok());
    total.is_some_and(|t| kept.lines().count() < t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_kept_output_is_told_by_the_line_count() {
        let shown = "Output:\nWarning: truncated output (original token count: 27224)\nTotal output lines: 20000\n\n1\n";
        assert!(cut_by_codex(shown, "1\n2\n20000\n"));
        assert!(!cut_by_codex("Output:\nhi\n", "hi\n"));
    }
}
