//! `toolcap hook codex`, `PostToolUse` on `Bash`: a long shell result capped
//! after the command ran, in every approval and sandbox mode (Codex 0.169).
//!
//! Where approvals are on, or an execpolicy rules file exists, toolcap cannot
//! rewrite the command beforehand (Codex applies `updatedInput` only with
//! `permissionDecision: "allow"`, which skips its approval and its rules). After
//! the command ran nothing of that changes: Codex's `PostToolUse` hook gets the
//! output as the model would get it, and a reply `{"decision": "block",
//! "reason": TEXT}` makes TEXT the result the model gets (seen on 0.169.0, in
//! the TUI and in `codex exec`; the TUI shows "Blocked by hook" under the
//! command it ran).
//!
//! The hook's `tool_response` is Codex's own cut when the output was long
//! (`Warning: truncated output (original token count: T)\nTotal output lines:
//! N\n\n` then a head and a tail). The whole output is then read from the
//! session's rollout file (`transcript_path`): Codex records the finished
//! command there (`item_completed`, a `CommandExecution` item whose `id` is the
//! call id) with its `aggregated_output` and `exit_code` before the hook runs.
//! Codex keeps at most 64 KiB of an output there (65,536 of `seq 1 20000`'s
//! 108,894 bytes: the first and last 32,743 around "... command output
//! truncated for persistence ..."), so the recorded text is taken only when it
//! is provably whole: under 65,536 bytes, Codex's own token count of the
//! original (`ceil(bytes / 4)`) and its line count. A longer output stays
//! Codex's own cut: no file Codex writes holds it whole.

use std::path::{Component, Path};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::super::saved;
use super::{Failure, HookArgs, process_result};

/// Codex's header on an output it cut for the model.
const CUT: &str = "Warning: truncated output (original token count: ";

/// The most of an output Codex records in its rollout file.
const RECORDED_MAX: usize = 65_536;

/// A result Codex did not cut, up to this many bytes, is processed without
/// its exit status (no shell threshold is this low unless the user set one).
const LOOK_UP: usize = 2_000;

/// How much of the rollout file's end is read for the record.
const TAIL: u64 = 8 * 1024 * 1024;

/// How long the hook waits for Codex's record of the finished command.
const WAIT: Duration = Duration::from_millis(1_500);

/// The reply to a `PostToolUse` input on `Bash`, or None to leave the result
/// as Codex made it.
pub fn post_shell_reply(a: &HookArgs, input: &Value) -> Result<Option<Value>, Failure> {
    let Some(response) = input["tool_response"].as_str() else {
        return Ok(None);
    };
    let Some(command) = input["tool_input"]["command"].as_str() else {
        return Ok(None);
    };
    // a command toolcap already ran (the PreToolUse rewrite where approvals are
    // off) printed toolcap's view
    let program = a
        .toolcap
        .as_ref()
        .map(|p| p.to_string_lossy().into_owned())
        .or_else(|| {
            super::super::common::this_program()
                .ok()
                .map(|p| p.to_string_lossy().into_owned())
        })
        .unwrap_or_default();
    if super::shell::under_toolcap(command, &program) {
        return Ok(None);
    }
    let id = input["tool_use_id"].as_str().unwrap_or_default();
    // (a short result passes unchanged: its exit status is not looked up)
    let cut = response.starts_with(CUT);
    let recorded = input["transcript_path"]
        .as_str()
        .filter(|_| !id.is_empty() && (cut || response.len() > LOOK_UP))
        .and_then(|t| recorded_command(Path::new(t), id, cut));
    let (whole, exit) = match cut_header(response) {
        None => (response.to_string(), recorded.as_ref().and_then(|r| r.exit)),
        Some((tokens, lines)) => match recorded {
            Some(r) if is_whole(&r.output, tokens, lines) => (r.output, r.exit),
            _ => return Ok(None),
        },
    };
    let mut args = json!({"cmd": command});
    if let Some(code) = exit {
        args["exit_code"] = json!(code);
    }
    let shaped = json!({
        "tool_name": "exec_command",
        "tool_input": args,
        "tool_use_id": id,
    });
    let Some(out) = process_result(a, &shaped, &whole, None)?.filter(|o| o.truncated) else {
        return Ok(None);
    };
    let text = match exit {
        Some(code) => format!("Process exited with code {code}\nOutput:\n{}", out.text),
        None => out.text,
    };
    Ok(Some(json!({"decision": "block", "reason": text})))
}

/// Codex's token count of the original and its line count, from the header of
/// an output it cut; None when `response` is not cut.
fn cut_header(response: &str) -> Option<(usize, usize)> {
    let rest = response.strip_prefix(CUT)?;
    let (tokens, rest) = rest.split_once(")\nTotal output lines: ")?;
    let lines = rest.split('\n').next()?;
    Some((tokens.parse().ok()?, lines.parse().ok()?))
}

/// Whether `output` is the whole output Codex counted: below the size Codex
/// records whole, with Codex's token count (`ceil(bytes / 4)`) and line count.
fn is_whole(output: &str, tokens: usize, lines: usize) -> bool {
    output.len() < RECORDED_MAX
        && output.len().div_ceil(4) == tokens
        && output.lines().count() == lines
}

/// A finished command as Codex recorded it.
struct Recorded {
    output: String,
    exit: Option<i64>,
}

/// The command call `id` as the rollout file at `path` records it once
/// finished; waits up to [`WAIT`] for the record when `wait`.
fn recorded_command(path: &Path, id: &str, wait: bool) -> Option<Recorded> {
    let start = Instant::now();
    loop {
        if let Some(r) = find_recorded(path, id) {
            return Some(r);
        }
        if !wait || start.elapsed() > WAIT {
            return None;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Whether `path` is a rollout file where Codex keeps a session
/// (`.../sessions/YYYY/MM/DD/rollout-*.jsonl`).
fn is_rollout(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    name.starts_with("rollout-")
        && name.ends_with(".jsonl")
        && path
            .components()
            .any(|c| c == Component::Normal("sessions".as_ref()))
}

fn find_recorded(path: &Path, id: &str) -> Option<Recorded> {
    // the record is among the last lines written: the file's end is read (a
    // long session's rollout grows to many megabytes; one record of an output
    // Codex keeps whole is at most a few hundred KB of JSON)
    let bytes = saved::read_tail(path, &saved::Where::Matching(&is_rollout), TAIL)?;
    let text = String::from_utf8_lossy(&bytes);
    let quoted = serde_json::to_string(id).ok()?;
    text.lines()
        .rev()
        .filter(|l| l.contains("\"item_completed\"") && l.contains(&quoted))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|o| {
            let item = &o["payload"]["item"];
            let ours = o["payload"]["type"] == "item_completed"
                && item["type"] == "CommandExecution"
                && item["id"] == id
                // "failed" is a command that exited non-zero
                && (item["status"] == "completed" || item["status"] == "failed");
            ours.then(|| {
                Some(Recorded {
                    output: item["aggregated_output"].as_str()?.to_string(),
                    exit: item["exit_code"].as_i64(),
                })
            })
            .flatten()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codexs_cut_header_is_read() {
        let r = "Warning: truncated output (original token count: 27224)\nTotal output lines: 20000\n\n1\n2\n";
        assert_eq!(cut_header(r), Some((27224, 20000)));
        assert_eq!(cut_header("1\n2\n"), None);
        assert_eq!(
            cut_header("Warning: truncated output (original token count: x)\n"),
            None
        );
    }

    #[test]
    fn only_a_whole_record_is_taken() {
        // seq 1 10000: 48,894 bytes, 10,000 lines; Codex counts 12,224 tokens
        let seq: String = (1..=10_000).map(|i| format!("{i}\n")).collect();
        assert!(is_whole(&seq, 12_224, 10_000));
        assert!(!is_whole(&seq, 12_225, 10_000));
        assert!(!is_whole(&seq[..seq.len() - 6], 12_224, 10_000));
        // a record at Codex's limit is a head and a tail, never taken
        let big = "x\n".repeat(RECORDED_MAX / 2);
        assert!(!is_whole(&big, RECORDED_MAX / 4, RECORDED_MAX / 2));
    }

    #[test]
    fn only_rollout_files_are_read() {
        assert!(is_rollout(Path::new(
            "/h/.codex/sessions/2026/12/08/rollout-2026-12-08T02-58-46-x.jsonl"
        )));
        assert!(!is_rollout(Path::new("/etc/passwd")));
        assert!(!is_rollout(Path::new("/h/.codex/rollout-x.jsonl")));
        assert!(!is_rollout(Path::new("/h/sessions/rollout-x.json")));
    }
}
