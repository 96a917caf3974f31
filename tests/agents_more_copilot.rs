//! GitHub Copilot CLI (@github/copilot 1.0.102) end to end (issue 35): the real
//! `copilot`, installed from npm by `bash .ci/install-agents`, run with `-p` in a
//! throwaway project against the scripted model server (its BYOK provider:
//! `COPILOT_PROVIDER_BASE_URL`, `COPILOT_OFFLINE=true`, no GitHub login), after
//! `toolcap install copilot --project DIR` (a `postToolUse` hook in
//! `.github/copilot/settings.json`; the project is a trusted folder).
//!
//! The hook replaces a tool's result after the tool ran (`modifiedResult`), so
//! Copilot's permission rules decide on the model's own call:
//! - the shell round trip of tests/agents_e2e.rs;
//! - `grep`, `view` and `glob` over the threshold capped, a ranged `view` and
//!   every short result exactly as without toolcap;
//! - an MCP tool's big result (the reference filesystem server) capped;
//! - `--deny-tool` and `--allow-tool` decide as without toolcap;
//! - with the toolcap program removed, Copilot behaves as without toolcap.
//!
//! Without Copilot (or python3) these tests are skipped with the reason; under
//! CI=true they fail.

use std::path::Path;
use std::sync::Arc;

use serde_json::json;

use crate::agents_e2e::agent::{self, Kind, Sandbox};
use crate::agents_e2e::server::Script;
use crate::agents_e2e::{first_suggestion, lines, shell_round_trip, shown_until, without_toolcap};
use crate::agents_more_pi::{Toolcap, call, calls_script, run};

const THRESHOLD: usize = 3_500;
const KIND: Kind = Kind::Copilot;

fn bash(command: &str) -> crate::agents_e2e::server::Call {
    call("bash", json!({"command": command, "description": "run it"}))
}

/// The results without what differs between two runs: the file Copilot saved a
/// long output to (`Saved to: /tmp/<ms>-copilot-tool-output-<pid>-<uuid>.txt`),
/// and the order of a command's stdout and stderr lines (Copilot reads the two
/// pipes apart): each result's lines sorted.
fn steady(results: &[String]) -> Vec<Vec<String>> {
    results
        .iter()
        .map(|r| {
            let mut lines: Vec<String> = r
                .lines()
                .map(|l| match l.find(" Saved to: ") {
                    Some(at) => l[..at].to_string(),
                    None => l.to_string(),
                })
                .collect();
            lines.sort();
            lines
        })
        .collect()
}

#[test]
fn copilot_bash_capped_after_it_ran() {
    shell_round_trip(KIND);
}

#[test]
fn copilot_without_toolcap() {
    without_toolcap(KIND);
}

/// A real file to grep (Python's typing.py, 120,077 chars), a real file under
/// Copilot's 20 KB `view` limit (typing.py's first 400 lines, 12,068 bytes: a
/// source file of the repository grew past that limit once),
/// 500 small files to glob.
fn files(sb: &Sandbox) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        root.join("fixtures/read_file/typing.py"),
        sb.project.join("typing.py"),
    )
    .expect("copy typing.py");
    let typing =
        std::fs::read_to_string(root.join("fixtures/read_file/typing.py")).expect("read typing.py");
    let head: String = typing.split_inclusive('\n').take(400).collect();
    std::fs::write(sb.project.join("typing_head.py"), head).expect("write typing_head.py");
    for i in 0..500 {
        sb.write(&format!("many/module_{i:03}.txt"), "x\n");
    }
}

/// `grep`, `view` and `glob` over the threshold reach the model as toolcap's
/// view; a ranged `view` and the short results are exactly as without toolcap;
/// the grep's first suggestion, followed through `bash` as printed, returns the
/// stored lines exactly.
#[test]
fn copilot_grep_view_glob_capped_short_results_unchanged() {
    let Some(bin) = agent::find(KIND) else { return };
    let calls_for = |project: &str| {
        vec![
            call(
                "grep",
                json!({"pattern": "def ", "paths": "typing.py", "output_mode": "content", "-n": true}),
            ),
            call("view", json!({"path": format!("{project}/typing_head.py")})),
            call("glob", json!({"pattern": "many/*.txt"})),
            call(
                "view",
                json!({"path": format!("{project}/typing_head.py"), "view_range": [10, 30]}),
            ),
            bash("echo hi; sleep 0.2; echo err >&2"),
            bash("seq 1 3000 | tail -2; exit 3"),
        ]
    };
    // each run has its own project directory: the script names it once it is known
    let script = |follow: bool| -> (Script, Arc<std::sync::Mutex<String>>) {
        let dir = Arc::new(std::sync::Mutex::new(String::new()));
        let d = dir.clone();
        let s: Script = Arc::new(move |results: &[String]| {
            let project = d.lock().map(|p| p.clone()).unwrap_or_default();
            let calls = calls_for(&project);
            match results.len() {
                i if i < calls.len() => calls.get(i).cloned(),
                i if i == calls.len() && follow => {
                    first_suggestion(&results[0]).map(|s| s.as_call(KIND))
                }
                _ => None,
            }
        });
        (s, dir)
    };
    let n = 6;
    let mut seen = Vec::new();
    for (toolcap, follow) in [(Toolcap::Without, false), (Toolcap::Installed, true)] {
        let (s, dir) = script(follow);
        let setup = move |sb: &Sandbox| {
            files(sb);
            if let Ok(mut d) = dir.lock() {
                *d = sb.project.display().to_string();
            }
        };
        seen.push(run(KIND, &bin, toolcap, &setup, &[], s));
    }
    let (without, _) = &seen[0];
    let (with, sb) = &seen[1];
    assert_eq!(with.len(), n + 1, "every call got a result: {with:#?}");
    for (i, name) in [(0, "grep"), (1, "view"), (2, "glob")] {
        let got = &with[i];
        assert!(
            got.chars().count() <= THRESHOLD && got.contains("\n--- Recovery Options ---\n"),
            "{name}: the model got {} chars without toolcap's view:\n{got}",
            got.chars().count()
        );
        assert!(
            without[i].chars().count() > got.chars().count(),
            "{name}: Copilot alone sent {} chars, with toolcap {}",
            without[i].chars().count(),
            got.chars().count()
        );
        eprintln!(
            "copilot {name}: {} chars without toolcap, {} with",
            without[i].chars().count(),
            got.chars().count()
        );
    }
    assert_eq!(
        with[3..n],
        without[3..n],
        "the ranged view and short results"
    );
    assert!(
        with[5].ends_with("completed with exit code 3>"),
        "{}",
        with[5]
    );

    let s = first_suggestion(&with[0]).expect("a suggestion");
    let (id, a, b) = s.target().expect("a stored range");
    let (ok, original, err) = sb.toolcap(&["show", &id]);
    assert!(ok, "toolcap show {id}: {err}");
    let b = b.or_else(|| shown_until(&with[n])).unwrap_or(a);
    // (Copilot trims the leading blanks of a command's output)
    let want = lines(&original, a, b);
    assert!(
        with[n].contains(want.trim_start()),
        "following {s:?} gave:\n{}\n--- expected lines {a}-{b}:\n{want}",
        with[n]
    );
}

/// Copilot's own rules (`--deny-tool`, `--allow-tool` without `--allow-all-tools`)
/// decide on the model's call as without toolcap.
#[test]
fn copilot_permissions_as_without_toolcap() {
    let Some(bin) = agent::find(KIND) else { return };
    let victim = |sb: &Sandbox| sb.write("victim/keep.txt", "keep me\n");
    let calls = [
        bash("rm -rf victim; echo removed"),
        bash("seq 1 20000 | wc -l"),
    ];
    let mut seen = Vec::new();
    for toolcap in [Toolcap::Without, Toolcap::Installed] {
        let (results, sb) = run(
            KIND,
            &bin,
            toolcap,
            &victim,
            &["--deny-tool", "shell(rm)"],
            calls_script(calls.to_vec()),
        );
        assert!(
            sb.project.join("victim/keep.txt").exists(),
            "{toolcap:?}: the deny rule kept rm from running: {results:#?}"
        );
        seen.push(results);
    }
    assert_eq!(seen[0], seen[1], "--deny-tool decides as without toolcap");
    assert!(seen[0][0].contains("denied"), "{seen:#?}");
    assert!(seen[0][1].starts_with("20000\n"), "{seen:#?}");

    let calls = [bash("echo hello"), bash("touch made.txt; echo made")];
    let mut seen = Vec::new();
    for toolcap in [Toolcap::Without, Toolcap::Installed] {
        let (results, sb) = run(
            KIND,
            &bin,
            toolcap,
            &|_: &Sandbox| {},
            &["--allow-tool", "shell(echo)"],
            calls_script(calls.to_vec()),
        );
        assert!(
            !sb.project.join("made.txt").exists(),
            "{toolcap:?}: {results:#?}"
        );
        seen.push(results);
    }
    assert_eq!(seen[0], seen[1], "--allow-tool decides as without toolcap");
    assert!(seen[0][0].starts_with("hello\n"), "{seen:#?}");
}

/// With the toolcap program gone, the hook does nothing: every result is
/// Copilot's own, exit statuses as they were.
#[test]
fn copilot_fails_open_without_the_toolcap_program() {
    let Some(bin) = agent::find(KIND) else { return };
    let calls = vec![
        bash("echo hi; sleep 0.2; echo err >&2"),
        bash("seq 1 3000 | tail -2; exit 3"),
        bash("seq 1 20000"),
    ];
    let none = |_: &Sandbox| {};
    let (without, _) = run(
        KIND,
        &bin,
        Toolcap::Without,
        &none,
        &[],
        calls_script(calls.clone()),
    );
    let (removed, _) = run(
        KIND,
        &bin,
        Toolcap::Removed,
        &none,
        &[],
        calls_script(calls),
    );
    assert_eq!(without.len(), 3, "{without:#?}");
    assert_eq!(steady(&without), steady(&removed));
    assert!(removed[1].ends_with("completed with exit code 3>"));
    assert!(
        removed[2].starts_with("Output too large"),
        "Copilot's own cut"
    );
}

/// The reference MCP filesystem server that `bash .ci/install-mcp-peers` installs.
fn filesystem_server() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("TOOLCAP_MCP_PEERS")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/toolcap-ci")))?;
    let js = dir.join("npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    if js.exists() {
        return Some(js);
    }
    agent::skip_or_fail(&format!(
        "Copilot CLI MCP end-to-end test: missing {} (install it with `bash .ci/install-mcp-peers`)",
        js.display()
    ));
    None
}

/// An MCP tool's big result (`read_text_file` of typing.py, 120,077 chars, which
/// Copilot alone saves to a file and shows 500 chars of) reaches the model as
/// toolcap's view of the file; its first suggestion, followed through `bash` as
/// printed, returns the file's exact lines.
#[test]
fn copilot_mcp_result_capped_by_the_post_tool_use_hook() {
    let Some(bin) = agent::find(KIND) else { return };
    let Some(fs_js) = filesystem_server() else {
        return;
    };
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/read_file/typing.py");
    let original = std::fs::read_to_string(&real).expect("read typing.py");
    let mut seen = Vec::new();
    for toolcap in [Toolcap::Without, Toolcap::Installed] {
        let dir = Arc::new(std::sync::Mutex::new(String::new()));
        let d = dir.clone();
        let script: Script = Arc::new(move |results: &[String]| {
            let project = d.lock().map(|p| p.clone()).unwrap_or_default();
            match results.len() {
                0 => Some(call(
                    "fs-read_text_file",
                    json!({"path": format!("{project}/typing.py")}),
                )),
                1 => first_suggestion(&results[0]).map(|s| s.as_call(KIND)),
                _ => None,
            }
        });
        // the MCP server, with the project as its root, in ~/fs-mcp.json
        let real = real.clone();
        let fs_js = fs_js.clone();
        let setup = move |sb: &Sandbox| {
            std::fs::copy(&real, sb.project.join("typing.py")).expect("copy typing.py");
            let project = sb.project.display().to_string();
            let servers = json!({"mcpServers": {"fs": {"type": "local", "command": "node",
                "args": [fs_js, project], "tools": ["*"]}}});
            sb.write("~/fs-mcp.json", &servers.to_string());
            if let Ok(mut d) = dir.lock() {
                *d = project;
            }
        };
        let extra = ["--additional-mcp-config", "@~/fs-mcp.json"];
        seen.push(run(KIND, &bin, toolcap, &setup, &extra, script));
    }
    let (without, _) = &seen[0];
    let (with, sb) = &seen[1];
    assert!(
        without[0].starts_with("Output too large"),
        "Copilot alone: {}",
        without[0]
    );
    let got = &with[0];
    assert!(
        got.chars().count() <= THRESHOLD && got.contains("\n--- Recovery Options ---\n"),
        "the model got {} chars:\n{got}",
        got.chars().count()
    );
    let s = first_suggestion(got).expect("a suggestion");
    let (id, a, b) = s.target().expect("a stored range");
    let (ok, stored, err) = sb.toolcap(&["show", &id]);
    assert!(ok, "toolcap show {id}: {err}");
    assert_eq!(stored, original, "the stored result is the file's text");
    let b = b.or_else(|| shown_until(&with[1])).unwrap_or(a);
    let want = lines(&original, a, b);
    assert!(
        with[1].contains(want.trim_start()),
        "following {s:?} gave:\n{}\n--- expected lines {a}-{b}:\n{want}",
        with[1]
    );
    eprintln!(
        "copilot MCP read_text_file: {} chars without toolcap, {} with",
        without[0].chars().count(),
        got.chars().count()
    );
}
