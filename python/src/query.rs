//! `query_tool_output` as a typed call: the value at a path in a stored JSON
//! result, served through the recovery tools' own dispatch, so the reply is the one
//! the model gets for the same call (`dispatch("query_tool_output", ...)`).

use pyo3::prelude::*;
use serde_json::json;
use toolcap::store;
use toolcap::store::continuation;
use toolcap::store::tools::{Dispatch, QUERY_TOOL_OUTPUT, RecoveryTools};

use crate::ToolcapError;
use crate::convert::dialog_of;
use crate::recovery::{PyToolReply, chunk_options};
use crate::run;
use crate::stores::store_of;

/// query_tool_output(store, tool_call_id, path, *, dialog=None, chunk_chars=2000) -> ToolReply
#[pyfunction]
#[pyo3(signature = (store, tool_call_id, path, *, dialog=None, chunk_chars=continuation::DEFAULT_CHUNK_CHARS))]
pub(crate) fn query_tool_output(
    py: Python<'_>,
    store: &Bound<'_, PyAny>,
    tool_call_id: &str,
    path: &str,
    dialog: Option<&str>,
    chunk_chars: usize,
) -> PyResult<PyToolReply> {
    let s = store_of(store)?;
    let dialog = dialog_of(dialog, store::DEFAULT_DIALOG)?;
    let chunk = chunk_options(chunk_chars, false)?;
    let args = json!({ "tool_call_id": tool_call_id, "path": path });
    let d = run(py, || {
        RecoveryTools::new(s, dialog)
            .chunk_options(chunk)
            .dispatch(QUERY_TOOL_OUTPUT, &args)
    })?;
    match d {
        Dispatch::Handled(r) => Ok(r.into()),
        Dispatch::NotMine => Err(ToolcapError::new_err(
            "internal error: query_tool_output is not a recovery tool",
        )),
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(query_tool_output, m)?)?;
    Ok(())
}
