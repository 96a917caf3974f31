//! Results handed over in pieces as a JavaScript stream yields them
//! (`processStream`): a worker thread runs the processor's streaming path
//! (`try_process_chunks`, bounded memory, spilled into the store as it is read)
//! and takes the pieces from a bounded queue. The JavaScript thread only copies
//! each piece into the queue; when the queue is full it waits on the libuv pool
//! (`pushAsync`), so a fast producer is held back instead of piling up in memory.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use napi::bindgen_prelude::*;
use napi_derive::napi;
use toolcap::{StreamError, ToolResultProcessor};

use crate::processor::{Call, ContextOptions, NativeProcessed, NativeProcessor, report};
use crate::{Fail, Kind, ProcessJob, Res, UnitJob, sync};

/// Pieces queued between the JavaScript stream and the processor (a Readable's
/// pieces are 64 KiB: about 1 MiB in flight).
const QUEUED: usize = 16;

/// How the input ended, as the JavaScript half says it.
#[derive(Default)]
struct End {
    /// `finish()`: the stream ended normally.
    finished: AtomicBool,
    /// `abort(why)`: the stream failed.
    failure: Mutex<Option<String>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // a panic while holding one of these locks cannot leave its value half-made
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A result being handed over in pieces; `finish()` gives its `NativeProcessed`.
#[napi]
pub struct NativeStream {
    tx: Mutex<Option<SyncSender<Vec<u8>>>>,
    worker: Mutex<Option<JoinHandle<Res<NativeProcessed>>>>,
    end: Arc<End>,
}

/// The worker: the processor reading the pieces from `rx` until the sender is gone.
fn work(
    p: &ToolResultProcessor,
    c: &Call,
    rx: Receiver<Vec<u8>>,
    end: &End,
    omit_unchanged: bool,
) -> Res<NativeProcessed> {
    let call = c.tool_call();
    let out = p.try_process_chunks(&call, |sink| {
        for piece in rx.iter() {
            sink(&piece);
        }
        if end.finished.load(Ordering::SeqCst) {
            return Ok(());
        }
        let why = lock(&end.failure)
            .clone()
            .unwrap_or_else(|| "the stream was dropped before its end".to_string());
        Err(std::io::Error::other(why))
    });
    match out {
        Ok((processed, _)) => report(processed, omit_unchanged, c.id.as_deref()),
        Err(StreamError::Read(e)) => Err(Fail::new(
            Kind::Toolcap,
            format!("cannot read the input: {e}"),
        )),
        Err(StreamError::Store(e)) => Err(Fail::from(e)),
        Err(e) => Err(Fail::new(Kind::Toolcap, e.to_string())),
    }
}

#[napi]
impl NativeProcessor {
    /// Start processing a result that comes in pieces (`push`, then `finish`).
    /// `textGiven`: the pieces are the UTF-8 of a string the caller holds, so the
    /// text of a result that passed through unchanged is left out (the caller
    /// returns its string), unless `wantText` (the string was not well-formed
    /// UTF-16, so the text is not that string).
    #[napi]
    #[allow(clippy::too_many_arguments)]
    pub fn stream(
        &self,
        tool: String,
        args_json: Option<String>,
        tool_call_id: Option<String>,
        dialog: Option<String>,
        lang: Option<String>,
        text_given: Option<bool>,
        want_text: Option<bool>,
        context: Option<ContextOptions>,
    ) -> Result<NativeStream> {
        sync(|| {
            let call = Call::new(tool, args_json, tool_call_id, dialog, lang, None)?
                .with_context(&self.inner, context)?;
            let omit = text_given.unwrap_or(false) && !want_text.unwrap_or(false);
            let (tx, rx) = sync_channel::<Vec<u8>>(QUEUED);
            let end = Arc::new(End::default());
            let p = self.inner.clone();
            let worker_end = end.clone();
            let worker = std::thread::Builder::new()
                .name("toolcap-stream".to_string())
                .spawn(move || crate::run(|| work(&p, &call, rx, &worker_end, omit)))
                .map_err(|e| {
                    Fail::new(
                        Kind::Toolcap,
                        format!("cannot start the thread that reads the stream: {e}"),
                    )
                })?;
            Ok(NativeStream {
                tx: Mutex::new(Some(tx)),
                worker: Mutex::new(Some(worker)),
                end,
            })
        })
    }
}

impl NativeStream {
    fn sender(&self) -> Res<SyncSender<Vec<u8>>> {
        lock(&self.tx).clone().ok_or_else(|| {
            Fail::new(
                Kind::Toolcap,
                "the stream has already ended (finish or abort was called)",
            )
        })
    }
}

#[napi]
impl NativeStream {
    /// Queue a copy of `piece`; false when the queue is full (then `pushAsync` it).
    #[napi]
    pub fn push(&self, piece: Uint8Array) -> Result<bool> {
        sync(|| {
            let tx = self.sender()?;
            match tx.try_send(piece.to_vec()) {
                Ok(()) => Ok(true),
                Err(TrySendError::Full(_)) => Ok(false),
                // the worker is gone (it failed): finish() says why
                Err(TrySendError::Disconnected(_)) => Ok(true),
            }
        })
    }

    /// Queue a copy of `piece`, waiting on the libuv pool until there is room.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn push_async(&self, piece: Uint8Array) -> Result<AsyncTask<UnitJob>> {
        let tx = sync(|| self.sender())?;
        let data = piece.to_vec();
        Ok(UnitJob::task(move || {
            // a send to a worker that is gone: finish() says why
            let _ = tx.send(data);
            Ok(())
        }))
    }

    /// The input is complete: the processed result, once the worker has read it all.
    #[napi(ts_return_type = "Promise<NativeProcessed>")]
    pub fn finish(&self) -> Result<AsyncTask<ProcessJob>> {
        self.end.finished.store(true, Ordering::SeqCst);
        lock(&self.tx).take();
        let worker = lock(&self.worker).take();
        Ok(ProcessJob::task(move || match worker {
            None => Err(Fail::new(
                Kind::Toolcap,
                "finish() was already called on this stream",
            )),
            Some(w) => w.join().unwrap_or_else(|_| {
                Err(Fail::new(
                    Kind::Toolcap,
                    "internal error in toolcap (please report it): the stream's worker panicked",
                ))
            }),
        }))
    }

    /// The input failed: the worker stops (nothing is stored) and its thread ends.
    #[napi]
    pub fn abort(&self, why: String) {
        *lock(&self.end.failure) = Some(why);
        lock(&self.tx).take();
        lock(&self.worker).take();
    }
}
