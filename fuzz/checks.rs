//! What each fuzz target does with its input: decode it and check what must
//! hold for any input. Shared by the targets (`fuzz_targets/<target>.rs`) and by
//! `tests/fuzz_regressions.rs`, which replays the inputs fuzzing found through
//! exactly the same checks.

#![allow(dead_code)] // each includer uses some of them

use std::path::Path;
use std::sync::{Arc, LazyLock};

use serde_json::{Map, Value, json};
use toolcap::hints::{HEADING, RECOVERY_CAP};
use toolcap::store::continuation::ChunkOptions;
use toolcap::store::tools::{Dispatch, RecoveryTools};
use toolcap::store::{MemoryStore, Record, ResultStore};
use toolcap::{Config, Language, Reason, ToolCall, ToolResultProcessor, outline as outline_mod};

// ---- process: the processor, every family, arbitrary bytes, small budgets

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

const SMALL: &str = r#"
max_kept_chars = 40
max_kept_tokens = 12
[tools.read_file]
threshold = 80
[tools.grep]
threshold = 80
[tools.shell]
threshold = 80
[tools.web_search]
threshold = 80
[tools.web_fetch]
threshold = 80
[tools.glob]
threshold = 80
[tools.generic]
threshold = 80
"#;

const TOKENS: &str = r#"
[tools.shell]
unit = "tokens"
threshold = 30
max_kept = 12
[tools.read_file]
unit = "tokens"
encoding = "cl100k_base"
threshold = 30
max_kept = 12
"#;

static PROCESSORS: LazyLock<Vec<ToolResultProcessor>> = LazyLock::new(|| {
    [Some(SMALL), None, Some(TOKENS)]
        .into_iter()
        .map(|user| {
            let c = match user {
                Some(t) => Config::from_sources(Some((t, Path::new("fuzz.toml"))), None),
                None => Ok(Config::defaults()),
            };
            ToolResultProcessor::new(c.expect("fuzz configs are valid"))
        })
        .collect()
});

/// Tool, config and argument flags from the first three bytes, an argument
/// value up to the first 0xFF (never valid UTF-8), the result after it.
pub fn process(data: &[u8]) {
    if data.len() < 3 {
        return;
    }
    let tool = TOOLS[data[0] as usize % TOOLS.len()];
    let p = &PROCESSORS[data[1] as usize % PROCESSORS.len()];
    let rest = &data[3..];
    // the argument value runs up to the first 0xFF byte (never valid UTF-8)
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

    // The recovery section never exceeds its cap.
    if out.truncated {
        let i = out
            .text
            .rfind(HEADING)
            .expect("a cut result has a recovery section");
        let section = out.text[i..].chars().count();
        assert!(
            section <= RECOVERY_CAP,
            "recovery section of {section} chars"
        );
    } else if out.reason != Reason::Cleaned {
        assert_eq!(out.text, text);
    }
    // Never processed twice (a cut, and a cleaned result with its note).
    let twice = p.process(tool, &out.text, &args);
    assert_eq!(twice.text, out.text, "processed twice: {:?}", twice.reason);
    // The report serializes.
    serde_json::to_string(&out).expect("report serializes");
}

// ---- outline: every language on arbitrary bytes, and language detection

/// The language from the first byte, the source after it.
pub fn outline(data: &[u8]) {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    let langs = Language::all();
    let lang = langs[sel as usize % langs.len()];
    let text = String::from_utf8_lossy(body);
    if let Ok(o) = outline_mod::outline(&text, lang) {
        let lines = text.split_inclusive('\n').count();
        assert_eq!(o.lines, lines);
        for s in &o.symbols {
            assert!(1 <= s.line && s.line <= s.end_line && s.end_line <= lines.max(1));
        }
    }
    let _ = toolcap_outline::detect::language(None, Some("x.unknown"), &text);
    let _ = toolcap_outline::detect::text_kind(None, &text);
}

// ---- config: a user file, and after a \x01 a bypass list

pub fn config(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (file, env) = match text.split_once('\u{1}') {
        Some((f, e)) => (f, Some(e)),
        None => (&*text, None),
    };
    match Config::from_sources(Some((file, Path::new("fuzz.toml"))), env) {
        Ok(c) => {
            let described = c.describe();
            assert!(!described.is_empty());
            let p = ToolResultProcessor::new(c);
            let big = "line of output\n".repeat(120);
            for tool in ["read_file", "shell", "grep", "mcp__a", "x"] {
                let out = p.process(tool, &big, &json!({"path": "a.txt", "command": "make"}));
                assert!(out.bypassed || out.threshold > 0);
            }
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(
                msg.contains("fuzz.toml") || msg.contains("TOOL_RESULT_BYPASS_TOOLS"),
                "{msg}"
            );
        }
    }
}

// ---- args: NUL-separated, the first part is `--args-json`

pub fn args(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.split('\0');
    let json = parts.next();
    let pairs: Vec<String> = parts.map(str::to_string).collect();
    match toolcap_core::tool_args(&pairs, json) {
        Ok(v) => {
            let obj = v.as_object().expect("an object");
            for p in &pairs {
                let (k, _) = p.split_once('=').expect("accepted pairs have '='");
                assert!(obj.contains_key(k));
            }
            // the last pair for a key wins, value intact
            if let Some(p) = pairs.last() {
                let (k, val) = p.split_once('=').expect("pair");
                assert_eq!(obj[k].as_str(), Some(val));
            }
        }
        Err(e) => assert!(e.0.starts_with("--arg") || e.0.starts_with("--args-json")),
    }
    let _ = toolcap_core::tool_args(&pairs, None);
    let _ = Language::from_name(&text);
    if let Some((pat, name)) = text.split_once('\u{1}') {
        let _ = toolcap::config::glob_match(pat, name);
    }
}

// ---- recovery: the recovery tools on arbitrary JSON arguments

const RECOVERY_NAMES: [&str; 4] = [
    "get_continuation",
    "fetch_tool_output",
    "get_tool_result",
    "bash",
];

static RECOVERY_TOOLS: LazyLock<[RecoveryTools; 2]> = LazyLock::new(|| {
    let store = Arc::new(MemoryStore::new());
    let outputs = [
        (
            "call_1",
            (0..400).map(|i| format!("line {i}\n")).collect::<String>(),
        ),
        ("call_2", "é✓𝄞\r\n".repeat(700)),
        ("call_3", String::new()),
        ("c", "x".repeat(5)),
    ];
    for (id, out) in &outputs {
        store
            .put(&Record::new("d", id, "bash", &json!({"command": "x"}), out))
            .expect("memory store");
    }
    let store: Arc<dyn ResultStore> = store;
    [
        RecoveryTools::new(store.clone(), "d"),
        RecoveryTools::new(store, "d").chunk_options(ChunkOptions {
            chunk_chars: 97,
            line_aligned: true,
        }),
    ]
});

/// The tool from the first byte, JSON argument text after it.
pub fn recovery(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let name = RECOVERY_NAMES[sel as usize % RECOVERY_NAMES.len()];
    let tools = &RECOVERY_TOOLS[(sel as usize / RECOVERY_NAMES.len()) % 2];
    let args = String::from_utf8_lossy(rest);
    match tools.dispatch_json(name, &args) {
        Dispatch::NotMine => assert_eq!(name, "bash"),
        Dispatch::Handled(r) => {
            if r.is_error {
                let v: Value = serde_json::from_str(&r.text).expect("an error is JSON");
                assert!(v["error"].is_string());
            }
            if let Some(n) = r.next_offset {
                assert!(r.text.contains(&format!("offset={n} to read more")));
            }
        }
    }
}

// ---- stream: streamed processing gives the in-memory report

static STREAM_PROCESSOR: LazyLock<ToolResultProcessor> = LazyLock::new(|| {
    let c = Config::from_sources(
        Some((
            "max_kept_chars = 40\n[tools.shell]\nthreshold = 80\n",
            Path::new("fuzz.toml"),
        )),
        None,
    )
    .expect("valid config");
    ToolResultProcessor::new(c)
});

#[path = "../tests/support/trickle.rs"]
mod trickle;
use trickle::Trickle;

/// The read size from the first byte; the rest, repeated (with a numbered line
/// between copies, so cleaning does not collapse it) into a result large enough
/// to stream.
pub fn stream(data: &[u8]) {
    if data.len() < 2 {
        return;
    }
    let chunk = usize::from(data[0]) * 7 + 1;
    let piece = String::from_utf8_lossy(&data[1..]);
    // large enough for the streaming path (toolcap's own output is held whole)
    let mut text = String::new();
    let mut i = 0;
    while text.len() < 64 * 1024 {
        text.push_str(&piece);
        text.push_str(&format!("\nline {i}\n"));
        i += 1;
    }
    let args = json!({"command": "make"});
    let call = ToolCall::new("shell", &args);
    let mem = STREAM_PROCESSOR.process_call(&call, &text);
    let (streamed, _) = STREAM_PROCESSOR
        .process_stream(
            &call,
            Trickle {
                data: text.as_bytes(),
                n: chunk,
            },
        )
        .expect("reading from memory cannot fail");
    assert_eq!(streamed.text, mem.text);
    assert_eq!(
        serde_json::to_value(&streamed).expect("report"),
        serde_json::to_value(&mem).expect("report")
    );
}
