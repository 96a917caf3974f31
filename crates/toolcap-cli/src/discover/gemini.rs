//! Gemini CLI's saved chats (seen on disk after runs of Gemini CLI 0.61.0; the
//! writer is `ChatRecordingService` in google-gemini/gemini-cli
//! `packages/core/src/services/chatRecordingService.ts`): one JSONL file per
//! session, `~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl`, where
//! `<project>` is a short name whose directory holds `.project_root` (the
//! project's path). The first line is the session's (`sessionId`, `startTime`);
//! then messages, each a line, a message written again when it changes (the same
//! `id`, later with more), and `{"$set": {...}}` updates. A message of
//! `"type": "gemini"` carries `toolCalls[]`: `id`, `name`, `args`, `timestamp` and
//! `result[].functionResponse.response.output`, what the model read (a shell
//! result wrapped as `<untrusted_context>\nOutput: ...\nProcess Group PGID: N\n
//! </untrusted_context>`). An output too large is cut ("Output too large. Showing
//! first 8,000 and last 32,000 characters. For full output see: PATH") and saved
//! whole, wrapped the same way, to `tool-outputs/session-<id>/<call id>.txt`:
//! discover reads that file.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;
use toolcap_config::Config;

use super::super::common::Failure;
use super::super::saved;
use super::{Agent, Found, JsonLines, Scope, Seen, home, jsonl_files, unwrap_run, utc_ms};

pub fn collect(scope: &Scope, config: &Config) -> Result<Found, Failure> {
    let root = home("a HOME with .gemini")?.join(".gemini/tmp");
    let mut found = Found::new(Agent::GeminiCli, root.clone(), config);
    let Ok(projects) = std::fs::read_dir(&root) else {
        return Ok(found);
    };
    let mut dirs: Vec<PathBuf> = projects.filter_map(Result::ok).map(|e| e.path()).collect();
    dirs.sort();
    for dir in dirs {
        let project = std::fs::read_to_string(dir.join(".project_root"))
            .ok()
            .map(|s| PathBuf::from(s.trim()));
        if !scope.keeps_dir(project.as_deref()) {
            continue;
        }
        let mut files = jsonl_files(&dir.join("chats"));
        files.sort();
        for f in files {
            read_chat(&f, scope, &mut found);
        }
    }
    Ok(found)
}

fn read_chat(file: &Path, scope: &Scope, found: &mut Found) {
    let Some(mut lines) = JsonLines::open(file) else {
        return;
    };
    // the calls counted: a message is written again as it changes
    let mut done: HashSet<String> = HashSet::new();
    let mut counted = false;
    for v in &mut lines {
        let messages: Vec<&Value> = match v.pointer("/$set/messages") {
            Some(Value::Array(ms)) => ms.iter().collect(),
            _ => vec![&v],
        };
        for m in messages {
            if m.get("type").and_then(Value::as_str) != Some("gemini") {
                continue;
            }
            let Some(calls) = m.get("toolCalls").and_then(Value::as_array) else {
                continue;
            };
            for c in calls {
                let time = c
                    .get("timestamp")
                    .or_else(|| m.get("timestamp"))
                    .and_then(Value::as_str)
                    .and_then(utc_ms);
                if !scope.keeps_time(time) {
                    continue;
                }
                if tool_call(c, found, &mut done) && !counted {
                    found.sessions += 1;
                    counted = true;
                }
            }
        }
    }
    lines.count_into(found);
}

/// One finished tool call, counted once; whether it was new.
fn tool_call(c: &Value, found: &mut Found, done: &mut HashSet<String>) -> bool {
    let (Some(id), Some(name), Some(result)) = (
        c.get("id").and_then(Value::as_str),
        c.get("name").and_then(Value::as_str),
        c.get("result").and_then(Value::as_array),
    ) else {
        return false;
    };
    if result.is_empty() || done.contains(id) {
        return false;
    }
    done.insert(id.to_string());
    let input = c.get("args").cloned().unwrap_or(Value::Null);
    let shell = name == "run_shell_command";
    let command = shell
        .then(|| input.get("command").and_then(Value::as_str))
        .flatten()
        .map(unwrap_run);
    found.call(name, command.as_deref());
    let shown: String = result
        .iter()
        .filter_map(|r| r.pointer("/functionResponse/response"))
        .map(|r| match r.get("output").or_else(|| r.get("error")) {
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => r.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    // `<.gemini/tmp>/<project>/tool-outputs/session-<id>/<call id>.txt`
    let root = found.root.clone();
    let saved = saved_path(&shown)
        .and_then(|p| found.read_saved(&p, &saved::Where::Under(&root, "tool-outputs")));
    let full = match (saved, shell) {
        (Some(s), true) => Some(shell_output(&s).to_string()),
        (Some(s), false) => Some(s),
        (None, true) => Some(shell_output(&shown).to_string()),
        (None, false) => None,
    };
    found.result(Seen {
        tool: name,
        input: &input,
        command,
        shown,
        full,
        full_cut: false,
    });
    true
}

/// The file an "Output too large" result names (the hook's reading of the
/// notice).
fn saved_path(text: &str) -> Option<PathBuf> {
    super::super::hook::gemini_cut_notice_path(text).map(Path::to_path_buf)
}

/// The command's output out of Gemini CLI's wrapping (`Output: ` up to the
/// trailing `Exit Code: `, `Signal: `, `Background PIDs: `, `Process Group PGID: `
/// lines and `</untrusted_context>`).
pub(super) fn shell_output(text: &str) -> &str {
    let Some(at) = text.find("Output: ") else {
        return text;
    };
    let mut body = &text[at + "Output: ".len()..];
    if let Some(end) = body.rfind("</untrusted_context>") {
        body = &body[..end];
    }
    loop {
        let trimmed = body.trim_end_matches('\n');
        let Some((rest, last)) = trimmed.rsplit_once('\n') else {
            return trimmed;
        };
        let trailer = [
            "Exit Code: ",
            "Signal: ",
            "Background PIDs: ",
            "Process Group PGID: ",
            "Error: ",
        ]
        .iter()
        .any(|m| last.starts_with(m));
        if !trailer {
            return trimmed;
        }
        body = rest;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wrapping_is_taken_off_a_shell_output() {
        let t = "<untrusted_context>\nOutput: 1\n2\nExit Code: 1\nProcess Group PGID: 7\n</untrusted_context>";
        assert_eq!(shell_output(t), "1\n2");
        let hooked = "<untrusted_context>\nOutput: hi\nProcess Group PGID: 7\n</untrusted_context>\n\n[System] Tool input parameters were modified by a hook before execution.";
        assert_eq!(shell_output(hooked), "hi");
        let saved = "Output too large. Showing first 8,000 and last 32,000 characters. For full output see: /h/t/x.txt\n<untrusted_context>\nOutput: 1";
        assert_eq!(saved_path(saved), Some(PathBuf::from("/h/t/x.txt")));
        assert_eq!(saved_path("Output: x"), None);
    }
}
