//! `ToolResultProcessor`: the processor, with its store and dialog.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use toolcap::bind;
use toolcap::store::continuation::ChunkOptions;
use toolcap::store::lines;
use toolcap::store::{self, ResultStore};
use toolcap::{Config, MemoryStore, ToolCall};

use crate::convert::{Input, args_of, check_id, dialog_of, parse_lang, to_json, to_py};
use crate::processed::PyProcessed;
use crate::recovery::{self, PyToolReply};
use crate::stores::store_of;
use crate::{ConfigError, ToolcapError, run, store_err, stream};

/// The `Processed` of a report: its text is the very str passed in when the
/// result passed through unchanged (no copy; lone surrogates and all), else the
/// report's.
/// A call's checked parts (`process` and `process_stream` take the same keywords).
struct CallParts<'a> {
    args: serde_json::Value,
    lang: Option<toolcap::Language>,
    id: Option<&'a str>,
    dialog: &'a str,
    context: bind::Context,
}

impl CallParts<'_> {
    /// The library's call of `tool` from these parts.
    fn call<'c>(&'c self, tool: &'c str) -> ToolCall<'c> {
        let mut call = ToolCall::new(tool, &self.args);
        call.lang = self.lang;
        call.id = self.id;
        call.dialog = Some(self.dialog);
        call.context = self.context.window();
        call
    }
}

fn processed(
    py: Python<'_>,
    mut report: serde_json::Value,
    given: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyProcessed> {
    let unchanged = matches!(
        report.get("reason").and_then(|r| r.as_str()),
        Some("bypass" | "under_threshold" | "already_cut")
    );
    let text = match given.and_then(|g| g.cast::<PyString>().ok()) {
        Some(s) if unchanged => s.clone().unbind(),
        _ => {
            let t = report
                .get_mut("text")
                .map(serde_json::Value::take)
                .unwrap_or_default();
            PyString::new(py, t.as_str().unwrap_or("")).unbind()
        }
    };
    PyProcessed::new(report, text)
}

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
        .map_err(|mut e| {
            // a line of the TOML the dict was written as means nothing to its author
            e.line = None;
            cfg_err(e)
        });
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
#[pyclass(module = "toolcap", name = "ToolResultProcessor", frozen, subclass)]
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
        let dialog = dialog_of(dialog, store::DEFAULT_DIALOG)?.to_string();
        let save = bind::save_when(save).map_err(|e| PyValueError::new_err(e.to_string()))?;
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
    /// `result` is str or bytes (bytes read as the CLI reads files: UTF-8, or a
    /// legacy encoding when clearly one, other bad bytes replaced); `args` a dict or JSON text of one. With a store attached and a
    /// `tool_call_id`, the full result is kept (under `dialog`, else the processor's)
    /// and the text says how to read the rest. `lang` overrides language detection.
    /// Raises `StoreError` when the store cannot keep the result or an id is invalid.
    #[pyo3(signature = (tool_name, result, args=None, tool_call_id=None, *, dialog=None, lang=None, context_left=None, context_limit=None, context_used=None, model=None))]
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
        context_left: Option<usize>,
        context_limit: Option<usize>,
        context_used: Option<usize>,
        model: Option<String>,
    ) -> PyResult<PyProcessed> {
        let context = self.context(context_left, context_limit, context_used, model)?;
        let parts = self.call_parts(args, lang, tool_call_id, dialog, context)?;
        let input = Input::of(result)?;
        let report = run(py, || {
            let call = parts.call(tool_name);
            let p = match &input {
                Input::Str(text) => self.inner.try_process_call(&call, text),
                // as the CLI reads a file: a legacy encoding decoded, the bytes counted
                Input::Bytes(b) => self.inner.try_process_bytes(&call, b).map(|(p, _)| p),
            };
            p.map(|p| bind::report_json(&p, tool_call_id))
        })?
        .map_err(store_err)?;
        // a large str's converted copy is freed off the GIL too
        py.detach(move || drop(input));
        processed(py, report, Some(result))
    }

    /// Process a result read in pieces, with bounded memory (the head, the tail and
    /// the error lines are kept, the rest counted; with a store, the full result
    /// is written to it as it is read). `source` is a binary or text file object
    /// (anything with `read(n)`: an open file, `subprocess.Popen.stdout`, an
    /// `io.BytesIO`), an iterable of bytes or str pieces, or a `memoryview` /
    /// `mmap` / bytes-like object read in slices. Same report as `process` on the
    /// whole text.
    #[pyo3(signature = (tool_name, source, args=None, tool_call_id=None, *, dialog=None, lang=None, context_left=None, context_limit=None, context_used=None, model=None))]
    #[allow(clippy::too_many_arguments)] // the Python signature
    fn process_stream(
        &self,
        py: Python<'_>,
        tool_name: &str,
        source: &Bound<'_, PyAny>,
        args: Option<&Bound<'_, PyAny>>,
        tool_call_id: Option<&str>,
        dialog: Option<&str>,
        lang: Option<&str>,
        context_left: Option<usize>,
        context_limit: Option<usize>,
        context_used: Option<usize>,
        model: Option<String>,
    ) -> PyResult<PyProcessed> {
        let context = self.context(context_left, context_limit, context_used, model)?;
        let parts = self.call_parts(args, lang, tool_call_id, dialog, context)?;
        let call = parts.call(tool_name);
        let (report, raw) = stream::process(py, &self.inner, &call, source)?;
        // passed through unchanged: the original bytes, decoded as `process` would
        let text = raw.map(|raw| PyString::new(py, &String::from_utf8_lossy(&raw)).into_any());
        processed(py, report, text.as_ref())
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
        let f = recovery::tool_format(format)?;
        let v = store::tools::definitions(f, self.chunk.chunk_chars);
        to_py(py, &v)
    }

    /// Serve a recovery tool call from the attached store; None when `name` is not a
    /// recovery tool (the harness runs it as usual). Without a store, a recovery
    /// call gets the "No cached result" reply.
    #[pyo3(signature = (name, arguments=None, *, dialog=None))]
    fn dispatch(
        &self,
        py: Python<'_>,
        name: &str,
        arguments: Option<&Bound<'_, PyAny>>,
        dialog: Option<&str>,
    ) -> PyResult<Option<PyToolReply>> {
        // without a store, a recovery call gets the reply a model can read ("No
        // cached result ..."), as from a store that holds nothing
        let store: Arc<dyn ResultStore> = match &self.store {
            Some((_, s)) => s.clone(),
            None => Arc::new(MemoryStore::new()),
        };
        let dialog = dialog_of(dialog, &self.dialog)?;
        recovery::dispatch_in(py, store, name, arguments, dialog, self.chunk)
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
        recovery::get_continuation(
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
    #[pyo3(signature = (tool_call_id, pattern, *, context=1, max_matches=lines::DEFAULT_MAX_MATCHES, skip=0, ignore_case=false, dialog=None, from_end=false))]
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
        from_end: bool,
    ) -> PyResult<PyToolReply> {
        let store = self.attached(py)?;
        recovery::search_tool_output(
            py,
            store.bind(py),
            tool_call_id,
            pattern,
            context,
            max_matches,
            skip,
            ignore_case,
            Some(dialog.unwrap_or(&self.dialog)),
            from_end,
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
        recovery::fetch_tool_output(
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
        recovery::get_tool_result(
            py,
            store.bind(py),
            tool_call_id,
            Some(dialog.unwrap_or(&self.dialog)),
        )
    }

    /// An OpenAI-style history with the references to stored results of this dialog
    /// swapped for their full content where `load_tool_results` asks; or, with
    /// `policy`, any-format history with old results masked in batches (kept in
    /// this processor's store, read back with the recovery call its config names).
    #[pyo3(signature = (messages, load_tool_results=None, *, dialog=None, policy=None))]
    fn prepare_messages<'py>(
        &self,
        py: Python<'py>,
        messages: &Bound<'py, PyAny>,
        load_tool_results: Option<&Bound<'py, PyAny>>,
        dialog: Option<&str>,
        policy: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let store = self.attached(py)?;
        recovery::prepare_messages_in(
            py,
            store.bind(py),
            messages,
            load_tool_results,
            Some(dialog.unwrap_or(&self.dialog)),
            policy,
            Some(self.inner.config()),
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
    /// The checked parts of a call, as `process` and `process_stream` take them:
    /// the arguments (with a text format's `language` put in), the code language,
    /// and the dialog (the processor's unless given).
    fn call_parts<'a>(
        &'a self,
        args: Option<&Bound<'_, PyAny>>,
        lang: Option<&str>,
        tool_call_id: Option<&'a str>,
        dialog: Option<&'a str>,
        context: bind::Context,
    ) -> PyResult<CallParts<'a>> {
        let mut args = args_of(args)?;
        let lang = parse_lang(lang)?.and_then(|l| l.apply(&mut args));
        if let Some(id) = tool_call_id {
            check_id("tool_call_id", id)?;
        }
        let dialog = dialog_of(dialog, &self.dialog)?;
        Ok(CallParts {
            args,
            lang,
            id: tool_call_id,
            dialog,
            context,
        })
    }

    /// `context_left=`, `context_limit=`, `context_used=`, `model=`: checked
    /// as the CLI checks its flags (ValueError naming the keyword and the fix).
    fn context(
        &self,
        left: Option<usize>,
        limit: Option<usize>,
        used: Option<usize>,
        model: Option<String>,
    ) -> PyResult<bind::Context> {
        let c = bind::Context {
            left,
            limit,
            used,
            model,
        };
        c.check(self.inner.config())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(c)
    }

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

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyProcessor>()?;
    m.add_function(wrap_pyfunction!(_time_rust, m)?)?;
    Ok(())
}
