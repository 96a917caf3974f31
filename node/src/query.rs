//! `query_tool_output` as a typed method: the value at a path in a stored JSON
//! result. Served through the recovery tools' own dispatch, so the reply is the one
//! the model gets for the same call (`dispatch("query_tool_output", ...)`).

use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::{Value, json};
use toolcap::store::continuation::ChunkOptions;
use toolcap::store::tools::{Dispatch, QUERY_TOOL_OUTPUT, RecoveryTools};
use toolcap::store::{self as tstore, ResultStore};

use crate::convert::{self, dialog_of};
use crate::store::{NativeReply, NativeStore};
use crate::{Fail, Kind, ReplyJob, Res, sync};

/// The reply of `query_tool_output(tool_call_id, path)` in `dialog`.
fn query(
    store: Arc<dyn ResultStore>,
    dialog: &str,
    id: &str,
    path: &str,
    chunk: ChunkOptions,
) -> Res<NativeReply> {
    let args: Value = json!({ "tool_call_id": id, "path": path });
    match RecoveryTools::new(store, dialog)
        .chunk_options(chunk)
        .dispatch(QUERY_TOOL_OUTPUT, &args)
    {
        Dispatch::Handled(r) => Ok(NativeReply::from(r)),
        Dispatch::NotMine => Err(Fail::new(
            Kind::Toolcap,
            "internal error: query_tool_output is not a recovery tool",
        )),
    }
}

#[napi]
impl NativeStore {
    /// `query_tool_output`: the value at `path` (`.packages[0].name`) in a stored
    /// JSON result, as indented JSON, the reply within the recovery tools' size.
    #[napi]
    pub fn query_tool_output(
        &self,
        tool_call_id: String,
        path: String,
        dialog: Option<String>,
        chunk_chars: Option<f64>,
    ) -> Result<NativeReply> {
        sync(|| {
            let dialog = dialog_of(dialog, tstore::DEFAULT_DIALOG)?;
            let chunk = convert::chunk_options(chunk_chars, None)?;
            query(self.inner.clone(), &dialog, &tool_call_id, &path, chunk)
        })
    }

    /// [`Self::query_tool_output`] on the libuv pool.
    #[napi(ts_return_type = "Promise<NativeReply>")]
    pub fn query_tool_output_async(
        &self,
        tool_call_id: String,
        path: String,
        dialog: Option<String>,
        chunk_chars: Option<f64>,
    ) -> Result<AsyncTask<ReplyJob>> {
        let dialog = sync(|| dialog_of(dialog, tstore::DEFAULT_DIALOG))?;
        let chunk = sync(|| convert::chunk_options(chunk_chars, None))?;
        let s = self.inner.clone();
        Ok(ReplyJob::task(move || {
            query(s, &dialog, &tool_call_id, &path, chunk)
        }))
    }
}
