//! toolcap's opencode plugin: any tool's output but edits' and plans' capped
//! after it ran.

use serde_json::{Value, json};

use super::super::common::Failure;
use super::super::saved;
use super::{HookArgs, cap_result};

/// opencode's tools whose output is left as it is (edits, plans, questions).
pub(crate) const OPENCODE_SKIP: [&str; 11] = [
    "edit",
    "write",
    "patch",
    "multiedit",
    "apply_patch",
    "todowrite",
    "todoread",
    "task",
    "question",
    "skill",
    "invalid",
];

/// toolcap's opencode plugin: `after` any tool but edits and plans, its output
/// capped and stored under the call id (`{"output": ...}`). Nothing is changed
/// `before` a tool runs: opencode's permission rules decide on the model's own
/// command. A `bash` output opencode already cut is read whole from the file it
/// saved it to.
pub(super) fn opencode_reply(a: &HookArgs, input: &Value) -> Result<Option<Value>, Failure> {
    let tool = input["tool"].as_str().unwrap_or_default();
    let call_id = input["callID"].clone();
    match input["event"].as_str() {
        Some("after") if !OPENCODE_SKIP.contains(&tool) => {
            let mut args = input["args"].clone();
            let mut output = input["output"].clone();
            if tool == "bash" {
                if let Some(text) = opencode_bash_output(input) {
                    output = Value::String(text);
                }
                if let (Some(exit), Some(o)) =
                    (input["metadata"]["exit"].as_i64(), args.as_object_mut())
                {
                    o.insert("exit_code".into(), json!(exit));
                }
            }
            let shaped = json!({
                "tool_name": tool,
                "tool_input": args,
                "tool_use_id": call_id,
            });
            Ok(cap_result(a, &shaped, &output)?.map(|text| json!({ "output": text })))
        }
        _ => Ok(None),
    }
}

/// The whole output of an opencode `bash` call that opencode cut: its
/// `...output truncated...` text keeps only the tail, the file named by
/// `metadata.outputPath` holds it all (its shell notes, such as a timeout, are
/// kept after it). None when it was not cut or the file cannot be read.
fn opencode_bash_output(input: &Value) -> Option<String> {
    if input["metadata"]["truncated"].as_bool() != Some(true) {
        return None;
    }
    let path = input["metadata"]["outputPath"].as_str()?;
    // `<data dir>/tool-output/tool_<id>` (opencode's and Kilo's own)
    let mut whole = saved::read_text(
        std::path::Path::new(path),
        &saved::Where::InDirNamed("tool-output"),
    )?;
    if let Some(at) = input["output"]
        .as_str()
        .and_then(|o| o.find("\n<shell_metadata>"))
    {
        whole.push_str(&input["output"].as_str().unwrap_or_default()[at..]);
    }
    Some(whole)
}
