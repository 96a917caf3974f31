//! The processor, for every family, on arbitrary bytes (decoded lossily, as the
//! CLI does), with small budgets so short inputs reach the cut, JSON, cleaning
//! and binary paths. Checks the bounds that must hold for any input (determinism
//! and the full recount are checked by the property tests).
#![no_main]

use std::path::Path;
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};
use toolcap::hints::{HEADING, RECOVERY_CAP};
use toolcap::{Config, Reason, ToolResultProcessor};

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

fuzz_target!(|data: &[u8]| {
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
        let i = out.text.rfind(HEADING).expect("a cut result has a recovery section");
        let section = out.text[i..].chars().count();
        assert!(section <= RECOVERY_CAP, "recovery section of {section} chars");
    } else if out.reason != Reason::Cleaned {
        assert_eq!(out.text, text);
    }
    // Never processed twice (a cut, and a cleaned result with its note).
    let twice = p.process(tool, &out.text, &args);
    assert_eq!(twice.text, out.text, "processed twice: {:?}", twice.reason);
    // The report serializes.
    serde_json::to_string(&out).expect("report serializes");
});
