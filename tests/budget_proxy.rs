//! The MCP proxy and budgets: a call's `_meta` says how much context is left;
//! a server's `anthropic/maxResultSizeChars` caps a tool's threshold; the
//! listing the client sees carries the key where toolcap's view can be larger
//! than the client would take.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};
use toolcap::Config;
use toolcap::mcp_proxy::{MAX_RESULT_SIZE_KEY, Proxy};
use toolcap::store::MemoryStore;

fn proxy(config: Config) -> Proxy {
    Proxy::new(config, Arc::new(MemoryStore::new()), "d1")
}

fn typing_py() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/read_file/typing.py"),
    )
    .unwrap()
}

/// Call `read_text_file` with `meta` as the request's `_meta`, answer with
/// `text` (and `result_meta` on the result); the text the client gets.
fn call(p: &Proxy, id: u64, meta: Value, text: &str, result_meta: Option<Value>) -> String {
    let mut params = json!({"name": "read_text_file", "arguments": {"path": "typing.py"}});
    if !meta.is_null() {
        params["_meta"] = meta;
    }
    let req = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
    let routed = p.from_client(req.to_string().as_bytes());
    assert!(routed.to_server.is_some());
    let mut result = json!({"content": [{"type": "text", "text": text}], "isError": false});
    if let Some(m) = result_meta {
        result["_meta"] = m;
    }
    let resp = json!({"jsonrpc": "2.0", "id": id, "result": result});
    let line = p.from_server(resp.to_string().as_bytes()).unwrap();
    let v: Value = serde_json::from_slice(&line).unwrap();
    v["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The text with the generated tool call ids left out.
fn norm(s: &str) -> String {
    regex::Regex::new(r"mcp_[0-9a-z]+_[0-9]+")
        .unwrap()
        .replace_all(s, "ID")
        .into_owned()
}

fn list(p: &Proxy, id: u64, tools: Value) -> Vec<Value> {
    let req = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"});
    p.from_client(req.to_string().as_bytes());
    let resp = json!({"jsonrpc": "2.0", "id": id, "result": {"tools": tools}});
    let line = p.from_server(resp.to_string().as_bytes()).unwrap();
    let v: Value = serde_json::from_slice(&line).unwrap();
    v["result"]["tools"].as_array().unwrap().clone()
}

#[test]
fn a_calls_meta_context_shrinks_the_view() {
    let p = proxy(Config::defaults());
    let text = typing_py();
    let roomy = call(&p, 1, Value::Null, &text, None);
    let tight = call(
        &p,
        2,
        json!({"toolcap/contextLimit": 200_000, "toolcap/contextUsed": 197_000}),
        &text,
        None,
    );
    let by_model = call(
        &p,
        3,
        json!({"toolcap/model": "claude-sonnet-4-5", "toolcap/contextUsed": 197_000}),
        &text,
        None,
    );
    assert!(
        tight.len() < roomy.len(),
        "{} vs {}",
        tight.len(),
        roomy.len()
    );
    assert_eq!(norm(&by_model), norm(&tight));
    // the kept head: within the floor's kept budget (1,500 × 2,000 / 3,500)
    let head = tight.split("\n[... ").next().unwrap();
    assert!(head.chars().count() <= 857, "{}", head.chars().count());
}

#[test]
fn the_proxys_model_gives_the_window_of_calls_that_send_only_what_they_used() {
    let base = proxy(Config::defaults());
    let with_model = proxy(Config::defaults()).context(toolcap::bind::Context {
        model: Some("gpt-4o".into()),
        ..Default::default()
    });
    let text = typing_py();
    let meta = json!({"toolcap/contextUsed": 125_000});
    let without = call(&base, 1, meta.clone(), &text, None);
    let with = call(&with_model, 1, meta, &text, None);
    // without a window, `contextUsed` alone says nothing: the configured view
    assert_eq!(
        norm(&without),
        norm(&call(&base, 2, Value::Null, &text, None))
    );
    assert!(with.len() < without.len());
}

#[test]
fn a_servers_size_hint_caps_the_threshold_and_never_raises_it() {
    let p = proxy(Config::defaults());
    let tools = list(
        &p,
        1,
        json!([{"name": "read_text_file", "inputSchema": {"type": "object"},
                "_meta": {MAX_RESULT_SIZE_KEY: 2_000}}]),
    );
    // the client sees the size toolcap's view can reach, not the server's 2,000
    let listed = tools
        .iter()
        .find(|t| t["name"] == "read_text_file")
        .unwrap();
    let advertised = listed["_meta"][MAX_RESULT_SIZE_KEY].as_u64().unwrap();
    assert!(advertised > 2_000, "{listed}");
    // a 2,500-char result passes whole under the default 3,500 threshold, but
    // not under the server's 2,000
    let text: String = (1..=250).map(|i| format!("line {i:04}\n")).collect();
    assert_eq!(text.len(), 2_500);
    let shown = call(&p, 2, Value::Null, &text, None);
    assert!(shown.contains("--- Recovery Options ---"), "{shown}");
    assert!(shown.chars().count() as u64 <= advertised);
    // a hint on the result itself: the same
    let q = proxy(Config::defaults());
    let shown = call(
        &q,
        1,
        Value::Null,
        &text,
        Some(json!({MAX_RESULT_SIZE_KEY: 2_000})),
    );
    assert!(shown.contains("--- Recovery Options ---"));
    // a hint above the threshold changes nothing: the cap stays toolcap's
    let r = proxy(Config::defaults());
    let big = typing_py();
    let plain = call(&r, 1, Value::Null, &big, None);
    let hinted = call(
        &r,
        2,
        Value::Null,
        &big,
        Some(json!({MAX_RESULT_SIZE_KEY: 500_000})),
    );
    assert_eq!(norm(&hinted), norm(&plain));
}

#[test]
fn the_listing_says_the_client_may_take_large_views_whole() {
    // a tool configured for views larger than Claude Code's default 50,000
    let c = Config::from_sources(
        Some((
            "[tools.big]\nfamily = \"generic\"\nnames = [\"dump_schema\"]\nthreshold = 80000\nmax_kept = 60000\n",
            Path::new("big.toml"),
        )),
        None,
    )
    .unwrap();
    let p = proxy(c);
    let tools = list(
        &p,
        1,
        json!([
            {"name": "dump_schema", "inputSchema": {"type": "object"}},
            {"name": "read_text_file", "inputSchema": {"type": "object"}},
            {"name": "search", "inputSchema": {"type": "object"}, "_meta": {MAX_RESULT_SIZE_KEY: 400_000, "x/y": 1}},
        ]),
    );
    let by = |n: &str| tools.iter().find(|t| t["name"] == n).unwrap().clone();
    let big = by("dump_schema")["_meta"][MAX_RESULT_SIZE_KEY]
        .as_u64()
        .unwrap();
    assert!((80_000..=500_000).contains(&big), "{big}");
    // a view within the client's default: nothing added
    assert!(by("read_text_file").get("_meta").is_none());
    // the server's own larger value and other keys: untouched
    assert_eq!(
        by("search")["_meta"],
        json!({MAX_RESULT_SIZE_KEY: 400_000, "x/y": 1})
    );
    // the recovery tools are there as before
    assert!(tools.iter().any(|t| t["name"] == "get_continuation"));
}
