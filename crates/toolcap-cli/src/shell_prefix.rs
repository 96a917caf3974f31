//! `toolcap shell-prefix claude-code SCRIPT`: Claude Code's `CLAUDE_CODE_SHELL_PREFIX`.
//!
//! Claude Code checks the model's Bash command against the user's permission
//! rules (`--allowedTools`, `--disallowedTools`, `permissions.allow/ask/deny`,
//! read-only auto-approval, the background check) *before* it builds the shell
//! script that runs it; a prefix program is then handed that whole script as
//! one argument (checked on 2.1.328):
//!
//! ```text
//! <prefix> 'source <snapshot> ... && eval '\''<command>'\'' < /dev/null && pwd -P >| /tmp/claude-XXXX-cwd'
//! ```
//!
//! So toolcap as the prefix sees the command only after every rule decided on
//! it as the model wrote it, and the script it runs is Claude Code's own: a `cd`
//! still moves Claude Code's shell (the `pwd -P >| FILE` at its end is run), the
//! snapshot's aliases and functions are defined, and nothing about the command
//! changes. toolcap runs that script under `toolcap run` (one pipe for stdout and
//! stderr, as Claude Code merges them; the command's exit status), showing the
//! model's command as the command.
//!
//! Claude Code hands the prefix other things too (hook commands, MCP servers'
//! command lines): any script that is not a Bash tool command, or whose output
//! goes to a terminal, is run as it is by the shell (`exec`, no child left
//! behind). Claude Code writes a command's output to a file it reads as the
//! command runs (`tasks/<id>.output`); background commands go through the
//! prefix too (2.1.328), told apart only by the hook's note.

use std::ffi::OsString;

use clap::{Args, Parser, ValueEnum};

use super::claude_script::claude_command;
use super::common::{Failure, write_out};
use super::run::{RunArgs, run_as_the_command};

/// The agents whose shell prefix toolcap speaks.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum, Debug)]
pub enum PrefixAgent {
    /// Claude Code (`CLAUDE_CODE_SHELL_PREFIX`).
    ClaudeCode,
}

#[derive(Args)]
pub struct ShellPrefixArgs {
    /// The agent that runs this prefix.
    #[arg(value_enum)]
    agent: PrefixAgent,
    /// What the agent hands its prefix: the script to run (one argument), or a
    /// program and its arguments. Alone, `--ready` prints `ready` (the prefix
    /// script's check) and `--script` prints the path of a prefix script that
    /// runs this toolcap, written when missing (for the Claude Agent SDK helpers).
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "SCRIPT"
    )]
    words: Vec<OsString>,
}

/// The shell Claude Code's Bash tool would run SCRIPT with itself, by path (its
/// `$0` is that path, as without a prefix): for a bash snapshot the `SHELL`
/// Claude Code sets for the command (its own bash, checked on 2.1.328), for a
/// zsh one `$CLAUDE_CODE_SHELL` / `$SHELL` when they name zsh; else the first
/// of the places Claude Code looks in (/bin, /usr/bin, /usr/local/bin,
/// /opt/homebrew/bin). Never a PATH lookup: another `bash` earlier in PATH is
/// not the one Claude Code runs.
fn shell_for(script: &str) -> String {
    let zsh = script.contains("/shell-snapshots/snapshot-zsh-");
    let name = if zsh { "zsh" } else { "bash" };
    let runnable = |p: &str| p.starts_with('/') && is_executable(p);
    let named = |key: &str| {
        std::env::var(key)
            .ok()
            .filter(|s| s.ends_with(&format!("/{name}")) || (zsh && s.contains("zsh")))
            .filter(|s| runnable(s))
    };
    let mut keys = vec!["SHELL"];
    if zsh {
        keys.insert(0, "CLAUDE_CODE_SHELL");
    }
    if let Some(s) = keys.into_iter().find_map(named) {
        return s;
    }
    ["/bin", "/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"]
        .iter()
        .map(|d| format!("{d}/{name}"))
        .find(|p| runnable(p))
        .unwrap_or_else(|| name.to_string())
}

#[cfg(unix)]
fn is_executable(p: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(p: &str) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file())
}

/// Whether fd 1 is a terminal (a person's command, never the model's: left alone).
fn stdout_is_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stdout().is_terminal()
}

/// `toolcap run`'s arguments parsed from words, as the command line would give them.
#[derive(Parser)]
struct RunLine {
    #[command(flatten)]
    run: RunArgs,
}

pub fn shell_prefix(a: ShellPrefixArgs) -> Result<(), Failure> {
    let PrefixAgent::ClaudeCode = a.agent;
    // the prefix script's check that this toolcap speaks `shell-prefix`
    if a.words.len() == 1 && a.words[0] == "--ready" {
        return write_out(b"ready\n");
    }
    // the script to name as CLAUDE_CODE_SHELL_PREFIX (the SDK helpers ask)
    if a.words.len() == 1 && a.words[0] == "--script" {
        let path = super::install::sdk_prefix_script()?;
        return write_out(format!("{}\n", path.display()).as_bytes());
    }
    let script = match a.words.as_slice() {
        [one] => one.to_str(),
        _ => None,
    };
    if let Some(script) = script
        && let Some(command) = claude_command(script)
        && !stdout_is_terminal()
        && let Some(session) = std::env::var("CLAUDE_CODE_SESSION_ID").ok()
        && let Some(Noted::Foreground(id)) = take_call(&session, &command)
    {
        let shell = shell_for(script);
        let mut words = vec!["toolcap run", "--tool", "Bash"];
        if let Some(id) = id.as_deref() {
            words.push("--id");
            words.push(id);
        }
        words.extend(["--", &shell, "-c", script]);
        if let Ok(line) = RunLine::try_parse_from(words) {
            return run_as_the_command(line.run);
        }
    }
    pass_through(&a.words)
}

/// A word as Claude Code quotes it into a shell line (2.1.328): bare when it
/// holds nothing the shell treats specially, else in single quotes with each
/// `'` written `'"'"'`.
fn claude_quoted_len(len: usize, quotes: usize, plain: bool) -> usize {
    if plain { len } else { len + 4 * quotes + 2 }
}

/// Room for what Claude Code puts around the model's command in its Bash
/// tool's script (the snapshot's `source`, its shell options, the `eval`, the
/// `pwd -P >| FILE`; about 700 bytes on 2.1.328) and for the prefix's path,
/// and the single quotes in them.
const SCRIPT_ROOM: usize = 4096;
const SCRIPT_ROOM_QUOTES: usize = 64;

/// Why `command` cannot run while a shell prefix is set, when it could without
/// one: Claude Code hands the prefix its whole script as one more quoted word
/// (`<prefix> '<script>'`), so every `'` of the command, already written
/// `'"'"'` in the script, is quoted again; a command with many of them (a
/// heredoc of a file the model writes) then passes Linux's limit for one
/// argument and the shell cannot be started at all (E2BIG, measured on
/// 2.1.328: a 49,985-byte heredoc with 10,004 `'` is a 90 KB script alone and
/// a 205.7 KB line with a prefix). Nothing toolcap runs can change that
/// quoting: the hook tells the model.
pub fn too_long_for_the_prefix(command: &str) -> Option<String> {
    let limit = super::run::MAX_ARG_BYTES;
    let quotes = command.matches('\'').count();
    let plain = !command.is_empty()
        && command
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c));
    let word = claude_quoted_len(command.len(), quotes, plain);
    let alone = word + SCRIPT_ROOM;
    let script_quotes = if plain { 0 } else { 3 * quotes + 2 } + SCRIPT_ROOM_QUOTES;
    let prefixed = claude_quoted_len(alone, script_quotes, false);
    if alone >= limit || prefixed < limit {
        return None;
    }
    Some(format!(
        "toolcap: this command cannot run while toolcap is Claude Code's shell prefix \
         (CLAUDE_CODE_SHELL_PREFIX): Claude Code quotes the command's {} single quotes once \
         more for the prefix, which takes its shell's command line over Linux's limit of {} \
         bytes for one argument (E2BIG). Write the file with the Write tool, or in smaller \
         parts, or with fewer single quotes.",
        toolcap_text::text::thousands(quotes),
        toolcap_text::text::thousands(limit),
    ))
}

/// What Claude Code's `PreToolUse` hook noted of a Bash call before it ran.
#[derive(Debug, PartialEq, Eq)]
pub enum Noted {
    /// A foreground command, with the model's tool call id when it has one.
    Foreground(Option<String>),
    /// A background one (`run_in_background`, a trailing `&`): its output is
    /// read by the model while it runs, so it is left alone.
    Background,
}

/// Where the hook leaves its notes for the prefix: one file per call, named
/// by a hash of the session, a hash of the command, and the time.
fn calls_dir() -> Option<std::path::PathBuf> {
    Some(
        super::project::state_dir()?
            .join("agents")
            .join("claude-calls"),
    )
}

fn key_of(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The start of the names of the notes for `command` in `session`.
fn note_key(session: &str, command: &str) -> String {
    format!("{}-{}-", key_of(session), key_of(command))
}

/// Notes that `command` is about to run in Claude Code session `session` (the
/// `PreToolUse` hook, whose input names the session Claude Code also gives
/// the command as `CLAUDE_CODE_SESSION_ID`): whether in the background, and
/// its tool call id. The prefix caps only commands so noted, so a Bash call
/// the hook did not see (a hook that failed, another session's settings) runs
/// exactly as without toolcap.
pub fn note_call(
    session: &str,
    command: &str,
    id: Option<&str>,
    background: bool,
) -> std::io::Result<()> {
    let Some(dir) = calls_dir() else {
        return Ok(());
    };
    std::fs::create_dir_all(&dir)?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let body = match (background, id) {
        (true, _) => "background\n".to_string(),
        (false, Some(id)) => format!("foreground\n{id}\n"),
        (false, None) => "foreground\n".to_string(),
    };
    let name = format!(
        "{}{nanos:020}-{}",
        note_key(session, command),
        std::process::id()
    );
    let tmp = dir.join(format!(".{name}"));
    std::fs::write(&tmp, body)?;
    std::fs::rename(&tmp, dir.join(name))
}

/// Notes older than this are stale (the call never ran, or not through the prefix).
const NOTE_LIFE: std::time::Duration = std::time::Duration::from_secs(600);

/// The newest note for `command` in `session`, taken (removed). Claude Code
/// runs the hook of a call right before the call, so the newest note is this
/// call's; older ones for the same command are of calls that never reached
/// the shell (denied by a rule, refused in `-p` mode, stopped by another
/// hook): they are dropped, never taken by a later call. Stale notes of any
/// session are cleared on the way.
fn take_call(session: &str, command: &str) -> Option<Noted> {
    let dir = calls_dir()?;
    let key = note_key(session, command);
    let mut mine: Vec<std::path::PathBuf> = Vec::new();
    for entry in std::fs::read_dir(&dir).ok()?.flatten() {
        let path = entry.path();
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > NOTE_LIFE);
        if stale {
            let _ = std::fs::remove_file(&path);
        } else if entry.file_name().to_string_lossy().starts_with(&key) {
            mine.push(path);
        }
    }
    // newest first (the names sort by time within one key)
    mine.sort();
    let newest = mine.pop()?;
    for older in mine {
        let _ = std::fs::remove_file(older);
    }
    // removing it is taking it: another prefix may race for the same note
    let body = std::fs::read_to_string(&newest).ok()?;
    std::fs::remove_file(&newest).ok()?;
    let mut lines = body.lines();
    match lines.next() {
        Some("background") => Some(Noted::Background),
        Some("foreground") => Some(Noted::Foreground(
            lines.next().filter(|id| !id.is_empty()).map(str::to_string),
        )),
        _ => None,
    }
}

/// Run what the agent handed over exactly as it would run without a prefix:
/// one word is a script for the shell, more are a program and its arguments.
fn pass_through(words: &[OsString]) -> Result<(), Failure> {
    let mut cmd = match words {
        [] => return Ok(()),
        [script] => {
            let shell = shell_for(&script.to_string_lossy());
            let mut c = std::process::Command::new(shell);
            c.arg("-c").arg(script);
            c
        }
        [program, rest @ ..] => {
            let mut c = std::process::Command::new(program);
            c.args(rest);
            c
        }
    };
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let e = cmd.exec();
        Err(Failure {
            code: 127,
            message: format!("shell-prefix: cannot run {:?}: {e}", cmd.get_program()),
        })
    }
    #[cfg(not(unix))]
    {
        let status = cmd.status().map_err(|e| {
            super::common::other(format!("shell-prefix: cannot run the command: {e}"))
        })?;
        std::process::exit(status.code().unwrap_or(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only a command that fits Linux's one-argument limit without a prefix and
    /// not with one (Claude Code quotes its `'` twice then) is explained.
    #[test]
    fn a_command_too_long_only_for_the_prefix_is_told() {
        // the shape of issue 44's heredoc: 49,985 bytes, 10,004 `'`
        let body = "x'\n".repeat(10_002);
        let command = format!(
            "cat > notes.txt <<'EOF'\n{body}{}\nEOF\n",
            "a".repeat(19_900)
        );
        assert_eq!(command.matches('\'').count(), 10_004);
        let why = too_long_for_the_prefix(&command).unwrap_or_default();
        assert!(why.contains("10,004 single quotes"), "{why}");
        assert!(why.contains("131,072 bytes"), "{why}");
        // short, or without quotes, or too long even without a prefix: nothing
        assert_eq!(too_long_for_the_prefix("seq 1 20000"), None);
        assert_eq!(too_long_for_the_prefix(&"a".repeat(100_000)), None);
        assert_eq!(too_long_for_the_prefix(&"'".repeat(40_000)), None);
    }

    #[test]
    fn the_shell_follows_the_snapshot() {
        assert!(shell_for("source /h/.claude/shell-snapshots/snapshot-zsh-1.sh").ends_with("zsh"));
        // by path, as Claude Code runs it (its `$0`), never looked up in PATH
        let bash = shell_for("source /h/.claude/shell-snapshots/snapshot-bash-1.sh");
        assert!(bash.starts_with('/') && bash.ends_with("/bash"), "{bash}");
    }
}
