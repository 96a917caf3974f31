//! `toolcap discover --agent codex|gemini-cli|opencode|qwen-code|kilo|copilot|pi` on session logs written by
//! the real agents (tests/agents), each run once on its own and once with
//! `toolcap install AGENT --project DIR`. The scripted model runs `seq 1 20000`
//! (108,894 chars: every agent cuts it its own way and keeps the whole output in a
//! file), follows toolcap's first suggestion when there is one, and runs `echo hi`.
//! Skipped with the reason when the agent is not installed, failed under CI=true.

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use crate::agents_e2e::agent::{self, Kind, Sandbox};
use crate::agents_e2e::server::{Script, Server};
use crate::agents_e2e::{first_suggestion, shell_call};

/// The script: `seq 1 20000`, toolcap's first suggestion if the view has one, `echo hi`.
fn script(kind: Kind) -> Script {
    Arc::new(move |results: &[String]| {
        let (done, running) = kind.fold(results);
        if let Some(session) = running {
            return Some(kind.poll(session));
        }
        match done.len() {
            0 => Some(shell_call(kind, "seq 1 20000")),
            1 => Some(
                first_suggestion(&kind.shell_view(&done[0]))
                    .map_or_else(|| shell_call(kind, "echo hi"), |s| s.as_call(kind)),
            ),
            2 if kind.shell_view(&done[1]).trim() != "hi" => Some(shell_call(kind, "echo hi")),
            _ => None,
        }
    })
}

/// Run `kind` in a fresh sandbox (with toolcap installed when `with`).
fn run(kind: Kind, bin: &Path, with: bool) -> Sandbox {
    let sb = Sandbox::new();
    let server = Server::start(kind.api(), script(kind));
    sb.configure(kind, &server);
    if with {
        let project = sb.project.display().to_string();
        let (ok, out, err) = sb.toolcap(&["install", kind.name(), "--project", &project]);
        assert!(ok, "toolcap install {}: {out}\n{err}", kind.name());
    }
    // (the tests run Pi with --no-session unless told to keep it, as a user's is)
    let keep: &[&str] = if kind == Kind::Pi {
        &["--keep-session"]
    } else {
        &[]
    };
    let r = sb.run_agent(kind, bin, &server, keep);
    assert!(r.success, "{}", r.describe());
    sb
}

fn discover(sb: &Sandbox, kind: Kind) -> Value {
    let project = sb.project.display().to_string();
    let args = [
        "discover",
        "--agent",
        kind.name(),
        "--json",
        "--project",
        &project,
    ];
    let (ok, out, err) = sb.toolcap(&args);
    assert!(ok, "toolcap discover --agent {} failed: {err}", kind.name());
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// `toolcap report --html` in the sandbox (its project's store and the agent's
/// logs): the page.
fn report(sb: &Sandbox) -> String {
    let file = sb.home.join("report.html").display().to_string();
    let project = sb.project.display().to_string();
    let (ok, _, err) = sb.toolcap(&["report", "--html", &file, "--project", &project]);
    assert!(ok, "toolcap report failed: {err}");
    std::fs::read_to_string(&file).unwrap()
}

/// The page's figures (its JSON block, as `toolcap gain --json` prints them).
fn page_figures(page: &str) -> Value {
    let open = "<script type=\"application/json\" id=\"toolcap-gain\">";
    let start = page.find(open).expect("the JSON block") + open.len();
    let end = start + page[start..].find("</script>").unwrap();
    serde_json::from_str(&page[start..end]).unwrap()
}

fn row<'a>(d: &'a Value, tool: &str, kind: &str) -> &'a Value {
    d["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["tool"] == tool && r["kind"] == kind)
        .unwrap_or_else(|| panic!("no {tool} {kind:?} row in {d:#}"))
}

fn u(v: &Value, k: &str) -> u64 {
    v[k].as_u64().unwrap_or_else(|| panic!("{k} in {v}"))
}

fn not_through(v: &Value, k: &str) -> u64 {
    u(&v["not_through_toolcap"], k)
}

/// What `toolcap process` shows for `text` as `kind`'s shell result of `seq 1 20000`.
fn processed(kind: Kind, text: &str) -> u64 {
    let (tool, arg) = kind.shell_tool();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_toolcap"))
        .args([
            "process",
            "--tool",
            tool,
            "--arg",
            &format!("{arg}=seq 1 20000"),
        ])
        .env_remove("TOOLCAP_CONFIG")
        .env_remove("TOOLCAP_STORE")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout).unwrap().chars().count() as u64
}

fn seq() -> String {
    (1..=20000).map(|i| format!("{i}\n")).collect()
}

/// Without toolcap: the agent's own cut reached the model; discover finds the
/// whole output where the agent kept it and counts the result as missed.
fn without(kind: Kind) {
    let Some(bin) = agent::find(kind) else { return };
    let sb = run(kind, &bin, false);
    let d = discover(&sb, kind);
    let (tool, _) = kind.shell_tool();
    assert_eq!(d["agent"], kind.name());
    assert_eq!(u(&d, "sessions"), 1, "{d:#}");
    // (Qwen Code at times reads a short output as "(empty)": the model asks again)
    let echoes = if kind == Kind::QwenCode { 1..=2 } else { 1..=1 };
    assert!(echoes.contains(&(u(&d, "results") - 1)), "seq, echo: {d:#}");
    assert_eq!(u(&d, "unreadable_lines"), 0, "{d:#}");
    let s = row(&d, tool, "seq");
    // Copilot CLI removes its saved file when the session ends: discover knows
    // the output only by the preview the model read, a lower bound, said so
    if kind == Kind::Copilot {
        assert_eq!(u(s, "size_lower_bound"), 1, "{s}");
        assert_eq!(u(s, "through_toolcap"), 0, "{s}");
        assert!(u(s, "chars") < 3_500, "{s}");
        assert_eq!(
            (
                u(&d, "persisted_outputs"),
                u(&d, "persisted_outputs_missing")
            ),
            (1, 1)
        );
        return;
    }
    assert_eq!(
        (u(s, "over_threshold"), u(s, "through_toolcap")),
        (1, 0),
        "{s}"
    );
    assert_eq!(not_through(s, "not_capped"), 1, "{s}");
    // what the model read: the agent's own cut, shorter than the output
    assert!(u(s, "shown_chars") < u(s, "chars"), "{s}");
    let whole = seq();
    match kind {
        // Codex keeps 64 KiB of a command's output, head and tail: a lower bound
        Kind::Codex => {
            assert_eq!(u(s, "size_lower_bound"), 1, "{s}");
            assert_eq!(u(s, "chars"), 65_536, "{s}");
            assert_eq!(u(&d, "persisted_outputs"), 0);
        }
        // Gemini CLI's and Qwen Code's saved file, less its wrapping (it drops
        // the last newline)
        Kind::GeminiCli | Kind::QwenCode => {
            assert_eq!(u(s, "chars"), 108_893, "{s}");
            assert_eq!(u(s, "would_show_chars"), processed(kind, whole.trim_end()));
        }
        // opencode's and Kilo Code's saved file: the whole output
        _ => {
            assert_eq!(u(s, "chars"), 108_894, "{s}");
            assert_eq!(u(s, "would_show_chars"), processed(kind, &whole));
        }
    }
    if kind != Kind::Codex {
        assert_eq!(
            (
                u(&d, "persisted_outputs"),
                u(&d, "persisted_outputs_missing")
            ),
            (1, 0)
        );
    }
    let echo = row(&d, tool, "echo");
    assert!(
        echoes.contains(&not_through(echo, "under_threshold")),
        "{echo}"
    );
    assert_eq!(d["recovery_calls"], serde_json::json!({}));
    // the report lists the missed call, with discover's count
    let page = report(&sb);
    let missed = format!(
        "<tr data-agent=\"{}\"><td>{}</td><td><code>{tool} seq</code></td>",
        kind.name(),
        match kind {
            Kind::Codex => "Codex",
            Kind::GeminiCli => "Gemini CLI",
            Kind::QwenCode => "Qwen Code",
            Kind::Kilo => "Kilo Code",
            Kind::Copilot => "Copilot CLI",
            Kind::Pi => "Pi",
            _ => "opencode",
        }
    );
    let at = page
        .find(&missed)
        .unwrap_or_else(|| panic!("no {missed} row"));
    assert!(page[at..].contains("data-k=\"missed\" data-v=\"1\""));
    assert!(page.contains(&format!("<tr data-agent-total=\"{}\">", kind.name())));
    if kind == Kind::Codex {
        assert!(
            page[at..].contains("at least 65,536"),
            "a lower bound, said so"
        );
    }
    assert_eq!(page_figures(&page)["stores"], 0, "no toolcap store");
}

/// With toolcap: its view reached the model, the model read on with the first
/// suggestion, and discover counts both.
fn with(kind: Kind) {
    let Some(bin) = agent::find(kind) else { return };
    let sb = run(kind, &bin, true);
    let d = discover(&sb, kind);
    let (tool, _) = kind.shell_tool();
    assert_eq!(u(&d, "results"), 3, "seq, the suggestion, echo: {d:#}");
    let s = row(&d, tool, "seq");
    // the size toolcap's view states; the view is what the model read (Qwen
    // Code's hook caps the output out of its frame, which drops the last newline)
    let chars = if kind == Kind::QwenCode {
        108_893
    } else {
        108_894
    };
    assert_eq!(u(s, "chars"), chars, "{s}");
    assert_eq!(
        (u(s, "over_threshold"), u(s, "through_toolcap")),
        (1, 1),
        "{s}"
    );
    assert_eq!(not_through(s, "not_capped"), 0);
    assert!(u(s, "shown_chars") <= 3_500, "{s}");
    // (Qwen Code's first suggestion is toolcap's MCP tool: its install adds it)
    let (follow, asked) = match kind {
        Kind::QwenCode => (
            row(&d, "mcp__toolcap__get_continuation", ""),
            "get_continuation",
        ),
        _ => (row(&d, tool, "toolcap continue"), "toolcap continue"),
    };
    assert_eq!(not_through(follow, "under_threshold"), 1, "{follow}");
    assert_eq!(d["recovery_calls"], serde_json::json!({ asked: 1 }));
    // the command kind is the model's, not toolcap's wrapping of it
    row(&d, tool, "echo");
    // the report: the project's store with the cut result and the call on it
    let f = page_figures(&report(&sb));
    assert_eq!(f["totals"]["results_cut"], 1, "{f}");
    assert_eq!(f["totals"]["recovery_calls"], 1, "{f}");
}

#[test]
fn codex_sessions_without_toolcap() {
    without(Kind::Codex);
}

#[test]
fn codex_sessions_with_toolcap() {
    with(Kind::Codex);
}

#[test]
fn gemini_cli_sessions_without_toolcap() {
    without(Kind::GeminiCli);
}

#[test]
fn gemini_cli_sessions_with_toolcap() {
    with(Kind::GeminiCli);
}

#[test]
fn opencode_sessions_without_toolcap() {
    without(Kind::Opencode);
}

#[test]
fn opencode_sessions_with_toolcap() {
    with(Kind::Opencode);
}

#[test]
fn qwen_code_sessions_without_toolcap() {
    without(Kind::QwenCode);
}

#[test]
fn qwen_code_sessions_with_toolcap() {
    with(Kind::QwenCode);
}

#[test]
fn kilo_sessions_without_toolcap() {
    without(Kind::Kilo);
}

#[test]
fn kilo_sessions_with_toolcap() {
    with(Kind::Kilo);
}

#[test]
fn copilot_sessions_without_toolcap() {
    without(Kind::Copilot);
}

#[test]
fn copilot_sessions_with_toolcap() {
    with(Kind::Copilot);
}

#[test]
fn pi_sessions_without_toolcap() {
    without(Kind::Pi);
}

#[test]
fn pi_sessions_with_toolcap() {
    with(Kind::Pi);
}

/// A rollout line that is not JSON is counted and the rest still read.
#[test]
fn codex_unreadable_lines_are_counted() {
    let Some(bin) = agent::find(Kind::Codex) else {
        return;
    };
    let sb = run(Kind::Codex, &bin, false);
    let before = discover(&sb, Kind::Codex);
    let mut dirs = vec![sb.home.join(".codex/sessions")];
    let mut rollout = None;
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                rollout = Some(p);
            }
        }
    }
    let rollout = rollout.expect("a rollout file");
    let mut text = std::fs::read(&rollout).unwrap();
    text.extend_from_slice(b"{\"type\": \"response_item\", cut off\n");
    std::fs::write(&rollout, text).unwrap();
    let after = discover(&sb, Kind::Codex);
    assert_eq!(u(&after, "unreadable_lines"), 1);
    assert_eq!(after["tools"], before["tools"]);
}
