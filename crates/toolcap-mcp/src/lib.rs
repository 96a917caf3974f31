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

#![warn(missing_docs)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{Map, Value, json};

use toolcap_config::Config;
use toolcap_config::Suggest;
use toolcap_core::ToolResultProcessor;
use toolcap_store::continuation::ChunkOptions;
use toolcap_store::tools::{
    Dispatch, FETCH_TOOL_OUTPUT, GET_CONTINUATION, QUERY_TOOL_OUTPUT, RecoveryTools,
    SEARCH_TOOL_OUTPUT, ToolFormat, definitions,
};
use toolcap_store::{ResultStore, SaveWhen};

mod process;
mod recovery;
mod results;

pub use self::process::{ProxyError, run};
pub use self::recovery::{PROTOCOL_VERSIONS, serve_recovery};

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
fn call_context(params: Option<&Value>) -> toolcap_core::bind::Context {
    let meta = params.and_then(|p| p.get("_meta"));
    let num = |k: &str| {
        meta.and_then(|m| m.get(k))
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
    };
    toolcap_core::bind::Context {
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
        context: toolcap_core::bind::Context,
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
    context: toolcap_core::bind::Context,
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
        let retention = config.store;
        Proxy {
            processor: std::sync::RwLock::new(
                ToolResultProcessor::new(config).with_store(store.clone(), SaveWhen::Cut),
            ),
            listed: Mutex::new(Vec::new()),
            size_hints: Mutex::new(HashMap::new()),
            context: toolcap_core::bind::Context::default(),
            recovery: RecoveryTools::new(store, dialog.clone())
                .chunk_options(chunk)
                .retention(toolcap_store::Retention::of(&retention)),
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
    pub fn context(mut self, context: toolcap_core::bind::Context) -> Proxy {
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
        self.processor
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The suggestion tools in use: picked from the server's listed tools.
    pub fn suggest(&self) -> Suggest {
        self.processor().config().suggest.clone()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        self.pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
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
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
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
                    return Some(self.answer_recovery(id, name, &args, &call_context(params)));
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

    /// A recovery tool's reply, within the budget the call's `_meta` (else
    /// the proxy's own context) leaves a result: a suggested read costs the
    /// context the result it recovers did.
    fn answer_recovery(
        &self,
        id: &Value,
        name: &str,
        args: &Value,
        context: &toolcap_core::bind::Context,
    ) -> Value {
        let context = toolcap_core::bind::Context {
            left: context.left.or(self.context.left),
            limit: context.limit.or(self.context.limit),
            used: context.used.or(self.context.used),
            model: context.model.clone().or_else(|| self.context.model.clone()),
        };
        let full = toolcap_store::lines::DEFAULT_REPLY_CHARS;
        let within = {
            let p = self.processor();
            let c = p.config();
            c.budget
                .apply(full, c.max_kept_chars, false, &context.window())
                .threshold
        };
        let lowered;
        let recovery = if within < full {
            lowered = self.recovery.clone().reply_chars(within);
            &lowered
        } else {
            &self.recovery
        };
        let reply = match recovery.dispatch(name, args) {
            Dispatch::Handled(r) => r,
            // PROXY_TOOLS are recovery tools: dispatch always handles them
            Dispatch::NotMine => toolcap_store::continuation::ToolReply::error(&format!(
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
        let held = std::mem::take(
            &mut *self
                .held
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
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

/// Eight hex digits telling this proxy run's ids from another's in a shared store.
fn session_tag() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    // splitmix64 of the time and the process id
    let mut x = nanos ^ (u64::from(std::process::id()) << 32);
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^= x >> 31;
    format!("{:08x}", x & 0xFFFF_FFFF)
}

#[cfg(test)]
mod tests;
