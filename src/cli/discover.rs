//! `toolcap discover --agent claude-code`: what the agent's own session logs say
//! about its tool results — how many, how large, which went through toolcap and
//! which did not (and why), what toolcap would have shown for each, and the
//! recovery calls the model made.
//!
//! Claude Code keeps one JSONL transcript per session in
//! `~/.claude/projects/<dir-key>/<session>.jsonl` (`$CLAUDE_CONFIG_DIR` instead of
//! `~/.claude` when set). A tool call is a `tool_use` block (`id`, `name`,
//! `input`) in the `message.content` of an `assistant` line; its result a
//! `tool_result` block (`tool_use_id`, `content`: a string or text blocks) of a
//! `user` line. An output too long for the transcript is written to
//! `<session>/tool-results/<id>.txt` and the result holds only a
//! `<persisted-output>` preview naming that file: the file is read for the real
//! size. Lines are read one at a time (bounded memory); a line that is not JSON
//! is counted, never fatal. docs/stats.md describes the report.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde_json::{Value, json};
use toolcap::{Config, ToolResultProcessor};

use super::common::{Failure, load_config, usage, write_out};
use super::stats::parse_since;

#[derive(Clone, Copy, ValueEnum)]
pub enum Agent {
    /// Claude Code's project transcripts (~/.claude/projects).
    ClaudeCode,
}

#[derive(Args)]
pub struct DiscoverArgs {
    /// Whose session logs to read.
    #[arg(long, value_enum, default_value = "claude-code")]
    agent: Agent,
    /// Only sessions' lines since: an age (7d, 12h, 30m) or a UTC time.
    #[arg(long, value_name = "WHEN")]
    since: Option<String>,
    /// Only the calls made in this project (the transcript's working directory
    /// is DIR or under it).
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
    /// The config whose thresholds the replay uses (else the usual lookup).
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
    /// Print one JSON object instead of the text.
    #[arg(long)]
    json: bool,
}

/// The marker of toolcap's view of a cut result.
const RECOVERY: &str = "--- Recovery Options ---";

/// Tools toolcap caps in Claude Code once installed (`toolcap install
/// claude-code`): Bash through the shell prefix, Read, Grep and MCP tools by the
/// PostToolUse hook.
fn covered(tool: &str) -> bool {
    matches!(tool, "Bash" | "Read" | "Grep") || tool.starts_with("mcp__")
}

/// Per tool and command kind.
#[derive(Default)]
struct Group {
    calls: u64,
    chars: u64,
    chars_max: u64,
    over_threshold: u64,
    through_toolcap: u64,
    under_threshold: u64,
    not_capped: u64,
    tool_not_covered: u64,
    shown_chars: u64,
    would_show_chars: u64,
    threshold: u64,
    unit: &'static str,
}

#[derive(Default)]
struct Found {
    sessions: u64,
    lines: u64,
    unreadable_lines: u64,
    results: u64,
    persisted: u64,
    persisted_missing: u64,
    results_without_call: u64,
    groups: BTreeMap<(String, String), Group>,
    recovery: BTreeMap<String, u64>,
}

pub fn discover(a: DiscoverArgs) -> Result<(), Failure> {
    let Agent::ClaudeCode = a.agent;
    let since_ms = match &a.since {
        None => None,
        Some(s) => Some(parse_since(s, toolcap::store::now_ms()).ok_or_else(|| {
            usage(format!(
                "--since {s:?}: expected an age (7d, 12h, 30m) or a UTC time like 2026-11-25"
            ))
        })?),
    };
    let project = match &a.project {
        None => None,
        Some(p) => Some(p.canonicalize().map_err(|e| {
            usage(format!(
                "--project {}: {e}; pass an existing project directory",
                p.display()
            ))
        })?),
    };
    let config = load_config(a.config.as_deref())?;
    let root = claude_dir()
        .ok_or_else(|| usage("no home directory: set HOME or CLAUDE_CONFIG_DIR"))?
        .join("projects");
    let mut found = Found::default();
    for file in transcripts(&root) {
        read_session(&file, &config, since_ms, project.as_deref(), &mut found);
    }
    if a.json {
        let mut s = to_json(&found, &root, since_ms, project.as_deref()).to_string();
        s.push('\n');
        return write_out(s.as_bytes());
    }
    write_out(render(&found, &root).as_bytes())
}

/// `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
fn claude_dir() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    env("CLAUDE_CONFIG_DIR").or_else(|| env("HOME").map(|h| h.join(".claude")))
}

/// Every `<dir>/<session>.jsonl` under `root`, sorted.
fn transcripts(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(dirs) = std::fs::read_dir(root) else {
        return out;
    };
    for d in dirs.filter_map(Result::ok) {
        let Ok(files) = std::fs::read_dir(d.path()) else {
            continue;
        };
        out.extend(
            files
                .filter_map(Result::ok)
                .map(|f| f.path())
                .filter(|p| p.extension().is_some_and(|e| e == "jsonl") && p.is_file()),
        );
    }
    out.sort();
    out
}

/// `2026-11-28T04:47:00.123Z` in milliseconds since the epoch.
fn line_time(v: &Value) -> Option<i64> {
    let t = v.get("timestamp")?.as_str()?;
    let (whole, frac) = match t.trim_end_matches('Z').split_once('.') {
        Some((w, f)) => (w, f),
        None => (t.trim_end_matches('Z'), "0"),
    };
    let ms: i64 = format!("{:0<3}", frac.get(..3).unwrap_or(frac))
        .parse()
        .unwrap_or(0);
    Some(parse_since(whole, 0)? + ms)
}

/// A tool call waiting for its result.
struct Pending {
    tool: String,
    input: Value,
}

fn read_session(
    file: &Path,
    config: &Config,
    since_ms: Option<i64>,
    project: Option<&Path>,
    found: &mut Found,
) {
    let Ok(f) = std::fs::File::open(file) else {
        return;
    };
    let replay = ToolResultProcessor::new(config.clone());
    let mut pending: HashMap<String, Pending> = HashMap::new();
    // results of the latest turn, waiting for the hooks' attachments that follow
    // them (toolcap's recovery section for Read, Grep and MCP results)
    let mut awaiting: Vec<(String, Pending, String)> = Vec::new();
    let mut counted = false;
    for line in BufReader::new(f).split(b'\n') {
        let Ok(line) = line else {
            found.unreadable_lines += 1;
            break;
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        found.lines += 1;
        let Ok(v) = serde_json::from_slice::<Value>(&line) else {
            found.unreadable_lines += 1;
            continue;
        };
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
                result(found, &replay, &call, &text);
            }
        }
        if since_ms.is_some_and(|s| line_time(&v).is_none_or(|t| t < s)) {
            continue;
        }
        if let Some(p) = project {
            let cwd = v.get("cwd").and_then(Value::as_str).map(Path::new);
            if !cwd.is_some_and(|c| c.starts_with(p)) {
                continue;
            }
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
                    if let Some(r) = recovery_kind(name, &input) {
                        *found.recovery.entry(r).or_insert(0) += 1;
                    }
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
    for (_, call, text) in awaiting.drain(..) {
        result(found, &replay, &call, &text);
    }
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

/// The original's size that toolcap's recovery section states on its first
/// line (`Output: N lines, M chars`, `File: PATH | N lines, M chars`).
fn stated_chars(text: &str) -> Option<u64> {
    let at = text.rfind(RECOVERY)? + RECOVERY.len();
    let header = text[at..].trim_start_matches('\n').lines().next()?;
    let l = header.find(" lines, ")? + " lines, ".len();
    let digits = &header[l..];
    let end = digits.find(" chars")?;
    let n: String = digits[..end].chars().filter(char::is_ascii_digit).collect();
    (n.len() == digits[..end].chars().filter(|c| *c != ',').count())
        .then(|| n.parse().ok())
        .flatten()
}

fn result(found: &mut Found, replay: &ToolResultProcessor, call: &Pending, text: &str) {
    found.results += 1;
    let chars = |s: &str| s.chars().count() as u64;
    let through = text.contains(RECOVERY);
    let full = match persisted_path(text) {
        Some(p) => {
            found.persisted += 1;
            match std::fs::read(&p) {
                Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
                Err(_) => {
                    found.persisted_missing += 1;
                    None
                }
            }
        }
        None => None,
    };
    let full = full.as_deref().unwrap_or(text);
    let size = if through {
        stated_chars(text).unwrap_or_else(|| chars(text))
    } else {
        chars(full)
    };
    let g = found
        .groups
        .entry((call.tool.clone(), command_kind(&call.tool, &call.input)))
        .or_default();
    g.calls += 1;
    g.chars += size;
    g.chars_max = g.chars_max.max(size);
    g.shown_chars += chars(text);
    if through {
        g.through_toolcap += 1;
        g.over_threshold += 1;
        g.would_show_chars += chars(text);
        return;
    }
    let p = replay.process(&call.tool, full, &call.input);
    g.threshold = p.threshold as u64;
    g.unit = p.unit;
    g.would_show_chars += chars(&p.text);
    if !p.truncated {
        g.under_threshold += 1;
    } else if covered(&call.tool) {
        g.over_threshold += 1;
        g.not_capped += 1;
    } else {
        g.over_threshold += 1;
        g.tool_not_covered += 1;
    }
}

/// A Bash command's kind: its program (less the path and any `VAR=value`
/// before it), with the subcommand for programs known by theirs.
fn command_kind(tool: &str, input: &Value) -> String {
    if tool != "Bash" {
        return String::new();
    }
    let cmd = input.get("command").and_then(Value::as_str).unwrap_or("");
    let mut words = cmd
        .split_whitespace()
        .map(|w| w.trim_matches(|c| c == '\'' || c == '"'))
        .skip_while(|w| w.contains('=') && !w.starts_with('-'));
    let Some(first) = words.next() else {
        return String::new();
    };
    let prog = first.rsplit('/').next().unwrap_or(first);
    match prog {
        "cargo" | "git" | "npm" | "pnpm" | "yarn" | "go" | "docker" | "kubectl" | "toolcap"
        | "uv" | "make" => match words.next().filter(|w| !w.starts_with('-')) {
            Some(sub) => format!("{prog} {sub}"),
            None => prog.to_string(),
        },
        _ => prog.to_string(),
    }
}

/// A recovery call: `toolcap continue|search|show|fetch|query` in a Bash
/// command, or one of toolcap's MCP tools.
fn recovery_kind(tool: &str, input: &Value) -> Option<String> {
    if let Some(t) = tool.strip_prefix("mcp__toolcap__") {
        return Some(t.to_string());
    }
    if tool != "Bash" {
        return None;
    }
    let cmd = input.get("command").and_then(Value::as_str)?;
    let words: Vec<&str> = cmd
        .split_whitespace()
        .map(|w| w.trim_matches(|c| c == '\'' || c == '"'))
        .collect();
    words.windows(2).find_map(|w| {
        let prog = w[0].rsplit('/').next().unwrap_or(w[0]);
        (prog == "toolcap" && matches!(w[1], "continue" | "search" | "show" | "fetch" | "query"))
            .then(|| format!("toolcap {}", w[1]))
    })
}

fn to_json(f: &Found, root: &Path, since_ms: Option<i64>, project: Option<&Path>) -> Value {
    json!({
        "agent": "claude-code",
        "transcripts": root,
        "since": since_ms.map(toolcap::store::format_utc_ms),
        "project": project,
        "sessions": f.sessions,
        "lines": f.lines,
        "unreadable_lines": f.unreadable_lines,
        "results": f.results,
        "results_without_call": f.results_without_call,
        "persisted_outputs": f.persisted,
        "persisted_outputs_missing": f.persisted_missing,
        "tools": f.groups.iter().map(|((tool, kind), g)| json!({
            "tool": tool,
            "kind": kind,
            "calls": g.calls,
            "chars": g.chars,
            "chars_max": g.chars_max,
            "shown_chars": g.shown_chars,
            "over_threshold": g.over_threshold,
            "through_toolcap": g.through_toolcap,
            "not_through_toolcap": {
                "under_threshold": g.under_threshold,
                "not_capped": g.not_capped,
                "tool_not_covered": g.tool_not_covered,
            },
            "would_show_chars": g.would_show_chars,
            "threshold": g.threshold,
            "unit": g.unit,
        })).collect::<Vec<_>>(),
        "recovery_calls": f.recovery,
    })
}

fn n(x: u64) -> String {
    toolcap::internals::thousands(usize::try_from(x).unwrap_or(usize::MAX))
}

fn plural(k: u64, one: &str, many: &str) -> String {
    format!("{} {}", n(k), if k == 1 { one } else { many })
}

fn render(f: &Found, root: &Path) -> String {
    let mut out = format!(
        "Claude Code transcripts in {}: {}, {}",
        root.display(),
        plural(f.sessions, "session", "sessions"),
        plural(f.results, "tool result", "tool results")
    );
    if f.unreadable_lines > 0 {
        out.push_str(&format!(
            ", {} unreadable lines skipped",
            n(f.unreadable_lines)
        ));
    }
    out.push('\n');
    if f.persisted > 0 {
        out.push_str(&format!(
            "{} persisted by Claude Code read from their files{}\n",
            plural(f.persisted, "output", "outputs"),
            if f.persisted_missing > 0 {
                format!(
                    " ({} files gone: their preview counted)",
                    n(f.persisted_missing)
                )
            } else {
                String::new()
            }
        ));
    }
    if f.groups.is_empty() {
        return out;
    }
    let label = |(t, k): &(String, String)| {
        if k.is_empty() {
            t.clone()
        } else {
            format!("{t} {k}")
        }
    };
    let w = f
        .groups
        .keys()
        .map(|k| label(k).chars().count().min(40))
        .max()
        .unwrap_or(4)
        .max(4);
    out.push_str(&format!(
        "\n{:<w$}  {:>6}  {:>11}  {:>11}  {:>6}  {:>8}  {:>11}  {:>12}\n",
        "tool", "calls", "chars", "shown", "over", "toolcap", "not capped", "would show"
    ));
    for (k, g) in &f.groups {
        let l: String = label(k).chars().take(40).collect();
        out.push_str(&format!(
            "{l:<w$}  {:>6}  {:>11}  {:>11}  {:>6}  {:>8}  {:>11}  {:>12}\n",
            n(g.calls),
            n(g.chars),
            n(g.shown_chars),
            n(g.over_threshold),
            n(g.through_toolcap),
            n(g.not_capped + g.tool_not_covered),
            n(g.would_show_chars)
        ));
    }
    let uncovered: Vec<String> = f
        .groups
        .iter()
        .filter(|(_, g)| g.tool_not_covered > 0)
        .map(|(k, _)| label(k))
        .collect();
    let missed: u64 = f.groups.values().map(|g| g.not_capped).sum();
    out.push('\n');
    if missed > 0 {
        out.push_str(&format!(
            "{} results over the threshold did not go through toolcap though it covers their tool: not installed for these sessions (`toolcap install claude-code`)\n",
            n(missed)
        ));
    }
    if !uncovered.is_empty() {
        out.push_str(&format!(
            "over the threshold in tools toolcap does not cap in Claude Code: {}\n",
            uncovered.join(", ")
        ));
    }
    let calls: u64 = f.recovery.values().sum();
    out.push_str(&format!("recovery calls: {}", n(calls)));
    if calls > 0 {
        let by: Vec<String> = f
            .recovery
            .iter()
            .map(|(k, v)| format!("{k} {}", n(*v)))
            .collect();
        out.push_str(&format!(" ({})", by.join(", ")));
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_recovery_calls_are_read_from_commands() {
        let c = |s: &str| json!({ "command": s });
        assert_eq!(
            command_kind("Bash", &c("FOO=1 /usr/bin/cargo test -q")),
            "cargo test"
        );
        assert_eq!(command_kind("Bash", &c("seq 1 20000")), "seq");
        assert_eq!(command_kind("Read", &c("x")), "");
        assert_eq!(
            recovery_kind(
                "Bash",
                &c("'/opt/bin/toolcap' continue run-1 --start-line 3")
            ),
            Some("toolcap continue".into())
        );
        assert_eq!(recovery_kind("Bash", &c("grep toolcap x")), None);
        assert_eq!(
            recovery_kind("mcp__toolcap__get_continuation", &json!({})),
            Some("get_continuation".into())
        );
    }

    #[test]
    fn persisted_previews_and_stated_sizes_are_read() {
        let t = "<persisted-output>\nOutput too large (106.3KB). Full output saved to: /h/x/tool-results/b.txt\n\nPreview (first 2KB):\n1\n";
        assert_eq!(
            persisted_path(t),
            Some(PathBuf::from("/h/x/tool-results/b.txt"))
        );
        assert_eq!(persisted_path("plain"), None);
        let v = "1\n2\n\n--- Recovery Options ---\nCommand: seq 1 20000 | exit code 0 | Output: 20,000 lines, 108,894 chars\n";
        assert_eq!(stated_chars(v), Some(108_894));
        let r = "x\n--- Recovery Options ---\nFile: /a/typing.py | 3,519 lines, 120,077 chars | python\n";
        assert_eq!(stated_chars(r), Some(120_077));
        assert_eq!(stated_chars("--- Recovery Options ---\nno size\n"), None);
    }
}
