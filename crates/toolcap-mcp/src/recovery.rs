//! `toolcap mcp`: the recovery tools served alone, as a stdio MCP server.

use std::io::{self, BufReader};

use serde_json::{Value, json};

use super::process::{read_line, send_client};
use super::{PROXY_TOOLS, Proxy, tool_call};

/// The MCP protocol versions [`serve_recovery`] speaks (the tools it serves are
/// the same in each); a client asking for another gets the newest.
pub const PROTOCOL_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

impl Proxy {
    /// Answer one line as a stdio MCP server whose only tools are the recovery
    /// tools (`toolcap mcp`): `initialize`, `ping`, `tools/list`, `tools/call`;
    /// notifications get no answer, other methods "method not found".
    pub fn serve_line(&self, line: &[u8]) -> Option<Vec<u8>> {
        let Ok(msg) = serde_json::from_slice::<Value>(line) else {
            return Some(
                json!({
                    "jsonrpc": "2.0",
                    "id": null,
                    "error": {"code": -32700, "message": "parse error: not JSON"},
                })
                .to_string()
                .into_bytes(),
            );
        };
        let reply = match msg {
            Value::Array(items) => {
                let answers: Vec<Value> = items.iter().filter_map(|m| self.serve_one(m)).collect();
                (!answers.is_empty()).then_some(Value::Array(answers))
            }
            single => self.serve_one(&single),
        };
        reply.map(|r| r.to_string().into_bytes())
    }

    pub(super) fn serve_one(&self, msg: &Value) -> Option<Value> {
        let id = msg.get("id").filter(|id| !id.is_null())?;
        let method = msg.get("method").and_then(Value::as_str)?;
        let params = msg.get("params");
        let ok = |result: Value| json!({"jsonrpc": "2.0", "id": id, "result": result});
        let err = |code: i64, message: String| json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
        Some(match method {
            "initialize" => {
                let asked = params
                    .and_then(|p| p.get("protocolVersion"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let version = PROTOCOL_VERSIONS
                    .iter()
                    .find(|v| **v == asked)
                    .unwrap_or(&PROTOCOL_VERSIONS[0]);
                ok(json!({
                    "protocolVersion": version,
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "toolcap", "version": env!("CARGO_PKG_VERSION")},
                    "instructions": "Read and search the full outputs that toolcap cut: get_continuation (the next chunk, or lines start_line-end_line), search_tool_output (the lines matching a regex), fetch_tool_output (the call and its output), query_tool_output (a value of a stored JSON result, by path). The tool_call_id is the one the cut result names.",
                }))
            }
            "ping" => ok(json!({})),
            "tools/list" => ok(json!({"tools": self.tool_definitions()})),
            "tools/call" => {
                let (name, args) = tool_call(params);
                if PROXY_TOOLS.contains(&name) {
                    self.answer_recovery(id, name, &args, &super::call_context(params))
                } else {
                    err(
                        -32602,
                        format!(
                            "unknown tool {name:?}: this server has {}",
                            PROXY_TOOLS.join(", ")
                        ),
                    )
                }
            }
            other => err(-32601, format!("method not found: {other}")),
        })
    }
}

/// `toolcap mcp`: serve the recovery tools over `store` as a stdio MCP server
/// (newline-delimited JSON-RPC on stdin/stdout) until the client closes stdin.
pub fn serve_recovery(proxy: &Proxy) {
    let mut input = BufReader::new(io::stdin().lock());
    let mut line = Vec::new();
    while read_line(&mut input, &mut line).is_some() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if let Some(reply) = proxy.serve_line(&line)
            && !send_client(&reply)
        {
            return;
        }
    }
}
