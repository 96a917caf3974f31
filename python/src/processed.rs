//! `Processed`: what `ToolResultProcessor.process` returns.
//!
//! It holds the report as the `toolcap process --json` object (made once by
//! [`toolcap::bind::report_json`], the CLI's own) with the text kept apart as the
//! Python str the caller gets: the attributes read the object, `to_dict()` and
//! `to_json()` return it, and pickling carries it.

use pyo3::prelude::*;
use pyo3::types::PyString;
use serde_json::{Map, Value};

use crate::ToolcapError;
use crate::convert::to_py;
use crate::outline::PyOutline;

/// `__reduce__`'s value: the function that rebuilds, and its arguments.
type Reduced<'py> = (Bound<'py, PyAny>, (String, Py<PyString>));

/// What `ToolResultProcessor.process` returns: the text the model should see and the
/// exact facts behind it. Attributes are the fields of `toolcap process --json`;
/// `to_dict()` is that JSON object.
#[pyclass(module = "toolcap", name = "Processed", frozen)]
pub(crate) struct PyProcessed {
    /// The report, with `text` set to null (the text is `self.text`).
    report: Map<String, Value>,
    text: Py<PyString>,
}

impl PyProcessed {
    /// From the report's JSON object and the text the caller gets.
    pub(crate) fn new(report: Value, text: Py<PyString>) -> PyResult<PyProcessed> {
        let Value::Object(mut report) = report else {
            return Err(ToolcapError::new_err("the report is not a JSON object"));
        };
        if let Some(t) = report.get_mut("text") {
            *t = Value::Null;
        }
        Ok(PyProcessed { report, text })
    }

    fn get(&self, k: &str) -> &Value {
        self.report.get(k).unwrap_or(&Value::Null)
    }

    fn str_of(&self, k: &str) -> Option<&str> {
        self.get(k).as_str()
    }

    fn usize_of(&self, k: &str) -> Option<usize> {
        self.get(k).as_u64().and_then(|n| usize::try_from(n).ok())
    }

    fn value<'py>(&self, py: Python<'py>, k: &str) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.get(k))
    }

    /// The whole report, text included.
    fn json_value(&self, py: Python<'_>) -> Value {
        let mut m = self.report.clone();
        if let Some(t) = m.get_mut("text") {
            *t = Value::String(self.text.bind(py).to_string());
        }
        Value::Object(m)
    }
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
        self.str_of("tool").unwrap_or("")
    }
    /// The tool family (`read_file`, `grep`, `shell`, `web_search`, `web_fetch`, `glob`, `generic`, or a custom family's name).
    #[getter]
    fn family(&self) -> &str {
        self.str_of("family").unwrap_or("")
    }
    /// The result was cut.
    #[getter]
    fn truncated(&self) -> bool {
        self.get("truncated").as_bool().unwrap_or(false)
    }
    /// The tool is bypassed: the result passes through unchanged.
    #[getter]
    fn bypassed(&self) -> bool {
        self.get("bypassed").as_bool().unwrap_or(false)
    }
    /// Why it was or was not cut: `bypass`, `under_threshold`, `cleaned`, `already_cut`, `cut`, `binary`.
    #[getter]
    fn reason(&self) -> &str {
        self.str_of("reason").unwrap_or("")
    }
    /// The tool's threshold, in `unit`.
    #[getter]
    fn threshold(&self) -> usize {
        self.usize_of("threshold").unwrap_or(0)
    }
    /// `chars` or `tokens`.
    #[getter]
    fn unit(&self) -> &str {
        self.str_of("unit").unwrap_or("chars")
    }
    /// How much of the original may be kept, in `unit`.
    #[getter]
    fn kept_budget(&self) -> usize {
        self.usize_of("kept_budget").unwrap_or(0)
    }
    /// Where `threshold` and `kept_budget` come from: `config`, `context`,
    /// `model` or `size_hint` (see docs/budgets.md).
    #[getter]
    fn budget_source(&self) -> &str {
        self.str_of("budget_source").unwrap_or("config")
    }
    /// The figures behind the budgets when the call passed `context_left=`,
    /// `context_limit=`, `context_used=` or `model=`; else None.
    #[getter]
    fn budget<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.value(py, "budget")
    }
    /// `{"chars", "bytes", "lines"}` of the original result.
    #[getter]
    fn original<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.value(py, "original")
    }
    /// Tokens of the original, when the tool counts in tokens; else None.
    #[getter]
    fn original_tokens(&self) -> Option<usize> {
        self.usize_of("original_tokens")
    }
    /// Kept parts, as `[{"start_line", "end_line"}, ...]` of the original.
    #[getter]
    fn kept<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.value(py, "kept")
    }
    /// `{"chars", "lines", "ranges"}`: what was omitted, exactly.
    #[getter]
    fn omitted<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.value(py, "omitted")
    }
    /// What terminal-noise cleaning did, when it changed anything; else None.
    #[getter]
    fn cleaning<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.value(py, "cleaning")
    }
    /// What JSON reshaping dropped, when a JSON result was cut as JSON; else None.
    #[getter]
    fn json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.value(py, "json")
    }
    /// How much of a fetched HTML page's text was shown (`text_chars`,
    /// `shown_chars`), when the page was cut as its text; else None.
    #[getter]
    fn html<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.value(py, "html")
    }
    /// Detected language or content kind of the result, if any.
    #[getter]
    fn language(&self) -> Option<&str> {
        self.str_of("language")
    }
    /// The outline of the result (an `Outline`), if one was made.
    #[getter]
    fn outline(&self) -> Option<PyOutline> {
        PyOutline::from_json(self.get("outline"))
    }
    /// Runnable suggestions: `[{"tool", "args", "purpose"}, ...]`.
    #[getter]
    fn suggestions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.value(py, "suggestions")
    }
    /// Where the full result was kept (`{"tool_call_id", "dialog_id", "storage_type", "offset"}`), or None.
    #[getter]
    fn stored<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.value(py, "stored")
    }
    /// Why keeping the full result failed, or None.
    #[getter]
    fn store_error(&self) -> Option<&str> {
        self.str_of("store_error")
    }
    /// The tool call id passed to `process`, or None.
    #[getter]
    fn tool_call_id(&self) -> Option<&str> {
        self.str_of("tool_call_id")
    }
    /// The report as the `toolcap process --json` object (same keys, same order).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.json_value(py))
    }
    /// The report as JSON text, byte for byte what `toolcap process --json` prints
    /// (without the final newline).
    fn to_json(&self, py: Python<'_>) -> String {
        self.json_value(py).to_string()
    }
    fn __str__(&self, py: Python<'_>) -> Py<PyString> {
        self.text.clone_ref(py)
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Processed(tool={:?}, family={:?}, truncated={}, original_chars={}, text_chars={})",
            self.tool(),
            self.family(),
            if self.truncated() { "True" } else { "False" },
            self.get("original")
                .get("chars")
                .and_then(Value::as_u64)
                .unwrap_or(0),
            self.text.bind(py).len()?
        ))
    }
    /// Pickling: the report without its text, and the text.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        let f = py
            .import("toolcap._toolcap")?
            .getattr("_processed_from_state")?;
        Ok((
            f,
            (
                Value::Object(self.report.clone()).to_string(),
                self.text.clone_ref(py),
            ),
        ))
    }
}

#[pyfunction]
fn _processed_from_state(report: &str, text: Py<PyString>) -> PyResult<PyProcessed> {
    let v: Value = serde_json::from_str(report)
        .map_err(|e| ToolcapError::new_err(format!("cannot unpickle a Processed: {e}")))?;
    PyProcessed::new(v, text)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyProcessed>()?;
    m.add_function(wrap_pyfunction!(_processed_from_state, m)?)?;
    Ok(())
}
