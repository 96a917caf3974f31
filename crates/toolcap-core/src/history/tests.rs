use serde_json::{Value, json};

use super::*;
use crate::store::MemoryStore;

/// A body of `n` lines, `n * 10` chars.
fn body(tag: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!("{tag}{i:0>8}\n"))
        .collect::<String>()[..]
        .to_string()
}

/// A chat history of reads of f0.txt, f1.txt, ... each `lines` lines long.
fn chat(turns: usize, lines: usize) -> Vec<Value> {
    let mut m = vec![json!({"role": "user", "content": "read the files"})];
    for t in 0..turns {
        m.push(json!({"role": "assistant", "content": format!("Turn {t}."), "tool_calls": [
            {"id": format!("call_{t}"), "type": "function",
             "function": {"name": "read_file", "arguments": format!("{{\"path\": \"dir/f{t}.txt\"}}")}}]}));
        m.push(json!({"role": "tool", "tool_call_id": format!("call_{t}"), "content": body("x", lines)}));
    }
    m
}

fn responses(turns: usize, lines: usize) -> Vec<Value> {
    let mut m = vec![json!({"role": "user", "content": "read the files"})];
    for t in 0..turns {
        m.push(json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": format!("Turn {t}.")}]}));
        m.push(
            json!({"type": "function_call", "call_id": format!("call_{t}"), "name": "read_file",
                      "arguments": format!("{{\"path\": \"dir/f{t}.txt\"}}")}),
        );
        m.push(json!({"type": "function_call_output", "call_id": format!("call_{t}"), "output": body("x", lines)}));
    }
    m
}

fn anthropic(turns: usize, lines: usize) -> Vec<Value> {
    let mut m = vec![json!({"role": "user", "content": "read the files"})];
    for t in 0..turns {
        m.push(json!({"role": "assistant", "content": [
            {"type": "text", "text": format!("Turn {t}.")},
            {"type": "tool_use", "id": format!("toolu_{t}"), "name": "Read", "input": {"file_path": format!("dir/f{t}.txt")}}]}));
        m.push(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": format!("toolu_{t}"), "content": body("x", lines)}]}));
    }
    m
}

fn small_policy() -> Policy {
    Policy {
        keep: Keep::Results(2),
        min_prunable_tokens: 500,
        ..Policy::default()
    }
}

#[test]
fn each_format_is_detected_and_masked_alike() {
    for (msgs, fmt) in [
        (chat(10, 100), Format::OpenaiChat),
        (responses(10, 100), Format::OpenaiResponses),
        (anthropic(10, 100), Format::Anthropic),
    ] {
        assert_eq!(Format::detect(&msgs), Some(fmt));
        let p = prepare_messages(&msgs, &small_policy()).unwrap();
        assert_eq!(p.format, Some(fmt));
        // 10 results of 1,000 chars (250 tokens), 2 kept, 8 prunable: batches of 2
        assert_eq!(p.masked.len(), 8, "{fmt}");
        assert_eq!(p.batches, 4);
        assert_eq!(p.messages.len(), msgs.len());
        assert!(p.tool_tokens < p.tool_tokens_unmasked);
    }
}

#[test]
fn the_masked_line_replaces_only_the_content() {
    let msgs = anthropic(4, 100);
    let policy = Policy {
        keep: Keep::Results(1),
        min_prunable_tokens: 0,
        ..Policy::default()
    };
    let p = prepare_messages(&msgs, &policy).unwrap();
    assert_eq!(p.masked, vec!["toolu_0", "toolu_1", "toolu_2"]);
    assert_eq!(
        p.messages[2],
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_0",
            "content": "[result of Read dir/f0.txt (tool_call_id \"toolu_0\", 1,000 chars, 100 lines) masked; not stored — call Read again to see it]"}]})
    );
    assert_eq!(p.messages[8], msgs[8]);
}

#[test]
fn the_output_is_a_fixed_point_and_stable_as_the_history_grows() {
    let msgs = chat(30, 60);
    let policy = small_policy();
    let mut last: Option<Vec<Value>> = None;
    let mut changes = 0;
    for end in (3..=msgs.len()).step_by(2) {
        let p = prepare_messages(&msgs[..end], &policy).unwrap();
        let again = prepare_messages(&p.messages, &policy).unwrap();
        assert_eq!(again.messages, p.messages, "not idempotent at {end}");
        assert_eq!(again.masked, p.masked);
        assert!(again.newly_masked.is_empty());
        if let Some(prev) = &last
            && p.messages[..prev.len()] != prev[..]
        {
            changes += 1;
        }
        last = Some(p.messages);
    }
    // 30 results of 600 chars (150 tokens): batches of 4 results (600 tokens)
    let p = prepare_messages(&msgs, &policy).unwrap();
    assert_eq!(p.batches, changes);
    assert_eq!(p.masked.len(), 28);
}

#[test]
fn errors_listed_ids_small_results_and_referred_results_are_kept() {
    let mut msgs = chat(8, 100);
    msgs[4]["content"] = json!(format!("Error: no such file\n{}", body("e", 100)));
    let policy = Policy {
        keep: Keep::Results(1),
        min_prunable_tokens: 0,
        protect_ids: vec!["call_2".into()],
        ..Policy::default()
    };
    msgs[8]["content"] = json!("short");
    let p = prepare_messages(&msgs, &policy).unwrap();
    assert_eq!(p.masked, vec!["call_0", "call_4", "call_5", "call_6"]);
    // the model's latest turn names f6.txt as call_6's batch closes: it is kept
    msgs[15]["content"] = json!("Now compare with f6.txt again.");
    let p = prepare_messages(&msgs, &policy).unwrap();
    assert_eq!(p.masked, vec!["call_0", "call_4", "call_5"]);
    // and by its id
    msgs[15]["content"] = json!("As call_6 showed...");
    let p = prepare_messages(&msgs, &policy).unwrap();
    assert_eq!(p.masked, vec!["call_0", "call_4", "call_5"]);
}

#[test]
fn a_store_keeps_what_is_masked_and_the_line_names_the_recovery_call() {
    let store = MemoryStore::new();
    let config = Config::defaults();
    let recall = Recall {
        store: &store,
        dialog: "d1",
        config: &config,
    };
    let msgs = chat(3, 100);
    let policy = Policy {
        keep: Keep::Results(1),
        min_prunable_tokens: 0,
        ..Policy::default()
    };
    let p = prepare_messages_with(&msgs, &policy, &recall).unwrap();
    assert_eq!(
        p.messages[2]["content"],
        "[result of read_file dir/f0.txt (tool_call_id \"call_0\", 1,000 chars, 100 lines) masked — \
         get_continuation(tool_call_id=\"call_0\", offset=0)  # read it again from the start]"
    );
    let back = crate::store::continuation::get_tool_result(&store, "d1", "call_0").unwrap();
    assert_eq!(back.text, body("x", 100));
    // the same input again: the same bytes
    assert_eq!(prepare_messages_with(&msgs, &policy, &recall).unwrap(), p);
}

#[test]
fn policies_read_from_json_name_bad_keys() {
    let p = Policy::from_json(
        &json!({"keep_results": 3, "min_prunable_tokens": 0, "format": "anthropic"}),
    )
    .unwrap();
    assert_eq!(p.keep, Keep::Results(3));
    assert_eq!(p.format, Some(Format::Anthropic));
    let e = Policy::from_json(&json!({"keep": 3}))
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown field `keep`"), "{e}");
    let e = Policy::from_json(&json!({"keep_results": 1, "keep_tokens": 1}))
        .unwrap_err()
        .to_string();
    assert!(e.contains("keep one"), "{e}");
    let e = Policy::from_json(&json!({"format": "gemini"}))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("openai_chat, openai_responses or anthropic"),
        "{e}"
    );
    assert_eq!(Policy::from_json(&Value::Null).unwrap(), Policy::default());
}

#[test]
fn a_history_without_tools_passes_through() {
    let msgs = vec![json!({"role": "user", "content": "hi"})];
    let p = prepare_messages(&msgs, &Policy::default()).unwrap();
    assert_eq!(p.messages, msgs);
    assert_eq!(p.format, None);
    let e = prepare_messages(
        &[json!({"role": "tool", "tool_call_id": "a"}), json!(3)],
        &Policy::default(),
    )
    .unwrap_err()
    .to_string();
    assert_eq!(e, "message 1 is not a JSON object");
}

#[test]
fn other_keys_of_a_masked_block_stay() {
    let mut msgs = anthropic(3, 100);
    msgs[2]["content"][0]["cache_control"] = json!({"type": "ephemeral"});
    let policy = Policy {
        keep: Keep::Results(1),
        min_prunable_tokens: 0,
        ..Policy::default()
    };
    let p = prepare_messages(&msgs, &policy).unwrap();
    let block = &p.messages[2]["content"][0];
    assert_eq!(block["cache_control"], json!({"type": "ephemeral"}));
    assert_eq!(block["tool_use_id"], "toolu_0");
    assert!(
        block["content"]
            .as_str()
            .unwrap()
            .starts_with("[result of Read dir/f0.txt")
    );
    // a result made of text blocks is masked as their text; one with an image is not
    msgs[4]["content"][0]["content"] =
        json!([{"type": "text", "text": body("y", 50)}, {"type": "text", "text": body("z", 50)}]);
    let p = prepare_messages(&msgs, &policy).unwrap();
    assert!(
        p.messages[4]["content"][0]["content"]
            .as_str()
            .unwrap()
            .contains("1,001 chars, 101 lines")
    );
    msgs[4]["content"][0]["content"] =
        json!([{"type": "image", "source": {}}, {"type": "text", "text": body("z", 50)}]);
    let p = prepare_messages(&msgs, &policy).unwrap();
    assert_eq!(p.messages[4], msgs[4]);
}
