//! Claude Code's `Read` and `Grep` after they ran (`PostToolUse`
//! `updatedToolOutput`, in the tool's own shape).

use serde_json::{Value, json};

use super::super::common::Failure;
use super::{HookArgs, process_result, process_with};

/// Claude Code's `Read` of a whole file (or of its head) over the threshold:
/// the reply keeps the tool's own shape (`{"type": "text", "file": {...}}`, to
/// which Claude Code adds line numbers) with `content` cut to the view's kept
/// head, so every number the model sees is the file's own, and the marker and
/// recovery section (outline, `Read(file_path, offset, limit)` ranges of the
/// file itself: Read needs no other permission than the one just given) as the
/// hook's `additionalContext`. A ranged Read (`offset`
/// past the first line) is what the model asked for: left as it is.
pub(super) fn claude_read_reply(a: &HookArgs, input: &Value) -> Result<Option<Value>, Failure> {
    let response = &input["tool_response"];
    let file = &response["file"];
    let (Some(content), Some(1)) = (file["content"].as_str(), file["startLine"].as_u64()) else {
        return Ok(None);
    };
    if response["type"] != "text" {
        return Ok(None);
    }
    let Some(out) = process_with(a, input, content, Some("claude-code"), false)? else {
        return Ok(None);
    };
    if !out.truncated {
        return Ok(None);
    }
    let Some(head) = out.kept.first().filter(|k| k.start_line == 1 && !k.partial) else {
        return Ok(None);
    };
    let kept: String = content
        .split_inclusive('\n')
        .take(head.end_line)
        .collect::<String>();
    let kept = kept.strip_suffix('\n').unwrap_or(&kept);
    // the view is the kept head, then the marker and the recovery section
    let Some(rest) = out.text.strip_prefix(kept) else {
        return Ok(None);
    };
    let mut new = response.clone();
    new["file"]["content"] = json!(kept);
    new["file"]["numLines"] = json!(head.end_line);
    Ok(Some(json!({
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "updatedToolOutput": new,
            "additionalContext": rest.trim_start_matches('\n'),
        }
    })))
}

/// Claude Code's `Grep` in content mode over the threshold: `content` replaced
/// by toolcap's view of the matches (the tool's own shape kept).
pub(super) fn claude_grep_reply(a: &HookArgs, input: &Value) -> Result<Option<Value>, Failure> {
    let response = &input["tool_response"];
    let Some(content) = response["content"].as_str() else {
        return Ok(None);
    };
    if response["mode"] != "content" {
        return Ok(None);
    }
    let Some(out) = process_result(a, input, content, Some("claude-code"))? else {
        return Ok(None);
    };
    if !out.truncated {
        return Ok(None);
    }
    let mut new = response.clone();
    new["content"] = json!(out.text);
    Ok(Some(json!({
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "updatedToolOutput": new,
        }
    })))
}
