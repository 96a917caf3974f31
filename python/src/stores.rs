//! The result stores: `MemoryStore`, `SqliteStore`, and the operations both
//! offer (module functions taking the store first; the Python package binds
//! them as methods).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;
use toolcap::bind::{self, Dirs, StoreSpec};
use toolcap::store::{self, Meta, ResultStore};
use toolcap::{MemoryStore, SqliteStore};

use crate::convert::{Input, args_of, check_id, dialog_of, to_py};
use crate::{bind_err, run, store_err};

/// A result store kept in memory, for the life of this object (a per-turn cache).
///
/// `MemoryStore(limit_bytes=None)`: with a limit, the oldest results are dropped
/// first once the outputs held would exceed it.
#[pyclass(module = "toolcap", name = "MemoryStore", frozen, subclass)]
pub(crate) struct PyMemoryStore {
    inner: Arc<MemoryStore>,
    limit: Option<usize>,
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
            limit: limit_bytes,
        }
    }

    /// Number of results held.
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// Bytes of output held.
    #[getter]
    fn bytes(&self) -> usize {
        self.inner.bytes()
    }

    /// The byte limit, or None.
    #[getter]
    fn limit_bytes(&self) -> Option<usize> {
        self.limit
    }

    fn __repr__(&self) -> String {
        format!("MemoryStore(<{} results>)", self.inner.len())
    }
}

/// A result store in one SQLite database file (WAL mode; safe for many processes at
/// once): the store of the `toolcap` CLI (`--store PATH`).
///
/// `SqliteStore(path, *, create_dirs=False)` creates the file if it is missing; its
/// directory must exist unless `create_dirs` is true.
#[pyclass(module = "toolcap", name = "SqliteStore", frozen, subclass)]
pub(crate) struct PySqliteStore {
    inner: Arc<SqliteStore>,
}

#[pymethods]
impl PySqliteStore {
    #[new]
    #[pyo3(signature = (path, *, create_dirs=false))]
    fn new(py: Python<'_>, path: PathBuf, create_dirs: bool) -> PyResult<Self> {
        let dirs = if create_dirs {
            Dirs::Create
        } else {
            Dirs::MustExist
        };
        let s = run(py, || bind::open_sqlite(&path, dirs))?.map_err(store_err)?;
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

/// A result store in PostgreSQL, shared by many hosts: the CLI's `--store
/// postgres://...`. Needs a package built with the `postgres` feature (`maturin
/// develop --features postgres`); otherwise opening one is a `StoreError` saying so.
///
/// `PostgresStore(url)` creates toolcap's tables when they are missing.
#[pyclass(module = "toolcap", name = "PostgresStore", frozen, subclass)]
pub(crate) struct PyPostgresStore {
    inner: Arc<dyn ResultStore>,
    /// The URL without its password.
    shown: String,
}

#[pymethods]
impl PyPostgresStore {
    #[new]
    fn new(py: Python<'_>, url: &str) -> PyResult<Self> {
        let at = match StoreSpec::path_or_url(url) {
            Ok(StoreSpec::At(at)) if at.is_postgres() => at,
            _ => {
                return Err(PyValueError::new_err(
                    "url: expected a postgres:// or postgresql:// URL (postgres://user:password@host:port/database)",
                ));
            }
        };
        let inner = run(py, || at.open())?.map_err(store_err)?;
        Ok(PyPostgresStore {
            inner,
            shown: at.to_string(),
        })
    }

    /// The server and database, without the password.
    #[getter]
    fn url(&self) -> &str {
        &self.shown
    }

    fn __repr__(&self) -> String {
        format!("PostgresStore({:?})", self.shown)
    }
}

/// The Rust store behind a Python store object.
pub(crate) fn store_of(obj: &Bound<'_, PyAny>) -> PyResult<Arc<dyn ResultStore>> {
    if let Ok(m) = obj.cast::<PyMemoryStore>() {
        return Ok(m.get().inner.clone());
    }
    if let Ok(s) = obj.cast::<PySqliteStore>() {
        return Ok(s.get().inner.clone());
    }
    if let Ok(s) = obj.cast::<PyPostgresStore>() {
        return Ok(s.get().inner.clone());
    }
    Err(PyTypeError::new_err(format!(
        "store: expected a toolcap.MemoryStore, toolcap.SqliteStore or toolcap.PostgresStore, got {}",
        obj.get_type().name()?
    )))
}

/// What a store spec names, as [`toolcap::bind::StoreSpec::parse`] reads it:
/// `("memory", limit_bytes)`, `("sqlite", path)` or `("postgres", url)`; anything
/// else (`"memry"`) is a `ValueError`. The Python package turns it into a store
/// object.
#[pyfunction]
fn _store_spec(py: Python<'_>, spec: &str) -> PyResult<(&'static str, Py<PyAny>)> {
    match StoreSpec::parse(spec).map_err(|e| bind_err("store", e))? {
        StoreSpec::Memory { limit_bytes } => {
            Ok(("memory", limit_bytes.into_pyobject(py)?.into_any().unbind()))
        }
        StoreSpec::At(at) => match at.file_path() {
            Some(p) => Ok((
                at.backend(),
                p.to_path_buf().into_pyobject(py)?.into_any().unbind(),
            )),
            None => Ok((
                at.backend(),
                spec.trim().into_pyobject(py)?.into_any().unbind(),
            )),
        },
        _ => Err(PyValueError::new_err(format!(
            "store {spec:?}: not supported by this version of the Python package"
        ))),
    }
}

fn meta_dict<'py>(py: Python<'py>, m: &Meta) -> PyResult<Bound<'py, PyAny>> {
    // the fields of `toolcap show --meta`
    to_py(py, &m.show_json())
}

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
    let dialog = dialog_of(dialog, store::DEFAULT_DIALOG)?;
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
    let dialog = dialog_of(dialog, store::DEFAULT_DIALOG)?;
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
    let dialog = dialog_of(dialog, store::DEFAULT_DIALOG)?;
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

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyMemoryStore>()?;
    m.add_class::<PySqliteStore>()?;
    m.add_class::<PyPostgresStore>()?;
    m.add_function(wrap_pyfunction!(_store_spec, m)?)?;
    m.add_function(wrap_pyfunction!(store_put, m)?)?;
    m.add_function(wrap_pyfunction!(store_get, m)?)?;
    m.add_function(wrap_pyfunction!(store_meta, m)?)?;
    m.add_function(wrap_pyfunction!(store_list, m)?)?;
    m.add_function(wrap_pyfunction!(store_delete_dialog, m)?)?;
    m.add_function(wrap_pyfunction!(store_prune_older_than, m)?)?;
    Ok(())
}
