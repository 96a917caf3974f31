//! Config parsing: arbitrary text as the user's thresholds file (and as the
//! bypass environment variable). A config that loads must process a result.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use toolcap::{Config, ToolResultProcessor};

fuzz_target!(|data: &[u8]| {
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
            assert!(msg.contains("fuzz.toml") || msg.contains("TOOL_RESULT_BYPASS_TOOLS"), "{msg}");
        }
    }
});
