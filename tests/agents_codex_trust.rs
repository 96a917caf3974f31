//! `toolcap install codex --trust` (issue 45, item 3) with the real Codex 0.169.0
//! (installed by `bash .ci/install-agents`), against the scripted model server:
//! `codex exec` with no `--dangerously-bypass-hook-trust` skips toolcap's hooks
//! after a plain install (Codex's own cut of `seq 1 20000` reaches the model) and
//! runs them after `--trust` (toolcap's view does); `--uninstall` gives
//! config.toml back byte for byte. Skipped with the reason when Codex is not
//! installed, failed under CI=true.

use std::path::Path;
use std::sync::Arc;

use crate::agents_e2e::agent::{self, Kind, Sandbox};
use crate::agents_e2e::server::{Script, Server};
use crate::agents_e2e::shell_call;

/// `codex exec` (hooks as trusted as the user left them) running `seq 1 20000`:
/// the result the model got.
fn seq_result(sb: &Sandbox, bin: &Path, server: &Server) -> String {
    let out = sb
        .command(bin)
        .env("CODEX_HOME", sb.home.join(".codex"))
        .env("MOCK_API_KEY", "k")
        .args([
            "exec",
            "--skip-git-repo-check",
            "--sandbox",
            "danger-full-access",
            "Count to 20000.",
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("codex runs");
    assert!(
        out.status.success(),
        "codex exec: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    server
        .turns()
        .into_iter()
        .max_by_key(Vec::len)
        .and_then(|t| t.into_iter().next())
        .expect("a tool result")
}

fn script() -> Script {
    Arc::new(|results: &[String]| {
        results
            .is_empty()
            .then(|| shell_call(Kind::Codex, "seq 1 20000"))
    })
}

#[test]
fn codex_runs_toolcaps_hooks_once_trusted_with_trust() {
    let Some(bin) = agent::find(Kind::Codex) else {
        return;
    };
    let sb = Sandbox::new();
    let server = Server::start(Kind::Codex.api(), script());
    sb.configure(Kind::Codex, &server);
    // toolcap asks the `codex` on PATH for the hashes
    let dir = bin.parent().expect("codex's directory");
    sb.set_env(
        "PATH",
        &format!(
            "{}:{}:{}",
            Path::new(env!("CARGO_BIN_EXE_toolcap"))
                .parent()
                .expect("a dir")
                .display(),
            dir.display(),
            std::env::var("PATH").unwrap_or_default()
        ),
    );
    let config = sb.home.join(".codex/config.toml");

    let (ok, out, err) = sb.toolcap(&["install", "codex"]);
    assert!(ok, "{out}\n{err}");
    assert!(out.contains("next: Codex runs new hooks only once you trust them"));
    let untrusted = seq_result(&sb, &bin, &server);
    assert!(
        !untrusted.contains("--- Recovery Options ---"),
        "an untrusted hook ran: {untrusted}"
    );

    let server = Server::start(Kind::Codex.api(), script());
    sb.configure(Kind::Codex, &server);
    let configured = std::fs::read_to_string(&config).expect("config");
    let (ok, out, err) = sb.toolcap(&["install", "codex", "--trust"]);
    assert!(ok, "{out}\n{err}");
    assert!(out.contains("trusted: 2 of toolcap's Codex hooks"), "{out}");
    let text = std::fs::read_to_string(&config).expect("config");
    assert!(text.contains("trusted_hash = \"sha256:"), "{text}");
    let (ok, doctor, _) = sb.toolcap(&["doctor"]);
    assert!(ok && doctor.contains("codex: active"), "{doctor}");
    // trust recorded at a hash Codex no longer expects (a hook changed by an
    // upgrade): doctor says Codex skips the hooks, and --trust records it anew
    std::fs::write(
        &config,
        text.replacen("trusted_hash = \"sha256:", "trusted_hash = \"sha256:0", 1),
    )
    .expect("config");
    let (_, doctor, _) = sb.toolcap(&["doctor"]);
    assert!(
        !doctor.contains("codex: active") && doctor.contains("changed since you trusted them"),
        "{doctor}"
    );
    let (ok, out, err) = sb.toolcap(&["install", "codex", "--trust"]);
    assert!(ok, "{out}\n{err}");
    assert_eq!(std::fs::read_to_string(&config).expect("config"), text);
    let trusted = seq_result(&sb, &bin, &server);
    assert!(
        trusted.contains("--- Recovery Options ---") && trusted.chars().count() < 4_000,
        "toolcap's view once trusted: {trusted}"
    );
    // a second --trust changes nothing; uninstall takes it all out
    let (ok, out, _) = sb.toolcap(&["install", "codex", "--trust"]);
    assert!(ok && out.contains("nothing to change"), "{out}");
    assert_eq!(std::fs::read_to_string(&config).expect("config"), text);
    let (ok, out, err) = sb.toolcap(&["install", "codex", "--uninstall"]);
    assert!(ok, "{out}\n{err}");
    assert_eq!(
        std::fs::read_to_string(&config).expect("config"),
        configured,
        "config.toml as before the install"
    );
    // --trust is for Codex's user install only
    let (ok, _, err) = sb.toolcap(&["install", "claude-code", "--trust"]);
    assert!(
        !ok && err.contains("--trust records Codex's trust"),
        "{err}"
    );
}
