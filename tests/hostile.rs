//! Hostile values in every argument kind of every family: each suggested shell
//! command, run by bash in a temporary directory, gets the value as one literal
//! argument (the programs it calls are replaced by spies that record their
//! arguments, so nothing but bash's own parsing runs), and an injected
//! `touch PWNED` never creates the file; each `tool(arg="...")` call parses back
//! with the value intact.

use crate::corpus;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Map, Value, json};
use toolcap::hints::RECOVERY_CAP;
use toolcap::{Config, Processed, ToolResultProcessor};

/// Programs the suggestions call; each is replaced by a spy.
const SPIED: [&str; 12] = [
    "bash", "sed", "grep", "tail", "head", "wc", "sort", "curl", "od", "cat", "sh", "touch",
];

/// A directory of spy programs: each writes its name and arguments (NUL-separated)
/// to a new file under `log` and exits 0.
fn spies(dir: &Path, log: &Path) -> PathBuf {
    let bin = dir.join("spybin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    std::fs::create_dir_all(log).expect("mkdir");
    for name in SPIED {
        let p = bin.join(name);
        std::fs::write(
            &p,
            format!(
                "#!/bin/bash\nf=$(/usr/bin/mktemp '{}/call.XXXXXXXX')\nprintf '%s\\0' {name} \"$@\" > \"$f\"\nexit 0\n",
                log.display()
            ),
        )
        .expect("write spy");
        let mut perm = std::fs::metadata(&p).expect("meta").permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
        std::fs::set_permissions(&p, perm).expect("chmod");
    }
    bin
}

/// Every recorded call: program name and arguments.
fn calls(log: &Path) -> Vec<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(log).expect("log dir") {
        let data = std::fs::read(e.expect("entry").path()).expect("read call");
        let mut parts: Vec<Vec<u8>> = data.split(|&b| b == 0).map(<[u8]>::to_vec).collect();
        parts.pop(); // after the last NUL
        out.push(parts);
    }
    out
}

/// The value as the processor sees it (tool arguments are JSON strings).
fn text_of(value: &[u8]) -> String {
    String::from_utf8_lossy(value).into_owned()
}

struct Family {
    tool: &'static str,
    args: fn(&str) -> Value,
    result: fn(&str) -> String,
    /// Argument keys of suggested calls that must carry the value.
    carries: &'static [&'static str],
}

fn families() -> Vec<Family> {
    vec![
        Family {
            tool: "read_file",
            args: |v| json!({ "path": v }),
            result: |_| {
                (0..300)
                    .map(|i| format!("def f{i}(x):\n    return x + {i}\n\n"))
                    .collect()
            },
            carries: &["path"],
        },
        Family {
            tool: "grep_content",
            args: |v| json!({ "pattern": v, "path": v }),
            result: |v| {
                let name = v.replace(['\n', '\r'], " ");
                (0..400)
                    .map(|i| {
                        if i % 3 == 0 {
                            format!("other.py:{i}:hit\n")
                        } else {
                            format!("{name}:{i}:a matching line of text {name}\n")
                        }
                    })
                    .collect()
            },
            carries: &["pattern"],
        },
        Family {
            tool: "shell",
            args: |v| json!({ "command": v, "exit_code": 1 }),
            result: |_| {
                (0..300)
                    .map(|i| {
                        if i == 150 {
                            "error: something failed\n".to_string()
                        } else {
                            format!("step {i} ok\n")
                        }
                    })
                    .collect()
            },
            carries: &["command"],
        },
        Family {
            tool: "web_search",
            args: |v| json!({ "query": v }),
            result: |v| {
                let u = v.replace([' ', '\n', '\r', '(', ')', ']', '['], "_");
                (1..=80)
                    .map(|i| {
                        format!(
                            "{i}. [Result {i} {v}](https://site{}.example/{u}/{i})\n   Snippet {i} about the query.\n",
                            i % 4
                        )
                    })
                    .collect()
            },
            carries: &["query"],
        },
        Family {
            tool: "web_fetch",
            args: |v| json!({ "url": v }),
            result: |v| {
                let h = v.replace(['\n', '\r'], " ");
                let mut s = String::from("# Page\n\n");
                for i in 0..150 {
                    s.push_str(&format!(
                        "## Section {i} {h}\n\nSome text for section {i}.\n\n"
                    ));
                }
                s
            },
            carries: &["url"],
        },
        Family {
            tool: "glob_files",
            args: |v| json!({ "pattern": v, "path": v }),
            result: |v| {
                let name = v.replace(['\n', '\r'], " ");
                (0..300)
                    .map(|i| format!("src/d{}/{name}{i}.py\n", i % 5))
                    .collect()
            },
            carries: &["pattern"],
        },
        Family {
            tool: "mcp__tracker__list",
            args: |v| {
                let mut m = Map::new();
                m.insert("filter".into(), json!(v));
                m.insert(v.to_string(), json!(v));
                Value::Object(m)
            },
            result: |v| {
                let items: Vec<Value> = (0..200).map(|i| json!({"id": i, "title": v})).collect();
                serde_json::to_string_pretty(&json!({ "items": items })).expect("JSON")
            },
            carries: &[],
        },
    ]
}

/// Default tools, and a config whose grep, fetch and glob suggestions fall back
/// to shell commands (so URLs, patterns and paths land in shell words too).
fn processors() -> Vec<(&'static str, ToolResultProcessor)> {
    let shell_only = "[suggest.grep]\ntool = \"\"\n[suggest.web_fetch]\ntool = \"\"\n";
    vec![
        ("defaults", ToolResultProcessor::new(Config::defaults())),
        (
            "shell fallbacks",
            ToolResultProcessor::new(
                Config::from_sources(Some((shell_only, Path::new("shell-only.toml"))), None)
                    .expect("valid config"),
            ),
        ),
    ]
}

/// Parse `tool(key=JSON, key=JSON)  # purpose` back into the tool and arguments.
fn parse_call(line: &str) -> (String, Map<String, Value>) {
    let (tool, mut rest) = line.split_once('(').expect("tool(");
    let mut args = Map::new();
    if let Some(r) = rest.strip_prefix(')') {
        assert!(r.starts_with("  # "), "{line}");
        return (tool.to_string(), args);
    }
    loop {
        let (k, r) = rest.split_once('=').expect("key=");
        let mut it = serde_json::Deserializer::from_str(r).into_iter::<Value>();
        let v = it
            .next()
            .expect("a value")
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        let r = &r[it.byte_offset()..];
        args.insert(k.to_string(), v);
        if let Some(r) = r.strip_prefix(", ") {
            rest = r;
        } else {
            assert!(r.starts_with(")  # "), "{line}");
            return (tool.to_string(), args);
        }
    }
}

fn check_calls(out: &Processed, value: &str, fam: &Family, ctx: &str) {
    let commands = out
        .text
        .split("\nCommands:\n")
        .nth(1)
        .map_or("", |s| s.split("\n\n").next().unwrap_or(""));
    let rendered: Vec<&str> = commands
        .lines()
        .filter_map(|l| l.strip_prefix("  • "))
        .collect();
    assert_eq!(rendered.len(), out.suggestions.len(), "{ctx}");
    let mut calls = 0;
    let mut carrying = 0;
    for (line, s) in rendered.iter().zip(&out.suggestions) {
        let (tool, args) = parse_call(line);
        assert_eq!(tool, s.tool, "{ctx}");
        assert_eq!(args, s.args, "{ctx}: {line}");
        if tool == "shell" {
            continue;
        }
        calls += 1;
        if fam.carries.iter().any(|k| {
            args.get(*k)
                .and_then(Value::as_str)
                .is_some_and(|v| v.contains(value))
        }) {
            carrying += 1;
        }
    }
    if fam.carries.is_empty() {
        return;
    }
    if value.chars().count() > RECOVERY_CAP {
        // too long for any call to be shown: they are counted instead (a
        // family may also suggest nothing: glob narrows only to directories
        // whose listing fits)
        assert!(
            out.text
                .contains("not shown: recovery options are capped at ")
                || (out.suggestions.is_empty() && fam.tool == "glob_files"),
            "{ctx}"
        );
    } else if calls > 0 {
        assert!(carrying > 0, "{ctx}: no call carries the value intact");
    }
}

#[test]
fn hostile_values_stay_one_literal_in_every_family() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("log");
    let bin = spies(dir.path(), &log);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = 0;
    for (config, p) in processors() {
        for fam in families() {
            for raw in corpus::values() {
                let value = text_of(&raw);
                let shown: String = value.chars().take(60).collect();
                let ctx = format!("{config} / {} / {shown:?}", fam.tool);
                let args = (fam.args)(&value);
                let out = p.process(fam.tool, &(fam.result)(&value), &args);
                assert!(out.truncated, "{ctx}: not cut");
                check_calls(&out, &value, &fam, &ctx);
                for s in out.suggestions.iter().filter(|s| s.tool == "shell") {
                    let cmd = s.args["command"].as_str().expect("command string");
                    let work = tempfile::tempdir_in(dir.path()).expect("work dir");
                    std::fs::remove_dir_all(&log).expect("clear log");
                    std::fs::create_dir_all(&log).expect("log");
                    let st = Command::new("/bin/bash")
                        .arg("-c")
                        .arg(cmd)
                        .current_dir(work.path())
                        .env("PATH", &path)
                        .stdin(Stdio::null())
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .status()
                        .expect("bash runs");
                    ran += 1;
                    assert!(st.success(), "{ctx}: `{cmd}` failed");
                    assert!(
                        !work.path().join("PWNED").exists(),
                        "{ctx}: `{cmd}` ran the injected command"
                    );
                    let calls = calls(&log);
                    assert!(!calls.is_empty(), "{ctx}: `{cmd}` called nothing");
                    // No argument holds a piece of the injection without holding the
                    // whole value: the value arrived as one literal.
                    let whole = [value.as_bytes().to_vec(), format!("./{value}").into_bytes()];
                    for c in &calls {
                        assert_ne!(c[0], b"touch", "{ctx}: `{cmd}` ran touch");
                        for a in &c[1..] {
                            let a_str = String::from_utf8_lossy(a);
                            if a_str.contains("touch PWNED") && !value.contains('\n') {
                                assert!(
                                    whole
                                        .iter()
                                        .any(|w| a_str.contains(&*String::from_utf8_lossy(w))),
                                    "{ctx}: `{cmd}` passed a piece of the value: {a_str:?}"
                                );
                            }
                        }
                    }
                    let carried = calls
                        .iter()
                        .flat_map(|c| &c[1..])
                        .any(|a| String::from_utf8_lossy(a).contains(&value));
                    let mentions = fam.tool != "web_fetch" || config == "shell fallbacks";
                    if mentions && s.purpose.contains("re-runs the command") {
                        // the command reaches bash -c whole, or runs as plain words
                        assert!(
                            carried || toolcap_text::quote::is_plain_command(&value),
                            "{ctx}: `{cmd}`"
                        );
                    }
                }
            }
        }
    }
    assert!(ran > 500, "only {ran} commands ran");
}

/// Values given on the command line (`--arg`, `--args-json`) come out the same.
#[test]
fn hostile_values_through_the_cli() {
    let source: String = (0..300)
        .map(|i| format!("def f{i}(x):\n    return x + {i}\n\n"))
        .collect();
    for raw in corpus::values() {
        let value = text_of(&raw);
        if value.contains('\0') {
            // no argv element can hold a NUL: pass it as JSON instead
            let out = assert_cmd::Command::cargo_bin("toolcap")
                .expect("binary")
                .env_remove("TOOLCAP_CONFIG")
                .args(["process", "--tool", "read_file", "--json", "--args-json"])
                .arg(json!({ "path": value }).to_string())
                .write_stdin(source.clone())
                .assert()
                .success();
            let v: Value = serde_json::from_slice(&out.get_output().stdout).expect("JSON");
            assert!(v["text"].as_str().expect("text").contains("File: "));
            continue;
        }
        let out = assert_cmd::Command::cargo_bin("toolcap")
            .expect("binary")
            .env_remove("TOOLCAP_CONFIG")
            .args(["process", "--tool", "read_file", "--json", "--arg"])
            .arg(format!("path={value}"))
            .write_stdin(source.clone())
            .assert()
            .success();
        let v: Value = serde_json::from_slice(&out.get_output().stdout).expect("JSON");
        for s in v["suggestions"].as_array().expect("suggestions") {
            if let Some(p) = s["args"].get("path") {
                assert_eq!(p.as_str(), Some(value.as_str()));
            }
        }
    }
}

/// Hostile tool call ids: the recovery section's `get_continuation` instruction
/// names the id as a JSON string that parses back to it, and the recovery tool
/// finds the result under it; ids the store refuses are refused with a reason.
#[test]
fn hostile_tool_call_ids_round_trip_through_the_store() {
    use std::sync::Arc;
    use toolcap::store::tools::{Dispatch, RecoveryTools};
    use toolcap::store::{MemoryStore, ResultStore, SaveWhen, validate_id};
    let output: String = (0..500).map(|i| format!("build step {i} done\n")).collect();
    let args = json!({"command": "make"});
    let mut checked = 0;
    for raw in corpus::values() {
        let id = text_of(&raw);
        let store: Arc<dyn ResultStore> = Arc::new(MemoryStore::new());
        let p =
            ToolResultProcessor::new(Config::defaults()).with_store(store.clone(), SaveWhen::Cut);
        let mut call = toolcap::ToolCall::new("shell", &args);
        call.id = Some(&id);
        let out = p.process_call(&call, &output);
        if validate_id("tool_call_id", &id).is_err() {
            assert!(out.store_error.is_some(), "{id:?} was accepted");
            continue;
        }
        // the recovery section names the id in a call that reads the stored result
        let line = out
            .text
            .lines()
            .find(|l| l.contains("get_continuation(tool_call_id="))
            .unwrap_or_else(|| panic!("{id:?}: no recovery call in {}", out.text));
        let after = line.split_once("tool_call_id=").expect("id").1;
        let mut it = serde_json::Deserializer::from_str(after).into_iter::<Value>();
        let parsed = it.next().expect("a value").expect("a JSON string");
        assert_eq!(parsed.as_str(), Some(id.as_str()));
        let offset = out.stored.as_ref().expect("stored").offset;
        let tools = RecoveryTools::for_default_dialog(store);
        let Dispatch::Handled(r) = tools.dispatch(
            "get_continuation",
            &json!({"tool_call_id": parsed, "offset": offset}),
        ) else {
            panic!("not served");
        };
        assert!(!r.is_error, "{id:?}: {}", r.text);
        assert!(output.contains(r.text.split("\n\n[truncated").next().unwrap_or("")));
        checked += 1;
    }
    assert!(checked > 30, "only {checked} ids checked");
}
