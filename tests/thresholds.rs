//! Issue 43 items 6 and 7: each family's threshold names the next-use
//! benchmark's figures that chose it (`toolcap config`, `--json`), and the
//! recovery section spends no chars on lines that carried none of the facts
//! agents used next (the call's own arguments repeated, a command's
//! here-document spilled over several lines).

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use serde_json::{Value, json};
use toolcap::store::{MemoryStore, SaveWhen};
use toolcap::{Config, ToolCall, ToolResultProcessor};

fn toolcap(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_toolcap"))
        .args(args)
        .env_remove("TOOLCAP_CONFIG")
        .env_remove("TOOL_RESULT_BYPASS_TOOLS")
        .output()
        .expect("toolcap runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A module's source from Python's own stdlib (the python3 on PATH): real
/// files (typing.py: about 120,000 chars; json/decoder.py: 12,473).
fn stdlib_source(module: &str) -> Option<(PathBuf, String)> {
    let out = Command::new("python3")
        .args(["-c", &format!("import {module} as m; print(m.__file__)")])
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let text = std::fs::read_to_string(&path).ok()?;
    Some((path, text))
}

#[test]
fn config_shows_the_figures_that_chose_each_threshold() {
    let text = toolcap(&["config"]);
    for family in [
        "read_file",
        "grep",
        "shell",
        "web_search",
        "web_fetch",
        "glob",
        "generic",
    ] {
        let table = &text[text
            .find(&format!("[tools.{family}]\n"))
            .unwrap_or_else(|| panic!("no [tools.{family}] in:\n{text}"))..];
        let threshold = table
            .lines()
            .find(|l| l.starts_with("threshold = "))
            .expect("a threshold line");
        // right under the threshold, the note that chose it
        let next = table
            .lines()
            .skip_while(|l| !l.starts_with("threshold = "))
            .nth(1)
            .unwrap_or_default();
        assert!(
            next.starts_with("# chosen: ") && next.contains("benchmark"),
            "{family}: {threshold}\n{next}"
        );
    }
    // the shell family's: how many results, and the cost at its threshold
    let shell = &text[text.find("[tools.shell]\n").expect("shell")..];
    let note = shell
        .lines()
        .find(|l| l.starts_with("# chosen: "))
        .expect("a note");
    assert!(
        note.contains("results over 3,500 chars")
            && note.contains("mean cost to answer")
            && note.contains(" at 3,500")
            && note.contains("never cut"),
        "{note}"
    );

    let v: Value = serde_json::from_str(&toolcap(&["config", "--json"])).expect("JSON");
    let tools = v["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 7, "{v:#}");
    for t in tools {
        let basis = t["threshold_basis"].as_str().unwrap_or_default();
        assert!(basis.contains("benchmark"), "{t:#}");
        assert_eq!(t["sources"]["threshold"], "default", "{t:#}");
        assert!(t["threshold"].as_u64().is_some_and(|n| n > 2000), "{t:#}");
        // the text output's note is the same words
        assert!(text.contains(&format!("# chosen: {basis}\n")), "{basis}");
    }
    assert_eq!(v["max_kept_chars"], 2000);
}

#[test]
fn a_threshold_from_a_file_has_no_benchmark_note() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = dir.path().join("mine.toml");
    std::fs::write(&file, "[tools.shell]\nthreshold = 9000\n").expect("the file");
    let f = file.to_string_lossy();
    let text = toolcap(&["config", "--config", &f]);
    let shell = &text[text.find("[tools.shell]\n").expect("shell")..];
    let shell = &shell[..shell[1..].find("\n[").map_or(shell.len(), |i| i + 1)];
    assert!(shell.contains("threshold = 9000  # file "), "{shell}");
    assert!(!shell.contains("# chosen: "), "{shell}");
    // the other families keep theirs
    assert!(text.contains("[tools.grep]\n"));
    let v: Value =
        serde_json::from_str(&toolcap(&["config", "--json", "--config", &f])).expect("JSON");
    let shell = v["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["key"] == "shell")
        .expect("shell");
    assert_eq!(shell["threshold"], 9000);
    assert_eq!(shell["threshold_basis"], Value::Null);
    assert!(
        shell["sources"]["threshold"]
            .as_str()
            .is_some_and(|s| s.starts_with("file ")),
        "{shell:#}"
    );
}

/// An MCP server's `open` tool (`mcp__files__open`, a tool toolcap maps to no
/// family; SWE-agent's own `open` is a file read): with the result
/// stored, the section's command reads on and no note asks for a narrower
/// call; without a store, the note is the only pointer and names the tool,
/// not the call's own arguments again.
#[test]
fn the_note_to_call_again_is_short_and_only_where_nothing_reads_on() {
    let Some((path, text)) = stdlib_source("json.decoder") else {
        return;
    };
    let command = format!("open {}", path.display());
    let args = json!({ "command": command });
    let store = Arc::new(MemoryStore::new());
    let p = ToolResultProcessor::new(Config::defaults()).with_store(store, SaveWhen::Cut);
    let mut call = ToolCall::new("mcp__files__open", &args);
    call.id = Some("call_1");
    let out = p.process_call(&call, &text);
    assert!(out.truncated);
    let section = &out.text[out
        .text
        .rfind("--- Recovery Options ---")
        .expect("a section")..];
    assert!(section.contains("get_continuation("), "{section}");
    assert!(!section.contains("narrower arguments"), "{section}");
    assert!(!section.contains(&command), "{section}");

    let out =
        ToolResultProcessor::new(Config::defaults()).process("mcp__files__open", &text, &args);
    assert!(out.truncated);
    let section = &out.text[out
        .text
        .rfind("--- Recovery Options ---")
        .expect("a section")..];
    assert!(
        section
            .contains("To see other parts, call mcp__files__open again with narrower arguments."),
        "{section}"
    );
    assert!(!section.contains("this call:"), "{section}");
    assert!(!section.contains(&command), "{section}");
}

/// A command with a here-document (`python3 - <<'EOF' ... EOF`): its fact is
/// one line, with the output's size, and the script's lines stay out of the
/// section.
#[test]
fn a_here_document_command_is_one_line_of_the_section() {
    let Some((path, text)) = stdlib_source("typing") else {
        return;
    };
    let command = format!(
        "python3 - <<'EOF'\nimport sys\nwith open({:?}) as f:\n    sys.stdout.write(f.read())\nEOF",
        path.display().to_string()
    );
    let printed = Command::new("bash")
        .arg("-c")
        .arg(&command)
        .output()
        .expect("bash runs");
    let printed = String::from_utf8_lossy(&printed.stdout).into_owned();
    assert_eq!(printed, text);
    let out = ToolResultProcessor::new(Config::defaults()).process(
        "shell",
        &printed,
        &json!({ "command": command, "exit_code": 0 }),
    );
    assert!(out.truncated);
    let section = &out.text[out
        .text
        .rfind("--- Recovery Options ---")
        .expect("a section")..];
    let fact = section
        .lines()
        .find(|l| l.starts_with("Command: "))
        .unwrap_or_else(|| panic!("no command fact:\n{section}"));
    assert!(
        fact.starts_with("Command: python3 - <<'EOF' … | exit code 0 | Output: "),
        "{fact}"
    );
    // (the commands re-run it, as a JSON string on one line)
    let facts = &section[..section.find("\nCommands:\n").unwrap_or(section.len())];
    assert!(!facts.contains("import sys"), "{section}");
    assert!(!facts.contains("sys.stdout.write"), "{section}");
    assert!(!section.contains("\nimport sys\n"), "{section}");
}
