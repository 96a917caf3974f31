//! The `toolcap` command in the wheel: the command line's own code (`src/cli/`
//! of the crate root, compiled into this extension), run by the `toolcap`
//! console script (`toolcap._cli:main`). One copy of the library in the wheel,
//! one build; the price is the Python start-up on each run (about 30 ms).

use std::ffi::OsString;
use std::io::Write;

use clap::Parser;
use pyo3::prelude::*;

#[allow(dead_code, unused_imports)]
#[path = "../../src/cli/mod.rs"]
mod commands;

/// Run the command line with `argv` (program name first); returns the exit code.
/// Output goes straight to the process's stdout and stderr.
#[pyfunction]
fn _run_cli(py: Python<'_>, argv: Vec<OsString>) -> u8 {
    py.detach(|| {
        let parsed = match commands::Cli::try_parse_from(argv) {
            Ok(c) => c,
            Err(e) => {
                let code = if e.use_stderr() { 2 } else { 0 };
                let _ = e.print();
                return code;
            }
        };
        match commands::run(parsed) {
            Ok(()) => 0,
            Err(f) => {
                let _ = writeln!(std::io::stderr(), "toolcap: {}", f.message);
                f.code
            }
        }
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_run_cli, m)?)?;
    Ok(())
}
