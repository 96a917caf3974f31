//! Issue 43 items 2 (follow-up) and 3: a cut source file's first view carries
//! the definitions after the cut as their signature lines, verbatim, with
//! their line numbers in the file's own numbering, and the agents' viewer
//! tools (SWE-agent's `open` / `goto` / `scroll_down`, the editor's `view`
//! sub-command) are file reads. Real files (Python's typing.py and shlex.py),
//! printed as each agent prints them by tests/numbered_reads.py (its sources
//! cited there).

use std::path::{Path, PathBuf};
use std::process::Command;

use regex::Regex;
use serde_json::{Value, json};
use toolcap::{Config, Processed, ToolResultProcessor};

fn stdlib(name: &str) -> Option<PathBuf> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sysconfig;print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .ok()?;
    let dir = String::from_utf8(out.stdout).ok()?;
    Some(PathBuf::from(dir.trim()).join(name)).filter(|p| p.is_file())
}

/// Lines `a..=b` of `path` as the agent's read `form` prints them.
fn print(form: &str, path: &Path, a: usize, b: usize) -> String {
    let s = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/numbered_reads.py");
    let out = Command::new("python3")
        .arg(s)
        .args([form, path.to_str().unwrap(), &a.to_string(), &b.to_string()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

use super::numbered_reads::signature_lines as signatures;

/// Every signature line is the file's line at its number, verbatim, and one
/// that begins a definition after the cut; returns how many there are.
fn check_signatures(form: &str, out: &Processed, file: &[&str], first_omitted: usize) -> usize {
    let sigs = signatures(&out.text);
    let begins = Regex::new(r"^\s*(async def|def|class|@)").unwrap();
    for (n, text) in &sigs {
        let line = file[n - 1].trim_end();
        assert!(
            super::numbered_reads::is_line(line, text),
            "{form}: line {n} is {line:?}, listed as {text:?}\n{}",
            out.text
        );
        assert!(
            *n >= first_omitted,
            "{form}: line {n} was shown above the cut ({first_omitted})"
        );
        assert!(
            begins.is_match(line),
            "{form}: line {n} begins no definition: {line:?}"
        );
    }
    sigs.len()
}

#[test]
fn a_cut_module_read_by_each_agent_lists_the_signatures_after_the_cut() {
    let Some(path) = stdlib("shlex.py") else {
        eprintln!("no Python stdlib here: skipped");
        return;
    };
    let p = path.to_str().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let file: Vec<&str> = text.lines().collect();
    let n = file.len();
    let processor = ToolResultProcessor::new(Config::defaults());
    for (form, tool, args) in [
        ("claude", "Read", json!({"file_path": p})),
        ("swe-open", "open", json!({"command": format!("open {p}")})),
        ("copilot", "view", json!({"path": p})),
        ("opencode", "read", json!({"filePath": p})),
    ] {
        let output = print(form, &path, 1, n);
        let out = processor.process(tool, &output, &args);
        assert!(out.truncated, "{form}: not cut");
        assert_eq!(out.family, "read_file", "{form}");
        let first_omitted = out.omitted.ranges[0].start_line;
        // (rows to lines: SWE-agent's header row above line 1)
        let shift = usize::from(form == "swe-open") + 3 * usize::from(form == "opencode");
        let listed = check_signatures(form, &out, &file, first_omitted - shift);
        // shlex.py: the methods of class shlex after the cut and the module's
        // functions, `split`, `join`, `quote`, each by its own line
        assert!(
            listed >= 10,
            "{form}: {listed} signature lines\n{}",
            out.text
        );
        for f in [
            "def split(",
            "def join(",
            "def quote(",
            "def read_token(self):",
        ] {
            assert!(
                signatures(&out.text).iter().any(|(_, t)| t.contains(f)),
                "{form}: {f} not listed\n{}",
                out.text
            );
        }
        assert!(
            out.text.chars().count() <= 4000,
            "{form}: {} chars",
            out.text.chars().count()
        );
    }
}

/// SWE-agent's `goto 1455` in typing.py, in its container (`/testbed/...`:
/// not on this disk): a 100-line window inside class _GenericAlias (no line at
/// the left margin), from inside a method. It is a file read, outlined from
/// its own lines: the class's methods after the cut are listed by their
/// signature lines (before: "Structure: no definitions found").
#[test]
fn swe_agents_goto_inside_a_class_lists_the_methods_after_the_cut() {
    let Some(path) = stdlib("typing.py") else {
        eprintln!("no Python stdlib here: skipped");
        return;
    };
    let text = std::fs::read_to_string(&path).unwrap();
    let file: Vec<&str> = text.lines().collect();
    assert!(
        file[1454..1554]
            .iter()
            .all(|l| !l.starts_with(|c: char| !c.is_whitespace()))
    );
    let output = print("swe-open", &path, 1455, 1554).replacen(
        &format!("[File: {} (", path.display()),
        "[File: /testbed/Lib/typing.py (",
        1,
    );
    assert!(output.starts_with(
        "[File: /testbed/Lib/typing.py (3519 lines total)]\n(1454 more lines above)\n"
    ));
    let processor = ToolResultProcessor::new(Config::defaults());
    for tool in ["goto", "scroll_down", "open"] {
        let out = processor.process(tool, &output, &json!({"command": "goto 1455"}));
        assert_eq!(out.family, "read_file", "{tool}");
        assert!(out.truncated, "{tool}");
        assert!(
            !out.text.contains("no definitions found"),
            "{tool}:\n{}",
            out.text
        );
        // rows 1-2: the header and `(1454 more lines above)`
        let first_omitted = out.omitted.ranges[0].start_line + 1455 - 3;
        let listed = check_signatures(tool, &out, &file, first_omitted);
        assert!(
            listed >= 4,
            "{tool}: {listed} signature lines\n{}",
            out.text
        );
        for def in ["1510: ", "1514: ", "1526: ", "1536: "] {
            assert!(
                out.text.contains(&format!("\n  {def}")),
                "{tool}: {def}\n{}",
                out.text
            );
        }
        assert!(
            out.text
                .contains("\n  1510:     def copy_with(self, args):\n")
        );
    }
}

/// The editor's `view` sub-command is a file read; its other commands are not
/// (`"str_replace_editor command=view"` in read_file's names).
#[test]
fn the_editors_view_command_is_a_file_read_and_its_edits_are_not() {
    let Some(path) = stdlib("shlex.py") else {
        eprintln!("no Python stdlib here: skipped");
        return;
    };
    let p = path.to_str().unwrap();
    let n = std::fs::read_to_string(&path).unwrap().lines().count();
    let output = print("swe-view", &path, 1, n);
    let processor = ToolResultProcessor::new(Config::defaults());
    for tool in ["str_replace_editor", "str_replace_based_edit_tool"] {
        let view: Value = json!({"command": "view", "path": p});
        let out = processor.process(tool, &output, &view);
        assert_eq!(out.family, "read_file", "{tool} view");
        assert!(
            signatures(&out.text)
                .iter()
                .any(|(_, t)| t.contains("def quote(s):")),
            "{tool} view:\n{}",
            out.text
        );
        let edit = json!({"command": "create", "path": p, "file_text": "x"});
        assert_eq!(
            processor.process(tool, &output, &edit).family,
            "generic",
            "{tool} create"
        );
    }
    // a name with a space that is no `TOOL KEY=VALUE` is refused
    let bad = Config::from_sources(
        Some((
            "[tools.read_file]\nnames = [\"str_replace_editor view\"]\n",
            Path::new("bad.toml"),
        )),
        None,
    );
    let e = bad.unwrap_err().to_string();
    assert!(e.contains("TOOL KEY=VALUE"), "{e}");
}
