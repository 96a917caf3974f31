//! Codex 0.169.0's interactive TUI with approvals on (`-a on-request`, Codex's
//! default; `untrusted` is refused by 0.169: "approval_policy = \"untrusted\" is
//! no longer supported") under `read-only`, `workspace-write` and
//! `danger-full-access`, driven under
//! tmux against the scripted model server (issue 45, item 2).
//!
//! toolcap cannot rewrite the command there (an `updatedInput` needs "allow",
//! which skips Codex's approval and execpolicy), so its `PostToolUse` hook on
//! `Bash` replaces the result after the command ran, the whole output read
//! from Codex's rollout file (hook/codex.rs). Checked, for each sandbox, with
//! the real binary:
//! - without toolcap the model gets Codex's own cut of `seq 1 10000; exit 3`
//!   (48,894 chars); with toolcap, toolcap's view with `exit code 3`, whose
//!   first suggestion (toolcap's MCP server, which Codex asks the user about:
//!   the test answers "Allow") returns exactly the lines it names;
//! - a command the model asks to run outside the sandbox is still put to the
//!   user (the test approves it) and runs once;
//! - `seq 1 20000` (108,894 chars, more than the 64 KiB Codex records) stays
//!   Codex's own cut: no file Codex writes holds it whole.
//!
//! With approvals off (`-a never`) the hook input says `bypassPermissions`: the
//! command runs under `toolcap run`, and `seq 1 20000` is capped too.
//!
//! Skipped with the reason without Codex or tmux (`apt-get install tmux`),
//! failed under CI=true.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::agents_e2e::agent::{self, Kind, Sandbox};
use crate::agents_e2e::server::{Call, Script, Server};
use crate::agents_e2e::{first_suggestion, lines, shell_call};

/// A tmux server of this test's own (its own socket), killed when dropped.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn start(script: &Path) -> Tmux {
        static N: AtomicUsize = AtomicUsize::new(0);
        let socket = format!(
            "toolcap-codex-tui-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        );
        let ok = Command::new("tmux")
            .args(["-L", &socket, "-f", "/dev/null", "new-session", "-d"])
            .args(["-x", "160", "-y", "50"])
            .arg(format!("sh {}; sleep 600", script.display()))
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "tmux starts a session");
        Tmux { socket }
    }

    fn screen(&self) -> String {
        Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p"])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    }

    fn keys(&self, keys: &str) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys", keys])
            .status();
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

fn tmux_found() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The scripted model: `seq 1 10000; exit 3`; the view's first suggestion
/// (when there is a view); `touch made.txt && echo made it` asked outside the
/// sandbox; `seq 1 20000`; done.
fn script() -> Script {
    Arc::new(|results: &[String]| {
        let done = results;
        let mut plan = vec![shell_call(Kind::Codex, "seq 1 10000; exit 3")];
        if let Some(s) = done.first().and_then(|first| first_suggestion(first)) {
            plan.push(s.as_call(Kind::Codex));
        }
        plan.push(Call {
            name: "exec_command".to_string(),
            args: json!({"cmd": "touch made.txt && echo made it",
                "sandbox_permissions": "require_escalated",
                "justification": "make a file"}),
        });
        plan.push(shell_call(Kind::Codex, "seq 1 20000"));
        plan.get(done.len()).cloned()
    })
}

/// What one TUI session with approvals on sent the model: every tool result,
/// in order (the results of its last request).
fn tui_session(sb: &Sandbox, bin: &Path, sandbox: &str, toolcap: bool) -> Vec<String> {
    tui_session_with(
        sb,
        bin,
        &["-s", sandbox, "-a", "on-request"],
        toolcap,
        script(),
    )
}

/// [`tui_session`] with Codex's options `modes` and the model's `script`.
fn tui_session_with(
    sb: &Sandbox,
    bin: &Path,
    modes: &[&str],
    toolcap: bool,
    script: Script,
) -> Vec<String> {
    // the session is over once the model answered a tool result with text
    let ended = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let seen = ended.clone();
    let script: Script = Arc::new(move |results: &[String]| {
        let next = script(results);
        if next.is_none() && !results.is_empty() {
            seen.store(true, Ordering::SeqCst);
        }
        next
    });
    let server = Server::start(Kind::Codex.api(), script);
    sb.configure(Kind::Codex, &server);
    if toolcap {
        let (ok, out, err) = sb.toolcap(&["install", "codex"]);
        assert!(ok, "{out}\n{err}");
    }
    let toolcap = Path::new(env!("CARGO_BIN_EXE_toolcap"));
    let run = sb.home.join("run-codex.sh");
    let q = |p: &Path| format!("'{}'", p.display());
    std::fs::write(
        &run,
        format!(
            "cd {project}\nexport HOME={home} PWD={project} CODEX_HOME={home}/.codex MOCK_API_KEY=k PATH={dir}:\"$PATH\"\n\
             unset XDG_STATE_HOME XDG_CONFIG_HOME XDG_DATA_HOME XDG_CACHE_HOME TOOLCAP_STORE OPENAI_API_KEY\n\
             exec {bin} --no-daemon --dangerously-bypass-hook-trust {modes}\n",
            project = q(&sb.project),
            home = q(&sb.home),
            dir = q(toolcap.parent().expect("a dir")),
            bin = q(bin),
            modes = modes.join(" "),
        ),
    )
    .expect("write the run script");
    let tmux = Tmux::start(&run);
    // the prompt is typed once the TUI is up and its MCP servers have started
    // (it starts them in the background: a first turn may not list their tools)
    let start = Instant::now();
    let mut calm = 0;
    while start.elapsed() < Duration::from_secs(90) {
        let screen = tmux.screen();
        let ready = screen.contains("Ask Codex to do anything")
            && !screen.contains("Starting MCP")
            && !screen.contains("Booting MCP");
        calm = if ready { calm + 1 } else { 0 };
        if calm >= 4 {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    tmux.keys("Count.");
    std::thread::sleep(Duration::from_millis(300));
    tmux.keys("Enter");
    let start = Instant::now();
    let limit = Duration::from_secs(120);
    loop {
        let screen = tmux.screen();
        // the approvals Codex puts to the user: the first choice ("Yes,
        // proceed" / "Allow") is selected
        if screen.contains("Would you like to run the following command?")
            || screen.contains("Allow the toolcap MCP server")
        {
            tmux.keys("Enter");
        }
        let done = ended.load(Ordering::SeqCst);
        if done || start.elapsed() > limit {
            assert!(
                done,
                "the TUI session did not end within {limit:?}; the results it sent: {:?}; the screen:\n{screen}",
                server.turns()
            );
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    if std::env::var_os("TOOLCAP_TUI_DEBUG").is_some() {
        for r in server.requests() {
            let tools: Vec<String> = r.body["tools"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| t["name"].as_str().unwrap_or_default().to_string())
                .collect();
            eprintln!("request tools: {tools:?}");
        }
        eprintln!("screen:\n{}", tmux.screen());
    }
    drop(tmux);
    server
        .turns()
        .into_iter()
        .max_by_key(Vec::len)
        .unwrap_or_default()
}

#[test]
fn codex_tui_with_approvals_on_gets_toolcaps_view_after_the_command_ran() {
    let Some(bin) = agent::find(Kind::Codex) else {
        return;
    };
    if !tmux_found() {
        agent::skip_or_fail("Codex TUI test: no tmux on PATH (apt-get install tmux)");
        return;
    }
    let (direct, status) = Sandbox::new().run_command("seq 1 10000; exit 3");
    assert_eq!((direct.len(), status), (48_894, 3));
    for sandbox in ["read-only", "workspace-write", "danger-full-access"] {
        // without toolcap: Codex's own cut
        let plain = Sandbox::new();
        let results = tui_session(&plain, &bin, sandbox, false);
        let seq = results
            .iter()
            .find(|r| r.contains("Process exited with code 3"))
            .unwrap_or_else(|| panic!("{sandbox}: no result of the command: {results:?}"));
        assert!(
            seq.contains("Warning: truncated output (original token count: 12224)")
                && !seq.contains("--- Recovery Options ---"),
            "{sandbox}: Codex's own cut without toolcap: {seq}"
        );
        assert!(plain.project.join("made.txt").exists(), "approved, it ran");

        // with toolcap
        let sb = Sandbox::new();
        let results = tui_session(&sb, &bin, sandbox, true);
        let view = results
            .iter()
            .find(|r| r.contains("Process exited with code 3"))
            .unwrap_or_else(|| panic!("{sandbox}: no result of the command: {results:?}"));
        assert!(
            view.contains("--- Recovery Options ---")
                && view.contains("Command: seq 1 10000; exit 3 | exit code 3 | Output: 10,000 lines, 48,894 chars")
                && view.chars().count() <= 3_500 + 40,
            "{sandbox}: toolcap's view: {view}"
        );
        assert!(
            view.contains("\n10000\n"),
            "{sandbox}: the last line: {view}"
        );
        // the first suggestion, followed as printed, returns exactly its lines
        let s = first_suggestion(view).expect("a suggestion");
        let (_, a, b) = s.target().expect("a line range");
        let b = b.expect("an end line");
        let want = lines(&direct, a, b);
        assert!(
            results
                .iter()
                .any(|r| !r.contains("Process exited") && r.contains(&want)),
            "{sandbox}: lines {a}-{b} of the output through the first suggestion: {results:?}"
        );
        // the command asked outside the sandbox was put to the user, and ran once
        assert!(sb.project.join("made.txt").exists(), "approved, it ran");
        assert!(results.iter().any(|r| r.contains("made it")), "{results:?}");
        // more than Codex records whole: Codex's own cut
        let long = results
            .iter()
            .find(|r| r.contains("Total output lines: 20000"))
            .unwrap_or_else(|| panic!("{sandbox}: seq 1 20000 as Codex cut it: {results:?}"));
        assert!(!long.contains("--- Recovery Options ---"), "{long}");
        eprintln!(
            "{sandbox}: seq 1 10000; exit 3: {} chars without toolcap, {} with",
            seq.chars().count(),
            view.chars().count()
        );
    }
}

/// With approvals off in the TUI (`-a never`), Codex's hook input says
/// `bypassPermissions` and no rules file exists: the command is rewritten to
/// `toolcap run`, so an output of any size is capped, `seq 1 20000` (108,894
/// chars) included.
#[test]
fn codex_tui_with_approvals_off_runs_the_command_under_toolcap() {
    let Some(bin) = agent::find(Kind::Codex) else {
        return;
    };
    if !tmux_found() {
        agent::skip_or_fail("Codex TUI test: no tmux on PATH (apt-get install tmux)");
        return;
    }
    let script: Script = Arc::new(|results: &[String]| {
        results
            .is_empty()
            .then(|| shell_call(Kind::Codex, "seq 1 20000"))
    });
    let sb = Sandbox::new();
    let results = tui_session_with(
        &sb,
        &bin,
        &["-s", "workspace-write", "-a", "never"],
        true,
        script,
    );
    let view = results.first().expect("a result");
    assert!(
        view.contains("Command: seq 1 20000 | exit code 0 | Output: 20,000 lines, 108,894 chars")
            && view.contains("\n20000\n")
            && view.chars().count() < 3_700,
        "{view}"
    );
}
