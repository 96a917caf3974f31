//! Large results read with bounded memory, and spilled into the store as they are read.

use super::report::Processed;
use super::report::Stored;
use super::report::StreamError;
use super::report::ToolCall;
use super::{ToolResultProcessor, binary, decode, finish};
use crate::cut::scan;
use crate::cut::scan::Bounds;
use crate::cut::spill::LossyDecoder;
use crate::store;
use crate::store::Meta;
use crate::store::OutputWriter;
use crate::store::ResultStore;
use crate::store::SaveWhen;
use crate::store::StoreError;
use serde_json::Value;

/// Read `input` to its end, handing each piece read (up to 1 MiB) to `sink`, in
/// order: what [`ToolResultProcessor::process_stream`] reads a result with, and
/// what a caller that feeds the processor pieces of its own
/// ([`ToolResultProcessor::try_process_chunks`]) reads a pipe or the rest of a
/// file with (`toolcap run`, `toolcap process FILE`). At most one piece is held.
///
/// Errors: the first error of `input`'s `read` other than
/// [`Interrupted`](std::io::ErrorKind::Interrupted) (which is retried); the
/// pieces read before it were handed on.
///
/// ```
/// use toolcap_core::read_pieces;
///
/// let input = "x".repeat(3 << 20);
/// let (mut pieces, mut bytes) = (0, 0);
/// read_pieces(input.as_bytes(), &mut |piece| {
///     pieces += 1;
///     bytes += piece.len();
/// })
/// .expect("a slice reads");
/// assert_eq!((pieces, bytes), (3, 3 << 20));
/// ```
pub fn read_pieces(
    mut input: impl std::io::Read,
    sink: &mut dyn FnMut(&[u8]),
) -> std::io::Result<()> {
    let mut buf = vec![0u8; 1 << 20];
    loop {
        match input.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => sink(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

impl ToolResultProcessor {
    /// Process a result read from `input` with bounded memory: the head, the
    /// tail and error lines are kept, the rest is counted. Gives the same result
    /// as [`process_call`](Self::process_call) on the whole text. Returns the
    /// original bytes too when the result passes through unchanged (it is then
    /// small). For tools that do not [`stream`](Self::streams), and for a
    /// shell command that prints a file's lines (`sed -n 'A,Bp' F`: cut as the
    /// file's content), reads the whole input.
    ///
    /// With a store attached, the full result is written to it as it is read
    /// ([`ResultStore::begin_output`]: a [`SqliteStore`](crate::store::SqliteStore)
    /// holds at most one chunk of it in memory), decoded exactly as
    /// [`process_call`](Self::process_call) would keep it (lossy UTF-8 of the whole
    /// input), and committed when the result is to be kept, else discarded. A
    /// failure to keep it is reported in [`Processed::store_error`]; see
    /// [`Self::try_process_stream`].
    pub fn process_stream(
        &self,
        call: &ToolCall<'_>,
        input: impl std::io::Read,
    ) -> std::io::Result<(Processed, Option<Vec<u8>>)> {
        let (out, raw, _) = self.stream(call, |sink| read_pieces(input, sink).map(|()| None))?;
        Ok((out, raw))
    }

    /// [`Self::process_stream`], failing when the attached store cannot keep the
    /// result.
    pub fn try_process_stream(
        &self,
        call: &ToolCall<'_>,
        input: impl std::io::Read,
    ) -> Result<(Processed, Option<Vec<u8>>), StreamError> {
        self.try_process_chunks(call, |sink| read_pieces(input, sink))
    }

    /// [`process_stream`](Self::process_stream) for a result that `produce`
    /// hands over in pieces, in order, by calling the sink it is given once per
    /// piece (pieces of any size; about 1 MiB reads fastest). For input that is
    /// already in memory or mapped (the CLI maps files), this saves the copy a
    /// reader makes.
    pub fn process_chunks(
        &self,
        call: &ToolCall<'_>,
        produce: impl FnOnce(&mut dyn FnMut(&[u8])) -> std::io::Result<()>,
    ) -> std::io::Result<(Processed, Option<Vec<u8>>)> {
        let (out, raw, _) = self.stream(call, |sink| produce(sink).map(|()| None))?;
        Ok((out, raw))
    }

    /// [`Self::process_chunks`] for a call that learns more while its result is
    /// read: `produce` returns the arguments the result is finished with (a
    /// command's `exit_code`, known once its output has ended), or `None` to keep
    /// the call's own. The recovery section, the record and the stored result's
    /// metadata then carry them. A failure to keep the result is reported in
    /// [`Processed::store_error`].
    pub fn process_chunks_then(
        &self,
        call: &ToolCall<'_>,
        produce: impl FnOnce(&mut dyn FnMut(&[u8])) -> std::io::Result<Option<Value>>,
    ) -> std::io::Result<(Processed, Option<Vec<u8>>)> {
        let (out, raw, _) = self.stream(call, produce)?;
        Ok((out, raw))
    }

    /// [`Self::process_chunks`], failing when the attached store cannot keep the
    /// result.
    pub fn try_process_chunks(
        &self,
        call: &ToolCall<'_>,
        produce: impl FnOnce(&mut dyn FnMut(&[u8])) -> std::io::Result<()>,
    ) -> Result<(Processed, Option<Vec<u8>>), StreamError> {
        match self.stream(call, |sink| produce(sink).map(|()| None))? {
            (out, raw, None) => Ok((out, raw)),
            (_, _, Some(e)) => Err(StreamError::Store(e)),
        }
    }

    fn stream(
        &self,
        call: &ToolCall<'_>,
        produce: impl FnOnce(&mut dyn FnMut(&[u8])) -> std::io::Result<Option<Value>>,
    ) -> std::io::Result<(Processed, Option<Vec<u8>>, Option<StoreError>)> {
        // a command that prints a file's lines is the file's content: read
        // whole and cut as a file is (see `resolve.rs`)
        if !self.streams(call.name) || self.resolve(call).printed().is_some() {
            let mut buf = Vec::new();
            let args = produce(&mut |piece: &[u8]| buf.extend_from_slice(piece))?;
            let mut call = *call;
            if let Some(a) = &args {
                call.args = a;
            }
            let (p, text, err) = self.run_bytes(&call, &buf);
            let unchanged = p.text == text && p.encoding.is_none();
            drop(text);
            return Ok((p, unchanged.then_some(buf), err));
        }
        let r = self.resolve(call);
        let entry = r.entry();
        let raw_limit = r.raw_limit();
        let mut head: Vec<u8> = Vec::new();
        // with the family's tally of the whole output, as the in-memory path
        // makes it (a kept result's search states how many lines it finds)
        let mut tally = r.strategy().streamed_tally(
            r.tally_limit(&self.config),
            self.store.is_some() && call.id.is_some(),
        );
        // an everyday output (a diff, grep results, a listing) is read for
        // its parts as it comes
        // (a log's levels by the scan, from its own pass over the lines)
        let kind = r.strategy().everyday(call, entry);
        let levels = kind == Some(crate::cut::everyday::Kind::Levels);
        let mut everyday = kind
            .filter(|_| !levels)
            .map(crate::cut::everyday::Builder::new);
        let mut sc = scan::Scanner::new(entry.clean, Some(Bounds::for_budget(entry.max_kept)));
        if levels {
            sc = sc.with_levels();
        }
        if let Some(t) = tally.as_mut() {
            sc = sc.with_tally(t);
        }
        // the bytes read so far, while the result may be small enough to process
        // whole, or while it is not decided whether the store gets it
        let mut held: Vec<u8> = Vec::new();
        let mut raw_complete = true;
        let mut spill = self.spill_for(call);
        // the input as UTF-8: decoded from a legacy encoding when its start
        // clearly is one, as in memory
        let mut front = Front::default();
        let mut body = |data: &[u8]| {
            let n = data.len();
            if head.len() < binary::SAMPLE_BYTES {
                let k = n.min(binary::SAMPLE_BYTES - head.len());
                head.extend_from_slice(&data[..k]);
            }
            sc.feed(data);
            if let Some(b) = everyday.as_mut() {
                b.feed(data);
            }
            // a JSON document is held whole (up to JSON_HOLD_BYTES) so that it
            // is shortened as valid JSON, as in memory
            let limit = match head.iter().find(|b| !b.is_ascii_whitespace()) {
                Some(b'{' | b'[') => raw_limit.max(finish::JSON_HOLD_BYTES),
                _ => raw_limit,
            };
            if raw_complete && held.len() + n > limit {
                raw_complete = false;
            }
            if raw_complete || matches!(spill, Spill::Pending) {
                held.extend_from_slice(data);
            } else {
                spill.feed(data);
            }
            if !raw_complete {
                // the start of the result decides whether it is binary, never kept
                if matches!(spill, Spill::Pending) && head.len() >= binary::SAMPLE_BYTES {
                    spill.decide(self.attached_store(), &held);
                }
                if !matches!(spill, Spill::Pending) {
                    held = Vec::new();
                }
            }
        };
        let args = produce(&mut |data: &[u8]| front.feed(data, &mut body))?;
        front.finish(&mut body);
        let mut decoded = *call;
        if let Some(a) = &args {
            decoded.args = a;
        }
        decoded.decoded_from = front.encoding.map(encoding_rs::Encoding::name);
        let call = &decoded;
        let levels = sc.end_levels();
        sc.end_tally();
        let scanned = sc.finish();
        if raw_complete {
            // small enough to hold: the in-memory path, exactly
            drop(spill);
            let text = String::from_utf8_lossy(&held);
            let (mut p, err) = self.run(call, &text);
            p.original.bytes = front.raw_bytes;
            let unchanged = p.text == text;
            return Ok((p, unchanged.then_some(held), err));
        }
        spill.decide(self.attached_store(), &held);
        drop(held);
        let mut out = Self::blank(call, &r);
        out.original = scanned.totals;
        out.original.bytes = front.raw_bytes;
        out.printed_to_end();
        let sample = String::from_utf8_lossy(&head);
        if let Some(b) = binary::detect(&sample) {
            // kept (as decoded), as in memory: the suggestions read it back
            let mut err = None;
            out.stored = spill.keep(self, call, true, Some(0)).unwrap_or_else(|e| {
                err = Some(e);
                None
            });
            let mut out = binary::summarise(out, &b, &sample, call, &r, &self.config);
            out.store_error = err.as_ref().map(ToString::to_string);
            self.note_seen(call, &out);
            return Ok((out, None, err));
        }
        let mut err = None;
        let read = finish::Read {
            text: None,
            orig_idx: None,
            scanned: Some(scanned),
            tally,
            everyday: everyday
                .map(crate::cut::everyday::Builder::finish)
                .or(levels),
        };
        let mut out = self.finish(call, &r, out, read, &mut |_, shown| {
            spill
                .keep(self, call, true, Some(shown))
                .unwrap_or_else(|e| {
                    err = Some(e);
                    None
                })
        });
        if !out.truncated && !out.bypassed && out.stored.is_none() {
            match spill.keep(self, call, false, None) {
                Ok(s) => out.stored = s,
                Err(e) => err = Some(e),
            }
        }
        out.store_error = err.as_ref().map(ToString::to_string);
        self.note_seen(call, &out);
        Ok((out, None, err))
    }

    fn attached_store(&self) -> Option<&dyn ResultStore> {
        self.store.as_ref().map(|a| a.store.as_ref())
    }

    /// How a streamed result of `call` is to be kept, before anything is read.
    fn spill_for(&self, call: &ToolCall<'_>) -> Spill<'_> {
        let (Some(_), Some(id)) = (&self.store, call.id) else {
            return Spill::Off;
        };
        let dialog = call.dialog.unwrap_or(store::DEFAULT_DIALOG);
        match store::validate_id("dialog id", dialog)
            .and_then(|()| store::validate_id("tool_call_id", id))
        {
            Ok(()) => Spill::Pending,
            Err(e) => Spill::Failed(e),
        }
    }
}

/// Where a streamed result goes while it is read, when a store may keep it.
enum Spill<'s> {
    /// Nothing is kept: no store, or no tool call id.
    Off,
    /// Not decided yet: the bytes read are held until the start of the result
    /// shows whether it is binary.
    Pending,
    /// Being written to the store, decoded as the whole input would be.
    Writing(Box<dyn OutputWriter + 's>, LossyDecoder),
    /// Keeping it failed: reported when it is to be kept.
    Failed(StoreError),
}

impl<'s> Spill<'s> {
    /// Decide a pending spill from the start of the result (`head`, all of it
    /// or at least [`super::binary::SAMPLE_BYTES`]): start writing, beginning
    /// with the bytes `held` so far (binary data too, as decoded).
    fn decide(&mut self, store: Option<&'s dyn ResultStore>, held: &[u8]) {
        let (Spill::Pending, Some(store)) = (&*self, store) else {
            return;
        };
        *self = match store.begin_output() {
            Ok(w) => Spill::Writing(w, LossyDecoder::new()),
            Err(e) => Spill::Failed(e),
        };
        self.feed(held);
    }

    /// Write the next bytes read.
    fn feed(&mut self, data: &[u8]) {
        if let Spill::Writing(w, dec) = self
            && let Err(e) = dec.feed(data, &mut |s| w.write(s))
        {
            *self = Spill::Failed(e);
        }
    }

    /// Commit what was written when the store wants the result (a cut one,
    /// reading on at `shown`; or, with [`SaveWhen::All`], one that was not cut).
    fn keep(
        &mut self,
        p: &ToolResultProcessor,
        call: &ToolCall<'_>,
        truncated: bool,
        shown: Option<usize>,
    ) -> Result<Option<Stored>, StoreError> {
        let (Some(a), Some(id)) = (&p.store, call.id) else {
            return Ok(None);
        };
        if !truncated && a.save == SaveWhen::Cut {
            return Ok(None);
        }
        let (mut w, mut dec) = match std::mem::replace(self, Spill::Off) {
            Spill::Off | Spill::Pending => return Ok(None),
            Spill::Failed(e) => return Err(e),
            Spill::Writing(w, dec) => (w, dec),
        };
        dec.finish(&mut |s| w.write(s))?;
        let size = dec.totals();
        let dialog = call.dialog.unwrap_or(store::DEFAULT_DIALOG);
        let mut meta = Meta::with_size(dialog, id, call.name, call.args, size);
        meta.truncated = truncated;
        meta.shown_chars = shown.unwrap_or(size.chars);
        w.commit(&meta)?;
        Ok(Some(Stored {
            tool_call_id: id.to_string(),
            dialog_id: dialog.to_string(),
            storage_type: a.store.storage_type().to_string(),
            offset: meta.shown_chars,
        }))
    }
}

/// The input on its way to the scan: the first [`decode::GUESS_BYTES`] held until
/// its encoding is decided (as [`decode::decode`] decides it for a whole input),
/// then passed on as they are (UTF-8) or decoded from the legacy encoding.
#[derive(Default)]
struct Front {
    pending: Vec<u8>,
    decided: bool,
    decoder: Option<encoding_rs::Decoder>,
    encoding: Option<&'static encoding_rs::Encoding>,
    /// Bytes of the input read.
    raw_bytes: usize,
}

impl Front {
    fn feed(&mut self, data: &[u8], sink: &mut dyn FnMut(&[u8])) {
        self.raw_bytes += data.len();
        if self.decided {
            self.pass(data, false, sink);
            return;
        }
        self.pending.extend_from_slice(data);
        if self.pending.len() >= decode::GUESS_BYTES {
            self.decide(false);
            let held = std::mem::take(&mut self.pending);
            self.pass(&held, false, sink);
        }
    }

    /// The end of the input.
    fn finish(&mut self, sink: &mut dyn FnMut(&[u8])) {
        if !self.decided {
            self.decide(true);
        }
        let held = std::mem::take(&mut self.pending);
        self.pass(&held, true, sink);
    }

    fn decide(&mut self, last: bool) {
        let n = self.pending.len().min(decode::GUESS_BYTES);
        let last = last && n == self.pending.len();
        self.encoding = decode::legacy_encoding(&self.pending[..n], last);
        self.decoder = self
            .encoding
            .map(encoding_rs::Encoding::new_decoder_without_bom_handling);
        self.decided = true;
    }

    fn pass(&mut self, data: &[u8], last: bool, sink: &mut dyn FnMut(&[u8])) {
        let Some(d) = &mut self.decoder else {
            if !data.is_empty() {
                sink(data);
            }
            return;
        };
        // in pieces of at most 64 KiB: the decoded text of each is held once
        for (i, piece) in data.chunks(1 << 16).enumerate() {
            let end = last && (i + 1) * (1 << 16) >= data.len();
            let room = d
                .max_utf8_buffer_length(piece.len())
                .unwrap_or(piece.len().saturating_mul(3).saturating_add(16));
            let mut out = String::with_capacity(room);
            let _ = d.decode_to_string(piece, &mut out, end);
            if !out.is_empty() {
                sink(out.as_bytes());
            }
        }
        if last && data.is_empty() {
            let mut out = String::with_capacity(16);
            let _ = d.decode_to_string(&[], &mut out, true);
            if !out.is_empty() {
                sink(out.as_bytes());
            }
        }
    }
}
