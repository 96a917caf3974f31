//! How `toolcap install` and `toolcap doctor` treat the agents' config files on
//! the real file system (issue 44): a file's mode and owner kept, read-only
//! and other users' files refused, backups private (checked as a second local
//! user, `nobody`, when the tests run as root), symlinks written through,
//! comments inside the members toolcap edits kept for all eight agents, only
//! what toolcap wrote taken out, members of another type refused, concurrent
//! runs serialised, line ends, BOM, trailing commas and empty members kept, a
//! failed write leaving no file changed; doctor opening no FIFO, creating
//! nothing and naming an invalid file.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_toolcap");

/// `toolcap install ARGS` with HOME = `home` and nothing else of the caller's.
fn install(home: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .env("HOME", home)
        .env_remove("CODEX_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("COPILOT_HOME")
        .env_remove("PI_CODING_AGENT_DIR")
        .arg("install")
        .args(args)
        .args(["--toolcap", "/opt/toolcap/bin/toolcap"])
        .output()
        .expect("toolcap runs")
}

fn ok(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The exit-2 refusal's message.
fn refused(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}{err}",
        String::from_utf8_lossy(&out.stdout)
    );
    err
}

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().expect("dir")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).expect("read")
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).expect("stat").permissions().mode() & 0o7777
}

fn chmod(p: &Path, m: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).expect("chmod");
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// nobody's uid and gid.
fn nobody() -> (u32, u32) {
    let id = |flag: &str| {
        let out = Command::new("id")
            .args([flag, "nobody"])
            .output()
            .expect("id");
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse::<u32>()
            .expect("a number")
    };
    (id("-u"), id("-g"))
}

/// `toolcap install ARGS` run as the second local user `nobody`.
fn install_as_nobody(home: &Path, args: &[&str]) -> Output {
    Command::new("runuser")
        .args(["-u", "nobody", "--", "env", "-u", "CODEX_HOME", "-u"])
        .args(["XDG_CONFIG_HOME", "-u", "XDG_STATE_HOME"])
        .arg(format!("HOME={}", home.display()))
        .arg(BIN)
        .arg("install")
        .args(args)
        .args(["--toolcap", "/opt/toolcap/bin/toolcap"])
        .output()
        .expect("runuser runs")
}

/// Whether `nobody` can read `p`.
fn nobody_reads(p: &Path) -> bool {
    Command::new("runuser")
        .args(["-u", "nobody", "--", "cat"])
        .arg(p)
        .output()
        .expect("runuser runs")
        .status
        .success()
}

/// A home other users may enter (as a real one is), in a fresh temp dir.
fn open_home() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("tmp");
    chmod(tmp.path(), 0o755);
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).expect("mkdir");
    chmod(&home, 0o755);
    (tmp, home)
}

/// Item 3: `~/.claude.json` (OAuth account, project history) is 0600 and
/// stays 0600 through install and uninstall; the backup of it is 0600 in 0700
/// directories, so another local user reads neither.
#[test]
fn a_configs_mode_stays_and_backups_are_private() {
    let (_tmp, home) = open_home();
    let claude_json = home.join(".claude.json");
    let user =
        "{\n  \"numStartups\": 3,\n  \"oauthAccount\": {\"emailAddress\": \"me@example.com\"}\n}\n";
    write(&claude_json, user);
    chmod(&claude_json, 0o600);
    let settings = home.join(".claude/settings.json");
    write(&settings, "{\"model\": \"opus\"}\n");
    chmod(&settings, 0o640);
    ok(&install(&home, &["claude-code"]));
    assert!(read(&claude_json).contains("\"toolcap\""));
    assert_eq!(mode(&claude_json), 0o600, "~/.claude.json stays 0600");
    assert_eq!(mode(&settings), 0o640, "settings.json keeps its mode");
    let backups = home.join(".local/state/toolcap/backups");
    assert_eq!(mode(&backups), 0o700);
    let saved = files_under(&backups);
    assert_eq!(saved.len(), 2, "{saved:?}");
    for b in &saved {
        assert_eq!(mode(b), 0o600, "{}", b.display());
        assert_eq!(mode(b.parent().expect("dir")), 0o700, "{}", b.display());
    }
    if is_root() {
        for b in &saved {
            assert!(!nobody_reads(b), "another user reads {}", b.display());
        }
        assert!(!nobody_reads(&claude_json));
    }
    ok(&install(&home, &["claude-code", "--uninstall"]));
    assert_eq!(read(&claude_json), user);
    assert_eq!(mode(&claude_json), 0o600, "and after uninstall");
    assert_eq!(mode(&settings), 0o640);
}

/// Item 3: a config the user made read-only is refused (exit 2, the file and
/// the fix named) and nothing at all is written, the other files included.
#[test]
fn a_read_only_config_is_refused_and_nothing_written() {
    let (_tmp, home) = open_home();
    let settings = home.join(".claude/settings.json");
    let user = "{\"model\": \"opus\"}\n";
    write(&settings, user);
    chmod(&settings, 0o444);
    let err = refused(&install(&home, &["claude-code"]));
    assert!(
        err.contains(&settings.display().to_string())
            && err.contains("read-only")
            && err.contains("chmod u+w"),
        "{err}"
    );
    assert_eq!(read(&settings), user);
    assert_eq!(mode(&settings), 0o444);
    assert!(!home.join(".claude.json").exists());
    assert!(!home.join(".local/state/toolcap/agents").exists());
}

/// Item 3, as a second local user: a config in nobody's home that nobody may
/// not write (root's, 0644) is refused, not replaced through the directory.
#[test]
fn a_config_this_user_may_not_write_is_refused() {
    if !is_root() {
        eprintln!("skipped: needs root to run toolcap as a second user");
        return;
    }
    let (uid, gid) = nobody();
    let (_tmp, home) = open_home();
    let settings = home.join(".gemini/settings.json");
    let user = "{\"ui\": {\"theme\": \"GitHub\"}}\n";
    write(&settings, user);
    for d in [home.clone(), home.join(".gemini")] {
        std::os::unix::fs::chown(&d, Some(uid), Some(gid)).expect("chown");
    }
    let err = refused(&install_as_nobody(&home, &["gemini-cli"]));
    assert!(
        err.contains(&settings.display().to_string()) && err.contains("may not write"),
        "{err}"
    );
    assert_eq!(read(&settings), user);
    assert_eq!(std::fs::metadata(&settings).expect("stat").uid(), 0);
}

/// Item 14: a write that fails half-way changes no file: Claude Code's prefix
/// script is not left behind when its settings cannot be written (a
/// `.claude/` directory nobody may not write into).
#[test]
fn a_failed_write_leaves_every_file_as_it_was() {
    if !is_root() {
        eprintln!("skipped: needs root to run toolcap as a second user");
        return;
    }
    let (uid, gid) = nobody();
    let (_tmp, home) = open_home();
    std::os::unix::fs::chown(&home, Some(uid), Some(gid)).expect("chown");
    // root's directory, where nobody cannot create settings.json
    std::fs::create_dir_all(home.join(".claude")).expect("mkdir");
    let out = install_as_nobody(&home, &["claude-code"]);
    assert_ne!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("settings.json"), "{err}");
    let state = home.join(".local/state/toolcap/agents");
    assert!(
        files_under(&state).is_empty(),
        "left behind: {:?}",
        files_under(&state)
    );
    assert!(!home.join(".claude.json").exists());
}

/// Item 6: a symlinked config (dotfiles) stays a link; toolcap writes the
/// file it points to, and uninstall gives that file back byte for byte.
#[test]
fn symlinked_configs_stay_links() {
    let tmp = tempfile::tempdir().expect("tmp");
    let home = tmp.path().join("home");
    let proj = tmp.path().join("p");
    let dotfiles = home.join("dotfiles/claude-settings.json");
    let settings_text = "{\n  \"model\": \"opus\"\n}\n";
    write(&dotfiles, settings_text);
    std::fs::create_dir_all(home.join(".claude")).expect("mkdir");
    let link = home.join(".claude/settings.json");
    std::os::unix::fs::symlink("../dotfiles/claude-settings.json", &link).expect("link");
    let claude_md = proj.join("CLAUDE.md");
    let rules = "# Rules\n\nRun `make check` before committing.\n";
    write(&claude_md, rules);
    let agents_md = proj.join("AGENTS.md");
    std::os::unix::fs::symlink("CLAUDE.md", &agents_md).expect("link");
    let p = proj.to_str().expect("utf-8");
    ok(&install(&home, &["claude-code"]));
    ok(&install(&home, &["codex", "--project", p]));
    for l in [&link, &agents_md] {
        let m = std::fs::symlink_metadata(l).expect("lstat");
        assert!(
            m.file_type().is_symlink(),
            "{} is no longer a link",
            l.display()
        );
    }
    assert!(read(&dotfiles).contains("hook claude-code"));
    assert!(read(&claude_md).contains("toolcap run -- bash -c"));
    ok(&install(&home, &["claude-code", "--uninstall"]));
    ok(&install(&home, &["codex", "--project", p, "--uninstall"]));
    assert!(
        std::fs::symlink_metadata(&link)
            .expect("lstat")
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::symlink_metadata(&agents_md)
            .expect("lstat")
            .file_type()
            .is_symlink()
    );
    assert_eq!(read(&dotfiles), settings_text);
    assert_eq!(read(&claude_md), rules);
}

/// Each agent's config, commented inside the members toolcap edits (Claude
/// Code's for the user, the others' in the project).
fn commented_configs(home: &Path, proj: &Path) -> Vec<(&'static str, PathBuf, &'static str)> {
    vec![
        (
            "claude-code",
            home.join(".claude/settings.json"),
            "{\n  // my lint hook\n  \"hooks\": {\n    \"PreToolUse\": [\n      // runs before every write\n      {\"matcher\": \"Write\", \"hooks\": [{\"type\": \"command\", \"command\": \"./lint.sh\"}]}\n    ]\n  },\n  \"env\": {\n    /* the proxy */ \"HTTPS_PROXY\": \"http://proxy:3128\"\n  }\n}\n",
        ),
        (
            "claude-code",
            home.join(".claude.json"),
            "{\n  \"mcpServers\": {\n    // the docs server\n    \"docs\": {\"command\": \"docs-mcp\"}\n  }\n}\n",
        ),
        (
            "gemini-cli",
            proj.join(".gemini/settings.json"),
            "{\n  \"hooks\": {\n    // audit every tool\n    \"BeforeTool\": [{\"matcher\": \".*\", \"hooks\": [{\"type\": \"command\", \"command\": \"audit\"}]}]\n  },\n  \"mcpServers\": {\n    // GitHub\n    \"gh\": {\"command\": \"gh-mcp\"}\n  }\n}\n",
        ),
        (
            "codex",
            proj.join(".codex/hooks.json"),
            "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      // block rm -rf\n      {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"guard\"}]}\n    ]\n  }\n}\n",
        ),
        (
            "codex",
            proj.join(".codex/config.toml"),
            "# my model\nmodel = \"o4\" # fast\n\n[features]\n# experiments\nweb_search = true # on\n",
        ),
        (
            "opencode",
            proj.join("opencode.json"),
            "{\n  \"plugin\": [\n    // formats on save\n    \"prettier-plugin\"\n  ],\n  \"mcp\": {\n    /* docs */ \"docs\": {\"type\": \"local\", \"command\": [\"docs-mcp\"]}\n  }\n}\n",
        ),
        (
            "pi",
            proj.join(".pi/settings.json"),
            "{\n  \"extensions\": [\n    // my status line\n    \"/home/me/pi/status.ts\"\n  ]\n}\n",
        ),
        (
            "copilot",
            proj.join(".github/copilot/settings.json"),
            "{\n  \"hooks\": {\n    \"postToolUse\": [\n      // log every result\n      {\"type\": \"command\", \"bash\": \"./log.sh\"}\n    ]\n  }\n}\n",
        ),
        (
            "qwen-code",
            proj.join(".qwen/settings.json"),
            "{\n  \"hooks\": {\n    \"PostToolUse\": [\n      // notify\n      {\"matcher\": \".*\", \"hooks\": [{\"type\": \"command\", \"command\": \"notify\"}]}\n    ]\n  },\n  \"mcpServers\": {\n    // search\n    \"s\": {\"command\": \"s-mcp\"}\n  }\n}\n",
        ),
        (
            "kilo",
            proj.join("kilo.jsonc"),
            "{\n  \"plugin\": [\n    // mine\n    \"my-plugin\"\n  ],\n  \"mcp\": {\n    // docs\n    \"docs\": {\"type\": \"local\", \"command\": [\"docs-mcp\"]}\n  }\n}\n",
        ),
    ]
}

/// The comments of a file: its `//`, `/* */` and `#` lines' comment parts.
fn comments(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| {
            ["//", "/*", "# "]
                .iter()
                .filter_map(|m| l.find(m))
                .min()
                .map(|i| &l[i..])
        })
        .collect()
}

/// Item 7: comments inside `hooks`, `env`, `mcpServers`, `plugin`,
/// `extensions` and Codex's `[features]` stay while toolcap is installed and
/// every file comes back byte for byte on uninstall, for all eight agents;
/// also after the user changed another member in between (no backup to fall
/// back on).
#[test]
fn comments_inside_rewritten_members_stay_for_all_eight_agents() {
    let tmp = tempfile::tempdir().expect("tmp");
    let home = tmp.path().join("home");
    let proj = tmp.path().join("p");
    let configs = commented_configs(&home, &proj);
    for (_, p, t) in &configs {
        write(p, t);
    }
    let dir = proj.to_str().expect("utf-8");
    let scope = |agent: &str| {
        if agent == "claude-code" {
            vec![]
        } else {
            vec!["--project", dir]
        }
    };
    let agents = [
        "claude-code",
        "gemini-cli",
        "codex",
        "opencode",
        "pi",
        "copilot",
        "qwen-code",
        "kilo",
    ];
    for agent in agents {
        ok(&install(&home, &[&[agent][..], &scope(agent)].concat()));
    }
    for (agent, p, t) in &configs {
        let now = read(p);
        assert_ne!(&now, t, "{agent}: {} has nothing of toolcap's", p.display());
        for c in comments(t) {
            assert!(
                now.contains(c),
                "{agent}: {} lost {c:?}:\n{now}",
                p.display()
            );
        }
    }
    for agent in agents {
        ok(&install(
            &home,
            &[&[agent][..], &scope(agent), &["--uninstall"]].concat(),
        ));
    }
    for (agent, p, t) in &configs {
        assert_eq!(&read(p), t, "{agent}: {}", p.display());
    }
    // again, the user adding a member of their own while toolcap is in: the
    // file then differs from the backup, and still only toolcap's go
    for agent in agents {
        ok(&install(&home, &[&[agent][..], &scope(agent)].concat()));
    }
    for (_, p, _) in &configs {
        if p.extension().is_some_and(|e| e == "toml") {
            continue;
        }
        let now = read(p);
        let at = now.rfind('}').expect("an object");
        let mut edited = now[..at].trim_end().trim_end_matches(',').to_string();
        edited.push_str(",\n  \"mine\": 1\n");
        edited.push_str(&now[at..]);
        std::fs::write(p, edited).expect("write");
    }
    for agent in agents {
        ok(&install(
            &home,
            &[&[agent][..], &scope(agent), &["--uninstall"]].concat(),
        ));
    }
    for (agent, p, t) in &configs {
        let now = read(p);
        for c in comments(t) {
            assert!(
                now.contains(c),
                "{agent}: {} lost {c:?}:\n{now}",
                p.display()
            );
        }
        assert!(!now.contains("toolcap"), "{agent}: {}:\n{now}", p.display());
    }
}

/// Item 8: toolcap's entries are what toolcap wrote, matched exactly: a
/// user's own wrapper whose name mentions toolcap, their own
/// `mcpServers.toolcap`, a shell prefix of theirs and text quoting toolcap's
/// marker stay through install and uninstall.
#[test]
fn only_what_toolcap_wrote_is_toolcaps() {
    let tmp = tempfile::tempdir().expect("tmp");
    let home = tmp.path().join("home");
    let proj = tmp.path().join("p");
    let settings = home.join(".claude/settings.json");
    let wrap = "/home/me/toolcap-wrap.sh hook claude-code";
    let settings_text = format!(
        "{{\n  \"hooks\": {{\n    \"PreToolUse\": [{{\"matcher\": \"Bash\", \"hooks\": [{{\"type\": \"command\", \"command\": \"{wrap}\"}}]}}]\n  }},\n  \"env\": {{\"CLAUDE_CODE_SHELL_PREFIX\": \"/home/me/toolcap-wrap.sh\"}}\n}}\n"
    );
    write(&settings, &settings_text);
    let claude_json = home.join(".claude.json");
    let own_server = "{\n  \"mcpServers\": {\n    \"toolcap\": {\"type\": \"stdio\", \"command\": \"/home/me/bin/toolcap-server\", \"args\": [\"--store\", \"/srv/results.db\"]}\n  }\n}\n";
    write(&claude_json, own_server);
    let agents_md = proj.join("AGENTS.md");
    let md = "# Notes\n\nOlder toolcap versions wrote `<!-- added by toolcap install -->` here.\n<!-- added by toolcap install -->\nThat line above is mine, quoted.\n";
    write(&agents_md, md);
    let codex_cfg = proj.join(".codex/config.toml");
    let toml_text = "# lines added by toolcap install are marked\nmodel = \"o4\"\n";
    write(&codex_cfg, toml_text);
    let out = ok(&install(&home, &["claude-code"]));
    assert!(
        out.contains("note: kept your own mcpServers.toolcap"),
        "{out}"
    );
    let v: serde_json::Value = serde_json::from_str(&read(&settings)).expect("JSON");
    assert_eq!(v["hooks"]["PreToolUse"][0]["hooks"][0]["command"], wrap);
    assert_eq!(
        v["env"]["CLAUDE_CODE_SHELL_PREFIX"],
        "/home/me/toolcap-wrap.sh"
    );
    assert_eq!(read(&claude_json), own_server);
    let dir = proj.to_str().expect("utf-8");
    ok(&install(&home, &["codex", "--project", dir]));
    let with = read(&agents_md);
    assert!(with.starts_with(md), "{with}");
    assert!(read(&codex_cfg).starts_with(toml_text));
    ok(&install(&home, &["claude-code", "--uninstall"]));
    ok(&install(&home, &["codex", "--project", dir, "--uninstall"]));
    assert_eq!(read(&settings), settings_text);
    assert_eq!(read(&claude_json), own_server);
    assert_eq!(read(&agents_md), md);
    assert_eq!(read(&codex_cfg), toml_text);
}

/// Item 9: a member toolcap writes into, of another type than the agent
/// reads, stops install with exit 2 naming it and what it should be, the file
/// untouched — never "changed" with nothing installed.
#[test]
fn a_member_of_another_type_is_refused_by_name() {
    let cases = [
        (
            "pi",
            ".pi/settings.json",
            "{\"extensions\": null}\n",
            "`extensions` is null; it should be a list",
        ),
        (
            "claude-code",
            "~/.claude/settings.json",
            "{\"hooks\": []}\n",
            "`hooks` is a list; it should be an object",
        ),
        (
            "claude-code",
            "~/.claude/settings.json",
            "{\"env\": \"x\"}\n",
            "`env` is a string; it should be an object",
        ),
        (
            "opencode",
            "opencode.json",
            "{\"plugin\": \"one.ts\"}\n",
            "`plugin` is a string; it should be a list",
        ),
        (
            "gemini-cli",
            ".gemini/settings.json",
            "{\"hooks\": {\"BeforeTool\": {}}}\n",
            "`hooks.BeforeTool` is an object; it should be a list",
        ),
    ];
    for (agent, file, text, says) in cases {
        let tmp = tempfile::tempdir().expect("tmp");
        let home = tmp.path().join("home");
        let proj = tmp.path().join("p");
        let dir = proj.to_str().expect("utf-8");
        let (path, args) = match file.strip_prefix("~/") {
            Some(f) => (home.join(f), vec![agent]),
            None => (proj.join(file), vec![agent, "--project", dir]),
        };
        write(&path, text);
        let err = refused(&install(&home, &args));
        assert!(
            err.contains(says) && err.contains(&path.display().to_string()),
            "{agent} {text}: {err}"
        );
        assert_eq!(read(&path), text);
        // (only the lock files of the run)
        let written: Vec<PathBuf> = files_under(&home)
            .into_iter()
            .filter(|p| p != &path && !p.starts_with(home.join(".local/state/toolcap/locks")))
            .collect();
        assert!(written.is_empty(), "{written:?}");
    }
}

/// Item 10: 120 runs at once on one home (installs and uninstalls of Claude
/// Code and Gemini CLI, which share the state dir) all succeed, leave no
/// temporary file, and never put toolcap's entries in the user's backup; the
/// last uninstall gives the user's files back byte for byte.
#[test]
fn concurrent_installs_lose_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    let home = tmp.path().join("home");
    let gemini = home.join(".gemini/settings.json");
    let gemini_text = "{\n  \"ui\": {\"theme\": \"GitHub\"}\n}\n";
    write(&gemini, gemini_text);
    let claude = home.join(".claude/settings.json");
    let claude_text = "{\"model\": \"opus\"}\n";
    write(&claude, claude_text);
    let spawn = |args: &[&str]| {
        Command::new(BIN)
            .env("HOME", &home)
            .env_remove("CODEX_HOME")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_STATE_HOME")
            .arg("install")
            .args(args)
            .args(["--toolcap", "/opt/toolcap/bin/toolcap"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn")
    };
    // all 120 started before any is waited for
    #[allow(clippy::needless_collect)]
    let children: Vec<_> = (0..120)
        .map(|i| {
            let agent = ["gemini-cli", "claude-code"][i % 2];
            if (i / 2) % 2 == 0 {
                spawn(&[agent])
            } else {
                spawn(&[agent, "--uninstall"])
            }
        })
        .collect();
    let failed: Vec<String> = children
        .into_iter()
        .map(|c| c.wait_with_output().expect("wait"))
        .filter(|o| !o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
        .collect();
    assert!(
        failed.is_empty(),
        "{} of 120 failed: {failed:?}",
        failed.len()
    );
    let leftovers: Vec<PathBuf> = files_under(&home)
        .into_iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().ends_with(".tmp"))
        })
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let backups = home.join(".local/state/toolcap/backups");
    for f in files_under(&backups) {
        assert!(
            !read(&f).contains("toolcap"),
            "{}: {}",
            f.display(),
            read(&f)
        );
    }
    for agent in ["gemini-cli", "claude-code"] {
        ok(&install(&home, &[agent, "--uninstall"]));
    }
    assert_eq!(read(&gemini), gemini_text);
    assert_eq!(read(&claude), claude_text);
}

/// Item 14: CRLF stays CRLF and a missing final newline stays missing (Codex's
/// config.toml, with `[features] # comment` and an inline `features`), a BOM
/// and kilo.jsonc's trailing commas are taken as the agents take them, and
/// members the user kept empty stay on uninstall.
#[test]
fn line_ends_bom_trailing_commas_and_empty_members_are_kept() {
    let tmp = tempfile::tempdir().expect("tmp");
    let home = tmp.path().join("home");
    let cfg = home.join(".codex/config.toml");
    for text in [
        "model = \"o4\"\r\n\r\n[features] # experiments\r\nweb_search = true\r\n",
        "model = \"o4\"\nfeatures = { web_search = true }",
        "[features]\nweb_search = true # no newline at the end",
    ] {
        write(&cfg, text);
        ok(&install(&home, &["codex"]));
        let on = read(&cfg);
        let t: toml::Table = toml::from_str(&on).expect("TOML");
        assert_eq!(t["features"]["hooks"].as_bool(), Some(true), "{on}");
        assert_eq!(t["features"]["web_search"].as_bool(), Some(true), "{on}");
        if text.contains('\r') {
            assert_eq!(
                on.matches('\n').count(),
                on.matches("\r\n").count(),
                "{on:?}"
            );
        }
        assert_eq!(on.ends_with('\n'), text.ends_with('\n'), "{on:?}");
        ok(&install(&home, &["codex", "--uninstall"]));
        assert_eq!(read(&cfg), text);
    }
    let proj = tmp.path().join("p");
    let dir = proj.to_str().expect("utf-8");
    let files = [
        (
            "kilo",
            proj.join("kilo.jsonc"),
            "{\n  \"$schema\": \"https://app.kilo.ai/config.json\",\n  \"plugin\": [\"mine\",],\n}\n",
        ),
        (
            "copilot",
            proj.join(".github/copilot/settings.json"),
            "\u{feff}{\r\n  \"model\": \"gpt-5\"\r\n}\r\n",
        ),
        (
            "gemini-cli",
            proj.join(".gemini/settings.json"),
            "{\n  \"hooks\": {},\n  \"mcpServers\": null,\n  \"ui\": {}\n}",
        ),
        (
            "qwen-code",
            proj.join(".qwen/settings.json"),
            "{\"hooks\": {\"PostToolUse\": []}, \"mcpServers\": {}}",
        ),
    ];
    for (agent, p, t) in &files {
        write(p, t);
        let out = install(&home, &[agent, "--project", dir]);
        if agent == &"gemini-cli" {
            // `mcpServers: null` is no object to add toolcap's server to
            let err = refused(&out);
            assert!(err.contains("`mcpServers` is null"), "{err}");
            ok(&install(&home, &[agent, "--project", dir, "--no-mcp"]));
        } else {
            ok(&out);
        }
        let on = read(p);
        assert!(on.contains("toolcap"), "{agent}: {on}");
        if t.starts_with('\u{feff}') {
            assert!(on.starts_with('\u{feff}'), "{on:?}");
            assert_eq!(
                on.matches('\n').count(),
                on.matches("\r\n").count(),
                "{on:?}"
            );
        }
        ok(&install(&home, &[agent, "--project", dir, "--uninstall"]));
        assert_eq!(&read(p), t, "{agent}");
        // with the backup gone too: the user's empty members stay
        let _ = std::fs::remove_dir_all(home.join(".local/state/toolcap/backups"));
    }
}

fn doctor(home: &Path, proj: &Path, args: &[&str]) -> Output {
    Command::new("timeout")
        .arg("20")
        .arg(BIN)
        .current_dir(proj)
        .env("HOME", home)
        .env_remove("XDG_STATE_HOME")
        .env_remove("CODEX_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("COPILOT_HOME")
        .env_remove("PI_CODING_AGENT_DIR")
        .arg("doctor")
        .args(args)
        .output()
        .expect("doctor runs")
}

/// Item 15: doctor never opens a FIFO (it would block), names an invalid
/// settings file as invalid instead of "not installed", and creates nothing
/// (no state directory, no probe file).
#[test]
fn doctor_opens_no_fifo_names_invalid_files_and_creates_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    let home = tmp.path().join("home");
    let proj = tmp.path().join("p");
    std::fs::create_dir_all(proj.join(".claude")).expect("mkdir");
    std::fs::create_dir_all(&home).expect("mkdir");
    let fifo = proj.join(".claude/settings.json");
    let c = std::ffi::CString::new(fifo.to_str().expect("utf-8")).expect("path");
    // SAFETY: `c` is a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let gemini = proj.join(".gemini/settings.json");
    write(&gemini, "{\"hooks\": {\"BeforeTool\": [\n");
    let before = files_under(tmp.path());
    let out = doctor(&home, &proj, &[]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!(
            "INVALID: {}: cannot read it: not a regular file (a FIFO)",
            fifo.display()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("INVALID: {}: not valid JSON", gemini.display())),
        "{text}"
    );
    assert!(!text.contains("gemini-cli: not installed"), "{text}");
    let out = doctor(&home, &proj, &["--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let gem = v["agents"]
        .as_array()
        .and_then(|a| a.iter().find(|x| x["agent"] == "gemini-cli"))
        .expect("gemini-cli");
    assert_eq!(gem["invalid"][0]["path"], gemini.display().to_string());
    assert_eq!(v["store"]["writable"], true);
    assert_eq!(files_under(tmp.path()), before, "doctor created files");
    assert!(!home.join(".local").exists(), "doctor made the state dir");
}
