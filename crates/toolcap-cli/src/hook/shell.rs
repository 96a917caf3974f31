//! A shell command rewritten to run under `toolcap run` (Codex and Gemini CLI
//! `PreToolUse`/`BeforeTool`), and the commands left as they are.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::super::common::{Failure, other};
use super::HookArgs;

/// The tool input with its command wrapped in `toolcap run`, or None when the
/// command is to be left alone.
pub(super) fn wrapped_input(
    a: &HookArgs,
    input: &Value,
    key: &str,
    background_key: &str,
) -> Result<Option<Map<String, Value>>, Failure> {
    let Some(tool_input) = input["tool_input"].as_object() else {
        return Ok(None);
    };
    if tool_input.get(background_key).and_then(Value::as_bool) == Some(true) {
        return Ok(None);
    }
    let Some(command) = tool_input.get(key).and_then(Value::as_str) else {
        return Ok(None);
    };
    let program = match &a.toolcap {
        Some(p) => p.to_string_lossy().into_owned(),
        None => super::super::common::this_program()
            .map(|p| p.to_string_lossy().into_owned())
            .map_err(|e| {
                other(format!(
                    "cannot tell where this toolcap is: {e}; pass --toolcap PATH"
                ))
            })?,
    };
    if leave_alone(command, &program) {
        return Ok(None);
    }
    let id = input["tool_use_id"]
        .as_str()
        .filter(|id| !id.is_empty() && toolcap_store::validate_id("tool_call_id", id).is_ok());
    let q = |s: &str| {
        toolcap_text::quote::shell_word(s).ok_or_else(|| {
            other(format!(
                "{s:?} cannot be passed to a shell (it holds a NUL byte)"
            ))
        })
    };
    let mut words = vec![q(&program)?, "run".to_string()];
    if let Some(id) = id {
        words.push(format!("--id {}", q(id)?));
    }
    words.push(format!("--tool {}", a.agent.shell_tool()));
    if let Some(s) = &a.store {
        words.push(format!("--store {}", q(&s.to_string_lossy())?));
    }
    if let Some(c) = &a.config {
        words.push(format!("--config {}", q(&c.to_string_lossy())?));
    }
    words.push("-- bash -c".to_string());
    words.push(q(command)?);
    let rewritten = words.join(" ");
    // the agent hands the command to its shell as one argument: one that quoting
    // grew past Linux's single-argument limit (E2BIG) would not run at all
    if !super::super::run::fits_one_argument(&rewritten) {
        return Ok(None);
    }
    let mut out = tool_input.clone();
    out.insert(key.to_string(), Value::String(rewritten));
    Ok(Some(out))
}

/// Programs that need a terminal (full-screen, pagers, editors) or wait for one
/// when started without arguments (REPLs).
const INTERACTIVE: [&str; 16] = [
    "vi", "vim", "nvim", "nano", "emacs", "less", "more", "man", "top", "htop", "watch", "ssh",
    "tmux", "screen", "mc", "fzf",
];
const REPLS: [&str; 9] = [
    "python", "python3", "node", "irb", "bash", "sh", "zsh", "psql", "sqlite3",
];

/// `ssh`'s options that take an argument (OpenSSH 9).
const SSH_OPTIONS_WITH_ARG: &str = "BbcDEeFIiJLlmOoPpQRSWw";

/// Whether `ssh ARGS` runs a remote command without a terminal (its output then
/// comes back as any command's): a word after the destination, and no `-t` or
/// `RequestTTY` option asking for a terminal. `ssh host` alone opens a login shell.
fn ssh_runs_a_command(args: &[&str]) -> bool {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if *arg == "--" {
            break;
        }
        let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) else {
            // the destination: a command follows it, or none does
            return i < args.len();
        };
        for (at, flag) in cluster.char_indices() {
            if flag == 't' {
                return false;
            }
            if SSH_OPTIONS_WITH_ARG.contains(flag) {
                let value = match &cluster[at + flag.len_utf8()..] {
                    "" => {
                        i += 1;
                        args.get(i - 1).copied().unwrap_or_default()
                    }
                    attached => attached,
                };
                if flag == 'o' && value.to_ascii_lowercase().starts_with("requesttty") {
                    return false;
                }
                break;
            }
        }
    }
    // after `--`: the destination, then the command
    i + 1 < args.len()
}

/// The index of a command's first word past leading `VAR=value` assignments,
/// and that word's program name (unquoted, without its folder); None for a
/// command of assignments only or none at all.
fn first_word(c: &str) -> Option<(usize, &str)> {
    let words: Vec<&str> = c.split_whitespace().collect();
    let first_i = words
        .iter()
        .position(|w| !(w.contains('=') && !w.starts_with('=') && !w.starts_with('-')))?;
    let first_unquoted = words[first_i].trim_matches(|c| c == '\'' || c == '"');
    let name = Path::new(first_unquoted)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(first_unquoted);
    Some((first_i, name))
}

/// Whether a command runs toolcap itself (`toolcap run ...`, `toolcap continue
/// ...`, the program at `program`): its output is toolcap's already.
pub(super) fn under_toolcap(command: &str, program: &str) -> bool {
    let c = command.trim();
    let Some((first_i, name)) = first_word(c) else {
        return false;
    };
    let first = c.split_whitespace().nth(first_i).unwrap_or_default();
    name == "toolcap"
        || first.trim_matches(|c| c == '\'' || c == '"') == program
        || c.contains("toolcap run ")
}

/// Whether a command is left as it is: empty, already under toolcap (never
/// wrapped twice), backgrounded with a trailing `&`, or needing a terminal
/// (`ssh` only without a remote command or with a terminal asked for). (`cd`, `export`, `source` are wrapped: Codex and Gemini CLI, the agents whose
/// commands are rewritten, run each command in a fresh shell, so inside `toolcap
/// run` they have the same effect.)
pub fn leave_alone(command: &str, program: &str) -> bool {
    let c = command.trim();
    let Some((first_i, name)) = first_word(c) else {
        return true;
    };
    if under_toolcap(c, program) {
        return true;
    }
    let words: Vec<&str> = c.split_whitespace().collect();
    if c.ends_with('&') && !c.ends_with("&&") {
        return true;
    }
    let rest = &words[first_i + 1..];
    if INTERACTIVE.contains(&name) && !(name == "ssh" && ssh_runs_a_command(rest)) {
        return true;
    }
    if REPLS.contains(&name) && rest.is_empty() {
        return true;
    }
    false
}

/// Whether any Codex execpolicy rules file (`*.rules` in `$CODEX_HOME/rules`
/// or a `.codex/rules` of the working directory or one above it) exists: its
/// `prefix_rule`s decide on the model's command, and an "allow" from a hook
/// would skip them (seen on 0.169.0: a `forbidden` rm ran), so toolcap then
/// leaves the command alone.
pub(super) fn codex_rules_exist(cwd: Option<&Path>) -> bool {
    let has_rules = |dir: &Path| {
        std::fs::read_dir(dir).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "rules"))
        })
    };
    let home = std::env::var_os("CODEX_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".codex")));
    if home.is_some_and(|h| has_rules(&h.join("rules"))) {
        return true;
    }
    let start = cwd
        .map(Path::to_path_buf)
        .or_else(|| std::env::current_dir().ok());
    start.is_some_and(|d| {
        d.ancestors()
            .any(|a| has_rules(&a.join(".codex").join("rules")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_left_alone() {
        let p = "/usr/local/bin/toolcap";
        for c in [
            "",
            "toolcap continue run-1 --start-line 3",
            "/usr/local/bin/toolcap search x 'y'",
            "'/usr/local/bin/toolcap' run -- bash -c 'ls'",
            "sleep 10 &",
            "vim a.txt",
            "python3",
            "FOO=1 less x",
            // a login shell on the other side
            "ssh host",
            "ssh -p 2222 -i ~/.ssh/k user@host",
            "ssh -t host top",
            "ssh -tt host make",
            "ssh -o RequestTTY=yes host make",
            "ssh -p",
        ] {
            assert!(leave_alone(c, p), "{c:?}");
        }
        for c in [
            "make test",
            "python3 -m pytest",
            "a && b",
            "FOO=1 cargo test",
            "git log | head",
            // a rewrite runs them in the same fresh shell Codex and Gemini CLI
            // start for every command: the same effect
            "cd sub && cargo test",
            "source .venv/bin/activate && pytest",
            "export A=1; make",
            "pushd x && make",
            // a remote command without a terminal: its output comes back as any other
            "ssh host uptime",
            "ssh -p 2222 -i ~/.ssh/k user@host 'cd app && make test'",
            "ssh -o BatchMode=yes -l deploy host ls /srv",
            "ssh -p2222 host -- journalctl -n 50",
        ] {
            assert!(!leave_alone(c, p), "{c:?}");
        }
    }
}
