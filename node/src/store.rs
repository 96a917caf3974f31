//! The result stores and the recovery tools over them.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;
use toolcap::MemoryStore;
use toolcap::bind::{self, Dirs};
use toolcap::history;
use toolcap::store::continuation::{self, LoadToolResults, ReplyError, ToolReply};
use toolcap::store::{self as tstore, Meta, ResultStore};

use crate::convert::{self, check_id, count_opt, dialog_of};
use crate::recovery::{Recovery, dispatch, recovery_of};
use crate::{Fail, MaybeReplyJob, MaybeTextJob, ReplyJob, Res, sync};

/// The reply of a recovery tool call: exactly what the model gets.
#[napi(object)]
pub struct NativeReply {
    /// Exactly what the model gets as the tool's result.
    pub text: String,
    /// The text is a JSON `{"error": ...}` object (Anthropic's `is_error`).
    pub is_error: bool,
    /// Where the next chunk starts, when the text ends with a continuation marker.
    pub next_offset: Option<f64>,
    /// Why the call failed, when `is_error`.
    #[napi(ts_type = "'not_stored' | 'expired' | 'past_end' | 'bad_argument' | 'store_failed'")]
    pub error: Option<String>,
}

impl From<ToolReply> for NativeReply {
    fn from(r: ToolReply) -> Self {
        NativeReply {
            text: r.text,
            is_error: r.is_error,
            next_offset: r.next_offset.map(|n| n as f64),
            error: r.error.map(|e| {
                match e {
                    ReplyError::NotStored => "not_stored",
                    ReplyError::Expired => "expired",
                    ReplyError::PastEnd => "past_end",
                    ReplyError::BadArgument => "bad_argument",
                    ReplyError::StoreFailed => "store_failed",
                }
                .to_string()
            }),
        }
    }
}

/// A result store: memory, SQLite (the CLI's `--store PATH`) or PostgreSQL.
#[napi]
pub struct NativeStore {
    pub(crate) inner: Arc<dyn ResultStore>,
    memory: Option<Arc<MemoryStore>>,
}

fn load_of(load: Option<Either3<bool, String, Vec<String>>>) -> LoadToolResults {
    match load {
        None | Some(Either3::A(false)) => LoadToolResults::None,
        Some(Either3::A(true)) => LoadToolResults::All,
        Some(Either3::B(s)) => LoadToolResults::parse(&s),
        Some(Either3::C(ids)) => LoadToolResults::Ids(ids),
    }
}

/// The messages of an OpenAI-style history (JSON text of an array).
fn messages_of(json: &str) -> Res<Vec<Value>> {
    match serde_json::from_str::<Value>(json) {
        Ok(Value::Array(a)) => Ok(a),
        _ => Err(Fail::type_(
            "messages: expected an array of message objects",
        )),
    }
}

pub(crate) fn prepare(
    store: &dyn ResultStore,
    dialog: &str,
    messages_json: &str,
    load: Option<Either3<bool, String, Vec<String>>>,
) -> Res<String> {
    let msgs = messages_of(messages_json)?;
    let out = continuation::prepare_messages(store, dialog, &msgs, &load_of(load))?;
    Ok(Value::Array(out).to_string())
}

/// [`NativeStore::mask_messages`]: the history policy over `store`, the
/// recovery call in the default configuration's form.
pub(crate) fn mask(
    store: &dyn ResultStore,
    dialog: &str,
    messages_json: &str,
    policy_json: &str,
) -> Res<String> {
    let msgs = messages_of(messages_json)?;
    let policy = serde_json::from_str::<Value>(policy_json)
        .map_err(|e| Fail::type_(format!("policy: not JSON ({e})")))
        .and_then(|v| {
            history::Policy::from_json(&v).map_err(|e| Fail::range(format!("policy: {e}")))
        })?;
    let config = toolcap::Config::defaults();
    let recall = history::Recall {
        store,
        dialog,
        config: &config,
    };
    match history::prepare_messages_with(&msgs, &policy, &recall) {
        Ok(p) => Ok(Value::Array(p.messages).to_string()),
        Err(history::HistoryError::Store(e)) => Err(e.into()),
        Err(e @ history::HistoryError::Message { .. }) => Err(Fail::type_(e.to_string())),
        Err(e) => Err(Fail::range(e.to_string())),
    }
}

#[napi]
impl NativeStore {
    /// A store in memory; with `limitBytes`, the oldest results go first once the
    /// outputs held would exceed it.
    #[napi(factory)]
    pub fn memory(limit_bytes: Option<f64>) -> Result<NativeStore> {
        sync(|| {
            let m = Arc::new(match count_opt("limitBytes", limit_bytes)? {
                Some(n) => MemoryStore::with_limit(n),
                None => MemoryStore::new(),
            });
            Ok(NativeStore {
                inner: m.clone(),
                memory: Some(m),
            })
        })
    }

    /// The SQLite store in one file (created when missing): the CLI's `--store PATH`.
    /// Its directory must exist unless `createDirs`.
    #[napi(factory)]
    pub fn sqlite(path: String, create_dirs: Option<bool>) -> Result<NativeStore> {
        sync(|| {
            let dirs = if create_dirs.unwrap_or(false) {
                Dirs::Create
            } else {
                Dirs::MustExist
            };
            let s = bind::open_sqlite(Path::new(&path), dirs)?;
            Ok(NativeStore {
                inner: Arc::new(s),
                memory: None,
            })
        })
    }

    /// The PostgreSQL store at `url` (when the addon is built with it).
    #[napi(factory)]
    pub fn postgres(url: String) -> Result<NativeStore> {
        sync(|| {
            #[cfg(feature = "postgres")]
            {
                let s = toolcap::PostgresStore::open(&url)?;
                Ok(NativeStore {
                    inner: Arc::new(s),
                    memory: None,
                })
            }
            #[cfg(not(feature = "postgres"))]
            {
                let _ = url;
                Err(Fail::new(
                    crate::Kind::Toolcap,
                    "PostgresStore: this build of the toolcap addon has no PostgreSQL support; rebuild it with TOOLCAP_NODE_FEATURES=postgres npm install ./node",
                ))
            }
        })
    }

    /// `memory`, `sqlite` or `postgres`.
    #[napi(getter)]
    pub fn storage_type(&self) -> String {
        self.inner.storage_type().to_string()
    }

    /// Results held (a memory store only; else -1).
    #[napi(getter)]
    pub fn size(&self) -> i64 {
        self.memory.as_ref().map_or(-1, |m| m.len() as i64)
    }

    /// Keep `output` under `toolCallId` (replacing an earlier one).
    #[napi]
    #[allow(clippy::too_many_arguments)]
    pub fn put(
        &self,
        tool_call_id: String,
        tool_name: String,
        output: Either<String, Uint8Array>,
        args_json: Option<String>,
        dialog: Option<String>,
        truncated: Option<bool>,
        shown_chars: Option<f64>,
    ) -> Result<()> {
        sync(|| {
            let dialog = dialog_of(dialog, tstore::DEFAULT_DIALOG)?;
            check_id("tool_call_id", &tool_call_id)?;
            let args = convert::args_of(args_json.as_deref())?;
            let shown = count_opt("shownChars", shown_chars)?;
            let text = convert::text_of(&output);
            let mut meta = Meta::new(&dialog, &tool_call_id, &tool_name, &args, &text);
            meta.truncated = truncated.unwrap_or(false);
            if let Some(n) = shown {
                meta.shown_chars = n.min(meta.size.chars);
            }
            Ok(self.inner.put_output(&meta, &text)?)
        })
    }

    /// The full stored output, or null.
    #[napi]
    pub fn get(&self, tool_call_id: String, dialog: Option<String>) -> Result<Option<String>> {
        sync(|| get(self.inner.as_ref(), &tool_call_id, dialog))
    }

    /// [`Self::get`] on the libuv pool.
    #[napi(ts_return_type = "Promise<string | null>")]
    pub fn get_async(
        &self,
        tool_call_id: String,
        dialog: Option<String>,
    ) -> AsyncTask<MaybeTextJob> {
        let s = self.inner.clone();
        MaybeTextJob::task(move || get(s.as_ref(), &tool_call_id, dialog))
    }

    /// The metadata of a stored result as JSON (the fields of `toolcap show --meta`), or null.
    #[napi]
    pub fn meta(&self, tool_call_id: String, dialog: Option<String>) -> Result<Option<String>> {
        sync(|| {
            let dialog = dialog_of(dialog, tstore::DEFAULT_DIALOG)?;
            check_id("tool_call_id", &tool_call_id)?;
            let m = self.inner.meta(&dialog, &tool_call_id)?;
            Ok(m.map(|m| m.show_json().to_string()))
        })
    }

    /// Metadata of the results of one dialog (or of all), oldest first, as JSON.
    #[napi]
    pub fn list(&self, dialog: Option<String>) -> Result<String> {
        sync(|| {
            if let Some(d) = &dialog {
                check_id("dialog id", d)?;
            }
            let metas = self.inner.list(dialog.as_deref())?;
            Ok(Value::Array(metas.iter().map(Meta::show_json).collect()).to_string())
        })
    }

    /// Delete one dialog's results; how many were deleted.
    #[napi]
    pub fn delete_dialog(&self, dialog: String) -> Result<f64> {
        sync(|| {
            check_id("dialog id", &dialog)?;
            Ok(self.inner.delete_dialog(&dialog)? as f64)
        })
    }

    /// Delete results older than `seconds`; how many were deleted.
    #[napi]
    pub fn prune_older_than(&self, seconds: f64) -> Result<f64> {
        sync(|| {
            if !seconds.is_finite() || seconds < 0.0 {
                return Err(Fail::range(format!(
                    "seconds = {seconds}: pass a finite age of 0 seconds or more"
                )));
            }
            let age = Duration::from_secs_f64(seconds);
            Ok(self.inner.prune_older_than(age)? as f64)
        })
    }

    /// `get_continuation`: the next chunk from `offset`, or lines `startLine..endLine`.
    #[napi]
    #[allow(clippy::too_many_arguments)]
    pub fn get_continuation(
        &self,
        tool_call_id: String,
        offset: Option<f64>,
        start_line: Option<f64>,
        end_line: Option<f64>,
        dialog: Option<String>,
        chunk_chars: Option<f64>,
        line_aligned: Option<bool>,
    ) -> Result<NativeReply> {
        sync(|| {
            let dialog = dialog_of(dialog, tstore::DEFAULT_DIALOG)?;
            let chunk = convert::chunk_options(chunk_chars, line_aligned)?;
            Recovery::continuation(tool_call_id, offset, start_line, end_line, chunk)?
                .run(self.inner.as_ref(), &dialog)
        })
    }

    /// `search_tool_output`: the lines matching a regular expression.
    #[napi]
    #[allow(clippy::too_many_arguments)]
    pub fn search_tool_output(
        &self,
        tool_call_id: String,
        pattern: String,
        context: Option<f64>,
        max_matches: Option<f64>,
        skip: Option<f64>,
        ignore_case: Option<bool>,
        dialog: Option<String>,
        from_end: Option<bool>,
    ) -> Result<NativeReply> {
        sync(|| {
            let dialog = dialog_of(dialog, tstore::DEFAULT_DIALOG)?;
            Recovery::search(
                tool_call_id,
                pattern,
                context,
                max_matches,
                skip,
                ignore_case,
                from_end,
            )?
            .run(self.inner.as_ref(), &dialog)
        })
    }

    /// `fetch_tool_output`: a stored call's tool, arguments and output as JSON text.
    #[napi]
    pub fn fetch_tool_output(
        &self,
        tool_call_id: String,
        offset: Option<f64>,
        limit: Option<f64>,
        dialog: Option<String>,
    ) -> Result<NativeReply> {
        sync(|| {
            let dialog = dialog_of(dialog, tstore::DEFAULT_DIALOG)?;
            Recovery::fetch(tool_call_id, offset, limit)?.run(self.inner.as_ref(), &dialog)
        })
    }

    /// `get_tool_result`: the full stored output.
    #[napi]
    pub fn get_tool_result(
        &self,
        tool_call_id: String,
        dialog: Option<String>,
    ) -> Result<NativeReply> {
        sync(|| {
            let dialog = dialog_of(dialog, tstore::DEFAULT_DIALOG)?;
            Recovery::Whole { id: tool_call_id }.run(self.inner.as_ref(), &dialog)
        })
    }

    /// Any recovery call on the libuv pool: `kind` is `continuation`, `search`,
    /// `fetch` or `whole`; the arguments are those of the synchronous methods
    /// (`flag2`: a search's `fromEnd`).
    #[napi(ts_return_type = "Promise<NativeReply>")]
    #[allow(clippy::too_many_arguments)]
    pub fn recover_async(
        &self,
        kind: String,
        tool_call_id: String,
        a: Option<f64>,
        b: Option<f64>,
        c: Option<f64>,
        pattern: Option<String>,
        flag: Option<bool>,
        dialog: Option<String>,
        chunk_chars: Option<f64>,
        flag2: Option<bool>,
    ) -> Result<AsyncTask<ReplyJob>> {
        let dialog = sync(|| dialog_of(dialog, tstore::DEFAULT_DIALOG))?;
        let r = sync(|| {
            recovery_of(
                &kind,
                tool_call_id,
                a,
                b,
                c,
                pattern,
                flag,
                chunk_chars,
                flag2,
            )
        })?;
        let s = self.inner.clone();
        Ok(ReplyJob::task(move || r.run(s.as_ref(), &dialog)))
    }

    /// Serve a recovery tool call (arguments as JSON text); null when `name` is not
    /// a recovery tool.
    #[napi]
    pub fn dispatch(
        &self,
        name: String,
        args_json: Option<String>,
        dialog: Option<String>,
        chunk_chars: Option<f64>,
        line_aligned: Option<bool>,
    ) -> Result<Option<NativeReply>> {
        sync(|| {
            let dialog = dialog_of(dialog, tstore::DEFAULT_DIALOG)?;
            let chunk = convert::chunk_options(chunk_chars, line_aligned)?;
            Ok(dispatch(
                self.inner.clone(),
                &dialog,
                &name,
                args_json.as_deref(),
                chunk,
            ))
        })
    }

    /// [`Self::dispatch`] on the libuv pool.
    #[napi(ts_return_type = "Promise<NativeReply | null>")]
    pub fn dispatch_async(
        &self,
        name: String,
        args_json: Option<String>,
        dialog: Option<String>,
        chunk_chars: Option<f64>,
        line_aligned: Option<bool>,
    ) -> Result<AsyncTask<MaybeReplyJob>> {
        let dialog = sync(|| dialog_of(dialog, tstore::DEFAULT_DIALOG))?;
        let chunk = sync(|| convert::chunk_options(chunk_chars, line_aligned))?;
        let s = self.inner.clone();
        Ok(MaybeReplyJob::task(move || {
            Ok(dispatch(s, &dialog, &name, args_json.as_deref(), chunk))
        }))
    }

    /// An OpenAI-style history (JSON text) with references to stored results of
    /// `dialog` swapped for their content where `load` asks; JSON text.
    #[napi]
    pub fn prepare_messages(
        &self,
        messages_json: String,
        load: Option<Either3<bool, String, Vec<String>>>,
        dialog: Option<String>,
    ) -> Result<String> {
        sync(|| {
            let dialog = dialog_of(dialog, tstore::DEFAULT_DIALOG)?;
            prepare(self.inner.as_ref(), &dialog, &messages_json, load)
        })
    }

    /// A history in any of the three formats (JSON text) with old tool results
    /// masked as `policy` (JSON text of a `toolcap::history::Policy` object) says,
    /// each kept in this store under `dialog` first; JSON text.
    #[napi]
    pub fn mask_messages(
        &self,
        messages_json: String,
        policy_json: String,
        dialog: Option<String>,
    ) -> Result<String> {
        sync(|| {
            let dialog = dialog_of(dialog, tstore::DEFAULT_DIALOG)?;
            mask(self.inner.as_ref(), &dialog, &messages_json, &policy_json)
        })
    }

    /// The tool message that refers to a stored result (JSON text), or null.
    #[napi]
    pub fn reference_message(
        &self,
        tool_call_id: String,
        dialog: Option<String>,
    ) -> Result<Option<String>> {
        sync(|| {
            let dialog = dialog_of(dialog, tstore::DEFAULT_DIALOG)?;
            check_id("tool_call_id", &tool_call_id)?;
            let m = continuation::reference_message(self.inner.as_ref(), &dialog, &tool_call_id)?;
            Ok(m.map(|v| v.to_string()))
        })
    }
}

fn get(store: &dyn ResultStore, id: &str, dialog: Option<String>) -> Res<Option<String>> {
    let dialog = dialog_of(dialog, tstore::DEFAULT_DIALOG)?;
    check_id("tool_call_id", id)?;
    Ok(store.get(&dialog, id)?.map(|r| r.output))
}
