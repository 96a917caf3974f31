use super::*;
use toolcap_store::{MemoryStore, ResultStore};

fn proxy() -> (Proxy, Arc<MemoryStore>) {
    let store = Arc::new(MemoryStore::new());
    (Proxy::new(Config::defaults(), store.clone(), "d1"), store)
}

impl Proxy {
    fn server_line(&self, line: &[u8]) -> Vec<u8> {
        self.from_server(line).expect("a JSON-RPC line passes")
    }
}

fn routed_json(bytes: impl AsRef<[u8]>) -> Value {
    serde_json::from_slice(bytes.as_ref()).unwrap()
}

#[test]
fn other_messages_pass_through_byte_for_byte() {
    let (p, _) = proxy();
    let init = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let r = p.from_client(init);
    assert_eq!(r.to_server.as_deref(), Some(&init[..]));
    assert_eq!(r.to_client, None);
    let resp = br#"{"id":0,"jsonrpc":"2.0","result":{"z":1,"a":2}}"#;
    assert_eq!(p.from_server(resp), Some(resp.to_vec()));
    let garbage = b"not json at all";
    assert_eq!(
        p.from_client(garbage).to_server.as_deref(),
        Some(&garbage[..])
    );
}

#[test]
fn tools_list_gains_the_recovery_tools_on_its_first_page_only() {
    let (p, _) = proxy();
    p.from_client(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let out = routed_json(p.server_line(
        br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"read_text_file","inputSchema":{"type":"object"}},{"name":"get_continuation","inputSchema":{"type":"object"}}],"nextCursor":"c2"}}"#,
    ));
    let names: Vec<&str> = out["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "read_text_file",
            "get_continuation",
            "fetch_tool_output",
            "search_tool_output",
            "query_tool_output"
        ]
    );
    assert_eq!(out["result"]["nextCursor"], "c2");
    assert_eq!(
        out["result"]["tools"][1]["inputSchema"]["required"],
        json!(["tool_call_id"])
    );
    p.from_client(br#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"c2"}}"#);
    let page2 = br#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"write_file"}]}}"#;
    assert_eq!(p.from_server(page2), Some(page2.to_vec()));
}

#[test]
fn a_large_text_result_is_cut_kept_and_read_back() {
    let (p, store) = proxy();
    let text: String = (1..=3000).map(|i| format!("line {i}\n")).collect();
    p.from_client(
        br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/tmp/big.txt"}}}"#,
    );
    let resp = json!({"jsonrpc": "2.0", "id": "a", "result": {
        "content": [{"type": "text", "text": text},
                    {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}],
        "structuredContent": {"content": text},
        "isError": false}});
    let out = routed_json(p.server_line(resp.to_string().as_bytes()));
    let shown = out["result"]["content"][0]["text"].as_str().unwrap();
    assert!(shown.len() < 4000, "{} chars shown", shown.len());
    assert!(shown.contains("--- Recovery Options ---"));
    assert_eq!(out["result"]["structuredContent"]["content"], shown);
    assert_eq!(out["result"]["content"][1], resp["result"]["content"][1]);
    assert_eq!(out["result"]["isError"], false);

    let listed = store.list(Some("d1")).unwrap();
    assert_eq!(listed.len(), 1);
    let id = listed[0].tool_call_id.clone();
    assert!(shown.contains(&format!("tool_call_id=\"{id}\"")), "{shown}");
    assert_eq!(listed[0].tool_args, json!({"path": "/tmp/big.txt"}));

    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "get_continuation", "arguments": {"tool_call_id": id, "offset": 0}}});
    let r = p.from_client(call.to_string().as_bytes());
    assert_eq!(r.to_server, None);
    let reply = routed_json(r.to_client.unwrap());
    assert_eq!(reply["id"], 9);
    let chunk = reply["result"]["content"][0]["text"].as_str().unwrap();
    assert!(chunk.starts_with("line 1\nline 2\n"));
    assert!(chunk.contains("Call get_continuation with tool_call_id="));
}

/// The tools named by the suggestions of a recovery section (`  • NAME(`).
fn suggested_tools(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("  • "))
        .filter_map(|l| l.split('(').next())
        .map(str::to_string)
        .collect()
}

#[test]
fn suggestions_name_only_listed_tools_and_the_recovery_tools() {
    let (p, _) = proxy();
    let text: String = (1..=3000).map(|i| format!("line {i}\n")).collect();
    let call = |id: &str, name: &str| {
        p.from_client(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": name, "arguments": {"path": "/tmp/big.txt"}}})
            .to_string()
            .as_bytes(),
        );
        let resp = json!({"jsonrpc": "2.0", "id": id, "result": {
            "content": [{"type": "text", "text": text}]}});
        let out = routed_json(p.server_line(resp.to_string().as_bytes()));
        out["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // before tools/list: the recovery tools only
    let before = call("a", "read_text_file");
    assert_eq!(suggested_tools(&before), ["get_continuation"], "{before}");
    p.from_client(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    p.from_server(
        br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"read_text_file","inputSchema":{"type":"object","properties":{"path":{},"head":{},"tail":{}}}},{"name":"search_files","inputSchema":{"type":"object","properties":{"path":{},"pattern":{}}}}]}}"#,
    );
    let s = p.suggest();
    assert_eq!(s.read.tool, "read_text_file");
    assert_eq!(s.glob.tool, "search_files");
    assert!(s.shell.tool.is_empty());
    let after = call("b", "read_text_file");
    for t in suggested_tools(&after) {
        assert!(
            [
                "get_continuation",
                "search_tool_output",
                "read_text_file",
                "search_files"
            ]
            .contains(&t.as_str()),
            "{t} is not available: {after}"
        );
    }
    assert!(!after.contains("sed -n"), "{after}");
}

#[test]
fn errors_and_small_results_are_not_touched() {
    let (p, store) = proxy();
    p.from_client(br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/nope"}}}"#);
    let err = br#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"Error: ENOENT: no such file or directory, open '/nope'"}],"isError":true}}"#;
    assert_eq!(p.from_server(err), Some(err.to_vec()));
    assert!(store.is_empty());
    // an unknown recovery id is an error the client sees as one
    let r = p.from_client(br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"fetch_tool_output","arguments":{"tool_call_id":"nope"}}}"#);
    let reply = routed_json(r.to_client.unwrap());
    assert_eq!(reply["result"]["isError"], true);
    assert_eq!(
        reply["result"]["content"][0]["text"],
        r#"{"error": "no tool call with id nope"}"#
    );
}

#[test]
fn unanswered_requests_get_an_error_when_the_server_leaves() {
    let (p, _) = proxy();
    p.from_client(br#"{"jsonrpc":"2.0","id":7,"method":"resources/list"}"#);
    p.from_client(br#"{"jsonrpc":"2.0","id":8,"method":"prompts/list"}"#);
    p.from_client(
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":8}}"#,
    );
    let left = p.unanswered();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0]["id"], 7);
    assert_eq!(left[0]["error"]["code"], SERVER_GONE_CODE);
}

#[test]
fn batches_split_between_proxy_and_server() {
    let (p, _) = proxy();
    let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_continuation","arguments":{"tool_call_id":"x"}}}]"#;
    let r = p.from_client(batch);
    assert_eq!(
        routed_json(r.to_server.unwrap()),
        json!([{"jsonrpc":"2.0","id":1,"method":"ping"}])
    );
    // one batch, one array: the proxy's reply waits for the server's
    assert_eq!(r.to_client, None);
    // a server answering the batch's request on its own gets the replies joined
    let r = p.from_client(batch);
    assert_eq!(r.to_client, None);
    let alone = routed_json(p.server_line(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
    assert_eq!(alone.as_array().map(Vec::len), Some(2), "{alone}");
    let joined = routed_json(p.server_line(br#"[{"jsonrpc":"2.0","id":1,"result":{}}]"#));
    assert_eq!(joined.as_array().map(Vec::len), Some(2), "{joined}");
    assert_eq!(joined[0]["id"], 1);
    assert_eq!(joined[1]["id"], 2);
    assert_eq!(joined[1]["result"]["isError"], true);
    // a batch of the proxy's tools and notifications only is answered at once
    let r = p.from_client(br#"[{"jsonrpc":"2.0","method":"notifications/progress","params":{}},{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_continuation","arguments":{"tool_call_id":"x"}}}]"#);
    assert_eq!(routed_json(r.to_client.unwrap())[0]["id"], 3);
    // held replies are not lost when the server leaves
    p.from_client(batch);
    let left = p.unanswered();
    assert_eq!(left.len(), 2, "{left:?}");
}

fn big_text() -> String {
    (1..=3000).map(|i| format!("line {i}\n")).collect()
}

fn call_line(id: &str) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"read_text_file","arguments":{{"path":"/tmp/big.txt"}}}}}}"#).into_bytes()
}

fn response_line(id: &str, text: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":{}}}]}}}}"#,
        json!(text)
    )
    .into_bytes()
}

/// The text a response line carries to the client.
fn shown(line: &[u8]) -> String {
    routed_json(line)["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn every_tool_result_leaving_the_proxy_is_capped() {
    let (p, _) = proxy();
    let text = big_text();
    // a response after notifications/cancelled
    p.from_client(&call_line("1"));
    p.from_client(
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
    );
    let late = shown(&p.server_line(&response_line("1", &text)));
    assert!(
        late.contains("--- Recovery Options ---") && late.len() < 4000,
        "{late}"
    );
    // a second response to one request, capped as the same tool's result
    p.from_client(&call_line("2"));
    let first = shown(&p.server_line(&response_line("2", &text)));
    let again = shown(&p.server_line(&response_line("2", &text)));
    assert!(first.len() < 4000 && again.len() < 4000);
    assert!(again.contains("File: /tmp/big.txt"), "{again}");
    // ids written 1.0 and 1e0, echoed as plain integers
    for (sent, echoed) in [("3.0", "3"), ("4e0", "4"), ("5", "5.0")] {
        p.from_client(&call_line(sent));
        let out = shown(&p.server_line(&response_line(echoed, &text)));
        assert!(
            out.len() < 4000,
            "{sent} answered as {echoed}: {} chars",
            out.len()
        );
        assert!(out.contains("File: /tmp/big.txt"), "{out}");
    }
    // a response to an id never seen
    let stray = shown(&p.server_line(&response_line("\"zz\"", &text)));
    assert!(stray.len() < 4000, "{} chars", stray.len());
    // a crashing server's half-written line is not passed on
    let mut half = response_line("6", &text);
    half.truncate(half.len() / 2);
    assert_eq!(p.from_server(&half), None);
    assert_eq!(p.from_server(b"\"just a string\""), None);
}

#[test]
fn cancelled_requests_are_not_answered_when_the_server_leaves_and_ids_keep_their_spelling() {
    let (p, _) = proxy();
    p.from_client(&call_line("1.0"));
    p.from_client(&call_line("2"));
    p.from_client(
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
    );
    let left = p.unanswered();
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!(left[0]["id"].to_string(), "1.0");
}
