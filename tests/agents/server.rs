//! A scripted model server on 127.0.0.1 for the real agents: one small HTTP/1.1 server
//! (std `TcpListener`, a thread per connection, `Connection: close`) that speaks the
//! API each agent calls, records every request body, and answers each turn from a
//! script: the script sees the tool results the agent has sent so far (in order) and
//! returns the next tool call, or `None` for a final text answer.
//!
//! The four APIs:
//! - Anthropic Messages (`POST /v1/messages`, SSE when `"stream": true`; Claude Code),
//! - OpenAI Responses (`POST /v1/responses`, SSE; Codex),
//! - Gemini (`POST /v1beta/models/M:streamGenerateContent?alt=sse`, SSE; Gemini CLI),
//! - OpenAI Chat Completions (`POST /v1/chat/completions`, SSE; opencode, whose first
//!   request is a title request without tools).
//!
//! Requests that are not a turn of the main conversation (Claude Code's token counts,
//! opencode's title request, Gemini's non-streamed calls) get a fixed small answer.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};

/// Which API the server speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    Anthropic,
    Responses,
    Gemini,
    Chat,
}

/// A tool call the scripted model makes: the tool's name as the agent lists it
/// (`mcp__fs__read_text_file` for Codex's namespaced MCP tools too) and its arguments.
#[derive(Clone, Debug)]
pub struct Call {
    pub name: String,
    pub args: Value,
}

/// The script: tool results so far (oldest first) → the next call, or `None` to end.
pub type Script = Arc<dyn Fn(&[String]) -> Option<Call> + Send + Sync>;

/// One request the agent sent.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub path: String,
    pub body: Value,
}

impl Recorded {
    /// The tool results this request carries, when it is a turn of the main
    /// conversation (`None` for side requests).
    pub fn tool_results(&self, api: Api) -> Option<Vec<String>> {
        tool_results(api, &self.path, &self.body)
    }
}

pub struct Server {
    api: Api,
    port: u16,
    requests: Arc<Mutex<Vec<Recorded>>>,
    stop: Arc<AtomicBool>,
}

impl Server {
    pub fn start(api: Api, script: Script) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let port = listener.local_addr().expect("local address").port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (reqs, stopping) = (requests.clone(), stop.clone());
        thread::spawn(move || {
            for conn in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (reqs, script) = (reqs.clone(), script.clone());
                thread::spawn(move || {
                    // a broken connection only loses that request; the test sees it missing
                    let _ = serve(conn, api, &script, &reqs);
                });
            }
        });
        Server {
            api,
            port,
            requests,
            stop,
        }
    }

    /// `http://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// The main-conversation requests' tool results, one list per request, in order.
    pub fn turns(&self) -> Vec<Vec<String>> {
        self.requests()
            .iter()
            .filter_map(|r| r.tool_results(self.api))
            .collect()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // wake the accept loop so it sees the flag
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn serve(
    conn: TcpStream,
    api: Api,
    script: &Script,
    reqs: &Mutex<Vec<Recorded>>,
) -> std::io::Result<()> {
    conn.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let path = parts.next().unwrap_or("").to_string();
    let mut length = 0usize;
    let mut chunked = false;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
        let (name, value) = h.split_once(':').unwrap_or((&h, ""));
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse().unwrap_or(0),
            "transfer-encoding" => chunked = value.to_ascii_lowercase().contains("chunked"),
            _ => {}
        }
    }
    let mut raw = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let n = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .unwrap_or(0);
            if n == 0 {
                let mut end = String::new();
                reader.read_line(&mut end)?;
                break;
            }
            let mut chunk = vec![0; n];
            reader.read_exact(&mut chunk)?;
            raw.extend_from_slice(&chunk);
            let mut crlf = String::new();
            reader.read_line(&mut crlf)?;
        }
    } else {
        raw.resize(length, 0);
        reader.read_exact(&mut raw)?;
    }
    let body: Value = serde_json::from_slice(&raw).unwrap_or(Value::Null);
    if let Ok(mut r) = reqs.lock() {
        r.push(Recorded {
            path: path.clone(),
            body: body.clone(),
        });
    }
    let (status, content_type, payload) = if method == "POST" {
        answer(api, &path, &body, script)
    } else {
        ("404 Not Found", "application/json", "{}".to_string())
    };
    let mut out = conn;
    write!(
        out,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        payload.len()
    )?;
    out.write_all(payload.as_bytes())?;
    out.flush()?;
    let _ = out.shutdown(std::net::Shutdown::Both);
    Ok(())
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|i| {
                i["text"]
                    .as_str()
                    .map_or_else(|| i.to_string(), str::to_string)
            })
            .collect::<Vec<_>>()
            .join(""),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn tool_results(api: Api, path: &str, body: &Value) -> Option<Vec<String>> {
    match api {
        Api::Anthropic => {
            let main = path.starts_with("/v1/messages")
                && !path.contains("count_tokens")
                && body["tools"].as_array().is_some_and(|t| !t.is_empty());
            main.then(|| {
                let mut out = Vec::new();
                for m in body["messages"].as_array().into_iter().flatten() {
                    for c in m["content"].as_array().into_iter().flatten() {
                        if c["type"] == "tool_result" {
                            out.push(text_of(&c["content"]));
                        }
                    }
                }
                out
            })
        }
        Api::Responses => path.ends_with("/responses").then(|| {
            body["input"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|i| {
                    i["type"] == "function_call_output" || i["type"] == "custom_tool_call_output"
                })
                .map(|i| text_of(&i["output"]))
                .collect()
        }),
        Api::Gemini => path.contains(":streamGenerateContent").then(|| {
            let mut out = Vec::new();
            for c in body["contents"].as_array().into_iter().flatten() {
                for p in c["parts"].as_array().into_iter().flatten() {
                    let r = &p["functionResponse"]["response"];
                    if r.is_null() {
                        continue;
                    }
                    out.push(match (&r["output"], &r["error"]) {
                        (Value::String(s), _) => s.clone(),
                        (_, Value::String(e)) => e.clone(),
                        _ => r.to_string(),
                    });
                }
            }
            out
        }),
        Api::Chat => {
            let main = path.ends_with("/chat/completions")
                && body["tools"].as_array().is_some_and(|t| !t.is_empty());
            main.then(|| {
                body["messages"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|m| m["role"] == "tool")
                    .map(|m| text_of(&m["content"]))
                    .collect()
            })
        }
    }
}

fn sse(events: &[(Option<&str>, Value)]) -> String {
    let mut s = String::new();
    for (name, data) in events {
        if let Some(n) = name {
            s.push_str(&format!("event: {n}\n"));
        }
        s.push_str(&format!("data: {data}\n\n"));
    }
    s
}

const SSE: &str = "text/event-stream";
const JSON: &str = "application/json";

fn answer(
    api: Api,
    path: &str,
    body: &Value,
    script: &Script,
) -> (&'static str, &'static str, String) {
    let results = tool_results(api, path, body);
    let turn = results.as_ref().map_or(0, Vec::len);
    // a Responses request that lists no tools (Codex's TUI makes side requests
    // of its own, with the conversation so far) gets text: a model calls only
    // the tools it was given
    let toolless = api == Api::Responses && body["tools"].as_array().is_none_or(Vec::is_empty);
    let call = results
        .as_deref()
        .filter(|_| !toolless)
        .and_then(|r| script(r));
    let ok = "200 OK";
    match api {
        Api::Anthropic => {
            if path.contains("count_tokens") {
                return (ok, JSON, json!({"input_tokens": 100}).to_string());
            }
            let block = match &call {
                Some(c) => json!({"type": "tool_use", "id": format!("toolu_e2e_{turn}"),
                                  "name": c.name, "input": c.args}),
                None => json!({"type": "text", "text": "done"}),
            };
            let stop = if call.is_some() {
                "tool_use"
            } else {
                "end_turn"
            };
            let usage = json!({"input_tokens": 100, "output_tokens": 10});
            let message = json!({"id": format!("msg_e2e_{turn}"), "type": "message",
                "role": "assistant", "model": body["model"], "content": [block],
                "stop_reason": stop, "stop_sequence": null, "usage": usage});
            if body["stream"] != true {
                return (ok, JSON, message.to_string());
            }
            let mut start = message;
            start["content"] = json!([]);
            start["stop_reason"] = Value::Null;
            let (open, delta) = match &call {
                Some(c) => (
                    json!({"type": "tool_use", "id": format!("toolu_e2e_{turn}"), "name": c.name, "input": {}}),
                    json!({"type": "input_json_delta", "partial_json": c.args.to_string()}),
                ),
                None => (
                    json!({"type": "text", "text": ""}),
                    json!({"type": "text_delta", "text": "done"}),
                ),
            };
            let events = [
                (
                    Some("message_start"),
                    json!({"type": "message_start", "message": start}),
                ),
                (
                    Some("content_block_start"),
                    json!({"type": "content_block_start", "index": 0, "content_block": open}),
                ),
                (
                    Some("content_block_delta"),
                    json!({"type": "content_block_delta", "index": 0, "delta": delta}),
                ),
                (
                    Some("content_block_stop"),
                    json!({"type": "content_block_stop", "index": 0}),
                ),
                (
                    Some("message_delta"),
                    json!({"type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 10}}),
                ),
                (Some("message_stop"), json!({"type": "message_stop"})),
            ];
            (ok, SSE, sse(&events))
        }
        Api::Responses => {
            if results.is_none() {
                return (
                    "404 Not Found",
                    JSON,
                    json!({"error": {"message": "not here"}}).to_string(),
                );
            }
            let item = match &call {
                Some(c) => {
                    let mut item = json!({"type": "function_call", "id": format!("fc_e2e_{turn}"),
                        "call_id": format!("call_e2e_{turn}"), "name": c.name,
                        "arguments": c.args.to_string(), "status": "completed"});
                    // Codex lists an MCP server's tools as a namespace `mcp__SERVER`
                    if let Some(rest) = c.name.strip_prefix("mcp__")
                        && let Some((server, tool)) = rest.split_once("__")
                    {
                        item["namespace"] = json!(format!("mcp__{server}"));
                        item["name"] = json!(tool);
                    }
                    item
                }
                None => {
                    json!({"type": "message", "id": format!("msg_e2e_{turn}"), "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": "done", "annotations": []}]})
                }
            };
            let id = format!("resp_e2e_{turn}");
            let events = [
                (
                    Some("response.created"),
                    json!({"type": "response.created", "response": {"id": id}}),
                ),
                (
                    Some("response.output_item.done"),
                    json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
                ),
                (
                    Some("response.completed"),
                    json!({"type": "response.completed", "response": {"id": id,
                    "usage": {"input_tokens": 100, "input_tokens_details": null, "output_tokens": 10,
                              "output_tokens_details": null, "total_tokens": 110}}}),
                ),
            ];
            (ok, SSE, sse(&events))
        }
        Api::Gemini => {
            let usage = json!({"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110});
            if results.is_none() {
                // non-streamed side calls (a router asks for JSON); answer plain JSON text
                let text = json!({"reasoning": "e2e", "model_choice": "flash",
                                  "complexity_reasoning": "e2e", "complexity_score": 1})
                .to_string();
                return (
                    ok,
                    JSON,
                    json!({"candidates": [{"content": {"role": "model",
                    "parts": [{"text": text}]}, "finishReason": "STOP", "index": 0}],
                    "usageMetadata": usage})
                    .to_string(),
                );
            }
            let part = match &call {
                Some(c) => json!({"functionCall": {"name": c.name, "args": c.args}}),
                None => json!({"text": "done"}),
            };
            let chunk = json!({"candidates": [{"content": {"role": "model", "parts": [part]},
                "finishReason": "STOP", "index": 0}], "usageMetadata": usage});
            (ok, SSE, sse(&[(None, chunk)]))
        }
        Api::Chat => {
            let id = format!("chatcmpl-e2e-{turn}");
            let chunk = |delta: Value, finish: Value| {
                json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": "m",
                       "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
            };
            let events = match (&results, &call) {
                (Some(_), Some(c)) => vec![
                    (
                        None,
                        chunk(
                            json!({"role": "assistant", "tool_calls": [{"index": 0,
                        "id": format!("call_e2e_{turn}"), "type": "function",
                        "function": {"name": c.name, "arguments": c.args.to_string()}}]}),
                            Value::Null,
                        ),
                    ),
                    (None, chunk(json!({}), json!("tool_calls"))),
                ],
                (main, _) => vec![
                    (
                        None,
                        chunk(
                            json!({"role": "assistant",
                        "content": if main.is_some() { "done" } else { "e2e" }}),
                            Value::Null,
                        ),
                    ),
                    (None, chunk(json!({}), json!("stop"))),
                ],
            };
            let mut s = sse(&events);
            s.push_str("data: [DONE]\n\n");
            (ok, SSE, s)
        }
    }
}
