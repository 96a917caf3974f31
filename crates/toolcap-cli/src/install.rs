//! `toolcap install claude-code|gemini-cli|codex|opencode|pi|copilot|qwen-code|kilo [--project DIR | --user]
//! [--dry-run] [--uninstall]`: put toolcap's hooks, plugin and MCP server into an
//! agent's own configuration.
//!
//! Every file is merged, never replaced: toolcap's entries are found by their
//! command (`... hook <agent>`, `toolcap mcp`) or by a marker (`added by toolcap
//! install`), removed and added again, so a second run changes nothing and
//! `--uninstall` takes out only what toolcap put in. All files are read and
//! checked before any is written; a file that cannot be read or parsed stops
//! everything (exit 2) with its path. A changed file is first copied to
//! `<file>.toolcap-backup`; `--dry-run` prints the changes and writes nothing.
//! What each agent gets, and why, is in docs/agents.md.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde_json::{Map, Value};

use super::common::{Failure, other, usage, write_out};

mod claude;
mod codex;
mod copilot;
mod gemini;
mod opencode;
mod pi;
mod qwen_kilo;
mod splice;
mod writers;

use super::project::{project_key, state_dir};

/// Marker in the lines and blocks toolcap writes into text files.
pub const MARK: &str = "added by toolcap install";

/// The one step `toolcap install codex` leaves to the user (Codex asks for it).
pub const CODEX_TRUST_STEP: &str = "Codex runs new hooks only once you trust them: start `codex` in a terminal and choose \"Trust all and continue\" (or review them with /hooks); `codex exec` skips untrusted hooks";

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum, Debug, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum Target {
    /// Claude Code: hooks in settings.json, the MCP server in .mcp.json / ~/.claude.json.
    ClaudeCode,
    /// Gemini CLI: a BeforeTool hook and the MCP server in settings.json.
    GeminiCli,
    /// Codex CLI: hooks.json, config.toml ([features] hooks, the MCP server), AGENTS.md.
    Codex,
    /// opencode: the plugin file and the MCP server in opencode.json.
    Opencode,
    /// Pi: its extension file and its settings.json `extensions` list.
    Pi,
    /// GitHub Copilot CLI: a postToolUse hook in its settings.json.
    Copilot,
    /// Qwen Code: a PostToolUse hook and the MCP server in .qwen/settings.json.
    #[value(alias = "qwen")]
    QwenCode,
    /// Kilo Code CLI: opencode's plugin and the MCP server in kilo.json(c).
    #[value(alias = "kilo-code")]
    Kilo,
}

impl Target {
    /// The name `toolcap install` takes (clap's `ValueEnum` name, kebab-case).
    fn name(self) -> &'static str {
        self.into()
    }
}

#[derive(Args)]
pub struct InstallArgs {
    /// The agent to set up.
    #[arg(value_enum)]
    agent: Target,
    /// Set it up for the project in DIR (its own config files there).
    #[arg(long, value_name = "DIR", conflicts_with = "user")]
    project: Option<PathBuf>,
    /// Set it up for the user, in every project (the default).
    #[arg(long)]
    user: bool,
    /// Print what would change; write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Take toolcap's entries out again (and only those).
    #[arg(long)]
    uninstall: bool,
    /// The toolcap program the hooks call (default: this program's absolute path;
    /// the agent's PATH may not have toolcap).
    #[arg(long, value_name = "PATH")]
    toolcap: Option<PathBuf>,
    /// Do not add `toolcap mcp` as an MCP server (suggestions then read back
    /// through the shell with `toolcap continue`).
    #[arg(long)]
    no_mcp: bool,
}

/// One file's change: how to turn its text (None: no file) into the new text
/// (None: no file).
struct Edit {
    path: PathBuf,
    change: Change,
}

/// A text file's new text from its old, or what is wrong with it.
type TextEdit = Box<dyn Fn(&str) -> Result<String, String>>;

enum Change {
    Json(Box<dyn Fn(&mut Value)>),
    Text(TextEdit),
    /// The whole file is toolcap's (Some: its content, None: remove it).
    Whole(Option<String>),
}

pub fn install(a: InstallArgs) -> Result<(), Failure> {
    let program = match &a.toolcap {
        Some(p) => absolute(p)?,
        None => super::common::this_program().map_err(|e| {
            other(format!(
                "cannot tell where this toolcap is: {e}; pass --toolcap PATH"
            ))
        })?,
    };
    let program = program.to_string_lossy().into_owned();
    let scope = match &a.project {
        Some(d) => {
            let d = absolute(d)?;
            if !d.is_dir() {
                return Err(usage(format!(
                    "--project {}: not a directory; pass the project's top directory",
                    d.display()
                )));
            }
            Scope::Project(d)
        }
        None => Scope::User(home()?),
    };
    let edits = edits(a.agent, &scope, &program, !a.no_mcp, a.uninstall)?;
    // toolcap's own files (written whole) get no backup
    let planned_whole: Vec<PathBuf> = edits
        .iter()
        .filter(|e| matches!(e.change, Change::Whole(_)))
        .map(|e| e.path.clone())
        .collect();
    // read and compute every file first: one bad file, nothing written
    let mut planned = Vec::new();
    for e in edits {
        let before = read_text(&e.path)?;
        let after = apply(&e, before.as_deref())?;
        let after = as_the_user_had_it(&e, before.as_deref(), after);
        planned.push((e.path, before, after));
    }
    let mut report = String::new();
    let mut changed = 0;
    for (path, before, after) in &planned {
        // a script of toolcap's (Claude Code's shell prefix) that lost its
        // execute bits stops the agent's shell: written again
        let lost_its_mode = planned_whole.contains(path)
            && after.as_deref().is_some_and(|t| t.starts_with("#!"))
            && !is_program(path);
        if before == after && !lost_its_mode {
            report.push_str(&format!("unchanged: {}\n", path.display()));
            continue;
        }
        changed += 1;
        if a.dry_run {
            report.push_str(&diff(path, before.as_deref(), after.as_deref()));
            continue;
        }
        // the user's file is backed up before toolcap first changes it (installing)
        let whole = planned_whole.contains(path);
        let keep = before.as_deref().filter(|_| !whole && !a.uninstall);
        write_file(path, keep, after.as_deref())?;
        // an uninstall that gave the user's file back as it was: its backup is done
        if a.uninstall
            && let Some(text) = after
            && std::fs::read_to_string(backup_path(path)).is_ok_and(|b| &b == text)
        {
            let _ = std::fs::remove_file(backup_path(path));
        }
        let what = match (before, after) {
            (None, Some(_)) => "created",
            (Some(_), None) => "removed",
            _ => "updated",
        };
        let backup = if keep.is_some() {
            format!(" (backup: {})", backup_path(path).display())
        } else {
            String::new()
        };
        report.push_str(&format!("{what}: {}{backup}\n", path.display()));
    }
    if a.agent == Target::Codex && !a.uninstall && !a.dry_run {
        report.push_str(&format!("next: {CODEX_TRUST_STEP}\n"));
    }
    let verb = if a.uninstall { "uninstall" } else { "install" };
    report.push_str(&match (a.dry_run, changed) {
        (_, 0) => format!("toolcap {verb} {}: nothing to change\n", a.agent.name()),
        (true, n) => format!(
            "toolcap {verb} {} --dry-run: {n} file{} would change; nothing written\n",
            a.agent.name(),
            if n == 1 { "" } else { "s" }
        ),
        (false, n) => format!(
            "toolcap {verb} {}: {n} file{} changed\n",
            a.agent.name(),
            if n == 1 { "" } else { "s" }
        ),
    });
    write_out(report.as_bytes())
}

enum Scope {
    User(PathBuf),
    Project(PathBuf),
}

fn home() -> Result<PathBuf, Failure> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| usage("HOME is not set: cannot find the user's config; pass --project DIR"))
}

fn absolute(p: &Path) -> Result<PathBuf, Failure> {
    if p.is_absolute() {
        return Ok(p.to_path_buf());
    }
    std::env::current_dir()
        .map(|d| d.join(p))
        .map_err(|e| other(format!("cannot tell the current directory: {e}")))
}

fn env_dir(key: &str) -> Option<PathBuf> {
    std::env::var_os(key)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
}

/// `PROGRAM hook AGENT EXTRA`, the program quoted for the shell.
fn hook_cmd(program: &str, agent: Target, extra: &str) -> String {
    format!("{} hook {}{extra}", quote(program), agent.name())
}

/// [`hook_cmd`] failing open: without the toolcap program the hook prints
/// nothing and exits 0 (Gemini CLI takes a missing program's exit 127 as
/// "deny"); the agents that run hook commands through a shell get this form.
fn open_hook_cmd(program: &str, agent: Target, extra: &str) -> String {
    format!(
        "[ -x {p} ] || exit 0; exec {p} hook {}{extra}",
        agent.name(),
        p = quote(program)
    )
}

/// `s` as one shell word (as it is when it cannot be quoted).
fn quote(s: &str) -> String {
    toolcap_text::quote::shell_word(s).unwrap_or_else(|| s.to_string())
}

/// The files to change for `agent` in `scope`.
fn edits(
    agent: Target,
    scope: &Scope,
    program: &str,
    mcp: bool,
    uninstall: bool,
) -> Result<Vec<Edit>, Failure> {
    let install = !uninstall;
    let mut out = Vec::new();
    match agent {
        Target::ClaudeCode => out.extend(claude::edits(scope, program, mcp, install)?),
        Target::GeminiCli => out.extend(gemini::edits(scope, program, mcp, install)),
        Target::Codex => out.extend(codex::edits(scope, program, mcp, install)),
        Target::Opencode => out.extend(opencode::edits(scope, program, mcp, install)?),
        Target::Pi => out.extend(pi::edits(scope, program, install)?),
        Target::Copilot => out.extend(copilot::edits(
            scope,
            open_hook_cmd(program, agent, ""),
            install,
        )),
        // suggestions call toolcap's MCP tools where the server is added: Qwen Code
        // 0.24.4's shell at times loses a command's output (see hook/qwen.rs)
        Target::QwenCode => out.extend(qwen_kilo::qwen_edits(
            scope,
            program,
            open_hook_cmd(
                program,
                agent,
                if mcp {
                    " --mcp-prefix mcp__toolcap__"
                } else {
                    ""
                },
            ),
            mcp,
            install,
        )),
        Target::Kilo => out.extend(qwen_kilo::kilo_edits(scope, program, mcp, install)?),
    }
    Ok(out)
}

/// A file toolcap writes for an agent (Claude Code's shell prefix script,
/// opencode's plugin): in toolcap's state dir, one per scope, never inside the
/// project: `<state>/toolcap/agents/<name>-user<ext>` or `<name>-<project key><ext>`.
fn agent_file(scope: &Scope, name: &str, ext: &str) -> Result<PathBuf, Failure> {
    let dir = state_dir()
        .ok_or_else(|| {
            usage("HOME is not set: cannot find toolcap's state directory; set XDG_STATE_HOME")
        })?
        .join("agents");
    Ok(match scope {
        Scope::User(_) => dir.join(format!("{name}-user{ext}")),
        Scope::Project(d) => dir.join(format!("{name}-{}{ext}", project_key(d))),
    })
}

fn read_text(path: &Path) -> Result<Option<String>, Failure> {
    match std::fs::read(path) {
        Ok(b) => String::from_utf8(b).map(Some).map_err(|_| {
            usage(format!(
                "{}: not UTF-8 text; fix or move the file, then run toolcap install again (nothing was written)",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(usage(format!(
            "{}: cannot read it: {e}; fix its permissions, then run toolcap install again (nothing was written)",
            path.display()
        ))),
    }
}

/// The file's new text for an edit.
fn apply(e: &Edit, before: Option<&str>) -> Result<Option<String>, Failure> {
    let bad = |problem: String| {
        usage(format!(
            "{}: {problem}; fix the file (or move it away), then run toolcap install again (nothing was written)",
            e.path.display()
        ))
    };
    match &e.change {
        Change::Whole(content) => Ok(content.clone()),
        Change::Text(f) => {
            let after = f(before.unwrap_or_default()).map_err(bad)?;
            // a file left with nothing of the user's goes
            Ok((!after.trim().is_empty()).then_some(after))
        }
        Change::Json(f) => {
            // JSONC (comments, as Claude Code and Gemini CLI read settings) is read
            // with its comments blanked out, and kept: only changed members are rewritten
            let mut v = match before {
                None => Value::Null,
                Some(t) if t.trim().is_empty() => Value::Null,
                Some(t) => serde_json::from_str::<Value>(&splice::blank_comments(t))
                    .map_err(|err| bad(format!("not valid JSON ({err})")))?,
            };
            if !(v.is_object() || v.is_null()) {
                return Err(bad("not a JSON object".into()));
            }
            let was = v.clone();
            f(&mut v);
            if v == was {
                return Ok(before.map(str::to_string));
            }
            if v.is_null() || (before.is_none() && v.as_object().is_some_and(Map::is_empty)) {
                return Ok(before.map(str::to_string));
            }
            if let (Some(text), Some(old), Some(new)) = (before, was.as_object(), v.as_object())
                && let Some(spliced) = splice::splice(text, old, new)
            {
                return Ok(Some(spliced));
            }
            if before.is_some_and(|t| splice::blank_comments(t) != t) {
                return Err(bad(
                    "it has comments, and its layout is one toolcap cannot edit without losing them"
                        .into(),
                ));
            }
            let mut s = serde_json::to_string_pretty(&v).map_err(|err| bad(err.to_string()))?;
            s.push('\n');
            Ok(Some(s))
        }
    }
}

/// A config file's backup: in toolcap's state dir (never beside the file, which
/// may be in a repository), named by the file's whole path.
fn backup_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = path.parent().unwrap_or(path);
    state_dir()
        .unwrap_or_else(std::env::temp_dir)
        .join("backups")
        .join(project_key(dir))
        .join(name)
}

/// A JSON file whose new content means what the user's own file meant before
/// toolcap first touched it comes back as those very bytes (an uninstall
/// restores the file byte for byte, its layout and formatting included); a
/// file toolcap created that is left empty goes.
fn as_the_user_had_it(e: &Edit, before: Option<&str>, after: Option<String>) -> Option<String> {
    if !matches!(e.change, Change::Json(_)) || after.as_deref() == before {
        return after;
    }
    let value = |t: &str| serde_json::from_str::<Value>(t).ok();
    let new = after.as_deref().and_then(value);
    match std::fs::read_to_string(backup_path(&e.path)) {
        Ok(original) if new.is_some() && value(&original) == new => Some(original),
        Ok(_) => after,
        Err(_)
            if new
                .as_ref()
                .and_then(Value::as_object)
                .is_some_and(Map::is_empty) =>
        {
            None
        }
        Err(_) => after,
    }
}

fn write_file(path: &Path, before: Option<&str>, after: Option<&str>) -> Result<(), Failure> {
    let fail =
        |what: &str, e: std::io::Error| other(format!("{}: cannot {what}: {e}", path.display()));
    // the first backup is the user's own file: never overwritten by a later run
    let backup = backup_path(path);
    if let Some(b) = before
        && !backup.exists()
    {
        if let Some(dir) = backup.parent() {
            std::fs::create_dir_all(dir).map_err(|e| fail("create its backup's directory", e))?;
        }
        std::fs::write(&backup, b).map_err(|e| fail("write its backup", e))?;
    }
    match after {
        None => {
            std::fs::remove_file(path).map_err(|e| fail("remove it", e))?;
            // a config directory left empty (toolcap made it: `.codex/`) goes too
            if let Some(dir) = path.parent() {
                let _ = std::fs::remove_dir(dir);
            }
            Ok(())
        }
        Some(text) => {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| fail("create its directory", e))?;
            }
            let mut tmp = path.as_os_str().to_os_string();
            tmp.push(".toolcap-tmp");
            std::fs::write(&tmp, text).map_err(|e| fail("write it", e))?;
            // a script toolcap writes whole (a shell prefix) is a program
            #[cfg(unix)]
            if text.starts_with("#!") {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))
                    .map_err(|e| fail("make it executable", e))?;
            }
            std::fs::rename(&tmp, path).map_err(|e| fail("write it", e))
        }
    }
}

/// Whether `p` is a file its owner may run.
fn is_program(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o100 != 0)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

/// The change as a unified diff of one hunk: the lines between the common
/// head and tail, with up to 3 lines of context.
fn diff(path: &Path, before: Option<&str>, after: Option<&str>) -> String {
    let a: Vec<&str> = before.map(|t| t.lines().collect()).unwrap_or_default();
    let b: Vec<&str> = after.map(|t| t.lines().collect()).unwrap_or_default();
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let ctx = 3;
    let from = head.saturating_sub(ctx);
    let mut out = format!(
        "--- {}{}\n+++ {}{}\n",
        path.display(),
        if before.is_none() { " (new)" } else { "" },
        path.display(),
        if after.is_none() { " (removed)" } else { "" }
    );
    let a_end = a.len() - tail;
    let b_end = b.len() - tail;
    let a_ctx_end = (a_end + ctx).min(a.len());
    out.push_str(&format!(
        "@@ -{},{} +{},{} @@\n",
        from + 1,
        a_ctx_end - from,
        from + 1,
        (b_end + ctx).min(b.len()) - from
    ));
    for l in &a[from..head] {
        out.push_str(&format!(" {l}\n"));
    }
    for l in &a[head..a_end] {
        out.push_str(&format!("-{l}\n"));
    }
    for l in &b[head..b_end] {
        out.push_str(&format!("+{l}\n"));
    }
    for l in &a[a_end..a_ctx_end] {
        out.push_str(&format!(" {l}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use clap::ValueEnum;

    use super::Target;

    /// The names the messages use are clap's `toolcap install` values.
    #[test]
    fn target_names_are_the_cli_values() {
        let names: Vec<(&str, String)> = Target::value_variants()
            .iter()
            .filter_map(|t| Some((t.name(), t.to_possible_value()?.get_name().to_string())))
            .collect();
        for (ours, clap) in &names {
            assert_eq!(ours, clap);
        }
        assert_eq!(names.len(), 8);
        assert_eq!(Target::QwenCode.name(), "qwen-code");
    }
}
