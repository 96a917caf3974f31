//! Gemini CLI's own file reads and searches capped after they ran (issue 35),
//! with the real binary in its default approval mode: a whole-file `read_file`
//! of a real 3,000-line file and a `grep_search` over a real tree reach the model
//! as toolcap's view (its `AfterTool` hook asks for `read_file` of the view as a
//! tail call, whose result replaces the tool's); the model follows the view's
//! first `read_file` range and gets exactly those lines of the file; a small
//! read comes back as without toolcap; and with the toolcap program removed
//! every result is as without toolcap.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::agents_e2e::agent::{self, Kind, Sandbox};
use crate::agents_e2e::server::{Call, Script, Server};

/// The real files: Python's inspect.py and its json package.
fn stdlib() -> (String, String) {
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import inspect, json, os; print(inspect.__file__); print(os.path.dirname(json.__file__))",
        ])
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let mut lines = text.lines().map(str::to_string);
    (
        lines.next().expect("inspect.py"),
        lines.next().expect("the json package"),
    )
}

/// The first `read_file(file_path=..., start_line=A, end_line=B)` a view suggests.
fn first_read_range(view: &str) -> Option<(u64, u64)> {
    let line = view
        .lines()
        .find(|l| l.contains("read_file(") && l.contains("start_line="))?;
    let num = |key: &str| -> Option<u64> {
        let rest = &line[line.find(key)? + key.len()..];
        rest.split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()
    };
    Some((num("start_line=")?, num("end_line=")?))
}

/// The scripted calls: a whole read, the range the first result suggests (or
/// `fallback`), a search over the copied json package (70 matches of `return`, under Gemini CLI's 100), a small read.
fn script(sb: &Sandbox, fallback: (u64, u64)) -> Script {
    let file = sb.project.join("inspect.py").display().to_string();
    let small = sb.project.join("small.txt").display().to_string();
    let tree = sb.project.join("json").display().to_string();
    Arc::new(move |results: &[String]| {
        let call = |name: &str, args: Value| {
            Some(Call {
                name: name.into(),
                args,
            })
        };
        match results.len() {
            0 => call("read_file", json!({"file_path": file})),
            1 => {
                let (a, b) = first_read_range(&results[0]).unwrap_or(fallback);
                call(
                    "read_file",
                    json!({"file_path": file, "start_line": a, "end_line": b}),
                )
            }
            2 => call(
                "grep_search",
                json!({"pattern": "return", "dir_path": tree}),
            ),
            3 => call("read_file", json!({"file_path": small})),
            _ => None,
        }
    })
}

fn setup(sb: &Sandbox, inspect: &str, json_dir: &str) {
    sb.write(
        "inspect.py",
        &std::fs::read_to_string(inspect).expect("inspect.py"),
    );
    sb.write("small.txt", "one\ntwo\n");
    for entry in std::fs::read_dir(json_dir).expect("the json package") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|x| x == "py") {
            let name = path.file_name().expect("a name").to_string_lossy();
            sb.write(
                &format!("json/{name}"),
                &std::fs::read_to_string(&path).expect("a module"),
            );
        }
    }
}

enum Toolcap {
    Without,
    With,
    /// installed, then the program removed
    Removed,
}

fn run(bin: &std::path::Path, mode: Toolcap, fallback: (u64, u64)) -> Vec<String> {
    run_in(bin, mode, fallback, "default")
}

/// [`run`] in the approval mode `approval`.
fn run_in(
    bin: &std::path::Path,
    mode: Toolcap,
    fallback: (u64, u64),
    approval: &str,
) -> Vec<String> {
    let kind = Kind::GeminiCli;
    let (inspect, json_dir) = stdlib();
    let sb = Sandbox::new();
    let server = Server::start(kind.api(), script(&sb, fallback));
    sb.configure(kind, &server);
    setup(&sb, &inspect, &json_dir);
    let project = sb.project.display().to_string();
    match mode {
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
    // in the default approval mode read_file and grep_search are allowed by
    // Gemini CLI's own read-only policy, the shell is not
    let run = sb.run_agent(kind, bin, &server, &["--approval-mode", approval]);
    assert!(run.success, "{}", run.describe());
    // each run has its own sandbox: its path (in a search's header) made one
    let project = sb.project.display().to_string();
    server
        .turns()
        .into_iter()
        .max_by_key(Vec::len)
        .unwrap_or_default()
        .into_iter()
        .map(|r| r.replace(&project, "<project>"))
        .collect()
}

#[test]
fn gemini_cli_reads_and_searches_capped_by_a_tail_call() {
    let Some(bin) = agent::find(Kind::GeminiCli) else {
        return;
    };
    let (inspect, _) = stdlib();
    let file = std::fs::read_to_string(&inspect).expect("inspect.py");
    let lines: Vec<&str> = file.lines().collect();

    let with = run(&bin, Toolcap::With, (60, 120));
    assert_eq!(with.len(), 4, "{with:?}");
    // the whole read: toolcap's view, with counts from the whole file
    let view = &with[0];
    assert!(
        view.len() < 4_000,
        "the read came back {} chars",
        view.len()
    );
    assert!(view.starts_with(lines[0]), "{view}");
    assert!(view.contains("--- Recovery Options ---"), "{view}");
    let total = format!("{} lines", toolcap_text::text::thousands(lines.len()));
    assert!(view.contains(&total), "{total} in {view}");
    let (a, b) = first_read_range(view).expect("a read_file range to follow");
    // no suggestion needs the shell (not allowed in this mode)
    assert!(!view.contains("run_shell_command("), "{view}");

    // following it gives those lines of the file, as Gemini CLI prints a range
    let asked = &with[1];
    for n in [a, b] {
        let line = lines[n as usize - 1];
        assert!(asked.contains(line), "line {n} ({line:?}) in {asked}");
    }
    assert!(asked.contains(&format!("Showing lines {a}-{b}")), "{asked}");

    // the search over the tree: the matches per real file of the json package
    let search = &with[2];
    assert!(search.contains("--- Recovery Options ---"), "{search}");
    assert!(search.contains("encoder.py ("), "{search}");
    assert!(!search.contains("- File ("), "{search}");

    let without = run(&bin, Toolcap::Without, (a, b));
    assert_eq!(without.len(), 4, "{without:?}");
    // Gemini CLI alone: the first 2,000 lines
    assert!(without[0].len() > 60_000, "{}", without[0].len());
    assert!(view.len() * 10 < without[0].len());
    // the same range and the small read: exactly as without toolcap
    assert_eq!(without[1], with[1]);
    assert_eq!(without[3], with[3]);
    assert!(without[2].len() > search.len(), "{}", without[2]);

    // the program gone: every result as without toolcap (the search's files
    // come in the order Gemini CLI's search finds them, which varies from run
    // to run: its 70 matches compared as a set of lines)
    let removed = run(&bin, Toolcap::Removed, (a, b));
    let lines = |r: &str| {
        let mut l: Vec<String> = r.lines().map(str::to_string).collect();
        l.sort();
        l
    };
    assert_eq!(removed.len(), without.len());
    for (i, (r, w)) in removed.iter().zip(&without).enumerate() {
        if i == 2 {
            assert_eq!(lines(r), lines(w), "the search");
        } else {
            assert_eq!(r, w, "result {i}");
        }
    }
}

/// The other approval modes: the same tail call, the same view, the same range
/// followed.
#[test]
fn gemini_cli_reads_capped_in_auto_edit_and_yolo() {
    let Some(bin) = agent::find(Kind::GeminiCli) else {
        return;
    };
    let (inspect, _) = stdlib();
    let file = std::fs::read_to_string(&inspect).expect("inspect.py");
    let lines: Vec<&str> = file.lines().collect();
    for approval in ["auto_edit", "yolo"] {
        let with = run_in(&bin, Toolcap::With, (60, 120), approval);
        assert_eq!(with.len(), 4, "{approval}: {with:?}");
        let view = &with[0];
        assert!(view.len() < 4_000, "{approval}: {} chars", view.len());
        assert!(
            view.contains("--- Recovery Options ---"),
            "{approval}: {view}"
        );
        let (a, b) = first_read_range(view).expect("a read_file range to follow");
        for n in [a, b] {
            let line = lines[n as usize - 1];
            assert!(
                with[1].contains(line),
                "{approval}: line {n} in {}",
                with[1]
            );
        }
        assert!(
            with[2].contains("--- Recovery Options ---"),
            "{approval}: {}",
            with[2]
        );
        assert!(with[3].contains("one\ntwo"), "{approval}: {}", with[3]);
    }
}
