//! Hints that hold up on real material, one test per defect found (issue 17): each failed on the code before its fix.
//! (The real-input check is `tests/real_inputs.rs`.)

use std::process::Command;

use serde_json::{Value, json};
use toolcap::{Config, Processed, ToolResultProcessor};

fn process(tool: &str, text: &str, args: Value) -> Processed {
    ToolResultProcessor::new(Config::defaults()).process(tool, text, &args)
}

fn bash(cmd: &str, cwd: &std::path::Path) -> String {
    let out = Command::new("bash")
        .arg("-c")
        .arg(cmd)
        .current_dir(cwd)
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{cmd}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn has_jq() -> bool {
    Command::new("jq")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// 3: the rest of a YAML listing is counted from all its keys.
#[test]
fn yaml_summary_counts_the_real_remainder() {
    let y: String = (0..133)
        .map(|i| format!("key{i}:\n  a: {i}\n  b: a value that makes this file long enough {i}\n"))
        .collect();
    let out = process("read_file", &y, json!({"path": "big.yaml"}));
    assert!(out.text.contains("Top-level keys (133)"), "{}", out.text);
    assert!(out.text.contains("... and 109 more keys"), "{}", out.text);
    assert!(!out.text.contains("16 more"), "{}", out.text);
}

/// 4: a grep tool's pattern is a regex: `$` in a name is escaped, and the
/// escaped pattern finds the name's lines.
#[test]
fn grep_suggestion_for_a_name_with_a_dollar_matches() {
    let mut ts = String::from("// types\n");
    for i in 0..60 {
        ts.push_str(&format!(
            "export type Alias{i} = string | number | undefined | null;\n"
        ));
    }
    ts.push_str("export interface _$ZodTypeInternals {\n");
    for i in 0..40 {
        ts.push_str(&format!("  field{i}: string;\n"));
    }
    ts.push_str("}\nexport const x: _$ZodTypeInternals | null = null;\n");
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("core.d.ts"), &ts).expect("write");
    let out = process("read_file", &ts, json!({"path": "core.d.ts"}));
    let g = out
        .suggestions
        .iter()
        .find(|s| s.tool == "grep_content")
        .unwrap_or_else(|| panic!("a grep suggestion: {}", out.text));
    let pattern = g.args["pattern"].as_str().expect("pattern");
    assert_eq!(pattern, r"_\$ZodTypeInternals");
    assert!(g.purpose.contains("(2 lines)"), "{}", g.purpose);
    let found = bash(&format!("grep -n -E -e '{pattern}' core.d.ts"), dir.path());
    assert_eq!(found.lines().count(), 2, "{found}");
}

/// 5: one line of JSON over 60 KB printed by a command stays valid JSON, and
/// the hints are jq paths that run as written.
#[test]
fn one_line_json_from_a_command_stays_json_with_jq_paths() {
    let items: Vec<Value> = (0..1000)
        .map(|i| json!({"id": i, "name": format!("package-{i}"), "deps": ["a", "b", "c"], "size": i * 7}))
        .collect();
    let doc = json!({"count": 1000, "items": items}).to_string();
    assert!(doc.len() > 60_000 && !doc.contains('\n'));
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("doc.json"), &doc).expect("write");
    let p = ToolResultProcessor::new(Config::defaults());
    // streamed, as the CLI and the MCP proxy read a command's output
    let (out, _) = p
        .process_stream(
            &toolcap::ToolCall::new("shell", &json!({"command": "cat doc.json"})),
            std::io::Cursor::new(doc.as_bytes()),
        )
        .expect("processed");
    let shown = out
        .text
        .split("\n\n[... JSON shortened")
        .next()
        .expect("kept part");
    let v: Value = serde_json::from_str(shown).unwrap_or_else(|e| panic!("{e}: {shown}"));
    assert_eq!(v["count"], 1000);
    assert!(out.text.contains("600 chars") || out.text.contains("JSON shortened"));
    let jq: Vec<_> = out
        .suggestions
        .iter()
        .filter(|s| {
            s.args["command"]
                .as_str()
                .is_some_and(|c| c.contains("| jq -c "))
        })
        .collect();
    assert!(!jq.is_empty(), "{}", out.text);
    assert!(
        !out.suggestions.iter().any(|s| s.args["command"]
            .as_str()
            .is_some_and(|c| c.contains("sed -n"))),
        "{}",
        out.text
    );
    if has_jq() {
        for s in jq {
            let cmd = s
                .args
                .get("command")
                .and_then(Value::as_str)
                .expect("command");
            let printed = bash(cmd, dir.path());
            assert!(
                printed.chars().count() <= 3_500,
                "{cmd}: {} chars",
                printed.len()
            );
            if let Some(n) = s
                .purpose
                .split(": ")
                .nth(1)
                .and_then(|r| r.split(' ').next())
                && let Ok(n) = n.replace(',', "").parse::<usize>()
                && s.purpose.contains(" items")
            {
                let v: Value = serde_json::from_str(&printed).expect("jq prints JSON");
                assert_eq!(v.as_array().map(Vec::len), Some(n), "{}", s.purpose);
            }
        }
    }
}

/// 6: fetched raw markdown lists its setext headings as `preview` does.
#[test]
fn fetched_markdown_lists_setext_headings() {
    let md: String = (0..40)
        .map(|i| {
            format!(
                "Section {i}\n{}\n\n{}\n\n",
                if i % 4 == 0 { "=========" } else { "---------" },
                "words ".repeat(30)
            )
        })
        .collect();
    let out = process(
        "web_fetch",
        &md,
        json!({"url": "https://example.com/notes.md"}),
    );
    assert!(out.text.contains("Headings (40)"), "{}", out.text);
}

/// 8: a minified file keeps ~2,000 chars cut inside its long line, and the
/// hint prints exactly the next chars.
#[test]
fn minified_file_is_cut_inside_its_line_and_paged_by_chars() {
    let mut js = String::from("/*! lib v1.0 | MIT License */\n");
    for i in 0..3000 {
        js.push_str(&format!("function f{i}(a,b){{return a+b*{i}}};"));
    }
    js.push('\n');
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("lib.min.js"), &js).expect("write");
    let out = process("read_file", &js, json!({"path": "lib.min.js"}));
    let kept = out.text.split("\n\n[... ").next().expect("kept");
    assert!(
        kept.chars().count() >= 1_900,
        "kept only {} chars",
        kept.chars().count()
    );
    let s = out
        .suggestions
        .iter()
        .find(|s| {
            s.args["command"]
                .as_str()
                .is_some_and(|c| c.starts_with("tail -c +"))
        })
        .unwrap_or_else(|| panic!("a char window: {}", out.text));
    let printed = bash(
        s.args
            .get("command")
            .and_then(Value::as_str)
            .expect("command"),
        dir.path(),
    );
    let from = kept.len();
    assert!(
        js[from..].starts_with(&printed),
        "prints what follows the cut"
    );
    let said = format!(
        "the next {} chars",
        toolcap_text::text::thousands(printed.chars().count())
    );
    assert!(s.purpose.contains(&said), "{}", s.purpose);
    assert!(printed.chars().count() <= 3_500);
}

/// 9: glob summaries keep directory names whole; version numbers and
/// `x86_64-linux-gnu` are not extensions.
#[test]
fn glob_summary_is_readable_and_extensions_are_real() {
    let mut listing = String::from("/usr/lib\n/usr/lib/x86_64-linux-gnu\n/usr/lib/python3.11\n");
    for i in 0..150 {
        listing.push_str(&format!(
            "/usr/lib/x86_64-linux-gnu/some-quite-long-library-directory-name/libthing{i}.so.6\n"
        ));
        listing.push_str(&format!("/usr/lib/python3.11/module_{i}.py\n"));
    }
    let out = process(
        "glob_files",
        &listing,
        json!({"pattern": "**/*", "path": "/usr/lib"}),
    );
    assert!(
        out.text
            .contains("x86_64-linux-gnu/some-quite-long-library-directory-name (150)"),
        "{}",
        out.text
    );
    assert!(!out.text.contains('…'), "{}", out.text);
    assert!(
        !out.text.contains("*.11") && !out.text.contains("*.6"),
        "{}",
        out.text
    );
    assert!(
        out.text.contains("Extensions (1): .py (150)"),
        "{}",
        out.text
    );
}

/// 10: `site:` only when the results are on several sites.
#[test]
fn site_is_suggested_only_for_results_on_several_sites() {
    let one_site: String = (1..=50)
        .map(|i| format!("{i}. [Result {i}](https://doc.rust-lang.org/std/page{i}.html)\n   A snippet about result {i} that goes on for a while.\n\n"))
        .collect();
    let out = process(
        "web_search",
        &one_site,
        json!({"query": "interior mutability"}),
    );
    assert!(out.truncated);
    assert!(!out.text.contains("site:"), "{}", out.text);
}

/// 11: every suggested line range prints within the shell threshold and says its
/// size; the kept part and the recovery section fit the threshold.
#[test]
fn ranges_fit_the_threshold_and_say_their_size() {
    let mut py = String::new();
    for c in 0..30 {
        py.push_str(&format!("class Handler{c}:\n    \"\"\"A handler with a docstring long enough to matter for the size of a range.\"\"\"\n\n"));
        for m in 0..12 {
            py.push_str(&format!("    def method_{m}(self, event, context=None):\n        value = event.get('key_{m}', context)\n        return value\n\n"));
        }
    }
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("handlers.py"), &py).expect("write");
    let out = process("read_file", &py, json!({"path": "handlers.py"}));
    assert!(
        out.text.chars().count() <= out.threshold,
        "{} chars",
        out.text.chars().count()
    );
    let mut sed = 0;
    for s in &out.suggestions {
        let Some(cmd) = s.args.get("command").and_then(Value::as_str) else {
            continue;
        };
        if cmd.starts_with("sed -n") {
            sed += 1;
            let printed = bash(cmd, dir.path());
            let n = printed.chars().count();
            assert!(n <= 3_500, "{cmd}: {n} chars");
            let said = format!("{} chars", toolcap_text::text::thousands(n));
            assert!(s.purpose.contains(&said), "{}: printed {n}", s.purpose);
        }
    }
    assert!(sed >= 2, "{}", out.text);
}
