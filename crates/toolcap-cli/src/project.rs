//! Where the CLI's results go and how it names itself: the per-project result
//! store (`toolcap run`, the hooks and `toolcap mcp` share it), generated tool
//! call ids, and the recovery suggestions that call `toolcap` back through the
//! agent's shell.

use std::path::{Path, PathBuf};

use toolcap_config::Config;
use toolcap_config::RecoveryCalls;
use toolcap_config::presets::{self, TOOLCAP_CLI};

use super::common::{Failure, usage};

/// Suggestions for `toolcap run`: the [`TOOLCAP_CLI`] preset unless the user's
/// config names another, the shell tool named `tool`, and `toolcap continue`
/// called as this process's shell finds it, with `--store` / `--config` when they
/// were given here (and would not be found the same way by `toolcap continue`).
pub fn use_cli_recovery(
    config: &mut Config,
    tool: &str,
    store: Option<&Path>,
    config_flag: Option<&Path>,
) {
    let user_preset = !matches!(
        config.sources.get("suggest.preset"),
        None | Some(toolcap_config::Source::Default)
    );
    if !user_preset && let Some(p) = presets::preset(TOOLCAP_CLI) {
        config.suggest = p.suggest(TOOLCAP_CLI);
    }
    if config.suggest.preset != TOOLCAP_CLI {
        return;
    }
    if tool != "shell" {
        config.suggest.shell.tool = tool.to_string();
        // the argument holding the command: Codex's exec_command takes `cmd`
        config.suggest.shell.command = match tool {
            "exec_command" => "cmd",
            _ => "command",
        }
        .to_string();
    }
    let mut options = Vec::new();
    if let Some(s) = store.and_then(|s| absolute(s).to_str().map(str::to_string))
        && let Some(w) = toolcap_text::quote::shell_word(&s)
    {
        options.push(format!("--store {w}"));
    }
    if let Some(p) = config_flag
        && let Some(w) = absolute(p)
            .to_str()
            .and_then(toolcap_text::quote::shell_word)
    {
        options.push(format!("--config {w}"));
    }
    config.suggest.recovery = RecoveryCalls::Cli {
        program: toolcap_program(),
        options: options.join(" "),
    };
}

fn absolute(p: &Path) -> PathBuf {
    let url = toolcap_stores::Location::parse(p).is_ok_and(|at| at.is_url());
    if p.is_absolute() || url {
        return p.to_path_buf();
    }
    std::env::current_dir().map_or_else(|_| p.to_path_buf(), |d| d.join(p))
}

/// `toolcap` when the shell's PATH finds this very program under that name,
/// else this program's absolute path (quoted for the shell).
pub fn toolcap_program() -> String {
    let me = super::common::this_program().ok();
    let me_real = me.as_ref().and_then(|p| p.canonicalize().ok());
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("toolcap"))
            .find(|p| p.is_file())
    });
    if let (Some(found), Some(me)) = (&on_path, &me_real)
        && found.canonicalize().ok().as_ref() == Some(me)
    {
        return "toolcap".to_string();
    }
    me.and_then(|p| p.to_str().and_then(toolcap_text::quote::shell_word))
        .unwrap_or_else(|| "toolcap".to_string())
}

/// A fresh id: `run-` and 12 hex digits from the time and the process id.
pub fn generated_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut x = nanos ^ (u64::from(std::process::id()) << 40);
    // splitmix64
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^= x >> 31;
    format!("run-{:012x}", x & 0xFFFF_FFFF_FFFF)
}

/// The project the current directory belongs to: the nearest directory upward
/// holding `.git` (a repository's top level or a worktree's), else the current
/// directory itself.
pub fn project_root() -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    let cwd = cwd.canonicalize().unwrap_or(cwd);
    let root = cwd
        .ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(&cwd)
        .to_path_buf();
    Some(root)
}

/// The store of the current project: `<state dir>/toolcap/<name>-<hash>/results.db`,
/// the state dir being `$XDG_STATE_HOME` (when absolute), else
/// `~/.local/state` (`%LOCALAPPDATA%` on Windows). Never inside the project.
pub fn project_store_for(root: &Path) -> Option<PathBuf> {
    Some(state_dir()?.join(project_key(root)).join("results.db"))
}

/// toolcap's directory in the state dir: `$XDG_STATE_HOME/toolcap` (when
/// absolute), else `~/.local/state/toolcap` (`%LOCALAPPDATA%\toolcap` on Windows).
pub fn state_dir() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = if cfg!(windows) {
        env("LOCALAPPDATA")
    } else {
        env("XDG_STATE_HOME")
            .filter(|p| p.is_absolute())
            .or_else(|| env("HOME").map(|h| h.join(".local").join("state")))
    }?;
    Some(base.join("toolcap"))
}

/// `name-0123456789abcdef`: the root's last component (letters, digits, `._-`
/// kept, the rest as `_`) and an FNV-1a hash of its whole path, so that two
/// projects of the same name get two stores and the same project always the
/// same one.
pub fn project_key(root: &Path) -> String {
    let name: String = root
        .file_name()
        .map_or_else(|| "root".to_string(), |n| n.to_string_lossy().into_owned())
        .chars()
        .take(40)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in root.as_os_str().as_encoded_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{name}-{h:016x}")
}

/// The current project's store path (see [`project_store_for`]).
pub fn project_store_path() -> Result<PathBuf, Failure> {
    project_root()
        .and_then(|r| project_store_for(&r))
        .ok_or_else(|| {
            usage("no home directory to put the result store in; pass --store PATH or set TOOLCAP_STORE")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_keys_are_stable_and_tell_projects_apart() {
        let a = project_key(Path::new("/home/ana/src/app"));
        assert_eq!(a, project_key(Path::new("/home/ana/src/app")));
        assert!(a.starts_with("app-") && a.len() == "app-".len() + 16, "{a}");
        assert_ne!(a, project_key(Path::new("/home/ana/work/app")));
        assert!(project_key(Path::new("/x/my app")).starts_with("my_app-"));
    }
}
