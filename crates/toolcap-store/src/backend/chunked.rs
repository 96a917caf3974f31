//! The piece-by-piece writer the database stores share ([`ResultStore::begin_output`]
//! of SQLite and PostgreSQL): the text is buffered into chunks of at most the
//! backend's chunk size (whole characters) and each full chunk is handed to the
//! backend as it fills; at commit the size written is checked against the
//! metadata and the last chunk and the result row are kept together. A writer
//! dropped without committing has the backend delete what it wrote.
//!
//! [`ResultStore::begin_output`]: crate::ResultStore::begin_output

use crate::{Meta, OutputWriter, StoreError, StoreErrorKind};

/// One backend's side of a [`Chunked`] writer: where its chunks go.
pub trait ChunkSink {
    /// Most bytes in one chunk.
    const CHUNK_BYTES: usize;

    /// Keep `text` as the chunk that starts at character `start`. `Ok(false)` when
    /// the output being written was deleted under the writer (by a prune).
    fn chunk(&mut self, start: usize, text: &str) -> Result<bool, StoreError>;

    /// Keep `last` (the rest of the output, maybe empty) as the chunk that starts at
    /// character `start`, and the result row for `meta`, in one transaction.
    /// `Ok(false)` when the output was deleted under the writer.
    fn commit(&mut self, meta: &Meta, start: usize, last: &str) -> Result<bool, StoreError>;

    /// Delete what was written, best effort (a failure or a killed process leaves
    /// it to the next prune); `wrote` says whether any chunk was written.
    fn discard(&mut self, wrote: bool);

    /// Whether the backend can keep `meta` (ids, names), before anything is committed.
    fn check(&self, meta: &Meta) -> Result<(), StoreError>;

    /// An error of kind `kind` in this store while doing `action`.
    fn problem(&self, action: &'static str, problem: String, kind: StoreErrorKind) -> StoreError;
}

/// An output being written in chunks to a [`ChunkSink`].
pub struct Chunked<S: ChunkSink> {
    sink: S,
    /// Text not handed to the sink yet: at most `S::CHUNK_BYTES`, whole characters.
    buf: String,
    /// Characters and bytes in the chunks handed over so far.
    chars: usize,
    bytes: usize,
    committed: bool,
}

impl<S: ChunkSink> Chunked<S> {
    /// A writer handing its chunks to `sink`.
    pub fn new(sink: S) -> Chunked<S> {
        Chunked {
            sink,
            buf: String::new(),
            chars: 0,
            bytes: 0,
            committed: false,
        }
    }

    /// The error of a writer whose output was deleted under it.
    fn gone(&self) -> StoreError {
        self.sink.problem(
            "write",
            "the result being written was deleted by a prune before it was complete \
             (nothing had been written to it since the prune's cutoff); prune with an age \
             longer than the slowest stream takes, like --older-than 1d"
                .into(),
            StoreErrorKind::Pruned,
        )
    }

    /// Hand the buffered text to the sink as the next chunk.
    fn flush(&mut self) -> Result<(), StoreError> {
        if !self.sink.chunk(self.chars, &self.buf)? {
            return Err(self.gone());
        }
        self.chars += self.buf.chars().count();
        self.bytes += self.buf.len();
        self.buf.clear();
        Ok(())
    }
}

impl<S: ChunkSink> OutputWriter for Chunked<S> {
    fn write(&mut self, mut text: &str) -> Result<(), StoreError> {
        while !text.is_empty() {
            let room = S::CHUNK_BYTES.saturating_sub(self.buf.len());
            if text.len() <= room {
                self.buf.push_str(text);
                break;
            }
            let mut cut = room;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            self.buf.push_str(&text[..cut]);
            text = &text[cut..];
            self.flush()?;
        }
        Ok(())
    }

    fn commit(mut self: Box<Self>, m: &Meta) -> Result<(), StoreError> {
        self.sink.check(m)?;
        let chars = self.chars + self.buf.chars().count();
        let bytes = self.bytes + self.buf.len();
        if (chars, bytes) != (m.size.chars, m.size.bytes) {
            return Err(self.sink.problem(
                "write",
                crate::error::size_mismatch(m, chars, bytes),
                StoreErrorKind::SizeMismatch,
            ));
        }
        let last = std::mem::take(&mut self.buf);
        if !self.sink.commit(m, self.chars, &last)? {
            return Err(self.gone());
        }
        self.committed = true;
        Ok(())
    }
}

impl<S: ChunkSink> Drop for Chunked<S> {
    fn drop(&mut self) {
        if !self.committed {
            self.sink.discard(self.chars > 0);
        }
    }
}
