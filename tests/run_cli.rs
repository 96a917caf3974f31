//! `toolcap run -- CMD`: the real binary on real commands. Each test runs in its
//! own project directory with its own state directory (XDG_STATE_HOME), so the
//! default per-project store is exercised without touching the user's.

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;

use crate::support::sandbox::{Sandbox, sandbox as env};

impl Sandbox {
    fn run(&self, args: &[&str]) -> std::process::Output {
        self.toolcap()
            .arg("run")
            .args(args)
            .output()
            .expect("toolcap runs")
    }
}

fn bin_dir() -> PathBuf {
    let c = Command::cargo_bin("toolcap").expect("binary builds");
    Path::new(c.get_program())
        .parent()
        .expect("binary dir")
        .to_path_buf()
}

#[test]
fn short_output_passes_through_byte_for_byte_in_arrival_order() {
    let e = env();
    let out = e.run(&[
        "--",
        "bash",
        "-c",
        "printf 'one\\n'; printf 'two \\377\\n' >&2; printf 'three'",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, b"one\ntwo \xff\nthree");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn exit_status_is_the_commands() {
    let e = env();
    let out = e.run(&["--", "bash", "-c", "echo out; echo err >&2; exit 3"]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(out.stdout, b"out\nerr\n");
    assert!(out.stderr.is_empty(), "no message of toolcap's own");
    // a signal: 128 + N
    let out = e.run(&["--", "bash", "-c", "kill -TERM $$"]);
    assert_eq!(out.status.code(), Some(128 + 15));
    // not found: 127, with the command named
    let out = e.run(&["--", "no-such-command-xyz"]);
    assert_eq!(out.status.code(), Some(127));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-command-xyz"));
}

#[test]
fn timeout_stops_the_command_says_so_and_exits_124() {
    let e = env();
    let started = std::time::Instant::now();
    let out = e.run(&[
        "--timeout",
        "0.5",
        "--",
        "bash",
        "-c",
        "echo started; sleep 30; echo never",
    ]);
    assert!(started.elapsed().as_secs() < 10);
    assert_eq!(out.status.code(), Some(124));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("started\n"), "{text}");
    assert!(!text.contains("never"));
    assert!(
        text.contains(
            "[toolcap run: the command was stopped after 0.5 s (--timeout); exit status 124]"
        ),
        "{text}"
    );
}

#[cfg(unix)]
#[test]
fn sigterm_is_forwarded_to_the_command() {
    let e = env();
    let mark = e.proj.join("trap-set");
    let script = format!(
        "trap 'echo got-term; exit 7' TERM; echo ready; touch '{}'; sleep 30 & wait",
        mark.display()
    );
    let child = e
        .toolcap()
        .args(["run", "--", "bash", "-c", &script])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("toolcap starts");
    // the command's trap is set once the mark is there
    let started = std::time::Instant::now();
    while !mark.exists() && started.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(mark.exists(), "the command did not start");
    let pid = i32::try_from(child.id()).expect("pid");
    // SAFETY: kill(2) on the child this test started.
    unsafe {
        libc::kill(pid, libc::SIGTERM);
    }
    let out = child.wait_with_output().expect("toolcap ends");
    assert_eq!(out.status.code(), Some(7));
    // (bash may also report its background `sleep`, which got the signal too, as
    // "Terminated", depending on which it notices first)
    let said = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = said.lines().filter(|l| *l != "Terminated").collect();
    assert_eq!(lines, ["ready", "got-term"], "{said}");
}

#[test]
fn a_memory_store_keeps_nothing_but_the_command_runs() {
    let e = env();
    // short: byte for byte, nothing said
    let out = e.run(&["--store", "memory", "--", "echo", "hi"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, b"hi\n");
    assert!(out.stderr.is_empty());
    // cut: the view, and one line saying why nothing can be read back
    let out = e.run(&["--store", "memory", "--", "seq", "1", "20000"]);
    assert_eq!(out.status.code(), Some(0));
    let view = String::from_utf8_lossy(&out.stdout);
    assert!(view.contains("--- Recovery Options ---"), "{view}");
    assert!(
        view.trim_end().lines().last().is_some_and(|l| l
            .starts_with("[toolcap run: the full output could not be kept: --store memory: a memory store ends with this process")),
        "{view}"
    );
}

/// `Bash(command="...")`: the commands the view suggests, JSON-decoded.
fn suggested_commands(view: &str) -> Vec<String> {
    view.lines()
        .filter_map(|l| l.trim_start().strip_prefix("• "))
        .filter_map(|l| {
            let start = l.find("(command=")? + "(command=".len();
            let v: serde_json::Value = serde_json::Deserializer::from_str(&l[start..])
                .into_iter::<serde_json::Value>()
                .next()?
                .ok()?;
            v.as_str().map(str::to_string)
        })
        .collect()
}

#[test]
fn a_failing_unittest_run_is_cut_stored_and_its_suggestion_returns_the_exact_lines() {
    let e = env();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/stdlib_meta_test.py");
    std::fs::copy(&fixture, e.proj.join("stdlib_meta_test.py")).expect("copy the test module");
    let out = e.run(&[
        "--id",
        "ut1",
        "--",
        "python3",
        "-m",
        "unittest",
        "-v",
        "stdlib_meta_test",
    ]);
    // unittest's own status
    assert_eq!(out.status.code(), Some(1));
    let view = String::from_utf8(out.stdout).expect("utf-8 view");
    assert!(
        view.chars().count() <= 3500,
        "{} chars",
        view.chars().count()
    );
    // (the counts depend on the Python's stdlib: 4 failures of 107 tests, 165 lines, on 3.11)
    assert!(view.contains("FAILED (failures="), "{view}");
    assert!(view.contains("--- Recovery Options ---"));
    // the store is per project, in the state directory, not in the project
    let stores: Vec<PathBuf> = std::fs::read_dir(e.state.join("toolcap"))
        .expect("state dir")
        .map(|d| d.expect("entry").path().join("results.db"))
        .collect();
    assert_eq!(stores.len(), 1);
    assert!(stores[0].is_file());
    assert!(
        stores[0]
            .parent()
            .and_then(|p| p.file_name())
            .is_some_and(|n| n.to_string_lossy().starts_with("proj-"))
    );
    for entry in std::fs::read_dir(&e.proj).expect("project") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        assert!(
            [".git", "stdlib_meta_test.py", "__pycache__"].contains(&name.as_str()),
            "toolcap left {name} in the project"
        );
    }
    // the whole output was kept
    let full = e.toolcap().args(["show", "ut1"]).output().expect("show");
    let full = String::from_utf8(full.stdout).expect("utf-8");
    let total = full.lines().count();
    assert!(
        view.contains(&format!(
            "Command: python3 -m unittest -v stdlib_meta_test | exit code 1 | Output: {} lines",
            toolcap_text::text::thousands(total)
        )),
        "{view}"
    );
    // every suggestion reads the store, never runs the command again
    let cmds = suggested_commands(&view);
    assert!(!cmds.is_empty(), "{view}");
    for c in &cmds {
        assert!(
            c.contains(" continue ut1 ") || c.contains(" search ut1 "),
            "{c}"
        );
        assert!(!c.contains("unittest"), "{c}");
    }
    // the first one, run as printed through bash, gives the exact lines
    let first = &cmds[0];
    let range: Vec<usize> = first
        .split_whitespace()
        .skip_while(|w| *w != "--start-line")
        .filter_map(|w| w.parse().ok())
        .collect();
    let (a, b) = (range[0], range[1]);
    let path = format!(
        "{}:{}",
        bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let got = Command::new("bash")
        .args(["-c", first])
        .current_dir(&e.proj)
        .env("PATH", path)
        .env("XDG_STATE_HOME", &e.state)
        .env("HOME", e.state.join("home"))
        .env_remove("TOOLCAP_STORE")
        .output()
        .expect("bash");
    assert_eq!(
        got.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&got.stderr)
    );
    let got = String::from_utf8(got.stdout).expect("utf-8");
    let want: String = full
        .split_inclusive('\n')
        .skip(a - 1)
        .take(b + 1 - a)
        .collect();
    assert!(got.starts_with(&want), "{first}\n{got}");
}

#[test]
fn seq_output_is_cut_with_exact_counts() {
    let e = env();
    let out = e.run(&["--id", "s1", "--", "seq", "1", "20000"]);
    assert_eq!(out.status.code(), Some(0));
    let view = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        view.contains("Command: seq 1 20000 | exit code 0 | Output: 20,000 lines, 108,894 chars"),
        "{view}"
    );
    assert!(view.ends_with('\n'));
    let cmds = suggested_commands(&view);
    assert!(
        cmds.iter()
            .any(|c| c.ends_with("continue s1 --start-line 19668 --end-line 20000")),
        "{cmds:?}"
    );
}

#[test]
fn json_output_is_filtered_from_the_store_not_by_running_the_command_again() {
    let e = env();
    let script = "import json; print(json.dumps({'items': [{'id': i, 'name': 'x' * 40} for i in range(400)]}))";
    let out = e.run(&["--id", "j1", "--", "python3", "-c", script]);
    assert_eq!(out.status.code(), Some(0));
    let view = String::from_utf8(out.stdout).expect("utf-8");
    let cmds = suggested_commands(&view);
    assert!(
        cmds.iter().any(|c| c.contains(" show j1 | jq -c ")),
        "{view}"
    );
    for c in &cmds {
        assert!(!c.contains("python3"), "runs the command again: {c}");
    }
    assert!(!view.contains("re-runs the command"), "{view}");
}
