//! `toolcap install claude-code|gemini-cli|codex|opencode|pi|copilot|qwen-code|kilo [--project DIR | --user]
//! [--dry-run] [--uninstall]`: put toolcap's hooks, plugin and MCP server into an
//! agent's own configuration.
//!
//! Every file is merged, never replaced: toolcap's entries are found by being
//! exactly what toolcap writes (its hook command forms, its MCP entry's shape,
//! its marked lines), removed and added again, so a second run changes nothing
//! and `--uninstall` takes out only what toolcap put in; JSON values are
//! spliced in place at any depth, comments kept (splice.rs). All files are read
//! and checked before any is written; a file that cannot be read or parsed, a
//! member of another type, or a read-only file stops everything (exit 2) with
//! its path. The writes go through files.rs: a lock per file, symlinks followed,
//! modes kept, temporary files renamed together. A changed file is first backed
//! up in toolcap's state dir; `--dry-run` prints the changes and writes nothing.
//! What each agent gets, and why, is in docs/agents.md.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde_json::{Map, Value};

use super::common::{Failure, other, usage, write_out};

mod claude;
mod codex;
pub mod codex_trust;
mod copilot;
mod files;
mod gemini;
mod opencode;
mod pi;
mod qwen_kilo;
mod splice;
mod writers;

pub use super::saved::read_regular;
pub use gemini::GEMINI_AFTER_TOOLS;

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
    /// Codex only: record Codex's trust in toolcap's own hooks (the hash `codex
    /// app-server` reports, in the user's config.toml, as Codex's TUI does), so
    /// `codex exec` runs them without the TUI's "Trust all and continue".
    #[arg(long)]
    trust: bool,
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
    if a.trust && (a.agent != Target::Codex || a.project.is_some() || a.uninstall) {
        return Err(usage(
            "--trust records Codex's trust in toolcap's user hooks: use it with `toolcap install codex` (no --project, no --uninstall; uninstalling takes the trust out too)",
        ));
    }
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
    // installing, the backup is the user's file without toolcap's entries
    // (an earlier install's left in it, its backup gone, are not the user's)
    let undo = if a.uninstall {
        Vec::new()
    } else {
        edits_for_undo(a.agent, &scope, &program, !a.no_mcp)?
    };
    // one run at a time per file: concurrent runs do not lose each other's change
    let _locks = if a.dry_run {
        None
    } else {
        let reals: Vec<PathBuf> = edits
            .iter()
            .map(|e| files::resolve(&e.path))
            .collect::<Result<_, _>>()?;
        Some(files::lock(&reals)?)
    };
    // read and compute every file first: one bad file, nothing written
    let mut planned: Vec<(files::Change, bool)> = Vec::new();
    let mut notes = Vec::new();
    for e in &edits {
        let found = files::read_config(&e.path)?;
        let before = found.text.as_deref();
        let (after, said) = apply(e, before)?;
        notes.extend(said);
        let mut after = as_the_user_had_it(e, before, after);
        // a symlinked file stays: emptied, not removed
        if after.is_none() && before.is_some() && found.real != e.path {
            after = Some(match e.change {
                Change::Json(_) => "{}\n".to_string(),
                _ => String::new(),
            });
        }
        if after.as_deref() != before
            && let Some(mode) = found.mode
            && let Some(why) = files::refuse_unwritable(&e.path, &found.real, mode)
        {
            return Err(usage(why));
        }
        let whole = matches!(e.change, Change::Whole(_));
        planned.push((
            files::Change {
                path: e.path.clone(),
                real: found.real,
                before: found.text,
                after,
                mode: found.mode,
            },
            whole,
        ));
    }
    let mut report = String::new();
    // a script of toolcap's (Claude Code's shell prefix) that lost its execute
    // bits stops the agent's shell: written again, executable
    let mut lost_mode: Vec<PathBuf> = Vec::new();
    for (w, whole) in &mut planned {
        if *whole
            && w.before.is_some()
            && w.after.as_deref().is_some_and(|t| t.starts_with("#!"))
            && !is_program(&w.path)
        {
            if let Some(m) = &mut w.mode {
                m.0 = 0o755;
            }
            lost_mode.push(w.path.clone());
        }
    }
    let mut changed = Vec::new();
    for (w, whole) in &planned {
        if w.before == w.after && !lost_mode.contains(&w.path) {
            report.push_str(&format!("unchanged: {}\n", w.path.display()));
            continue;
        }
        if a.dry_run {
            report.push_str(&diff(&w.path, w.before.as_deref(), w.after.as_deref()));
            changed.push(w);
            continue;
        }
        // the user's file is backed up before toolcap first changes it (installing)
        let mut backed_up = false;
        if !whole
            && !a.uninstall
            && let Some(text) = &w.before
        {
            let own = match undo
                .iter()
                .find(|u| u.path == w.path)
                .map(|u| apply(u, Some(text)))
            {
                Some(Ok((own, _))) => own,
                _ => Some(text.clone()),
            };
            // (a file holding nothing but toolcap's entries has nothing to back up)
            if let Some(own) = own {
                files::write_backup(&w.path, &own)?;
                backed_up = true;
            }
        }
        let what = match (&w.before, &w.after) {
            (None, Some(_)) => "created",
            (Some(_), None) => "removed",
            _ => "updated",
        };
        let backup = if backed_up {
            format!(" (backup: {})", files::backup_path(&w.path).display())
        } else {
            String::new()
        };
        report.push_str(&format!("{what}: {}{backup}\n", w.path.display()));
        changed.push(w);
    }
    if !a.dry_run {
        let writes: Vec<&files::Change> = changed.clone();
        files::commit(&writes)?;
        // an uninstall that gave the user's file back as it was: its backup is done
        for w in &writes {
            if a.uninstall
                && let Some(text) = &w.after
                && std::fs::read_to_string(files::backup_path(&w.path)).is_ok_and(|b| &b == text)
            {
                let _ = std::fs::remove_file(files::backup_path(&w.path));
            }
        }
    }
    for n in &notes {
        report.push_str(&format!("note: {n}\n"));
    }
    let changed = changed.len();
    if a.trust && !a.dry_run {
        // the hooks are in place now: Codex can hash them (config.toml is locked
        // since the files were read)
        let trusted = codex_trust_step(&scope, &program, !a.no_mcp)?;
        report.push_str(&trusted);
    } else if a.agent == Target::Codex && !a.uninstall && !a.dry_run {
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

/// `--trust`: ask Codex for the hashes of toolcap's hooks in the user's
/// hooks.json and record them in the user's config.toml; what to report.
fn codex_trust_step(scope: &Scope, program: &str, mcp: bool) -> Result<String, Failure> {
    let Scope::User(home) = scope else {
        return Err(usage("--trust: only for a user install"));
    };
    let dir = env_dir("CODEX_HOME").unwrap_or_else(|| home.join(".codex"));
    let hooks = dir.join("hooks.json");
    let config = dir.join("config.toml");
    let extra = if mcp {
        " --mcp-prefix mcp__toolcap__"
    } else {
        ""
    };
    let cmd = hook_cmd(program, Target::Codex, extra);
    let cwd = std::env::current_dir().unwrap_or_else(|_| home.clone());
    let listed = codex_trust::list(&hooks, &cmd, &cwd)?;
    let found = files::read_config(&config)?;
    let before = found.text.clone().unwrap_or_default();
    let after = codex_trust::with_trust(&before, &listed);
    if after != before {
        files::commit(&[&files::Change {
            path: config.clone(),
            real: found.real,
            before: found.text,
            after: Some(after),
            mode: found.mode,
        }])?;
    }
    Ok(format!(
        "trusted: {} of toolcap's Codex hooks, as Codex hashes them (in {})\n",
        listed.len(),
        config.display()
    ))
}

/// The edits that take toolcap's entries out again, for the backup of a file
/// that already holds some.
fn edits_for_undo(
    agent: Target,
    scope: &Scope,
    program: &str,
    mcp: bool,
) -> Result<Vec<Edit>, Failure> {
    Ok(edits(agent, scope, program, mcp, true)?
        .into_iter()
        .filter(|e| !matches!(e.change, Change::Whole(_)))
        .collect())
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

/// Whether the agent reading `path` takes trailing commas in it: opencode and
/// Kilo read their configs as JSONC with them allowed.
fn trailing_commas(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let parent = path
        .parent()
        .and_then(Path::file_name)
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    matches!(
        name,
        "kilo.json" | "kilo.jsonc" | "opencode.json" | "opencode.jsonc"
    ) || (name == "config.json" && parent == "kilo")
}

const BOM: &str = "\u{feff}";

/// An agent's JSON config file's content: a leading BOM, comments and (where
/// the agent allows them) trailing commas taken as the agent takes them.
pub fn parse_config(path: &Path, text: &str) -> Result<Value, String> {
    let t = text.strip_prefix(BOM).unwrap_or(text);
    if t.trim().is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_str::<Value>(&splice::plain(t, trailing_commas(path)))
        .map_err(|err| format!("not valid JSON ({err})"))
}

/// How a text file ends its lines and whether it ends with one: the edits see
/// LF and a final newline; the result gets the file's own back.
struct Ends {
    bom: bool,
    crlf: bool,
    no_final_newline: bool,
}

impl Ends {
    fn of(text: &str) -> (Ends, String) {
        let bom = text.starts_with(BOM);
        let t = text.strip_prefix(BOM).unwrap_or(text);
        let lf = t.matches('\n').count();
        let crlf = lf > 0 && t.matches("\r\n").count() == lf;
        let mut t = if crlf {
            t.replace("\r\n", "\n")
        } else {
            t.to_string()
        };
        let no_final_newline = !t.is_empty() && !t.ends_with('\n');
        (
            Ends {
                bom,
                crlf,
                no_final_newline,
            },
            {
                if no_final_newline {
                    t.push('\n');
                }
                t
            },
        )
    }

    fn restore(&self, mut t: String) -> String {
        if self.no_final_newline && t.ends_with('\n') {
            t.pop();
        }
        if self.crlf {
            t = t.replace('\n', "\r\n");
        }
        if self.bom {
            t.insert_str(0, BOM);
        }
        t
    }
}

/// The file's new text for an edit, and what the writers said of the user's
/// own entries they kept. The edit sees the text without a BOM, with LF line
/// ends and a final newline; the new text gets the file's own back.
fn apply(e: &Edit, before: Option<&str>) -> Result<(Option<String>, Vec<String>), Failure> {
    let bad = |problem: String| {
        usage(format!(
            "{}: {problem}; fix the file (or move it away), then run toolcap install again (nothing was written)",
            e.path.display()
        ))
    };
    let Some(raw) = before else {
        return apply_text(e, None).map_err(bad);
    };
    let (ends, text) = Ends::of(raw);
    let (after, said) = apply_text(e, Some(&text)).map_err(bad)?;
    let after = match after {
        Some(t) if t == text => Some(raw.to_string()),
        Some(t) if matches!(e.change, Change::Whole(_)) => Some(t),
        Some(t) => Some(ends.restore(t)),
        None => None,
    };
    Ok((after, said))
}

fn apply_text(e: &Edit, before: Option<&str>) -> Result<(Option<String>, Vec<String>), String> {
    match &e.change {
        Change::Whole(content) => Ok((content.clone(), Vec::new())),
        Change::Text(f) => {
            let after = f(before.unwrap_or_default())?;
            // a file left with nothing of the user's goes
            Ok(((!after.trim().is_empty()).then_some(after), Vec::new()))
        }
        Change::Json(f) => {
            let commas = trailing_commas(&e.path);
            let mut v = match before {
                None => Value::Null,
                Some(t) => parse_config(&e.path, t)?,
            };
            if !(v.is_object() || v.is_null()) {
                return Err("not a JSON object".into());
            }
            let was = v.clone();
            let _ = writers::take_said();
            f(&mut v);
            let said = writers::take_said();
            if !said.refused.is_empty() {
                return Err(format!(
                    "{}; toolcap cannot add its entries",
                    said.refused.join("; ")
                ));
            }
            // a member the user had kept empty (`"hooks": {}`) stays
            keep_empty_members(&mut v, &was);
            if let Some(b) = read_backup(&e.path) {
                keep_empty_members(&mut v, &b);
            }
            if v == was {
                return Ok((before.map(str::to_string), said.notes));
            }
            if v.is_null() || (before.is_none() && v.as_object().is_some_and(Map::is_empty)) {
                return Ok((before.map(str::to_string), said.notes));
            }
            if let (Some(text), Some(old), Some(new)) = (before, was.as_object(), v.as_object())
                && !text.trim().is_empty()
                && let Some(spliced) = splice::splice(text, old, new, commas)
            {
                return Ok((Some(spliced), said.notes));
            }
            if before.is_some_and(|t| splice::plain(t, commas) != t) {
                return Err(
                    "it has comments, and its layout is one toolcap cannot edit without losing them"
                        .into(),
                );
            }
            let mut s = serde_json::to_string_pretty(&v).map_err(|err| err.to_string())?;
            s.push('\n');
            Ok((Some(s), said.notes))
        }
    }
}

/// The backup of `path` as a JSON value, if there is one that parses.
fn read_backup(path: &Path) -> Option<Value> {
    let b = read_regular(&files::backup_path(path), 64 << 20).ok()?;
    parse_config(path, &String::from_utf8(b).ok()?).ok()
}

/// Members the user's own file (`backup`) had empty (`{}`, `[]`, null) and
/// that `v` no longer has, put back at the same place in the tree (toolcap's
/// writers drop a member they left empty; the user's own empty one stays).
fn keep_empty_members(v: &mut Value, backup: &Value) {
    let (Some(m), Some(b)) = (v.as_object_mut(), backup.as_object()) else {
        return;
    };
    /// Nothing but empty members, however deep.
    fn hollow(x: &Value) -> bool {
        match x {
            Value::Null => true,
            Value::Object(m) => m.values().all(hollow),
            Value::Array(a) => a.iter().all(hollow),
            _ => false,
        }
    }
    for (k, x) in b {
        match m.get_mut(k) {
            None if hollow(x) => {
                m.insert(k.clone(), x.clone());
            }
            Some(y) => keep_empty_members(y, x),
            None => {}
        }
    }
}

/// A file whose new content means what the user's own file meant before
/// toolcap first touched it comes back as those very bytes (an uninstall
/// restores the file byte for byte, its layout and formatting included); a
/// file toolcap created that is left empty goes.
fn as_the_user_had_it(e: &Edit, before: Option<&str>, after: Option<String>) -> Option<String> {
    if after.as_deref() == before {
        return after;
    }
    let original = read_regular(&files::backup_path(&e.path), 64 << 20)
        .ok()
        .and_then(|b| String::from_utf8(b).ok());
    match &e.change {
        Change::Json(_) => {
            let value = |t: &str| parse_config(&e.path, t).ok();
            let new = after.as_deref().and_then(value);
            match original {
                Some(original) if new.is_some() && value(&original) == new => Some(original),
                Some(_) => after,
                None if new
                    .as_ref()
                    .and_then(Value::as_object)
                    .is_some_and(Map::is_empty) =>
                {
                    None
                }
                None => after,
            }
        }
        // a text file differing from the user's only in line ends and
        // trailing blank lines is the user's
        Change::Text(_) => {
            let norm = |t: &str| t.replace("\r\n", "\n").trim_end().to_string();
            match (original, &after) {
                (Some(o), Some(a)) if norm(&o) == norm(a) => Some(o),
                _ => after,
            }
        }
        Change::Whole(_) => after,
    }
}

/// Whether `p` is a file its owner may run.
/// `toolcap shell-prefix claude-code --script`: the path of a Claude Code
/// shell prefix script that runs this toolcap (the script `install claude-code`
/// writes), for a program that sets `CLAUDE_CODE_SHELL_PREFIX` itself (the Claude
/// Agent SDK helpers of the Node and Python packages). One script per toolcap
/// program, `<state dir>/toolcap/agents/claude-code-shell-prefix-sdk-<program>`,
/// written (under the install lock, renamed into place, 0755) only when it is
/// missing, different or not executable; no settings file is touched.
pub fn sdk_prefix_script() -> Result<PathBuf, Failure> {
    let program = super::common::this_program()
        .map_err(|e| other(format!("cannot tell where this toolcap is: {e}")))?;
    let dir = state_dir()
        .ok_or_else(|| {
            usage("HOME is not set: cannot find toolcap's state directory; set XDG_STATE_HOME")
        })?
        .join("agents");
    let path = dir.join(format!(
        "claude-code-shell-prefix-sdk-{}",
        project_key(&program)
    ));
    let text = claude::prefix_script(&program.to_string_lossy());
    let real = files::resolve(&path)?;
    let _lock = files::lock(std::slice::from_ref(&real))?;
    let found = files::read_config(&path)?;
    if found.text.as_deref() == Some(text.as_str()) && is_program(&path) {
        return Ok(path);
    }
    let change = files::Change {
        path: path.clone(),
        real: found.real,
        before: found.text,
        after: Some(text),
        // (a new script: 0755)
        mode: None,
    };
    files::commit(&[&change])?;
    Ok(path)
}

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
