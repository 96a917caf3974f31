//! `toolcap hook pi`: toolcap's Pi extension (integrations/pi/toolcap.ts) sends
//! each tool result here after the tool ran: `{"tool", "callID", "args",
//! "output", "details", "isError"}` in, `{"output": TEXT}` out when the result
//! is capped, nothing when it is left as it is.
//!
//! Pi's `bash` keeps the last 2000 lines or 50 KB of an output and saves the
//! whole output to `<tmp>/pi-bash-<hex>.log`, named in a trailer it appends
//! (`[Showing lines A-B of N. Full output: PATH]`) and, on success, in
//! `details.fullOutputPath`; a failing command's result is an error whose text
//! ends with "Command exited with code N" (dist/core/tools/bash.js of
//! @mariozechner/pi-coding-agent 0.73.1, `formatOutput`, `appendStatus`). The
//! whole output is read back from that file (only when the text Pi shows is its
//! very tail), processed with the exit status, and Pi's status line is kept at
//! the end.

use serde_json::{Value, json};

use super::super::common::Failure;
use super::super::saved;
use super::{HookArgs, process_result};

/// Pi's tools whose results are left as they are (edits).
pub(crate) const SKIP: [&str; 2] = ["edit", "write"];

/// The reply to one `tool_result` of Pi, or None to leave it alone.
pub(super) fn reply(a: &HookArgs, input: &Value) -> Result<Option<Value>, Failure> {
    let tool = input["tool"].as_str().unwrap_or_default();
    let Some(text) = input["output"].as_str() else {
        return Ok(None);
    };
    if tool.is_empty() || SKIP.contains(&tool) {
        return Ok(None);
    }
    let mut args = match &input["args"] {
        Value::Object(o) => Value::Object(o.clone()),
        _ => json!({}),
    };
    // a read from a line past the first is the range the model asked for
    if tool == "read" && args["offset"].as_u64().is_some_and(|o| o > 1) {
        return Ok(None);
    }
    let (body, status) = if tool == "bash" {
        split_status(text, input["isError"] == true)
    } else {
        split_notice(text)
    };
    let mut output = body.to_string();
    if tool == "bash" {
        if let Some(whole) = whole_output(body, &input["details"]) {
            output = whole;
        }
        if let Some(code) = status.and_then(exit_code) {
            args["exit_code"] = json!(code);
        }
    }
    let shaped = json!({
        "tool_name": tool,
        "tool_input": args,
        "tool_use_id": input["callID"],
    });
    let Some(out) = process_result(a, &shaped, &output, None)? else {
        return Ok(None);
    };
    if !out.truncated {
        return Ok(None);
    }
    let mut view = out.text;
    if let Some(s) = status {
        view.push_str("\n\n");
        view.push_str(s);
    }
    Ok(Some(json!({ "output": view })))
}

/// The whole output of a `bash` result Pi cut, as the model read it (`text`,
/// an error's status line included) with its `details`: read back from the file
/// Pi saved it to, while that file is there. `None` when Pi did not cut it or
/// the file is gone (discover reads sessions with it).
pub(crate) fn saved_output(text: &str, details: &Value, is_error: bool) -> Option<String> {
    whole_output(split_status(text, is_error).0, details)
}

/// Whether Pi says it cut this `bash` result and saved the whole output.
pub(crate) fn names_saved_output(text: &str, details: &Value) -> bool {
    details["fullOutputPath"].is_string() || text.contains("Full output: ")
}

/// The status lines Pi's bash appends to a failed command's output.
const STATUS: [&str; 3] = [
    "Command exited with code ",
    "Command timed out after ",
    "Command aborted",
];

/// An error result's text split into the output and Pi's status line.
fn split_status(text: &str, is_error: bool) -> (&str, Option<&str>) {
    if !is_error {
        return (text, None);
    }
    let (body, last) = match text.rfind("\n\n") {
        Some(at) => (&text[..at], &text[at + 2..]),
        None => ("", text),
    };
    if STATUS.iter().any(|s| last.starts_with(s)) && !last.contains('\n') {
        (body, Some(last))
    } else {
        (text, None)
    }
}

/// The notices Pi's `read`, `grep`, `find` and `ls` end a cut result with
/// (`[Showing lines 1-1503 of 3343 (50.0KB limit). Use offset=1504 to
/// continue.]`, `[100 matches limit reached. Use limit=200 for more, or refine
/// pattern]`; dist/core/tools/read.js, grep.js, find.js, ls.js).
const NOTICES: [&str; 4] = [
    " to continue.]",
    " limit reached",
    " more lines in file.",
    "Use read tool to see full lines",
];

/// A result split into its text and Pi's notice on its last line, kept after
/// toolcap's view: the model still learns that the file goes on, and where.
fn split_notice(text: &str) -> (&str, Option<&str>) {
    match text.rfind("\n\n[") {
        Some(at)
            if text.ends_with(']')
                && !text[at + 2..].contains('\n')
                && NOTICES.iter().any(|n| text[at..].contains(n)) =>
        {
            (&text[..at], Some(&text[at + 2..]))
        }
        _ => (text, None),
    }
}

/// N of "Command exited with code N".
fn exit_code(status: &str) -> Option<i64> {
    status
        .strip_prefix(STATUS[0])
        .and_then(|n| n.trim().parse().ok())
}

/// The whole output of a `bash` call Pi cut: the file its trailer (or
/// `details.fullOutputPath`) names, when that is one of Pi's output files and
/// the text Pi shows is its very tail. None when the output was not cut.
fn whole_output(body: &str, details: &Value) -> Option<String> {
    let at = body.rfind("[Showing ")?;
    let trailer = &body[at..];
    if trailer.contains('\n') || !trailer.ends_with(']') {
        return None;
    }
    let shown = match at {
        0 => "",
        _ => body[..at].strip_suffix("\n\n")?,
    };
    let named = trailer
        .rsplit_once("Full output: ")
        .map(|(_, p)| &p[..p.len() - 1])?;
    let path = details["fullOutputPath"].as_str().unwrap_or(named);
    let is_pis = |n: &str| n.starts_with("pi-bash-") && n.ends_with(".log");
    let whole = saved::read_text(std::path::Path::new(path), &saved::Where::Named(&is_pis))?;
    whole.ends_with(shown).then_some(whole)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines_split_off_errors_only() {
        assert_eq!(
            split_status("a\nb\n\nCommand exited with code 3", true),
            ("a\nb", Some("Command exited with code 3"))
        );
        assert_eq!(
            split_status("Command exited with code 1", true),
            ("", Some("Command exited with code 1"))
        );
        assert_eq!(
            split_status("a\n\nCommand exited with code 3", false),
            ("a\n\nCommand exited with code 3", None)
        );
        assert_eq!(split_status("a\n\nother", true), ("a\n\nother", None));
        assert_eq!(exit_code("Command exited with code 124"), Some(124));
        assert_eq!(exit_code("Command aborted"), None);
    }

    #[test]
    fn pis_notices_split_off() {
        let read = "a\nb\n\n[Showing lines 1-2 of 9 (50.0KB limit). Use offset=3 to continue.]";
        assert_eq!(
            split_notice(read),
            (
                "a\nb",
                Some("[Showing lines 1-2 of 9 (50.0KB limit). Use offset=3 to continue.]")
            )
        );
        let grep =
            "x:1: a\n\n[100 matches limit reached. Use limit=200 for more, or refine pattern]";
        assert_eq!(split_notice(grep).0, "x:1: a");
        // a bracketed last line of the file's own is the file's
        assert_eq!(split_notice("a\n\n[tool.x]"), ("a\n\n[tool.x]", None));
    }

    #[test]
    fn whole_output_only_from_pis_own_file_whose_tail_was_shown() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pi-bash-00ff.log");
        let whole: String = (1..=3000).map(|i| format!("{i}\n")).collect();
        std::fs::write(&path, &whole).unwrap();
        let tail: String = (1001..=3000).map(|i| format!("{i}\n")).collect();
        let text = format!(
            "{tail}\n\n[Showing lines 1001-3001 of 3001. Full output: {}]",
            path.display()
        );
        assert_eq!(whole_output(&text, &Value::Null), Some(whole.clone()));
        // a trailer the command printed itself, whose text is not that file's tail
        let fake = format!(
            "mine\n\n[Showing lines 1-2 of 2. Full output: {}]",
            path.display()
        );
        assert_eq!(whole_output(&fake, &Value::Null), None);
        // a file that is not one of Pi's
        let other = dir.path().join("secrets.log");
        std::fs::write(&other, &whole).unwrap();
        let text = format!(
            "{tail}\n\n[Showing lines 1001-3001 of 3001. Full output: {}]",
            other.display()
        );
        assert_eq!(whole_output(&text, &Value::Null), None);
        assert_eq!(whole_output("short output", &Value::Null), None);
    }
}
