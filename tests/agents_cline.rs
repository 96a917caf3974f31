//! Cline's CLI (`cline` 3.0.65 from npm, its native binary inside) driven offline
//! (issue 45 item 6): no login, an OpenAI-compatible provider set with `cline auth
//! -p openai -k KEY -m MODEL -b URL` (stored in `~/.cline/data/settings/providers.json`),
//! then `cline --json PROMPT` against the scripted model server (Chat Completions).
//! Its shell tool is `run_commands` (`{"commands": [...]}`), whose result is JSON
//! (`[{"query": CMD, "result": OUTPUT}]`); it auto-approves by default.
//!
//! toolcap has no Cline integration (no `toolcap install cline`): the test shows
//! what Cline sends the model for `seq 1 20000` on its own, and that `toolcap run`
//! through its shell gives toolcap's view and the exact way back.
//!
//! Cline starts a background hub daemon (`--cline-hub-daemon`) that outlives the run
//! unless `CLINE_SESSION_BACKEND_MODE=local` (read in `@cline/core` `dist/index.js`:
//! "local" skips starting the hub), which the test sets; it still ends any daemon
//! started with its sandbox's HOME.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::agents_e2e::agent::{Sandbox, agents_dir, skip_or_fail};
use crate::agents_e2e::server::{Api, Call, Script, Server};

fn run_commands(command: &str) -> Call {
    Call {
        name: "run_commands".to_string(),
        args: json!({ "commands": [command] }),
    }
}

/// The `result` of a `run_commands` result's one command (its JSON text parsed).
fn result_of(text: &str) -> String {
    let v: Value = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("run_commands result is not JSON ({e}): {text:.300}"));
    v[0]["result"]
        .as_str()
        .unwrap_or_else(|| panic!("no result in {text:.300}"))
        .to_string()
}

/// End the hub daemons Cline started with `home` as HOME (found in /proc by their
/// command line and environment; nothing else is touched), looking for 2 s (one may
/// come up after `cline` exited); how many were found.
fn end_hub_daemons(home: &Path) -> usize {
    let mut found = 0;
    for _ in 0..8 {
        found += end_hub_daemons_once(home);
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
    found
}

fn end_hub_daemons_once(home: &Path) -> usize {
    let mut found = 0;
    let want = format!("HOME={}", home.display());
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        if !String::from_utf8_lossy(&cmdline).contains("--cline-hub-daemon") {
            continue;
        }
        let environ = std::fs::read(e.path().join("environ")).unwrap_or_default();
        if environ.split(|b| *b == 0).any(|kv| kv == want.as_bytes()) {
            found += 1;
            // SAFETY: kill(2) on a pid read just now; a gone process only fails.
            unsafe {
                libc::kill(pid, libc::SIGTERM);
            }
        }
    }
    found
}

#[test]
fn cline_runs_offline_and_toolcap_run_through_its_shell() {
    let bin = agents_dir().join("node_modules/.bin/cline");
    if !bin.exists() {
        skip_or_fail(&format!(
            "cline end-to-end test: missing {} (install the agents with `bash .ci/install-agents`)",
            bin.display()
        ));
        return;
    }
    let script: Script = Arc::new(|results: &[String]| match results.len() {
        0 => Some(run_commands("seq 1 20000")),
        1 => Some(run_commands("toolcap run --id cline_seq -- seq 1 20000")),
        2 => Some(run_commands(
            "toolcap continue cline_seq --start-line 5 --end-line 7",
        )),
        _ => None,
    });
    let server = Server::start(Api::Chat, script);
    let sb = Sandbox::new();
    let url = format!("{}/v1", server.url());
    let auth = sb
        .command(&bin)
        .env("CLINE_SESSION_BACKEND_MODE", "local")
        .args(["auth", "-p", "openai", "-k", "k", "-m", "m", "-b", &url])
        .output()
        .expect("run cline auth");
    assert!(
        auth.status.success(),
        "cline auth: {}",
        String::from_utf8_lossy(&auth.stderr)
    );
    let run = sb
        .command(&bin)
        .env("CLINE_SESSION_BACKEND_MODE", "local")
        .args(["--json", "Count to 20000 and tell me the last number."])
        .stdin(std::process::Stdio::null())
        .output();
    let daemons = end_hub_daemons(&sb.home);
    let run = run.expect("run cline");
    if daemons > 0 {
        eprintln!("ended {daemons} Cline hub daemon(s) left running");
    }
    let turns = server.turns();
    let results = turns.last().cloned().unwrap_or_default();
    assert_eq!(
        results.len(),
        3,
        "cline exited {:?}; the model got {} results\n{}",
        run.status.code(),
        results.len(),
        String::from_utf8_lossy(&run.stderr)
    );
    let own = result_of(&results[0]);
    let view = result_of(&results[1]);
    let more = result_of(&results[2]);
    let seq: String = (1..=20000).map(|n| format!("{n}\n")).collect();
    eprintln!(
        "cline alone: {} chars of run_commands result ({} of output); through toolcap run: {} ({} of output)",
        results[0].len(),
        own.len(),
        results[1].len(),
        view.len()
    );
    // Cline cuts it itself: a part of the output, not all 108,894 chars
    assert!(own.len() < seq.len() / 2, "{}", own.len());
    assert!(
        own.contains("\n20000"),
        "{:.300}",
        &own[own.len().saturating_sub(300)..]
    );
    // toolcap's view through its shell, and the stored original read back exactly
    assert!(view.len() <= 3_500, "{}", view.len());
    assert!(view.contains("--- Recovery Options ---"), "{view}");
    assert!(view.contains("toolcap continue cline_seq"), "{view}");
    assert!(view.contains("108,894 chars"), "{view}");
    assert_eq!(more.trim_end(), "5\n6\n7");
}
