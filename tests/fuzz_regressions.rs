//! Inputs found by fuzzing (`fuzz/`), replayed through the same checks as the fuzz
//! targets, so a fixed crash stays fixed without the fuzz toolchain. Each file in
//! `tests/fuzz_regressions/<target>/` is one input, decoded exactly as the target
//! `fuzz/fuzz_targets/<target>.rs` decodes it.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use toolcap::hints::{HEADING, RECOVERY_CAP};
use toolcap::{Config, Language, Reason, ToolResultProcessor};

fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz_regressions")
        .join(target);
    let mut out: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .map(|p| {
                    let data = std::fs::read(&p).expect("readable input");
                    (p, data)
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

const TOOLS: [&str; 8] = [
    "read_file",
    "grep_content",
    "shell",
    "web_search",
    "web_fetch",
    "glob_files",
    "mcp__x__y",
    "get_continuation",
];

const SMALL: &str = "max_kept_chars = 40\nmax_kept_tokens = 12\n[tools.read_file]\nthreshold = 80\n[tools.grep]\nthreshold = 80\n[tools.shell]\nthreshold = 80\n[tools.web_search]\nthreshold = 80\n[tools.web_fetch]\nthreshold = 80\n[tools.glob]\nthreshold = 80\n[tools.generic]\nthreshold = 80\n";

const TOKENS: &str = "[tools.shell]\nunit = \"tokens\"\nthreshold = 30\nmax_kept = 12\n[tools.read_file]\nunit = \"tokens\"\nencoding = \"cl100k_base\"\nthreshold = 30\nmax_kept = 12\n";

/// The `process` target: tool, config and argument flags from the first three
/// bytes, an argument value up to the first 0xFF, the result after it.
#[test]
fn process_inputs() {
    let processors: Vec<ToolResultProcessor> = [Some(SMALL), None, Some(TOKENS)]
        .into_iter()
        .map(|user| {
            let c = match user {
                Some(t) => Config::from_sources(Some((t, Path::new("fuzz.toml"))), None),
                None => Ok(Config::defaults()),
            };
            ToolResultProcessor::new(c.expect("valid config"))
        })
        .collect();
    for (path, data) in inputs("process") {
        if data.len() < 3 {
            continue;
        }
        let tool = TOOLS[data[0] as usize % TOOLS.len()];
        let p = &processors[data[1] as usize % processors.len()];
        let rest = &data[3..];
        let (value, body) = match rest.iter().position(|&b| b == 0xFF) {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (&rest[..0], rest),
        };
        let value = String::from_utf8_lossy(value).into_owned();
        let mut args = Map::new();
        if data[2] & 1 == 1 {
            for k in ["path", "pattern", "command", "query", "url"] {
                args.insert(k.to_string(), Value::String(value.clone()));
            }
        }
        if data[2] & 2 == 2 {
            args.insert("exit_code".into(), Value::from(u64::from(data[2])));
        }
        let args = Value::Object(args);
        let text = String::from_utf8_lossy(body);
        let out = p.process(tool, &text, &args);
        let name = path.display();
        if out.truncated {
            let i = out.text.rfind(HEADING).expect("recovery section");
            assert!(out.text[i..].chars().count() <= RECOVERY_CAP, "{name}");
        } else if out.reason != Reason::Cleaned {
            assert_eq!(out.text, text, "{name}");
        }
        let twice = p.process(tool, &out.text, &args);
        assert_eq!(
            twice.text, out.text,
            "{name}: processed twice ({:?})",
            twice.reason
        );
    }
}

/// The `outline` target: the language from the first byte, the source after it.
#[test]
fn outline_inputs() {
    for (path, data) in inputs("outline") {
        let Some((&sel, body)) = data.split_first() else {
            continue;
        };
        let langs = Language::all();
        let lang = langs[sel as usize % langs.len()];
        let text = String::from_utf8_lossy(body);
        if let Ok(o) = toolcap::outline::outline(&text, lang) {
            let lines = text.split_inclusive('\n').count();
            assert_eq!(o.lines, lines, "{}", path.display());
        }
    }
}

/// The `config` target: a user file, and after a \x01 a bypass list.
#[test]
fn config_inputs() {
    for (path, data) in inputs("config") {
        let text = String::from_utf8_lossy(&data);
        let (file, env) = match text.split_once('\u{1}') {
            Some((f, e)) => (f, Some(e)),
            None => (&*text, None),
        };
        match Config::from_sources(Some((file, Path::new("fuzz.toml"))), env) {
            Ok(c) => {
                let p = ToolResultProcessor::new(c);
                let big = "line of output\n".repeat(120);
                let out = p.process("shell", &big, &json!({"command": "make"}));
                assert!(out.bypassed || out.threshold > 0, "{}", path.display());
            }
            // an error names the file it comes from (the user's, not the defaults)
            Err(e) => {
                let msg = e.to_string();
                assert!(
                    msg.contains("fuzz.toml") || msg.contains("TOOL_RESULT_BYPASS_TOOLS"),
                    "{}: {msg}",
                    path.display()
                );
            }
        }
    }
}

/// The `args` target: NUL-separated, the first part is `--args-json`.
#[test]
fn args_inputs() {
    for (_, data) in inputs("args") {
        let text = String::from_utf8_lossy(&data);
        let mut parts = text.split('\0');
        let json = parts.next();
        let pairs: Vec<String> = parts.map(str::to_string).collect();
        let _ = toolcap::args::tool_args(&pairs, json);
        if let Some((pat, name)) = text.split_once('\u{1}') {
            let _ = toolcap::config::glob_match(pat, name);
        }
    }
}

/// The `recovery` target: the tool from the first byte, JSON argument text after.
#[test]
fn recovery_inputs() {
    use std::sync::Arc;
    use toolcap::store::tools::{Dispatch, RecoveryTools};
    use toolcap::store::{MemoryStore, Record, ResultStore};
    let store = Arc::new(MemoryStore::new());
    store
        .put(&Record::new(
            "d",
            "call_1",
            "bash",
            &json!({}),
            "line\n".repeat(400).as_str(),
        ))
        .expect("memory store");
    let store: Arc<dyn ResultStore> = store;
    let tools = RecoveryTools::new(store, "d");
    let names = [
        "get_continuation",
        "fetch_tool_output",
        "get_tool_result",
        "bash",
    ];
    for (path, data) in inputs("recovery") {
        let Some((&sel, rest)) = data.split_first() else {
            continue;
        };
        let name = names[sel as usize % names.len()];
        if let Dispatch::Handled(r) = tools.dispatch_json(name, &String::from_utf8_lossy(rest))
            && r.is_error
        {
            let v: Value = serde_json::from_str(&r.text).expect("an error is JSON");
            assert!(v["error"].is_string(), "{}", path.display());
        }
    }
}
