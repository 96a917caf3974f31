//! Property tests of the result store's recovery tools over arbitrary text:
//! `get_continuation` chunks and `fetch_tool_output` pages concatenate back to the
//! original exactly, each with the exact marker; and a cut result's kept head plus
//! the continuation from the offset its recovery section names is the original.

use std::path::Path;
use std::sync::Arc;

use proptest::collection::vec;
use proptest::prelude::*;
use serde_json::{Value, json};
use toolcap::store::continuation::{ChunkOptions, continuation_marker};
use toolcap::store::tools::{Dispatch, RecoveryTools};
use toolcap::store::{MemoryStore, Record, ResultStore, SaveWhen};
use toolcap::{Config, Reason, ToolCall, ToolResultProcessor};

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        vec("(\\PC{0,40}|error: [a-z]{0,9}|)(\n|\r\n)", 0..200).prop_map(|v| v.concat()),
        vec(any::<u8>(), 0..3000).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        ("\\PC{1,8}", 1..2000usize).prop_map(|(s, n)| s.repeat(n)),
    ]
}

fn reply(t: &RecoveryTools, name: &str, args: Value) -> toolcap::store::continuation::ToolReply {
    match t.dispatch(name, &args) {
        Dispatch::Handled(r) => r,
        Dispatch::NotMine => panic!("{name} not served"),
    }
}

proptest! {
    #[test]
    fn continuation_chunks_concatenate_to_the_original(
        output in text(),
        chunk_chars in 1..400usize,
        line_aligned: bool,
    ) {
        let store = Arc::new(MemoryStore::new());
        store.put(&Record::new("d", "call_1", "bash", &json!({"command": "x"}), &output))
            .expect("memory store");
        let tools = RecoveryTools::new(store, "d")
            .chunk_options(ChunkOptions { chunk_chars, line_aligned });
        let total = output.chars().count();
        let mut got = String::new();
        let mut offset = 0;
        let mut calls = 0;
        loop {
            let r = reply(&tools, "get_continuation", json!({"tool_call_id": "call_1", "offset": offset}));
            if total == 0 {
                prop_assert!(r.is_error);
                break;
            }
            prop_assert!(!r.is_error, "{}", r.text);
            calls += 1;
            match r.next_offset {
                Some(next) => {
                    let marker = format!("\n\n{}", continuation_marker("call_1", offset, next, total));
                    let chunk = r.text.strip_suffix(&marker).expect("the exact marker");
                    prop_assert_eq!(chunk.chars().count(), next - offset);
                    prop_assert!(next - offset <= chunk_chars && next > offset);
                    got.push_str(chunk);
                    offset = next;
                }
                None => {
                    got.push_str(&r.text);
                    break;
                }
            }
        }
        prop_assert_eq!(&got, &output);
        if !line_aligned && total > 0 {
            prop_assert_eq!(calls, total.div_ceil(chunk_chars));
        }
        // reading past the end is an error the model can read
        let r = reply(&tools, "get_continuation", json!({"tool_call_id": "call_1", "offset": total}));
        prop_assert!(r.is_error);
    }

    #[test]
    fn fetched_pages_concatenate_to_the_original(output in text(), limit in 1..500usize) {
        let store = Arc::new(MemoryStore::new());
        store.put(&Record::new("d", "c", "grep", &json!({}), &output)).expect("memory store");
        let tools = RecoveryTools::new(store, "d");
        let mut got = String::new();
        let mut offset = 0;
        loop {
            let r = reply(&tools, "fetch_tool_output", json!({"tool_call_id": "c", "offset": offset, "limit": limit}));
            if output.is_empty() {
                let v: Value = serde_json::from_str(&r.text).expect("JSON");
                prop_assert_eq!(&v["tool_output"], "");
                break;
            }
            let v: Value = serde_json::from_str(&r.text).expect("JSON");
            prop_assert_eq!(v["total_chars"].as_u64(), Some(output.chars().count() as u64));
            got.push_str(v["tool_output"].as_str().expect("output"));
            match v["next_offset"].as_u64() {
                Some(n) => offset = n as usize,
                None => break,
            }
        }
        prop_assert_eq!(&got, &output);
        // and unpaged, the whole output at once
        let r = reply(&tools, "fetch_tool_output", json!({"tool_call_id": "c"}));
        let v: Value = serde_json::from_str(&r.text).expect("JSON");
        prop_assert_eq!(v["tool_output"].as_str(), Some(output.as_str()));
    }

    /// A cut result kept in a store: what the model saw first, then the chunks from
    /// the offset its recovery section names, is the original.
    #[test]
    fn kept_head_plus_continuation_is_the_original(
        lines in vec("[a-z0-9 ]{0,30}|error: [a-z]{1,9}|\\PC{0,200}", 1..300),
        tool in prop::sample::select(vec!["read_file", "shell", "grep_content", "web_fetch", "mcp__x"]),
    ) {
        let output: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let small = Config::from_sources(
            Some(("max_kept_chars = 200\n[tools.shell]\nthreshold = 400\n[tools.read_file]\nthreshold = 400\n[tools.grep]\nthreshold = 400\n[tools.web_fetch]\nthreshold = 400\n[tools.generic]\nthreshold = 400\n", Path::new("small.toml"))),
            None,
        ).expect("config");
        let store: Arc<dyn ResultStore> = Arc::new(MemoryStore::new());
        let p = ToolResultProcessor::new(small).with_store(store.clone(), SaveWhen::Cut);
        let args = json!({"path": "f.txt", "command": "make"});
        let mut call = ToolCall::new(tool, &args);
        call.id = Some("call_9");
        let out = p.process_call(&call, &output);
        if out.reason != Reason::Cut {
            return Ok(());
        }
        let stored = out.stored.as_ref().expect("a cut result is kept");
        // the section reads the stored result: a suggested call names its id, else a
        // fact says it is kept and from which offset to read on
        let needle = format!("Call get_continuation with tool_call_id=\"call_9\" offset={} to read more", stored.offset);
        prop_assert!(out.text.contains(&needle) || out.text.contains("(tool_call_id=\"call_9\", "), "{}", out.text);
        let head: String = output.chars().take(stored.offset).collect();
        // shown verbatim, or (an error line kept from the start of a `head_tail`
        // cut) with its `[line N] ` labels
        let labelled: String = head
            .split_inclusive('\n')
            .enumerate()
            .map(|(i, l)| format!("[line {}] {l}", i + 1))
            .collect();
        prop_assert!(out.text.starts_with(&head) || out.text.starts_with(&labelled), "{}", out.text);
        let tools = RecoveryTools::for_default_dialog(store);
        let mut rest = String::new();
        let mut offset = stored.offset;
        while offset < output.chars().count() {
            let r = reply(&tools, "get_continuation", json!({"tool_call_id": "call_9", "offset": offset}));
            prop_assert!(!r.is_error, "{}", r.text);
            match r.next_offset {
                Some(n) => {
                    let (chunk, _) = r.text.rsplit_once("\n\n[truncated — showing ").expect("marker");
                    rest.push_str(chunk);
                    offset = n;
                }
                None => {
                    rest.push_str(&r.text);
                    break;
                }
            }
        }
        prop_assert_eq!(format!("{head}{rest}"), output);
    }
}
