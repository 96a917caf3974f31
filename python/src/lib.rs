//! `toolcap._toolcap`: the native half of the `toolcap` Python package (PyO3).
//!
//! A thin layer over toolcap's public API: the processor, the result stores, the
//! outline and the recovery tools. Every call into Rust releases the GIL
//! ([`Python::detach`]) and runs under `catch_unwind`, so a panic becomes a
//! `ToolcapError`, never an abort or a `PanicException`. Rust errors become the
//! Python exceptions below, with the messages the CLI prints.

use std::borrow::Cow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};
use toolcap::store::continuation::{self, ChunkOptions, LoadToolResults, ReplyError, ToolReply};
use toolcap::store::lines;
use toolcap::store::tools::{Dispatch, RecoveryTools, ToolFormat};
use toolcap::store::{self, Meta, ResultStore, SaveWhen};
use toolcap::{Config, Language, MemoryStore, SqliteStore, ToolCall, outline};

pyo3::create_exception!(
    _toolcap,
    ToolcapError,
    PyException,
    "Base class of every error toolcap raises."
);
pyo3::create_exception!(
    _toolcap,
    ConfigError,
    ToolcapError,
    "A configuration that cannot be used: the message names the file (or `<config dict>`), the key, the problem and the fix."
);
pyo3::create_exception!(
    _toolcap,
    StoreError,
    ToolcapError,
    "A result store failure (cannot open, read or write the store), or an id that cannot be stored."
);
pyo3::create_exception!(
    _toolcap,
    OutlineError,
    ToolcapError,
    "The outline could not be made (grammar or query failure)."
);

// ---------------------------------------------------------------------------
// Running Rust work: GIL released, panics caught.

/// Run `f` with the GIL released; a panic becomes a `ToolcapError`.
fn run<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    py.detach(|| catch_unwind(AssertUnwindSafe(f)))
        .map_err(|payload| {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            ToolcapError::new_err(format!(
                "internal error in toolcap (please report it): {what}"
            ))
        })
}

fn store_err(e: store::StoreError) -> PyErr {
    StoreError::new_err(e.to_string())
}

// ---------------------------------------------------------------------------
// JSON values <-> Python objects.

/// A Python value as JSON: None, bool, int, float, str, list/tuple, dict with str keys.
fn to_json(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if depth > 200 {
        return Err(PyValueError::new_err(
            "value nested more than 200 levels deep; pass plain JSON-like data",
        ));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.cast::<PyInt>().is_ok() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::from(u));
        }
        return Err(PyValueError::new_err(format!(
            "integer {} does not fit in 64 bits; pass it as a string",
            obj.str()?
        )));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let v = f.value();
        return Number::from_f64(v).map(Value::Number).ok_or_else(|| {
            PyValueError::new_err(format!("{v} is not a JSON number; pass a finite float"))
        });
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(str_of(s).into_owned()));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut m = Map::new();
        for (k, v) in d.iter() {
            let Ok(k) = k.cast::<PyString>() else {
                return Err(PyTypeError::new_err(format!(
                    "dict key {} is not a str; JSON objects have string keys",
                    k.repr()?
                )));
            };
            m.insert(str_of(k).into_owned(), to_json(&v, depth + 1)?);
        }
        return Ok(Value::Object(m));
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return l
            .iter()
            .map(|v| to_json(&v, depth + 1))
            .collect::<PyResult<_>>()
            .map(Value::Array);
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return t
            .iter()
            .map(|v| to_json(&v, depth + 1))
            .collect::<PyResult<_>>()
            .map(Value::Array);
    }
    Err(PyTypeError::new_err(format!(
        "cannot pass a {} as JSON; use None, bool, int, float, str, list or dict",
        obj.get_type().name()?
    )))
}

/// A JSON value as plain Python objects (dicts keep the JSON key order).
fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else {
                PyFloat::new(py, n.as_f64().unwrap_or(f64::NAN)).into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let l = PyList::empty(py);
            for x in a {
                l.append(to_py(py, x)?)?;
            }
            l.into_any()
        }
        Value::Object(m) => {
            let d = PyDict::new(py);
            for (k, x) in m {
                d.set_item(k, to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// A serializable value as Python objects.
fn ser_py<'py>(py: Python<'py>, v: &impl serde::Serialize) -> PyResult<Bound<'py, PyAny>> {
    let v = serde_json::to_value(v).map_err(|e| ToolcapError::new_err(e.to_string()))?;
    to_py(py, &v)
}

/// A str's text (lone surrogates, which UTF-8 cannot hold, become U+FFFD).
fn str_of<'a>(s: &'a Bound<'_, PyString>) -> Cow<'a, str> {
    match s.to_cow() {
        Ok(c) => c,
        Err(_) => s.to_string_lossy(),
    }
}

/// Tool arguments: None, a dict, or JSON text of an object (OpenAI's
/// `function.arguments`).
fn args_of(args: Option<&Bound<'_, PyAny>>) -> PyResult<Value> {
    match args {
        None => Ok(Value::Object(Map::new())),
        Some(a) if a.is_none() => Ok(Value::Object(Map::new())),
        Some(a) => {
            if let Ok(s) = a.cast::<PyString>() {
                let text = str_of(s);
                if text.trim().is_empty() {
                    return Ok(Value::Object(Map::new()));
                }
                return match serde_json::from_str::<Value>(&text) {
                    Ok(v @ Value::Object(_)) => Ok(v),
                    Ok(_) => Err(PyValueError::new_err(
                        "args: must be a JSON object, like '{\"path\": \"a.py\"}'",
                    )),
                    Err(e) => Err(PyValueError::new_err(format!(
                        "args: not valid JSON ({e}); pass an object like '{{\"path\": \"a.py\"}}'"
                    ))),
                };
            }
            if a.cast::<PyDict>().is_err() {
                return Err(PyTypeError::new_err(format!(
                    "args: expected a dict (or JSON text of an object), got {}",
                    a.get_type().name()?
                )));
            }
            to_json(a, 0)
        }
    }
}

fn lang_names() -> String {
    Language::all()
        .iter()
        .map(|l| l.name())
        .collect::<Vec<_>>()
        .join(", ")
}

fn parse_lang(lang: Option<&str>) -> PyResult<Option<Language>> {
    match lang {
        None => Ok(None),
        Some(name) => Language::from_name(name).map(Some).ok_or_else(|| {
            PyValueError::new_err(format!(
                "language {name:?}: unknown language; use one of: {} (toolcap.languages() lists aliases)",
                lang_names()
            ))
        }),
    }
}

fn check_id(what: &'static str, id: &str) -> PyResult<()> {
    store::validate_id(what, id).map_err(store_err)
}

// ---------------------------------------------------------------------------
// Stores.

/// A result store kept in memory, for the life of this object (a per-turn cache).
///
/// `MemoryStore(limit_bytes=None)`: with a limit, the oldest results are dropped
/// first once the outputs held would exceed it.
#[pyclass(module = "toolcap", name = "MemoryStore", frozen, subclass)]
struct PyMemoryStore {
    inner: Arc<MemoryStore>,
}

#[pymethods]
impl PyMemoryStore {
    #[new]
    #[pyo3(signature = (limit_bytes=None))]
    fn new(limit_bytes: Option<usize>) -> Self {
        let inner = match limit_bytes {
            Some(n) => MemoryStore::with_limit(n),
            None => MemoryStore::new(),
        };
        PyMemoryStore {
            inner: Arc::new(inner),
        }
    }

    /// Number of results held.
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __repr__(&self) -> String {
        format!("MemoryStore(<{} results>)", self.inner.len())
    }
}

/// A result store in one SQLite database file (WAL mode; safe for many processes at
/// once): the store of the `toolcap` CLI (`--store PATH`).
///
/// `SqliteStore(path)` creates the file if it is missing.
#[pyclass(module = "toolcap", name = "SqliteStore", frozen, subclass)]
struct PySqliteStore {
    inner: Arc<SqliteStore>,
}

#[pymethods]
impl PySqliteStore {
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let s = run(py, || SqliteStore::open(&path))?.map_err(store_err)?;
        Ok(PySqliteStore { inner: Arc::new(s) })
    }

    /// The database file.
    #[getter]
    fn path(&self) -> PathBuf {
        self.inner.path().to_path_buf()
    }

    fn __repr__(&self) -> String {
        format!("SqliteStore({:?})", self.inner.path().display().to_string())
    }
}

/// The Rust store behind a Python store object.
fn store_of(obj: &Bound<'_, PyAny>) -> PyResult<Arc<dyn ResultStore>> {
    if let Ok(m) = obj.cast::<PyMemoryStore>() {
        return Ok(m.get().inner.clone());
    }
    if let Ok(s) = obj.cast::<PySqliteStore>() {
        return Ok(s.get().inner.clone());
    }
    Err(PyTypeError::new_err(format!(
        "store: expected a toolcap.MemoryStore or toolcap.SqliteStore, got {}",
        obj.get_type().name()?
    )))
}

fn meta_dict<'py>(py: Python<'py>, m: &Meta) -> PyResult<Bound<'py, PyAny>> {
    // the fields of `toolcap show --meta`
    to_py(py, &m.show_json())
}

/// Store operations shared by both store classes, as module functions taking the
/// store first (the Python package binds them as methods).
#[pyfunction]
#[pyo3(signature = (store, tool_call_id, tool_name, output, args=None, *, dialog=None, truncated=false, shown_chars=None))]
#[allow(clippy::too_many_arguments)]
fn store_put(
    py: Python<'_>,
    store: &Bound<'_, PyAny>,
    tool_call_id: &str,
    tool_name: &str,
    output: &Bound<'_, PyAny>,
    args: Option<&Bound<'_, PyAny>>,
    dialog: Option<&str>,
    truncated: bool,
    shown_chars: Option<usize>,
) -> PyResult<()> {
    let s = store_of(store)?;
    let dialog = dialog.unwrap_or(store::DEFAULT_DIALOG);
    check_id("dialog id", dialog)?;
    check_id("tool_call_id", tool_call_id)?;
    let args = args_of(args)?;
    let input = Input::of(output)?;
    run(py, || {
        let text = input.text();
        let mut meta = Meta::new(dialog, tool_call_id, tool_name, &args, &text);
        meta.truncated = truncated;
        if let Some(n) = shown_chars {
            meta.shown_chars = n.min(meta.size.chars);
        }
        s.put_output(&meta, &text)
    })?
    .map_err(store_err)
}

#[pyfunction]
#[pyo3(signature = (store, tool_call_id, *, dialog=None))]
fn store_get(
    py: Python<'_>,
    store: &Bound<'_, PyAny>,
    tool_call_id: &str,
    dialog: Option<&str>,
) -> PyResult<Option<String>> {
    let s = store_of(store)?;
    let dialog = dialog.unwrap_or(store::DEFAULT_DIALOG);
    check_id("dialog id", dialog)?;
    check_id("tool_call_id", tool_call_id)?;
    let r = run(py, || s.get(dialog, tool_call_id))?.map_err(store_err)?;
    Ok(r.map(|r| r.output))
}

#[pyfunction]
#[pyo3(signature = (store, tool_call_id, *, dialog=None))]
fn store_meta<'py>(
    py: Python<'py>,
    store: &Bound<'py, PyAny>,
    tool_call_id: &str,
    dialog: Option<&str>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let s = store_of(store)?;
    let dialog = dialog.unwrap_or(store::DEFAULT_DIALOG);
    check_id("dialog id", dialog)?;
    check_id("tool_call_id", tool_call_id)?;
    let m = run(py, || s.meta(dialog, tool_call_id))?.map_err(store_err)?;
    m.map(|m| meta_dict(py, &m)).transpose()
}

#[pyfunction]
#[pyo3(signature = (store, dialog=None))]
fn store_list<'py>(
    py: Python<'py>,
    store: &Bound<'py, PyAny>,
    dialog: Option<&str>,
) -> PyResult<Bound<'py, PyList>> {
    let s = store_of(store)?;
    if let Some(d) = dialog {
        check_id("dialog id", d)?;
    }
    let metas = run(py, || s.list(dialog))?.map_err(store_err)?;
    let l = PyList::empty(py);
    for m in &metas {
        l.append(meta_dict(py, m)?)?;
    }
    Ok(l)
}

#[pyfunction]
fn store_delete_dialog(py: Python<'_>, store: &Bound<'_, PyAny>, dialog: &str) -> PyResult<usize> {
    let s = store_of(store)?;
    check_id("dialog id", dialog)?;
    run(py, || s.delete_dialog(dialog))?.map_err(store_err)
}

#[pyfunction]
fn store_prune_older_than(
    py: Python<'_>,
    store: &Bound<'_, PyAny>,
    seconds: f64,
) -> PyResult<usize> {
    let s = store_of(store)?;
    if !seconds.is_finite() || seconds < 0.0 {
        return Err(PyValueError::new_err(format!(
            "seconds = {seconds}: pass a finite age of 0 seconds or more"
        )));
    }
    let age = Duration::from_secs_f64(seconds);
    run(py, || s.prune_older_than(age))?.map_err(store_err)
}

// ---------------------------------------------------------------------------
// A result handed in from Python: str or bytes, read without the GIL.

/// The text of a result passed in as `str` or `bytes` (bytes are decoded as UTF-8,
/// invalid sequences replaced with U+FFFD, as the CLI reads files).
enum Input<'a> {
    /// The text, and whether it is the str's exactly (false: lone surrogates replaced).
    Str(Cow<'a, str>, bool),
    Bytes(&'a [u8]),
}

impl<'a> Input<'a> {
    fn of(obj: &'a Bound<'_, PyAny>) -> PyResult<Input<'a>> {
        if let Ok(s) = obj.cast::<PyString>() {
            return Ok(match s.to_cow() {
                Ok(c) => Input::Str(c, true),
                Err(_) => Input::Str(s.to_string_lossy(), false),
            });
        }
        if let Ok(b) = obj.cast::<PyBytes>() {
            return Ok(Input::Bytes(b.as_bytes()));
        }
        if let Ok(b) = obj.cast::<pyo3::types::PyByteArray>() {
            // a bytearray can change under us: copy it while the GIL is held
            return Ok(Input::Str(
                Cow::Owned(String::from_utf8_lossy(&b.to_vec()).into_owned()),
                false,
            ));
        }
        Err(PyTypeError::new_err(format!(
            "result: expected str or bytes, got {}",
            obj.get_type().name()?
        )))
    }

    fn text(&self) -> Cow<'_, str> {
        match self {
            Input::Str(s, _) => Cow::Borrowed(s),
            Input::Bytes(b) => String::from_utf8_lossy(b),
        }
    }
}

// ---------------------------------------------------------------------------
// Outline.

/// One definition in an outline.
#[pyclass(module = "toolcap", name = "Symbol", frozen, get_all)]
struct PySymbol {
    /// `class`, `function`, `method`, `struct`, ... (one vocabulary across languages).
    kind: String,
    name: String,
    /// 1-based line holding the definition's name.
    line: usize,
    /// 1-based last line of the definition.
    end_line: usize,
    /// Nesting depth among the outline's symbols; 0 = top level.
    depth: usize,
    /// Name of the enclosing symbol, if any.
    parent: Option<String>,
    /// Extra text, e.g. an impl block's header; None for most symbols.
    detail: Option<String>,
}

#[pymethods]
impl PySymbol {
    fn __repr__(&self) -> String {
        format!(
            "Symbol(kind={:?}, name={:?}, line={}, end_line={}, depth={}, parent={:?})",
            self.kind, self.name, self.line, self.end_line, self.depth, self.parent
        )
    }

    /// The symbol as the JSON of `toolcap outline --json`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut m = Map::new();
        m.insert("kind".into(), Value::from(self.kind.clone()));
        m.insert("name".into(), Value::from(self.name.clone()));
        m.insert("line".into(), Value::from(self.line));
        m.insert("end_line".into(), Value::from(self.end_line));
        m.insert("depth".into(), Value::from(self.depth));
        m.insert(
            "parent".into(),
            self.parent.clone().map_or(Value::Null, Value::from),
        );
        if let Some(d) = &self.detail {
            m.insert("detail".into(), Value::from(d.clone()));
        }
        to_py(py, &Value::Object(m))
    }
}

/// The code structure of one source text.
#[pyclass(module = "toolcap", name = "Outline", frozen)]
struct PyOutline {
    inner: toolcap::Outline,
}

#[pymethods]
impl PyOutline {
    /// The language's name (`python`, `rust`, ...).
    #[getter]
    fn language(&self) -> &'static str {
        self.inner.language
    }
    /// Number of lines in the source.
    #[getter]
    fn lines(&self) -> usize {
        self.inner.lines
    }
    /// True when only lines 1..covered_lines were outlined.
    #[getter]
    fn partial(&self) -> bool {
        self.inner.partial
    }
    /// The outline covers lines 1 to this.
    #[getter]
    fn covered_lines(&self) -> usize {
        self.inner.covered_lines
    }
    /// `time_budget` or `size_cap` when partial, else None.
    #[getter]
    fn stopped_by<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        ser_py(py, &self.inner.stopped_by)
    }
    /// The parser found syntax errors: the symbols are a best effort.
    #[getter]
    fn syntax_errors(&self) -> bool {
        self.inner.syntax_errors
    }
    /// Definitions in source order.
    #[getter]
    fn symbols(&self) -> Vec<PySymbol> {
        self.inner
            .symbols
            .iter()
            .map(|s| PySymbol {
                kind: s.kind.as_str().to_string(),
                name: s.name.clone(),
                line: s.line,
                end_line: s.end_line,
                depth: s.depth,
                parent: s.parent.clone(),
                detail: s.detail.clone(),
            })
            .collect()
    }
    /// The outline as the JSON of `toolcap outline --json` (without `path`).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        ser_py(py, &self.inner)
    }
    fn __len__(&self) -> usize {
        self.inner.symbols.len()
    }
    fn __repr__(&self) -> String {
        format!(
            "Outline(language={:?}, lines={}, partial={}, symbols=<{}>)",
            self.inner.language,
            self.inner.lines,
            if self.inner.partial { "True" } else { "False" },
            self.inner.symbols.len()
        )
    }
}

/// The language of `source`: the one named, else as `toolcap outline` decides it
/// (shebang, extension, content).
fn outline_language(
    language: Option<&str>,
    path: Option<&str>,
    source: &str,
) -> PyResult<Language> {
    if let Some(l) = parse_lang(language)? {
        return Ok(l);
    }
    Language::detect(path, source).ok_or_else(|| {
        PyValueError::new_err(format!(
            "{}: cannot tell the language from the file name or content; pass language=NAME (one of: {})",
            path.unwrap_or("source"),
            lang_names()
        ))
    })
}

/// outline(source, language=None, *, path=None, budget_ms=100, max_bytes=8 MiB)
#[pyfunction]
#[pyo3(name = "outline", signature = (source, language=None, *, path=None, budget_ms=100, max_bytes=outline::DEFAULT_MAX_BYTES))]
fn py_outline(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    language: Option<&str>,
    path: Option<&str>,
    budget_ms: u64,
    max_bytes: usize,
) -> PyResult<PyOutline> {
    let input = Input::of(source)?;
    let text = input.text();
    let lang = outline_language(language, path, &text)?;
    let options = outline::Options {
        budget: (budget_ms > 0).then(|| Duration::from_millis(budget_ms)),
        max_bytes,
        ..outline::Options::default()
    };
    let o = run(py, || outline::outline_with(&text, lang, &options))?.map_err(|e| {
        OutlineError::new_err(format!("{}: outline failed: {e}", path.unwrap_or("source")))
    })?;
    Ok(PyOutline { inner: o })
}

/// The supported languages: name, extensions, aliases, interpreters.
#[pyfunction]
fn languages<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let l = PyList::empty(py);
    for lang in Language::all() {
        let v = serde_json::json!({
            "name": lang.name(),
            "extensions": lang.extensions(),
            "aliases": lang.aliases(),
            "interpreters": lang.interpreters(),
        });
        l.append(to_py(py, &v)?)?;
    }
    Ok(l)
}

// ---------------------------------------------------------------------------
// Processed.

/// What `ToolResultProcessor.process` returns: the text the model should see and the
/// exact facts behind it. Attributes are the fields of `toolcap process --json`;
/// `to_dict()` is that JSON object.
#[pyclass(module = "toolcap", name = "Processed", frozen)]
struct PyProcessed {
    inner: toolcap::Processed,
    text: Py<PyString>,
    tool_call_id: Option<String>,
}

#[pymethods]
impl PyProcessed {
    /// Exactly what the model sees.
    #[getter]
    fn text(&self, py: Python<'_>) -> Py<PyString> {
        self.text.clone_ref(py)
    }
    /// The tool name, as given.
    #[getter]
    fn tool(&self) -> &str {
        &self.inner.tool
    }
    /// The tool family (`read_file`, `grep`, `shell`, `web_search`, `web_fetch`, `glob`, `generic`).
    #[getter]
    fn family(&self) -> &str {
        &self.inner.family
    }
    /// The result was cut.
    #[getter]
    fn truncated(&self) -> bool {
        self.inner.truncated
    }
    /// The tool is bypassed: the result passes through unchanged.
    #[getter]
    fn bypassed(&self) -> bool {
        self.inner.bypassed
    }
    /// Why it was or was not cut: `bypass`, `under_threshold`, `cleaned`, `already_cut`, `cut`, `binary`.
    #[getter]
    fn reason<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        ser_py(py, &self.inner.reason)
    }
    /// The tool's threshold, in `unit`.
    #[getter]
    fn threshold(&self) -> usize {
        self.inner.threshold
    }
    /// `chars` or `tokens`.
    #[getter]
    fn unit(&self) -> &'static str {
        self.inner.unit
    }
    /// How much of the original may be kept, in `unit`.
    #[getter]
    fn kept_budget(&self) -> usize {
        self.inner.kept_budget
    }
    /// `{"chars", "bytes", "lines"}` of the original result.
    #[getter]
    fn original<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        ser_py(py, &self.inner.original)
    }
    /// Tokens of the original, when the tool counts in tokens; else None.
    #[getter]
    fn original_tokens(&self) -> Option<usize> {
        self.inner.original_tokens
    }
    /// Kept parts, as `[{"start_line", "end_line"}, ...]` of the original.
    #[getter]
    fn kept<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        ser_py(py, &self.inner.kept)
    }
    /// `{"chars", "lines", "ranges"}`: what was omitted, exactly.
    #[getter]
    fn omitted<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        ser_py(py, &self.inner.omitted)
    }
    /// What terminal-noise cleaning did, when it changed anything; else None.
    #[getter]
    fn cleaning<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        ser_py(py, &self.inner.cleaning)
    }
    /// What JSON reshaping dropped, when a JSON result was cut as JSON; else None.
    #[getter]
    fn json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        ser_py(py, &self.inner.json)
    }
    /// How much of a fetched HTML page's text was shown (`text_chars`,
    /// `shown_chars`), when the page was cut as its text; else None.
    #[getter]
    fn html<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        ser_py(py, &self.inner.html)
    }
    /// Detected language or content kind of the result, if any.
    #[getter]
    fn language(&self) -> Option<&str> {
        self.inner.language.as_deref()
    }
    /// The outline of the result (an `Outline`), if one was made.
    #[getter]
    fn outline(&self) -> Option<PyOutline> {
        self.inner.outline.clone().map(|inner| PyOutline { inner })
    }
    /// Runnable suggestions: `[{"tool", "args", "purpose"}, ...]`.
    #[getter]
    fn suggestions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        ser_py(py, &self.inner.suggestions)
    }
    /// Where the full result was kept (`{"tool_call_id", "dialog_id", "storage_type", "offset"}`), or None.
    #[getter]
    fn stored<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        ser_py(py, &self.inner.stored)
    }
    /// Why keeping the full result failed, or None.
    #[getter]
    fn store_error(&self) -> Option<&str> {
        self.inner.store_error.as_deref()
    }
    /// The tool call id passed to `process`, or None.
    #[getter]
    fn tool_call_id(&self) -> Option<&str> {
        self.tool_call_id.as_deref()
    }
    /// The report as the `toolcap process --json` object (same keys, same order).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let v = self.json_value()?;
        to_py(py, &v)
    }
    /// The report as JSON text, byte for byte what `toolcap process --json` prints
    /// (without the final newline).
    fn to_json(&self) -> PyResult<String> {
        Ok(self.json_value()?.to_string())
    }
    fn __str__(&self, py: Python<'_>) -> Py<PyString> {
        self.text.clone_ref(py)
    }
    fn __repr__(&self) -> String {
        format!(
            "Processed(tool={:?}, family={:?}, truncated={}, original_chars={}, text_chars={})",
            self.inner.tool,
            self.inner.family,
            if self.inner.truncated {
                "True"
            } else {
                "False"
            },
            self.inner.original.chars,
            self.inner.text.chars().count()
        )
    }
}

impl PyProcessed {
    /// The CLI's `--json` value: the serialized report, `tool_call_id` appended when given.
    fn json_value(&self) -> PyResult<Value> {
        let mut v =
            serde_json::to_value(&self.inner).map_err(|e| ToolcapError::new_err(e.to_string()))?;
        if let (Some(id), Value::Object(m)) = (&self.tool_call_id, &mut v) {
            m.insert("tool_call_id".into(), Value::String(id.clone()));
        }
        Ok(v)
    }
}

// ---------------------------------------------------------------------------
// Recovery replies.

/// The reply of a recovery tool call: the exact text the model gets.
#[pyclass(module = "toolcap", name = "ToolReply", frozen, get_all)]
struct PyToolReply {
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

fn chunk_options(chunk_chars: usize, line_aligned: bool) -> PyResult<ChunkOptions> {
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
fn get_continuation(
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
    let dialog = dialog.unwrap_or(store::DEFAULT_DIALOG);
    check_id("dialog id", dialog)?;
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

/// search_tool_output(store, tool_call_id, pattern, *, context=1, max_matches=20, skip=0, ignore_case=False, dialog=None) -> ToolReply
#[pyfunction]
#[pyo3(signature = (store, tool_call_id, pattern, *, context=1, max_matches=lines::DEFAULT_MAX_MATCHES, skip=0, ignore_case=false, dialog=None))]
#[allow(clippy::too_many_arguments)]
fn search_tool_output(
    py: Python<'_>,
    store: &Bound<'_, PyAny>,
    tool_call_id: &str,
    pattern: &str,
    context: usize,
    max_matches: usize,
    skip: usize,
    ignore_case: bool,
    dialog: Option<&str>,
) -> PyResult<PyToolReply> {
    let s = store_of(store)?;
    let dialog = dialog.unwrap_or(store::DEFAULT_DIALOG);
    check_id("dialog id", dialog)?;
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
fn fetch_tool_output(
    py: Python<'_>,
    store: &Bound<'_, PyAny>,
    tool_call_id: &str,
    offset: Option<usize>,
    limit: Option<usize>,
    dialog: Option<&str>,
) -> PyResult<PyToolReply> {
    let s = store_of(store)?;
    let dialog = dialog.unwrap_or(store::DEFAULT_DIALOG);
    check_id("dialog id", dialog)?;
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
fn get_tool_result(
    py: Python<'_>,
    store: &Bound<'_, PyAny>,
    tool_call_id: &str,
    dialog: Option<&str>,
) -> PyResult<PyToolReply> {
    let s = store_of(store)?;
    let dialog = dialog.unwrap_or(store::DEFAULT_DIALOG);
    check_id("dialog id", dialog)?;
    let r = run(py, || {
        continuation::get_tool_result(s.as_ref(), dialog, tool_call_id)
    })?
    .map_err(store_err)?;
    Ok(r.into())
}

fn tool_format(format: &str) -> PyResult<ToolFormat> {
    ToolFormat::parse(format).ok_or_else(|| {
        PyValueError::new_err(format!(
            "format {format:?}: unknown tool format; use \"openai\" or \"anthropic\""
        ))
    })
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
    let v = run(py, || toolcap::store::tools::definitions(f, chunk_chars))?;
    to_py(py, &v)
}

/// dispatch(store, name, arguments, *, dialog=None, chunk_chars=2000, line_aligned=False) -> ToolReply | None
#[pyfunction]
#[pyo3(signature = (store, name, arguments=None, *, dialog=None, chunk_chars=continuation::DEFAULT_CHUNK_CHARS, line_aligned=false))]
fn dispatch(
    py: Python<'_>,
    store: &Bound<'_, PyAny>,
    name: &str,
    arguments: Option<&Bound<'_, PyAny>>,
    dialog: Option<&str>,
    chunk_chars: usize,
    line_aligned: bool,
) -> PyResult<Option<PyToolReply>> {
    let s = store_of(store)?;
    let dialog = dialog.unwrap_or(store::DEFAULT_DIALOG);
    check_id("dialog id", dialog)?;
    let tools =
        RecoveryTools::new(s, dialog).chunk_options(chunk_options(chunk_chars, line_aligned)?);
    enum Args {
        Json(String),
        Value(Value),
    }
    let args = match arguments {
        None => Args::Value(Value::Object(Map::new())),
        Some(a) if a.is_none() => Args::Value(Value::Object(Map::new())),
        Some(a) => match a.cast::<PyString>() {
            Ok(s) => Args::Json(str_of(s).into_owned()),
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
        return Ok(LoadToolResults::parse(&str_of(s)));
    }
    let ids: Vec<String> = load.extract().map_err(|_| {
        PyTypeError::new_err(
            "load_tool_results: pass False, True, a list of tool call ids, or \"none\" / \"all\" / \"id1,id2\"",
        )
    })?;
    Ok(LoadToolResults::Ids(ids))
}

/// prepare_messages(store, messages, load_tool_results=False, *, dialog=None) -> list[dict]
#[pyfunction]
#[pyo3(signature = (store, messages, load_tool_results=None, *, dialog=None))]
fn prepare_messages<'py>(
    py: Python<'py>,
    store: &Bound<'py, PyAny>,
    messages: &Bound<'py, PyAny>,
    load_tool_results: Option<&Bound<'py, PyAny>>,
    dialog: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let s = store_of(store)?;
    let dialog = dialog.unwrap_or(store::DEFAULT_DIALOG);
    check_id("dialog id", dialog)?;
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
    let out = run(py, || {
        continuation::prepare_messages(s.as_ref(), dialog, &msgs, &load)
    })?
    .map_err(store_err)?;
    to_py(py, &Value::Array(out))
}

/// reference_message(store, tool_call_id, *, dialog=None) -> dict | None
#[pyfunction]
#[pyo3(signature = (store, tool_call_id, *, dialog=None))]
fn reference_message<'py>(
    py: Python<'py>,
    store: &Bound<'py, PyAny>,
    tool_call_id: &str,
    dialog: Option<&str>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let s = store_of(store)?;
    let dialog = dialog.unwrap_or(store::DEFAULT_DIALOG);
    check_id("dialog id", dialog)?;
    check_id("tool_call_id", tool_call_id)?;
    let m = run(py, || {
        continuation::reference_message(s.as_ref(), dialog, tool_call_id)
    })?
    .map_err(store_err)?;
    m.map(|v| to_py(py, &v)).transpose()
}

// ---------------------------------------------------------------------------
// The processor.

/// The configuration from None (defaults < $TOOLCAP_CONFIG < $TOOL_RESULT_BYPASS_TOOLS,
/// as the CLI), a path to a TOML file (< $TOOL_RESULT_BYPASS_TOOLS), or a dict with
/// the TOML file's keys.
fn config_of(py: Python<'_>, config: Option<&Bound<'_, PyAny>>) -> PyResult<Config> {
    let cfg_err = |e: toolcap::ConfigError| ConfigError::new_err(e.to_string());
    let Some(c) = config.filter(|c| !c.is_none()) else {
        return run(py, || Config::load(None))?.map_err(cfg_err);
    };
    if let Ok(d) = c.cast::<PyDict>() {
        let v = to_json(d.as_any(), 0)?;
        let text = toml::to_string(&v).map_err(|e| {
            ConfigError::new_err(format!(
                "<config dict>: (dict): cannot be written as TOML: {e}\n  fix: use the keys and values of a thresholds.toml file (no None values)"
            ))
        })?;
        let bypass = std::env::var("TOOL_RESULT_BYPASS_TOOLS").ok();
        return run(py, || {
            Config::from_sources(Some((&text, Path::new("<config dict>"))), bypass.as_deref())
        })?
        .map_err(cfg_err);
    }
    let path: PathBuf = c.extract().map_err(|_| {
        PyTypeError::new_err(
            "config: expected None, a path to a TOML file (str or os.PathLike), or a dict",
        )
    })?;
    run(py, || Config::load(Some(&path)))?.map_err(cfg_err)
}

/// Makes oversized tool results fit the context window; see the package docs.
///
/// `ToolResultProcessor(config=None, *, store=None, dialog=None, save="cut")`
#[pyclass(module = "toolcap", name = "ToolResultProcessor", frozen)]
struct PyProcessor {
    inner: toolcap::ToolResultProcessor,
    store: Option<(Py<PyAny>, Arc<dyn ResultStore>)>,
    dialog: String,
    chunk: ChunkOptions,
}

#[pymethods]
impl PyProcessor {
    #[new]
    #[pyo3(signature = (config=None, *, store=None, dialog=None, save="cut", line_aligned=false))]
    fn new(
        py: Python<'_>,
        config: Option<&Bound<'_, PyAny>>,
        store: Option<&Bound<'_, PyAny>>,
        dialog: Option<&str>,
        save: &str,
        line_aligned: bool,
    ) -> PyResult<Self> {
        let config = config_of(py, config)?;
        let dialog = dialog.unwrap_or(store::DEFAULT_DIALOG).to_string();
        check_id("dialog id", &dialog)?;
        let save = SaveWhen::parse(save).ok_or_else(|| {
            PyValueError::new_err(format!(
                "save {save:?}: use \"cut\" (keep the results that were cut) or \"all\""
            ))
        })?;
        let chunk = ChunkOptions {
            chunk_chars: config.max_kept_chars,
            line_aligned,
        };
        let mut inner = toolcap::ToolResultProcessor::new(config);
        let store = match store.filter(|s| !s.is_none()) {
            None => None,
            Some(obj) => {
                let s = store_of(obj)?;
                inner = inner.with_store(s.clone(), save);
                Some((obj.clone().unbind(), s))
            }
        };
        Ok(PyProcessor {
            inner,
            store,
            dialog,
            chunk,
        })
    }

    /// Process `result`, the result of calling `tool_name` with `args`: returns a
    /// `Processed` whose `text` is what the model should see (the result unchanged
    /// when under the tool's threshold or bypassed; else the kept part, the exact
    /// omission marker and the recovery options).
    ///
    /// `result` is str or bytes (decoded as UTF-8, bad bytes replaced, as the CLI
    /// reads files); `args` a dict or JSON text of one. With a store attached and a
    /// `tool_call_id`, the full result is kept (under `dialog`, else the processor's)
    /// and the text says how to read the rest. `lang` overrides language detection.
    /// Raises `StoreError` when the store cannot keep the result or an id is invalid.
    #[pyo3(signature = (tool_name, result, args=None, tool_call_id=None, *, dialog=None, lang=None))]
    #[allow(clippy::too_many_arguments)] // the Python signature
    fn process(
        &self,
        py: Python<'_>,
        tool_name: &str,
        result: &Bound<'_, PyAny>,
        args: Option<&Bound<'_, PyAny>>,
        tool_call_id: Option<&str>,
        dialog: Option<&str>,
        lang: Option<&str>,
    ) -> PyResult<PyProcessed> {
        let args = args_of(args)?;
        let lang = parse_lang(lang)?;
        if let Some(id) = tool_call_id {
            check_id("tool_call_id", id)?;
        }
        let dialog = dialog.unwrap_or(&self.dialog);
        check_id("dialog id", dialog)?;
        let input = Input::of(result)?;
        // a str whose text UTF-8 holds exactly (no lone surrogates)
        let exact_str = matches!(input, Input::Str(_, true));
        let processed = run(py, || {
            let text = input.text();
            let mut call = ToolCall::new(tool_name, &args);
            call.lang = lang;
            call.id = tool_call_id;
            call.dialog = Some(dialog);
            self.inner.try_process_call(&call, &text)
        })?
        .map_err(store_err)?;
        // an unchanged result is the very str passed in: no copy
        let unchanged = matches!(
            processed.reason,
            toolcap::Reason::Bypass | toolcap::Reason::UnderThreshold | toolcap::Reason::AlreadyCut
        );
        let text = match result.cast::<PyString>() {
            Ok(s) if exact_str && unchanged => s.clone().unbind(),
            _ => PyString::new(py, &processed.text).unbind(),
        };
        Ok(PyProcessed {
            inner: processed,
            text,
            tool_call_id: tool_call_id.map(str::to_string),
        })
    }

    /// The attached store (a MemoryStore or SqliteStore), or None.
    #[getter]
    fn store(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.store.as_ref().map(|(o, _)| o.clone_ref(py))
    }

    /// The dialog (thread) results are kept under unless `process` names another.
    #[getter]
    fn dialog(&self) -> &str {
        &self.dialog
    }

    /// Characters kept when a result is cut (`max_kept_chars`): also the chunk size
    /// of `get_continuation`.
    #[getter]
    fn max_kept_chars(&self) -> usize {
        self.inner.config().max_kept_chars
    }

    /// Whether results of `tool_name` pass through unchanged.
    fn is_bypassed(&self, tool_name: &str) -> bool {
        self.inner.config().is_bypassed(tool_name)
    }

    /// The effective settings and where each came from (what `toolcap config` prints).
    fn describe_config(&self) -> String {
        self.inner.config().describe()
    }

    /// The recovery tools' definitions for the model (`openai` or `anthropic` form).
    #[pyo3(signature = (format="openai"))]
    fn tool_definitions<'py>(&self, py: Python<'py>, format: &str) -> PyResult<Bound<'py, PyAny>> {
        let f = tool_format(format)?;
        let v = toolcap::store::tools::definitions(f, self.chunk.chunk_chars);
        to_py(py, &v)
    }

    /// Serve a recovery tool call from the attached store; None when `name` is not a
    /// recovery tool (the harness runs it as usual).
    #[pyo3(signature = (name, arguments=None, *, dialog=None))]
    fn dispatch(
        &self,
        py: Python<'_>,
        name: &str,
        arguments: Option<&Bound<'_, PyAny>>,
        dialog: Option<&str>,
    ) -> PyResult<Option<PyToolReply>> {
        let store = self.attached(py)?;
        dispatch(
            py,
            store.bind(py),
            name,
            arguments,
            Some(dialog.unwrap_or(&self.dialog)),
            self.chunk.chunk_chars,
            self.chunk.line_aligned,
        )
    }

    /// The next chunk of a stored result, or whole lines from `start_line` (from
    /// the attached store).
    #[pyo3(signature = (tool_call_id, offset=None, *, start_line=None, end_line=None, dialog=None))]
    fn get_continuation(
        &self,
        py: Python<'_>,
        tool_call_id: &str,
        offset: Option<usize>,
        start_line: Option<usize>,
        end_line: Option<usize>,
        dialog: Option<&str>,
    ) -> PyResult<PyToolReply> {
        let store = self.attached(py)?;
        get_continuation(
            py,
            store.bind(py),
            tool_call_id,
            offset,
            start_line,
            end_line,
            Some(dialog.unwrap_or(&self.dialog)),
            self.chunk.chunk_chars,
            self.chunk.line_aligned,
        )
    }

    /// The lines of a stored result matching a regular expression (from the attached store).
    #[pyo3(signature = (tool_call_id, pattern, *, context=1, max_matches=lines::DEFAULT_MAX_MATCHES, skip=0, ignore_case=false, dialog=None))]
    #[allow(clippy::too_many_arguments)]
    fn search_tool_output(
        &self,
        py: Python<'_>,
        tool_call_id: &str,
        pattern: &str,
        context: usize,
        max_matches: usize,
        skip: usize,
        ignore_case: bool,
        dialog: Option<&str>,
    ) -> PyResult<PyToolReply> {
        let store = self.attached(py)?;
        search_tool_output(
            py,
            store.bind(py),
            tool_call_id,
            pattern,
            context,
            max_matches,
            skip,
            ignore_case,
            Some(dialog.unwrap_or(&self.dialog)),
        )
    }

    /// A stored call's tool name, arguments and output as JSON text (from the attached store).
    #[pyo3(signature = (tool_call_id, offset=None, limit=None, *, dialog=None))]
    fn fetch_tool_output(
        &self,
        py: Python<'_>,
        tool_call_id: &str,
        offset: Option<usize>,
        limit: Option<usize>,
        dialog: Option<&str>,
    ) -> PyResult<PyToolReply> {
        let store = self.attached(py)?;
        fetch_tool_output(
            py,
            store.bind(py),
            tool_call_id,
            offset,
            limit,
            Some(dialog.unwrap_or(&self.dialog)),
        )
    }

    /// The full stored output (from the attached store).
    #[pyo3(signature = (tool_call_id, *, dialog=None))]
    fn get_tool_result(
        &self,
        py: Python<'_>,
        tool_call_id: &str,
        dialog: Option<&str>,
    ) -> PyResult<PyToolReply> {
        let store = self.attached(py)?;
        get_tool_result(
            py,
            store.bind(py),
            tool_call_id,
            Some(dialog.unwrap_or(&self.dialog)),
        )
    }

    /// An OpenAI-style history with the references to stored results of this dialog
    /// swapped for their full content where `load_tool_results` asks.
    #[pyo3(signature = (messages, load_tool_results=None, *, dialog=None))]
    fn prepare_messages<'py>(
        &self,
        py: Python<'py>,
        messages: &Bound<'py, PyAny>,
        load_tool_results: Option<&Bound<'py, PyAny>>,
        dialog: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let store = self.attached(py)?;
        prepare_messages(
            py,
            store.bind(py),
            messages,
            load_tool_results,
            Some(dialog.unwrap_or(&self.dialog)),
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "ToolResultProcessor(max_kept_chars={}, store={}, dialog={:?})",
            self.inner.config().max_kept_chars,
            self.store
                .as_ref()
                .map_or("None", |(_, s)| s.storage_type()),
            self.dialog
        )
    }
}

impl PyProcessor {
    fn attached(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.store
            .as_ref()
            .map(|(o, _)| o.clone_ref(py))
            .ok_or_else(|| {
                ToolcapError::new_err(
                    "no result store attached; create the processor with store=toolcap.MemoryStore() or store=toolcap.SqliteStore(path)",
                )
            })
    }
}

/// For python/bench.py: seconds the Rust library alone takes for `n` calls of
/// `process(tool_name, result, args)` (no Python in the loop; GIL released).
#[pyfunction]
#[pyo3(signature = (tool_name, result, args=None, n=1))]
fn _time_rust(
    py: Python<'_>,
    tool_name: &str,
    result: &Bound<'_, PyAny>,
    args: Option<&Bound<'_, PyAny>>,
    n: usize,
) -> PyResult<f64> {
    let args = args_of(args)?;
    let input = Input::of(result)?;
    let processor = toolcap::ToolResultProcessor::new(config_of(py, None)?);
    run(py, || {
        let t = std::time::Instant::now();
        for _ in 0..n {
            let text = input.text();
            std::hint::black_box(processor.process(tool_name, &text, &args));
        }
        t.elapsed().as_secs_f64()
    })
}

/// For the tests: a panic inside Rust work, which must come out as a `ToolcapError`.
#[pyfunction]
fn _panic_for_tests(py: Python<'_>) -> PyResult<()> {
    run::<()>(py, || panic!("deliberate panic for the tests"))
}

/// The native module.
#[pymodule]
fn _toolcap(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ToolcapError", py.get_type::<ToolcapError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("StoreError", py.get_type::<StoreError>())?;
    m.add("OutlineError", py.get_type::<OutlineError>())?;
    m.add_class::<PyProcessor>()?;
    m.add_class::<PyProcessed>()?;
    m.add_class::<PyOutline>()?;
    m.add_class::<PySymbol>()?;
    m.add_class::<PyToolReply>()?;
    m.add_class::<PyMemoryStore>()?;
    m.add_class::<PySqliteStore>()?;
    m.add_function(wrap_pyfunction!(py_outline, m)?)?;
    m.add_function(wrap_pyfunction!(languages, m)?)?;
    m.add_function(wrap_pyfunction!(get_continuation, m)?)?;
    m.add_function(wrap_pyfunction!(search_tool_output, m)?)?;
    m.add_function(wrap_pyfunction!(fetch_tool_output, m)?)?;
    m.add_function(wrap_pyfunction!(get_tool_result, m)?)?;
    m.add_function(wrap_pyfunction!(tool_definitions, m)?)?;
    m.add_function(wrap_pyfunction!(dispatch, m)?)?;
    m.add_function(wrap_pyfunction!(prepare_messages, m)?)?;
    m.add_function(wrap_pyfunction!(reference_message, m)?)?;
    m.add_function(wrap_pyfunction!(store_put, m)?)?;
    m.add_function(wrap_pyfunction!(store_get, m)?)?;
    m.add_function(wrap_pyfunction!(store_meta, m)?)?;
    m.add_function(wrap_pyfunction!(store_list, m)?)?;
    m.add_function(wrap_pyfunction!(store_delete_dialog, m)?)?;
    m.add_function(wrap_pyfunction!(store_prune_older_than, m)?)?;
    m.add_function(wrap_pyfunction!(_time_rust, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add(
        "_build_profile",
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
    )?;
    Ok(())
}
