//! Claude Code's project transcripts (seen on disk after runs of Claude Code
//! 2.1.328): one JSONL transcript per session in
//! `~/.claude/projects/<dir-key>/<session>.jsonl` (`$CLAUDE_CONFIG_DIR` instead of
//! `~/.claude` when set). A tool call is a `tool_use` block (`id`, `name`,
//! `input`) in the `message.content` of an `assistant` line; its result a
//! `tool_result` block (`tool_use_id`, `content`: a string or text blocks) of a
//! `user` line. An output too long for the transcript is written to
//! `<session>/tool-results/<id>.txt` and the result holds only a
//! `<persisted-output>` preview naming that file: the file is read for the real
//! size. A PostToolUse hook's added text is an `attachment` line
//! (`hook_additional_context`, `toolUseID`) after the result.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use toolcap_config::Config;

use super::super::common::Failure;
use super::super::saved;
use super::{Agent, Found, JsonLines, Scope, Seen, env_dir, home, jsonl_in_subdirs, utc_ms};

pub fn collect(scope: &Scope, config: &Config) -> Result<Found, Failure> {
    let dir = match env_dir("CLAUDE_CONFIG_DIR") {
        Some(d) => d,
        None => home("CLAUDE_CONFIG_DIR")?.join(".claude"),
    };
    let root = dir.join("projects");
    let mut found = Found::new(Agent::ClaudeCode, root.clone(), config);
    for file in jsonl_in_subdirs(&root) {
        read_session(&file, scope, &mut found);
    }
    Ok(found)
}

/// A tool call waiting for its result.
struct Pending {
    tool: String,
    input: Value,
}

fn read_session(file: &Path, scope: &Scope, found: &mut Found) {
    let Some(mut lines) = JsonLines::open(file) else {
        return;
    };
    let mut pending: HashMap<String, Pending> = HashMap::new();
    // results of the latest turn, waiting for the hooks' attachments that follow
    // them (toolcap's recovery section for Read, Grep and MCP results)
    let mut awaiting: Vec<(String, Pending, String)> = Vec::new();
    let mut counted = false;
    for v in &mut lines {
        let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
        if kind == "attachment" {
            hook_context(&v, &mut awaiting);
            continue;
        }
        if kind != "assistant" && kind != "user" {
            continue;
        }
        if kind == "assistant" {
            for (_, call, text) in awaiting.drain(..) {
                result(found, &call, text);
            }
        }
        let time = v.get("timestamp").and_then(Value::as_str).and_then(utc_ms);
        let cwd = v.get("cwd").and_then(Value::as_str).map(Path::new);
        if !scope.keeps_time(time) || !scope.keeps_dir(cwd) {
            continue;
        }
        if !counted {
            found.sessions += 1;
            counted = true;
        }
        let Some(blocks) = v.pointer("/message/content").and_then(Value::as_array) else {
            continue;
        };
        for b in blocks {
            match b.get("type").and_then(Value::as_str) {
                Some("tool_use") if kind == "assistant" => {
                    let (Some(id), Some(name)) = (
                        b.get("id").and_then(Value::as_str),
                        b.get("name").and_then(Value::as_str),
                    ) else {
                        continue;
                    };
                    let input = b.get("input").cloned().unwrap_or(Value::Null);
                    found.call(name, command(name, &input).as_deref());
                    pending.insert(
                        id.to_string(),
                        Pending {
                            tool: name.to_string(),
                            input,
                        },
                    );
                }
                Some("tool_result") if kind == "user" => {
                    let Some(id) = b.get("tool_use_id").and_then(Value::as_str) else {
                        continue;
                    };
                    let Some(call) = pending.remove(id) else {
                        found.results_without_call += 1;
                        continue;
                    };
                    let text = result_text(b.get("content"));
                    awaiting.push((id.to_string(), call, text));
                }
                _ => {}
            }
        }
    }
    lines.count_into(found);
    for (_, call, text) in awaiting.drain(..) {
        result(found, &call, text);
    }
}

/// A Bash call's command.
fn command(tool: &str, input: &Value) -> Option<String> {
    (tool == "Bash")
        .then(|| input.get("command").and_then(Value::as_str))
        .flatten()
        .map(str::to_string)
}

/// A hook's additional context naming a result that waits: what the model was
/// shown beside the result (toolcap's PostToolUse hook puts the marker and the
/// recovery section there), appended to its text.
fn hook_context(v: &Value, awaiting: &mut [(String, Pending, String)]) {
    let Some(a) = v.get("attachment") else {
        return;
    };
    if a.get("type").and_then(Value::as_str) != Some("hook_additional_context") {
        return;
    }
    let Some(id) = a.get("toolUseID").and_then(Value::as_str) else {
        return;
    };
    let Some((_, _, text)) = awaiting.iter_mut().find(|(i, _, _)| i == id) else {
        return;
    };
    let parts: Vec<&str> = match a.get("content") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(xs)) => xs.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    for p in parts {
        text.push('\n');
        text.push_str(p);
    }
}

/// The text of a `tool_result`'s content: a string, or its text blocks joined.
fn result_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The file a `<persisted-output>` preview names.
fn persisted_path(text: &str) -> Option<PathBuf> {
    let rest = text.strip_prefix("<persisted-output>")?;
    let at = rest.find("Full output saved to: ")? + "Full output saved to: ".len();
    let line = rest[at..].lines().next()?.trim();
    Some(PathBuf::from(line))
}

fn result(found: &mut Found, call: &Pending, text: String) {
    // `<projects>/<project>/<session>/tool-results/<id>.txt`
    let root = found.root.clone();
    let full = persisted_path(&text)
        .and_then(|p| found.read_saved(&p, &saved::Where::Under(&root, "tool-results")));
    found.result(Seen {
        tool: &call.tool,
        input: &call.input,
        command: command(&call.tool, &call.input),
        shown: text,
        full,
        full_cut: false,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn persisted_previews_are_read() {
        let t = "<persisted-output>\nOutput too large (106.3KB). Full output saved to: /h/x/tool-results/b.txt\n\nPreview (first 2KB):\n1\n";
        assert_eq!(
            persisted_path(t),
            Some(PathBuf::from("/h/x/tool-results/b.txt"))
        );
        assert_eq!(persisted_path("plain"), None);
    }
}
