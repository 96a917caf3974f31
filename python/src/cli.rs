//! The `toolcap` command in the wheel: the `toolcap-cli` crate (the same command
//! line as the `toolcap` binary), compiled into this extension and run by the
//! `toolcap` console script (`toolcap._cli:main`). One copy of the library in the
//! wheel, one build; the price is the Python start-up on each run (about 30 ms).

use std::ffi::OsString;

use pyo3::prelude::*;

/// Run the command line with `argv` (program name first); returns the exit code.
/// Output goes straight to the process's stdout and stderr.
#[pyfunction]
fn _run_cli(py: Python<'_>, argv: Vec<OsString>) -> u8 {
    py.detach(|| {
        toolcap_cli::init_logging();
        toolcap_cli::main_with(argv)
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_run_cli, m)?)?;
    Ok(())
}
