//! The recovery tools: their replies (`ToolReply`), the module functions that
//! serve them from a store, their definitions, `dispatch`, and the history
//! helpers (`prepare_messages`, `reference_message`).

use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyString};
use serde_json::{Map, Value};
use toolcap::bind;
use toolcap::history;
use toolcap::store::continuation::{self, ChunkOptions, LoadToolResults, ReplyError, ToolReply};
use toolcap::store::lines;
use toolcap::store::tools::{Dispatch, RecoveryTools, ToolFormat};
use toolcap::store::{self, ResultStore};

use crate::convert::{check_id, dialog_of, str_of, to_json, to_py};
use crate::stores::store_of;
use crate::{run, store_err};

/// The reply of a recovery tool call: the exact text the model gets.
#[pyclass(module = "toolcap", name = "ToolReply", frozen, get_all)]
pub(crate) struct PyToolReply {
    /// Exactly what the model gets as the tool's result.
    text: String,
    /// The text is a JSON `{"error": ...}` object (Anthropic's `is_error`).
    is_error: bool,
    /// Where the next chunk starts, when the text ends with a continuation marker.
    next_offset: Option<usize>,
    /// Why the call failed, when `is_error`: "not_stored", "past_end",
    /// "bad_argument" or "store_failed"; else None.
    error: Option<&'static str>,
}

impl From<ToolReply> for PyToolReply {
    fn from(r: ToolReply) -> Self {
        PyToolReply {
            text: r.text,
            is_error: r.is_error,
            next_offset: r.next_offset,
            error: r.error.map(|e| match e {
                ReplyError::NotStored => "not_stored",
                ReplyError::Expired => "expired",
                ReplyError::PastEnd => "past_end",
                ReplyError::BadArgument => "bad_argument",
                ReplyError::StoreFailed => "store_failed",
            }),
        }
    }
}

#[pymethods]
impl PyToolReply {
    fn __str__(&self) -> &str {
        &self.text
    }
    fn __repr__(&self) -> String {
        format!(
            "ToolReply(is_error={}, next_offset={:?}, text=<{} chars>)",
            if self.is_error { "True" } else { "False" },
            self.next_offset,
            self.text.chars().count()
        )
    }
}

pub(crate) fn chunk_options(chunk_chars: usize, line_aligned: bool) -> PyResult<ChunkOptions> {
    if chunk_chars == 0 {
        return Err(PyValueError::new_err(
            "chunk_chars = 0: a chunk must hold at least 1 character",
        ));
    }
    Ok(ChunkOptions {
        chunk_chars,
        line_aligned,
    })
}

/// get_continuation(store, tool_call_id, offset=None, *, start_line=None, end_line=None, dialog=None, chunk_chars=2000, line_aligned=False) -> ToolReply
#[pyfunction]
#[pyo3(signature = (store, tool_call_id, offset=None, *, start_line=None, end_line=None, dialog=None, chunk_chars=continuation::DEFAULT_CHUNK_CHARS, line_aligned=false))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn get_continuation(
    py: Python<'_>,
    store: &Bound<'_, PyAny>,
    tool_call_id: &str,
    offset: Option<usize>,
    start_line: Option<usize>,
    end_line: Option<usize>,
    dialog: Option<&str>,
    chunk_chars: usize,
    line_aligned: bool,
) -> PyResult<PyToolReply> {
    let s = store_of(store)?;
    let dialog = dialog_of(dialog, store::DEFAULT_DIALOG)?;
    let opts = chunk_options(chunk_chars, line_aligned)?;
    let start_line = match (offset, start_line, end_line) {
        (Some(_), Some(_), _) => {
            return Err(PyValueError::new_err(
                "pass either offset (characters) or start_line (lines), not both",
            ));
        }
        (_, None, Some(_)) => {
            return Err(PyValueError::new_err(
                "end_line needs start_line (the first line to read, from 1)",
            ));
        }
        (_, Some(0), _) => {
            return Err(PyValueError::new_err(
                "start_line = 0: lines count from 1 (the first line is line 1)",
            ));
        }
        (_, l, _) => l,
    };
    let r = run(py, || match start_line {
        Some(a) => lines::get_lines(
            s.as_ref(),
            dialog,
            tool_call_id,
            a,
            end_line,
            opts.chunk_chars,
        ),
        None => continuation::get_continuation(s.as_ref(), dialog, tool_call_id, offset, &opts),
    })?
    .map_err(store_err)?;
    Ok(r.into())
}

/// search_tool_output(store, tool_call_id, pattern, *, context=1, max_matches=20, skip=0, ignore_case=False, dialog=None, from_end=False) -> ToolReply
#[pyfunction]
#[pyo3(signature = (store, tool_call_id, pattern, *, context=1, max_matches=lines::DEFAULT_MAX_MATCHES, skip=0, ignore_case=false, dialog=None, from_end=false))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn search_tool_output(
    py: Python<'_>,
    store: &Bound<'_, PyAny>,
    tool_call_id: &str,
    pattern: &str,
    context: usize,
    max_matches: usize,
    skip: usize,
    ignore_case: bool,
    dialog: Option<&str>,
    from_end: bool,
) -> PyResult<PyToolReply> {
    let s = store_of(store)?;
    let dialog = dialog_of(dialog, store::DEFAULT_DIALOG)?;
    if max_matches == 0 {
        return Err(PyValueError::new_err(
            "max_matches = 0: pass at least 1 matching line",
        ));
    }
    if context > lines::MAX_CONTEXT {
        return Err(PyValueError::new_err(format!(
            "context = {context}: pass 0 to {} lines",
            lines::MAX_CONTEXT
        )));
    }
    let opts = lines::SearchOptions {
        context,
        max_matches,
        skip,
        ignore_case,
        from_end,
    };
    let r = run(py, || {
        lines::search_tool_output(s.as_ref(), dialog, tool_call_id, pattern, &opts)
    })?
    .map_err(store_err)?;
    Ok(r.into())
}

/// fetch_tool_output(store, tool_call_id, offset=None, limit=None, *, dialog=None) -> ToolReply
#[pyfunction]
#[pyo3(signature = (store, tool_call_id, offset=None, limit=None, *, dialog=None))]
pub(crate) fn fetch_tool_output(
    py: Python<'_>,
    store: &Bound<'_, PyAny>,
    tool_call_id: &str,
    offset: Option<usize>,
    limit: Option<usize>,
    dialog: Option<&str>,
) -> PyResult<PyToolReply> {
    let s = store_of(store)?;
    let dialog = dialog_of(dialog, store::DEFAULT_DIALOG)?;
    if limit == Some(0) {
        return Err(PyValueError::new_err(
            "limit = 0: pass at least 1 character",
        ));
    }
    let r = run(py, || {
        continuation::fetch_tool_output(s.as_ref(), dialog, tool_call_id, offset, limit)
    })?
    .map_err(store_err)?;
    Ok(r.into())
}

/// get_tool_result(store, tool_call_id, *, dialog=None) -> ToolReply
#[pyfunction]
#[pyo3(signature = (store, tool_call_id, *, dialog=None))]
pub(crate) fn get_tool_result(
    py: Python<'_>,
    store: &Bound<'_, PyAny>,
    tool_call_id: &str,
    dialog: Option<&str>,
) -> PyResult<PyToolReply> {
    let s = store_of(store)?;
    let dialog = dialog_of(dialog, store::DEFAULT_DIALOG)?;
    let r = run(py, || {
        continuation::get_tool_result(s.as_ref(), dialog, tool_call_id)
    })?
    .map_err(store_err)?;
    Ok(r.into())
}

pub(crate) fn tool_format(format: &str) -> PyResult<ToolFormat> {
    bind::tool_format(format).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// tool_definitions(format="openai", chunk_chars=2000) -> list[dict]
#[pyfunction]
#[pyo3(signature = (format="openai", chunk_chars=continuation::DEFAULT_CHUNK_CHARS))]
fn tool_definitions<'py>(
    py: Python<'py>,
    format: &str,
    chunk_chars: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let f = tool_format(format)?;
    let v = run(py, || store::tools::definitions(f, chunk_chars))?;
    to_py(py, &v)
}

/// dispatch(store, name, arguments, *, dialog=None, chunk_chars=2000, line_aligned=False) -> ToolReply | None
#[pyfunction]
#[pyo3(signature = (store, name, arguments=None, *, dialog=None, chunk_chars=continuation::DEFAULT_CHUNK_CHARS, line_aligned=false))]
pub(crate) fn dispatch(
    py: Python<'_>,
    store: &Bound<'_, PyAny>,
    name: &str,
    arguments: Option<&Bound<'_, PyAny>>,
    dialog: Option<&str>,
    chunk_chars: usize,
    line_aligned: bool,
) -> PyResult<Option<PyToolReply>> {
    let s = store_of(store)?;
    let dialog = dialog_of(dialog, store::DEFAULT_DIALOG)?;
    dispatch_in(
        py,
        s,
        name,
        arguments,
        dialog,
        chunk_options(chunk_chars, line_aligned)?,
    )
}

/// A recovery tool call served from `s`; None when `name` is not a recovery tool.
pub(crate) fn dispatch_in(
    py: Python<'_>,
    s: Arc<dyn ResultStore>,
    name: &str,
    arguments: Option<&Bound<'_, PyAny>>,
    dialog: &str,
    opts: ChunkOptions,
) -> PyResult<Option<PyToolReply>> {
    let tools = RecoveryTools::new(s, dialog).chunk_options(opts);
    enum Args {
        Json(String),
        Value(Value),
    }
    let args = match arguments {
        None => Args::Value(Value::Object(Map::new())),
        Some(a) if a.is_none() => Args::Value(Value::Object(Map::new())),
        Some(a) => match a.cast::<PyString>() {
            Ok(s) => Args::Json(str_of(s)?.0.into_owned()),
            Err(_) => Args::Value(to_json(a, 0)?),
        },
    };
    let d = run(py, || match &args {
        Args::Json(j) => tools.dispatch_json(name, j),
        Args::Value(v) => tools.dispatch(name, v),
    })?;
    Ok(match d {
        Dispatch::Handled(r) => Some(r.into()),
        Dispatch::NotMine => None,
    })
}

fn load_of(load: &Bound<'_, PyAny>) -> PyResult<LoadToolResults> {
    if load.is_none() {
        return Ok(LoadToolResults::None);
    }
    if let Ok(b) = load.cast::<PyBool>() {
        return Ok(if b.is_true() {
            LoadToolResults::All
        } else {
            LoadToolResults::None
        });
    }
    if let Ok(s) = load.cast::<PyString>() {
        return Ok(LoadToolResults::parse(&str_of(s)?.0));
    }
    let ids: Vec<String> = load.extract().map_err(|_| {
        PyTypeError::new_err(
            "load_tool_results: pass False, True, a list of tool call ids, or \"none\" / \"all\" / \"id1,id2\"",
        )
    })?;
    Ok(LoadToolResults::Ids(ids))
}

/// prepare_messages(store, messages, load_tool_results=False, *, dialog=None, policy=None) -> list[dict]
///
/// With `policy` (a dict of `toolcap::history::Policy` keys, `{}` for the
/// defaults): old tool results of the history (any of the three formats) masked
/// in batches, each kept in `store` and replaced by a line naming the call that
/// reads it back (in `config`'s form). Without it: references loaded back.
#[pyfunction]
#[pyo3(signature = (store, messages, load_tool_results=None, *, dialog=None, policy=None))]
pub(crate) fn prepare_messages<'py>(
    py: Python<'py>,
    store: &Bound<'py, PyAny>,
    messages: &Bound<'py, PyAny>,
    load_tool_results: Option<&Bound<'py, PyAny>>,
    dialog: Option<&str>,
    policy: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    prepare_messages_in(py, store, messages, load_tool_results, dialog, policy, None)
}

/// [`prepare_messages`], the recovery call named as `config` says (a
/// processor's configuration; the defaults when `None`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn prepare_messages_in<'py>(
    py: Python<'py>,
    store: &Bound<'py, PyAny>,
    messages: &Bound<'py, PyAny>,
    load_tool_results: Option<&Bound<'py, PyAny>>,
    dialog: Option<&str>,
    policy: Option<&Bound<'py, PyAny>>,
    config: Option<&toolcap::Config>,
) -> PyResult<Bound<'py, PyAny>> {
    let s = store_of(store)?;
    let dialog = dialog_of(dialog, store::DEFAULT_DIALOG)?;
    let load = match load_tool_results {
        None => LoadToolResults::None,
        Some(l) => load_of(l)?,
    };
    let msgs = match to_json(messages, 0)? {
        Value::Array(a) => a,
        _ => {
            return Err(PyTypeError::new_err(
                "messages: expected a list of message dicts",
            ));
        }
    };
    if let Some(policy) = policy.filter(|p| !p.is_none()) {
        if load != LoadToolResults::None {
            return Err(PyValueError::new_err(
                "prepare_messages: pass load_tool_results or policy, not both \
                 (one loads references back, the other masks old results)",
            ));
        }
        let policy = history::Policy::from_json(&to_json(policy, 0)?)
            .map_err(|e| PyValueError::new_err(format!("policy: {e}")))?;
        let defaults;
        let config = match config {
            Some(c) => c,
            None => {
                defaults = toolcap::Config::defaults();
                &defaults
            }
        };
        let recall = history::Recall {
            store: s.as_ref(),
            dialog,
            config,
        };
        let out = run(py, || {
            history::prepare_messages_with(&msgs, &policy, &recall)
        })?
        .map_err(|e| match e {
            history::HistoryError::Store(e) => store_err(e),
            e => PyValueError::new_err(e.to_string()),
        })?;
        return to_py(py, &Value::Array(out.messages));
    }
    let out = run(py, || {
        continuation::prepare_messages(s.as_ref(), dialog, &msgs, &load)
    })?
    .map_err(store_err)?;
    to_py(py, &Value::Array(out))
}

/// reference_message(store, tool_call_id, *, dialog=None) -> dict | None
#[pyfunction]
#[pyo3(signature = (store, tool_call_id, *, dialog=None))]
pub(crate) fn reference_message<'py>(
    py: Python<'py>,
    store: &Bound<'py, PyAny>,
    tool_call_id: &str,
    dialog: Option<&str>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let s = store_of(store)?;
    let dialog = dialog_of(dialog, store::DEFAULT_DIALOG)?;
    check_id("tool_call_id", tool_call_id)?;
    let m = run(py, || {
        continuation::reference_message(s.as_ref(), dialog, tool_call_id)
    })?
    .map_err(store_err)?;
    m.map(|v| to_py(py, &v)).transpose()
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyToolReply>()?;
    m.add_function(wrap_pyfunction!(get_continuation, m)?)?;
    m.add_function(wrap_pyfunction!(search_tool_output, m)?)?;
    m.add_function(wrap_pyfunction!(fetch_tool_output, m)?)?;
    m.add_function(wrap_pyfunction!(get_tool_result, m)?)?;
    m.add_function(wrap_pyfunction!(tool_definitions, m)?)?;
    m.add_function(wrap_pyfunction!(dispatch, m)?)?;
    m.add_function(wrap_pyfunction!(prepare_messages, m)?)?;
    m.add_function(wrap_pyfunction!(reference_message, m)?)?;
    Ok(())
}
