//! `toolcap mcp`: a stdio MCP server of the recovery tools, over the store that
//! `toolcap run` fills (newline-delimited JSON-RPC, as MCP clients speak it).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use assert_cmd::cargo::CommandCargoExt;
use serde_json::{Value, json};

#[test]
fn recovery_tools_over_a_store_filled_by_toolcap_run() {
    let tmp = tempfile::tempdir().expect("tmp");
    let store = tmp.path().join("results.db");
    let s = store.to_str().expect("utf-8");
    let run = Command::cargo_bin("toolcap")
        .expect("binary")
        .args(["run", "--store", s, "--id", "r1", "--", "seq", "1", "20000"])
        .output()
        .expect("run");
    assert_eq!(run.status.code(), Some(0));
    let view = String::from_utf8(run.stdout).expect("utf-8");
    // an explicit store is named in the suggestions
    assert!(
        view.contains(&format!(" continue r1 --store {s} --start-line ")),
        "{view}"
    );

    let mut server = Command::cargo_bin("toolcap")
        .expect("binary")
        .args(["mcp", "--store", s])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("toolcap mcp starts");
    let mut to = server.stdin.take().expect("stdin");
    let mut from = BufReader::new(server.stdout.take().expect("stdout"));
    let mut ask = |msg: Value| -> Value {
        writeln!(to, "{msg}").expect("send");
        to.flush().expect("flush");
        let mut line = String::new();
        from.read_line(&mut line).expect("answer");
        serde_json::from_str(&line).expect("JSON-RPC answer")
    };
    let init = ask(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "1"}}}));
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(init["result"]["serverInfo"]["name"], "toolcap");
    assert!(init["result"]["capabilities"]["tools"].is_object());
    let list = ask(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names.len(), 4);
    for n in [
        "get_continuation",
        "search_tool_output",
        "fetch_tool_output",
        "query_tool_output",
    ] {
        assert!(names.contains(&n), "{names:?}");
    }
    let got = ask(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "get_continuation",
        "arguments": {"tool_call_id": "r1", "start_line": 19998, "end_line": 20000}}}),
    );
    assert_eq!(got["result"]["isError"], false);
    assert_eq!(
        got["result"]["content"][0]["text"].as_str().expect("text"),
        "19998\n19999\n20000\n"
    );
    let found = ask(
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
        "name": "search_tool_output", "arguments": {"tool_call_id": "r1", "pattern": "^1234$"}}}),
    );
    assert!(
        found["result"]["content"][0]["text"]
            .as_str()
            .expect("text")
            .contains("1234: 1234")
    );
    let unknown = ask(json!({"jsonrpc": "2.0", "id": 5, "method": "resources/list"}));
    assert_eq!(unknown["error"]["code"], -32601);
    drop(to);
    let status = server.wait().expect("ends");
    assert!(status.success());
}
