//! The history policy: old tool results masked, in batches that keep the
//! prompt cache.
//!
//! [`prepare_messages`] takes a conversation in any of three formats (OpenAI
//! Chat Completions, OpenAI Responses, Anthropic Messages; see [`Format`]) and
//! a [`Policy`], and returns the messages to send: the newest results as they
//! are, older ones replaced by one line that says what they were, their exact
//! size, and the call that reads them back from the store:
//!
//! ```text
//! [result of read_file src/x.rs (tool_call_id "call_12", 48,210 chars, 1,203 lines) masked — get_continuation(tool_call_id="call_12", offset=0)  # read it again from the start]
//! ```
//!
//! Only the content of a result changes: no message is added, dropped or
//! moved, so every tool call keeps its result and the format stays valid.
//!
//! # Cache friendly by construction
//!
//! A provider's prompt cache serves the longest unchanged message prefix.
//! Masking a result changes the prefix from that result on, so masking one
//! result per turn would re-send everything after it on every turn. Here a
//! result becomes *prunable* once the model has answered it and it has left
//! the kept window ([`Keep`]: the newest N results or N tokens), and prunable
//! results are masked in *batches*: only when those not yet masked reach
//! [`Policy::min_prunable_tokens`] (the scheme of Gemini CLI's tool output
//! masking, 50,000 tokens kept and 30,000 prunable by default). The batches
//! are computed from the history alone, so:
//!
//! - a batch, once closed, stays the same however the history grows: the
//!   masked set (and the prefix) changes only when a new batch closes;
//! - the same input gives byte-identical output, and the output given back
//!   (with new messages after it) gives the same output as the original
//!   history would: a harness may keep either.
//!
//! # Never masked
//!
//! Errors (Anthropic's `is_error`, or a text starting like an error: see
//! [`looks_like_error`]), the ids listed in [`Policy::protect_ids`], results
//! shorter than [`Policy::min_result_chars`], results holding more than text
//! (an image), results the model has not answered yet, and — when the batch
//! closes — the results the model's latest turn refers to (by their tool call
//! id, or by quoting the path, file name, URL, command or pattern they were
//! called with): those are carried into the next batch and judged again when
//! it closes. A result masked earlier stays masked when the model mentions it
//! later (its line says how to read it again; unmasking would break the cache).
//!
//! Tokens are estimated as characters / 4 (rounded up), as Gemini CLI, opencode
//! and LangChain estimate them; the sizes written in a line are exact.
//!
//! The reverse direction — putting the full content back in place of a stored
//! reference — is [`crate::store::continuation::prepare_messages`].

mod format;
mod plan;
mod reference;

use serde_json::Value;

use crate::config::Config;
use crate::cut::index::Totals;
use crate::store::{Meta, Record, ResultStore, StoreError, validate_id};
use crate::text::static_regex;

pub use format::Format;

use format::{Entry, Parsed};
use plan::Item;
use reference::Back;

/// Default [`Keep`]: the newest 50,000 tokens of tool results (Gemini CLI's
/// protection threshold).
pub const DEFAULT_KEEP_TOKENS: usize = 50_000;

/// Default [`Policy::min_prunable_tokens`]: 30,000 (Gemini CLI's).
pub const DEFAULT_MIN_PRUNABLE_TOKENS: usize = 30_000;

/// Default [`Policy::min_result_chars`]: shorter results are never masked
/// (their masked line would save little).
pub const DEFAULT_MIN_RESULT_CHARS: usize = 400;

/// Tokens of a text of `chars` characters, as the policy estimates them:
/// `ceil(chars / 4)`.
pub fn estimate_tokens(chars: usize) -> usize {
    chars.div_ceil(4)
}

/// Which of the newest results are kept as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// The newest N results.
    Results(usize),
    /// The newest results holding at most N tokens together (a result that
    /// takes the sum past N, and all older ones, may be masked).
    Tokens(usize),
}

/// What [`prepare_messages`] keeps and masks. `Policy::default()` is Gemini
/// CLI's scheme: the newest 50,000 tokens kept, batches of at least 30,000
/// tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// The newest results kept as they are. Default:
    /// `Keep::Tokens(DEFAULT_KEEP_TOKENS)`.
    pub keep: Keep,
    /// Mask only when the prunable results not masked yet hold at least this
    /// many tokens (0: mask every prunable result at once, on every turn).
    /// Default: [`DEFAULT_MIN_PRUNABLE_TOKENS`].
    pub min_prunable_tokens: usize,
    /// Results shorter than this (in chars) are never masked. Default:
    /// [`DEFAULT_MIN_RESULT_CHARS`].
    pub min_result_chars: usize,
    /// Never mask an error. Default: true.
    pub protect_errors: bool,
    /// Keep the results the model's latest turn refers to when their batch
    /// closes. Default: true.
    pub protect_referenced: bool,
    /// Never mask these tool call ids. Default: none.
    pub protect_ids: Vec<String>,
    /// The message format; `None` (the default) detects it.
    pub format: Option<Format>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            keep: Keep::Tokens(DEFAULT_KEEP_TOKENS),
            min_prunable_tokens: DEFAULT_MIN_PRUNABLE_TOKENS,
            min_result_chars: DEFAULT_MIN_RESULT_CHARS,
            protect_errors: true,
            protect_referenced: true,
            protect_ids: Vec::new(),
            format: None,
        }
    }
}

/// A policy as the bindings and the CLI take it: a JSON object whose keys
/// (all optional) are `keep_results` or `keep_tokens` (not both),
/// `min_prunable_tokens`, `min_result_chars`, `protect_errors`,
/// `protect_referenced`, `protect_ids` and `format`.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicySpec {
    keep_results: Option<usize>,
    keep_tokens: Option<usize>,
    min_prunable_tokens: Option<usize>,
    min_result_chars: Option<usize>,
    protect_errors: Option<bool>,
    protect_referenced: Option<bool>,
    protect_ids: Option<Vec<String>>,
    format: Option<String>,
}

impl Policy {
    /// The policy a JSON object describes (keys as in [`Policy`], with the kept
    /// window as `keep_results` or `keep_tokens`); missing keys keep their
    /// defaults. `null` is the default policy.
    pub fn from_json(v: &Value) -> Result<Policy, HistoryError> {
        if v.is_null() {
            return Ok(Policy::default());
        }
        let spec: PolicySpec = serde_json::from_value(v.clone())
            .map_err(|e| HistoryError::Policy(format!("{e}; the keys are keep_results or keep_tokens, min_prunable_tokens, min_result_chars, protect_errors, protect_referenced, protect_ids, format")))?;
        let d = Policy::default();
        let keep = match (spec.keep_results, spec.keep_tokens) {
            (Some(_), Some(_)) => {
                return Err(HistoryError::Policy(
                    "keep_results and keep_tokens both given: keep one".into(),
                ));
            }
            (Some(n), None) => Keep::Results(n),
            (None, Some(n)) => Keep::Tokens(n),
            (None, None) => d.keep,
        };
        Ok(Policy {
            keep,
            min_prunable_tokens: spec.min_prunable_tokens.unwrap_or(d.min_prunable_tokens),
            min_result_chars: spec.min_result_chars.unwrap_or(d.min_result_chars),
            protect_errors: spec.protect_errors.unwrap_or(d.protect_errors),
            protect_referenced: spec.protect_referenced.unwrap_or(d.protect_referenced),
            protect_ids: spec.protect_ids.unwrap_or_default(),
            format: spec.format.as_deref().map(str::parse).transpose()?,
        })
    }
}

/// Where masked results are kept: the store and dialog they are read back
/// from, and the configuration whose `[suggest]` section names the recovery
/// call. A result masked but not stored yet is put there first (its text as the
/// model saw it), so every masked line can be followed.
#[derive(Clone, Copy)]
pub struct Recall<'a> {
    /// The store.
    pub store: &'a dyn ResultStore,
    /// The dialog the results belong to.
    pub dialog: &'a str,
    /// The configuration (the form of the recovery call).
    pub config: &'a Config,
}

/// Why a history could not be prepared.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HistoryError {
    /// A message is not what its format allows.
    #[error("message {index} {problem}")]
    Message {
        /// Its index (0-based) in the list.
        index: usize,
        /// What is wrong with it.
        problem: String,
    },
    /// The policy is not valid (the text names the key and the fix).
    #[error("history policy: {0}")]
    Policy(String),
    /// The store failed while keeping a masked result.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The prepared messages and what was done to them.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Prepared {
    /// The messages to send.
    pub messages: Vec<Value>,
    /// Their format (`None`: no tool traffic; the messages are unchanged).
    pub format: Option<Format>,
    /// The tool call ids whose results are masked in `messages`, in order.
    pub masked: Vec<String>,
    /// Those masked by this call (the rest came in masked).
    pub newly_masked: Vec<String>,
    /// Batches closed over the whole history.
    pub batches: usize,
    /// Estimated tokens prunable but not masked yet (the open batch).
    pub pending_tokens: usize,
    /// Estimated tokens of the tool results in `messages`.
    pub tool_tokens: usize,
    /// Estimated tokens of the tool results had none been masked.
    pub tool_tokens_unmasked: usize,
}

/// Whether a result's text starts like an error: its first non-blank line
/// begins with `error`, `Error:`, `ERROR`, `fatal:`, `Traceback (most recent
/// call last)` or `{"error"` (toolcap's own error replies).
pub fn looks_like_error(text: &str) -> bool {
    static ERR: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        static_regex(
            r#"^(?:(?i:error)\b|ERROR|fatal:|Traceback \(most recent call last\)|\{\s*"error")"#,
        )
    });
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    ERR.is_match(first.trim_start())
}

/// Mask old tool results of `messages` as `policy` says (see the module docs).
/// Without a store the masked lines say the result was not kept (call
/// [`prepare_messages_with`] to keep them recoverable).
pub fn prepare_messages(messages: &[Value], policy: &Policy) -> Result<Prepared, HistoryError> {
    prepare(messages, policy, None)
}

/// [`prepare_messages`], with masked results kept in (and read back from) a
/// store.
pub fn prepare_messages_with(
    messages: &[Value],
    policy: &Policy,
    recall: &Recall<'_>,
) -> Result<Prepared, HistoryError> {
    prepare(messages, policy, Some(recall))
}

fn prepare(
    messages: &[Value],
    policy: &Policy,
    recall: Option<&Recall<'_>>,
) -> Result<Prepared, HistoryError> {
    let Some(fmt) = policy.format.or_else(|| Format::detect(messages)) else {
        return Ok(Prepared {
            messages: messages.to_vec(),
            format: None,
            masked: Vec::new(),
            newly_masked: Vec::new(),
            batches: 0,
            pending_tokens: 0,
            tool_tokens: 0,
            tool_tokens_unmasked: 0,
        });
    };
    let parsed = format::parse(messages, fmt)?;
    // (each result's chars are counted once: the plan's tokens and the report's)
    let (items, chars): (Vec<Item>, Vec<usize>) = parsed
        .results
        .iter()
        .map(|e| item(e, policy, recall.is_some()))
        .unzip();
    let assistant: Vec<bool> = parsed.said.iter().map(Option::is_some).collect();
    let refers = |turn_end: usize, x: usize| {
        policy.protect_referenced && refers_to(&parsed, turn_end, &parsed.results[x])
    };
    let p = plan::plan(
        &items,
        messages.len(),
        &assistant,
        policy.keep,
        policy.min_prunable_tokens,
        &refers,
    );
    let mut out = messages.to_vec();
    let mut masked = Vec::new();
    let mut newly_masked = Vec::new();
    let mut tool_tokens = 0;
    for (x, e) in parsed.results.iter().enumerate() {
        let text = e.text.as_deref().unwrap_or("");
        if !p.mask[x] || items[x].masked {
            if items[x].masked {
                masked.push(e.id.clone());
            }
            tool_tokens += estimate_tokens(chars[x]);
            continue;
        }
        let line = masked_line(&parsed, e, text, recall)?;
        tool_tokens += estimate_tokens(crate::text::count_chars(&line));
        format::replace(&mut out, fmt, e, line);
        masked.push(e.id.clone());
        newly_masked.push(e.id.clone());
    }
    Ok(Prepared {
        messages: out,
        format: Some(fmt),
        masked,
        newly_masked,
        batches: p.batches,
        pending_tokens: p.pending_tokens,
        tool_tokens,
        tool_tokens_unmasked: plan::total_tokens(&items),
    })
}

/// A result as the plan sees it, and the chars of its text.
fn item(e: &Entry, policy: &Policy, stored: bool) -> (Item, usize) {
    let text = e.text.as_deref();
    let already = text.and_then(reference::recognise).filter(|m| m.id == e.id);
    // (core's optimised count: fast in debug builds too)
    let text_chars = text.map_or(0, |t| t.chars().count());
    let chars = already.as_ref().map_or(text_chars, |m| m.chars);
    let error = already.is_none()
        && (e.error_flag || text.is_some_and(looks_like_error))
        && policy.protect_errors;
    let eligible = text.is_some()
        && !error
        && chars >= policy.min_result_chars
        && !policy.protect_ids.contains(&e.id)
        && (!stored || validate_id("tool_call_id", &e.id).is_ok());
    let item = Item {
        msg: e.msg,
        tokens: plan::tokens_of(chars),
        eligible,
        masked: already.is_some(),
    };
    (item, text_chars)
}

/// Whether the model's turn ending at message `turn_end` refers to the result
/// `e`: its words (text and call arguments) hold the tool call id, or the
/// subject the result was called with (a path, its file name, a URL, a command,
/// a pattern).
fn refers_to(parsed: &Parsed, turn_end: usize, e: &Entry) -> bool {
    let mut words = String::new();
    let mut i = turn_end + 1;
    while i > 0 {
        i -= 1;
        match &parsed.said[i] {
            Some(s) => {
                words.push_str(s);
                words.push('\n');
            }
            None => break,
        }
    }
    if e.id.chars().count() >= 6 && words.contains(e.id.as_str()) {
        return true;
    }
    let Some(subject) = parsed
        .calls
        .get(&e.id)
        .and_then(|c| reference::subject(&c.args))
    else {
        return false;
    };
    let subject = subject.trim();
    if subject.chars().count() >= 3 && words.contains(subject) {
        return true;
    }
    let base = subject.rsplit(['/', '\\']).next().unwrap_or("");
    base != subject && base.contains('.') && base.chars().count() >= 4 && words.contains(base)
}

/// The masked line of `e` (text `text`), keeping the result in the store first
/// when there is one and it does not hold it yet.
fn masked_line(
    parsed: &Parsed,
    e: &Entry,
    text: &str,
    recall: Option<&Recall<'_>>,
) -> Result<String, HistoryError> {
    let (tool, args) = match parsed.calls.get(&e.id) {
        Some(c) => (c.name.as_str(), c.args.clone()),
        None => ("", Value::Null),
    };
    let size = Totals::of(text);
    let Some(r) = recall else {
        return Ok(reference::render(tool, &args, &e.id, size, &Back::NotKept));
    };
    let full = match r.store.meta(r.dialog, &e.id)? {
        Some(meta) => meta.size,
        None => {
            let meta = Meta::new(r.dialog, &e.id, tool, &args, text);
            r.store.put(&Record {
                meta,
                output: text.to_string(),
            })?;
            size
        }
    };
    let call = crate::hints::calls::stored_read_call(
        r.config,
        tool,
        &e.id,
        full,
        "read it again from the start",
    );
    let back = Back::Stored {
        call: call.as_ref(),
        full: (full.chars != size.chars || full.lines != size.lines).then_some(full),
    };
    Ok(reference::render(tool, &args, &e.id, size, &back))
}

#[cfg(test)]
mod tests;
