//! The store from the library: the processor keeping full results, the recovery
//! tools served in a harness loop, references and message history preparation.

use std::sync::Arc;

use serde_json::{Value, json};
use toolcap::store::continuation::{
    LoadToolResults, PREVIEW_CHARS, get_tool_result, prepare_messages, reference_message,
};
use toolcap::store::tools::{Dispatch, RecoveryTools};
use toolcap::store::{MemoryStore, Record, ResultStore, SaveWhen};
use toolcap::{Config, ToolCall, ToolResultProcessor};

fn python_source() -> String {
    (1..=300)
        .map(|i| format!("def f{i}(x):\n    return x * {i}  # ü\n\n"))
        .collect()
}

fn processor(store: &Arc<MemoryStore>, save: SaveWhen) -> ToolResultProcessor {
    ToolResultProcessor::new(Config::defaults()).with_store(store.clone(), save)
}

#[test]
fn a_cut_result_is_kept_and_paged_back_through_dispatch() {
    let store = Arc::new(MemoryStore::new());
    let p = processor(&store, SaveWhen::Cut);
    let src = python_source();
    let args = json!({"path": "m.py"});
    let mut call = ToolCall::new("read_file", &args);
    call.id = Some("call_py");
    call.dialog = Some("t1");
    let out = p.process_call(&call, &src);
    assert!(out.truncated);
    let kept = out.kept[0].chars;
    // the suggestions read the stored result (no separate fact repeats that it is kept)
    assert!(
        out.text
            .contains("get_continuation(tool_call_id=\"call_py\", "),
        "{}",
        out.text
    );
    assert!(!out.text.contains("The full result is stored."));
    let stored = out.stored.as_ref().expect("stored");
    assert_eq!((stored.dialog_id.as_str(), stored.offset), ("t1", kept));
    assert_eq!(out.store_error, None);

    let meta = store.meta("t1", "call_py").unwrap().unwrap();
    assert_eq!(meta.size.chars, src.chars().count());
    assert_eq!(meta.size.bytes, src.len());
    assert_eq!(meta.size.lines, 900);
    assert!(meta.truncated);
    assert_eq!(meta.shown_chars, kept);

    // the model pages on from where it stopped, following the markers
    let tools = RecoveryTools::new(store, "t1");
    let mut rest = String::new();
    let mut args = json!({"tool_call_id": "call_py"});
    loop {
        let Dispatch::Handled(reply) = tools.dispatch("get_continuation", &args) else {
            panic!("get_continuation is a recovery tool");
        };
        assert!(!reply.is_error, "{}", reply.text);
        match reply.next_offset {
            Some(next) => {
                let at = reply.text.rfind("\n\n[truncated — showing").unwrap();
                rest.push_str(&reply.text[..at]);
                args = json!({"tool_call_id": "call_py", "offset": next});
            }
            None => {
                rest.push_str(&reply.text);
                break;
            }
        }
    }
    let head: String = src.chars().take(kept).collect();
    assert_eq!(head + &rest, src);
}

#[test]
fn what_is_kept_depends_on_the_policy_the_id_and_bypass() {
    let store = Arc::new(MemoryStore::new());
    let small = "short result\n";
    let args = json!({});
    let mut call = ToolCall::new("bash", &args);
    call.id = Some("c_small");

    processor(&store, SaveWhen::Cut).process_call(&call, small);
    assert!(
        store.is_empty(),
        "a result that was not cut is not kept by default"
    );

    let out = processor(&store, SaveWhen::All).process_call(&call, small);
    assert_eq!(out.text, small);
    let meta = store.meta("default", "c_small").unwrap().unwrap();
    assert!(!meta.truncated);
    assert_eq!(meta.shown_chars, 13);

    // the recovery tools' own results are bypassed, and never kept
    let mut page = ToolCall::new("get_continuation", &args);
    page.id = Some("c_page");
    processor(&store, SaveWhen::All).process_call(&page, &"p\n".repeat(5000));
    assert_eq!(store.meta("default", "c_page").unwrap(), None);

    // no id: nothing to keep it under, and the text does not promise it
    let big: String = (0..2000).map(|i| format!("line {i}\n")).collect();
    let out = processor(&store, SaveWhen::All).process("bash", &big, &args);
    assert!(out.truncated);
    assert!(!out.text.contains("get_continuation"));
    assert_eq!(store.len(), 1);
}

#[test]
fn a_bad_id_is_reported_and_not_promised_to_the_model() {
    let store = Arc::new(MemoryStore::new());
    let p = processor(&store, SaveWhen::Cut);
    let big: String = (0..2000).map(|i| format!("line {i}\n")).collect();
    let args = json!({});
    let mut call = ToolCall::new("bash", &args);
    call.id = Some("bad\u{0}id");
    let out = p.process_call(&call, &big);
    assert!(out.truncated);
    assert!(!out.text.contains("get_continuation"));
    assert_eq!(
        out.store_error.as_deref(),
        Some(
            "tool_call_id \"bad\\u0000id\": holds a control character (\\u{0}) at character 4; \
             pass the id the harness gave (at most 256 characters, no control characters)"
        )
    );
    assert!(p.try_process_call(&call, &big).is_err());
    assert!(store.is_empty());
}

#[test]
fn references_swap_for_full_content_where_asked() {
    let store = Arc::new(MemoryStore::new());
    let long = "α".repeat(PREVIEW_CHARS + 10);
    store
        .put(&Record::new(
            "t1",
            "call_a",
            "web_fetch",
            &json!({"url": "https://x.test"}),
            &long,
        ))
        .unwrap();
    store
        .put(&Record::new(
            "t1",
            "call_b",
            "bash",
            &json!({"command": "ls"}),
            "a\nb\n",
        ))
        .unwrap();
    store
        .put(&Record::new(
            "t2",
            "call_c",
            "bash",
            &json!({}),
            "other dialog\n",
        ))
        .unwrap();

    let ref_a = reference_message(store.as_ref(), "t1", "call_a")
        .unwrap()
        .unwrap();
    let ref_b = reference_message(store.as_ref(), "t1", "call_b")
        .unwrap()
        .unwrap();
    let content: Value = serde_json::from_str(ref_a["content"].as_str().unwrap()).unwrap();
    assert_eq!(content["tool_call_id"], "call_a");
    assert_eq!(content["tool_name"], "web_fetch");
    assert_eq!(content["status"], "success");
    assert_eq!(content["metadata"]["size_bytes"], 2 * (PREVIEW_CHARS + 10));
    assert_eq!(
        content["metadata"]["truncated_preview"],
        format!("{}…", "α".repeat(PREVIEW_CHARS))
    );
    assert_eq!(
        content["metadata"]["summary"],
        "web_fetch result: 1 line, 510 chars (1,020 bytes); call get_tool_result with tool_call_id=\"call_a\" to load it"
    );
    assert_eq!(
        content["result_ref"],
        json!({"storage_type": "memory", "dialog_id": "t1", "tool_call_id": "call_a"})
    );

    // a reference into another dialog is never resolved from this one
    let mut ref_c = reference_message(store.as_ref(), "t2", "call_c")
        .unwrap()
        .unwrap();
    ref_c["tool_call_id"] = json!("call_c");
    let history = vec![
        json!({"role": "user", "content": "look"}),
        json!({"role": "tool", "tool_call_id": "call_old", "content": "inline result from an old dialog"}),
        ref_a.clone(),
        ref_b,
        ref_c.clone(),
    ];
    let none = prepare_messages(store.as_ref(), "t1", &history, &LoadToolResults::None).unwrap();
    assert_eq!(none, history);

    let all = prepare_messages(store.as_ref(), "t1", &history, &LoadToolResults::All).unwrap();
    assert_eq!(all[1], history[1]);
    assert_eq!(all[2]["content"], long);
    assert_eq!(all[3]["content"], "a\nb\n");
    assert_eq!(all[4], ref_c);

    let some = prepare_messages(
        store.as_ref(),
        "t1",
        &history,
        &LoadToolResults::parse("call_b, call_zzz"),
    )
    .unwrap();
    assert_eq!(some[2], ref_a);
    assert_eq!(some[3]["content"], "a\nb\n");

    assert_eq!(
        get_tool_result(store.as_ref(), "t1", "call_b")
            .unwrap()
            .text,
        "a\nb\n"
    );
    assert_eq!(
        get_tool_result(store.as_ref(), "t1", "call_c")
            .unwrap()
            .text,
        "{\"error\": \"No cached result for tool_call_id 'call_c'\"}"
    );
}
