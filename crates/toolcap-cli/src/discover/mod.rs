//! `toolcap discover --agent claude-code|codex|gemini-cli|opencode|qwen-code|kilo|copilot|pi`: what the
//! agent's own session logs say about its tool results — how many, how large,
//! which went through toolcap and which did not (and why), what toolcap would have
//! shown for each, and the recovery calls the model made.
//!
//! One reader per agent, each citing the format it reads (seen on disk after runs
//! of the real agents, the versions tests/agents installs): [`claude`] (project
//! JSONL transcripts), [`codex`] (session rollouts), [`gemini`] (saved chats),
//! [`opencode`] (its SQLite storage). Each hands every tool call with its result
//! to [`Found::result`], which counts it the same way for all four. Logs are read
//! a line (a row) at a time; a line that cannot be read is counted, never fatal.
//! docs/stats.md describes the report.

mod claude;
mod codex;
mod copilot;
mod gemini;
mod opencode;
mod pi;
mod qwen;
mod render;

pub use render::label;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde_json::{Value, json};
use toolcap_config::Config;
use toolcap_core::ToolResultProcessor;

use super::common::{Failure, load_config, usage, visible, write_out};
use super::saved;
use super::stats::since_flag;

#[derive(
    Clone, Copy, PartialEq, Eq, Debug, ValueEnum, strum::IntoStaticStr, strum::VariantArray,
)]
#[strum(serialize_all = "kebab-case")]
pub enum Agent {
    /// Claude Code's project transcripts (~/.claude/projects).
    ClaudeCode,
    /// Codex's session rollouts ($CODEX_HOME/sessions, else ~/.codex/sessions).
    Codex,
    /// Gemini CLI's saved chats (~/.gemini/tmp/<project>/chats).
    GeminiCli,
    /// opencode's storage (~/.local/share/opencode/opencode.db).
    Opencode,
    /// Qwen Code's chat records (~/.qwen/projects/<project>/chats).
    QwenCode,
    /// Kilo Code's storage (~/.local/share/kilo/kilo.db: opencode's schema).
    Kilo,
    /// GitHub Copilot CLI's session events (~/.copilot/session-state/<id>/events.jsonl).
    Copilot,
    /// Pi's sessions (~/.pi/agent/sessions/<project>/*.jsonl).
    Pi,
}

impl Agent {
    /// Every agent, in declaration order.
    pub const ALL: &[Agent] = <Agent as strum::VariantArray>::VARIANTS;

    /// The name `--agent` and `toolcap install` take (clap's `ValueEnum`
    /// names, kebab-case, are the same).
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The agent's own name.
    pub fn display(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code",
            Agent::Codex => "Codex",
            Agent::GeminiCli => "Gemini CLI",
            Agent::Opencode => "opencode",
            Agent::QwenCode => "Qwen Code",
            Agent::Kilo => "Kilo Code",
            Agent::Copilot => "Copilot CLI",
            Agent::Pi => "Pi",
        }
    }

    /// What the report calls the logs it read.
    fn logs(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code transcripts",
            Agent::Codex => "Codex rollouts",
            Agent::GeminiCli => "Gemini CLI chats",
            Agent::Opencode => "opencode storage",
            Agent::QwenCode => "Qwen Code chats",
            Agent::Kilo => "Kilo Code storage",
            Agent::Copilot => "Copilot CLI session events",
            Agent::Pi => "Pi sessions",
        }
    }

    /// Tools toolcap caps in this agent once installed (docs/agents.md, "Coverage").
    fn covers(self, tool: &str) -> bool {
        match self {
            Agent::ClaudeCode => {
                matches!(tool, "Bash" | "Read" | "Grep") || tool.starts_with("mcp__")
            }
            Agent::Codex => matches!(tool, "exec_command" | "shell") || tool.starts_with("mcp__"),
            Agent::GeminiCli => tool == "run_shell_command",
            Agent::Opencode | Agent::Kilo => !super::hook::OPENCODE_SKIP.contains(&tool),
            Agent::Copilot => !super::hook::COPILOT_SKIP.contains(&tool),
            Agent::Pi => !super::hook::PI_SKIP.contains(&tool),
            // its PostToolUse hook's matcher (docs/agents.md, "Qwen Code")
            Agent::QwenCode => {
                matches!(
                    tool,
                    "run_shell_command"
                        | "read_file"
                        | "grep_search"
                        | "glob"
                        | "list_directory"
                        | "web_fetch"
                ) || tool.starts_with("mcp__")
            }
        }
    }
}

#[derive(Args)]
pub struct DiscoverArgs {
    /// Whose session logs to read.
    #[arg(long, value_enum, default_value = "claude-code")]
    agent: Agent,
    /// Only sessions' lines since: an age (7d, 12h, 30m) or a UTC time.
    #[arg(long, value_name = "WHEN")]
    since: Option<String>,
    /// Only the calls made in this project (the session's working directory is DIR
    /// or under it).
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

/// Which lines count: `--since` and `--project`.
pub struct Scope {
    pub since_ms: Option<i64>,
    pub project: Option<PathBuf>,
}

impl Scope {
    /// `--since` and `--project` as given on the command line, checked.
    pub fn parse(since: Option<&str>, project: Option<&Path>) -> Result<Scope, Failure> {
        let since_ms = match since {
            None => None,
            Some(s) => Some(since_flag(s, toolcap_store::now_ms())?),
        };
        let project = match project {
            None => None,
            Some(p) => Some(p.canonicalize().map_err(|e| {
                usage(format!(
                    "--project {}: {e}; pass an existing project directory",
                    p.display()
                ))
            })?),
        };
        Ok(Scope { since_ms, project })
    }

    /// A line at `t` (ms; `None`: unknown) counts.
    fn keeps_time(&self, t: Option<i64>) -> bool {
        self.since_ms.is_none_or(|s| t.is_some_and(|t| t >= s))
    }

    /// A session in `cwd` counts.
    fn keeps_dir(&self, cwd: Option<&Path>) -> bool {
        self.project
            .as_deref()
            .is_none_or(|p| cwd.is_some_and(|c| c.starts_with(p)))
    }
}

/// Per tool and command kind.
#[derive(Default)]
pub struct Group {
    pub calls: u64,
    pub chars: u64,
    pub chars_max: u64,
    pub over_threshold: u64,
    pub through_toolcap: u64,
    pub under_threshold: u64,
    pub not_capped: u64,
    pub tool_not_covered: u64,
    pub shown_chars: u64,
    pub would_show_chars: u64,
    pub size_lower_bound: u64,
    pub threshold: u64,
    pub unit: &'static str,
}

/// What one agent's logs held.
pub struct Found {
    pub agent: Agent,
    /// The directory (or database) read.
    pub root: PathBuf,
    pub sessions: u64,
    pub lines: u64,
    pub unreadable_lines: u64,
    pub results: u64,
    pub persisted: u64,
    pub persisted_missing: u64,
    pub results_without_call: u64,
    pub groups: BTreeMap<(String, String), Group>,
    pub recovery: BTreeMap<String, u64>,
    replay: ToolResultProcessor,
}

/// One tool call and its result as the agent logged them.
pub struct Seen<'a> {
    pub tool: &'a str,
    pub input: &'a Value,
    /// The shell command the model asked for (toolcap's own `toolcap run ... --`
    /// wrapping taken off), for the command kind.
    pub command: Option<String>,
    /// What the model read.
    pub shown: String,
    /// The whole output where the agent kept it apart from what the model read
    /// (a saved file, the command's own record); `None`: `shown` is all there is.
    pub full: Option<String>,
    /// `full` is itself cut by the agent (Codex keeps at most 64 KiB of a
    /// command's output): its size is a lower bound.
    pub full_cut: bool,
}

impl Found {
    pub fn new(agent: Agent, root: PathBuf, config: &Config) -> Found {
        Found {
            agent,
            root,
            sessions: 0,
            lines: 0,
            unreadable_lines: 0,
            results: 0,
            persisted: 0,
            persisted_missing: 0,
            results_without_call: 0,
            groups: BTreeMap::new(),
            recovery: BTreeMap::new(),
            replay: ToolResultProcessor::new(config.clone()),
        }
    }

    /// A tool call the model made: counted as a recovery call when it is one.
    fn call(&mut self, tool: &str, command: Option<&str>) {
        if let Some(r) = recovery_kind(tool, command) {
            *self.recovery.entry(r).or_insert(0) += 1;
        }
    }

    /// A file the agent saved a whole output to: its text, or `None` (counted) when
    /// it is gone or is not a file the agent could have saved there
    /// ([`saved`](super::saved): a regular file of ours in the agent's own output
    /// directory, of bounded size).
    fn read_saved(&mut self, path: &Path, place: &saved::Where<'_>) -> Option<String> {
        self.persisted += 1;
        let text = saved::read_text(path, place);
        if text.is_none() {
            self.persisted_missing += 1;
        }
        text
    }

    /// One result, counted: its size, what the model read, whether toolcap was in
    /// the way, and what toolcap would have shown (replayed without a store).
    fn result(&mut self, seen: Seen) {
        self.results += 1;
        let chars = |s: &str| s.chars().count() as u64;
        let through = seen.shown.contains(RECOVERY);
        let full = seen.full.as_deref().unwrap_or(&seen.shown);
        let size = if through {
            stated_chars(&seen.shown).unwrap_or_else(|| chars(full))
        } else {
            chars(full)
        };
        let kind = command_kind(seen.command.as_deref());
        let covered = self.agent.covers(seen.tool);
        let replayed = (!through).then(|| self.replay.process(seen.tool, full, seen.input));
        let g = self
            .groups
            .entry((seen.tool.to_string(), kind))
            .or_default();
        g.calls += 1;
        g.chars += size;
        g.chars_max = g.chars_max.max(size);
        g.shown_chars += chars(&seen.shown);
        if seen.full_cut && !through {
            g.size_lower_bound += 1;
        }
        let Some(p) = replayed else {
            g.through_toolcap += 1;
            g.over_threshold += 1;
            g.would_show_chars += chars(&seen.shown);
            return;
        };
        g.threshold = p.threshold as u64;
        g.unit = p.unit;
        g.would_show_chars += chars(&p.text);
        if !p.truncated {
            g.under_threshold += 1;
        } else if covered {
            g.over_threshold += 1;
            g.not_capped += 1;
        } else {
            g.over_threshold += 1;
            g.tool_not_covered += 1;
        }
    }
}

pub fn discover(a: DiscoverArgs) -> Result<(), Failure> {
    let scope = Scope::parse(a.since.as_deref(), a.project.as_deref())?;
    let config = load_config(a.config.as_deref())?;
    let found = collect(a.agent, &scope, &config)?;
    if a.json {
        let mut s = to_json(&found, &scope).to_string();
        s.push('\n');
        return write_out(s.as_bytes());
    }
    // tool names and commands are the model's: shown, never sent to the terminal
    write_out(visible(&render::text(&found)).as_bytes())
}

/// Read one agent's logs.
pub fn collect(agent: Agent, scope: &Scope, config: &Config) -> Result<Found, Failure> {
    match agent {
        Agent::ClaudeCode => claude::collect(scope, config),
        Agent::Codex => codex::collect(scope, config),
        Agent::GeminiCli => gemini::collect(scope, config),
        Agent::Opencode => opencode::collect(scope, config),
        Agent::QwenCode => qwen::collect(scope, config),
        Agent::Kilo => opencode::collect_kilo(scope, config),
        Agent::Copilot => copilot::collect(scope, config),
        Agent::Pi => pi::collect(scope, config),
    }
}

/// The `*.jsonl` files directly in `dir`, unsorted (none when it cannot be read).
fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl") && p.is_file())
        .collect()
}

/// Every `<root>/<dir>/<session>.jsonl`, sorted.
fn jsonl_in_subdirs(root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .flat_map(|d| jsonl_files(&d.path()))
        .collect();
    out.sort();
    out
}

/// An environment variable naming a directory, when set and not empty.
fn env_dir(k: &str) -> Option<PathBuf> {
    std::env::var_os(k)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// `$HOME`, or a usage error naming what to set.
fn home(alternative: &str) -> Result<PathBuf, Failure> {
    env_dir("HOME").ok_or_else(|| usage(format!("no home directory: set HOME or {alternative}")))
}

/// `2026-11-28T04:47:00.123Z` in milliseconds since the epoch.
fn utc_ms(t: &str) -> Option<i64> {
    toolcap_store::parse_utc_ms(t).ok()
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

/// A command's words, quotes trimmed.
fn words(cmd: &str) -> impl Iterator<Item = &str> {
    cmd.split_whitespace()
        .map(|w| w.trim_matches(|c| c == '\'' || c == '"'))
}

/// The model's own command out of toolcap's wrapping of it
/// (`/path/toolcap run [--id ID] [--tool T] -- bash -c 'CMD'`); else as it is.
fn unwrap_run(cmd: &str) -> String {
    let ws: Vec<&str> = cmd.split_whitespace().collect();
    let is_run = ws.len() > 1
        && ws[0].rsplit('/').next() == Some("toolcap")
        && ws[1] == "run"
        && cmd.contains(" -- ");
    if !is_run {
        return cmd.to_string();
    }
    let Some((_, rest)) = cmd.split_once(" -- ") else {
        return cmd.to_string();
    };
    let rest = rest.trim();
    let Some(arg) = ["bash -c ", "sh -c "]
        .iter()
        .find_map(|p| rest.strip_prefix(p))
    else {
        return rest.to_string();
    };
    unquote(arg.trim()).unwrap_or_else(|| arg.to_string())
}

/// One POSIX shell word of single-quoted parts (`'a'\''b'`), unquoted.
fn unquote(word: &str) -> Option<String> {
    let mut out = String::new();
    let mut rest = word;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("\\'") {
            out.push('\'');
            rest = r;
        } else {
            let r = rest.strip_prefix('\'')?;
            let end = r.find('\'')?;
            out.push_str(&r[..end]);
            rest = &r[end + 1..];
        }
    }
    Some(out)
}

/// A shell command's kind: its program (less the path and any `VAR=value` before
/// it), with the subcommand for programs known by theirs; empty for other tools.
fn command_kind(cmd: Option<&str>) -> String {
    let Some(cmd) = cmd else {
        return String::new();
    };
    let mut words = words(cmd).skip_while(|w| w.contains('=') && !w.starts_with('-'));
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

/// A recovery call: `toolcap continue|search|show|fetch|query` in a shell
/// command, or one of toolcap's MCP tools (`mcp__toolcap__T` in Claude Code and
/// Codex, `mcp_toolcap_T` in Gemini CLI, `toolcap_T` in opencode).
fn recovery_kind(tool: &str, command: Option<&str>) -> Option<String> {
    for prefix in ["mcp__toolcap__", "mcp_toolcap_", "toolcap_"] {
        if let Some(t) = tool.strip_prefix(prefix) {
            return Some(t.to_string());
        }
    }
    let words: Vec<&str> = words(command?).collect();
    words.windows(2).find_map(|w| {
        let prog = w[0].rsplit('/').next().unwrap_or(w[0]);
        (prog == "toolcap" && matches!(w[1], "continue" | "search" | "show" | "fetch" | "query"))
            .then(|| format!("toolcap {}", w[1]))
    })
}

/// Results over the threshold that did not go through toolcap (the missed calls).
pub fn missed(g: &Group) -> u64 {
    g.not_capped + g.tool_not_covered
}

pub fn to_json(f: &Found, scope: &Scope) -> Value {
    let lower: u64 = f.groups.values().map(|g| g.size_lower_bound).sum();
    json!({
        "agent": f.agent.name(),
        "transcripts": f.root,
        "since": scope.since_ms.map(toolcap_store::format_utc_ms),
        "project": scope.project,
        "sessions": f.sessions,
        "lines": f.lines,
        "unreadable_lines": f.unreadable_lines,
        "results": f.results,
        "results_without_call": f.results_without_call,
        "persisted_outputs": f.persisted,
        "persisted_outputs_missing": f.persisted_missing,
        "sizes_lower_bound": lower,
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
            "size_lower_bound": g.size_lower_bound,
            "threshold": g.threshold,
            "unit": g.unit,
        })).collect::<Vec<_>>(),
        "recovery_calls": f.recovery,
    })
}

/// The JSON values of a JSONL log, read a line at a time (bounded memory):
/// blank lines skipped, the others counted, a line that is not JSON counted
/// unreadable and passed over, a read error (counted unreadable) the end of the
/// file. [`JsonLines::count_into`] adds the counts to the report.
pub(super) struct JsonLines {
    lines: std::io::Split<BufReader<std::fs::File>>,
    read: u64,
    unreadable: u64,
    ended: bool,
}

impl JsonLines {
    /// None when the file cannot be opened (a log gone since it was listed).
    pub(super) fn open(file: &Path) -> Option<JsonLines> {
        let f = std::fs::File::open(file).ok()?;
        Some(JsonLines {
            lines: BufReader::new(f).split(b'\n'),
            read: 0,
            unreadable: 0,
            ended: false,
        })
    }

    pub(super) fn count_into(&self, found: &mut Found) {
        found.lines += self.read;
        found.unreadable_lines += self.unreadable;
    }
}

impl Iterator for JsonLines {
    type Item = Value;

    fn next(&mut self) -> Option<Value> {
        while !self.ended {
            let line = match self.lines.next() {
                Some(Ok(line)) => line,
                Some(Err(_)) => {
                    self.unreadable += 1;
                    self.ended = true;
                    break;
                }
                None => {
                    self.ended = true;
                    break;
                }
            };
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            self.read += 1;
            match serde_json::from_slice::<Value>(&line) {
                Ok(v) => return Some(v),
                Err(_) => self.unreadable += 1,
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Agent::ALL` and the names strum derives are clap's `--agent` values.
    #[test]
    fn agent_names_are_the_cli_values() {
        let clap: Vec<String> = Agent::value_variants()
            .iter()
            .filter_map(|a| a.to_possible_value().map(|v| v.get_name().to_string()))
            .collect();
        let ours: Vec<&str> = Agent::ALL.iter().map(|a| a.name()).collect();
        assert_eq!(clap, ours);
        assert_eq!(
            ours,
            [
                "claude-code",
                "codex",
                "gemini-cli",
                "opencode",
                "qwen-code",
                "kilo",
                "copilot",
                "pi"
            ]
        );
    }

    #[test]
    fn kinds_and_recovery_calls_are_read_from_commands() {
        assert_eq!(
            command_kind(Some("FOO=1 /usr/bin/cargo test -q")),
            "cargo test"
        );
        assert_eq!(command_kind(Some("seq 1 20000")), "seq");
        assert_eq!(command_kind(None), "");
        assert_eq!(
            recovery_kind(
                "Bash",
                Some("'/opt/bin/toolcap' continue run-1 --start-line 3")
            ),
            Some("toolcap continue".into())
        );
        assert_eq!(recovery_kind("Bash", Some("grep toolcap x")), None);
        assert_eq!(
            recovery_kind("mcp__toolcap__get_continuation", None),
            Some("get_continuation".into())
        );
        assert_eq!(
            recovery_kind("toolcap_search_tool_output", None),
            Some("search_tool_output".into())
        );
    }

    #[test]
    fn toolcaps_own_wrapping_is_taken_off() {
        assert_eq!(
            unwrap_run("/x/toolcap run --tool run_shell_command -- bash -c 'seq 1 20000'"),
            "seq 1 20000"
        );
        assert_eq!(
            unwrap_run("/x/toolcap run --id c1 -- bash -c 'echo '\\''hi'\\'''"),
            "echo 'hi'"
        );
        assert_eq!(unwrap_run("echo -- bash -c 'x'"), "echo -- bash -c 'x'");
    }

    #[test]
    fn stated_sizes_are_read() {
        let v = "1\n2\n\n--- Recovery Options ---\nCommand: seq 1 20000 | exit code 0 | Output: 20,000 lines, 108,894 chars\n";
        assert_eq!(stated_chars(v), Some(108_894));
        let r = "x\n--- Recovery Options ---\nFile: /a/typing.py | 3,519 lines, 120,077 chars | python\n";
        assert_eq!(stated_chars(r), Some(120_077));
        assert_eq!(stated_chars("--- Recovery Options ---\nno size\n"), None);
    }
}
