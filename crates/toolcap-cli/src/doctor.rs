//! `toolcap doctor [--project DIR] [--json]`: is toolcap in each agent's path,
//! and would it work there now?
//!
//! Per agent (Claude Code, Codex, Gemini CLI, opencode, Pi, Copilot CLI, Qwen Code, Kilo): where toolcap is
//! installed (user or project config), whether it is active (Claude Code's shell
//! prefix script in place; Codex's hooks trusted, which Codex asks for once),
//! whether the toolcap program the config names is there; then for the project:
//! whether its store can be written, and the last result toolcap cut there.
//! Read-only: it changes nothing.

use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::{Value, json};

use super::common::{Failure, usage, write_out};
use super::install::{CODEX_TRUST_STEP, MARK, codex_trust};
use super::project::{project_root, project_store_for};

mod copilot;
mod pi;
mod qk;

#[derive(Args)]
pub struct DoctorArgs {
    /// The project to look at (default: the current directory's project).
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
    /// Print one JSON object instead of the report.
    #[arg(long)]
    json: bool,
}

/// What doctor found for one agent.
struct AgentState {
    agent: &'static str,
    /// The config files that hold toolcap's entries.
    installed_in: Vec<PathBuf>,
    /// Whether the agent will run toolcap (None: not installed).
    active: Option<bool>,
    /// Why not, or what is left to do.
    note: Option<String>,
    /// The toolcap programs the entries name, and whether each is there.
    programs: Vec<(String, bool)>,
}

pub fn doctor(a: DoctorArgs) -> Result<(), Failure> {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| usage("HOME is not set: cannot find the agents' configs"))?;
    let project = match a.project {
        Some(d) => d.canonicalize().map_err(|e| {
            usage(format!(
                "--project {}: {e}; pass the project's top directory",
                d.display()
            ))
        })?,
        None => project_root().ok_or_else(|| usage("cannot tell the current directory"))?,
    };
    let mut invalid = Vec::new();
    let mut checked = |s: AgentState| {
        let mut found = take_invalid();
        found.dedup();
        invalid.push(found);
        s
    };
    let agents = [
        checked(claude_code(&home, &project)),
        checked(codex(&home, &project)),
        checked(gemini_cli(&home, &project)),
        checked(opencode(&home, &project)),
        checked(pi::pi(&home, &project)),
        checked(copilot::copilot(&home, &project)),
        checked(qk::qwen_code(&home, &project)),
        checked(qk::kilo(&home, &project)),
    ];
    let bash = claude_code_bash(&home, &project);
    let store = project_store_for(&project);
    let (writable, last) = match &store {
        Some(s) => (store_writable(s), last_cut(s)),
        None => (Err("no home directory".to_string()), None),
    };
    if a.json {
        let v = json!({
            "project": project,
            "agents": agents.iter().zip(&invalid).map(|(s, bad)| json!({
                "agent": s.agent,
                "invalid": bad.iter().map(|(p, e)| json!({"path": p, "error": e})).collect::<Vec<_>>(),
                "installed": !s.installed_in.is_empty(),
                "installed_in": s.installed_in,
                "active": s.active,
                "note": s.note,
                "programs": s.programs.iter().map(|(p, ok)| json!({"path": p, "found": ok})).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "broken": bash.iter().map(|(file, problem)| json!({
                "agent": "claude-code",
                "tool": "Bash",
                "config": file,
                "problem": problem,
            })).collect::<Vec<_>>(),
            "store": {
                "path": store,
                "writable": writable.is_ok(),
                "error": writable.as_ref().err(),
                "last_cut": last,
            },
        });
        write_out(format!("{v:#}\n").as_bytes())?;
        return bash_verdict(bash.as_ref());
    }
    let mut out = format!("project: {}\n\n", project.display());
    for (s, bad) in agents.iter().zip(&invalid) {
        if !bad.is_empty() && s.installed_in.is_empty() {
            out.push_str(&format!(
                "{}: cannot tell whether toolcap is installed: a config file is invalid\n",
                s.agent
            ));
        }
        for (p, e) in bad {
            out.push_str(&format!(
                "  INVALID: {}: {e}; the agent cannot read it either: fix it\n",
                p.display()
            ));
        }
        if !bad.is_empty() && s.installed_in.is_empty() {
            continue;
        }
        if s.installed_in.is_empty() {
            out.push_str(&format!(
                "{}: not installed (toolcap install {})\n",
                s.agent, s.agent
            ));
            continue;
        }
        let state = match s.active {
            Some(true) => "active",
            _ => "installed, NOT active",
        };
        out.push_str(&format!("{}: {state}\n", s.agent));
        for f in &s.installed_in {
            out.push_str(&format!("  config: {}\n", f.display()));
        }
        for (p, ok) in &s.programs {
            let found = if *ok { "found" } else { "MISSING" };
            out.push_str(&format!("  program: {p} ({found})\n"));
        }
        if let Some(n) = &s.note {
            out.push_str(&format!("  note: {n}\n"));
        }
    }
    match &store {
        Some(p) => out.push_str(&format!("\nstore: {}\n", p.display())),
        None => out.push_str("\nstore: none (no home directory)\n"),
    }
    match &writable {
        Ok(()) => out.push_str("  writable: yes\n"),
        Err(e) => out.push_str(&format!(
            "  writable: NO ({e}); outputs are still shown, but cannot be read back\n"
        )),
    }
    match &last {
        Some(l) => out.push_str(&format!(
            "  last cut result: {} ({}, {} chars, {})\n",
            l["tool_call_id"].as_str().unwrap_or_default(),
            l["tool_name"].as_str().unwrap_or_default(),
            l["chars"],
            l["created_at"].as_str().unwrap_or_default()
        )),
        None => out.push_str("  last cut result: none yet\n"),
    }
    if let Some((file, problem)) = &bash {
        out.push_str(&format!(
            "\nBROKEN: Claude Code's Bash tool cannot run any command: {problem} ({})\n",
            file.display()
        ));
    }
    write_out(out.as_bytes())?;
    bash_verdict(bash.as_ref())
}

/// Exit 1 when an agent's tool cannot run at all.
fn bash_verdict(bash: Option<&(PathBuf, String)>) -> Result<(), Failure> {
    match bash {
        None => Ok(()),
        Some(_) => Err(Failure {
            code: 1,
            message: String::new(),
        }),
    }
}

/// Claude Code runs every Bash command as `<CLAUDE_CODE_SHELL_PREFIX>
/// '<script>'` (split at its last ` -`: the part before is the program):
/// when that program is missing or cannot be run, no command runs (exit 127
/// or 126). The prefix in effect (settings.local.json over the project's
/// settings.json over the user's), whoever set it, and what is wrong with it.
fn claude_code_bash(home: &Path, project: &Path) -> Option<(PathBuf, String)> {
    let files = [
        project.join(".claude/settings.local.json"),
        project.join(".claude/settings.json"),
        home.join(".claude/settings.json"),
    ];
    let (file, prefix) = files.into_iter().find_map(|f| {
        let v = read_json(&f)?;
        let p = v["env"]["CLAUDE_CODE_SHELL_PREFIX"]
            .as_str()?
            .trim()
            .to_string();
        Some((f, p))
    })?;
    if prefix.is_empty() {
        return None;
    }
    let program = match prefix.rfind(" -") {
        Some(at) if at > 0 => &prefix[..at],
        _ => prefix.as_str(),
    };
    let problem = if program.contains('/') {
        let path = Path::new(program);
        match std::fs::metadata(path) {
            Err(_) => format!("CLAUDE_CODE_SHELL_PREFIX names {program}, which is not there"),
            Ok(m) if !m.is_file() || !is_executable(path) => {
                format!("CLAUDE_CODE_SHELL_PREFIX names {program}, which is not an executable file")
            }
            Ok(_) => return None,
        }
    } else {
        let found = std::env::var_os("PATH").is_some_and(|paths| {
            std::env::split_paths(&paths).any(|d| is_executable(&d.join(program)))
        });
        if found {
            return None;
        }
        format!("CLAUDE_CODE_SHELL_PREFIX names {program}, which is not on PATH")
    };
    let fix = if prefix.contains("toolcap") {
        "; run `toolcap install claude-code` again (or `toolcap uninstall claude-code`)"
    } else {
        ""
    };
    Some((file, format!("{problem}{fix}")))
}

thread_local! {
    /// The config files found invalid since the last [`take_invalid`].
    static INVALID: std::cell::RefCell<Vec<(PathBuf, String)>> = std::cell::RefCell::default();
}

fn take_invalid() -> Vec<(PathBuf, String)> {
    INVALID.with(|i| std::mem::take(&mut *i.borrow_mut()))
}

/// Largest file doctor reads.
const MAX_READ: u64 = 64 << 20;

/// A file's text: a regular file only (a FIFO or a device is never opened
/// for good: doctor must not hang), at most 64 MiB.
fn read_text(p: &Path) -> std::io::Result<String> {
    let b = super::saved::read_regular(p, MAX_READ)?;
    String::from_utf8(b).map_err(|_| std::io::Error::other("not UTF-8 text"))
}

/// An agent's JSON settings file as the agent reads it; a file that is there
/// but cannot be read or is not valid is noted (see [`take_invalid`]).
fn read_json(p: &Path) -> Option<Value> {
    if !p.exists() {
        return None;
    }
    let problem = match read_text(p) {
        Ok(text) => match super::install::parse_config(p, &text) {
            Ok(v) if v.is_object() => return Some(v),
            Ok(v) if v.is_null() => return None,
            Ok(_) => "not a JSON object".to_string(),
            Err(e) => e,
        },
        Err(e) => format!("cannot read it: {e}"),
    };
    INVALID.with(|i| i.borrow_mut().push((p.to_path_buf(), problem)));
    None
}

/// The absolute paths of toolcap programs named in `text` (a hook command, a
/// script): words that end in `/toolcap`, unquoted.
fn programs_in(text: &str) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = Vec::new();
    for w in text.split(|c: char| c.is_whitespace() || c == ';' || c == '=') {
        let w = w.trim_matches(|c| c == '\'' || c == '"');
        if w.starts_with('/') && w.ends_with("/toolcap") && !out.iter().any(|(p, _)| p == w) {
            out.push((w.to_string(), is_executable(Path::new(w))));
        }
    }
    out
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

/// Whether a settings value's hooks hold a toolcap command for `agent`.
fn hook_commands(v: &Value, agent: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(events) = v["hooks"].as_object() {
        for groups in events.values() {
            for g in groups.as_array().into_iter().flatten() {
                for h in g["hooks"].as_array().into_iter().flatten() {
                    if let Some(c) = h["command"].as_str()
                        && c.contains("toolcap")
                        && c.contains(&format!(" hook {agent}"))
                    {
                        out.push(c.to_string());
                    }
                }
            }
        }
    }
    out
}

fn claude_code(home: &Path, project: &Path) -> AgentState {
    let mut s = AgentState {
        agent: "claude-code",
        installed_in: Vec::new(),
        active: None,
        note: None,
        programs: Vec::new(),
    };
    let files = [
        home.join(".claude/settings.json"),
        project.join(".claude/settings.json"),
        project.join(".claude/settings.local.json"),
    ];
    let mut prefix_ok = false;
    let mut prefix_seen = false;
    for f in files {
        let Some(v) = read_json(&f) else { continue };
        let hooks = hook_commands(&v, "claude-code");
        let prefix = v["env"]["CLAUDE_CODE_SHELL_PREFIX"].as_str();
        if hooks.is_empty() && prefix.is_none_or(|p| !p.contains("toolcap")) {
            continue;
        }
        s.installed_in.push(f.clone());
        for h in &hooks {
            s.programs.extend(programs_in(h));
        }
        if let Some(p) = prefix {
            match read_text(Path::new(p)) {
                Ok(script) if is_executable(Path::new(p)) && script.contains(MARK) => {
                    prefix_ok = true;
                    s.programs.extend(programs_in(&script));
                }
                _ => {
                    s.note = Some(format!(
                        "the shell prefix {p} is missing: run `toolcap install claude-code` again"
                    ));
                }
            }
        }
        prefix_seen |= prefix.is_some();
    }
    // (a project's prefix is in settings.local.json, its hooks in settings.json)
    if !s.installed_in.is_empty() && !prefix_seen {
        s.note = Some("installed by an older toolcap (no shell prefix): run `toolcap install claude-code` again".into());
    }
    s.programs.dedup();
    if !s.installed_in.is_empty() {
        s.active = Some(prefix_ok && s.programs.iter().all(|(_, ok)| *ok));
    }
    s
}

fn codex(home: &Path, project: &Path) -> AgentState {
    let mut s = AgentState {
        agent: "codex",
        installed_in: Vec::new(),
        active: None,
        note: None,
        programs: Vec::new(),
    };
    let codex_home = std::env::var_os("CODEX_HOME")
        .filter(|v| !v.is_empty())
        .map_or_else(|| home.join(".codex"), PathBuf::from);
    let user_config = read_text(&codex_home.join("config.toml")).unwrap_or_default();
    let mut untrusted = 0;
    let mut stale = 0;
    for f in [
        codex_home.join("hooks.json"),
        project.join(".codex/hooks.json"),
    ] {
        let Some(v) = read_json(&f) else { continue };
        let hooks = hook_commands(&v, "codex");
        if hooks.is_empty() {
            continue;
        }
        for h in &hooks {
            s.programs.extend(programs_in(h));
        }
        // Codex keeps a hook's trust in the user config.toml:
        // [hooks.state."<hooks.json>:<event>:<group>:<hook>"] trusted_hash = "sha256:..."
        let key = format!("[hooks.state.\"{}:", f.display());
        if !user_config.contains(&key) {
            untrusted += 1;
        } else {
            // trusted once: at the hash Codex expects now? (a hook changed by
            // an upgrade or a reinstall is skipped until trusted again)
            let ours = |c: &str| hooks.iter().any(|h| h == c);
            stale += codex_trust::stale(&f, &ours, &user_config, project).map_or(0, |k| k.len());
        }
        s.installed_in.push(f);
    }
    s.programs.dedup();
    if !s.installed_in.is_empty() {
        s.active = Some(untrusted + stale == 0 && s.programs.iter().all(|(_, ok)| *ok));
        if stale > 0 {
            s.note = Some(format!(
                "{stale} of toolcap's Codex hooks changed since you trusted them, and Codex skips them until trusted again: run `toolcap install codex --trust`, or choose \"Trust all and continue\" in `codex` (/hooks)"
            ));
        } else if untrusted > 0 {
            s.note = Some(CODEX_TRUST_STEP.to_string());
        }
    }
    s
}

fn gemini_cli(home: &Path, project: &Path) -> AgentState {
    hook_agent(
        "gemini-cli",
        &[
            home.join(".gemini/settings.json"),
            project.join(".gemini/settings.json"),
        ],
        "shell commands are capped in sessions that approve every call (--yolo) and whose settings and policies name no shell rule; elsewhere they run untouched (docs/agents.md)",
    )
}

/// An agent whose settings `files` hold toolcap's hook commands (`toolcap hook
/// AGENT`): where they are, the programs they run, and `note` once installed.
fn hook_agent(agent: &'static str, files: &[PathBuf], note: &str) -> AgentState {
    let mut s = AgentState {
        agent,
        installed_in: Vec::new(),
        active: None,
        note: None,
        programs: Vec::new(),
    };
    for f in files {
        let Some(v) = read_json(f) else { continue };
        let hooks = hook_commands(&v, agent);
        if hooks.is_empty() {
            continue;
        }
        for h in &hooks {
            s.programs.extend(programs_in(h));
        }
        s.installed_in.push(f.clone());
    }
    s.programs.dedup();
    if !s.installed_in.is_empty() {
        s.active = Some(s.programs.iter().all(|(_, ok)| *ok));
        s.note = Some(note.to_string());
    }
    s
}

fn opencode(home: &Path, project: &Path) -> AgentState {
    let config_dir = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map_or_else(|| home.join(".config"), PathBuf::from)
        .join("opencode");
    plugin_agent(
        "opencode",
        &[
            config_dir.join("opencode.json"),
            project.join("opencode.json"),
        ],
    )
}

/// An agent that runs toolcap through opencode's plugin (opencode, Kilo): the
/// config `files` whose `plugin` list names toolcap's plugin file.
fn plugin_agent(agent: &'static str, files: &[PathBuf]) -> AgentState {
    let mut s = AgentState {
        agent,
        installed_in: Vec::new(),
        active: None,
        note: None,
        programs: Vec::new(),
    };
    let mut plugin_ok = true;
    for f in files {
        let Some(v) = read_json(f) else { continue };
        let plugins: Vec<String> = v["plugin"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|p| p.contains("toolcap"))
            .map(str::to_string)
            .collect();
        if plugins.is_empty() {
            continue;
        }
        for p in &plugins {
            let path = p.strip_prefix("file://").unwrap_or(p);
            match read_text(Path::new(path)) {
                Ok(ts) => {
                    for line in ts.lines().filter(|l| l.contains("TOOLCAP_BIN ??")) {
                        s.programs.extend(programs_in(&line.replace('"', " ")));
                    }
                }
                Err(_) => {
                    plugin_ok = false;
                    s.note = Some(format!(
                        "the plugin {path} is missing: run `toolcap install {agent}` again"
                    ));
                }
            }
        }
        s.installed_in.push(f.clone());
    }
    s.programs.dedup();
    if !s.installed_in.is_empty() {
        s.active = Some(plugin_ok && s.programs.iter().all(|(_, ok)| *ok));
    }
    s
}

/// Whether toolcap could write the store: the store file writable when it
/// exists, else its nearest existing directory (toolcap makes the rest on
/// first use). Asked of the system (access(2)); nothing is made.
fn store_writable(store: &Path) -> Result<(), String> {
    if store.exists() {
        return can_write(store);
    }
    let mut dir = store.parent().ok_or("the store has no directory")?;
    while !dir.exists() {
        dir = dir
            .parent()
            .ok_or("no existing directory above the store")?;
    }
    if !dir.is_dir() {
        return Err(format!("{}: not a directory", dir.display()));
    }
    can_write(dir)
}

fn can_write(p: &Path) -> Result<(), String> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(p.as_os_str().as_bytes())
            .map_err(|_| format!("{}: a NUL in the path", p.display()))?;
        // SAFETY: `c` is a valid NUL-terminated path for the call's duration.
        if unsafe { libc::access(c.as_ptr(), libc::W_OK) } != 0 {
            return Err(format!(
                "{}: {}",
                p.display(),
                std::io::Error::last_os_error()
            ));
        }
        // root passes access(2) on anything: a place nobody may write (a
        // 0555 directory such as /proc) is taken as not writable
        use std::os::unix::fs::PermissionsExt;
        match std::fs::metadata(p) {
            Ok(m) if m.permissions().mode() & 0o222 == 0 => Err(format!(
                "{}: no write permission (mode {:04o})",
                p.display(),
                m.permissions().mode() & 0o7777
            )),
            Ok(_) => Ok(()),
            Err(e) => Err(format!("{}: {e}", p.display())),
        }
    }
    #[cfg(not(unix))]
    {
        match std::fs::metadata(p) {
            Ok(m) if !m.permissions().readonly() => Ok(()),
            Ok(_) => Err(format!("{}: read-only", p.display())),
            Err(e) => Err(format!("{}: {e}", p.display())),
        }
    }
}

/// The newest cut result in the store, if it exists and can be read.
fn last_cut(store: &Path) -> Option<Value> {
    if !store.exists() {
        return None;
    }
    let results = super::stored::try_open_store(store.as_os_str()).ok()?;
    let newest = results
        .list(None)
        .ok()?
        .into_iter()
        .filter(|m| m.truncated)
        .max_by_key(|m| m.created_at_ms)?;
    Some(json!({
        "tool_call_id": newest.tool_call_id,
        "tool_name": newest.tool_name,
        "chars": newest.size.chars,
        "created_at": newest.created_at(),
    }))
}
