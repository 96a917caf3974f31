//! Pi (@mariozechner/pi-coding-agent 0.73.1) end to end (issue 35): the real `pi`,
//! installed from npm by `bash .ci/install-agents`, run with `-p` in a throwaway
//! project against the scripted model server (Chat Completions, a custom provider
//! in `~/.pi/agent/models.json`), after `toolcap install pi --project DIR`.
//!
//! toolcap's Pi extension caps a tool's result after the tool ran (`tool_result`),
//! so nothing Pi or another extension decides before a tool runs can change:
//! - the shell round trip of tests/agents_e2e.rs (the failing test run, its view,
//!   the stored original against a direct run, the exit status, the first
//!   suggestion followed as printed);
//! - `read`, `grep` and `ls` over the threshold capped, a ranged `read` and every
//!   short result exactly as without toolcap (`find` needs fd 8.7 or later, which
//!   Pi downloads from GitHub when it is missing: its result goes through the same
//!   hook, checked with `toolcap hook pi` directly);
//! - a `tool_call` gate (Pi's own permission-gate.ts example) and a `--tools`
//!   allow list decide as without toolcap;
//! - with the toolcap program removed, Pi behaves as without toolcap.
//!
//! Without Pi (or python3) these tests are skipped with the reason; under CI=true
//! they fail.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::agents_e2e::agent::{self, Kind, Sandbox, agents_dir};
use crate::agents_e2e::server::{Call, Script, Server};
use crate::agents_e2e::{first_suggestion, lines, shell_round_trip, shown_until, without_toolcap};

const THRESHOLD: usize = 3_500;

pub(crate) fn call(name: &str, args: Value) -> Call {
    Call {
        name: name.to_string(),
        args,
    }
}

fn bash(command: &str) -> Call {
    call("bash", json!({ "command": command }))
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Toolcap {
    Without,
    Installed,
    /// installed, then the toolcap program it names removed
    Removed,
    /// installed, then the toolcap program it names replaced by one that never
    /// answers (the hook's time limit set to 2 s)
    Hangs,
}

/// One run of `kind` (`pi -p`, `copilot -p`): the tool results the model got
/// (in order) and the sandbox.
pub(crate) fn run(
    kind: Kind,
    bin: &Path,
    toolcap: Toolcap,
    setup: &dyn Fn(&Sandbox),
    extra: &[&str],
    script: Script,
) -> (Vec<String>, Sandbox) {
    let sb = Sandbox::new();
    let server = Server::start(kind.api(), script);
    sb.configure(kind, &server);
    setup(&sb);
    let project = sb.project.display().to_string();
    let mut install = vec!["install", kind.name(), "--project", &project];
    let copy = sb.home.join("bin").join("toolcap");
    let copy_s = copy.display().to_string();
    if matches!(toolcap, Toolcap::Removed | Toolcap::Hangs) {
        std::fs::create_dir_all(sb.home.join("bin")).expect("make bin");
        std::fs::copy(env!("CARGO_BIN_EXE_toolcap"), &copy).expect("copy toolcap");
        install.extend(["--toolcap", &copy_s]);
    }
    if toolcap != Toolcap::Without {
        let (ok, out, err) = sb.toolcap(&install);
        assert!(ok, "toolcap install {} failed:\n{out}\n{err}", kind.name());
    }
    if toolcap == Toolcap::Removed {
        std::fs::remove_file(&copy).expect("remove the copy");
    }
    if toolcap == Toolcap::Hangs {
        std::fs::remove_file(&copy).expect("remove the copy");
        std::fs::write(&copy, "#!/bin/sh\nexec sleep 600\n").expect("write the hanging program");
        std::fs::set_permissions(&copy, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .expect("make it executable");
        sb.set_env("TOOLCAP_HOOK_TIMEOUT_MS", "2000");
    }
    let run = sb.run_agent(kind, bin, &server, extra);
    assert!(
        run.success,
        "{} ({toolcap:?}): {}",
        kind.name(),
        run.describe()
    );
    let results = server
        .turns()
        .into_iter()
        .max_by_key(Vec::len)
        .unwrap_or_default();
    (results, sb)
}

/// The scripted model: the calls in order (whatever comes back), then "done".
pub(crate) fn calls_script(calls: Vec<Call>) -> Script {
    Arc::new(move |results: &[String]| calls.get(results.len()).cloned())
}

/// Pi's own output files are named at random: `/tmp/pi-bash-<hex>.log`.
fn without_temp_names(results: &[String]) -> Vec<String> {
    results
        .iter()
        .map(|r| {
            let mut out = String::new();
            let mut rest = r.as_str();
            while let Some(at) = rest.find("pi-bash-") {
                out.push_str(&rest[..at]);
                let tail = &rest[at + "pi-bash-".len()..];
                let end = tail
                    .find(|c: char| !c.is_ascii_hexdigit())
                    .unwrap_or(tail.len());
                out.push_str("pi-bash-X");
                rest = &tail[end..];
            }
            out.push_str(rest);
            out
        })
        .collect()
}

#[test]
fn pi_bash_capped_after_it_ran() {
    shell_round_trip(Kind::Pi);
}

#[test]
fn pi_without_toolcap() {
    without_toolcap(Kind::Pi);
}

/// A real file to read (Python's typing.py, 120,077 chars), 500 small files to
/// list.
fn files(sb: &Sandbox) {
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/read_file/typing.py");
    std::fs::copy(&real, sb.project.join("typing.py")).expect("copy typing.py");
    for i in 0..500 {
        sb.write(&format!("many/module_{i:03}.txt"), "x\n");
    }
}

/// `read`, `grep` and `ls` (Pi's optional tools, named in `--tools`) over
/// the threshold reach the model as toolcap's view; a ranged read and the short
/// results are exactly as without toolcap; the read's first suggestion, followed
/// through `bash` as printed, returns the file's exact lines.
#[test]
fn pi_read_grep_ls_capped_short_results_unchanged() {
    let Some(bin) = agent::find(Kind::Pi) else {
        return;
    };
    let calls = vec![
        call("read", json!({"path": "typing.py"})),
        call("grep", json!({"pattern": "def ", "path": "typing.py"})),
        call("ls", json!({"path": "many"})),
        call(
            "read",
            json!({"path": "typing.py", "offset": 100, "limit": 20}),
        ),
        bash("echo hi; echo err >&2"),
        bash("seq 1 3000 | tail -2; exit 3"),
    ];
    let n = calls.len();
    let scripted = calls.clone();
    let follow: Script = Arc::new(move |results: &[String]| match results.len() {
        i if i < n => scripted.get(i).cloned(),
        i if i == n => first_suggestion(&results[0]).map(|s| s.as_call(Kind::Pi)),
        _ => None,
    });
    let tools = ["--tools", "read,bash,grep,find,ls"];
    let (without, _) = run(
        Kind::Pi,
        &bin,
        Toolcap::Without,
        &files,
        &tools,
        calls_script(calls),
    );
    let (with, sb) = run(Kind::Pi, &bin, Toolcap::Installed, &files, &tools, follow);
    assert_eq!(with.len(), n + 1, "every call got a result: {with:#?}");
    for (i, name) in [(0, "read"), (1, "grep"), (2, "ls")] {
        let got = &with[i];
        assert!(
            got.chars().count() <= THRESHOLD && got.contains("\n--- Recovery Options ---\n"),
            "{name}: the model got {} chars without toolcap's view:\n{got}",
            got.chars().count()
        );
        assert!(
            without[i].chars().count() > got.chars().count(),
            "{name}: Pi alone sent {} chars, with toolcap {}",
            without[i].chars().count(),
            got.chars().count()
        );
        eprintln!(
            "pi {name}: {} chars without toolcap, {} with",
            without[i].chars().count(),
            got.chars().count()
        );
    }
    // Pi's own notices stay after the view: the file goes on, the matches were limited
    assert!(
        with[0].trim_end().ends_with("to continue.]") && with[0].contains("Use offset="),
        "{}",
        with[0]
    );
    assert!(with[1].contains("matches limit reached"), "{}", with[1]);
    // the ranged read and the short shell results, byte for byte
    assert_eq!(with[3..n], without[3..n]);
    assert!(
        with[5].ends_with("Command exited with code 3"),
        "{}",
        with[5]
    );

    // the read's first suggestion, as printed, gives the stored lines exactly
    let s = first_suggestion(&with[0]).expect("a suggestion");
    let (id, a, b) = s.target().expect("a stored range");
    assert_eq!(id, "call_e2e_0", "stored under Pi's tool call id");
    let (ok, original, err) = sb.toolcap(&["show", &id]);
    assert!(ok, "toolcap show {id}: {err}");
    let b = b.or_else(|| shown_until(&with[n])).unwrap_or(a);
    let want = lines(&original, a, b);
    assert!(
        with[n].contains(&want),
        "following {s:?} gave:\n{}\n--- expected lines {a}-{b}:\n{want}",
        with[n]
    );
    let file = std::fs::read_to_string(sb.project.join("typing.py")).expect("typing.py");
    assert!(
        file.starts_with(&lines(&original, 1, 100)),
        "the stored read is the file's text"
    );
}

/// Pi has no permission rules of its own; what decides is an extension's
/// `tool_call` gate (here Pi's own examples/extensions/permission-gate.ts, which
/// blocks `rm -rf` without a UI) and the `--tools` allow list: both decide as
/// without toolcap, and what they let through runs.
#[test]
fn pi_permission_gate_and_tool_list_as_without_toolcap() {
    let Some(bin) = agent::find(Kind::Pi) else {
        return;
    };
    let gate = agents_dir()
        .join("node_modules/@mariozechner/pi-coding-agent/examples/extensions/permission-gate.ts");
    let gate_text = std::fs::read_to_string(&gate)
        .unwrap_or_else(|e| panic!("{}: {e} (bash .ci/install-agents)", gate.display()));
    let setup = move |sb: &Sandbox| {
        sb.write(".pi/extensions/permission-gate.ts", &gate_text);
        sb.write("victim/keep.txt", "keep me\n");
    };
    let calls = [
        bash("rm -rf victim; echo removed"),
        bash("seq 1 20000 | wc -l"),
    ];
    let mut seen = Vec::new();
    for toolcap in [Toolcap::Without, Toolcap::Installed] {
        let (results, sb) = run(
            Kind::Pi,
            &bin,
            toolcap,
            &setup,
            &[],
            calls_script(calls.to_vec()),
        );
        assert!(
            sb.project.join("victim/keep.txt").exists(),
            "{toolcap:?}: the gate kept rm -rf from running: {results:#?}"
        );
        seen.push(results);
    }
    assert_eq!(seen[0], seen[1], "the gate decides as without toolcap");
    assert!(
        seen[0][0].contains("Dangerous command blocked"),
        "{seen:#?}"
    );
    assert_eq!(seen[0][1].trim(), "20000");

    // --tools without bash: the model's bash call finds no tool, in both
    let calls = [bash("touch made.txt; echo made")];
    let mut seen = Vec::new();
    for toolcap in [Toolcap::Without, Toolcap::Installed] {
        let (results, sb) = run(
            Kind::Pi,
            &bin,
            toolcap,
            &|_: &Sandbox| {},
            &["--tools", "read,ls"],
            calls_script(calls.to_vec()),
        );
        assert!(
            !sb.project.join("made.txt").exists(),
            "{toolcap:?}: {results:#?}"
        );
        seen.push(results);
    }
    assert_eq!(seen[0], seen[1]);
    assert!(seen[0][0].contains("not found"), "{seen:#?}");
}

/// With the toolcap program gone, the extension steps aside: every result is
/// Pi's own (its own cut of a long output included), exit statuses as they were.
#[test]
fn pi_fails_open_without_the_toolcap_program() {
    let Some(bin) = agent::find(Kind::Pi) else {
        return;
    };
    let calls = vec![
        bash("echo hi; echo err >&2"),
        bash("seq 1 3000 | tail -2; exit 3"),
        bash("seq 1 20000"),
    ];
    let none = |_: &Sandbox| {};
    let (without, _) = run(
        Kind::Pi,
        &bin,
        Toolcap::Without,
        &none,
        &[],
        calls_script(calls.clone()),
    );
    let (removed, _) = run(
        Kind::Pi,
        &bin,
        Toolcap::Removed,
        &none,
        &[],
        calls_script(calls),
    );
    assert_eq!(without.len(), 3, "{without:#?}");
    assert_eq!(without_temp_names(&without), without_temp_names(&removed));
    assert!(removed[1].ends_with("Command exited with code 3"));
    assert!(removed[2].contains("[Showing lines "), "Pi's own cut");
}

/// A toolcap program that never answers (hung on a FIFO, a stuck disk) holds no
/// call up past the hook's time limit: each result is Pi's own, as without
/// toolcap (issue 44, item 2: the extensions spawn the hook with a timeout).
#[test]
fn pi_goes_on_when_the_hook_hangs() {
    let Some(bin) = agent::find(Kind::Pi) else {
        return;
    };
    let calls = vec![bash("echo hi"), bash("seq 1 20000")];
    let none = |_: &Sandbox| {};
    let (without, _) = run(
        Kind::Pi,
        &bin,
        Toolcap::Without,
        &none,
        &[],
        calls_script(calls.clone()),
    );
    let started = std::time::Instant::now();
    let (hung, _) = run(
        Kind::Pi,
        &bin,
        Toolcap::Hangs,
        &none,
        &[],
        calls_script(calls),
    );
    assert_eq!(without_temp_names(&without), without_temp_names(&hung));
    // two hook calls of 2 s each, not the hung program's 600 s
    assert!(
        started.elapsed() < std::time::Duration::from_secs(120),
        "{:?}",
        started.elapsed()
    );
}

/// Pi's `find` result (its text: one path a line) goes through the same hook as
/// `ls`: over the threshold it is capped and stored under the call id; a short one
/// gets no reply (Pi keeps its own text).
#[test]
fn pi_find_result_capped_by_the_hook() {
    let sb = Sandbox::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths: Vec<String> = Vec::new();
    for dir in ["src", "tests", "fixtures"] {
        let mut stack = vec![root.join(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if let Ok(rel) = p.strip_prefix(root) {
                    paths.push(rel.display().to_string());
                }
            }
        }
    }
    paths.sort();
    let text = paths.join("\n");
    assert!(text.chars().count() > THRESHOLD, "a long listing");
    let ask = |output: &str| {
        let input = json!({"tool": "find", "callID": "call_find_1",
            "args": {"pattern": "*"}, "output": output, "details": null, "isError": false});
        let mut child = sb
            .command(Path::new(env!("CARGO_BIN_EXE_toolcap")))
            .args(["hook", "pi"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("run toolcap hook pi");
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.to_string().as_bytes())
            .expect("write the input");
        let out = child.wait_with_output().expect("wait");
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let reply: Value = serde_json::from_str(&ask(&text)).expect("a JSON reply");
    let view = reply["output"].as_str().expect("output");
    assert!(view.chars().count() <= THRESHOLD, "{view}");
    assert!(view.contains("--- Recovery Options ---"), "{view}");
    let (ok, stored, _) = sb.toolcap(&["show", "call_find_1"]);
    assert!(ok);
    assert_eq!(stored, text, "the whole listing is stored");
    assert_eq!(
        ask("src/lib.rs\nsrc/main.rs"),
        "",
        "a short result: no reply"
    );
}

/// `toolcap install pi` and `toolcap install copilot`, user and project scope (and
/// `toolcap doctor` finding them):
/// `--dry-run` writes nothing, a second run changes nothing, the user's other
/// settings stay as they were (their layout too), `--uninstall` gives each file
/// back byte for byte and removes what toolcap alone made.
#[test]
fn pi_and_copilot_install_round_trip_byte_exact() {
    let tmp = tempfile::tempdir().expect("tmp");
    let home = tmp.path().join("home");
    let proj = tmp.path().join("proj");
    let install = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolcap"))
            .env("HOME", &home)
            .env_remove("XDG_STATE_HOME")
            .env_remove("PI_CODING_AGENT_DIR")
            .env_remove("COPILOT_HOME")
            .arg("install")
            .args(args)
            .args(["--toolcap", "/opt/toolcap/bin/toolcap"])
            .output()
            .expect("toolcap runs");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{args:?}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
    };
    let users = [
        (
            home.join(".pi/agent/settings.json"),
            "{\n\t\"defaultModel\": \"m\",\n\t\"extensions\": [\"./mine.ts\"]\n}\n",
        ),
        (
            home.join(".copilot/settings.json"),
            "{\"model\":\"m\", \"hooks\": {\"postToolUse\": [{\"type\": \"command\", \"bash\": \"./lint.sh\"}]}}",
        ),
        (proj.join(".pi/settings.json"), "{ \"theme\": \"dark\" }\n"),
    ];
    for (p, t) in &users {
        std::fs::create_dir_all(p.parent().expect("a dir")).expect("dirs");
        std::fs::write(p, t).expect("write");
    }
    let p = proj.to_str().expect("utf-8");
    for scope in [vec![], vec!["--project", p]] {
        for agent in ["pi", "copilot"] {
            let args: Vec<&str> = [agent].into_iter().chain(scope.clone()).collect();
            let dry: Vec<&str> = args.iter().copied().chain(["--dry-run"]).collect();
            let before: Vec<Option<String>> = users
                .iter()
                .map(|(f, _)| std::fs::read_to_string(f).ok())
                .collect();
            assert!(install(&dry).contains("nothing written"));
            let after: Vec<Option<String>> = users
                .iter()
                .map(|(f, _)| std::fs::read_to_string(f).ok())
                .collect();
            assert_eq!(before, after, "{agent} --dry-run wrote nothing");
            install(&args);
            assert!(install(&args).contains("nothing to change"), "{agent}");
        }
    }
    let value = |f: &Path| -> Value {
        serde_json::from_str(&std::fs::read_to_string(f).expect("read")).expect("JSON")
    };
    let pi_user = value(&users[0].0);
    assert_eq!(pi_user["defaultModel"], "m");
    let ext = home.join(".local/state/toolcap/agents/pi-extension-user.ts");
    assert_eq!(
        pi_user["extensions"],
        json!(["./mine.ts", ext.display().to_string()])
    );
    let ts = std::fs::read_to_string(&ext).expect("the extension");
    assert!(ts.contains("process.env.TOOLCAP_BIN ?? \"/opt/toolcap/bin/toolcap\""));
    let cp = value(&users[1].0);
    assert_eq!(
        cp["hooks"]["postToolUse"],
        json!([{"type": "command", "bash": "./lint.sh"},
               {"type": "command", "bash": "[ -x /opt/toolcap/bin/toolcap ] || exit 0; exec /opt/toolcap/bin/toolcap hook copilot"}])
    );
    let cp_project = proj.join(".github/copilot/settings.json");
    assert!(cp_project.exists());
    // doctor finds both, in both scopes, and that the program they name is not there
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolcap"))
        .env("HOME", &home)
        .env_remove("XDG_STATE_HOME")
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("COPILOT_HOME")
        .args(["doctor", "--json", "--project", p])
        .output()
        .expect("toolcap doctor runs");
    let report: Value = serde_json::from_slice(&out.stdout).expect("doctor's JSON");
    for agent in ["pi", "copilot"] {
        let a = report["agents"]
            .as_array()
            .and_then(|l| l.iter().find(|a| a["agent"] == agent))
            .unwrap_or_else(|| panic!("doctor knows {agent}: {report:#}"));
        assert_eq!(a["installed"], true, "{a:#}");
        assert_eq!(a["installed_in"].as_array().map(Vec::len), Some(2), "{a:#}");
        assert_eq!(a["active"], false, "the program is missing: {a:#}");
        assert_eq!(
            a["programs"],
            json!([{"path": "/opt/toolcap/bin/toolcap", "found": false}])
        );
    }
    for scope in [vec![], vec!["--project", p]] {
        for agent in ["pi", "copilot"] {
            let args: Vec<&str> = [agent]
                .into_iter()
                .chain(scope.clone())
                .chain(["--uninstall"])
                .collect();
            install(&args);
        }
    }
    for (f, t) in &users {
        assert_eq!(
            &std::fs::read_to_string(f).expect("read"),
            t,
            "{}",
            f.display()
        );
    }
    assert!(!ext.exists(), "the extension file goes");
    assert!(!cp_project.exists(), "the project settings toolcap made go");
}
