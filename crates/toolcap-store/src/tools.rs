//! The recovery tools as a harness offers them to the model: their JSON-schema
//! definitions (OpenAI or Anthropic form) and one call that serves them locally.
//!
//! ```
//! use std::sync::Arc;
//! use serde_json::json;
//! use toolcap_store::tools::{Dispatch, RecoveryTools};
//! use toolcap_store::{MemoryStore, Record, ResultStore};
//!
//! let store = Arc::new(MemoryStore::new());
//! store.put(&Record::new("d1", "call_1", "bash", &json!({"command": "ls"}), "a\nb\n")).unwrap();
//! let tools = RecoveryTools::new(store, "d1");
//! match tools.dispatch("fetch_tool_output", &json!({"tool_call_id": "call_1"})) {
//!     Dispatch::Handled(reply) => assert_eq!(
//!         reply.text,
//!         r#"{"tool_name": "bash", "tool_args": {"command": "ls"}, "tool_output": "a\nb\n"}"#
//!     ),
//!     Dispatch::NotMine => unreachable!(),
//! }
//! assert_eq!(tools.dispatch("read_file", &json!({})), Dispatch::NotMine);
//! ```

use std::sync::Arc;

use serde_json::Value;

use super::continuation::{self, ChunkOptions, ReplyError, ToolReply};
use super::lines::{self, SearchOptions};
use super::query;
use super::record::Call;
use super::symbols;
use super::{DEFAULT_DIALOG, ResultStore};

mod definitions;

use definitions::sized_definitions;
pub use definitions::{ToolFormat, definitions};

// The recovery tools' names live with the configuration (it keeps them bypassed
// whatever a user's `bypass` says); this is their public path.
#[doc(no_inline)]
pub use crate::config::recovery_tools::{
    FETCH_TOOL_OUTPUT, GET_CONTINUATION, GET_TOOL_RESULT, QUERY_TOOL_OUTPUT, RECOVERY_TOOLS,
    SEARCH_TOOL_OUTPUT,
};

/// Whether a call of `tool` should count toward a harness's iteration cap.
///
/// `get_continuation`, `fetch_tool_output` and `search_tool_output` page through
/// or search a result the model was already given, so they do not count: a 100,000-char result read in 2,000-char
/// chunks must not use up 50 iterations. `get_tool_result` loads a result whole in one
/// call and counts like any tool, as does every tool that is not a recovery tool.
pub fn counts_toward_iteration_cap(tool: &str) -> bool {
    !matches!(
        tool,
        GET_CONTINUATION | FETCH_TOOL_OUTPUT | SEARCH_TOOL_OUTPUT | QUERY_TOOL_OUTPUT
    )
}

/// What [`RecoveryTools::dispatch`] did with a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dispatch {
    /// A recovery tool: this is its result.
    Handled(ToolReply),
    /// Not a recovery tool: the harness runs it as usual.
    NotMine,
}

/// Serves the recovery tools of one dialog from a store, inside a harness's tool loop.
#[derive(Debug, Clone)]
pub struct RecoveryTools {
    store: Arc<dyn ResultStore>,
    dialog_id: String,
    chunk: ChunkOptions,
    reply_chars: usize,
    retention: super::Retention,
}

impl RecoveryTools {
    /// Tools over `store`, for the results of `dialog_id`, with default chunks.
    pub fn new(store: Arc<dyn ResultStore>, dialog_id: impl Into<String>) -> RecoveryTools {
        RecoveryTools {
            store,
            dialog_id: dialog_id.into(),
            chunk: ChunkOptions::default(),
            reply_chars: lines::DEFAULT_REPLY_CHARS,
            retention: super::Retention::default(),
        }
    }

    /// Tools for the [`DEFAULT_DIALOG`].
    pub fn for_default_dialog(store: Arc<dyn ResultStore>) -> RecoveryTools {
        RecoveryTools::new(store, DEFAULT_DIALOG)
    }

    /// How `get_continuation` cuts chunks (default: 2,000 characters, not line-aligned).
    pub fn chunk_options(mut self, chunk: ChunkOptions) -> RecoveryTools {
        self.chunk = chunk;
        self
    }

    /// The most characters a line-range or search reply holds (default
    /// [`lines::DEFAULT_REPLY_CHARS`], never less than a chunk; a `symbol` or
    /// `outline` reply holds at most this, even below a chunk): set it to the
    /// threshold your harness cuts recovery-tool replies at, if it cuts them.
    pub fn reply_chars(mut self, chars: usize) -> RecoveryTools {
        self.reply_chars = chars.max(1);
        self
    }

    /// How long results are kept (default: no limit): a call on a result older
    /// than `keep` expires it first and gets the "expired" reply, even when the
    /// store has not been pruned since the result aged.
    pub fn retention(mut self, retention: super::Retention) -> RecoveryTools {
        self.retention = retention;
        self
    }

    /// The definitions to offer the model (see [`definitions`]).
    pub fn definitions(&self, format: ToolFormat) -> Value {
        sized_definitions(
            format,
            self.chunk.chunk_chars,
            self.reply_chars.max(self.chunk.chunk_chars),
        )
    }

    /// Serve a call of `name` with JSON `args` (an object), or say it is not a
    /// recovery tool. Bad arguments and store failures are `{"error": ...}` replies
    /// the model can read; this never panics.
    pub fn dispatch(&self, name: &str, args: &Value) -> Dispatch {
        if !RECOVERY_TOOLS.contains(&name) {
            return Dispatch::NotMine;
        }
        let reply = self.serve(name, args).unwrap_or_else(|reply| reply);
        record_call(self.store.as_ref(), &self.dialog_id, name, args, &reply);
        Dispatch::Handled(reply)
    }

    /// [`dispatch`](Self::dispatch) with the arguments as JSON text (OpenAI's
    /// `function.arguments`).
    pub fn dispatch_json(&self, name: &str, args_json: &str) -> Dispatch {
        if !RECOVERY_TOOLS.contains(&name) {
            return Dispatch::NotMine;
        }
        let args = if args_json.trim().is_empty() {
            Value::Object(Default::default())
        } else {
            match serde_json::from_str::<Value>(args_json) {
                Ok(v) => v,
                Err(e) => {
                    return Dispatch::Handled(ToolReply::error(&format!(
                        "arguments are not valid JSON ({e}); pass an object like {{\"tool_call_id\": \"call_abc123\"}}"
                    )));
                }
            }
        };
        self.dispatch(name, &args)
    }

    fn serve(&self, name: &str, args: &Value) -> Result<ToolReply, ToolReply> {
        let Some(obj) = args.as_object() else {
            return Err(ToolReply::error(
                "arguments must be a JSON object like {\"tool_call_id\": \"call_abc123\"}",
            ));
        };
        let id = match obj.get("tool_call_id") {
            Some(Value::String(s)) => s.as_str(),
            _ => {
                return Err(ToolReply::error(
                    "missing required argument tool_call_id (a string)",
                ));
            }
        };
        let store = self.store.as_ref();
        let d = self.dialog_id.as_str();
        // a result past the store's `keep` is expired before it is read (its
        // record then answers), not served until the next prune
        if let Some(cutoff) = self.retention.cutoff_ms(super::now_ms())
            && let Ok(Some(meta)) = store.meta(d, id)
            && meta.created_at_ms < cutoff
        {
            let _ = store.expire(&super::Retention {
                keep: self.retention.keep,
                max_bytes: None,
            });
        }
        let failed = |e: super::StoreError| {
            ToolReply::failure(
                ReplyError::StoreFailed,
                &format!("result store failed: {e}"),
            )
        };
        match name {
            GET_CONTINUATION => {
                let offset = count_arg(obj.get("offset"), "offset")?;
                let start_line = count_arg(obj.get("start_line"), "start_line")?;
                let end_line = count_arg(obj.get("end_line"), "end_line")?;
                let symbol = match obj.get("symbol") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) => Some(s.as_str()),
                    Some(v) => {
                        return Err(ToolReply::error(&format!(
                            "symbol must be a string (a definition's name like \"Parser.parse\"), got {v}"
                        )));
                    }
                };
                let outline = flag_arg(obj.get("outline"), "outline")?;
                // (a definition or the outline is not paged by chunks: its
                // reply holds what the harness set, even below a chunk)
                let reply_chars = self.reply_chars;
                if symbol.is_some() || outline {
                    if offset.is_some() || start_line.is_some() || end_line.is_some() {
                        return Err(ToolReply::error(
                            "symbol and outline read by definitions: pass them without offset, start_line or end_line",
                        ));
                    }
                    return match symbol {
                        Some(name) => symbols::get_symbol(store, d, id, name, reply_chars),
                        None => symbols::get_outline(store, d, id, reply_chars),
                    }
                    .map_err(failed);
                }
                match (start_line, offset) {
                    (Some(_), Some(_)) => Err(ToolReply::error(
                        "pass either offset (characters) or start_line (lines), not both",
                    )),
                    (Some(a), None) => lines::get_line_range(
                        store,
                        d,
                        id,
                        a,
                        end_line,
                        self.reply_chars.max(self.chunk.chunk_chars),
                    )
                    .map_err(failed),
                    (None, _) if end_line.is_some() => Err(ToolReply::error(
                        "end_line needs start_line (the first line wanted)",
                    )),
                    (None, _) => continuation::get_continuation(store, d, id, offset, &self.chunk)
                        .map_err(failed),
                }
            }
            SEARCH_TOOL_OUTPUT => {
                let pattern = match obj.get("pattern") {
                    Some(Value::String(p)) => p.as_str(),
                    _ => {
                        return Err(ToolReply::error(
                            "missing required argument pattern (a string: a regular expression)",
                        ));
                    }
                };
                let defaults = SearchOptions::default();
                let ignore_case = flag_arg(obj.get("ignore_case"), "ignore_case")?;
                let from_end = flag_arg(obj.get("from_end"), "from_end")?;
                let max_matches = count_arg(obj.get("max_matches"), "max_matches")?;
                let opts = SearchOptions {
                    context: count_arg(obj.get("context"), "context")?.unwrap_or(defaults.context),
                    max_matches: max_matches.unwrap_or(defaults.max_matches),
                    skip: count_arg(obj.get("skip"), "skip")?.unwrap_or(0),
                    ignore_case,
                    from_end,
                };
                match max_matches {
                    // as many as fit in one reply
                    None => lines::search_within(
                        store,
                        d,
                        id,
                        pattern,
                        &opts,
                        self.reply_chars.max(self.chunk.chunk_chars),
                    ),
                    Some(_) => lines::search_tool_output(store, d, id, pattern, &opts),
                }
                .map_err(failed)
            }
            QUERY_TOOL_OUTPUT => {
                let path = match obj.get("path") {
                    Some(Value::String(p)) => p.as_str(),
                    _ => {
                        return Err(ToolReply::error(
                            "missing required argument path (a string such as \".packages[0].name\")",
                        ));
                    }
                };
                query::query_tool_output(
                    store,
                    d,
                    id,
                    path,
                    self.reply_chars.max(self.chunk.chunk_chars),
                )
                .map_err(failed)
            }
            FETCH_TOOL_OUTPUT => {
                let offset = count_arg(obj.get("offset"), "offset")?;
                let limit = count_arg(obj.get("limit"), "limit")?;
                if limit == Some(0) {
                    return Err(ToolReply::error("limit must be at least 1"));
                }
                continuation::fetch_tool_output(store, d, id, offset, limit).map_err(failed)
            }
            _ => continuation::get_tool_result(store, d, id).map_err(failed),
        }
    }
}

/// Add a recovery call (`tool` with `args`, answered by `reply` in `dialog_id`) to
/// the store's record ([`super::record`]): what [`RecoveryTools::dispatch`] does
/// after each call, for a front end that serves the recovery tools by calling
/// [`continuation`] and [`lines`] itself (as `toolcap continue` does). A call that
/// names no tool call id is not recorded; a store that cannot record is logged
/// (`tracing`, target `toolcap::record`) and the reply stands.
pub fn record_call(
    store: &dyn ResultStore,
    dialog_id: &str,
    tool: &str,
    args: &Value,
    reply: &ToolReply,
) {
    let Some(id) = args.get("tool_call_id").and_then(Value::as_str) else {
        return;
    };
    let meta = match reply.error {
        // (nothing to look up)
        Some(ReplyError::NotStored) => None,
        _ => store.meta(dialog_id, id).ok().flatten(),
    };
    let Some(call) = Call::new(dialog_id, tool, args, reply, meta.as_ref()) else {
        return;
    };
    if let Err(e) = store.record_call(&call) {
        tracing::warn!(target: "toolcap::record", error = %e, tool, "recovery call not recorded");
    }
}

/// A true/false argument: absent or null is false.
fn flag_arg(v: Option<&Value>, name: &str) -> Result<bool, ToolReply> {
    match v {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(v) => Err(ToolReply::error(&format!(
            "{name} must be true or false, got {v}"
        ))),
    }
}

/// An optional non-negative integer argument; models sometimes send `"2000"`.
fn count_arg(v: Option<&Value>, name: &str) -> Result<Option<usize>, ToolReply> {
    let bad = |v: &Value| {
        ToolReply::error(&format!(
            "{name} must be a non-negative integer, got {}",
            continuation::json_text(v)
        ))
    };
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| bad(&Value::Number(n.clone()))),
        Some(Value::String(s)) => s
            .trim()
            .parse::<usize>()
            .map(Some)
            .map_err(|_| bad(&Value::String(s.clone()))),
        Some(other) => Err(bad(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MemoryStore, Record};
    use serde_json::json;

    fn tools() -> RecoveryTools {
        let store = Arc::new(MemoryStore::new());
        let out = "x".repeat(2500);
        store
            .put(&Record::new(
                "d1",
                "call_1",
                "bash",
                &json!({"command": "yes"}),
                &out,
            ))
            .unwrap();
        RecoveryTools::new(store, "d1")
    }

    #[test]
    fn dispatch_serves_recovery_tools_and_declines_others() {
        let t = tools();
        let Dispatch::Handled(r) = t.dispatch_json(
            "get_continuation",
            r#"{"tool_call_id": "call_1", "offset": "2000"}"#,
        ) else {
            panic!("get_continuation not served");
        };
        assert_eq!(r.text, "x".repeat(500));
        assert_eq!(t.dispatch_json("bash", "{}"), Dispatch::NotMine);
        assert_eq!(
            t.dispatch(
                "get_continuation",
                &json!({"tool_call_id": "call_1", "offset": -1})
            ),
            Dispatch::Handled(ToolReply::error(
                "offset must be a non-negative integer, got -1"
            ))
        );
        assert_eq!(
            t.dispatch_json("get_tool_result", "{not json"),
            Dispatch::Handled(ToolReply::error(
                "arguments are not valid JSON (key must be a string at line 1 column 2); pass an object like {\"tool_call_id\": \"call_abc123\"}"
            ))
        );
        // another dialog's results are not there
        let other = RecoveryTools::new(t.store.clone(), "d2");
        assert_eq!(
            other.dispatch("get_tool_result", &json!({"tool_call_id": "call_1"})),
            Dispatch::Handled(ToolReply::failure(
                ReplyError::NotStored,
                "No cached result for tool_call_id 'call_1'"
            ))
        );
    }

    #[test]
    fn paging_tools_do_not_count_toward_the_cap() {
        assert!(!counts_toward_iteration_cap("get_continuation"));
        assert!(!counts_toward_iteration_cap("fetch_tool_output"));
        assert!(counts_toward_iteration_cap("get_tool_result"));
        assert!(counts_toward_iteration_cap("bash"));
    }
}
