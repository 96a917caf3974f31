//! `toolcap install AGENT`: merges into the agent's real config files, a second
//! run changes nothing, the user's other settings stay, `--uninstall` takes out
//! only toolcap's entries, `--dry-run` writes nothing, a bad file stops everything.

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use serde_json::{Value, json};

fn toolcap(home: &Path, args: &[&str]) -> std::process::Output {
    Command::cargo_bin("toolcap")
        .expect("binary builds")
        .env("HOME", home)
        .env_remove("CODEX_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .arg("install")
        .args(args)
        .args(["--toolcap", "/opt/toolcap/bin/toolcap"])
        .output()
        .expect("toolcap runs")
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).expect("read")).expect("JSON")
}

fn ok(out: &std::process::Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn claude_code_project_install_is_idempotent_and_keeps_other_settings() {
    let tmp = tempfile::tempdir().expect("tmp");
    let proj = tmp.path().join("p");
    std::fs::create_dir_all(proj.join(".claude")).expect("dirs");
    let settings = proj.join(".claude/settings.json");
    let user = json!({
        "model": "opus",
        "permissions": {"allow": ["Bash(npm test:*)"]},
        "hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "echo hi"}]}]}
    });
    std::fs::write(&settings, user.to_string()).expect("write");
    let p = proj.to_str().expect("utf-8 path");
    // dry run: a diff, nothing written
    let dry = ok(&toolcap(
        tmp.path(),
        &["claude-code", "--project", p, "--dry-run"],
    ));
    // the user's one-line file gets its new members on that line
    assert!(dry.contains("\"command\":\"[ -x /opt/toolcap/bin/toolcap ] || exit 0; exec /opt/toolcap/bin/toolcap hook claude-code --mcp-prefix mcp__toolcap__\""), "{dry}");
    // the prefix names a script on this machine: in settings.local.json, the
    // file a team does not commit
    assert!(
        dry.contains("settings.local.json") && dry.contains("\"CLAUDE_CODE_SHELL_PREFIX\":"),
        "{dry}"
    );
    assert_eq!(read_json(&settings), user);
    assert!(!proj.join(".mcp.json").exists());

    ok(&toolcap(tmp.path(), &["claude-code", "--project", p]));
    let v = read_json(&settings);
    assert_eq!(v["model"], "opus");
    assert_eq!(v["permissions"], user["permissions"]);
    assert_eq!(v["hooks"]["PreToolUse"][0], user["hooks"]["PreToolUse"][0]);
    assert_eq!(v["hooks"]["PreToolUse"][1]["matcher"], "Bash");
    assert_eq!(v["hooks"]["PostToolUse"][0]["matcher"], "mcp__.*|Read|Grep");
    // Bash goes through toolcap as Claude Code's shell prefix: a script in the
    // state dir (not the project) that calls toolcap when it is there
    assert_eq!(v["env"], Value::Null, "no env in the shared settings.json");
    let local = read_json(&proj.join(".claude/settings.local.json"));
    let prefix = PathBuf::from(
        local["env"]["CLAUDE_CODE_SHELL_PREFIX"]
            .as_str()
            .expect("the shell prefix is set"),
    );
    assert!(prefix.starts_with(tmp.path().join(".local/state/toolcap/agents")));
    let script = std::fs::read_to_string(&prefix).expect("the prefix script");
    assert!(script.contains("t=/opt/toolcap/bin/toolcap\n"), "{script}");
    assert!(script.contains("exec bash -c \"$1\""), "{script}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&prefix)
            .expect("stat")
            .permissions()
            .mode();
        assert_eq!(mode & 0o111, 0o111, "the prefix script is executable");
    }
    assert_eq!(v["enabledMcpjsonServers"], json!(["toolcap"]));
    let mcp = read_json(&proj.join(".mcp.json"));
    assert_eq!(
        mcp["mcpServers"]["toolcap"],
        json!({"type": "stdio", "command": "/opt/toolcap/bin/toolcap", "args": ["mcp"]})
    );
    // the backup is the file as it was, outside the project
    assert!(!proj.join(".claude/settings.json.toolcap-backup").exists());
    let backup = backup_of(tmp.path(), ".claude-", "settings.json");
    assert_eq!(read_json(&backup), user);

    let before = std::fs::read(&settings).expect("read");
    let again = ok(&toolcap(tmp.path(), &["claude-code", "--project", p]));
    assert!(again.contains("nothing to change"), "{again}");
    assert_eq!(std::fs::read(&settings).expect("read"), before);

    ok(&toolcap(
        tmp.path(),
        &["claude-code", "--project", p, "--uninstall"],
    ));
    // byte for byte (the user's compact one-line JSON), and the file toolcap
    // created is gone, as is the prefix script
    assert_eq!(
        std::fs::read_to_string(&settings).expect("read"),
        user.to_string()
    );
    assert!(!proj.join(".mcp.json").exists());
    assert!(!proj.join(".claude/settings.local.json").exists());
    assert!(!prefix.exists());
}

/// The one backup of `name` (its directory named `dir_name`) under toolcap's state dir in `home`.
fn backup_of(home: &Path, dir_name: &str, name: &str) -> PathBuf {
    let dir = home.join(".local/state/toolcap/backups");
    let found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the backups dir")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(dir_name))
        .map(|e| e.path().join(name))
        .filter(|p| p.exists())
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    found[0].clone()
}

/// The first backup is the user's own file: a second install after the user
/// changed the file keeps it, and an uninstall with nothing else changed gives
/// every agent's files back byte for byte.
#[test]
fn backups_keep_the_users_first_file_and_uninstall_is_byte_exact() {
    let tmp = tempfile::tempdir().expect("tmp");
    let home = tmp.path();
    let proj = home.join("p");
    std::fs::create_dir_all(proj.join(".claude")).expect("dirs");
    std::fs::create_dir_all(proj.join(".gemini")).expect("dirs");
    let compact = [
        (proj.join(".claude/settings.json"), "{\"model\":\"opus\"}"),
        (
            proj.join(".gemini/settings.json"),
            "{\n    \"a\": [1,2]\n}\n",
        ),
        (proj.join("opencode.json"), "{\"theme\":\"x\"}\n"),
    ];
    for (p, t) in &compact {
        std::fs::write(p, t).expect("write");
    }
    let p = proj.to_str().expect("utf-8");
    for agent in ["claude-code", "gemini-cli", "opencode", "codex"] {
        ok(&toolcap(home, &[agent, "--project", p]));
    }
    // the user edits a file while toolcap is in; a second install keeps the first backup
    let first = std::fs::read_to_string(backup_of(home, ".claude-", "settings.json")).ok();
    ok(&toolcap(home, &["claude-code", "--project", p]));
    assert!(first.is_some());
    for agent in ["claude-code", "gemini-cli", "opencode", "codex"] {
        ok(&toolcap(home, &[agent, "--project", p, "--uninstall"]));
    }
    for (p, t) in &compact {
        assert_eq!(
            &std::fs::read_to_string(p).expect("read"),
            t,
            "{}",
            p.display()
        );
    }
    for gone in [".mcp.json", ".codex", "AGENTS.md", ".opencode"] {
        assert!(!proj.join(gone).exists(), "{gone} is left");
    }
}

#[test]
fn a_bad_config_file_stops_everything_and_is_named() {
    let tmp = tempfile::tempdir().expect("tmp");
    let proj = tmp.path().join("p");
    std::fs::create_dir_all(proj.join(".claude")).expect("dirs");
    let settings = proj.join(".claude/settings.json");
    std::fs::write(&settings, "{\"model\": \"opus\",}").expect("write");
    let out = toolcap(
        tmp.path(),
        &["claude-code", "--project", proj.to_str().expect("utf-8")],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&settings.display().to_string()) && err.contains("not valid JSON"),
        "{err}"
    );
    assert!(err.contains("nothing was written"));
    assert!(!proj.join(".mcp.json").exists());
    assert_eq!(
        std::fs::read_to_string(&settings).expect("read"),
        "{\"model\": \"opus\",}"
    );
}

#[test]
fn user_scope_for_each_agent_round_trips() {
    let tmp = tempfile::tempdir().expect("tmp");
    let home = tmp.path();
    let codex_cfg = home.join(".codex/config.toml");
    std::fs::create_dir_all(codex_cfg.parent().expect("dir")).expect("dirs");
    let toml_text = "# my codex\nmodel = \"o4\"\n\n[features]\nweb_search = true\n";
    std::fs::write(&codex_cfg, toml_text).expect("write");
    let gemini = home.join(".gemini/settings.json");
    std::fs::create_dir_all(gemini.parent().expect("dir")).expect("dirs");
    let gem_user = json!({"security": {"auth": {"selectedType": "gemini-api-key"}}});
    std::fs::write(&gemini, gem_user.to_string()).expect("write");
    for agent in ["claude-code", "gemini-cli", "codex", "opencode"] {
        ok(&toolcap(home, &[agent]));
        let again = ok(&toolcap(home, &[agent]));
        assert!(again.contains("nothing to change"), "{agent}: {again}");
    }
    // Claude Code: user settings and ~/.claude.json
    let cc = read_json(&home.join(".claude/settings.json"));
    assert_eq!(cc["hooks"]["PreToolUse"][0]["matcher"], "Bash");
    assert_eq!(
        read_json(&home.join(".claude.json"))["mcpServers"]["toolcap"]["args"],
        json!(["mcp"])
    );
    // Gemini CLI: the hook beside the user's auth
    let g = read_json(&gemini);
    assert_eq!(g["security"], gem_user["security"]);
    assert_eq!(g["hooks"]["BeforeTool"][0]["matcher"], "run_shell_command");
    assert_eq!(
        g["hooks"]["BeforeTool"][0]["hooks"][0]["command"],
        "[ -x /opt/toolcap/bin/toolcap ] || exit 0; exec /opt/toolcap/bin/toolcap hook gemini-cli"
    );
    // Codex: hooks.json, config.toml keeps the user's lines, AGENTS.md
    let cfg = std::fs::read_to_string(&codex_cfg).expect("read");
    assert!(cfg.starts_with("# my codex\nmodel = \"o4\"\n"), "{cfg}");
    let t: toml::Table = toml::from_str(&cfg).expect("TOML");
    assert_eq!(t["features"]["hooks"].as_bool(), Some(true));
    assert_eq!(t["features"]["web_search"].as_bool(), Some(true));
    assert_eq!(
        t["mcp_servers"]["toolcap"]["command"].as_str(),
        Some("/opt/toolcap/bin/toolcap")
    );
    assert_eq!(
        read_json(&home.join(".codex/hooks.json"))["hooks"]["PreToolUse"][0]["matcher"],
        "Bash"
    );
    assert!(
        std::fs::read_to_string(home.join(".codex/AGENTS.md"))
            .expect("read")
            .contains("toolcap run -- bash -c")
    );
    // opencode: the plugin with the program filled in (in toolcap's state dir,
    // named in opencode.json), the MCP server
    let plugin: PathBuf = home.join(".local/state/toolcap/agents/opencode-plugin-user.ts");
    let ts = std::fs::read_to_string(&plugin).expect("plugin");
    assert!(ts.contains("process.env.TOOLCAP_BIN ?? \"/opt/toolcap/bin/toolcap\""));
    let oc = read_json(&home.join(".config/opencode/opencode.json"));
    assert_eq!(
        oc["mcp"]["toolcap"]["command"],
        json!(["/opt/toolcap/bin/toolcap", "mcp"])
    );
    assert_eq!(
        oc["plugin"],
        json!([format!("file://{}", plugin.display())])
    );
    assert!(!home.join(".config/opencode/plugin").exists());
    // uninstall: back to the user's own
    for agent in ["claude-code", "gemini-cli", "codex", "opencode"] {
        ok(&toolcap(home, &[agent, "--uninstall"]));
    }
    assert_eq!(
        std::fs::read_to_string(&codex_cfg).expect("read"),
        toml_text
    );
    assert_eq!(read_json(&gemini), gem_user);
    assert!(!plugin.exists());
    assert!(!home.join(".codex/AGENTS.md").exists());
}

/// Gemini CLI reads its settings with comments: toolcap keeps them, and takes
/// only its own entries out again.
#[test]
fn jsonc_settings_keep_their_comments() {
    let tmp = tempfile::tempdir().expect("tmp");
    let home = tmp.path();
    let gemini = home.join(".gemini/settings.json");
    std::fs::create_dir_all(gemini.parent().expect("dir")).expect("dirs");
    let text = "{\n  // how I log in\n  \"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}},\n  /* the look */\n  \"ui\": {\"theme\": \"GitHub\"}\n}\n";
    std::fs::write(&gemini, text).expect("write");
    ok(&toolcap(home, &["gemini-cli"]));
    let with = std::fs::read_to_string(&gemini).expect("read");
    assert!(
        with.starts_with("{\n  // how I log in\n  \"security\""),
        "{with}"
    );
    assert!(with.contains("/* the look */"), "{with}");
    assert!(with.contains("hook gemini-cli"), "{with}");
    ok(&toolcap(home, &["gemini-cli", "--uninstall"]));
    assert_eq!(std::fs::read_to_string(&gemini).expect("read"), text);
}
