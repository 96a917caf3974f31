//! `outline()`, `Outline`, `Symbol`, `languages()`.
//!
//! An `Outline` holds its `toolcap outline --json` object (without `path`): the
//! attributes read it, `to_dict()` returns it, and pickling carries it.

use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use serde_json::{Map, Value};
use toolcap::bind::{self, Lang};
use toolcap::outline::text;
use toolcap::{Language, outline};

use crate::convert::{Input, parse_lang, to_py};
use crate::{OutlineError, ToolcapError, run};

/// One definition in an outline.
#[pyclass(module = "toolcap", name = "Symbol", frozen, get_all, eq)]
#[derive(PartialEq)]
pub(crate) struct PySymbol {
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

impl PySymbol {
    fn of(v: &Value) -> PySymbol {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let n = |k: &str| {
            v.get(k)
                .and_then(Value::as_u64)
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or(0)
        };
        PySymbol {
            kind: s("kind").unwrap_or_default(),
            name: s("name").unwrap_or_default(),
            line: n("line"),
            end_line: n("end_line"),
            depth: n("depth"),
            parent: s("parent"),
            detail: s("detail"),
        }
    }

    fn json(&self) -> Value {
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
        Value::Object(m)
    }
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
        to_py(py, &self.json())
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let f = py
            .import("toolcap._toolcap")?
            .getattr("_symbol_from_json")?;
        Ok((f, (self.json().to_string(),)))
    }
}

#[pyfunction]
fn _symbol_from_json(state: &str) -> PyResult<PySymbol> {
    let v: Value = serde_json::from_str(state)
        .map_err(|e| ToolcapError::new_err(format!("cannot unpickle a Symbol: {e}")))?;
    Ok(PySymbol::of(&v))
}

/// The code structure of one source text.
#[pyclass(module = "toolcap", name = "Outline", frozen)]
pub(crate) struct PyOutline {
    v: Map<String, Value>,
}

impl PyOutline {
    /// From the serialized outline (`toolcap outline --json` without `path`).
    pub(crate) fn from_json(v: &Value) -> Option<PyOutline> {
        v.as_object().map(|m| PyOutline { v: m.clone() })
    }

    fn n(&self, k: &str) -> usize {
        self.v
            .get(k)
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0)
    }

    fn b(&self, k: &str) -> bool {
        self.v.get(k).and_then(Value::as_bool).unwrap_or(false)
    }
}

#[pymethods]
impl PyOutline {
    /// The language's name (`python`, `rust`, ...).
    #[getter]
    fn language(&self) -> &str {
        self.v.get("language").and_then(Value::as_str).unwrap_or("")
    }
    /// Number of lines in the source.
    #[getter]
    fn lines(&self) -> usize {
        self.n("lines")
    }
    /// True when only lines 1..covered_lines were outlined.
    #[getter]
    fn partial(&self) -> bool {
        self.b("partial")
    }
    /// The outline covers lines 1 to this.
    #[getter]
    fn covered_lines(&self) -> usize {
        self.n("covered_lines")
    }
    /// `time_budget` or `size_cap` when partial, else None.
    #[getter]
    fn stopped_by(&self) -> Option<&str> {
        self.v.get("stopped_by").and_then(Value::as_str)
    }
    /// The parser found syntax errors: the symbols are a best effort.
    #[getter]
    fn syntax_errors(&self) -> bool {
        self.b("syntax_errors")
    }
    /// With `syntax_errors`, the lines read best-effort, as
    /// `[{"start", "end"}, ...]` (1-based, inclusive): each error is contained
    /// to the statement it sits in, so definitions there may be missing or
    /// their lines off; the rest is read as without the error. Empty without
    /// errors.
    #[getter]
    fn best_effort<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.v.get("best_effort") {
            Some(v) => to_py(py, v),
            None => Ok(PyList::empty(py).into_any()),
        }
    }
    /// Definitions in source order.
    #[getter]
    fn symbols(&self) -> Vec<PySymbol> {
        self.v
            .get("symbols")
            .and_then(Value::as_array)
            .map_or_else(Vec::new, |a| a.iter().map(PySymbol::of).collect())
    }
    /// The outline as the JSON of `toolcap outline --json` (without `path`).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &Value::Object(self.v.clone()))
    }
    fn __len__(&self) -> usize {
        self.v
            .get("symbols")
            .and_then(Value::as_array)
            .map_or(0, Vec::len)
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyOutline>().is_ok_and(|o| o.get().v == self.v)
    }
    fn __repr__(&self) -> String {
        format!(
            "Outline(language={:?}, lines={}, partial={}, symbols=<{}>)",
            self.language(),
            self.lines(),
            if self.partial() { "True" } else { "False" },
            self.__len__()
        )
    }
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let f = py
            .import("toolcap._toolcap")?
            .getattr("_outline_from_json")?;
        Ok((f, (Value::Object(self.v.clone()).to_string(),)))
    }
}

#[pyfunction]
fn _outline_from_json(state: &str) -> PyResult<PyOutline> {
    serde_json::from_str::<Value>(state)
        .ok()
        .as_ref()
        .and_then(PyOutline::from_json)
        .ok_or_else(|| ToolcapError::new_err("cannot unpickle an Outline: not its JSON object"))
}

/// The language of `source`: the one named, else as `toolcap outline` decides it
/// (shebang, extension, content).
fn outline_language(
    language: Option<&str>,
    path: Option<&str>,
    source: &str,
) -> PyResult<Language> {
    match parse_lang(language)? {
        Some(Lang::Code(l)) => return Ok(l),
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "language {:?} is a text format: outline() makes code outlines; use outline_text(source, format={:?})",
                other.name(),
                other.name()
            )));
        }
        None => {}
    }
    Language::detect(path, source).ok_or_else(|| {
        PyValueError::new_err(format!(
            "{}: cannot tell the language from the file name or content; pass language=NAME (one of: {}); for a text format use outline_text()",
            path.unwrap_or("source"),
            bind::language_names()
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
    let v = serde_json::to_value(&o).map_err(|e| ToolcapError::new_err(e.to_string()))?;
    PyOutline::from_json(&v).ok_or_else(|| ToolcapError::new_err("outline: not a JSON object"))
}

/// outline_text(source, format=None, *, path=None) -> dict | None: the outline of a
/// non-code text (`toolcap outline --json` of a markdown, JSON, YAML, ... file:
/// `format`, `lines`, `title`, `entries`); the format named, else detected from
/// `path` and the content; None when it is no text format toolcap knows.
#[pyfunction]
#[pyo3(signature = (source, format=None, *, path=None))]
fn outline_text<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    format: Option<&str>,
    path: Option<&str>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let input = Input::of(source)?;
    let text = input.text();
    let format = match format {
        Some(name) => Some(text::Format::from_name(name).ok_or_else(|| {
            PyValueError::new_err(format!(
                "format {name:?}: unknown text format; use one of: {}",
                bind::text_format_names()
            ))
        })?),
        None => text::detect(path, &text),
    };
    let Some(format) = format else {
        return Ok(None);
    };
    let v = run(py, || {
        let o = text::outline_capped(format, &text, usize::MAX);
        serde_json::json!({
            "format": format.as_str(),
            "lines": text.lines().count(),
            "title": o.as_ref().map(|o| o.title.clone()),
            "entries": o.as_ref().map_or(&[][..], |o| &o.lines[..]),
        })
    })?;
    to_py(py, &v).map(Some)
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

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyOutline>()?;
    m.add_class::<PySymbol>()?;
    m.add_function(wrap_pyfunction!(py_outline, m)?)?;
    m.add_function(wrap_pyfunction!(outline_text, m)?)?;
    m.add_function(wrap_pyfunction!(languages, m)?)?;
    m.add_function(wrap_pyfunction!(_outline_from_json, m)?)?;
    m.add_function(wrap_pyfunction!(_symbol_from_json, m)?)?;
    Ok(())
}
