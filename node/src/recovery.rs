//! Recovery calls from JavaScript: what a call asks for ([`Recovery`], checked on
//! the JavaScript thread and run on any), and the dispatch of a recovery tool call
//! by name and JSON arguments.

use std::sync::Arc;

use serde_json::Value;
use toolcap::store::ResultStore;
use toolcap::store::continuation::{self, ChunkOptions};
use toolcap::store::lines;
use toolcap::store::tools::{Dispatch, RecoveryTools};

use crate::convert::{self, count_opt};
use crate::store::NativeReply;
use crate::{Fail, Res};

/// What a recovery call asks for, checked on the JavaScript thread and run anywhere.
pub(crate) enum Recovery {
    Continuation {
        id: String,
        offset: Option<usize>,
        start_line: Option<usize>,
        end_line: Option<usize>,
        chunk: ChunkOptions,
    },
    Search {
        id: String,
        pattern: String,
        opts: lines::SearchOptions,
    },
    Fetch {
        id: String,
        offset: Option<usize>,
        limit: Option<usize>,
    },
    Whole {
        id: String,
    },
}

impl Recovery {
    pub(crate) fn continuation(
        id: String,
        offset: Option<f64>,
        start_line: Option<f64>,
        end_line: Option<f64>,
        chunk: ChunkOptions,
    ) -> Res<Recovery> {
        let offset = count_opt("offset", offset)?;
        let start_line = count_opt("startLine", start_line)?;
        let end_line = count_opt("endLine", end_line)?;
        match (offset, start_line, end_line) {
            (Some(_), Some(_), _) => Err(Fail::type_(
                "pass either offset (characters) or startLine (lines), not both",
            )),
            (_, None, Some(_)) => Err(Fail::type_(
                "endLine needs startLine (the first line to read, from 1)",
            )),
            (_, Some(0), _) => Err(Fail::range(
                "startLine = 0: lines count from 1 (the first line is line 1)",
            )),
            _ => Ok(Recovery::Continuation {
                id,
                offset,
                start_line,
                end_line,
                chunk,
            }),
        }
    }

    pub(crate) fn search(
        id: String,
        pattern: String,
        context: Option<f64>,
        max_matches: Option<f64>,
        skip: Option<f64>,
        ignore_case: Option<bool>,
        from_end: Option<bool>,
    ) -> Res<Recovery> {
        let context = count_opt("context", context)?.unwrap_or(1);
        let max_matches =
            count_opt("maxMatches", max_matches)?.unwrap_or(lines::DEFAULT_MAX_MATCHES);
        if max_matches == 0 {
            return Err(Fail::range("maxMatches = 0: pass at least 1 matching line"));
        }
        if context > lines::MAX_CONTEXT {
            return Err(Fail::range(format!(
                "context = {context}: pass 0 to {} lines",
                lines::MAX_CONTEXT
            )));
        }
        Ok(Recovery::Search {
            id,
            pattern,
            opts: lines::SearchOptions {
                context,
                max_matches,
                skip: count_opt("skip", skip)?.unwrap_or(0),
                ignore_case: ignore_case.unwrap_or(false),
                from_end: from_end.unwrap_or(false),
            },
        })
    }

    pub(crate) fn fetch(id: String, offset: Option<f64>, limit: Option<f64>) -> Res<Recovery> {
        let limit = count_opt("limit", limit)?;
        if limit == Some(0) {
            return Err(Fail::range("limit = 0: pass at least 1 character"));
        }
        Ok(Recovery::Fetch {
            id,
            offset: count_opt("offset", offset)?,
            limit,
        })
    }

    pub(crate) fn run(self, store: &dyn ResultStore, dialog: &str) -> Res<NativeReply> {
        let r = match self {
            Recovery::Continuation {
                id,
                offset,
                start_line,
                end_line,
                chunk,
            } => match start_line {
                Some(a) => lines::get_lines(store, dialog, &id, a, end_line, chunk.chunk_chars),
                None => continuation::get_continuation(store, dialog, &id, offset, &chunk),
            },
            Recovery::Search { id, pattern, opts } => {
                lines::search_tool_output(store, dialog, &id, &pattern, &opts)
            }
            Recovery::Fetch { id, offset, limit } => {
                continuation::fetch_tool_output(store, dialog, &id, offset, limit)
            }
            Recovery::Whole { id } => continuation::get_tool_result(store, dialog, &id),
        }?;
        Ok(r.into())
    }
}

/// Recovery tool arguments: JSON text (OpenAI's `function.arguments`, or an object
/// the JavaScript half serialized).
pub(crate) fn dispatch(
    store: Arc<dyn ResultStore>,
    dialog: &str,
    name: &str,
    args_json: Option<&str>,
    chunk: ChunkOptions,
) -> Option<NativeReply> {
    let tools = RecoveryTools::new(store, dialog).chunk_options(chunk);
    let d = match args_json {
        Some(j) if !j.trim().is_empty() => tools.dispatch_json(name, j),
        _ => tools.dispatch(name, &Value::Object(Default::default())),
    };
    match d {
        Dispatch::Handled(r) => Some(r.into()),
        Dispatch::NotMine => None,
    }
}

/// The recovery call named `kind`, from the positional arguments of `recoverAsync`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn recovery_of(
    kind: &str,
    id: String,
    a: Option<f64>,
    b: Option<f64>,
    c: Option<f64>,
    pattern: Option<String>,
    flag: Option<bool>,
    chunk_chars: Option<f64>,
    flag2: Option<bool>,
) -> Res<Recovery> {
    match kind {
        "continuation" => {
            Recovery::continuation(id, a, b, c, convert::chunk_options(chunk_chars, flag)?)
        }
        "search" => Recovery::search(id, pattern.unwrap_or_default(), a, b, c, flag, flag2),
        "fetch" => Recovery::fetch(id, a, b),
        "whole" => Ok(Recovery::Whole { id }),
        other => Err(Fail::range(format!(
            "recovery kind {other:?}: use continuation, search, fetch or whole"
        ))),
    }
}
