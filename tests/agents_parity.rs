//! Permission parity with the real agents (issue 33): the same scripted tool calls
//! run once without toolcap and once after `toolcap install <agent> --project`, under
//! the same permission rules, and every decision comes out the same — a denied
//! command stays denied (its file survives), an allowed one runs, a command that
//! needs approval still needs it, and a `cd` moves the agent's shell in both. The
//! agents are driven by the scripted model server of tests/agents/server.rs.

use std::path::Path;
use std::sync::Arc;

use serde_json::json;

use crate::agents_e2e::agent::{self, Kind, Sandbox};
use crate::agents_e2e::server::{Call, Script, Server};

/// The scripted model: the calls in order (whatever comes back), then "done".
fn calls_script(calls: Vec<Call>) -> Script {
    Arc::new(move |results: &[String]| calls.get(results.len()).cloned())
}

fn bash(command: &str) -> Call {
    Call {
        name: "Bash".into(),
        args: json!({"command": command, "description": "run it"}),
    }
}

/// One run of `kind` with `calls`: the tool results the model got (in order) and
/// the sandbox, for looking at what the commands did.
fn run(
    kind: Kind,
    bin: &Path,
    with_toolcap: bool,
    setup: &dyn Fn(&Sandbox),
    extra: &[&str],
    calls: &[Call],
) -> (Vec<String>, Sandbox) {
    let sb = Sandbox::new();
    let server = Server::start(kind.api(), calls_script(calls.to_vec()));
    sb.configure(kind, &server);
    setup(&sb);
    if with_toolcap {
        let project = sb.project.display().to_string();
        let (ok, out, err) = sb.toolcap(&["install", kind.name(), "--project", &project]);
        assert!(ok, "toolcap install {} failed:\n{out}\n{err}", kind.name());
    }
    let run = sb.run_agent(kind, bin, &server, extra);
    assert!(run.success, "{}", run.describe());
    let results = server
        .turns()
        .into_iter()
        .max_by_key(Vec::len)
        .unwrap_or_default();
    // (opencode ends the run at a call it auto-rejects: that one is the last)
    assert!(
        results.len() + 1 >= calls.len(),
        "{} with toolcap={with_toolcap}: every scripted call got a result\n{}",
        kind.name(),
        run.describe()
    );
    (results, sb)
}

/// Runs the calls without and with toolcap; returns both results and sandboxes.
fn both(
    kind: Kind,
    setup: &dyn Fn(&Sandbox),
    extra: &[&str],
    calls: &[Call],
) -> Option<[(Vec<String>, Sandbox); 2]> {
    let bin = agent::find(kind)?;
    Some([
        run(kind, &bin, false, setup, extra, calls),
        run(kind, &bin, true, setup, extra, calls),
    ])
}

fn victim(sb: &Sandbox) {
    sb.write("victim.txt", "keep me\n");
    sb.write("sub/inside.txt", "x\n");
}

/// `--allowedTools Bash --disallowedTools 'Bash(rm:*)'`: the model's `rm` inside a
/// compound command is denied with and without toolcap; `cd` moves the shell in both.
#[test]
fn claude_code_deny_rule_and_cd_as_without_toolcap() {
    let calls = [
        bash("rm -f victim.txt; echo removed"),
        bash("cd sub && ls"),
        bash("pwd"),
    ];
    let extra = ["--disallowedTools", "Bash(rm:*)"];
    let Some([(without, sb0), (with, sb1)]) = both(Kind::ClaudeCode, &victim, &extra, &calls)
    else {
        return;
    };
    for (results, sb, who) in [(&without, &sb0, "without"), (&with, &sb1, "with")] {
        assert!(
            sb.project.join("victim.txt").exists(),
            "{who} toolcap: the denied rm ran: {results:?}"
        );
        assert!(
            results[0].contains("denied"),
            "{who} toolcap: {:?}",
            results[0]
        );
        assert!(
            results[2].trim_end().ends_with("/sub"),
            "{who} toolcap: cd did not move the shell: {:?}",
            results[2]
        );
    }
    assert_eq!(without[0], with[0], "the denial reads the same");
    assert_eq!(without[1], with[1], "`cd sub && ls` printed the same");
}

/// `--allowedTools 'Bash(echo:*)'`: a read-only `ls` is still approved on its own
/// (toolcap's earlier PreToolUse rewrite made it "require approval"), and `touch`
/// gets the same decision with and without toolcap.
#[test]
fn claude_code_allow_rule_and_read_only_approval_as_without_toolcap() {
    let calls = [
        bash("ls sub"),
        bash("touch made.txt; echo made"),
        bash("echo hello"),
    ];
    let Some([(without, sb0), (with, sb1)]) = both(
        Kind::ClaudeCode,
        &victim,
        &["--allowedTools", "Bash(echo:*)"],
        &calls,
    ) else {
        return;
    };
    for (results, who) in [(&without, "without"), (&with, "with")] {
        assert_eq!(
            results[0].trim(),
            "inside.txt",
            "{who} toolcap: {results:?}"
        );
        assert_eq!(results[2].trim(), "hello", "{who} toolcap: {results:?}");
    }
    // (2.1.328 as root lets `touch` in the project run here; what matters is that
    // toolcap changes nothing of that decision)
    assert_eq!(
        sb0.project.join("made.txt").exists(),
        sb1.project.join("made.txt").exists(),
        "touch: without {:?}, with {:?}",
        without[1],
        with[1]
    );
    assert_eq!(without, with, "every call came back the same");
}

/// Settings `permissions.deny/ask/allow` in the project's `.claude/settings.json`
/// (the file `toolcap install` merges into): the same decisions with toolcap.
#[test]
fn claude_code_settings_rules_as_without_toolcap() {
    let setup = |sb: &Sandbox| {
        victim(sb);
        sb.write(
            ".claude/settings.json",
            r#"{"permissions":{"allow":["Bash(ls:*)","Bash(echo:*)"],"ask":["Bash(touch:*)"],"deny":["Bash(rm:*)"]}}"#,
        );
    };
    let calls = [
        bash("rm victim.txt"),
        bash("touch made.txt"),
        bash("ls sub && echo listed"),
    ];
    let Some([(without, sb0), (with, sb1)]) = both(Kind::ClaudeCode, &setup, &[], &calls) else {
        return;
    };
    for (results, sb, who) in [(&without, &sb0, "without"), (&with, &sb1, "with")] {
        assert!(sb.project.join("victim.txt").exists(), "{who}: {results:?}");
        assert!(!sb.project.join("made.txt").exists(), "{who}: {results:?}");
        assert!(results[2].contains("listed"), "{who}: {results:?}");
    }
    assert_eq!(without, with, "every call came back the same");
}

/// Fail open: with the toolcap program gone after `toolcap install`, the agent runs
/// its commands as without toolcap (the same results, exit statuses included).
fn fail_open(kind: Kind, calls: &[Call]) {
    fail_open_check(kind, calls, |without, with| {
        assert_eq!(without, with, "{}: toolcap removed", kind.name());
    });
}

/// [`fail_open`] with the comparison of the results given.
fn fail_open_check(kind: Kind, calls: &[Call], compare: impl Fn(&[String], &[String])) {
    let Some(bin) = agent::find(kind) else { return };
    let (without, _) = run(kind, &bin, false, &victim, &[], calls);
    let sb = Sandbox::new();
    victim(&sb);
    let server = Server::start(kind.api(), calls_script(calls.to_vec()));
    sb.configure(kind, &server);
    // a copy of toolcap that is removed once installed
    let copy = sb.home.join("bin").join("toolcap");
    std::fs::create_dir_all(copy.parent().expect("a parent")).expect("make bin");
    std::fs::copy(env!("CARGO_BIN_EXE_toolcap"), &copy).expect("copy toolcap");
    let project = sb.project.display().to_string();
    let copy_s = copy.display().to_string();
    let (ok, out, err) = sb.toolcap(&[
        "install",
        kind.name(),
        "--project",
        &project,
        "--toolcap",
        &copy_s,
    ]);
    assert!(ok, "toolcap install failed:\n{out}\n{err}");
    std::fs::remove_file(&copy).expect("remove the copy");
    let run = sb.run_agent(kind, &bin, &server, &[]);
    assert!(run.success, "{}", run.describe());
    let with = server
        .turns()
        .into_iter()
        .max_by_key(Vec::len)
        .unwrap_or_default();
    assert_eq!(
        without.len(),
        with.len(),
        "{}: toolcap removed",
        kind.name()
    );
    compare(&without, &with);
}

#[test]
fn claude_code_fails_open_without_the_toolcap_program() {
    fail_open(
        Kind::ClaudeCode,
        &[
            bash("echo hi; echo err >&2"),
            bash("seq 1 3000 | tail -2; exit 3"),
            bash("cd sub && pwd -P | sed 's,.*/,,'"),
        ],
    );
}

fn opencode_bash(command: &str) -> Call {
    Call {
        name: "bash".into(),
        args: json!({"command": command, "description": "run it"}),
    }
}

/// opencode.json's `permission` merged into what `Sandbox::configure` wrote.
fn opencode_permission(sb: &Sandbox, permission: serde_json::Value) {
    let path = sb.project.join("opencode.json");
    let text = std::fs::read_to_string(&path).expect("read opencode.json");
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("opencode.json is JSON");
    v["permission"] = permission;
    sb.write("opencode.json", &v.to_string());
}

/// opencode's `permission.bash` patterns (`"rm *": "deny"`) and its
/// `external_directory` check decide on the model's own command with toolcap as
/// without it; a long output still reaches the model as toolcap's view, and the
/// project gets no `.opencode/node_modules`.
#[test]
fn opencode_permissions_as_without_toolcap() {
    let outside = tempfile::tempdir().expect("a dir outside the project");
    let secret = outside.path().join("outside.txt");
    std::fs::write(&secret, "outside the project\n").expect("write outside.txt");
    let setup = |sb: &Sandbox| {
        victim(sb);
        opencode_permission(sb, json!({"bash": {"*": "allow", "rm *": "deny"}}));
    };
    let calls = [
        opencode_bash("rm -f victim.txt; echo removed"),
        opencode_bash("seq 1 20000"),
        // auto-rejected in `opencode run`, which then ends: the last call
        opencode_bash(&format!("cp {} copied.txt", secret.display())),
    ];
    let Some([(without, sb0), (with, sb1)]) = both(Kind::Opencode, &setup, &[], &calls) else {
        return;
    };
    for (results, sb, who) in [(&without, &sb0, "without"), (&with, &sb1, "with")] {
        assert!(
            sb.project.join("victim.txt").exists(),
            "{who} toolcap: the denied rm ran: {results:?}"
        );
        assert!(
            !sb.project.join("copied.txt").exists(),
            "{who} toolcap: the external_directory check did not fire: {results:?}"
        );
    }
    assert_eq!(without[0], with[0], "the rm denial reads the same");
    assert!(
        without[1].len() > 10_000 && with[1].len() < 3_500,
        "seq: without {} chars, with {} chars",
        without[1].len(),
        with[1].len()
    );
    assert!(with[1].contains("--- Recovery Options ---"), "{}", with[1]);
    assert!(
        !sb1.project.join(".opencode").exists(),
        "toolcap install put a .opencode/ into the project"
    );
}

#[test]
fn opencode_fails_open_without_the_toolcap_program() {
    fail_open(
        Kind::Opencode,
        &[
            opencode_bash("echo hi; echo err >&2"),
            opencode_bash("seq 1 3000 | tail -2; exit 3"),
        ],
    );
}

/// A result without what differs between any two runs (Gemini CLI's process group
/// id, Codex's wall time and chunk id), its lines sorted (Codex interleaves a
/// command's stdout and stderr in no fixed order).
fn steady(results: &[String]) -> Vec<Vec<String>> {
    results
        .iter()
        .map(|r| {
            let mut lines: Vec<String> = r
                .lines()
                .filter(|l| {
                    !l.starts_with("Process Group PGID:")
                        && !l.starts_with("Wall time")
                        && !l.starts_with("Chunk ID")
                })
                .map(str::to_string)
                .collect();
            lines.sort();
            lines
        })
        .collect()
}

/// A call of `kind`'s own shell tool.
fn shell(kind: Kind, command: &str) -> Call {
    let (tool, arg) = kind.shell_tool();
    let mut args = json!({ arg: command });
    if matches!(kind, Kind::ClaudeCode | Kind::Opencode) {
        args["description"] = json!("run it");
    }
    Call {
        name: tool.to_string(),
        args,
    }
}

/// Gemini CLI in its default approval mode with an allow list (user settings
/// `tools.allowed`): `ls` runs, `touch` is denied by policy in `-p` mode — with
/// toolcap as without (its rewrite would have been matched against the list).
#[test]
fn gemini_cli_allow_list_as_without_toolcap() {
    let kind = Kind::GeminiCli;
    let setup = |sb: &Sandbox| {
        victim(sb);
        sb.write(
            "~/.gemini/settings.json",
            r#"{"security":{"auth":{"selectedType":"gemini-api-key"}},"tools":{"allowed":["run_shell_command(ls)","run_shell_command(echo)"]}}"#,
        );
    };
    let calls = [
        shell(kind, "ls sub"),
        shell(kind, "touch made.txt; echo made"),
    ];
    let Some([(without, sb0), (with, sb1)]) =
        both(kind, &setup, &["--approval-mode", "default"], &calls)
    else {
        return;
    };
    for (results, who) in [(&without, "without"), (&with, "with")] {
        assert!(
            results[0].contains("inside.txt"),
            "{who} toolcap: {results:?}"
        );
    }
    assert_eq!(
        sb0.project.join("made.txt").exists(),
        sb1.project.join("made.txt").exists(),
        "touch: without {without:?}, with {with:?}"
    );
    assert_eq!(
        steady(&without),
        steady(&with),
        "every call came back the same"
    );
}

/// Gemini CLI with `--yolo` and `tools.exclude` naming the shell tool: toolcap
/// steps aside (it cannot tell how the exclusion would read its rewrite), so the
/// decisions are Gemini CLI's own.
#[test]
fn gemini_cli_yolo_with_an_exclusion_as_without_toolcap() {
    let kind = Kind::GeminiCli;
    let setup = |sb: &Sandbox| {
        victim(sb);
        sb.write(
            "~/.gemini/settings.json",
            r#"{"security":{"auth":{"selectedType":"gemini-api-key"}},"tools":{"exclude":["run_shell_command(rm)"]}}"#,
        );
    };
    let calls = [
        shell(kind, "rm -f victim.txt; echo removed"),
        shell(kind, "echo after"),
    ];
    let Some([(without, sb0), (with, sb1)]) = both(kind, &setup, &[], &calls) else {
        return;
    };
    assert_eq!(
        sb0.project.join("victim.txt").exists(),
        sb1.project.join("victim.txt").exists(),
        "rm: without {without:?}, with {with:?}"
    );
    assert_eq!(
        steady(&without),
        steady(&with),
        "every call came back the same"
    );
}

/// [`fail_open`] for an agent whose results vary between runs (process group ids,
/// wall times, stdout and stderr interleaved in no fixed order): compared steady.
fn fail_open_steady(kind: Kind) {
    let calls = [
        shell(kind, "echo hi; echo err >&2"),
        shell(kind, "seq 1 3000 | tail -2; exit 3"),
    ];
    fail_open_check(kind, &calls, |without, with| {
        assert_eq!(steady(without), steady(with));
    });
}

#[test]
fn gemini_cli_fails_open_without_the_toolcap_program() {
    fail_open_steady(Kind::GeminiCli);
}

/// Codex execpolicy rules (`prefix_rule(pattern=["rm"], decision="forbidden")` in
/// `$CODEX_HOME/rules/`): the model's `rm` is refused with toolcap as without it
/// (toolcap's "allow" with a rewrite would have skipped the rule).
#[test]
fn codex_execpolicy_rules_as_without_toolcap() {
    let kind = Kind::Codex;
    let setup = |sb: &Sandbox| {
        victim(sb);
        sb.write(
            "~/.codex/rules/default.rules",
            "prefix_rule(pattern=[\"rm\"], decision=\"forbidden\")\n",
        );
    };
    let calls = [
        shell(kind, "rm -f victim.txt; echo removed"),
        shell(kind, "echo after"),
    ];
    let Some([(without, sb0), (with, sb1)]) = both(kind, &setup, &[], &calls) else {
        return;
    };
    for (results, sb, who) in [(&without, &sb0, "without"), (&with, &sb1, "with")] {
        assert!(
            sb.project.join("victim.txt").exists(),
            "{who} toolcap: the forbidden rm ran: {results:?}"
        );
        assert!(results[1].contains("after"), "{who} toolcap: {results:?}");
    }
}

#[test]
fn codex_fails_open_without_the_toolcap_program() {
    fail_open_steady(Kind::Codex);
}

/// Codex with `--sandbox read-only` (the state directory, where toolcap's store
/// lives, is not writable inside it): the command runs once, its output reaches
/// the model — toolcap's view without claims about a stored copy, or the output
/// itself when short, byte for byte — with its exit status.
#[test]
fn codex_read_only_sandbox_loses_no_output() {
    let kind = Kind::Codex;
    let calls = [
        shell(kind, "seq 1 20000; exit 4"),
        shell(kind, "echo short"),
    ];
    let Some([(without, _), (with, _)]) = both(kind, &victim, &["--sandbox", "read-only"], &calls)
    else {
        return;
    };
    assert!(
        with[0].contains("exited with code 4") && with[0].contains("\n20000"),
        "the last line and the status arrive: {}",
        with[0]
    );
    assert!(
        with[0].len() < without[0].len(),
        "{} vs {}",
        with[0].len(),
        without[0].len()
    );
    assert!(
        !with[0].contains("toolcap continue"),
        "no suggestion reads a store that kept nothing: {}",
        with[0]
    );
    assert_eq!(
        steady(&without[1..]),
        steady(&with[1..]),
        "short output as without toolcap"
    );
}

/// Claude Code's own `Read` of a real 3,000-line file and `Grep` over a real tree,
/// capped by the PostToolUse hook (issue 35): the Read reaches the model as the
/// file's head numbered as Claude Code numbers it (every number the file's own),
/// with the marker and recovery section beside it; a ranged Read under the
/// threshold and a small Grep come back as without toolcap.
#[test]
fn claude_code_read_and_grep_capped_after_they_ran() {
    let kind = Kind::ClaudeCode;
    let Some(bin) = agent::find(kind) else { return };
    let source = std::process::Command::new("python3")
        .args(["-c", "import inspect; print(inspect.__file__)"])
        .output()
        .expect("python3 runs");
    let source = String::from_utf8_lossy(&source.stdout).trim().to_string();
    let text = std::fs::read_to_string(&source).expect("inspect.py");
    assert!(text.lines().count() > 3000, "{source}");
    let file: Vec<String> = text.lines().map(str::to_string).collect();
    let setup = move |sb: &Sandbox| {
        sb.write("inspect.py", &text);
        sb.write("small.txt", "one\ntwo\n");
    };
    let path = |sb: &Sandbox, f: &str| sb.project.join(f).display().to_string();
    // the scripted calls need the sandbox's paths: made per run
    let run_with = |with_toolcap: bool| {
        let sb = Sandbox::new();
        let server_calls = vec![
            Call {
                name: "Read".into(),
                args: json!({"file_path": path(&sb, "inspect.py")}),
            },
            Call {
                name: "Read".into(),
                args: json!({"file_path": path(&sb, "inspect.py"), "offset": 100, "limit": 5}),
            },
            Call {
                name: "Grep".into(),
                args: json!({"pattern": "def ", "path": sb.project.display().to_string(), "output_mode": "content", "-n": true}),
            },
            Call {
                name: "Grep".into(),
                args: json!({"pattern": "two", "path": path(&sb, "small.txt"), "output_mode": "content"}),
            },
        ];
        let server = Server::start(kind.api(), calls_script(server_calls));
        sb.configure(kind, &server);
        setup(&sb);
        if with_toolcap {
            let project = sb.project.display().to_string();
            let (ok, out, err) = sb.toolcap(&["install", "claude-code", "--project", &project]);
            assert!(ok, "{out}\n{err}");
        }
        let run = sb.run_agent(kind, &bin, &server, &["--allowedTools", "Read,Grep"]);
        assert!(run.success, "{}", run.describe());
        let results = server
            .turns()
            .into_iter()
            .max_by_key(Vec::len)
            .unwrap_or_default();
        let bodies = server
            .requests()
            .iter()
            .map(|r| r.body.to_string())
            .collect::<Vec<_>>()
            .join("\n");
        (results, bodies, sb)
    };
    let (without, _, _) = run_with(false);
    let (with, bodies, _) = run_with(true);
    assert_eq!(without.len(), 4, "{without:?}");
    assert_eq!(with.len(), 4, "{with:?}");
    // the whole file without toolcap; its numbered head with it
    assert!(without[0].len() > 100_000, "{}", without[0].len());
    assert!(
        with[0].len() < 3_500,
        "the Read came back {} chars",
        with[0].len()
    );
    for (i, line) in with[0].lines().enumerate() {
        let (n, rest) = line.split_once('\t').expect("a numbered line");
        assert_eq!(n.trim().parse::<usize>().expect("a number"), i + 1);
        assert_eq!(rest, file[i], "line {}", i + 1);
    }
    assert!(
        bodies.contains("--- Recovery Options ---") && bodies.contains("3,3"),
        "the recovery section reached the model"
    );
    // what the model asked for in a range, and a small Grep: as without toolcap
    assert_eq!(without[1], with[1]);
    assert_eq!(without[3], with[3]);
    // the Grep over the tree: toolcap's view of the matches
    assert!(
        with[2].len() < 3_500 && with[2].contains("--- Recovery Options ---"),
        "{}",
        with[2]
    );
}
