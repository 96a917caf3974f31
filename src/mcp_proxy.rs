//! `toolcap mcp-proxy`: an MCP stdio proxy that caps any MCP server's tool results
//! (cargo feature `mcp`).
//!
//! The proxy starts the MCP server as a child process and relays newline-delimited
//! JSON-RPC 2.0 messages (the MCP stdio transport) between it and the client on the
//! proxy's own stdin/stdout. Every message is passed on byte for byte, except:
//!
//! - the result of a `tools/call`: each `text` content goes through the
//!   [`ToolResultProcessor`] (tool name: the MCP tool's name; arguments: the call's
//!   `arguments`). A cut result is kept in the store under a generated tool call id
//!   and its text says how to read on (`get_continuation`). Where `structuredContent`
//!   holds the same text as a string, that string is capped the same way, so the
//!   tool's output schema still holds. `isError` and non-text content (images,
//!   audio, resource links, embedded resources) pass through unchanged;
//! - the result of a `tools/list` (its first page): the recovery tools
//!   `get_continuation`, `fetch_tool_output` and `search_tool_output` are added.
//!   The recovery suggestions of a cut result name only tools the client has:
//!   the recovery tools (reading and searching the stored result), and the
//!   server's own tools that the listing shows by name and arguments (a read
//!   tool such as `read_text_file(path, head, tail)`, a glob tool such as
//!   `search_files(path, pattern)`; see [`Suggest::from_listed`]). Until the
//!   client lists the tools, only the recovery tools are suggested;
//! - a `tools/call` of a recovery tool is answered by the proxy from the store and
//!   never reaches the server.
//!
//! Size hints (see docs/budgets.md): a server's `_meta["anthropic/maxResultSizeChars"]`
//! on a listed tool, or on a result, caps that tool's threshold (it never raises
//! it); a `tools/call` whose `_meta` says how much of the model's context is left
//! (`toolcap/contextLeft`, `toolcap/contextLimit`, `toolcap/contextUsed`,
//! `toolcap/model`) gets the budgets of that context. Every page of a `tools/list`
//! has `anthropic/maxResultSizeChars` set on a capped tool where toolcap's view of
//! its results can exceed the client's default limit or the server's own value,
//! so that the client keeps the view whole.
//!
//! Every tool result that leaves the proxy is capped: a response after the client's
//! `notifications/cancelled`, a second response to one request, a response whose id
//! the server re-wrote (`1.0` sent, `1` echoed) and one to an id never seen included.
//! A line from the server that is not a JSON-RPC message (a crashing server's
//! half-written line) is not passed on.
//!
//! The server's stderr is the proxy's stderr. When the client closes the proxy's
//! stdin, the server's stdin is closed once the lines queued for it are written,
//! and everything the server still writes is passed on; it is sent SIGTERM after
//! 2 s of silence (30 s while it owes answers to requests it received) and killed
//! 2 s later if it has not exited (the MCP stdio shutdown sequence). SIGTERM, SIGINT
//! or SIGHUP to the proxy is passed on to the server, which is killed 2 s later if
//! still running. When the server exits, requests it left unanswered get a JSON-RPC
//! error and the proxy exits with the server's exit status, which closes the
//! client's end.
//!
//! Why not an MCP SDK: the proxy reads and rewrites only three shapes of message and
//! must pass every other one through unchanged, including methods and fields newer
//! than any SDK it could be built with. Plain JSON values over two threads do that,
//! with no async runtime.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io::{self, BufRead, BufReader, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::config::Suggest;
use crate::store::continuation::ChunkOptions;
use crate::store::tools::{
    Dispatch, FETCH_TOOL_OUTPUT, GET_CONTINUATION, QUERY_TOOL_OUTPUT, RecoveryTools,
    SEARCH_TOOL_OUTPUT, ToolFormat, definitions,
};
use crate::store::{ResultStore, SaveWhen};
use crate::{Config, ToolCall, ToolResultProcessor};

/// The tool name and arguments of a `tools/call` request's params (an empty name
/// and no arguments where they are missing).
fn tool_call(params: Option<&Value>) -> (&str, Value) {
    let name = params
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let args = params
        .and_then(|p| p.get("arguments"))
        .cloned()
        .unwrap_or_else(|| Value::Object(Map::new()));
    (name, args)
}

/// The recovery tools the proxy offers and answers.
pub const PROXY_TOOLS: [&str; 4] = [
    GET_CONTINUATION,
    FETCH_TOOL_OUTPUT,
    SEARCH_TOOL_OUTPUT,
    QUERY_TOOL_OUTPUT,
];

/// How long the server gets to exit after its stdin is closed, and again after SIGTERM.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// After the client closed stdin: how long a server that still owes answers to
/// requests (sent, not cancelled) may stay silent before it is sent SIGTERM. A
/// server that owes nothing gets [`SHUTDOWN_GRACE`].
pub const PENDING_GRACE: Duration = Duration::from_secs(30);

/// JSON-RPC error code of requests the server left unanswered when it exited.
pub const SERVER_GONE_CODE: i64 = -32603;

/// Most answered `tools/call` requests remembered, so that a second response to one
/// of them is capped as its tool's result too.
const ANSWERED_KEPT: usize = 256;

/// The `_meta` key by which Claude Code (2.1.91 and later) takes a tool's results
/// inline up to that many characters (default about 50,000; at most 500,000).
pub const MAX_RESULT_SIZE_KEY: &str = "anthropic/maxResultSizeChars";

/// The most characters Claude Code takes inline from a tool that sets no
/// [`MAX_RESULT_SIZE_KEY`]: toolcap sets the key only where its view can be larger.
pub const CLIENT_DEFAULT_RESULT_CHARS: usize = 50_000;

/// The largest [`MAX_RESULT_SIZE_KEY`] Claude Code honours.
pub const CLIENT_MAX_RESULT_CHARS: usize = 500_000;

/// What a `tools/call` request's `_meta` says of the model's context
/// (`toolcap/contextLeft`, `toolcap/contextLimit`, `toolcap/contextUsed`,
/// `toolcap/model`); figures that are not whole numbers are ignored.
fn call_context(params: Option<&Value>) -> crate::bind::Context {
    let meta = params.and_then(|p| p.get("_meta"));
    let num = |k: &str| {
        meta.and_then(|m| m.get(k))
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
    };
    crate::bind::Context {
        left: num("toolcap/contextLeft"),
        limit: num("toolcap/contextLimit"),
        used: num("toolcap/contextUsed"),
        model: meta
            .and_then(|m| m.get("toolcap/model"))
            .and_then(Value::as_str)
            .filter(|m| !m.trim().is_empty())
            .map(str::to_string),
    }
}

/// A positive [`MAX_RESULT_SIZE_KEY`] in a `_meta` object.
fn size_hint(meta: Option<&Value>) -> Option<usize> {
    meta.and_then(|m| m.get(MAX_RESULT_SIZE_KEY))
        .and_then(Value::as_u64)
        .filter(|n| *n > 0)
        .and_then(|n| usize::try_from(n).ok())
}

/// A request of the client's that the server has not answered yet.
#[derive(Debug, Clone)]
struct Entry {
    /// The id as the client wrote it (echoed in the proxy's own error replies).
    id: Value,
    kind: Pending,
    /// The client sent `notifications/cancelled` for it: a late response is still
    /// capped, but the proxy does not answer it when the server leaves.
    cancelled: bool,
    /// The number of the client line that carried it (see [`Proxy::delivered`]).
    line: u64,
}

/// What a request of the client's was.
#[derive(Debug, Clone)]
enum Pending {
    /// `tools/list`; the first page (no cursor) gets the recovery tools.
    List { first_page: bool },
    /// `tools/call` of a server tool, with what its `_meta` says of the context.
    Call {
        name: String,
        args: Value,
        context: crate::bind::Context,
    },
    /// Anything else: tracked only to answer it if the server exits.
    Other,
}

/// Where a message from the client goes.
#[derive(Debug, Default, PartialEq)]
pub struct Routed {
    /// The line to send to the server.
    pub to_server: Option<Vec<u8>>,
    /// The proxy's own answer, for the client.
    pub to_client: Option<Vec<u8>>,
}

/// The proxy's message handling, independent of processes and pipes.
#[derive(Debug)]
pub struct Proxy {
    processor: std::sync::RwLock<ToolResultProcessor>,
    /// The server's tools as listed so far: names and input properties.
    listed: Mutex<Vec<(String, Vec<String>)>>,
    /// The server's [`MAX_RESULT_SIZE_KEY`] of each listed tool that sets one.
    size_hints: Mutex<HashMap<String, usize>>,
    /// The context of calls whose `_meta` does not say (`--model`, ...).
    context: crate::bind::Context,
    recovery: RecoveryTools,
    dialog: String,
    session: String,
    counter: AtomicU64,
    pending: Mutex<HashMap<String, Entry>>,
    /// Recently answered `tools/call`s: id key, tool name, arguments.
    answered: Mutex<std::collections::VecDeque<(String, String, Value)>>,
    /// The proxy's own replies to part of a client batch, held until the server
    /// answers the rest of it (a batch gets one array back): the id keys the
    /// server is to answer, and the replies.
    held: Mutex<Vec<(Vec<String>, Vec<Value>)>>,
    /// Results larger than this many bytes are not kept (an in-memory store's limit).
    keep_limit: Option<usize>,
    /// Client lines handled so far, and how many of them were written to the server.
    lines_in: AtomicU64,
    lines_delivered: AtomicU64,
}

impl Proxy {
    /// A proxy keeping cut results in `store` under `dialog`, cutting with `config`
    /// (`get_continuation` serves `max_kept_chars` characters a call).
    pub fn new(config: Config, store: Arc<dyn ResultStore>, dialog: impl Into<String>) -> Proxy {
        let dialog = dialog.into();
        let chunk = ChunkOptions {
            chunk_chars: config.max_kept_chars,
            ..ChunkOptions::default()
        };
        // suggestions name the recovery tools only, until the server's tools
        // are listed
        let mut config = config;
        config.suggest = Suggest::from_listed(&[]);
        Proxy {
            processor: std::sync::RwLock::new(
                ToolResultProcessor::new(config).with_store(store.clone(), SaveWhen::Cut),
            ),
            listed: Mutex::new(Vec::new()),
            size_hints: Mutex::new(HashMap::new()),
            context: crate::bind::Context::default(),
            recovery: RecoveryTools::new(store, dialog.clone()).chunk_options(chunk),
            dialog,
            session: session_tag(),
            counter: AtomicU64::new(0),
            pending: Mutex::new(HashMap::new()),
            answered: Mutex::new(std::collections::VecDeque::new()),
            held: Mutex::new(Vec::new()),
            keep_limit: None,
            lines_in: AtomicU64::new(0),
            lines_delivered: AtomicU64::new(0),
        }
    }

    /// Keep no result larger than `bytes` (the limit of an in-memory store, which
    /// would otherwise hold one result over its limit): such a result is cut
    /// without the claim that it is stored, and a note goes to stderr.
    pub fn keep_at_most(mut self, bytes: usize) -> Proxy {
        self.keep_limit = Some(bytes);
        self
    }

    /// The context of every call whose `_meta` does not say otherwise (each of
    /// `toolcap/contextLeft`, `toolcap/contextLimit`, `toolcap/contextUsed`,
    /// `toolcap/model` replaces its own figure): `toolcap mcp-proxy --model`.
    pub fn context(mut self, context: crate::bind::Context) -> Proxy {
        self.context = context;
        self
    }

    /// The recovery tools as MCP tool definitions (`name`, `description`, `inputSchema`).
    pub fn tool_definitions(&self) -> Vec<Value> {
        let chunk = self.processor().config().max_kept_chars;
        let Value::Array(defs) = definitions(ToolFormat::Anthropic, chunk) else {
            return Vec::new();
        };
        defs.into_iter()
            .filter(|d| {
                d.get("name")
                    .and_then(Value::as_str)
                    .is_some_and(|n| PROXY_TOOLS.contains(&n))
            })
            .map(|d| {
                json!({
                    "name": d["name"],
                    "description": d["description"],
                    "inputSchema": d["input_schema"],
                })
            })
            .collect()
    }

    /// The processor, as the tools listed so far make it.
    fn processor(&self) -> std::sync::RwLockReadGuard<'_, ToolResultProcessor> {
        self.processor.read().unwrap_or_else(|p| p.into_inner())
    }

    /// The suggestion tools in use: picked from the server's listed tools.
    pub fn suggest(&self) -> Suggest {
        self.processor().config().suggest.clone()
    }

    /// Note the tools of a `tools/list` page (the first page starts afresh) and
    /// pick the suggestion tools from all listed so far.
    fn note_tools(&self, result: &Value, first_page: bool) {
        let Some(tools) = result.get("tools").and_then(Value::as_array) else {
            return;
        };
        let mut listed = self.listed.lock().unwrap_or_else(|p| p.into_inner());
        let mut hints = self.size_hints.lock().unwrap_or_else(|p| p.into_inner());
        if first_page {
            listed.clear();
            hints.clear();
        }
        for t in tools {
            let Some(name) = t.get("name").and_then(Value::as_str) else {
                continue;
            };
            if PROXY_TOOLS.contains(&name) {
                continue;
            }
            match size_hint(t.get("_meta")) {
                Some(h) => hints.insert(name.to_string(), h),
                None => hints.remove(name),
            };
            let props = t
                .get("inputSchema")
                .and_then(|s| s.get("properties"))
                .and_then(Value::as_object)
                .map(|o| o.keys().cloned().collect())
                .unwrap_or_default();
            listed.push((name.to_string(), props));
        }
        let suggest = Suggest::from_listed(&listed);
        let mut p = self.processor.write().unwrap_or_else(|p| p.into_inner());
        if p.config().suggest != suggest {
            let mut config = p.config().clone();
            config.suggest = suggest;
            *p = p.clone().with_config(config);
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A new tool call id for a result: `mcp_<session>_<n>`.
    fn next_id(&self) -> String {
        let n = self.counter.fetch_add(1, Ordering::Relaxed) + 1;
        format!("mcp_{}_{n}", self.session)
    }

    /// Handle one line from the client.
    pub fn from_client(&self, line: &[u8]) -> Routed {
        self.lines_in.fetch_add(1, Ordering::SeqCst);
        let Ok(msg) = serde_json::from_slice::<Value>(line) else {
            // not JSON: the server answers it with a parse error
            return Routed {
                to_server: Some(line.to_vec()),
                to_client: None,
            };
        };
        match msg {
            Value::Array(items) => {
                let (mut forward, mut local) = (Vec::new(), Vec::new());
                for item in items {
                    match self.client_message(&item) {
                        Some(reply) => local.push(reply),
                        None => forward.push(item),
                    }
                }
                if local.is_empty() {
                    return Routed {
                        to_server: Some(line.to_vec()),
                        to_client: None,
                    };
                }
                // the requests of the batch the server is to answer
                let awaited: Vec<String> = forward
                    .iter()
                    .filter(|m| m.get("method").is_some())
                    .filter_map(|m| m.get("id").filter(|id| !id.is_null()))
                    .map(id_key)
                    .collect();
                let to_client = if awaited.is_empty() {
                    Some(Value::Array(local).to_string().into_bytes())
                } else {
                    // one batch, one array: joined to the server's answer
                    self.held
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push((awaited, local));
                    None
                };
                Routed {
                    to_server: (!forward.is_empty())
                        .then(|| Value::Array(forward).to_string().into_bytes()),
                    to_client,
                }
            }
            single => match self.client_message(&single) {
                Some(reply) => Routed {
                    to_server: None,
                    to_client: Some(reply.to_string().into_bytes()),
                },
                None => Routed {
                    to_server: Some(line.to_vec()),
                    to_client: None,
                },
            },
        }
    }

    /// Note a client message; `Some(response)` when the proxy answers it itself.
    fn client_message(&self, msg: &Value) -> Option<Value> {
        let method = msg.get("method").and_then(Value::as_str)?;
        let params = msg.get("params");
        let Some(id) = msg.get("id").filter(|id| !id.is_null()) else {
            if method == "notifications/cancelled"
                && let Some(req) = params.and_then(|p| p.get("requestId"))
                && let Some(e) = self.lock().get_mut(&id_key(req))
            {
                // kept: a response may still come, and is capped like any other
                e.cancelled = true;
            }
            return None;
        };
        let pending = match method {
            "tools/call" => {
                let (name, args) = tool_call(params);
                if PROXY_TOOLS.contains(&name) {
                    return Some(self.answer_recovery(id, name, &args));
                }
                Pending::Call {
                    name: name.to_string(),
                    args,
                    context: call_context(params),
                }
            }
            "tools/list" => Pending::List {
                first_page: params
                    .and_then(|p| p.get("cursor"))
                    .is_none_or(Value::is_null),
            },
            _ => Pending::Other,
        };
        self.lock().insert(
            id_key(id),
            Entry {
                id: id.clone(),
                kind: pending,
                cancelled: false,
                line: self.lines_in.load(Ordering::SeqCst),
            },
        );
        None
    }

    fn answer_recovery(&self, id: &Value, name: &str, args: &Value) -> Value {
        let reply = match self.recovery.dispatch(name, args) {
            Dispatch::Handled(r) => r,
            // PROXY_TOOLS are recovery tools: dispatch always handles them
            Dispatch::NotMine => crate::store::continuation::ToolReply::error(&format!(
                "{name} is not a recovery tool"
            )),
        };
        json!({
            "jsonrpc": "2.0",
            "id": id,
            "result": {
                "content": [{"type": "text", "text": reply.text}],
                "isError": reply.is_error,
            },
        })
    }

    /// Handle one line from the server: the line to send the client, or `None` when
    /// it is not a JSON-RPC message (a crashing server's half-written line, stray
    /// output): such a line is not passed on, only noted on stderr, so nothing
    /// uncapped reaches the client.
    pub fn from_server(&self, line: &[u8]) -> Option<Vec<u8>> {
        let mut msg = match serde_json::from_slice::<Value>(line) {
            Ok(m @ (Value::Object(_) | Value::Array(_))) => m,
            _ => {
                let head = String::from_utf8_lossy(&line[..line.len().min(120)]).into_owned();
                let _ = writeln!(
                    io::stderr(),
                    "toolcap mcp-proxy: the server wrote a line that is not a JSON-RPC message ({} bytes, starting {}); it is not passed on",
                    line.len(),
                    json!(head)
                );
                return None;
            }
        };
        let changed = match &mut msg {
            Value::Array(items) => {
                // every response of a batch is handled, whatever the others did
                let mut changed = false;
                for m in items.iter_mut() {
                    changed |= self.server_message(m);
                }
                changed | self.join_held(items)
            }
            single => {
                let changed = self.server_message(single);
                // a server that answers a batch's request on its own: the proxy's
                // replies to the rest of the batch go with it, as one array
                let mut items = vec![std::mem::take(single)];
                let joined = self.join_held(&mut items);
                *single = if joined {
                    Value::Array(items)
                } else {
                    items.pop().unwrap_or_default()
                };
                changed || joined
            }
        };
        Some(if changed {
            msg.to_string().into_bytes()
        } else {
            line.to_vec()
        })
    }

    /// Append the proxy's held replies to the server's answer to the same batch.
    fn join_held(&self, items: &mut Vec<Value>) -> bool {
        let keys: Vec<String> = items
            .iter()
            .filter(|m| m.get("method").is_none())
            .filter_map(|m| m.get("id"))
            .map(id_key)
            .collect();
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        let Some(i) = held
            .iter()
            .position(|(awaited, _)| awaited.iter().any(|k| keys.contains(k)))
        else {
            return false;
        };
        let (_, replies) = held.remove(i);
        items.extend(replies);
        true
    }

    /// Rewrite a server message in place when it answers a tracked request; whether
    /// it changed.
    fn server_message(&self, msg: &mut Value) -> bool {
        let is_response = msg.get("method").is_none()
            && (msg.get("result").is_some() || msg.get("error").is_some());
        let Some(id) = msg.get("id").filter(|_| is_response) else {
            return false;
        };
        let key = id_key(id);
        let entry = self.lock().remove(&key);
        let Some(result) = msg.get_mut("result") else {
            return false;
        };
        match entry.map(|e| e.kind) {
            Some(Pending::List { first_page }) => {
                self.note_tools(result, first_page);
                let sized = self.annotate_sizes(result);
                (first_page && self.add_tools(result)) || sized
            }
            Some(Pending::Call {
                name,
                args,
                context,
            }) => {
                let changed = self.cap_call(&name, &args, &context, result);
                let mut answered = self.answered.lock().unwrap_or_else(|p| p.into_inner());
                if answered.len() >= ANSWERED_KEPT {
                    answered.pop_front();
                }
                answered.push_back((key, name, args));
                changed
            }
            Some(Pending::Other) => false,
            None => {
                // a second response to one request, or to an id never seen: a
                // tool result in it is capped all the same
                let call = self
                    .answered
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .iter()
                    .rev()
                    .find(|(k, _, _)| *k == key)
                    .map(|(_, n, a)| (n.clone(), a.clone()));
                let (name, args) =
                    call.unwrap_or_else(|| (String::new(), Value::Object(Map::new())));
                self.cap_result(&name, &args, result)
            }
        }
    }

    /// Add the recovery tools to a `tools/list` result (replacing server tools of the
    /// same names, which the proxy answers instead).
    fn add_tools(&self, result: &mut Value) -> bool {
        let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else {
            return false;
        };
        tools.retain(|t| {
            let name = t.get("name").and_then(Value::as_str).unwrap_or_default();
            let clash = PROXY_TOOLS.contains(&name);
            if clash {
                let _ = writeln!(
                    io::stderr(),
                    "toolcap mcp-proxy: the server's own tool {name:?} is hidden: the proxy answers {name} from its store"
                );
            }
            !clash
        });
        tools.extend(self.tool_definitions());
        true
    }

    /// Set [`MAX_RESULT_SIZE_KEY`] on the listed tools whose results toolcap
    /// caps, where its view can be larger than what the client takes by default
    /// or than the server's own value (so that the client keeps the view whole);
    /// whether anything changed. Bypassed tools, tools counted in tokens and
    /// the recovery tools are left as they are.
    fn annotate_sizes(&self, result: &mut Value) -> bool {
        let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else {
            return false;
        };
        let p = self.processor();
        let config = p.config();
        let mut changed = false;
        for t in tools.iter_mut() {
            let Some(name) = t.get("name").and_then(Value::as_str) else {
                continue;
            };
            if PROXY_TOOLS.contains(&name) || config.is_bypassed(name) {
                continue;
            }
            let entry = config.entry_for(name);
            if entry.unit != crate::config::Unit::Chars {
                continue;
            }
            let declared = size_hint(t.get("_meta"));
            let ctx = crate::ContextWindow {
                max_result_chars: declared,
                ..crate::ContextWindow::default()
            };
            let b = config
                .budget
                .apply(entry.threshold, entry.max_kept, false, &ctx);
            // the most a result of the tool can be once toolcap is done with it
            let view = b
                .threshold
                .max(crate::cut::bounds::max_output_chars(b.max_kept));
            let wanted = match declared {
                Some(d) if d >= view => continue,
                Some(_) => view,
                None if view > CLIENT_DEFAULT_RESULT_CHARS => view,
                None => continue,
            };
            let Some(obj) = t.as_object_mut() else {
                continue;
            };
            let meta = obj
                .entry("_meta")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(m) = meta {
                m.insert(
                    MAX_RESULT_SIZE_KEY.to_string(),
                    json!(wanted.min(CLIENT_MAX_RESULT_CHARS)),
                );
                changed = true;
            }
        }
        changed
    }

    /// Cap the text contents of a `tools/call` result of tool `name` called with
    /// `args`; whether anything changed.
    pub fn cap_result(&self, name: &str, args: &Value, result: &mut Value) -> bool {
        self.cap_call(name, args, &crate::bind::Context::default(), result)
    }

    /// [`Self::cap_result`] for a call whose `_meta` said `context` of the
    /// model's context (each figure given replaces the proxy's own), with the
    /// size hint of the result's `_meta`, else of the tool's listing.
    pub fn cap_call(
        &self,
        name: &str,
        args: &Value,
        context: &crate::bind::Context,
        result: &mut Value,
    ) -> bool {
        let hint = size_hint(result.get("_meta")).or_else(|| {
            self.size_hints
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get(name)
                .copied()
        });
        let context = crate::bind::Context {
            left: context.left.or(self.context.left),
            limit: context.limit.or(self.context.limit),
            used: context.used.or(self.context.used),
            model: context.model.clone().or_else(|| self.context.model.clone()),
        };
        let Some(content) = result.get_mut("content").and_then(Value::as_array_mut) else {
            return false;
        };
        let mut swapped: Vec<(String, String)> = Vec::new();
        for item in content.iter_mut() {
            if item.get("type").and_then(Value::as_str) != Some("text") {
                continue;
            }
            let Some(Value::String(text)) = item.get_mut("text") else {
                continue;
            };
            let id = self.next_id();
            let mut call = ToolCall::new(name, args);
            let fits = self.keep_limit.is_none_or(|max| text.len() <= max);
            call.id = fits.then_some(id.as_str());
            call.dialog = Some(&self.dialog);
            call.context = crate::ContextWindow {
                max_result_chars: hint,
                ..context.window()
            };
            let out = self.processor().process_call(&call, text);
            if let Some(e) = &out.store_error {
                let _ = writeln!(
                    io::stderr(),
                    "toolcap mcp-proxy: {name}: the full result could not be kept: {e}"
                );
            }
            if !fits && out.truncated {
                let _ = writeln!(
                    io::stderr(),
                    "toolcap mcp-proxy: {name}: the full result ({} bytes) is larger than --memory-limit and is not kept",
                    text.len()
                );
            }
            if out.text != *text {
                let original = std::mem::replace(text, out.text);
                swapped.push((original, text.clone()));
            }
        }
        if swapped.is_empty() {
            return false;
        }
        if let Some(structured) = result.get_mut("structuredContent") {
            replace_strings(structured, &swapped);
        }
        true
    }

    /// The number of the client line [`Self::from_client`] handled last.
    fn last_line(&self) -> u64 {
        self.lines_in.load(Ordering::SeqCst)
    }

    /// Note that the client lines up to `line` were written to the server.
    fn delivered(&self, line: u64) {
        self.lines_delivered.fetch_max(line, Ordering::SeqCst);
    }

    /// Whether the server owes an answer to a request it was sent and the client
    /// did not cancel.
    fn owes_answers(&self) -> bool {
        let delivered = self.lines_delivered.load(Ordering::SeqCst);
        self.lock()
            .values()
            .any(|e| !e.cancelled && e.line <= delivered)
    }

    /// JSON-RPC errors for the requests the server left unanswered (but those the
    /// client cancelled), and the proxy's replies held for a batch.
    fn unanswered(&self) -> Vec<Value> {
        let mut left: Vec<(String, Entry)> =
            self.lock().drain().filter(|(_, e)| !e.cancelled).collect();
        left.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<Value> = left
            .into_iter()
            .map(|(_, e)| {
                json!({
                    "jsonrpc": "2.0",
                    "id": e.id,
                    "error": {
                        "code": SERVER_GONE_CODE,
                        "message": "the MCP server exited before answering (toolcap mcp-proxy)",
                    },
                })
            })
            .collect();
        let held = std::mem::take(&mut *self.held.lock().unwrap_or_else(|p| p.into_inner()));
        out.extend(held.into_iter().flat_map(|(_, replies)| replies));
        out
    }
}

/// The key a request id is tracked under. A number with an integral value is keyed
/// as that integer whatever its spelling (`1`, `1.0`, `1e0`): a server that parses
/// the id and writes it back may echo `1.0` as `1`.
fn id_key(id: &Value) -> String {
    if let Value::Number(n) = id {
        if let Some(u) = n.as_u64() {
            return u.to_string();
        }
        if let Some(i) = n.as_i64() {
            return i.to_string();
        }
        if let Some(f) = n.as_f64()
            && f.is_finite()
            && f.fract() == 0.0
            && f.abs() < 9.0e15
        {
            return format!("{}", f as i64);
        }
    }
    id.to_string()
}

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

    fn serve_one(&self, msg: &Value) -> Option<Value> {
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
                    self.answer_recovery(id, name, &args)
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

/// Swap every string in `v` equal to an original text for its capped form.
fn replace_strings(v: &mut Value, swapped: &[(String, String)]) {
    match v {
        Value::String(s) => {
            if let Some((_, capped)) = swapped.iter().find(|(orig, _)| orig == s) {
                *s = capped.clone();
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| replace_strings(i, swapped)),
        Value::Object(map) => map.values_mut().for_each(|i| replace_strings(i, swapped)),
        _ => {}
    }
}

/// Eight hex digits telling this proxy run's ids from another's in a shared store.
fn session_tag() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    // splitmix64 of the time and the process id
    let mut x = nanos ^ (u64::from(std::process::id()) << 32);
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^= x >> 31;
    format!("{:08x}", x & 0xFFFF_FFFF)
}

/// A failure to run the proxied server.
#[derive(Debug)]
pub enum ProxyError {
    /// The server command could not be started.
    Spawn {
        /// The command.
        program: OsString,
        /// Why it could not start.
        source: io::Error,
    },
    /// Waiting for the server failed.
    Wait(io::Error),
}

impl fmt::Display for ProxyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProxyError::Spawn { program, source } => write!(
                f,
                "mcp-proxy: cannot start the MCP server {:?}: {source}; check the command after -- (is it installed and on PATH?)",
                program
            ),
            ProxyError::Wait(e) => write!(f, "mcp-proxy: waiting for the MCP server failed: {e}"),
        }
    }
}

impl std::error::Error for ProxyError {}

enum Event {
    /// The client closed the proxy's stdin (every line it sent is queued for the
    /// server).
    StdinClosed,
    /// The client closed the proxy's stdout: nobody reads what is left.
    ClientGone,
    /// The server closed its stdout, and every line it wrote was passed on.
    ServerGone,
    /// The proxy got this signal (SIGTERM, SIGINT or SIGHUP).
    Signal(i32),
}

/// Lines from the client waiting for the server, at most: past it the client's
/// reader waits for the server to read.
const QUEUED_LINES: usize = 16;

/// Write one message line to stdout; `false` when the client is gone.
fn send_client(line: &[u8]) -> bool {
    let mut out = io::stdout().lock();
    out.write_all(line)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .is_ok()
}

/// Read one line (without its `\n` or `\r\n`); `None` at the end of input.
fn read_line(r: &mut impl BufRead, buf: &mut Vec<u8>) -> Option<()> {
    buf.clear();
    match r.read_until(b'\n', buf) {
        Ok(0) | Err(_) => None,
        Ok(_) => {
            if buf.last() == Some(&b'\n') {
                buf.pop();
            }
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            Some(())
        }
    }
}

/// Start `program` with `args` as the MCP server and relay between it and this
/// process's stdin/stdout until one side exits. Returns the exit code to leave with:
/// the server's own when it exited by itself, 0 when the proxy shut it down because
/// the client left, 128 + the signal when the proxy was told to stop (SIGTERM,
/// SIGINT, SIGHUP), which it passes on to the server first.
///
/// The threads: one reads the client's lines and queues them for a second that
/// writes them to the server (so the end of the client's input is seen even while
/// the server has stopped reading), one relays the server's lines to the client,
/// and on Unix one waits for the signals. When the client closes stdin, the
/// server's stdin is closed once the queued lines are written, and everything the
/// server writes until it exits is still passed on.
pub fn run(proxy: Proxy, program: &OsStr, args: &[OsString]) -> Result<i32, ProxyError> {
    let (tx, rx) = mpsc::channel::<Event>();
    // before any other thread starts, so every thread has them blocked, and before
    // the server starts, so a signal sent once it runs is never taken by the
    // default action (the server itself starts with an empty mask: std resets it)
    #[cfg(unix)]
    signals::forward(tx.clone());
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|source| ProxyError::Spawn {
            program: program.to_os_string(),
            source,
        })?;
    let server_in = child.stdin.take();
    let server_out = child.stdout.take();
    let proxy = Arc::new(proxy);

    let (queue, queued) = mpsc::sync_channel::<(u64, Vec<u8>)>(QUEUED_LINES);
    if let Some(mut w) = server_in {
        let proxy = proxy.clone();
        thread::spawn(move || {
            // ends when the client's reader is done and the queue is empty (the
            // server's stdin is then closed by the drop), or when the server is gone
            for (n, fwd) in queued {
                if w.write_all(&fwd)
                    .and_then(|()| w.write_all(b"\n"))
                    .and_then(|()| w.flush())
                    .is_err()
                {
                    break;
                }
                proxy.delivered(n);
            }
        });
    }
    {
        let (proxy, tx) = (proxy.clone(), tx.clone());
        thread::spawn(move || {
            let mut input = BufReader::new(io::stdin().lock());
            let mut line = Vec::new();
            let mut event = Event::StdinClosed;
            while read_line(&mut input, &mut line).is_some() {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let routed = proxy.from_client(&line);
                if let Some(reply) = routed.to_client
                    && !send_client(&reply)
                {
                    event = Event::ClientGone;
                    break;
                }
                if let Some(fwd) = routed.to_server
                    && queue.send((proxy.last_line(), fwd)).is_err()
                {
                    // the server's writer is gone: the server is; its reader says so
                    break;
                }
            }
            drop(queue);
            let _ = tx.send(event);
        });
    }
    let activity = Arc::new(Activity::new());
    let relay = server_out.map(|out| {
        let (proxy, tx, activity) = (proxy.clone(), tx.clone(), activity.clone());
        thread::spawn(move || {
            // every byte the server writes counts as activity, so a long line
            // being written is not taken for a server that went quiet
            let mut from_server = BufReader::new(Noticed {
                inner: out,
                activity: activity.clone(),
            });
            let mut line = Vec::new();
            while read_line(&mut from_server, &mut line).is_some() {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                activity.begin();
                let sent = proxy.from_server(&line).is_none_or(|out| send_client(&out));
                activity.end();
                if !sent {
                    let _ = tx.send(Event::ClientGone);
                    return;
                }
            }
            let _ = tx.send(Event::ServerGone);
        })
    });
    drop(tx);

    match rx.recv() {
        Ok(Event::ServerGone) | Err(_) => {
            let status = wait_or_stop(&mut child)?;
            for err in proxy.unanswered() {
                let _ = send_client(err.to_string().as_bytes());
            }
            Ok(status.map_or(0, exit_code))
        }
        Ok(Event::StdinClosed) => {
            // the MCP stdio shutdown: the server's stdin closes once the queued lines
            // are written; the server gets SHUTDOWN_GRACE to exit, counted while it
            // writes nothing (a server still writing its answers is not stopped)
            activity.touch();
            let status = stop_when_quiet(&mut child, &activity, || {
                if proxy.owes_answers() {
                    PENDING_GRACE
                } else {
                    SHUTDOWN_GRACE
                }
            })?;
            // the relay reads to the end of the server's output, waited for while it
            // passes lines on (a process the server left behind may hold the pipe
            // open: not longer than SHUTDOWN_GRACE of quiet)
            activity.touch();
            if let Some(r) = relay {
                while !r.is_finished() && !activity.quiet_for(SHUTDOWN_GRACE) {
                    thread::sleep(Duration::from_millis(5));
                }
            }
            Ok(status.map_or(0, exit_code))
        }
        Ok(Event::ClientGone) => {
            let status = wait_or_stop(&mut child)?;
            Ok(status.map_or(0, exit_code))
        }
        Ok(Event::Signal(sig)) => {
            terminate(&mut child);
            if wait_for(&mut child, SHUTDOWN_GRACE)?.is_none() {
                let _ = child.kill();
                child.wait().map_err(ProxyError::Wait)?;
            }
            Ok(128 + sig)
        }
    }
}

/// A reader that notes in an [`Activity`] each time it reads something.
struct Noticed<R> {
    inner: R,
    activity: Arc<Activity>,
}

impl<R: io::Read> io::Read for Noticed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n > 0 {
            self.activity.touch();
        }
        Ok(n)
    }
}

/// When the relay last read from the server or passed a line on, and whether it
/// is handling one.
struct Activity {
    start: Instant,
    /// Milliseconds after `start` when the last line was passed on.
    last: AtomicU64,
    busy: std::sync::atomic::AtomicBool,
}

impl Activity {
    fn new() -> Activity {
        Activity {
            start: Instant::now(),
            last: AtomicU64::new(0),
            busy: std::sync::atomic::AtomicBool::new(false),
        }
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn begin(&self) {
        self.busy.store(true, Ordering::SeqCst);
    }

    fn end(&self) {
        self.touch();
        self.busy.store(false, Ordering::SeqCst);
    }

    /// Count the quiet from now.
    fn touch(&self) {
        self.last.store(self.now_ms(), Ordering::SeqCst);
    }

    /// Whether no line has been handled for `d`, and none is being handled.
    fn quiet_for(&self, d: Duration) -> bool {
        let idle = self
            .now_ms()
            .saturating_sub(self.last.load(Ordering::SeqCst));
        !self.busy.load(Ordering::SeqCst) && Duration::from_millis(idle) >= d
    }
}

/// [`wait_or_stop`], with the grace before SIGTERM (`grace()`, asked again as
/// answers arrive) counted only while the server writes nothing.
fn stop_when_quiet(
    child: &mut Child,
    activity: &Activity,
    grace: impl Fn() -> Duration,
) -> Result<Option<ExitStatus>, ProxyError> {
    loop {
        if let Some(s) = child.try_wait().map_err(ProxyError::Wait)? {
            return Ok(Some(s));
        }
        if activity.quiet_for(grace()) {
            break;
        }
        thread::sleep(Duration::from_millis(10));
    }
    terminate(child);
    if wait_for(child, SHUTDOWN_GRACE)?.is_some() {
        return Ok(None);
    }
    let _ = child.kill();
    child.wait().map_err(ProxyError::Wait)?;
    Ok(None)
}

/// Wait for the server to exit; past [`SHUTDOWN_GRACE`] send SIGTERM, and past
/// another, kill it. `Some(status)` when it exited by itself.
fn wait_or_stop(child: &mut Child) -> Result<Option<ExitStatus>, ProxyError> {
    if let Some(s) = wait_for(child, SHUTDOWN_GRACE)? {
        return Ok(Some(s));
    }
    terminate(child);
    if wait_for(child, SHUTDOWN_GRACE)?.is_some() {
        return Ok(None);
    }
    let _ = child.kill();
    child.wait().map_err(ProxyError::Wait)?;
    Ok(None)
}

/// SIGTERM, SIGINT and SIGHUP to the proxy: blocked in every thread and taken by a
/// thread of their own, which reports them to the relay loop (it then stops the
/// server before exiting).
#[cfg(unix)]
mod signals {
    use super::Event;
    use std::sync::mpsc::Sender;

    pub(super) fn forward(tx: Sender<Event>) {
        // SAFETY: plain libc calls on a local, initialised signal set.
        let set = unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
                libc::sigaddset(&mut set, sig);
            }
            if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
                return;
            }
            set
        };
        std::thread::spawn(move || {
            loop {
                let mut sig: libc::c_int = 0;
                // SAFETY: `set` is initialised; sigwait writes the signal to `sig`.
                if unsafe { libc::sigwait(&set, &mut sig) } != 0 {
                    return;
                }
                if tx.send(Event::Signal(sig)).is_err() {
                    return;
                }
            }
        });
    }
}

fn wait_for(child: &mut Child, limit: Duration) -> Result<Option<ExitStatus>, ProxyError> {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().map_err(ProxyError::Wait)? {
            return Ok(Some(s));
        }
        if start.elapsed() >= limit {
            return Ok(None);
        }
        thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(unix)]
fn terminate(child: &mut Child) {
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) with a pid of our own child that has not been reaped yet.
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
    }
}

#[cfg(not(unix))]
fn terminate(child: &mut Child) {
    let _ = child.kill();
}

/// The exit code for a server's exit status (128 + the signal for a killed one).
fn exit_code(s: ExitStatus) -> i32 {
    if let Some(c) = s.code() {
        return c;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = s.signal() {
            return 128 + sig;
        }
    }
    1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{MemoryStore, ResultStore};

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
        p.from_client(
            br#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"c2"}}"#,
        );
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
}
