//! `toolcap._toolcap`: the native half of the `toolcap` Python package (PyO3).
//!
//! A thin layer over toolcap's public API: the processor, the result stores, the
//! outline and the recovery tools. What a user passes is converted by
//! [`toolcap::bind`], the layer the `toolcap` command line uses too, so both
//! accept the same names and fail with the same messages. Every call into Rust
//! releases the GIL ([`Python::detach`]) and runs under `catch_unwind`, so a
//! panic becomes a `ToolcapError`, never an abort or a `PanicException`.
//!
//! The modules: `convert` (Python values ↔ JSON, str/bytes input), `stores`,
//! `outline`, `processed` (the report), `recovery` (the recovery tools' replies),
//! `processor` (the processor), `stream` (results read in pieces) and `cli` (the
//! `toolcap` command of the wheel).

use std::panic::{AssertUnwindSafe, catch_unwind};

use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;

mod cli;
mod convert;
mod outline;
mod processed;
mod processor;
mod query;
mod recovery;
mod stores;
mod stream;

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

/// Run `f` with the GIL released; a panic becomes a `ToolcapError`.
pub(crate) fn run<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
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

pub(crate) fn store_err(e: toolcap::StoreError) -> PyErr {
    StoreError::new_err(e.to_string())
}

/// A value the user passed that [`toolcap::bind`] rejects: a `ValueError` whose
/// message starts with the parameter's name.
pub(crate) fn bind_err(what: &str, e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("{what}: {e}"))
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
    stores::register(m)?;
    outline::register(m)?;
    processed::register(m)?;
    recovery::register(m)?;
    query::register(m)?;
    processor::register(m)?;
    stream::register(m)?;
    cli::register(m)?;
    convert::register(m)?;
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
