//! Gemini CLI's shell results capped after the command ran, in every approval
//! mode (issue 45): with the real binary against the scripted model, `seq 1
//! 20000` reaches the model as toolcap's view — in `--approval-mode default` and
//! `auto_edit` with an allow list that lets `seq` run, and in yolo sessions with
//! a shell rule (toolcap's `AfterTool` hook asks for `read_file` of the view as a
//! tail call); in a yolo session without one it is `toolcap run`'s view, never
//! cut twice. The view's first suggestion, followed, gives exactly those lines of
//! the output; a short output, a failing one's exit code and a command the allow
//! list refuses come back as without toolcap; and with the toolcap program
//! removed every result is as without toolcap.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::agents_e2e::agent::{self, Kind, Sandbox};
use crate::agents_e2e::server::{Call, Script, Server};

const LONG: &str = "seq 1 20000";
const SHORT: &str = "seq 1 5";
/// Refused by the allow list in the default modes (not `seq`).
const REFUSED: &str = "touch made.txt; echo made";

/// The first suggestion of a view: a `read_file(file_path="F", start_line=A,
/// end_line=B)` or a `run_shell_command(command="...")`, as the call that follows it.
fn first_suggestion(view: &str) -> Option<Call> {
    let rec = &view[view.find("--- Recovery Options ---")?..];
    let line = rec.lines().find(|l| l.trim_start().starts_with("• "))?;
    let call = line.trim_start().strip_prefix("• ")?;
    let (tool, rest) = call.split_once('(')?;
    let args = rest.rsplit_once(")  #").map_or(rest, |(a, _)| a);
    let mut out = serde_json::Map::new();
    // key="string" or key=number, comma separated (strings are JSON-quoted)
    let mut s = args;
    while !s.is_empty() {
        let (key, after) = s.split_once('=')?;
        let (value, next) = if after.starts_with('"') {
            let mut de = serde_json::Deserializer::from_str(after).into_iter::<Value>();
            let v = de.next()?.ok()?;
            let used = de.byte_offset();
            (v, &after[used..])
        } else {
            let end = after.find(',').unwrap_or(after.len());
            (
                json!(after[..end].trim().parse::<u64>().ok()?),
                &after[end..],
            )
        };
        out.insert(key.trim().to_string(), value);
        s = next.trim_start_matches(',').trim_start();
    }
    Some(Call {
        name: tool.to_string(),
        args: Value::Object(out),
    })
}

/// The scripted calls: the long output, the first suggestion of what came back
/// (or nothing), a short output, a failing one, a refused one.
fn script() -> Script {
    Arc::new(move |results: &[String]| {
        let shell = |c: &str| {
            Some(Call {
                name: "run_shell_command".into(),
                args: json!({ "command": c }),
            })
        };
        match results.len() {
            0 => shell(LONG),
            1 => first_suggestion(&results[0]).or_else(|| shell("true")),
            2 => shell(SHORT),
            3 => shell("seq a"),
            4 => shell(REFUSED),
            _ => None,
        }
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Toolcap {
    Without,
    With,
    /// installed, then the program removed
    Removed,
}

/// One run: the results the model got, and the sandbox.
fn run(bin: &std::path::Path, mode: &[&str], rules: &str, toolcap: Toolcap) -> Vec<String> {
    let kind = Kind::GeminiCli;
    let sb = Sandbox::new();
    let server = Server::start(kind.api(), script());
    sb.configure(kind, &server);
    sb.write(
        "~/.gemini/settings.json",
        &format!(r#"{{"security":{{"auth":{{"selectedType":"gemini-api-key"}}}}{rules}}}"#),
    );
    let project = sb.project.display().to_string();
    match toolcap {
        Toolcap::Without => {}
        Toolcap::With => {
            let (ok, out, err) = sb.toolcap(&["install", "gemini-cli", "--project", &project]);
            assert!(ok, "{out}\n{err}");
        }
        Toolcap::Removed => {
            let copy = sb.home.join("bin").join("toolcap");
            std::fs::create_dir_all(copy.parent().expect("a parent")).expect("make bin");
            std::fs::copy(env!("CARGO_BIN_EXE_toolcap"), &copy).expect("copy toolcap");
            let copy_s = copy.display().to_string();
            let (ok, out, err) = sb.toolcap(&[
                "install",
                "gemini-cli",
                "--project",
                &project,
                "--toolcap",
                &copy_s,
            ]);
            assert!(ok, "{out}\n{err}");
            std::fs::remove_file(&copy).expect("remove the copy");
        }
    }
    let run = sb.run_agent(kind, bin, &server, mode);
    assert!(run.success, "{}", run.describe());
    let results = server
        .turns()
        .into_iter()
        .max_by_key(Vec::len)
        .unwrap_or_default();
    assert_eq!(results.len(), 5, "{}", run.describe());
    // refused or not, `touch` made the same file in each run (checked by the caller)
    let made = sb.project.join("made.txt").exists();
    let mut out = results;
    out.push(format!("made.txt exists: {made}"));
    out
}

/// A result without Gemini CLI's process group id (it differs in every run).
fn steady(r: &str) -> String {
    r.lines()
        .filter(|l| !l.starts_with("Process Group PGID:"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What `seq 1 20000` printed, lines `a..=b`.
fn seq_lines(a: u64, b: u64) -> Vec<String> {
    (a..=b).map(|n| n.to_string()).collect()
}

/// The checks of one mode: `rules` are the user settings besides the login;
/// `after_tool` whether the view comes by the `AfterTool` tail call (else by
/// the `BeforeTool` rewrite to `toolcap run`).
fn check_mode(mode: &[&str], rules: &str, after_tool: bool) {
    let Some(bin) = agent::find(Kind::GeminiCli) else {
        return;
    };
    let with = run(&bin, mode, rules, Toolcap::With);
    let without = run(&bin, mode, rules, Toolcap::Without);
    let ctx = format!("{mode:?} {rules}");

    // Gemini CLI alone: its own cut of the long output
    assert!(
        without[0].contains("Output too large. Showing first 8,000 and last 32,000 characters"),
        "{ctx}: {}",
        &without[0][..200.min(without[0].len())]
    );
    // with toolcap: its view, with the command's exit code and Gemini CLI's frame
    let view = &with[0];
    assert!(
        view.len() < 4_000 && view.len() * 10 < without[0].len(),
        "{ctx}: the model got {} chars:\n{view}",
        view.len()
    );
    assert!(view.contains("--- Recovery Options ---"), "{ctx}: {view}");
    eprintln!(
        "{ctx}: the model got {} chars for `{LONG}`, {} without toolcap",
        view.len(),
        without[0].len()
    );
    // (the output as Gemini CLI hands it on lacks the final newline `toolcap
    // run` reads from the command itself)
    let chars = if after_tool { "108,893" } else { "108,894" };
    assert!(
        view.contains(&format!(
            "Command: seq 1 20000 | exit code 0 | Output: 20,000 lines, {chars} chars"
        )),
        "{ctx}: {view}"
    );
    assert!(
        view.contains("<untrusted_context>\nOutput: 1\n2\n"),
        "{ctx}: {view}"
    );
    assert!(view.contains("\n19999\n20000\n"), "{ctx}: {view}");
    // cut once: one recovery section
    assert_eq!(
        view.matches("--- Recovery Options ---").count(),
        1,
        "{view}"
    );

    // the first suggestion, followed, gives those lines of the output
    let first = first_suggestion(view).expect("a suggestion");
    let asked = &with[1];
    let (a, b) = if after_tool {
        assert_eq!(first.name, "read_file", "{ctx}: {view}");
        let n = |k: &str| first.args[k].as_u64().expect("a line number");
        let (a, b) = (n("start_line"), n("end_line"));
        assert!(asked.contains(&format!("Showing lines {a}-{b}")), "{asked}");
        (a, b)
    } else {
        // toolcap run's view: `toolcap continue` through the shell
        assert_eq!(first.name, "run_shell_command", "{ctx}: {view}");
        let c = first.args["command"]
            .as_str()
            .expect("a command")
            .to_string();
        assert!(c.contains(" continue "), "{c}");
        let n = |flag: &str| -> u64 {
            let words: Vec<&str> = c.split_whitespace().collect();
            let i = words.iter().position(|w| *w == flag).expect("a flag");
            words[i + 1].parse().expect("a number")
        };
        (n("--start-line"), n("--end-line"))
    };
    assert!(a > 100 && b > a, "{a}-{b}");
    // (a shell result's first line follows Gemini CLI's `Output: `)
    let got: Vec<&str> = asked
        .lines()
        .map(|l| l.strip_prefix("Output: ").unwrap_or(l))
        .collect();
    for line in seq_lines(a, b) {
        assert!(
            got.contains(&line.as_str()),
            "{ctx}: line {line} in {asked}"
        );
    }
    for outside in [a - 1, b + 1] {
        assert!(
            !got.contains(&outside.to_string().as_str()),
            "{ctx}: line {outside} is not asked for: {asked}"
        );
    }

    // the short output, the failing one and the refused one: as without toolcap
    for i in 2..=5 {
        let (w, t) = (steady(&without[i]), steady(&with[i]));
        if after_tool {
            assert_eq!(w, t, "{ctx}: result {i}");
        } else {
            // (the BeforeTool rewrite adds Gemini CLI's note that it changed the command)
            assert!(
                t.starts_with(&w) || i == 5,
                "{ctx}: result {i}: {w:?} / {t:?}"
            );
        }
    }
    assert!(with[3].contains("Exit Code: 1"), "{ctx}: {}", with[3]);

    // the program gone: every result as without toolcap (the second call is
    // what each run's first result suggested: Gemini CLI's saved path differs)
    let removed = run(&bin, mode, rules, Toolcap::Removed);
    // (Gemini CLI's own count of omitted chars takes in the PGID line, whose
    // number of digits differs from run to run: the count is not compared)
    let cut = |r: &str| {
        steady(r)
            .lines()
            .filter(|l| !l.starts_with("Output too large."))
            .map(|l| {
                if l.starts_with("... [") && l.ends_with(" characters omitted] ...") {
                    "... [N characters omitted] ..."
                } else {
                    l
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let (r, w) = (cut(&removed[0]), cut(&without[0]));
    if r != w {
        // the first line that differs, not 40,000 chars of each
        let at = r.lines().zip(w.lines()).position(|(a, b)| a != b);
        let line = |t: &str| at.and_then(|i| t.lines().nth(i)).map(str::to_string);
        panic!(
            "{ctx}: the long result with the program removed differs from Gemini CLI's own at line {at:?}: {:?} / {:?} ({} / {} chars)",
            line(&r),
            line(&w),
            r.len(),
            w.len()
        );
    }
    for i in 2..=5 {
        assert_eq!(
            steady(&removed[i]),
            steady(&without[i]),
            "{ctx}: result {i}"
        );
    }
}

/// The allow list of the default modes: `seq` runs, nothing else of the shell.
const ALLOW_SEQ: &str = r#","tools":{"allowed":["run_shell_command(seq)"]}"#;

#[test]
fn gemini_cli_default_mode_shell_capped_after_it_ran() {
    check_mode(&["--approval-mode", "default"], ALLOW_SEQ, true);
}

#[test]
fn gemini_cli_auto_edit_mode_shell_capped_after_it_ran() {
    check_mode(&["--approval-mode", "auto_edit"], ALLOW_SEQ, true);
}

/// yolo with a shell rule: the BeforeTool rewrite steps aside, the AfterTool
/// tail call caps the result.
#[test]
fn gemini_cli_yolo_with_a_shell_rule_capped_after_it_ran() {
    check_mode(
        &["--approval-mode", "yolo"],
        r#","tools":{"exclude":["run_shell_command(rm)"]}"#,
        true,
    );
}

/// yolo without a shell rule: `toolcap run`'s view, not cut again by the
/// AfterTool hook.
#[test]
fn gemini_cli_yolo_shell_through_toolcap_run_cut_once() {
    check_mode(&["--approval-mode", "yolo"], "", false);
}

#[test]
fn first_suggestion_is_read_as_a_call() {
    let view = "x\n--- Recovery Options ---\nCommand: c\n\nCommands:\n  • read_file(file_path=\"/t/a b.txt\", start_line=128, end_line=914)  # omitted lines\n  • run_shell_command(command=\"x\")\n";
    let c = first_suggestion(view).expect("a call");
    assert_eq!(c.name, "read_file");
    assert_eq!(
        c.args,
        json!({"file_path": "/t/a b.txt", "start_line": 128, "end_line": 914})
    );
    let s = first_suggestion("--- Recovery Options ---\n  • run_shell_command(command=\"t continue r --start-line 3 --end-line 9\")  # x\n").expect("a call");
    assert_eq!(
        s.args["command"],
        "t continue r --start-line 3 --end-line 9"
    );
}
