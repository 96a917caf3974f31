//! The native half of the `toolcap` npm package (napi-rs).
//!
//! A thin layer over toolcap's public API: the processor, the result stores, the
//! outline and the recovery tools. The JavaScript half (`index.js`) gives it its
//! public shape: option objects, the `Processed` class, the typed error classes,
//! the async forms' input hand-over. Everything here runs under `catch_unwind`, so
//! a panic becomes a `ToolcapError`, never an abort; the `*Async` methods run their
//! Rust work on the libuv thread pool ([`AsyncTask`]).
//!
//! Errors cross into JavaScript as `Error`s whose message starts with a tag naming
//! the class the JavaScript half throws (`[toolcap:ConfigError] <message>`); the
//! message after the tag is the CLI's.

use std::panic::{AssertUnwindSafe, catch_unwind};

use napi::bindgen_prelude::*;
use napi_derive::napi;

mod convert;
mod processor;
mod query;
mod recovery;
mod store;
mod stream;
mod types;

pub use processor::{NativeProcessed, NativeProcessor};
pub use store::{NativeReply, NativeStore};
pub use stream::NativeStream;
pub use types::type_unions;

// ---------------------------------------------------------------------------
// Errors: a kind (the JavaScript class) and the message.

/// Which JavaScript error class a failure becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `ToolcapError`: the base class (internal errors, a missing store).
    Toolcap,
    /// `ConfigError`: a configuration that cannot be used.
    Config,
    /// `StoreError`: the result store failed, or an id cannot be stored.
    Store,
    /// `OutlineError`: the outline could not be made.
    Outline,
    /// `TypeError`: an argument of the wrong type.
    Type,
    /// `RangeError`: an argument of the right type with a value that cannot be used.
    Range,
}

impl Kind {
    fn tag(self) -> &'static str {
        match self {
            Kind::Toolcap => "ToolcapError",
            Kind::Config => "ConfigError",
            Kind::Store => "StoreError",
            Kind::Outline => "OutlineError",
            Kind::Type => "TypeError",
            Kind::Range => "RangeError",
        }
    }
}

/// A failure on its way to JavaScript.
#[derive(Debug)]
pub(crate) struct Fail {
    kind: Kind,
    message: String,
}

impl Fail {
    pub(crate) fn new(kind: Kind, message: impl Into<String>) -> Fail {
        Fail {
            kind,
            message: message.into(),
        }
    }
    pub(crate) fn range(message: impl Into<String>) -> Fail {
        Fail::new(Kind::Range, message)
    }
    pub(crate) fn type_(message: impl Into<String>) -> Fail {
        Fail::new(Kind::Type, message)
    }
}

impl From<toolcap::StoreError> for Fail {
    fn from(e: toolcap::StoreError) -> Fail {
        Fail::new(Kind::Store, e.to_string())
    }
}

impl From<toolcap::ConfigError> for Fail {
    fn from(e: toolcap::ConfigError) -> Fail {
        Fail::new(Kind::Config, e.to_string())
    }
}

impl From<Fail> for Error {
    fn from(f: Fail) -> Error {
        Error::new(
            Status::GenericFailure,
            format!("[toolcap:{}] {}", f.kind.tag(), f.message),
        )
    }
}

pub(crate) type Res<T> = std::result::Result<T, Fail>;

/// Run `f`; a panic becomes a `ToolcapError`.
pub(crate) fn run<T>(f: impl FnOnce() -> Res<T>) -> Res<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        Err(Fail::new(
            Kind::Toolcap,
            format!("internal error in toolcap (please report it): {what}"),
        ))
    })
}

/// [`run`] for a synchronous export.
pub(crate) fn sync<T>(f: impl FnOnce() -> Res<T>) -> Result<T> {
    run(f).map_err(Error::from)
}

// ---------------------------------------------------------------------------
// Async work: a closure run on the libuv thread pool.

/// Work for the libuv pool, one type per result type (napi's `Task` wants a
/// concrete one): the closure runs in `compute`, off the JavaScript thread; its
/// value is converted to JavaScript in `resolve`, on it.
macro_rules! jobs {
    ($($name:ident => $out:ty),* $(,)?) => {$(
        pub struct $name {
            work: Option<Box<dyn FnOnce() -> Res<$out> + Send>>,
        }

        impl $name {
            pub(crate) fn task(work: impl FnOnce() -> Res<$out> + Send + 'static) -> AsyncTask<$name> {
                AsyncTask::new($name { work: Some(Box::new(work)) })
            }
        }

        impl Task for $name {
            type Output = $out;
            type JsValue = $out;

            fn compute(&mut self) -> napi::Result<$out> {
                let work = self
                    .work
                    .take()
                    .ok_or_else(|| Fail::new(Kind::Toolcap, "internal error: a task ran twice"))?;
                sync(work)
            }

            fn resolve(&mut self, _env: Env, output: $out) -> napi::Result<$out> {
                Ok(output)
            }
        }
    )*};
}

jobs! {
    TextJob => String,
    MaybeTextJob => Option<String>,
    ReplyJob => NativeReply,
    MaybeReplyJob => Option<NativeReply>,
    ProcessJob => NativeProcessed,
    UnitJob => (),
}

// ---------------------------------------------------------------------------
// Module functions.

/// The outline of `source` as the JSON of `toolcap outline --json` (without `path`).
#[napi(js_name = "outline")]
pub fn outline(
    source: Either<String, Uint8Array>,
    language: Option<String>,
    path: Option<String>,
    budget_ms: Option<f64>,
    max_bytes: Option<f64>,
) -> Result<String> {
    sync(|| convert::outline_json(&source, language, path, budget_ms, max_bytes))
}

/// [`outline`] on the libuv pool.
#[napi(js_name = "outlineAsync", ts_return_type = "Promise<string>")]
pub fn outline_async(
    source: Either<String, Uint8Array>,
    language: Option<String>,
    path: Option<String>,
    budget_ms: Option<f64>,
    max_bytes: Option<f64>,
) -> AsyncTask<TextJob> {
    TextJob::task(move || convert::outline_json(&source, language, path, budget_ms, max_bytes))
}

/// The supported languages as JSON: `[{name, extensions, aliases, interpreters}]`.
#[napi]
pub fn languages() -> Result<String> {
    sync(|| Ok(convert::languages_json()))
}

/// The recovery tools' definitions as JSON (`openai` or `anthropic` form).
#[napi]
pub fn tool_definitions(format: String, chunk_chars: Option<f64>) -> Result<String> {
    sync(|| {
        let chunk = convert::chunk_chars(chunk_chars)?;
        convert::tool_definitions_json(&format, chunk)
    })
}

/// Check an id as the stores do (`what`: `dialog id` or `tool_call_id`).
#[napi]
pub fn check_id(what: String, id: String) -> Result<()> {
    sync(|| {
        let what = if what == "dialog id" {
            "dialog id"
        } else {
            "tool_call_id"
        };
        convert::check_id(what, &id)
    })
}

/// The crate's version.
#[napi]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// `debug` or `release`: how the addon was compiled.
#[napi]
pub fn build_profile() -> String {
    if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    }
    .to_string()
}

/// Whether the addon was built with `PostgresStore`.
#[napi]
pub fn has_postgres() -> bool {
    cfg!(feature = "postgres")
}

/// CPU seconds the calling thread has used (the benchmarks' clock: other work on a
/// busy machine does not count); wall-clock seconds where the platform has no
/// per-thread clock.
#[napi]
pub fn thread_cpu_seconds() -> f64 {
    thread_cpu()
}

#[cfg(unix)]
pub(crate) fn thread_cpu() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    if rc != 0 {
        return wall();
    }
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

#[cfg(not(unix))]
pub(crate) fn thread_cpu() -> f64 {
    wall()
}

fn wall() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// For the tests: a panic inside Rust work, which must come out as a `ToolcapError`.
#[napi]
pub fn panic_for_tests() -> Result<()> {
    sync(|| -> Res<()> { panic!("deliberate panic for the tests") })
}
