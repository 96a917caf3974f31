//! The processor: `process` and its async forms.

use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;
use toolcap::{Processed, Reason, StreamError, ToolCall, ToolResultProcessor};

use crate::convert::{self, check_id, dialog_of};
use crate::store::NativeStore;
use crate::{Fail, Kind, ProcessJob, Res, sync};

/// Pieces handed to the library when a result comes as bytes: the size the CLI
/// maps files in (the streamed shell path reads about 1 MiB at a time fastest).
const PIECE: usize = 1 << 20;

/// What `process` returns to the JavaScript half.
#[napi(object)]
pub struct NativeProcessed {
    /// The `toolcap process --json` object as JSON text, with `"text": ""`
    /// (the text comes apart, below) and `tool_call_id` when one was given.
    pub report: String,
    /// What the model sees; null when it is the input string unchanged (the
    /// JavaScript half then returns the very string it passed).
    pub text: Option<String>,
}

/// A result handed over for processing.
enum Input {
    Str(String),
    Bytes(Uint8Array),
    /// The UTF-8 of the caller's string, made by the JavaScript half (an ASCII
    /// string copied as Latin-1: one `memcpy` instead of napi's two-pass UTF-8
    /// conversion).
    TextBytes(Uint8Array),
    Pieces(Vec<Uint8Array>),
}

/// The processor with its settings; the JavaScript `ToolResultProcessor` wraps it.
#[napi]
pub struct NativeProcessor {
    pub(crate) inner: Arc<ToolResultProcessor>,
}

/// One `process` call's settings, checked on the JavaScript thread.
pub(crate) struct Call {
    pub(crate) tool: String,
    pub(crate) args: Value,
    pub(crate) lang: Option<toolcap::Language>,
    pub(crate) id: Option<String>,
    pub(crate) dialog: String,
    /// Return the text even when unchanged (the input string was not well-formed
    /// UTF-16, so the text is not that string).
    want_text: bool,
    /// `contextLeft`, `contextLimit`, `contextUsed`, `model`.
    pub(crate) context: toolcap::bind::Context,
}

/// The context figures of `process`'s options, checked as the CLI checks its
/// flags (a RangeError naming the option and the fix).
#[derive(Default)]
#[napi(object)]
pub struct ContextOptions {
    pub context_left: Option<f64>,
    pub context_limit: Option<f64>,
    pub context_used: Option<f64>,
    pub model: Option<String>,
}

impl ContextOptions {
    fn checked(self, p: &ToolResultProcessor) -> Res<toolcap::bind::Context> {
        let c = toolcap::bind::Context {
            left: convert::count_opt("contextLeft", self.context_left)?,
            limit: convert::count_opt("contextLimit", self.context_limit)?,
            used: convert::count_opt("contextUsed", self.context_used)?,
            model: self.model,
        };
        c.check(p.config()).map_err(|e| {
            // the figures by their option names
            let m = [
                ("context_left", "contextLeft"),
                ("context_limit", "contextLimit"),
                ("context_used", "contextUsed"),
            ]
            .iter()
            .fold(e.to_string(), |m, (a, b)| m.replace(a, b));
            Fail::range(m)
        })?;
        Ok(c)
    }
}

impl Call {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        tool: String,
        args_json: Option<String>,
        tool_call_id: Option<String>,
        dialog: Option<String>,
        lang: Option<String>,
        want_text: Option<bool>,
    ) -> Res<Call> {
        let mut args = convert::args_of(args_json.as_deref())?;
        let lang = convert::lang_of(lang.as_deref())?.and_then(|l| l.apply(&mut args));
        if let Some(id) = &tool_call_id {
            check_id("tool_call_id", id)?;
        }
        Ok(Call {
            tool,
            args,
            lang,
            id: tool_call_id,
            dialog: dialog_of(dialog, toolcap::store::DEFAULT_DIALOG)?,
            want_text: want_text.unwrap_or(false),
            context: toolcap::bind::Context::default(),
        })
    }

    pub(crate) fn with_context(
        mut self,
        p: &ToolResultProcessor,
        c: Option<ContextOptions>,
    ) -> Res<Call> {
        if let Some(c) = c {
            self.context = c.checked(p)?;
        }
        Ok(self)
    }

    /// The library's call from these parts.
    pub(crate) fn tool_call(&self) -> ToolCall<'_> {
        let mut call = ToolCall::new(&self.tool, &self.args);
        call.lang = self.lang;
        call.id = self.id.as_deref();
        call.dialog = Some(&self.dialog);
        call.context = self.context.window();
        call
    }

    fn run(self, p: &ToolResultProcessor, input: Input) -> Res<NativeProcessed> {
        let call = self.tool_call();
        let stream_err = |e: StreamError| match e {
            StreamError::Read(e) => Fail::new(Kind::Toolcap, format!("cannot read the input: {e}")),
            StreamError::Store(e) => Fail::from(e),
            e => Fail::new(Kind::Toolcap, e.to_string()),
        };
        let (processed, from_str) = match &input {
            Input::Str(s) => (p.try_process_call(&call, s)?, true),
            Input::TextBytes(b) => match std::str::from_utf8(b) {
                Ok(s) => (p.try_process_call(&call, s)?, true),
                Err(_) => {
                    return Err(Fail::new(
                        Kind::Toolcap,
                        "internal error: the text handed over is not UTF-8",
                    ));
                }
            },
            Input::Bytes(b) => {
                let (out, _) = p
                    .try_process_chunks(&call, |sink| {
                        for c in b.chunks(PIECE) {
                            sink(c);
                        }
                        Ok(())
                    })
                    .map_err(stream_err)?;
                (out, false)
            }
            Input::Pieces(pieces) => {
                let (out, _) = p
                    .try_process_chunks(&call, |sink| {
                        for c in pieces {
                            sink(c);
                        }
                        Ok(())
                    })
                    .map_err(stream_err)?;
                (out, true)
            }
        };
        drop(input);
        report(processed, from_str && !self.want_text, self.id.as_deref())
    }
}

/// The report with the text apart; `omit_unchanged`: leave the text out when the
/// result passed through unchanged (the caller has it).
pub(crate) fn report(
    mut p: Processed,
    omit_unchanged: bool,
    id: Option<&str>,
) -> Res<NativeProcessed> {
    let unchanged = matches!(
        p.reason,
        Reason::Bypass | Reason::UnderThreshold | Reason::AlreadyCut
    );
    let text = std::mem::take(&mut p.text);
    Ok(NativeProcessed {
        report: toolcap::bind::report_json(&p, id).to_string(),
        text: (!(unchanged && omit_unchanged)).then_some(text),
    })
}

#[napi]
impl NativeProcessor {
    /// `configPath` or `configJson` (neither: defaults < `$TOOLCAP_CONFIG` <
    /// `$TOOL_RESULT_BYPASS_TOOLS`); `store` and `save` (`cut` or `all`).
    #[napi(constructor)]
    pub fn new(
        config_path: Option<String>,
        config_json: Option<String>,
        store: Option<&NativeStore>,
        save: Option<String>,
    ) -> Result<NativeProcessor> {
        sync(|| {
            let config = convert::config_of(config_path, config_json)?;
            let save = convert::save_of(save.as_deref())?;
            let mut inner = ToolResultProcessor::new(config);
            if let Some(s) = store {
                inner = inner.with_store(s.inner.clone(), save);
            }
            Ok(NativeProcessor {
                inner: Arc::new(inner),
            })
        })
    }

    /// Characters kept when a result is cut (`max_kept_chars`): also the chunk size
    /// of `get_continuation`.
    #[napi(getter)]
    pub fn max_kept_chars(&self) -> f64 {
        self.inner.config().max_kept_chars as f64
    }

    /// Whether results of `tool` pass through unchanged.
    #[napi]
    pub fn is_bypassed(&self, tool: String) -> bool {
        self.inner.config().is_bypassed(&tool)
    }

    /// The effective settings and where each came from (what `toolcap config` prints).
    #[napi]
    pub fn describe_config(&self) -> String {
        self.inner.config().describe()
    }

    /// Process a result given as a string or bytes, on this thread; `textBytes`:
    /// the bytes are the UTF-8 of a string the caller holds (so an unchanged
    /// result's text is left out: the caller returns its string).
    #[napi]
    #[allow(clippy::too_many_arguments)]
    pub fn process(
        &self,
        tool: String,
        result: Either<String, Uint8Array>,
        args_json: Option<String>,
        tool_call_id: Option<String>,
        dialog: Option<String>,
        lang: Option<String>,
        want_text: Option<bool>,
        text_bytes: Option<bool>,
        context: Option<ContextOptions>,
    ) -> Result<NativeProcessed> {
        sync(|| {
            let call = Call::new(tool, args_json, tool_call_id, dialog, lang, want_text)?
                .with_context(&self.inner, context)?;
            let input = match result {
                Either::A(s) => Input::Str(s),
                Either::B(b) if text_bytes == Some(true) => Input::TextBytes(b),
                Either::B(b) => Input::Bytes(b),
            };
            call.run(&self.inner, input)
        })
    }

    /// [`Self::process`] on the libuv pool: the result is a string (copied here),
    /// bytes (read in place: do not change them until the promise settles) or an
    /// array of byte pieces, in order (the UTF-8 of a string, encoded in pieces by
    /// the JavaScript half so that no one step holds the event loop long).
    #[napi(ts_return_type = "Promise<NativeProcessed>")]
    #[allow(clippy::too_many_arguments)]
    pub fn process_async(
        &self,
        tool: String,
        result: Either3<String, Uint8Array, Vec<Uint8Array>>,
        args_json: Option<String>,
        tool_call_id: Option<String>,
        dialog: Option<String>,
        lang: Option<String>,
        want_text: Option<bool>,
        context: Option<ContextOptions>,
    ) -> Result<AsyncTask<ProcessJob>> {
        let call = sync(|| {
            Call::new(tool, args_json, tool_call_id, dialog, lang, want_text)?
                .with_context(&self.inner, context)
        })?;
        let input = match result {
            Either3::A(s) => Input::Str(s),
            Either3::B(b) => Input::Bytes(b),
            Either3::C(v) => Input::Pieces(v),
        };
        let p = self.inner.clone();
        Ok(ProcessJob::task(move || call.run(&p, input)))
    }

    /// For bench/: CPU seconds of this thread the Rust library alone takes for `n`
    /// calls of `process(tool, result, args)` (no JavaScript in the loop): a string
    /// through `process`, bytes through `process_chunks`, as `process` takes them.
    #[napi]
    pub fn time_rust(
        &self,
        tool: String,
        result: Either<String, Uint8Array>,
        args_json: Option<String>,
        n: f64,
    ) -> Result<f64> {
        sync(|| {
            let n = convert::count("n", n)?;
            let args = convert::args_of(args_json.as_deref())?;
            let t = crate::thread_cpu();
            for _ in 0..n {
                match &result {
                    Either::A(s) => {
                        std::hint::black_box(self.inner.process(&tool, s, &args));
                    }
                    Either::B(b) => {
                        let call = ToolCall::new(&tool, &args);
                        let out = self.inner.process_chunks(&call, |sink| {
                            for c in b.chunks(PIECE) {
                                sink(c);
                            }
                            Ok(())
                        });
                        std::hint::black_box(
                            out.map_err(|e| Fail::new(Kind::Toolcap, e.to_string()))?,
                        );
                    }
                }
            }
            Ok(crate::thread_cpu() - t)
        })
    }
}
