//! Results read in pieces: `ToolResultProcessor.process_stream` hands the Rust
//! processor's `try_process_chunks` one piece at a time, so a result of any
//! size is processed with bounded memory (and spilled into the store as it is
//! read). The GIL is released while the processor works and taken back only to
//! read the next piece.

use std::sync::Mutex;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView, PyString};
use serde_json::Value;
use toolcap::{StreamError, ToolCall, ToolResultProcessor, bind};

use crate::convert::str_of;
use crate::{run, store_err};

/// Bytes asked for per `read(n)` (and per slice of a buffer).
const PIECE: usize = 1 << 20;

/// Where the pieces come from.
enum Source {
    /// An object with `read(n)` (binary or text).
    Read(Py<PyAny>),
    /// An iterator of bytes or str pieces.
    Iter(Py<PyAny>),
    /// A buffer (`memoryview`, `bytes`, `bytearray`), read in slices of a
    /// byte-format `memoryview` over it.
    Buffer(Py<PyAny>, usize),
}

impl Source {
    fn of(obj: &Bound<'_, PyAny>) -> PyResult<Source> {
        if obj.cast::<PyString>().is_ok() {
            return Err(PyTypeError::new_err(
                "source: a str is already in memory; pass it to process() (process_stream takes a file object, an iterator of pieces or a buffer)",
            ));
        }
        if obj.cast::<PyBytes>().is_ok()
            || obj.cast::<PyByteArray>().is_ok()
            || obj.cast::<PyMemoryView>().is_ok()
        {
            let mv = PyMemoryView::from(obj)?.call_method1("cast", ("B",))?;
            let n = mv.len()?;
            return Ok(Source::Buffer(mv.unbind(), n));
        }
        if obj.hasattr("read")? {
            return Ok(Source::Read(obj.clone().unbind()));
        }
        match obj.try_iter() {
            Ok(it) => Ok(Source::Iter(it.into_any().unbind())),
            Err(_) => Err(PyTypeError::new_err(format!(
                "source: expected a file object (with read()), an iterable of bytes or str pieces, or a buffer (memoryview, mmap, bytes), got {}",
                obj.get_type().name()?
            ))),
        }
    }

    /// The next piece as bytes; None at the end. `at` counts a buffer's bytes read.
    fn next(&self, py: Python<'_>, at: &mut usize) -> PyResult<Option<Vec<u8>>> {
        let piece = match self {
            Source::Read(f) => f.bind(py).call_method1("read", (PIECE,))?,
            Source::Iter(it) => match it.bind(py).call_method0("__next__") {
                Ok(p) => p,
                Err(e) if e.is_instance_of::<pyo3::exceptions::PyStopIteration>(py) => {
                    return Ok(None);
                }
                Err(e) => return Err(e),
            },
            Source::Buffer(mv, len) => {
                if *at >= *len {
                    return Ok(None);
                }
                let end = (*at + PIECE).min(*len);
                let slice = mv.bind(py).get_item(pyo3::types::PySlice::new(
                    py,
                    *at as isize,
                    end as isize,
                    1,
                ))?;
                *at = end;
                slice.call_method0("tobytes")?
            }
        };
        bytes_of(&piece).map(|b| match (self, b.is_empty()) {
            // an empty read is the end of a file; an empty piece of an iterator is not
            (Source::Read(_), true) => None,
            (_, _) => Some(b),
        })
    }
}

/// A piece's bytes: bytes-like as is, str as UTF-8 (lone surrogates replaced),
/// None (what some readers return at the end) as nothing.
fn bytes_of(piece: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if piece.is_none() {
        return Ok(Vec::new());
    }
    if let Ok(b) = piece.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(s) = piece.cast::<PyString>() {
        return Ok(str_of(s)?.0.into_owned().into_bytes());
    }
    if let Ok(b) = piece.cast::<PyByteArray>() {
        return Ok(b.to_vec());
    }
    if piece.cast::<PyMemoryView>().is_ok() {
        return piece.call_method0("tobytes")?.extract();
    }
    Err(PyTypeError::new_err(format!(
        "source: a piece must be bytes or str, got {}",
        piece.get_type().name()?
    )))
}

/// Process `call`'s result read from `source`: the report (the CLI's `--json`
/// object) and, when it passed through unchanged, the original bytes.
pub(crate) fn process(
    py: Python<'_>,
    processor: &ToolResultProcessor,
    call: &ToolCall<'_>,
    source: &Bound<'_, PyAny>,
) -> PyResult<(Value, Option<Vec<u8>>)> {
    let src = Source::of(source)?;
    // a Python exception raised while reading, re-raised as it was
    let failed: Mutex<Option<PyErr>> = Mutex::new(None);
    let res = run(py, || {
        processor
            .try_process_chunks(call, |sink| {
                let mut at = 0usize;
                loop {
                    match Python::attach(|py| src.next(py, &mut at)) {
                        Ok(Some(p)) => sink(&p),
                        Ok(None) => return Ok(()),
                        Err(e) => {
                            let msg = e.to_string();
                            if let Ok(mut slot) = failed.lock() {
                                *slot = Some(e);
                            }
                            return Err(std::io::Error::other(msg));
                        }
                    }
                }
            })
            .map(|(p, raw)| (bind::report_json(&p, call.id), raw))
    })?;
    match res {
        Ok(v) => Ok(v),
        Err(StreamError::Store(e)) => Err(store_err(e)),
        Err(StreamError::Read(e)) => match failed.lock().ok().and_then(|mut slot| slot.take()) {
            Some(py_err) => Err(py_err),
            None => Err(pyo3::exceptions::PyOSError::new_err(format!(
                "source: cannot read the input: {e}"
            ))),
        },
        #[allow(unreachable_patterns)] // (should the error type grow)
        Err(e) => Err(crate::ToolcapError::new_err(e.to_string())),
    }
}

pub(crate) fn register(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
