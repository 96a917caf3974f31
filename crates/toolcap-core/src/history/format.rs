//! The three message formats: where a tool call, a tool result and the model's
//! own words sit in each, read into one neutral view and written back.
//!
//! - OpenAI Chat Completions: an `assistant` message's `tool_calls[]`
//!   (`id`, `function.name`, `function.arguments` as JSON text) answered by
//!   `{"role": "tool", "tool_call_id", "content"}` messages.
//! - OpenAI Responses: `{"type": "function_call", "call_id", "name",
//!   "arguments"}` items answered by `{"type": "function_call_output",
//!   "call_id", "output"}` items.
//! - Anthropic Messages: `{"type": "tool_use", "id", "name", "input"}` blocks
//!   of an `assistant` message answered by `{"type": "tool_result",
//!   "tool_use_id", "content", "is_error"}` blocks of a `user` message.

use std::collections::HashMap;
use std::str::FromStr;

use serde_json::{Map, Value};

use super::HistoryError;

/// A message format.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, strum::IntoStaticStr, strum::Display,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Format {
    /// OpenAI Chat Completions: `role: "tool"` messages answer `tool_calls`.
    OpenaiChat,
    /// OpenAI Responses: `function_call_output` items answer `function_call` items.
    OpenaiResponses,
    /// Anthropic Messages: `tool_result` blocks answer `tool_use` blocks.
    Anthropic,
}

impl Format {
    /// The name `FromStr` reads and the report writes: `openai_chat`,
    /// `openai_responses`, `anthropic`.
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The format of `messages`, read from the first tool traffic found: a
    /// `function_call` / `function_call_output` item (Responses), a `tool`
    /// message or `tool_calls` (Chat), a `tool_use` / `tool_result` block
    /// (Anthropic). `None` when no message holds a tool call or result.
    pub fn detect(messages: &[Value]) -> Option<Format> {
        messages.iter().find_map(|m| {
            if let Some("function_call" | "function_call_output") =
                m.get("type").and_then(Value::as_str)
            {
                return Some(Format::OpenaiResponses);
            }
            if m.get("role").and_then(Value::as_str) == Some("tool")
                || m.get("tool_calls").is_some_and(Value::is_array)
            {
                return Some(Format::OpenaiChat);
            }
            let blocks = m.get("content").and_then(Value::as_array)?;
            blocks
                .iter()
                .any(|b| {
                    matches!(
                        b.get("type").and_then(Value::as_str),
                        Some("tool_use" | "tool_result")
                    )
                })
                .then_some(Format::Anthropic)
        })
    }
}

impl FromStr for Format {
    type Err = HistoryError;

    /// `openai_chat` (or `openai`, `chat`), `openai_responses` (or
    /// `responses`), `anthropic`.
    fn from_str(s: &str) -> Result<Format, HistoryError> {
        match s.trim().to_ascii_lowercase().replace('-', "_").as_str() {
            "openai_chat" | "openai" | "chat" => Ok(Format::OpenaiChat),
            "openai_responses" | "responses" => Ok(Format::OpenaiResponses),
            "anthropic" | "anthropic_messages" => Ok(Format::Anthropic),
            _ => Err(HistoryError::Policy(format!(
                "unknown message format {s:?}: use openai_chat, openai_responses or anthropic"
            ))),
        }
    }
}

/// One tool result in the history.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    /// The message (or Responses item) holding it.
    pub msg: usize,
    /// Its block in the message's content (Anthropic).
    pub block: Option<usize>,
    /// The tool call id it answers.
    pub id: String,
    /// Its text (text parts joined by a line end), or `None` when it holds
    /// anything else (an image): such a result is never masked.
    pub text: Option<String>,
    /// Marked as an error by the format (Anthropic's `is_error`).
    pub error_flag: bool,
}

/// A tool call as the model made it.
#[derive(Debug, Clone)]
pub(super) struct Call {
    pub name: String,
    pub args: Value,
}

/// The history read in one format.
#[derive(Debug, Default)]
pub(super) struct Parsed {
    /// The tool results in order.
    pub results: Vec<Entry>,
    /// The calls by id.
    pub calls: HashMap<String, Call>,
    /// Per message: what the model said in it (text and call arguments), when
    /// the model wrote it; `None` for every other message.
    pub said: Vec<Option<String>>,
}

/// The text of a list of content parts, when every part is text.
fn parts_text(parts: &[Value]) -> Option<String> {
    let mut texts = Vec::with_capacity(parts.len());
    for p in parts {
        match p {
            Value::String(s) => texts.push(s.as_str()),
            Value::Object(o) => match o.get("text").and_then(Value::as_str) {
                Some(t) => texts.push(t),
                None => return None,
            },
            _ => return None,
        }
    }
    Some(texts.join("\n"))
}

/// A result's content as text (`null` or absent is the empty text).
fn content_text(content: Option<&Value>) -> Option<String> {
    match content {
        None | Some(Value::Null) => Some(String::new()),
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Array(parts)) => parts_text(parts),
        Some(_) => None,
    }
}

/// Arguments given as JSON text, parsed (kept as the text when they are not JSON).
fn args_of(v: Option<&Value>) -> Value {
    match v {
        Some(Value::String(s)) => {
            serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
        }
        Some(v) => v.clone(),
        None => Value::Null,
    }
}

/// Arguments as the text the model wrote.
fn args_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => String::new(),
    }
}

fn push_said(said: &mut String, text: &str) {
    if !text.is_empty() {
        if !said.is_empty() {
            said.push('\n');
        }
        said.push_str(text);
    }
}

/// Read `messages` as `format`. A message that is not a JSON object is an error.
pub(super) fn parse(messages: &[Value], format: Format) -> Result<Parsed, HistoryError> {
    let mut p = Parsed {
        said: vec![None; messages.len()],
        ..Parsed::default()
    };
    for (i, m) in messages.iter().enumerate() {
        let Some(obj) = m.as_object() else {
            return Err(HistoryError::Message {
                index: i,
                problem: "is not a JSON object".into(),
            });
        };
        match format {
            Format::OpenaiChat => parse_chat(&mut p, i, obj),
            Format::OpenaiResponses => parse_responses(&mut p, i, obj),
            Format::Anthropic => parse_anthropic(&mut p, i, obj),
        }
    }
    let mut seen = HashMap::new();
    for (n, e) in p.results.iter().enumerate() {
        if let Some(first) = seen.insert(e.id.as_str(), n) {
            return Err(HistoryError::Message {
                index: e.msg,
                problem: format!(
                    "answers tool call id {:?} a second time (first in message {})",
                    e.id, p.results[first].msg
                ),
            });
        }
    }
    Ok(p)
}

fn role(obj: &Map<String, Value>) -> Option<&str> {
    obj.get("role").and_then(Value::as_str)
}

fn parse_chat(p: &mut Parsed, i: usize, obj: &Map<String, Value>) {
    match role(obj) {
        Some("assistant") => {
            let mut said = String::new();
            if let Some(t) = content_text(obj.get("content")) {
                push_said(&mut said, &t);
            }
            for c in obj
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let f = c.get("function");
                let name = f
                    .and_then(|f| f.get("name"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let raw = f.and_then(|f| f.get("arguments"));
                push_said(&mut said, &args_text(raw));
                if let Some(id) = c.get("id").and_then(Value::as_str) {
                    p.calls.insert(
                        id.to_string(),
                        Call {
                            name: name.to_string(),
                            args: args_of(raw),
                        },
                    );
                }
            }
            p.said[i] = Some(said);
        }
        Some("tool") => {
            if let Some(id) = obj.get("tool_call_id").and_then(Value::as_str) {
                p.results.push(Entry {
                    msg: i,
                    block: None,
                    id: id.to_string(),
                    text: content_text(obj.get("content")),
                    error_flag: false,
                });
            }
        }
        _ => {}
    }
}

fn parse_responses(p: &mut Parsed, i: usize, obj: &Map<String, Value>) {
    match obj.get("type").and_then(Value::as_str) {
        Some("function_call") => {
            let raw = obj.get("arguments");
            p.said[i] = Some(args_text(raw));
            if let Some(id) = obj.get("call_id").and_then(Value::as_str) {
                let name = obj.get("name").and_then(Value::as_str).unwrap_or("");
                p.calls.insert(
                    id.to_string(),
                    Call {
                        name: name.to_string(),
                        args: args_of(raw),
                    },
                );
            }
        }
        Some("function_call_output") => {
            if let Some(id) = obj.get("call_id").and_then(Value::as_str) {
                p.results.push(Entry {
                    msg: i,
                    block: None,
                    id: id.to_string(),
                    text: content_text(obj.get("output")),
                    error_flag: false,
                });
            }
        }
        // the model's reasoning is its own too: it keeps the turn together
        Some("reasoning") => p.said[i] = Some(String::new()),
        Some("message") | None if role(obj) == Some("assistant") => {
            p.said[i] = Some(content_text(obj.get("content")).unwrap_or_default());
        }
        _ => {}
    }
}

fn parse_anthropic(p: &mut Parsed, i: usize, obj: &Map<String, Value>) {
    let content = obj.get("content");
    match role(obj) {
        Some("assistant") => {
            let mut said = String::new();
            match content {
                Some(Value::String(s)) => push_said(&mut said, s),
                Some(Value::Array(blocks)) => {
                    for b in blocks {
                        match b.get("type").and_then(Value::as_str) {
                            Some("text") => {
                                push_said(
                                    &mut said,
                                    b.get("text").and_then(Value::as_str).unwrap_or(""),
                                );
                            }
                            Some("tool_use") => {
                                let input = b.get("input").cloned().unwrap_or(Value::Null);
                                push_said(&mut said, &input.to_string());
                                if let Some(id) = b.get("id").and_then(Value::as_str) {
                                    let name = b.get("name").and_then(Value::as_str).unwrap_or("");
                                    p.calls.insert(
                                        id.to_string(),
                                        Call {
                                            name: name.to_string(),
                                            args: input,
                                        },
                                    );
                                }
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
            p.said[i] = Some(said);
        }
        Some("user") => {
            for (j, b) in content
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                if b.get("type").and_then(Value::as_str) == Some("tool_result")
                    && let Some(id) = b.get("tool_use_id").and_then(Value::as_str)
                {
                    p.results.push(Entry {
                        msg: i,
                        block: Some(j),
                        id: id.to_string(),
                        text: content_text(b.get("content")),
                        error_flag: b.get("is_error").and_then(Value::as_bool) == Some(true),
                    });
                }
            }
        }
        _ => {}
    }
}

/// Put `text` in place of the result `e` in `messages` (read as `format`).
pub(super) fn replace(messages: &mut [Value], format: Format, e: &Entry, text: String) {
    let Some(m) = messages.get_mut(e.msg) else {
        return;
    };
    let slot = match (format, e.block) {
        (Format::Anthropic, Some(j)) => m
            .get_mut("content")
            .and_then(Value::as_array_mut)
            .and_then(|blocks| blocks.get_mut(j))
            .and_then(Value::as_object_mut)
            .map(|b| (b, "content")),
        (Format::OpenaiChat, _) => m.as_object_mut().map(|o| (o, "content")),
        (Format::OpenaiResponses, _) => m.as_object_mut().map(|o| (o, "output")),
        (Format::Anthropic, None) => None,
    };
    if let Some((obj, key)) = slot {
        obj.insert(key.to_string(), Value::String(text));
    }
}
