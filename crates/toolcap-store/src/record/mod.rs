//! The record of what agents asked back: every result the processor saw (with a
//! store attached) and every recovery call answered from a store.
//!
//! Two kinds of rows, kept by every backend ([`MemoryStore`](super::MemoryStore),
//! `SqliteStore`, `PostgresStore`) through
//! [`ResultStore::record_seen`](crate::ResultStore::record_seen), [`ResultStore::record_call`](crate::ResultStore::record_call) and read back by
//! [`ResultStore::usage`](crate::ResultStore::usage); a custom store keeps none (the default methods do
//! nothing), and `toolcap stats` says so.
//!
//! - [`Seen`]: a processed result (tool, size, cut or not, characters the model was
//!   shown), written by the processor whether or not the result itself is stored:
//!   the cut rate needs the results that were not cut, which the store does not
//!   keep (`SaveWhen::Cut`).
//! - [`Call`]: a recovery call (`get_continuation`, `search_tool_output`, ...),
//!   written by the one dispatch path ([`tools::record_call`](super::tools::record_call)):
//!   which result, what was asked (an offset, lines, a pattern, a symbol, a JSON
//!   path), what the result was at the time (tool, size, where its shown part
//!   ended), characters returned, when.
//!
//! The record follows the results' retention: `prune_before` and `delete_dialog`
//! delete its rows too. [`stats`] turns it into the per-tool figures.

pub mod aside;
pub mod stats;

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::continuation::{ReplyError, ToolReply};
use super::{Meta, now_ms};
use crate::config::recovery_tools::{
    FETCH_TOOL_OUTPUT, GET_CONTINUATION, GET_TOOL_RESULT, QUERY_TOOL_OUTPUT, SEARCH_TOOL_OUTPUT,
};

/// A result the processor saw with a store attached (bypassed ones are not counted).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seen {
    /// When, in milliseconds since the Unix epoch.
    pub at_ms: i64,
    /// The dialog the call belongs to.
    pub dialog_id: String,
    /// The tool call id, when the harness gave one.
    pub tool_call_id: Option<String>,
    /// The tool called.
    pub tool: String,
    /// Its family.
    pub family: String,
    /// `cut`, `under_threshold`, `cleaned`, `already_cut` or `binary`.
    pub reason: String,
    /// Whether the model was shown a cut result.
    pub truncated: bool,
    /// The tool's threshold, in `unit`s.
    pub threshold: u64,
    /// `chars` or `tokens`.
    pub unit: String,
    /// Characters of the full result.
    pub size_chars: u64,
    /// Characters of what the model was shown (kept part, markers and recovery
    /// section; the whole result when not cut).
    pub shown_chars: u64,
    /// Characters of the original kept verbatim.
    pub kept_chars: u64,
}

impl Seen {
    /// Characters the model did not have to read: the full result less what it was
    /// shown (0 when what it was shown is not shorter).
    pub fn saved_chars(&self) -> u64 {
        self.size_chars.saturating_sub(self.shown_chars)
    }
}

/// What a recovery call asked for.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::VariantArray,
    strum::EnumCount,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Ask {
    /// `get_continuation` from where the shown part ended or past it: reading on.
    Continuation,
    /// `get_continuation` at an offset before the end of what was shown.
    Reread,
    /// `get_continuation` by a line range.
    Lines,
    /// A symbol (a definition by name).
    Symbol,
    /// `get_continuation` with `outline`: the full outline of the result.
    Outline,
    /// `search_tool_output`: lines matching a pattern.
    Search,
    /// `query_tool_output`: a value of a JSON result by path.
    Query,
    /// `fetch_tool_output`: the call and its output (or a page of it) as JSON.
    Fetch,
    /// `get_tool_result`: the whole result.
    Whole,
}

impl Ask {
    /// Every kind, in the order reports list them (declaration order).
    pub const ALL: [Ask; <Ask as strum::EnumCount>::COUNT] =
        toolcap_text::all_variants(<Ask as strum::VariantArray>::VARIANTS);

    /// Its name in the record and in reports.
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The kind named `s` (as [`name`](Self::name) writes it).
    pub fn parse(s: &str) -> Option<Ask> {
        s.parse().ok()
    }

    /// Whether it reads the result's text on (rather than searching or querying
    /// it): a continuation, a line range or the whole output.
    pub fn reads_on(self) -> bool {
        matches!(
            self,
            Ask::Continuation | Ask::Lines | Ask::Fetch | Ask::Whole
        )
    }
}

/// How a recovery call was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr, strum::EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Outcome {
    /// The store had the result and the reply holds what was asked.
    Answered,
    /// Nothing is stored under the id (never stored, pruned or evicted).
    NotStored,
    /// The result was stored but has expired (by age or size: `[store]` limits).
    Expired,
    /// An argument was refused (past the end, a bad pattern or path...).
    Refused,
    /// The store failed.
    Failed,
}

impl Outcome {
    /// Its name in the record.
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The outcome named `s`.
    pub fn parse(s: &str) -> Option<Outcome> {
        s.parse().ok()
    }

    fn of(reply: &ToolReply) -> Outcome {
        match reply.error {
            None => Outcome::Answered,
            Some(ReplyError::NotStored) => Outcome::NotStored,
            Some(ReplyError::Expired) => Outcome::Expired,
            Some(ReplyError::StoreFailed) => Outcome::Failed,
            Some(ReplyError::PastEnd | ReplyError::BadArgument) => Outcome::Refused,
        }
    }
}

/// A recovery call answered from a store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Call {
    /// When, in milliseconds since the Unix epoch.
    pub at_ms: i64,
    /// The dialog it was served in.
    pub dialog_id: String,
    /// The id of the result asked about.
    pub tool_call_id: String,
    /// The recovery tool called (`get_continuation`, ...).
    pub recovery_tool: String,
    /// What it asked for.
    pub ask: Ask,
    /// The character offset asked for.
    pub offset: Option<u64>,
    /// The first line asked for.
    pub start_line: Option<u64>,
    /// The last line asked for.
    pub end_line: Option<u64>,
    /// The search pattern.
    pub pattern: Option<String>,
    /// The symbol asked for.
    pub symbol: Option<String>,
    /// The JSON path asked for.
    pub path: Option<String>,
    /// Characters of the reply.
    pub reply_chars: u64,
    /// How it was answered.
    pub outcome: Outcome,
    /// The stored result's tool, when one was stored under the id.
    pub result_tool: Option<String>,
    /// The stored result's size in characters.
    pub result_chars: Option<u64>,
    /// Whether the stored result was cut.
    pub result_truncated: Option<bool>,
}

impl Call {
    /// The record of recovery tool `tool` called with `args` in `dialog_id`,
    /// answered by `reply`; `meta` is the stored result's metadata (`None`: nothing
    /// is stored under the id). `None` when the call names no tool call id (its
    /// arguments were refused before the store was asked).
    pub fn new(
        dialog_id: &str,
        tool: &str,
        args: &Value,
        reply: &ToolReply,
        meta: Option<&Meta>,
    ) -> Option<Call> {
        let id = args.get("tool_call_id")?.as_str()?;
        let count = |k: &str| match args.get(k) {
            Some(Value::Number(n)) => n.as_u64(),
            Some(Value::String(s)) => s.trim().parse().ok(),
            _ => None,
        };
        let text = |k: &str| args.get(k).and_then(Value::as_str).map(str::to_string);
        let offset = count("offset");
        let start_line = count("start_line");
        let symbol = text("symbol");
        let outline = matches!(args.get("outline"), Some(Value::Bool(true)));
        let ask = if symbol.is_some() {
            Ask::Symbol
        } else if outline && tool == GET_CONTINUATION {
            Ask::Outline
        } else {
            match tool {
                GET_CONTINUATION if start_line.is_some() => Ask::Lines,
                GET_CONTINUATION => match (offset, meta) {
                    (Some(o), Some(m)) if o < m.shown_chars as u64 => Ask::Reread,
                    _ => Ask::Continuation,
                },
                SEARCH_TOOL_OUTPUT => Ask::Search,
                QUERY_TOOL_OUTPUT => Ask::Query,
                FETCH_TOOL_OUTPUT => Ask::Fetch,
                GET_TOOL_RESULT => Ask::Whole,
                _ => Ask::Fetch,
            }
        };
        Some(Call {
            at_ms: now_ms(),
            dialog_id: dialog_id.to_string(),
            tool_call_id: id.to_string(),
            recovery_tool: tool.to_string(),
            ask,
            offset,
            start_line,
            end_line: count("end_line"),
            pattern: text("pattern"),
            symbol,
            path: text("path"),
            reply_chars: crate::text::count_chars(&reply.text) as u64,
            outcome: Outcome::of(reply),
            result_tool: meta.map(|m| m.tool_name.clone()),
            result_chars: meta.map(|m| m.size.chars as u64),
            result_truncated: meta.map(|m| m.truncated),
        })
    }
}

/// Which part of the record to read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Only this dialog's rows.
    pub dialog_id: Option<String>,
    /// Only rows at or after this time (milliseconds since the Unix epoch).
    pub since_ms: Option<i64>,
}

impl Filter {
    /// Whether a row of `dialog_id` at `at_ms` passes.
    pub fn admits(&self, dialog_id: &str, at_ms: i64) -> bool {
        self.dialog_id.as_deref().is_none_or(|d| d == dialog_id)
            && self.since_ms.is_none_or(|s| at_ms >= s)
    }
}

/// The record read back, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// Results seen.
    pub seen: Vec<Seen>,
    /// Recovery calls.
    pub calls: Vec<Call>,
}

/// The record kept in memory ([`MemoryStore`](super::MemoryStore)'s): at most
/// [`MEMORY_ROWS`] rows of each kind, the oldest dropped first.
#[derive(Debug, Default)]
pub(crate) struct MemoryRecord {
    rows: Mutex<(VecDeque<Seen>, VecDeque<Call>)>,
}

/// Most rows of each kind a [`MemoryStore`](super::MemoryStore) keeps in its record.
pub const MEMORY_ROWS: usize = 100_000;

fn push_capped<T>(rows: &mut VecDeque<T>, row: T) {
    if rows.len() >= MEMORY_ROWS {
        rows.pop_front();
    }
    rows.push_back(row);
}

impl MemoryRecord {
    fn lock(&self) -> MutexGuard<'_, (VecDeque<Seen>, VecDeque<Call>)> {
        // plain rows: a panic elsewhere leaves nothing half-made
        self.rows
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn seen(&self, s: &Seen) {
        push_capped(&mut self.lock().0, s.clone());
    }

    pub(crate) fn call(&self, c: &Call) {
        push_capped(&mut self.lock().1, c.clone());
    }

    pub(crate) fn read(&self, f: &Filter) -> Usage {
        let rows = self.lock();
        Usage {
            seen: rows
                .0
                .iter()
                .filter(|s| f.admits(&s.dialog_id, s.at_ms))
                .cloned()
                .collect(),
            calls: rows
                .1
                .iter()
                .filter(|c| f.admits(&c.dialog_id, c.at_ms))
                .cloned()
                .collect(),
        }
    }

    /// Keep only the rows for which `keep(dialog_id, at_ms)` holds.
    pub(crate) fn retain(&self, keep: impl Fn(&str, i64) -> bool) {
        let mut rows = self.lock();
        rows.0.retain(|s| keep(&s.dialog_id, s.at_ms));
        rows.1.retain(|c| keep(&c.dialog_id, c.at_ms));
    }
}
