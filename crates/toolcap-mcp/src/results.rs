//! Rewriting what the server sends: a `tools/call` result capped (its text
//! contents and the same strings in `structuredContent`), and a `tools/list` page
//! with the recovery tools added and size hints set.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use super::{
    ANSWERED_KEPT, CLIENT_DEFAULT_RESULT_CHARS, CLIENT_MAX_RESULT_CHARS, MAX_RESULT_SIZE_KEY,
    PROXY_TOOLS, Pending, Proxy, id_key, size_hint,
};
use toolcap_config::Suggest;
use toolcap_core::ToolCall;

impl Proxy {
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
    pub(super) fn join_held(&self, items: &mut Vec<Value>) -> bool {
        let keys: Vec<String> = items
            .iter()
            .filter(|m| m.get("method").is_none())
            .filter_map(|m| m.get("id"))
            .map(id_key)
            .collect();
        let mut held = self
            .held
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
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
    pub(super) fn server_message(&self, msg: &mut Value) -> bool {
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
                let mut answered = self
                    .answered
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
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
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
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
    /// Note the tools of a `tools/list` page (the first page starts afresh) and
    /// pick the suggestion tools from all listed so far.
    pub(super) fn note_tools(&self, result: &Value, first_page: bool) {
        let Some(tools) = result.get("tools").and_then(Value::as_array) else {
            return;
        };
        let mut listed = self
            .listed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut hints = self
            .size_hints
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
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
        let mut p = self
            .processor
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if p.config().suggest != suggest {
            let mut config = p.config().clone();
            config.suggest = suggest;
            *p = p.clone().with_config(config);
        }
    }

    /// Add the recovery tools to a `tools/list` result (replacing server tools of the
    /// same names, which the proxy answers instead).
    pub(super) fn add_tools(&self, result: &mut Value) -> bool {
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
    pub(super) fn annotate_sizes(&self, result: &mut Value) -> bool {
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
            if entry.unit != toolcap_config::Unit::Chars {
                continue;
            }
            let declared = size_hint(t.get("_meta"));
            let ctx = toolcap_config::ContextWindow {
                max_result_chars: declared,
                ..toolcap_config::ContextWindow::default()
            };
            let b = config
                .budget
                .apply(entry.threshold, entry.max_kept, false, &ctx);
            // the most a result of the tool can be once toolcap is done with it
            let view = b
                .threshold
                .max(toolcap_cut::bounds::max_output_chars(b.max_kept));
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
        self.cap_call(name, args, &toolcap_core::bind::Context::default(), result)
    }

    /// [`Self::cap_result`] for a call whose `_meta` said `context` of the
    /// model's context (each figure given replaces the proxy's own), with the
    /// size hint of the result's `_meta`, else of the tool's listing.
    pub fn cap_call(
        &self,
        name: &str,
        args: &Value,
        context: &toolcap_core::bind::Context,
        result: &mut Value,
    ) -> bool {
        let hint = size_hint(result.get("_meta")).or_else(|| {
            self.size_hints
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .get(name)
                .copied()
        });
        let context = toolcap_core::bind::Context {
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
            call.context = toolcap_config::ContextWindow {
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
}

/// Swap every string in `v` equal to an original text for its capped form.
pub(super) fn replace_strings(v: &mut Value, swapped: &[(String, String)]) {
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
