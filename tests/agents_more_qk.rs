//! Qwen Code and Kilo Code with toolcap (issue 35), driven as real binaries
//! (installed by `bash .ci/install-agents`) against the scripted model server of
//! tests/agents/server.rs, which both reach through the Chat Completions API.
//!
//! - The shell round trip of tests/agents_e2e.rs (a failing 79 KB test run capped
//!   to toolcap's view with exact counts, the failures and the exit status; its
//!   first suggestion followed as printed gives the original's exact lines), and
//!   what each agent sends without toolcap.
//! - Parity: the same scripted calls with and without `toolcap install <agent>
//!   --project` under the agent's own deny rule — the denied `rm` is denied in
//!   both, a short output and its exit status come back byte for byte the same, a
//!   long one reaches the model as toolcap's view with its last line and status,
//!   and the agent's file read and search tools are capped where they are long.
//! - Fail open: a third run of the same calls with the toolcap program gone after
//!   install gives every result as without toolcap.
//!
//! Without the agents (or python3) these tests are skipped with the reason; under
//! CI=true they fail.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::agents_e2e::agent::{self, Kind, Sandbox, test_command};
use crate::agents_e2e::server::{Call, Script, Server};
use crate::agents_e2e::{
    filesystem_server, shell_call, shell_round_trip, shell_round_trip_of, without_toolcap,
};

/// Qwen Code sends a command that exits non-zero through `PostToolUseFailure`,
/// whose reply can only add context: the test run is followed by an `echo` of
/// its status, so the command succeeds and its 79 KB output is capped. The
/// suggestion followed is toolcap's MCP tool (`mcp__toolcap__get_continuation`).
#[test]
fn qwen_code_shell_through_its_post_tool_use_hook() {
    let command = settle(
        Kind::QwenCode,
        &format!("{} 2>&1; echo \"unittest exit status: $?\"", test_command()),
    );
    shell_round_trip_of(Kind::QwenCode, &command, 0);
}

#[test]
fn kilo_bash_through_the_opencode_plugin() {
    shell_round_trip(Kind::Kilo);
}

#[test]
fn qwen_code_without_toolcap() {
    without_toolcap(Kind::QwenCode);
}

#[test]
fn kilo_without_toolcap() {
    without_toolcap(Kind::Kilo);
}

/// How toolcap is set up for a run.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Toolcap {
    /// Not installed.
    Without,
    /// `toolcap install <agent> --project`.
    Installed,
    /// Installed from a copy of the program that is then removed.
    Removed,
}

/// A real file of a few thousand lines: Python's own inspect.py.
fn big_source() -> String {
    let out = std::process::Command::new("python3")
        .args(["-c", "import inspect; print(inspect.__file__)"])
        .output()
        .expect("python3 runs");
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    assert!(text.len() > 100_000, "{path} is {} bytes", text.len());
    text
}

/// One run of `kind`: `setup` writes the agent's rules, `calls` (made from the
/// sandbox, for its paths) are the scripted model's calls in order. The tool
/// results the model got, in order, and the sandbox.
fn run(
    kind: Kind,
    bin: &Path,
    toolcap: Toolcap,
    setup: &dyn Fn(&Sandbox),
    calls: &dyn Fn(&Sandbox) -> Vec<Call>,
) -> (Vec<String>, Sandbox) {
    let sb = Sandbox::new();
    let calls = calls(&sb);
    let n = calls.len();
    let script: Script = Arc::new(move |results: &[String]| calls.get(results.len()).cloned());
    let server = Server::start(kind.api(), script);
    sb.configure(kind, &server);
    setup(&sb);
    if toolcap != Toolcap::Without {
        let project = sb.project.display().to_string();
        let copy = sb.home.join("bin").join("toolcap");
        let program = match toolcap {
            Toolcap::Removed => {
                std::fs::create_dir_all(copy.parent().expect("a parent")).expect("make bin");
                std::fs::copy(env!("CARGO_BIN_EXE_toolcap"), &copy).expect("copy toolcap");
                copy.display().to_string()
            }
            _ => env!("CARGO_BIN_EXE_toolcap").to_string(),
        };
        let (ok, out, err) = sb.toolcap(&[
            "install",
            kind.name(),
            "--project",
            &project,
            "--toolcap",
            &program,
        ]);
        assert!(ok, "toolcap install {} failed:\n{out}\n{err}", kind.name());
        if toolcap == Toolcap::Removed {
            std::fs::remove_file(&copy).expect("remove the copy");
        }
    }
    let run = sb.run_agent(kind, bin, &server, &[]);
    assert!(run.success, "{}", run.describe());
    let results = server
        .turns()
        .into_iter()
        .max_by_key(Vec::len)
        .unwrap_or_default();
    assert_eq!(
        results.len(),
        n,
        "{} ({toolcap:?}): every scripted call got a result\n{}",
        kind.name(),
        run.describe()
    );
    (results, sb)
}

/// A result without what may differ between two runs: the lines sorted (a
/// command's stdout and stderr may interleave in another order).
fn steady(result: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = result
        .lines()
        .filter(|l| !l.starts_with("Process Group PGID:"))
        .collect();
    lines.sort_unstable();
    lines
}

/// `command` as the scripted model sends it to `kind`. Qwen Code 0.24.4 at times
/// sends `Output: (empty)` for a command that printed and exited at once (2 of
/// 15 quick commands in one try, without toolcap, in its pty and its pipe shell
/// alike; none of 15 that waited 0.3 s before they exited): for Qwen Code the
/// command waits before its last step, so both runs compare what it printed.
fn settle(kind: Kind, command: &str) -> String {
    if kind != Kind::QwenCode {
        return command.to_string();
    }
    match command.rsplit_once("; exit ") {
        Some((body, code)) => format!("{body}; sleep 0.3; exit {code}"),
        None => format!("{command}; sleep 0.3"),
    }
}

/// The agent's own deny rule for `rm`, and the filesystem MCP server (its
/// `index.js`) serving the project.
fn deny_rm(kind: Kind, sb: &Sandbox, fs_js: &Path) {
    sb.write("victim.txt", "keep me\n");
    sb.write("inspect.py", &big_source());
    let project = sb.project.display().to_string();
    let fs_js = fs_js.display().to_string();
    match kind {
        // Claude-style permission rules in the user's settings
        Kind::QwenCode => sb.write(
            "~/.qwen/settings.json",
            &json!({"permissions": {"deny": ["Bash(rm *)"]},
                    "tools": {"shell": {"enableInteractiveShell": false}},
                    "mcpServers": {"fs": {"command": "node", "args": [fs_js, project]}}})
            .to_string(),
        ),
        // opencode's rules, merged into the kilo.json Sandbox::configure wrote
        Kind::Kilo => {
            let path = sb.project.join("kilo.json");
            let text = std::fs::read_to_string(&path).expect("read kilo.json");
            let mut v: Value = serde_json::from_str(&text).expect("kilo.json is JSON");
            v["permission"] = json!({"bash": {"*": "allow", "rm *": "deny"}});
            v["mcp"] = json!({"fs": {"type": "local", "command": ["node", fs_js, project]}});
            sb.write("kilo.json", &v.to_string());
        }
        _ => unreachable!("Qwen Code and Kilo only"),
    }
}

/// The calls of the parity runs: rm (denied), a short output with a status, the
/// agent's file read and search tools on a real 3,000-line file, a long output
/// with a status and one without, the filesystem MCP server's read of the file.
fn parity_calls(kind: Kind, sb: &Sandbox) -> Vec<Call> {
    let file = sb.project.join("inspect.py").display().to_string();
    let dir = sb.project.display().to_string();
    let (read, grep) = match kind {
        Kind::QwenCode => (
            Call {
                name: "read_file".into(),
                args: json!({"file_path": file}),
            },
            Call {
                name: "grep_search".into(),
                args: json!({"pattern": "def ", "path": dir}),
            },
        ),
        _ => (
            Call {
                name: "read".into(),
                args: json!({"filePath": file}),
            },
            Call {
                name: "grep".into(),
                args: json!({"pattern": "def ", "path": dir}),
            },
        ),
    };
    vec![
        shell_call(kind, "rm -f victim.txt; echo removed"),
        shell_call(kind, &settle(kind, "echo hi; echo err >&2; exit 3")),
        read,
        grep,
        shell_call(kind, &settle(kind, "seq 1 20000; exit 4")),
        shell_call(kind, &settle(kind, "seq 1 20000")),
        Call {
            name: kind.mcp_tool("fs", "read_text_file"),
            args: json!({ "path": file }),
        },
    ]
}

fn parity(kind: Kind) {
    let Some(bin) = agent::find(kind) else { return };
    let Some(fs_js) = filesystem_server() else {
        return;
    };
    let setup = move |sb: &Sandbox| deny_rm(kind, sb, &fs_js);
    let calls = move |sb: &Sandbox| parity_calls(kind, sb);
    let (without, sb0) = run(kind, &bin, Toolcap::Without, &setup, &calls);
    let (with, sb1) = run(kind, &bin, Toolcap::Installed, &setup, &calls);
    // fail open: with the program gone after install, every result is as without
    let (removed, sb2) = run(kind, &bin, Toolcap::Removed, &setup, &calls);
    for (i, (a, b)) in without.iter().zip(&removed).enumerate() {
        assert_eq!(
            own_cut(&a.replace(&sb0.project.display().to_string(), "PROJECT")),
            own_cut(&b.replace(&sb2.project.display().to_string(), "PROJECT")),
            "{}: toolcap removed: result {i}",
            kind.name()
        );
    }
    assert!(
        sb2.project.join("victim.txt").exists(),
        "toolcap removed: the denied rm ran"
    );
    for (results, sb, who) in [(&without, &sb0, "without"), (&with, &sb1, "with")] {
        assert!(
            sb.project.join("victim.txt").exists(),
            "{who} toolcap: the denied rm ran: {:?}",
            results[0]
        );
    }
    assert_eq!(without[0], with[0], "the rm denial reads the same");
    assert_eq!(
        steady(&without[1]),
        steady(&with[1]),
        "a short output and its status come back as without toolcap"
    );
    if kind == Kind::QwenCode {
        assert!(with[1].contains("\nExit Code: 3"), "{}", with[1]);
    }
    // the file read and the search: toolcap's view where the agent sent more
    for (i, what) in [(2, "file read"), (3, "search"), (6, "MCP read_text_file")] {
        let (a, b) = (without[i].chars().count(), with[i].chars().count());
        // (Qwen Code's own cut of an MCP result is a 2.5 KB preview and a saved file)
        let shorter = b < a || (kind == Kind::QwenCode && i == 6);
        assert!(
            with[i].contains("--- Recovery Options ---") && shorter && b <= 5_000,
            "{}: the {what} came back {b} chars with toolcap, {a} without:\n{}",
            kind.name(),
            with[i]
        );
        eprintln!(
            "{}: {what}: {a} chars without toolcap, {b} with",
            kind.name()
        );
    }
    // a long output: its view ends with the last line, and the status is kept
    let last = if kind == Kind::QwenCode {
        // a failing command goes through PostToolUseFailure: Qwen Code's own cut
        assert_eq!(
            own_cut(&without[4]),
            own_cut(&with[4]),
            "a failing command's result is Qwen Code's own"
        );
        assert!(with[4].contains("\nExit Code: 4"), "{}", with[4]);
        assert!(with[5].contains("\nExit Code: 0"), "{}", with[5]);
        5
    } else {
        assert!(
            kind.shell_view(&with[4]).contains("exit code 4"),
            "{}",
            with[4]
        );
        4
    };
    let long = kind.shell_view(&with[last]);
    assert!(
        long.chars().count() <= 3_500 && long.contains("\n20000\n"),
        "{}",
        with[last]
    );
    eprintln!(
        "{}: seq 1 20000: {} chars without toolcap, {} with",
        kind.name(),
        without[last].chars().count(),
        with[last].chars().count()
    );
}

/// An agent's own cut of a long result, without the path of the file it saved
/// the whole output to (a new one each run).
fn own_cut(result: &str) -> Vec<String> {
    let lines: Vec<String> = steady(result)
        .into_iter()
        .filter(|l| !l.contains("/tool-output/") && !l.contains("/.qwen/tmp/"))
        .map(str::to_string)
        .collect();
    // What Kilo keeps after its own "...output truncated..." depends on how the
    // output arrived in chunks (under load: lines 18002-20000 in one run,
    // 19602-20000 in another, a stray piece after them): compared up to the marker.
    match lines.iter().position(|l| l == "...output truncated...") {
        Some(at) => lines[..=at].to_vec(),
        None => lines,
    }
}

#[test]
fn qwen_code_rules_and_results_as_without_toolcap_and_fails_open() {
    parity(Kind::QwenCode);
}

#[test]
fn kilo_rules_and_results_as_without_toolcap_and_fails_open() {
    parity(Kind::Kilo);
}

/// `toolcap ARGS` with HOME (and nothing else of the user's) at `home`.
fn toolcap_at(home: &Path, args: &[&str], stdin: Option<&str>) -> (bool, String) {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_toolcap"))
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("TOOLCAP_STORE")
        .current_dir(home)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("toolcap runs");
    if let Some(mut pipe) = child.stdin.take() {
        pipe.write_all(stdin.unwrap_or_default().as_bytes())
            .expect("write stdin");
    }
    let out = child.wait_with_output().expect("toolcap ends");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// `toolcap install qwen-code|kilo`, user and project scope: the user's files
/// (JSONC with comments included) keep every byte of theirs, a second install
/// changes nothing, `--dry-run` writes nothing, `--uninstall` gives the files
/// back byte for byte, and `toolcap doctor` sees each install.
#[test]
fn qwen_code_and_kilo_install_round_trips() {
    let tmp = tempfile::tempdir().expect("tmp");
    let home = tmp.path();
    let proj = home.join("p");
    let qwen_user = home.join(".qwen/settings.json");
    let kilo_user = home.join(".config/kilo/kilo.jsonc");
    let kilo_proj = proj.join("kilo.json");
    let files = [
        (
            qwen_user.clone(),
            "{\n  // my model\n  \"model\": {\"name\": \"qwen3-coder-plus\"},\n  \"permissions\": {\"deny\": [\"Bash(rm *)\"]}\n}\n",
        ),
        // as Kilo writes it on its first start, plus a comment of the user's
        (
            kilo_user.clone(),
            "{\n  \"$schema\": \"https://app.kilo.ai/config.json\"\n  /* mine */\n}",
        ),
        (kilo_proj.clone(), "{\"model\":\"mock/m\"}\n"),
    ];
    for (p, t) in &files {
        std::fs::create_dir_all(p.parent().expect("a dir")).expect("dirs");
        std::fs::write(p, t).expect("write");
    }
    let p = proj.to_str().expect("utf-8");
    let t = "/opt/toolcap/bin/toolcap";
    let runs: [&[&str]; 4] = [
        &["install", "qwen-code", "--toolcap", t],
        &["install", "kilo", "--toolcap", t],
        &["install", "qwen-code", "--project", p, "--toolcap", t],
        &["install", "kilo-code", "--project", p, "--toolcap", t],
    ];
    for args in runs {
        let mut dry = args.to_vec();
        dry.push("--dry-run");
        let (ok, out) = toolcap_at(home, &dry, None);
        assert!(ok && out.contains("nothing written"), "{args:?}: {out}");
    }
    for (p, t) in &files {
        assert_eq!(&std::fs::read_to_string(p).expect("read"), t, "dry run");
    }
    assert!(!proj.join(".qwen").exists());
    for args in runs {
        let (ok, out) = toolcap_at(home, args, None);
        assert!(ok, "{args:?}: {out}");
        let (ok, again) = toolcap_at(home, args, None);
        assert!(
            ok && again.contains("nothing to change"),
            "{args:?}: {again}"
        );
    }
    let qwen = std::fs::read_to_string(&qwen_user).expect("read");
    assert!(qwen.starts_with("{\n  // my model\n"), "{qwen}");
    assert!(qwen.contains("[ -x /opt/toolcap/bin/toolcap ] || exit 0; exec /opt/toolcap/bin/toolcap hook qwen-code"), "{qwen}");
    assert!(
        qwen.contains(
            "\"^(run_shell_command|read_file|grep_search|glob|list_directory|web_fetch|mcp__.*)$\""
        ),
        "{qwen}"
    );
    let kilo = std::fs::read_to_string(&kilo_user).expect("read");
    assert!(
        kilo.contains("/* mine */") && kilo.contains("\"plugin\""),
        "{kilo}"
    );
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&kilo_proj).expect("read")).expect("JSON");
    assert_eq!(v["model"], "mock/m");
    let plugin = v["plugin"][0].as_str().expect("the plugin URL");
    let plugin = plugin.strip_prefix("file://").expect("a file URL");
    assert!(
        plugin.starts_with(
            home.join(".local/state/toolcap/agents")
                .to_str()
                .expect("utf-8")
        ),
        "{plugin}"
    );
    let ts = std::fs::read_to_string(plugin).expect("the plugin file");
    assert!(ts.contains("TOOLCAP_BIN ?? \"/opt/toolcap/bin/toolcap\""));
    assert_eq!(v["mcp"]["toolcap"]["command"], json!([t, "mcp"]));
    // doctor sees both, in the project and for the user; the program is missing here
    let (ok, doc) = toolcap_at(home, &["doctor", "--project", p, "--json"], None);
    assert!(ok, "{doc}");
    let doc: Value = serde_json::from_str(&doc).expect("doctor --json");
    for agent in ["qwen-code", "kilo"] {
        let a = doc["agents"]
            .as_array()
            .and_then(|l| l.iter().find(|a| a["agent"] == agent))
            .unwrap_or_else(|| panic!("{agent} in {doc}"));
        assert_eq!(a["installed_in"].as_array().map(Vec::len), Some(2), "{a}");
        assert_eq!(a["active"], false, "{a}");
        assert_eq!(a["programs"][0]["path"], t, "{a}");
    }
    for args in runs {
        let mut un = args.to_vec();
        un.push("--uninstall");
        let (ok, out) = toolcap_at(home, &un, None);
        assert!(ok, "{args:?}: {out}");
    }
    for (p, t) in &files {
        assert_eq!(
            &std::fs::read_to_string(p).expect("read"),
            t,
            "{}",
            p.display()
        );
    }
    assert!(!proj.join(".qwen").exists(), "the project's .qwen/ is left");
    assert!(!Path::new(plugin).exists(), "the plugin file is left");
}

/// `toolcap hook qwen-code` for each kind of tool Qwen Code's matcher sends it: a
/// long result is replaced (`continue: false`, the view as `stopReason`), a
/// short one is left alone; a shell result keeps Qwen Code's frame and status.
#[test]
fn qwen_code_hook_caps_each_kind_of_tool() {
    let tmp = tempfile::tempdir().expect("tmp");
    let home = tmp.path();
    let long: String = (1..=5000)
        .map(|i| format!("line {i} of a long result\n"))
        .collect();
    for (tool, input) in [
        ("read_file", json!({"file_path": "/p/big.txt"})),
        ("grep_search", json!({"pattern": "line"})),
        ("glob", json!({"pattern": "**/*"})),
        ("list_directory", json!({"path": "/p"})),
        (
            "web_fetch",
            json!({"url": "https://example.org/", "prompt": "read it"}),
        ),
        ("mcp__fs__read_text_file", json!({"path": "/p/big.txt"})),
    ] {
        for (text, capped) in [(long.as_str(), true), ("one\ntwo\n", false)] {
            let hook_input = json!({"hook_event_name": "PostToolUse", "tool_name": tool,
                "tool_input": input, "tool_response": {"llmContent": text, "returnDisplay": "x"},
                "tool_use_id": "toolu_1", "tool_call_id": format!("call_{tool}")});
            let (ok, out) = toolcap_at(home, &["hook", "qwen-code"], Some(&hook_input.to_string()));
            assert!(ok, "{tool}: {out}");
            if !capped {
                assert_eq!(out, "", "{tool}: a short result is left alone");
                continue;
            }
            let reply: Value = serde_json::from_str(&out).expect("a JSON reply");
            assert_eq!(reply["continue"], false, "{tool}");
            let view = reply["stopReason"].as_str().expect("the view");
            assert!(
                view.len() < 6_000 && view.contains("--- Recovery Options ---"),
                "{tool}: {view}"
            );
            assert!(
                view.contains(&format!("continue call_{tool}")),
                "{tool}: {view}"
            );
        }
    }
    // a shell result Qwen Code cut and saved: read whole, the frame kept
    let whole: String = (1..=20000).map(|i| format!("{i}\n")).collect();
    let framed = format!(
        "Command: seq 1 20000; exit 3\nDirectory: (root)\nOutput: {}\nError: (none)\nExit Code: 3\nSignal: (none)\nProcess Group PGID: 77",
        whole.trim_end()
    );
    let saved = home.join(".qwen/tmp/h/run_shell_command_1.output");
    std::fs::create_dir_all(saved.parent().expect("a dir")).expect("mkdir");
    std::fs::write(&saved, &framed).expect("write");
    let llm = format!(
        "Tool output was too large and has been truncated.\nThe full output has been saved to: {}\nTo read the complete output, use the read_file tool.\n\nTruncated part of the output:\n{}",
        saved.display(),
        &framed[..2000]
    );
    let hook_input = json!({"hook_event_name": "PostToolUse", "tool_name": "run_shell_command",
        "tool_input": {"command": "seq 1 20000; exit 3", "is_background": false},
        "tool_response": {"llmContent": llm}, "tool_use_id": "toolu_2", "tool_call_id": "call_s"});
    let (ok, out) = toolcap_at(home, &["hook", "qwen-code"], Some(&hook_input.to_string()));
    assert!(ok, "{out}");
    let reply: Value = serde_json::from_str(&out).expect("a JSON reply");
    let view = reply["stopReason"].as_str().expect("the view");
    assert!(
        view.starts_with("Command: seq 1 20000; exit 3\nDirectory: (root)\nOutput: 1\n2\n"),
        "{view}"
    );
    assert!(
        view.ends_with("\nError: (none)\nExit Code: 3\nSignal: (none)\nProcess Group PGID: 77"),
        "{view}"
    );
    assert!(
        view.contains("Output: 20,000 lines, 108,893 chars") && view.contains("exit code 3"),
        "{view}"
    );
}
