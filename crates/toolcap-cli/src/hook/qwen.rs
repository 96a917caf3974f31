//! `toolcap hook qwen-code`: Qwen Code's `PostToolUse` hook.
//!
//! Qwen Code 0.24.4 (a fork of Gemini CLI with Claude-style hooks) lets no hook
//! change a command or replace a result in place: `firePreToolUseHook` returns
//! only a permission decision and `additionalContext`, `firePostToolUseHook`
//! only `additionalContext`, artifacts and a stop (`packages/core/src/core/
//! toolHookTriggers.ts`). A `PostToolUse` reply `{"continue": false,
//! "stopReason": TEXT}` is the one way: `coreToolScheduler.ts` then sends the
//! model TEXT as the call's result (an error response whose text is TEXT), and
//! the session goes on. The tool has run by then exactly as Qwen Code's rules
//! decided, so toolcap replies only for a result it cut, and TEXT is Qwen Code's
//! own frame with toolcap's view in it: for `run_shell_command` the `Command:`,
//! `Directory:`, `Error:` and `Exit Code:` lines stay and only the `Output:`
//! part is the view. An output Qwen Code already cut (over
//! `truncateToolOutputThreshold`) is read whole from the file it names.

use std::path::Path;

use serde_json::{Value, json};

use super::super::saved;
use super::{Failure, HookArgs, cap_result, process_result};

/// Qwen Code's notice when it cut a tool's output and saved it whole.
const SAVED: &str =
    "Tool output was too large and has been truncated.\nThe full output has been saved to: ";

/// The reply to a `PostToolUse` input, or None to leave the result alone.
pub fn reply(a: &HookArgs, input: &Value) -> Result<Option<Value>, Failure> {
    let tool = input["tool_name"].as_str().unwrap_or_default();
    let Some(content) = llm_text(&input["tool_response"]["llmContent"]) else {
        return Ok(None);
    };
    let whole = saved_whole(&content, tool).unwrap_or(content);
    // stored under the call id the model saw (`tool_call_id`, e.g. `call_...`)
    let shaped = json!({
        "tool_name": tool,
        "tool_input": input["tool_input"],
        "tool_use_id": input["tool_call_id"].as_str().or(input["tool_use_id"].as_str()),
    });
    let capped = if tool == "run_shell_command" {
        shell(a, &shaped, &whole)?
    } else {
        cap_result(a, &shaped, &Value::String(whole))?
    };
    Ok(capped.map(|text| json!({"continue": false, "stopReason": text})))
}

/// `llmContent` as text: a string, or parts that all hold text (joined). An MCP
/// result comes as two parts, its structured content as JSON text
/// (`{"content": TEXT}`) and TEXT: the JSON copy is left out.
fn llm_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts.iter().filter_map(|p| p["text"].as_str()).collect();
            if texts.is_empty() || texts.len() != parts.len() {
                return None;
            }
            let plain: Vec<&str> = texts
                .iter()
                .copied()
                .filter(|t| !texts.iter().any(|other| json_copy_of(t, other)))
                .collect();
            Some(plain.join("\n"))
        }
        _ => None,
    }
}

/// Whether `json` is a JSON object whose one member is the string `text`.
fn json_copy_of(json: &str, text: &str) -> bool {
    json != text
        && serde_json::from_str::<serde_json::Map<String, Value>>(json)
            .is_ok_and(|o| o.len() == 1 && o.values().next().and_then(Value::as_str) == Some(text))
}

/// The whole content Qwen Code saved when it cut it (its notice comes first,
/// before anything the tool printed), or None. Only a file where Qwen Code saves
/// them is read (`.../.qwen/tmp/<project hash>/<tool>_<id>.output`): a fetched
/// page or an MCP result that begins with the same notice cannot make toolcap
/// show the model any other file.
fn saved_whole(content: &str, tool: &str) -> Option<String> {
    let rest = content.strip_prefix(SAVED)?;
    let path = Path::new(rest.split('\n').next()?);
    let qwens = |path: &Path| -> bool {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let tmp = path.parent().and_then(Path::parent);
        let qwen_tmp = tmp.is_some_and(|t| {
            t.file_name().is_some_and(|n| n == "tmp")
                && t.parent()
                    .and_then(Path::file_name)
                    .is_some_and(|n| n == ".qwen")
        });
        qwen_tmp && name.starts_with(&format!("{tool}_")) && name.ends_with(".output")
    };
    saved::read_text(path, &saved::Where::Matching(&qwens))
}

/// A `run_shell_command` result (`Command: C\nDirectory: D\nOutput: O\nError:
/// E\nExit Code: N\nSignal: S\nProcess Group PGID: P`) with O capped; None when
/// O passes unchanged or the text is not in that shape.
fn shell(a: &HookArgs, input: &Value, text: &str) -> Result<Option<String>, Failure> {
    let Some((head, output, tail)) = shell_parts(text) else {
        return Ok(None);
    };
    let mut args = match &input["tool_input"] {
        Value::Object(o) => o.clone(),
        _ => return Ok(None),
    };
    if let Some(code) = tail
        .split_once("\nExit Code: ")
        .and_then(|(_, r)| r.split(|c: char| !c.is_ascii_digit() && c != '-').next())
        .and_then(|d| d.parse::<i64>().ok())
    {
        args.insert("exit_code".into(), json!(code));
    }
    let shaped = json!({
        "tool_name": "run_shell_command",
        "tool_input": Value::Object(args),
        "tool_use_id": input["tool_use_id"],
    });
    Ok(process_result(a, &shaped, output, None)?
        .filter(|out| out.truncated)
        .map(|out| format!("{head}{}{tail}", out.text)))
}

/// `text` split into the frame before the output (through `Output: `), the
/// output, and the frame after it (from the last `\nError: `).
fn shell_parts(text: &str) -> Option<(&str, &str, &str)> {
    if !text.starts_with("Command: ") {
        return None;
    }
    let start = text.find("\nOutput: ")? + "\nOutput: ".len();
    let end = text.rfind("\nError: ").filter(|e| *e >= start)?;
    Some((&text[..start], &text[start..end], &text[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_frame_stays_around_the_output() {
        let t = "Command: seq 3\nDirectory: (root)\nOutput: 1\n2\nError: x\n3\nError: (none)\nExit Code: 1\nSignal: (none)\nProcess Group PGID: (none)";
        let (head, out, tail) = shell_parts(t).expect("a shell result");
        assert_eq!(head, "Command: seq 3\nDirectory: (root)\nOutput: ");
        assert_eq!(out, "1\n2\nError: x\n3");
        assert!(tail.starts_with("\nError: (none)\nExit Code: 1"));
        assert!(shell_parts("Output: 1\nError: (none)").is_none());
    }

    #[test]
    fn an_mcp_results_json_copy_is_left_out() {
        let parts = json!([{"text": "{\"content\":\"a\\nb\"}"}, {"text": "a\nb"}]);
        assert_eq!(llm_text(&parts).as_deref(), Some("a\nb"));
        let two = json!([{"text": "a"}, {"text": "b"}]);
        assert_eq!(llm_text(&two).as_deref(), Some("a\nb"));
        assert!(llm_text(&json!([{"text": "a"}, {"inlineData": {}}])).is_none());
    }

    #[test]
    fn only_qwens_own_notice_names_a_saved_file() {
        assert!(saved_whole("1\n2\n", "web_fetch").is_none());
        let quoted = format!("Command: cat x\nOutput: {SAVED}/etc/passwd\n");
        assert!(saved_whole(&quoted, "run_shell_command").is_none());
        // a page that opens with Qwen Code's notice names no file toolcap reads
        for path in [
            "/etc/passwd",
            "/root/.qwen/tmp/../../etc/web_fetch_1.output",
            "/root/.ssh/tmp/web_fetch_1.output",
            "/root/.qwen/tmp/h/run_shell_command_1.output",
        ] {
            let page = format!("{SAVED}{path}\n");
            assert!(saved_whole(&page, "web_fetch").is_none(), "{path}");
        }
        let dir = std::env::temp_dir().join(format!("toolcap-qwen-{}", std::process::id()));
        let saved = dir.join(".qwen/tmp/h/web_fetch_1.output");
        std::fs::create_dir_all(saved.parent().expect("a dir")).expect("mkdir");
        std::fs::write(&saved, "the whole page").expect("write");
        let notice = format!("{SAVED}{}\nTo read ...", saved.display());
        assert_eq!(
            saved_whole(&notice, "web_fetch").as_deref(),
            Some("the whole page")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
