//! Claude Code's shell prefix with the real agent (issue 44, items 1, 4, 5 and 13):
//! the same scripted Bash calls run without toolcap and after `toolcap install
//! claude-code --project DIR`, against the scripted model server of
//! tests/agents/server.rs.
//!
//! - Whatever is wrong with the toolcap program the prefix names (gone, an older
//!   toolcap without `shell-prefix`, a binary cut short), every command runs and
//!   reads as without toolcap: its output, its exit status, a signal death
//!   (`kill -TERM $$`, `kill -9 $$`) and `$0`.
//! - A project install puts nothing of this machine's into `.claude/settings.json`
//!   (a teammate's clone runs Bash); `toolcap doctor` exits 1 when the prefix is
//!   missing or cannot be run.
//! - The `PreToolUse` note is found by session and command: another session's
//!   denied call, or a blocked call of the same session, never lends its note to a
//!   later call (a background call stays uncaptured, a foreground one capped).
//! - A command too long for the prefix (Claude Code quotes it once more) is
//!   explained to the model.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::agents_e2e::agent::{self, Kind, Sandbox};
use crate::agents_e2e::server::{Call, Script, Server};

fn bash(command: &str) -> Call {
    Call {
        name: "Bash".into(),
        args: json!({"command": command, "description": "run it"}),
    }
}

fn background(command: &str) -> Call {
    Call {
        name: "Bash".into(),
        args: json!({"command": command, "description": "run it", "run_in_background": true}),
    }
}

fn calls_script(calls: Vec<Call>) -> Script {
    Arc::new(move |results: &[String]| calls.get(results.len()).cloned())
}

/// Claude Code run once in `sb` on `calls`: the tool results the model got, in
/// order, and the server (for the requests themselves).
fn claude(sb: &Sandbox, bin: &Path, calls: &[Call], extra: &[&str]) -> (Vec<String>, Server) {
    let server = Server::start(Kind::ClaudeCode.api(), calls_script(calls.to_vec()));
    let run = sb.run_agent(Kind::ClaudeCode, bin, &server, extra);
    assert!(run.success, "{}", run.describe());
    let results = server
        .turns()
        .into_iter()
        .max_by_key(Vec::len)
        .unwrap_or_default();
    assert_eq!(
        results.len(),
        calls.len(),
        "every scripted call got a result\n{}",
        run.describe()
    );
    (results, server)
}

fn install(sb: &Sandbox, program: Option<&Path>) {
    let project = sb.project.display().to_string();
    let mut args = vec!["install", "claude-code", "--project", &project];
    let program = program.map(|p| p.display().to_string());
    if let Some(p) = &program {
        args.extend(["--toolcap", p]);
    }
    let (ok, out, err) = sb.toolcap(&args);
    assert!(ok, "toolcap install claude-code failed:\n{out}\n{err}");
}

/// What toolcap's view of an output carries (and Claude Code's own never does).
const RECOVERY: &str = "--- Recovery Options ---";

/// The calls whose every detail must read as without toolcap.
fn parity_calls() -> Vec<Call> {
    vec![
        bash("echo ran; echo \"$0\""),
        bash("seq 1 3000 | tail -2; echo to-stderr >&2; exit 3"),
        bash("kill -TERM $$"),
        bash("kill -9 $$"),
    ]
}

/// An older toolcap, as the prefix would meet it: its `hook` replies nothing
/// (it has one), and it has no `shell-prefix` (what clap prints for an unknown
/// subcommand, exit 2).
const OLDER_TOOLCAP: &str = "#!/bin/sh\ncase \"$1\" in hook) cat >/dev/null; exit 0 ;; esac\necho \"error: unrecognized subcommand '$1'\" >&2\nexit 2\n";

#[test]
fn claude_code_bash_runs_as_without_toolcap_whatever_is_wrong_with_the_program() {
    let Some(bin) = agent::find(Kind::ClaudeCode) else {
        return;
    };
    let calls = parity_calls();
    let (without, _) = claude(&Sandbox::new(), &bin, &calls, &[]);
    assert_eq!(without[0], "ran\n/bin/bash", "without toolcap: {without:?}");
    let real = Path::new(env!("CARGO_BIN_EXE_toolcap"));
    let bytes = std::fs::read(real).expect("read the toolcap binary");
    // the program the prefix names: fine, gone, older, cut short by an upgrade
    let cases: [(&str, Option<Vec<u8>>); 4] = [
        ("the real toolcap", Some(bytes.clone())),
        ("no program", None),
        ("an older toolcap", Some(OLDER_TOOLCAP.as_bytes().to_vec())),
        (
            "a binary cut short",
            Some(bytes[..bytes.len().min(1 << 20)].to_vec()),
        ),
    ];
    for (case, content) in cases {
        let sb = Sandbox::new();
        let program = sb.home.join("bin/toolcap");
        std::fs::create_dir_all(sb.home.join("bin")).expect("make bin/");
        std::fs::copy(real, &program).expect("copy toolcap");
        install(&sb, Some(&program));
        match &content {
            None => std::fs::remove_file(&program).expect("remove toolcap"),
            Some(b) => {
                std::fs::remove_file(&program).expect("replace toolcap");
                std::fs::write(&program, b).expect("write the program");
                set_mode(&program, 0o755);
            }
        }
        let (with, _) = claude(&sb, &bin, &calls, &[]);
        assert_eq!(with, without, "with {case}: the calls read otherwise");
    }
}

#[cfg(unix)]
fn set_mode(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// The prefix script a project install wrote, named in settings.local.json.
fn prefix_script(sb: &Sandbox) -> PathBuf {
    let local = std::fs::read_to_string(sb.project.join(".claude/settings.local.json"))
        .expect("a project install writes .claude/settings.local.json");
    let v: serde_json::Value = serde_json::from_str(&local).expect("settings.local.json is JSON");
    PathBuf::from(
        v["env"]["CLAUDE_CODE_SHELL_PREFIX"]
            .as_str()
            .expect("the prefix is in settings.local.json"),
    )
}

fn doctor(sb: &Sandbox) -> (i32, String) {
    let project = sb.project.display().to_string();
    let out = sb
        .command(Path::new(env!("CARGO_BIN_EXE_toolcap")))
        .args(["doctor", "--project", &project])
        .stdin(Stdio::null())
        .output()
        .expect("run toolcap doctor");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn claude_code_project_install_keeps_this_machine_out_of_the_shared_settings() {
    let Some(bin) = agent::find(Kind::ClaudeCode) else {
        return;
    };
    let sb = Sandbox::new();
    install(&sb, None);
    let shared = std::fs::read_to_string(sb.project.join(".claude/settings.json"))
        .expect("read .claude/settings.json");
    let script = prefix_script(&sb);
    assert!(
        !shared.contains("CLAUDE_CODE_SHELL_PREFIX")
            && !shared.contains("claude-code-shell-prefix"),
        "the file a team commits names this machine's prefix:\n{shared}"
    );
    // here, Bash goes through toolcap (settings.local.json is read)
    let (results, _) = claude(&sb, &bin, &[bash("seq 1 20000")], &[]);
    assert!(results[0].contains(RECOVERY), "not capped: {}", results[0]);
    let (code, report) = doctor(&sb);
    assert_eq!(code, 0, "{report}");
    // a teammate's clone: the committed settings.json, none of this machine's files
    let mate = Sandbox::new();
    mate.write(".claude/settings.json", &shared);
    let (results, _) = claude(&mate, &bin, &[bash("echo ran")], &[]);
    assert_eq!(results, ["ran"], "in a teammate's clone");
    // the prefix script gone (its state directory removed), then not executable:
    // Claude Code cannot start any Bash command (it runs `<prefix> SCRIPT`, and
    // spawns the prefix as a program for MCP servers, so no value can be a shell
    // fallback), and doctor says so with exit 1
    let text = std::fs::read_to_string(&script).expect("read the prefix script");
    std::fs::remove_file(&script).expect("remove the prefix script");
    let (results, _) = claude(&sb, &bin, &[bash("echo ran")], &[]);
    assert!(results[0].starts_with("Exit code 127"), "{results:?}");
    let (code, report) = doctor(&sb);
    assert_eq!(code, 1, "{report}");
    assert!(
        report.contains("BROKEN: Claude Code's Bash tool cannot run any command")
            && report.contains("which is not there"),
        "{report}"
    );
    std::fs::write(&script, text).expect("put the prefix script back");
    set_mode(&script, 0o644);
    let (code, report) = doctor(&sb);
    assert_eq!(code, 1, "{report}");
    assert!(report.contains("not an executable file"), "{report}");
    install(&sb, None);
    let (code, report) = doctor(&sb);
    assert_eq!(code, 0, "after a new install: {report}");
}

/// The output file Claude Code names for a background command.
fn background_file(result: &str) -> PathBuf {
    let at = result
        .find("Output is being written to: ")
        .unwrap_or_else(|| panic!("not a background call: {result}"));
    let rest = &result[at + "Output is being written to: ".len()..];
    let end = rest.find(". ").unwrap_or(rest.len());
    PathBuf::from(rest[..end].trim_end_matches('.'))
}

/// The background call's output file once it holds the end of the command.
fn file_settles(p: &Path) -> String {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let text = std::fs::read_to_string(p).unwrap_or_default();
        if text.contains("[exited with code") || Instant::now() > until {
            return text;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn claude_code_notes_are_not_lent_across_sessions_or_calls() {
    let Some(bin) = agent::find(Kind::ClaudeCode) else {
        return;
    };
    let sb = Sandbox::new();
    // a hook of the user's that blocks the first Bash call of the project once
    sb.write(
        ".claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
            "command": "[ -e blocked-once ] && exit 0; : > blocked-once; echo 'blocked once' >&2; exit 2"}]}]}})
        .to_string(),
    );
    install(&sb, None);
    std::fs::write(sb.project.join("blocked-once"), "").expect("skip the block for now");
    // session A: a background call the rules deny; its note is never taken
    let (a, _) = claude(
        &sb,
        &bin,
        &[background("seq 1 20000")],
        &["--disallowedTools", "Bash(seq:*)"],
    );
    assert!(a[0].contains("denied"), "{a:?}");
    // session B, same project, same command in the foreground: capped
    let (b, _) = claude(&sb, &bin, &[bash("seq 1 20000")], &[]);
    assert!(
        b[0].contains(RECOVERY),
        "session B got session A's note: {}",
        b[0]
    );
    // session C: the first call blocked by the user's hook, then the same command
    // in the background (left alone: its file gets all of it), then in the
    // foreground (capped)
    std::fs::remove_file(sb.project.join("blocked-once")).expect("arm the block");
    let (c, _) = claude(
        &sb,
        &bin,
        &[
            bash("seq 1 20000"),
            background("seq 1 20000"),
            bash("seq 1 20000"),
        ],
        &[],
    );
    assert!(c[0].contains("blocked once"), "{c:?}");
    let file = background_file(&c[1]);
    let whole: String = (1..=20000).map(|i| format!("{i}\n")).collect();
    let got = file_settles(&file);
    // (Claude Code adds "\n[exited with code 0]\n" when it ends)
    assert!(
        got.starts_with(&whole) && !got.contains(RECOVERY),
        "the background call was captured: {} bytes, ending {:?}",
        got.len(),
        &got[got.len().saturating_sub(300)..]
    );
    assert!(
        c[2].contains(RECOVERY),
        "the last call was not capped: {}",
        c[2]
    );
}

/// A heredoc that writes a real file with many single quotes (Python's
/// html/entities.py: 75 KB, 9,435 `'`), as a model writes one.
fn heredoc_of_entities() -> Option<(String, String)> {
    let src = Path::new("/root/.pyenv/versions/3.11.7/lib/python3.11/html/entities.py");
    let text = std::fs::read_to_string(src).ok().or_else(|| {
        let out = std::process::Command::new("python3")
            .args(["-c", "import html.entities as e; print(e.__file__)"])
            .output()
            .ok()?;
        std::fs::read_to_string(String::from_utf8_lossy(&out.stdout).trim()).ok()
    })?;
    let command = format!("cat > entities_copy.py <<'EOF'\n{text}EOF\nwc -c < entities_copy.py");
    Some((command, text))
}

#[test]
fn claude_code_a_command_too_long_for_the_prefix_is_explained() {
    let Some(bin) = agent::find(Kind::ClaudeCode) else {
        return;
    };
    let Some((command, text)) = heredoc_of_entities() else {
        agent::skip_or_fail("html/entities.py of python3 not found");
        return;
    };
    let quotes = command.matches('\'').count();
    assert!(quotes > 9_000 && command.len() > 70_000, "{quotes} quotes");
    // without toolcap it runs: the file is written (Claude Code 2.1.328 turns the
    // file's `\uXXXX` escapes into their characters on the way: 69,259 of its
    // 75,383 bytes; not toolcap's doing, and the same with toolcap when it fits)
    let sb = Sandbox::new();
    let (without, _) = claude(&sb, &bin, &[bash(&command)], &[]);
    let written: usize = without[0].trim().parse().unwrap_or(0);
    assert!(
        written > text.len() * 9 / 10 && sb.project.join("entities_copy.py").exists(),
        "{without:?}"
    );
    // with the prefix, Claude Code cannot start it (it quotes the script once
    // more: E2BIG); the model is told why and how to do it instead
    let sb = Sandbox::new();
    install(&sb, None);
    let (with, server) = claude(&sb, &bin, &[bash(&command)], &[]);
    assert!(with[0].contains("E2BIG"), "{with:?}");
    let told = server.requests().iter().any(|r| {
        r.body.to_string().contains(&format!(
            "toolcap: this command cannot run while toolcap is Claude Code's shell prefix (CLAUDE_CODE_SHELL_PREFIX): Claude Code quotes the command's {} single quotes once more",
            toolcap_text::text::thousands(quotes)
        ))
    });
    assert!(told, "the model was not told why: {with:?}");
}

/// `toolcap shell-prefix claude-code --script` (what the Claude Agent SDK helpers of the
/// Node and Python packages call): the path of the prefix script `install` writes, for
/// this program, in the state dir; written once, again when it lost its execute bits or
/// names another program, and no settings file touched.
#[test]
fn shell_prefix_script_for_the_sdk_helpers() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    let (ok, out, err) = sb.toolcap(&["shell-prefix", "claude-code", "--script"]);
    assert!(ok, "{err}");
    let path = PathBuf::from(out.trim_end());
    let agents = sb.home.join(".local/state/toolcap/agents");
    assert_eq!(path.parent(), Some(agents.as_path()), "{out}");
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    assert!(
        name.starts_with("claude-code-shell-prefix-sdk-toolcap-"),
        "{name}"
    );
    let text = std::fs::read_to_string(&path).expect("the script reads");
    let program = Path::new(env!("CARGO_BIN_EXE_toolcap"))
        .display()
        .to_string();
    assert!(
        text.starts_with("#!/bin/sh\n") && text.contains(&format!("t={program}\n")),
        "{text}"
    );
    let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o755);
    // the same path again, the file as it was; made executable again when it lost that
    set_mode(&path, 0o644);
    let (ok, again, _) = sb.toolcap(&["shell-prefix", "claude-code", "--script"]);
    assert!(ok && again == out, "{again}");
    assert_eq!(mode(&path), 0o755);
    assert_eq!(std::fs::read_to_string(&path).expect("reads"), text);
    // nothing else: no settings of Claude Code's
    assert!(!sb.home.join(".claude").exists() && !sb.project.join(".claude").exists());
    // the script runs a command as Claude Code's shell would, through toolcap
    let run = std::process::Command::new(&path)
        .arg("echo from-the-prefix")
        .env("HOME", &sb.home)
        .output()
        .expect("run the prefix script");
    assert_eq!(String::from_utf8_lossy(&run.stdout), "from-the-prefix\n");
}
