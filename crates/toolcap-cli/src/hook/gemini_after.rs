//! Gemini CLI's shell results, file reads, searches, listings and fetches
//! capped after they ran.
//!
//! Gemini CLI's `AfterTool` hook cannot edit a result, but it may name a tool
//! call whose result replaces the original one (`tailToolCallRequest`; Gemini CLI
//! 0.61.0 bundle: `getTailToolCallRequest` in `AfterToolHookOutput`, "The result
//! of this tail call will replace the original tool's response", and the
//! scheduler's `replaceActiveCallWithTailCall`, which keeps the call's id and
//! original name). So over the threshold toolcap keeps the full result in the
//! project's store, writes its view to a file in Gemini CLI's project temporary
//! directory (which `read_file` may read in every approval mode:
//! `Config.isPathAllowed`), and asks for `read_file` of that file: the model
//! gets the view as the result of its own call.
//!
//! The tail call is checked by Gemini CLI like any call the model makes, so
//! toolcap asks for it only where `read_file` is allowed without a question:
//! its built-in policies allow it (`policies/read-only.toml`, priority 50), and
//! no settings, policy file or command-line argument names it or narrows the
//! tool list (else the model could get a refusal instead of its output). A
//! `read_file` with a line range is what the model asked for and is left alone;
//! a whole-file read is processed from the file itself (Gemini CLI's own read
//! stops at 2,000 lines), so every count in the view is the file's.
//!
//! `run_shell_command` goes the same way once the command ran, so nothing
//! changes about who may run what, in every approval mode: the hook gets the
//! whole result (Gemini CLI cuts it only afterwards, in `createSuccessResult`;
//! should a result come already cut, its whole text is read from the file the
//! notice names, only under the project temp dir's `tool-outputs/`, through
//! `saved.rs`). The output inside Gemini CLI's frame (`<untrusted_context>`,
//! `Output: `, then `Exit Code: `, `Signal: `, `Process Group PGID: ` lines) is
//! processed as the shell family with the frame's exit code, the frame kept
//! around the view. The whole output is written beside the view
//! (`ID-output.txt`), and the view's ways back are `read_file` ranges and a
//! `grep_search` of that file: no shell permission is needed to follow them.
//! A command run under toolcap (a yolo session's `BeforeTool` rewrite to
//! `toolcap run`, a `toolcap continue`) printed toolcap's view already and is
//! left alone.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::super::common::{Failure, other};
// the tools capped this way: the ones the install's `AfterTool` matcher names
use super::super::install::GEMINI_AFTER_TOOLS as CAPPED;
use super::super::saved;
use super::{HookArgs, gemini, process_with};

/// Gemini CLI's shell tool: its result is capped after the command ran, in
/// every approval mode (see [`shell_view`]).
const SHELL: &str = "run_shell_command";

/// Files larger than this are not read again for the view (Gemini CLI itself
/// refuses files over 20 MB).
const MAX_FILE_BYTES: u64 = 64 << 20;

/// The `AfterTool` reply for a capped result, or None to leave it as it is.
pub fn reply(a: &HookArgs, input: &Value) -> Result<Option<Value>, Failure> {
    // a tail call (ours or another hook's) is never chained again
    if input.get("original_request_name").is_some() {
        return Ok(None);
    }
    let tool = input["tool_name"].as_str().unwrap_or_default();
    if !CAPPED.contains(&tool) {
        return Ok(None);
    }
    let response = &input["tool_response"];
    if !response["error"].is_null() {
        return Ok(None);
    }
    let Some(llm) = response["llmContent"].as_str() else {
        return Ok(None);
    };
    let Some(temp_dir) = project_temp_dir(input) else {
        return Ok(None);
    };
    let cwd = input["cwd"].as_str().map(PathBuf::from);
    if !gemini::read_file_unrestricted(cwd.as_deref()) {
        return Ok(None);
    }
    if tool == SHELL {
        let Some(view) = shell_view(a, input, llm, &temp_dir)? else {
            return Ok(None);
        };
        return tail_call(a, &temp_dir, &view.0, &view.1).map(Some);
    }
    // a file read's way back is read_file on the file itself (allowed in every
    // approval mode); the others' is the stored copy
    let read = tool == "read_file";
    let text = if read {
        match whole_file(input, cwd.as_deref()) {
            Some(t) => t,
            None => return Ok(None),
        }
    } else {
        llm.to_string()
    };
    let Some(out) = process_with(a, input, &text, Some("gemini-cli"), !read)? else {
        return Ok(None);
    };
    if !out.truncated {
        return Ok(None);
    }
    let name = view_name(&out);
    tail_call(a, &temp_dir, &name, &out.text).map(Some)
}

/// The view's file name: the stored result's id, else a new one.
fn view_name(out: &toolcap_core::Processed) -> String {
    out.stored
        .as_ref()
        .map_or_else(super::super::project::generated_id, |s| {
            s.tool_call_id.clone()
        })
}

/// Writes `text` as the view `name` and replies with a `read_file` tail call of it.
fn tail_call(a: &HookArgs, temp_dir: &Path, name: &str, text: &str) -> Result<Value, Failure> {
    // views go when the store's results would (`[store] keep`; a week when unset)
    let keep = super::super::common::load_config(a.config.as_deref())
        .ok()
        .and_then(|c| c.store.keep)
        .unwrap_or(VIEW_KEEP);
    let view = write_view(temp_dir, name, text, keep)?;
    Ok(json!({
        "hookSpecificOutput": {
            "hookEventName": "AfterTool",
            "tailToolCallRequest": {
                "name": "read_file",
                "args": {"file_path": view.to_string_lossy()},
            },
        }
    }))
}

/// Gemini CLI's shell result frame (`packages/core/src/tools/shell.ts` of
/// 0.61.0): `<untrusted_context>\nOutput: O` then, each on its line and only
/// when there is one, `Error: E`, `Exit Code: N` (non-zero only), `Signal: S`,
/// `Background PIDs: ...`, `Process Group PGID: P`, then `\n</untrusted_context>`.
const FRAME_OPEN: &str = "<untrusted_context>\nOutput: ";
const FRAME_CLOSE: &str = "\n</untrusted_context>";
/// The one-line sections after the output, in Gemini CLI's order.
const FRAME_LINES: [&str; 4] = [
    "Exit Code: ",
    "Signal: ",
    "Background PIDs: ",
    "Process Group PGID: ",
];

/// Gemini CLI's notice when it cut a tool's output itself (`formatTruncatedToolOutput`):
/// the first line, naming the file that holds the whole result.
const CUT_NOTICE: &str = "Output too large. Showing first ";
const CUT_PATH: &str = " characters. For full output see: ";

/// The view of a long `run_shell_command` result, with its file name: Gemini
/// CLI's frame kept around toolcap's view of the output (processed as the
/// shell family, the exit code from the frame); None to leave the result as it
/// is (short, not in Gemini CLI's shape, or toolcap's own output already).
fn shell_view(
    a: &HookArgs,
    input: &Value,
    llm: &str,
    temp_dir: &Path,
) -> Result<Option<(String, String)>, Failure> {
    let ti = &input["tool_input"];
    let Some(command) = ti["command"].as_str() else {
        return Ok(None);
    };
    // a command under `toolcap run` (a yolo session's BeforeTool rewrite, or
    // the model's own) or a `toolcap continue` printed toolcap's view already
    let program = a.toolcap.as_ref().map_or_else(
        || {
            super::super::common::this_program()
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default()
        },
        |p| p.to_string_lossy().into_owned(),
    );
    if super::shell::under_toolcap(command, &program)
        || llm.contains("\n--- Recovery Options ---\n")
    {
        return Ok(None);
    }
    let whole = match saved_whole(llm, temp_dir) {
        Some(w) => w,
        None if llm.starts_with(CUT_NOTICE) => return Ok(None),
        None => llm.to_string(),
    };
    let Some((output, tail)) = shell_parts(&whole) else {
        return Ok(None);
    };
    let mut args = match ti {
        Value::Object(o) => o.clone(),
        _ => return Ok(None),
    };
    if let Some(code) = exit_code(tail) {
        args.insert("exit_code".into(), json!(code));
    }
    let shaped = json!({
        "tool_name": SHELL,
        "tool_input": Value::Object(args),
    });
    // a short output is left as it is, and nothing is written for it
    let config = super::super::common::load_config(a.config.as_deref())?;
    if output.chars().count() <= config.entry_for(SHELL).threshold {
        return Ok(None);
    }
    // the whole output goes beside the view, where read_file reads it: the
    // view's ways back read its lines (no other permission needed)
    let name = super::super::project::generated_id();
    let keep = config.store.keep.unwrap_or(VIEW_KEEP);
    let saved = write_view(temp_dir, &format!("{name}-output"), output, keep)?;
    let out = super::process_saved(a, &shaped, output, Some("gemini-cli"), &saved);
    match out {
        Ok(Some(out)) if out.truncated => {
            Ok(Some((name, format!("{FRAME_OPEN}{}{tail}", out.text))))
        }
        other => {
            let _ = std::fs::remove_file(&saved);
            other.map(|_| None)
        }
    }
}

/// The file Gemini CLI's notice of a cut result names (the notice is the
/// result's first line), or None when the result does not start with it.
/// `discover` reads Gemini CLI's chats with it too.
pub(crate) fn cut_notice_path(text: &str) -> Option<&Path> {
    let first = text.strip_prefix(CUT_NOTICE)?.split('\n').next()?;
    Some(Path::new(&first[first.find(CUT_PATH)? + CUT_PATH.len()..]))
}

/// The whole result Gemini CLI saved when it cut it (its notice first, the
/// file in its project temporary directory's `tool-outputs/`), or None.
fn saved_whole(llm: &str, temp_dir: &Path) -> Option<String> {
    let path = cut_notice_path(llm)?;
    saved::read_text(path, &saved::Where::Under(temp_dir, "tool-outputs"))
}

/// A shell result split into its output and the frame after it (from the
/// first of the trailing one-line sections, through `</untrusted_context>`);
/// None when it is not in that shape.
fn shell_parts(text: &str) -> Option<(&str, &str)> {
    let body = text.strip_prefix(FRAME_OPEN)?.strip_suffix(FRAME_CLOSE)?;
    let mut end = body.len();
    // sections are read from the last one up, each at most once, in order
    let mut allowed = FRAME_LINES.len();
    while let Some(nl) = body[..end].rfind('\n') {
        let line = &body[nl + 1..end];
        let Some(k) = FRAME_LINES[..allowed]
            .iter()
            .rposition(|p| line.strip_prefix(p).is_some_and(|v| section_value(p, v)))
        else {
            break;
        };
        allowed = k;
        end = nl;
    }
    Some((&body[..end], &text[FRAME_OPEN.len() + end..]))
}

/// Whether `value` is what Gemini CLI writes after `section`.
fn section_value(section: &str, value: &str) -> bool {
    let digits = |v: &str| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
    match section {
        "Exit Code: " => digits(value.strip_prefix('-').unwrap_or(value)),
        "Process Group PGID: " => digits(value),
        "Background PIDs: " => value.split(", ").all(digits),
        _ => !value.is_empty(),
    }
}

/// The exit code the frame says: its `Exit Code: N`, else 0 when no signal
/// ended the command (Gemini CLI names only a non-zero code).
fn exit_code(tail: &str) -> Option<i64> {
    let mut code = Some(0);
    for line in tail.lines() {
        if let Some(v) = line.strip_prefix("Exit Code: ") {
            return v.parse().ok();
        }
        if line.starts_with("Signal: ") {
            code = None;
        }
    }
    code
}

/// Gemini CLI's project temporary directory: the hook input's transcript lives
/// in `<project temp dir>/chats/`.
fn project_temp_dir(input: &Value) -> Option<PathBuf> {
    let transcript = Path::new(input["transcript_path"].as_str()?);
    let chats = transcript.parent()?;
    (chats.file_name()? == "chats")
        .then(|| chats.parent().map(Path::to_path_buf))
        .flatten()
        .filter(|d| d.is_dir())
}

/// The whole text of the file a `read_file` without a line range read; None for
/// a ranged read, or a file that is not UTF-8 text or too large.
fn whole_file(input: &Value, cwd: Option<&Path>) -> Option<String> {
    let ti = &input["tool_input"];
    if !ti["start_line"].is_null() || !ti["end_line"].is_null() {
        return None;
    }
    let path = Path::new(ti["file_path"].as_str()?);
    let path = match (path.is_absolute(), cwd) {
        (true, _) => path.to_path_buf(),
        (false, Some(d)) => d.join(path),
        (false, None) => return None,
    };
    // a regular file only, opened without blocking (a FIFO swapped in since
    // the read does not hang the hook), at most MAX_FILE_BYTES
    let bytes = saved::read_regular(&path, MAX_FILE_BYTES).ok()?;
    String::from_utf8(bytes).ok()
}

/// How long a view file stays when the store keeps results for ever.
const VIEW_KEEP: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);

/// Writes the view to `<temp dir>/toolcap/views/<id>.txt`, where `read_file`
/// reads it, and returns that path. The view holds the output's text: it is
/// made `0600` in `0700` directories, and views older than `keep` are removed.
fn write_view(
    temp_dir: &Path,
    id: &str,
    view: &str,
    keep: std::time::Duration,
) -> Result<PathBuf, Failure> {
    let dir = temp_dir.join("toolcap").join("views");
    toolcap_store::private::create_dir_all(&dir).map_err(|e| {
        other(format!(
            "{}: cannot create the views' folder: {e}",
            dir.display()
        ))
    })?;
    // the id is a validated tool call id or a generated one; keep the file name plain
    let file: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let path = dir.join(format!("{file}.txt"));
    toolcap_store::private::write(&path, view)
        .map_err(|e| other(format!("{}: cannot write the view: {e}", path.display())))?;
    remove_old_views(&dir, keep);
    Ok(path)
}

/// Removes the `*.txt` views in `dir` last written more than `keep` ago (a view
/// is read by the tail call right after it is written; the stored result is
/// the way back after that). Whatever cannot be read or removed is left.
fn remove_old_views(dir: &Path, keep: std::time::Duration) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = std::time::SystemTime::now();
    for e in entries.flatten() {
        let path = e.path();
        let old = e
            .metadata()
            .ok()
            .filter(std::fs::Metadata::is_file)
            .and_then(|m| m.modified().ok())
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > keep);
        if old && path.extension().is_some_and(|x| x == "txt") {
            let _ = std::fs::remove_file(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_dir_is_read_from_the_transcript_path() {
        let base =
            std::env::temp_dir().join(format!("toolcap-gemini-after-{}", std::process::id()));
        std::fs::create_dir_all(base.join("chats")).unwrap();
        let input =
            json!({"transcript_path": base.join("chats/session-1.jsonl").to_string_lossy()});
        assert_eq!(project_temp_dir(&input), Some(base.clone()));
        // anything else is not trusted to be Gemini CLI's readable folder
        let elsewhere =
            json!({"transcript_path": base.join("other/session-1.jsonl").to_string_lossy()});
        assert_eq!(project_temp_dir(&elsewhere), None);
        assert_eq!(project_temp_dir(&json!({})), None);
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn the_shell_frame_stays_around_the_output() {
        let t = "<untrusted_context>\nOutput: 1\nExit Code: 9\n2\nError: spawn x\nExit Code: 3\nSignal: SIGTERM\nBackground PIDs: 12, 14\nProcess Group PGID: 77\n</untrusted_context>";
        let (out, tail) = shell_parts(t).expect("a shell result");
        // a line of the output that looks like the frame stays in the output
        assert_eq!(out, "1\nExit Code: 9\n2\nError: spawn x");
        assert_eq!(
            tail,
            "\nExit Code: 3\nSignal: SIGTERM\nBackground PIDs: 12, 14\nProcess Group PGID: 77\n</untrusted_context>"
        );
        assert_eq!(exit_code(tail), Some(3));
        // no Exit Code line: the command exited 0, unless a signal ended it
        let ok = "<untrusted_context>\nOutput: a\nb\nProcess Group PGID: 5\n</untrusted_context>";
        let (out, tail) = shell_parts(ok).expect("a shell result");
        assert_eq!((out, exit_code(tail)), ("a\nb", Some(0)));
        assert_eq!(exit_code("\nSignal: 15\n</untrusted_context>"), None);
        // the sections come in Gemini CLI's order, each once
        let twice = "<untrusted_context>\nOutput: a\nProcess Group PGID: 5\nExit Code: 2\nProcess Group PGID: 6\n</untrusted_context>";
        assert_eq!(
            shell_parts(twice).map(|p| p.0),
            Some("a\nProcess Group PGID: 5")
        );
        // anything else (a cancelled or backgrounded command) is left alone
        assert!(shell_parts("Command moved to background (PID: 5).").is_none());
        assert!(
            shell_parts("<untrusted_context>\nCommand was cancelled\n</untrusted_context>")
                .is_none()
        );
    }

    #[test]
    fn a_cut_result_is_read_whole_only_from_gemini_clis_tool_outputs() {
        let d = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let temp = d.path().join("tmp/project");
        let dir = temp.join("tool-outputs/session-1");
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let whole = "<untrusted_context>\nOutput: 1\n2\n</untrusted_context>";
        let file = dir.join("run_shell_command_1.txt");
        std::fs::write(&file, whole).unwrap_or_else(|e| panic!("{e}"));
        let notice = |p: &Path| {
            format!(
                "Output too large. Showing first 8,000 and last 32,000 characters. For full output see: {}\n<untrusted_context>\nOutput: 1",
                p.display()
            )
        };
        assert_eq!(saved_whole(&notice(&file), &temp).as_deref(), Some(whole));
        // the notice in the middle of an output names nothing
        assert_eq!(saved_whole(&format!("x\n{}", notice(&file)), &temp), None);
        // another file, or one outside tool-outputs, is not read
        let elsewhere = temp.join("notes.txt");
        std::fs::write(&elsewhere, "secret").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(saved_whole(&notice(&elsewhere), &temp), None);
        assert_eq!(
            saved_whole(&notice(Path::new("/etc/hostname")), &temp),
            None
        );
        #[cfg(unix)]
        {
            let link = dir.join("link.txt");
            std::os::unix::fs::symlink(&elsewhere, &link).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(saved_whole(&notice(&link), &temp), None);
        }
    }

    #[test]
    fn ranged_reads_are_left_alone() {
        let input = json!({"tool_input": {"file_path": "/etc/hostname", "start_line": 3}});
        assert_eq!(whole_file(&input, None), None);
        let input = json!({"tool_input": {"file_path": "/etc/hostname", "end_line": 3}});
        assert_eq!(whole_file(&input, None), None);
        let input = json!({"tool_input": {"file_path": "relative.txt"}});
        assert_eq!(whole_file(&input, None), None);
    }
}
