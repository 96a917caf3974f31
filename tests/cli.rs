//! The `toolcap` command line, run as a user would.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

fn toolcap() -> Command {
    let mut c = Command::cargo_bin("toolcap").expect("binary builds");
    c.env_remove("TOOL_RESULT_BYPASS_TOOLS")
        .env_remove("TOOLCAP_CONFIG");
    c
}

fn json_of(out: &[u8]) -> Value {
    serde_json::from_slice(out).expect("one JSON object")
}

#[test]
fn preview_json_has_the_contract_fields_with_exact_numbers() {
    let path = fixture("read_file/typing.py");
    let text = std::fs::read_to_string(&path).unwrap();
    let out = toolcap()
        .arg("preview")
        .arg(&path)
        .arg("--json")
        .assert()
        .success();
    let v = json_of(&out.get_output().stdout);
    assert_eq!(v["tool"], "read_file");
    assert_eq!(v["family"], "read_file");
    assert_eq!(v["truncated"], true);
    assert_eq!(v["bypassed"], false);
    assert_eq!(v["threshold"], 3500);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    assert_eq!(v["original"]["chars"], text.chars().count());
    assert_eq!(v["original"]["bytes"], text.len());
    assert_eq!(v["original"]["lines"], lines.len());
    let kept_end = v["kept"][0]["end_line"].as_u64().unwrap() as usize;
    assert_eq!(v["kept"][0]["start_line"], 1);
    let kept_chars: usize = lines[..kept_end].iter().map(|l| l.chars().count()).sum();
    assert!(kept_chars <= 2000);
    assert_eq!(v["omitted"]["chars"], text.chars().count() - kept_chars);
    assert_eq!(v["omitted"]["lines"], lines.len() - kept_end);
    assert_eq!(v["omitted"]["ranges"][0]["start_line"], kept_end + 1);
    assert_eq!(v["omitted"]["ranges"][0]["end_line"], lines.len());
    assert_eq!(v["outline"]["language"], "python");
    assert_eq!(v["outline"]["partial"], false);
    let typevar = v["outline"]["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "TypeVar" && s["kind"] == "class")
        .expect("class TypeVar");
    let line = typevar["line"].as_u64().unwrap() as usize;
    assert!(lines[line - 1].starts_with("class TypeVar"));
    assert!(typevar["parent"].is_null());
    let s0 = &v["suggestions"][0];
    assert_eq!(s0["tool"], "shell");
    assert!(
        s0["args"]["command"]
            .as_str()
            .unwrap()
            .starts_with(&format!("sed -n '{},", kept_end + 1))
    );
    assert!(s0["purpose"].is_string());
    let shown = v["text"].as_str().unwrap();
    assert!(shown.starts_with(&lines[..kept_end].concat()));
}

#[test]
fn preview_text_is_what_the_json_text_says() {
    let path = fixture("read_file/command.rs");
    let text = toolcap()
        .arg("preview")
        .arg(&path)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let json = toolcap()
        .arg("preview")
        .arg(&path)
        .arg("--json")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(
        String::from_utf8(text).unwrap(),
        json_of(&json)["text"].as_str().unwrap()
    );
}

#[test]
fn bypass_env_returns_the_input_byte_for_byte() {
    let mut input: Vec<u8> = Vec::new();
    for i in 0..2000 {
        input.extend_from_slice(format!("line {i} \u{e9}\r\n").as_bytes());
    }
    input.extend_from_slice(b"\xff\xfe invalid utf-8 and no final newline");
    let out = toolcap()
        .env("TOOL_RESULT_BYPASS_TOOLS", " other , x ,,")
        .args(["process", "--tool", "x"])
        .write_stdin(input.clone())
        .assert()
        .success();
    assert_eq!(out.get_output().stdout, input);
    // and without the bypass it is cut
    let out = toolcap()
        .args(["process", "--tool", "x"])
        .write_stdin(input.clone())
        .assert()
        .success();
    assert!(out.get_output().stdout.len() < input.len());
}

#[test]
fn recovery_tools_are_bypassed_by_default() {
    let big = "x\n".repeat(10_000);
    let out = toolcap()
        .args(["process", "--tool", "get_continuation", "-"])
        .write_stdin(big.clone())
        .assert()
        .success();
    assert_eq!(out.get_output().stdout, big.as_bytes());
}

#[test]
fn under_threshold_passes_unchanged_and_reports_it() {
    let small = "a".repeat(3500);
    let out = toolcap()
        .args(["process", "--tool", "bash", "--json"])
        .write_stdin(small.clone())
        .assert()
        .success();
    let v = json_of(&out.get_output().stdout);
    assert_eq!(v["truncated"], false);
    assert_eq!(v["reason"], "under_threshold");
    assert_eq!(v["family"], "shell");
    assert_eq!(v["text"], small);
    let over = "a".repeat(3501);
    let out = toolcap()
        .args(["process", "--tool", "bash", "--json"])
        .write_stdin(over)
        .assert()
        .success();
    assert_eq!(json_of(&out.get_output().stdout)["truncated"], true);
}

#[test]
fn processed_output_is_not_cut_twice() {
    // cut at the default threshold, then fed back under a threshold low enough
    // that the processed output is itself over it
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("low.toml");
    std::fs::write(&cfg, "[tools.shell]\nthreshold = 2100\n").unwrap();
    let path = fixture("shell/cargo_test_failure.log");
    let once = toolcap()
        .args(["process", "--tool", "shell", "--arg", "command=cargo test"])
        .arg(&path)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let twice = toolcap()
        .args([
            "process",
            "--tool",
            "shell",
            "--arg",
            "command=cargo test",
            "--json",
            "--config",
        ])
        .arg(&cfg)
        .write_stdin(once.clone())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json_of(&twice);
    assert!(once.len() > 2100);
    assert_eq!(v["reason"], "already_cut");
    assert_eq!(v["text"].as_str().unwrap().as_bytes(), &once[..]);
}

#[test]
fn config_errors_exit_2_naming_file_key_and_fix() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("[tools.shell]\nthresold = 9000\n", "tools.shell.thresold"),
        ("[tools.grep]\nthreshold = 1500\n", "tools.grep.threshold"),
        ("max_kept_chars = -3\n", "max_kept_chars"),
        ("[tools.shell]\nshape = \"sideways\"\n", "tools.shell.shape"),
    ];
    for (i, (body, key)) in cases.iter().enumerate() {
        let p = dir.path().join(format!("bad{i}.toml"));
        std::fs::write(&p, body).unwrap();
        let out = toolcap()
            .arg("config")
            .arg("--config")
            .arg(&p)
            .assert()
            .code(2);
        let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(err.contains(&p.display().to_string()), "{err}");
        assert!(err.contains(key), "{err}");
        assert!(err.contains("fix:"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // the same through TOOLCAP_CONFIG, on processing
    let p = dir.path().join("bad0.toml");
    toolcap()
        .env("TOOLCAP_CONFIG", &p)
        .args(["process", "--tool", "x"])
        .write_stdin("hi")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("tools.shell.thresold"));
    // a missing config file
    toolcap()
        .args(["config", "--config", "/nonexistent/toolcap.toml"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("/nonexistent/toolcap.toml")
                .and(predicate::str::contains("fix:")),
        );
}

#[test]
fn config_prints_effective_settings_with_sources() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("mine.toml");
    std::fs::write(&p, "[tools.shell]\nthreshold = 12000\n\n[tools.mcp]\nfamily = \"generic\"\nnames = [\"mcp__*\"]\nthreshold = 20000\n").unwrap();
    let out = toolcap()
        .env("TOOL_RESULT_BYPASS_TOOLS", "noisy_tool")
        .arg("config")
        .arg("--config")
        .arg(&p)
        .assert()
        .success();
    let s = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        s.contains(&format!("threshold = 12000  # file {}", p.display())),
        "{s}"
    );
    assert!(s.contains("[tools.mcp]"), "{s}");
    assert!(
        s.contains("\"noisy_tool\"") && s.contains("# env TOOL_RESULT_BYPASS_TOOLS"),
        "{s}"
    );
    assert!(
        s.contains("[tools.web_fetch]\nfamily = \"web_fetch\"  # default"),
        "{s}"
    );
    assert!(s.contains("threshold = 5000  # default"), "{s}");
    // and the user's glob entry is used for matching tools
    let out = toolcap()
        .args([
            "process",
            "--tool",
            "mcp__github__list_issues",
            "--json",
            "--config",
        ])
        .arg(&p)
        .write_stdin("y\n".repeat(5000))
        .assert()
        .success();
    let v = json_of(&out.get_output().stdout);
    assert_eq!(v["threshold"], 20000);
    assert_eq!(v["truncated"], false);
}

#[test]
fn usage_errors_exit_2() {
    toolcap().args(["process"]).assert().code(2);
    toolcap()
        .args(["process", "--tool", "x", "--arg", "novalue"])
        .write_stdin("")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("KEY=VALUE"));
    toolcap()
        .args(["process", "--tool", "x", "--args-json", "[1]"])
        .write_stdin("")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--args-json"));
    toolcap()
        .arg("outline")
        .arg(fixture("read_file/typing.py"))
        .args(["--lang", "cobol"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--lang").and(predicate::str::contains("python")));
    toolcap()
        .args(["preview", "/nonexistent/file.py"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("/nonexistent/file.py"));
}

#[test]
fn outline_json_and_text() {
    let out = toolcap()
        .arg("outline")
        .arg(fixture("read_file/typing.py"))
        .arg("--json")
        .assert()
        .success();
    let v = json_of(&out.get_output().stdout);
    assert!(v["path"].as_str().unwrap().ends_with("typing.py"));
    assert_eq!(v["language"], "python");
    assert_eq!(v["lines"], 3519);
    assert_eq!(v["partial"], false);
    let syms = v["symbols"].as_array().unwrap();
    let generic = syms.iter().find(|s| s["name"] == "Generic").unwrap();
    assert_eq!(generic["kind"], "class");
    assert_eq!(generic["depth"], 0);
    let m = syms
        .iter()
        .find(|s| s["parent"] == "TypeVar" && s["name"] == "__init__")
        .expect("TypeVar.__init__");
    assert_eq!(m["kind"], "method");
    assert_eq!(m["depth"], 1);
    let out = toolcap()
        .arg("outline")
        .arg(fixture("read_file/command.rs"))
        .assert()
        .success();
    let s = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        s.starts_with("rust, ") || s.contains(": rust, 5,296 lines"),
        "{s}"
    );
    assert!(s.contains("impl Default for Command (lines "), "{s}");
}

#[test]
fn langs_lists_rust_and_python() {
    toolcap()
        .arg("langs")
        .assert()
        .success()
        .stdout(predicate::str::contains("rust").and(predicate::str::contains("py")));
}

#[test]
fn a_closed_stdout_pipe_is_not_an_error() {
    let bin = assert_cmd::cargo::cargo_bin("toolcap");
    let mut child = StdCommand::new(bin)
        .args(["process", "--tool", "get_continuation"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // close our end of stdout before the child writes
    drop(child.stdout.take());
    let big = "line\n".repeat(2_000_000);
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(big.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A file name built to break naive quoting comes out of every suggested shell
/// command as one literal argument, and the injected command never runs.
#[test]
fn hostile_file_names_stay_one_literal_argument() {
    let names = [
        "it's a file.py",
        "$(touch PWNED).py",
        "`touch PWNED`.py",
        "a;touch PWNED;.py",
        "quote\"d.py",
        "new\nline.py",
        "-n.py",
    ];
    let source: String = (0..300)
        .map(|i| format!("def f{i}(x):\n    return x + {i}\n\n"))
        .collect();
    for name in names {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(name), &source).unwrap();
        let out = toolcap()
            .args(["process", "--tool", "read_file", "--json", "--arg"])
            .arg(format!("path={name}"))
            .write_stdin(source.clone())
            .assert()
            .success();
        let v = json_of(&out.get_output().stdout);
        let mut ran = 0;
        for s in v["suggestions"].as_array().unwrap() {
            let Some(cmd) = s["args"]["command"].as_str() else {
                continue;
            };
            let out = StdCommand::new("bash")
                .arg("-c")
                .arg(cmd)
                .current_dir(dir.path())
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{name:?}: {cmd} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(!out.stdout.is_empty(), "{name:?}: {cmd} printed nothing");
            ran += 1;
        }
        assert!(ran >= 1, "{name:?}: no shell suggestion");
        assert!(
            !dir.path().join("PWNED").exists(),
            "{name:?}: injection ran"
        );
        // the rendered call syntax parses back to the same command
        let text = v["text"].as_str().unwrap();
        for s in v["suggestions"].as_array().unwrap() {
            let rendered = format!("{}(", s["tool"].as_str().unwrap());
            assert!(text.contains(&rendered));
            for (k, val) in s["args"].as_object().unwrap() {
                assert!(text.contains(&format!("{k}={val}")), "{name:?}: {k}={val}");
            }
        }
    }
}

#[test]
fn tool_names_may_start_with_a_dash() {
    let out = toolcap()
        .args(["process", "--tool", "-n", "--json"])
        .write_stdin("x\n".repeat(3000))
        .assert()
        .success();
    let v = json_of(&out.get_output().stdout);
    assert_eq!(v["tool"], "-n");
    assert_eq!(v["family"], "generic");
    assert_eq!(v["truncated"], true);
}
