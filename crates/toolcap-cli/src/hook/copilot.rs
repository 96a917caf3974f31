//! `toolcap hook copilot`: GitHub Copilot CLI's `postToolUse` hook. Its input
//! (`{"sessionId", "timestamp", "cwd", "toolName", "toolArgs", "toolResult":
//! {"resultType", "textResultForLlm"}}`) comes after a tool ran and succeeded;
//! the reply `{"modifiedResult": {...toolResult, "textResultForLlm": VIEW}}`
//! replaces what the model gets ("hooks.postToolUse: Hooks that run after a
//! successful tool call, able to modify the result or add context", `copilot help
//! config`; `PostToolUseHookOutput.modifiedResult` in copilot-sdk/types.d.ts of
//! @github/copilot 1.0.102). The hook input carries no tool call id: the stored
//! id is made up, and shown in the suggestions.
//!
//! Copilot's `bash` result is the output, then `<shellId: N completed with exit
//! code K>`; a failing command is a success too. An output too large for it
//! becomes "Output too large to read at once (106.3 KB). Saved to: PATH" with a
//! 500-char preview, the whole output in PATH (a temp file that lives while the
//! session runs): it is read back from there (only when the preview is its very
//! head), processed with the exit status, and Copilot's status line is kept at
//! the end. An MCP tool's result (`<server>-<tool>`) too large for it is saved the
//! same way, with its structured content after the text: the text is read back.

use serde_json::{Value, json};

use super::super::common::Failure;
use super::super::saved;
use super::{HookArgs, process_result};

/// Copilot's tools whose results are left as they are (edits, plans, agents).
const SKIP: [&str; 8] = [
    "create",
    "edit",
    "str_replace_editor",
    "apply_patch",
    "write",
    "task",
    "skill",
    "update_todo",
];

/// The reply to one `postToolUse` of Copilot, or None to leave it alone.
pub(super) fn reply(a: &HookArgs, input: &Value) -> Result<Option<Value>, Failure> {
    let tool = input["toolName"].as_str().unwrap_or_default();
    let result = &input["toolResult"];
    let Some(text) = result["textResultForLlm"].as_str() else {
        return Ok(None);
    };
    if tool.is_empty() || SKIP.contains(&tool) || result["resultType"] != "success" {
        return Ok(None);
    }
    let mut args = match &input["toolArgs"] {
        Value::Object(o) => Value::Object(o.clone()),
        // some releases send the arguments as JSON text
        Value::String(s) => serde_json::from_str::<Value>(s)
            .ok()
            .filter(Value::is_object)
            .unwrap_or_else(|| json!({})),
        _ => json!({}),
    };
    // a view of a line range is the range the model asked for
    if tool == "view" && !args["view_range"].is_null() {
        return Ok(None);
    }
    let (body, status) = if tool == "bash" {
        split_status(text)
    } else {
        (text, None)
    };
    let mut output = body.to_string();
    if let Some(whole) = saved_output(body) {
        output = without_structured_copy(whole);
    }
    if let Some(code) = status.and_then(exit_code) {
        args["exit_code"] = json!(code);
    }
    // Copilot names an MCP server's tool `<server>-<tool>` (its own tools have no `-`)
    let name = match tool.split_once('-') {
        Some((server, t)) if !server.is_empty() && !t.is_empty() => format!("mcp__{server}__{t}"),
        _ => tool.to_string(),
    };
    let shaped = json!({"tool_name": name, "tool_input": args});
    let Some(out) = process_result(a, &shaped, &output, None)? else {
        return Ok(None);
    };
    if !out.truncated {
        return Ok(None);
    }
    let mut view = out.text;
    if let Some(s) = status {
        view.push('\n');
        view.push_str(s);
    }
    let mut modified = match result {
        Value::Object(o) => Value::Object(o.clone()),
        _ => json!({}),
    };
    modified["resultType"] = json!("success");
    modified["textResultForLlm"] = json!(view);
    Ok(Some(json!({ "modifiedResult": modified })))
}

const STATUS: &str = "\n<shellId: ";

/// A `bash` result split into the output and Copilot's last line
/// (`<shellId: N completed with exit code K>`).
fn split_status(text: &str) -> (&str, Option<&str>) {
    match text.rfind(STATUS) {
        Some(at) if text.ends_with('>') && !text[at + 1..].contains('\n') => {
            (&text[..at], Some(&text[at + 1..]))
        }
        _ => match text.strip_prefix("<shellId: ") {
            Some(_) if text.ends_with('>') && !text.contains('\n') => ("", Some(text)),
            _ => (text, None),
        },
    }
}

/// K of `<shellId: N completed with exit code K>`.
fn exit_code(status: &str) -> Option<i64> {
    let (_, k) = status.rsplit_once(" exit code ")?;
    k.trim_end_matches('>').trim().parse().ok()
}

/// An MCP result Copilot saved holds its text, a blank line, then its structured
/// content as JSON (`{"content": TEXT}` for the reference filesystem server):
/// the text alone, when that JSON's one string field is exactly the text.
fn without_structured_copy(whole: String) -> String {
    let text = whole.rfind("\n\n{").and_then(|at| {
        let (text, json) = (&whole[..at], &whole[at + 2..]);
        match serde_json::from_str::<Value>(json.trim_end()) {
            Ok(Value::Object(o)) if o.len() == 1 && o.values().next() == Some(&json!(text)) => {
                Some(text.to_string())
            }
            _ => None,
        }
    });
    text.unwrap_or(whole)
}

/// The whole output Copilot saved when it was too large to give the model: the
/// file its "Saved to: PATH" line names, when that is one of Copilot's output
/// files and the preview it shows is that file's very head.
fn saved_output(body: &str) -> Option<String> {
    if !body.starts_with("Output too large to read at once (") {
        return None;
    }
    let first = body.lines().next()?;
    let path = first.split_once(" Saved to: ")?.1.trim();
    let file = std::path::Path::new(path);
    let copilots = |n: &str| n.contains("-copilot-tool-output-");
    let marker = "\n\nPreview (first ";
    let preview = body
        .find(marker)
        .and_then(|at| body[at + marker.len()..].split_once(":\n"))
        .map(|(_, p)| p)?;
    let whole = saved::read_text(file, &saved::Where::Named(&copilots))?;
    whole
        .starts_with(preview.trim_end_matches('\n'))
        .then_some(whole)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_line_split_off() {
        assert_eq!(
            split_status("hi\nerr\n<shellId: 2 completed with exit code 2>"),
            ("hi\nerr", Some("<shellId: 2 completed with exit code 2>"))
        );
        assert_eq!(
            split_status("<shellId: 0 completed with exit code 0>"),
            ("", Some("<shellId: 0 completed with exit code 0>"))
        );
        assert_eq!(split_status("plain"), ("plain", None));
        assert_eq!(
            exit_code("<shellId: 7 completed with exit code 124>"),
            Some(124)
        );
    }

    #[test]
    fn saved_output_only_from_copilots_own_file_whose_head_was_shown() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("17958-copilot-tool-output-1-a.txt");
        let whole: String = (1..=20000).map(|i| format!("{i}\n")).collect();
        std::fs::write(&path, &whole).unwrap();
        let body = |p: &std::path::Path, preview: &str| {
            format!(
                "Output too large to read at once (106.3 KB). Saved to: {}\nConsider using tools.\n\nPreview (first 500 chars):\n{preview}\n",
                p.display()
            )
        };
        let head: String = whole.chars().take(500).collect();
        assert_eq!(saved_output(&body(&path, &head)), Some(whole.clone()));
        assert_eq!(saved_output(&body(&path, "not its head")), None);
        let other = dir.path().join("notes.txt");
        std::fs::write(&other, &whole).unwrap();
        assert_eq!(saved_output(&body(&other, &head)), None);
        assert_eq!(saved_output("short"), None);
    }

    #[test]
    fn an_mcp_results_structured_copy_goes() {
        let text = "line 1\n\n{not json}\nline 3";
        let saved = format!("{text}\n\n{}", json!({ "content": text }));
        assert_eq!(without_structured_copy(saved), text);
        let other = format!("{text}\n\n{}", json!({"content": "else"}));
        assert_eq!(without_structured_copy(other.clone()), other);
        assert_eq!(without_structured_copy(text.to_string()), text);
    }
}
