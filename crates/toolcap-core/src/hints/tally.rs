//! What the shell hints need to know about a command's whole output, gathered
//! in one pass over its text — held whole, or read as a stream piece by piece —
//! so that both ways size their suggestions alike: the first lines' sizes (for
//! the first omitted range), the last lines' sizes (for the last lines), and
//! the lines the error search finds (their count and the sizes `grep -n`
//! prints them in), with colour codes stripped and as they are.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use crate::cut::error_lines::{ERROR_FINDER, strip_csi};
use crate::cut::scan::LineSink;
use crate::cut::spill::LossyDecoder;

/// Lines found by the error search, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    /// How many lines match (all of them when `complete`, else those up to
    /// where the counting stopped).
    pub count: usize,
    /// Every line of the text was looked at.
    pub complete: bool,
    /// The chars `grep -n` prints for each of the first matching lines
    /// (`N:line\n`), until their sum passes the limit the tally was made with.
    pub sizes: Vec<usize>,
    sum: usize,
}

impl Found {
    fn add(&mut self, n: usize, line: &str, limit: usize) {
        self.count += 1;
        if self.sum <= limit {
            let c = n.to_string().len() + 1 + crate::text::count_chars(line) + 1;
            self.sizes.push(c);
            self.sum += c;
        }
    }

    /// How many of the first matching lines print within `budget` chars, and
    /// their chars (`budget` at most the tally's limit).
    pub fn within(&self, budget: usize) -> (usize, usize) {
        let mut used = 0;
        let mut n = 0;
        for &c in &self.sizes {
            if used + c > budget {
                break;
            }
            used += c;
            n += 1;
        }
        (n, used)
    }
}

/// Line facts of a whole output: see the module docs.
#[derive(Debug, Clone)]
pub struct LineTally {
    limit: usize,
    head: String,
    /// The head holds the text's start only (it reached its cap).
    head_full: bool,
    tail: String,
    /// The tail dropped its start (it holds the text's end only).
    tail_cut: bool,
    pending: String,
    /// Lines counted while matches were numbered.
    lines: usize,
    /// The error search over the lines as they are (a line's `\r` end kept, as
    /// `grep` sees it; the search matches alike without it).
    pub raw: Found,
    /// The error search over the lines with their colour codes stripped.
    pub stripped: Found,
    /// The counting of matches stopped (see `count_all`).
    stopped: bool,
    /// The error search (over one line, without its `\n`): compiled when a
    /// line is first looked at (an output with no error word, or none at all,
    /// never compiles it).
    search: &'static LazyLock<Regex>,
    /// Count the matching lines to the end of the text (else the counting
    /// stops once the first matching lines are sized: `Found::complete`).
    count_all: bool,
    /// Read as raw bytes (see [`Self::raw_piece`]): the decoder of the head
    /// while it fills.
    decoder: LossyDecoder,
    /// Read as raw bytes: at least the last `cap` bytes read.
    raw_tail: Vec<u8>,
    /// Read as raw bytes: `raw_tail` dropped the start of the input.
    raw_cut: bool,
    /// Read as raw bytes: the line begun in an earlier piece.
    raw_pending: Vec<u8>,
    /// Read as raw bytes: the line begun is longer than [`GIANT_LINE`] and is
    /// not held; once it ends, the search stops counting (see [`GIANT_LINE`]).
    raw_giant: bool,
    /// Read as raw bytes: a giant line stopped the counting.
    halted: bool,
    /// Read as raw bytes: the giant line begun holds an error word or an escape
    /// (else the search cannot match it, and the counting goes on).
    raw_giant_hit: bool,
    /// Read as raw bytes: the giant line's last bytes (a word may span pieces).
    raw_giant_tail: Vec<u8>,
}

/// A line read as raw bytes longer than this is not held (as the scan holds
/// only the ends of such a line, `cut::scan::Bounds::giant_line`). When it holds
/// an error word or an escape (the search may match it), the error search's
/// counts stop before it, so what a suggestion states is still exact (`the
/// first 3`, `| head -n 3`: the matching lines before it); else it cannot match
/// and the counting goes on.
pub(crate) const GIANT_LINE: usize = 8 << 20;

impl LineTally {
    /// A tally sizing ranges of up to `limit` chars, with `search` deciding the
    /// lines the error search finds, counting them all when `count_all`.
    pub fn new(limit: usize, search: &'static LazyLock<Regex>, count_all: bool) -> LineTally {
        LineTally {
            limit,
            head: String::new(),
            head_full: false,
            tail: String::new(),
            tail_cut: false,
            pending: String::new(),
            lines: 0,
            raw: Found::default(),
            stripped: Found::default(),
            search,
            count_all,
            stopped: false,
            decoder: LossyDecoder::new(),
            raw_tail: Vec::new(),
            raw_cut: false,
            raw_pending: Vec::new(),
            raw_giant: false,
            halted: false,
            raw_giant_hit: false,
            raw_giant_tail: Vec::new(),
        }
    }

    /// Bytes kept of the first and of the last lines: enough for `limit` chars
    /// after `limit` chars of kept head, whatever the chars' widths.
    fn cap(&self) -> usize {
        self.limit.saturating_mul(8).saturating_add(8)
    }

    /// The tally of a whole text.
    pub fn of(
        text: &str,
        limit: usize,
        search: &'static LazyLock<Regex>,
        count_all: bool,
    ) -> LineTally {
        let mut t = LineTally::new(limit, search, count_all);
        t.feed(text);
        t.finish();
        t
    }

    /// The next piece of the text.
    pub fn feed(&mut self, piece: &str) {
        self.push_head(piece);
        match memchr::memrchr(b'\n', piece.as_bytes()) {
            None => self.pending.push_str(piece),
            Some(i) => {
                // the line begun in an earlier piece, then this piece's whole lines
                let first = memchr::memchr(b'\n', piece.as_bytes()).unwrap_or(i);
                if !self.pending.is_empty() {
                    let mut line = std::mem::take(&mut self.pending);
                    line.push_str(&piece[..=first]);
                    self.block(&line);
                    if first < i {
                        self.block(&piece[first + 1..=i]);
                    }
                } else {
                    self.block(&piece[..=i]);
                }
                self.pending.clear();
                self.pending.push_str(&piece[i + 1..]);
            }
        }
    }

    /// The next piece of the text's start, kept while the head is not full.
    fn push_head(&mut self, piece: &str) {
        let cap = self.cap();
        if !self.head_full {
            let mut k = (cap - self.head.len()).min(piece.len());
            while !piece.is_char_boundary(k) {
                k -= 1;
            }
            self.head.push_str(&piece[..k]);
            self.head_full = k < piece.len() || self.head.len() >= cap;
        }
    }

    /// The next piece of an input read as raw bytes (its lossy UTF-8 decoding
    /// is the text), instead of [`Self::feed`]: keeps the text's first and last
    /// bytes. Its lines are handed over by the scan that finds them
    /// ([`Self::raw_line`], [`Self::raw_pending`], [`Self::raw_end`]): the same
    /// tally as of the decoded text.
    pub(crate) fn raw_piece(&mut self, data: &[u8]) {
        if !self.head_full {
            let mut dec = std::mem::take(&mut self.decoder);
            let _ = dec.feed(data, &mut |t: &str| -> Result<(), ()> {
                self.push_head(t);
                Ok(())
            });
            self.decoder = dec;
        }
        let cap = self.cap();
        if data.len() >= cap {
            self.raw_cut |= data.len() > cap || !self.raw_tail.is_empty();
            self.raw_tail.clear();
            self.raw_tail.extend_from_slice(&data[data.len() - cap..]);
        } else {
            self.raw_tail.extend_from_slice(data);
            if self.raw_tail.len() > 2 * cap {
                let cut = self.raw_tail.len() - cap;
                self.raw_tail.drain(..cut);
                self.raw_cut = true;
            }
        }
    }

    /// Read as raw bytes: line `n` (1-based; its raw bytes without the `\n`).
    /// `candidate`: it holds an error word or an escape, as the scan found
    /// (else it is looked at here).
    pub(crate) fn raw_line(&mut self, n: usize, line: &[u8], candidate: bool) {
        if self.halted || (!self.count_all && !self.numbering()) {
            return;
        }
        // (the error words are ASCII: a line's raw bytes hold one where its
        // lossy decoding does)
        if !candidate
            && memchr::memchr(0x1b, line).is_none()
            && ERROR_FINDER.hits(line).next().is_none()
        {
            return;
        }
        let text = String::from_utf8_lossy(line);
        self.look(n, &text);
    }

    /// Read as raw bytes: the start of a line that goes on in a later piece.
    pub(crate) fn raw_pending(&mut self, part: &[u8]) {
        if self.halted {
            return;
        }
        if self.raw_giant {
            self.giant_look(part);
            return;
        }
        if self.raw_pending.len() + part.len() > GIANT_LINE {
            // not held: see GIANT_LINE
            self.raw_giant = true;
            let held = std::mem::take(&mut self.raw_pending);
            self.giant_look(&held);
            self.giant_look(part);
            return;
        }
        self.raw_pending.extend_from_slice(part);
    }

    /// The next bytes of a giant line: whether the search could match it.
    fn giant_look(&mut self, data: &[u8]) {
        const EDGE: usize = 16;
        let mut edge = std::mem::take(&mut self.raw_giant_tail);
        edge.extend_from_slice(&data[..data.len().min(EDGE)]);
        if !self.raw_giant_hit {
            self.raw_giant_hit = ERROR_FINDER.hits(&edge).next().is_some()
                || memchr::memchr(0x1b, &edge).is_some()
                || ERROR_FINDER.hits(data).next().is_some()
                || memchr::memchr(0x1b, data).is_some();
        }
        let last = if data.len() >= EDGE { data } else { &edge[..] };
        self.raw_giant_tail = last[last.len().saturating_sub(EDGE)..].to_vec();
    }

    /// Read as raw bytes: the end of the line begun in earlier pieces (with its
    /// `\n`, or empty at the end of the input), line `n`. Whether a line is
    /// begun: [`Self::raw_pending_open`].
    pub(crate) fn raw_pending_end(&mut self, n: usize, end: &[u8]) {
        if self.halted {
            return;
        }
        if self.raw_giant {
            self.giant_look(end);
            // a line the search cannot match changes no count; one it may match
            // stops the counting (its text was not held)
            self.halted = self.raw_giant_hit;
            self.raw_giant = false;
            self.raw_giant_hit = false;
            self.raw_giant_tail.clear();
            self.raw_pending = Vec::new();
            return;
        }
        let mut line = std::mem::take(&mut self.raw_pending);
        line.extend_from_slice(end);
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        self.raw_line(n, body, false);
        line.clear();
        self.raw_pending = line;
    }

    /// Read as raw bytes: a line is begun and not ended yet.
    pub(crate) fn raw_pending_open(&self) -> bool {
        !self.raw_pending.is_empty() || self.raw_giant
    }

    /// Read as raw bytes: the end of the input (after the last line was handed
    /// over).
    pub(crate) fn raw_end(&mut self) {
        if !self.head_full {
            let mut dec = std::mem::take(&mut self.decoder);
            let _ = dec.finish(&mut |t: &str| -> Result<(), ()> {
                self.push_head(t);
                Ok(())
            });
        }
        let raw = std::mem::take(&mut self.raw_tail);
        self.tail_cut = self.raw_cut;
        self.tail = if !self.raw_cut {
            String::from_utf8_lossy(&raw).into_owned()
        } else {
            // the kept bytes start inside a line: left out as a part (a piece
            // of at least `cap` bytes, more chars than any budget, reaches it);
            // the lines after it decode as in the whole text
            let mut t = String::from("-");
            if let Some(i) = memchr::memchr(b'\n', &raw) {
                t.push('\n');
                t.push_str(&String::from_utf8_lossy(&raw[i + 1..]));
            }
            t
        };
        self.stopped = self.halted || (!self.count_all && !self.numbering());
        self.raw.complete = !self.stopped;
        self.stripped.complete = !self.stopped;
    }

    /// The end of the text (a last line without a line end).
    pub fn finish(&mut self) {
        if !self.pending.is_empty() {
            let b = std::mem::take(&mut self.pending);
            self.block(&b);
        }
        self.raw.complete = !self.stopped;
        self.stripped.complete = !self.stopped;
    }

    /// Whether the line numbers of matches are still needed (the sizes of the
    /// first matching lines are not all known yet).
    fn numbering(&self) -> bool {
        self.raw.sum <= self.limit || self.stripped.sum <= self.limit
    }

    /// Whole lines (the last may lack its `\n` at the end of the text).
    fn block(&mut self, block: &str) {
        let bytes = block.as_bytes();
        if self.stopped {
            self.keep_tail(block);
            return;
        }
        // the lines that may match, in order: an error word, or a colour code
        // that may hide one
        let mut hits = ERROR_FINDER.hits(bytes).map(|(h, _)| h).peekable();
        let mut escs = memchr::memchr_iter(0x1b, bytes).peekable();
        let mut done = 0usize; // bytes of the lines already looked at
        let mut counted_to = 0usize;
        let mut newlines = 0usize;
        let mut numbered = self.numbering();
        // the lines that may match, one by one in order: numbered while the
        // first ones are sized, then only counted (when all are to be)
        while numbered || self.count_all {
            while hits.next_if(|&h| h < done).is_some() {}
            while escs.next_if(|&h| h < done).is_some() {}
            let h = match (hits.peek(), escs.peek()) {
                (Some(&a), Some(&b)) => a.min(b),
                (Some(&a), None) | (None, Some(&a)) => a,
                (None, None) => break,
            };
            let s = memchr::memrchr(b'\n', &bytes[..h]).map_or(0, |i| i + 1);
            let e = memchr::memchr(b'\n', &bytes[h..]).map_or(bytes.len(), |i| h + i);
            done = e + 1;
            let line = &block[s..e];
            let n = if numbered {
                newlines += memchr::memchr_iter(b'\n', &bytes[counted_to..s]).count();
                counted_to = s;
                self.lines + newlines + 1
            } else {
                0
            };
            self.look(n, line);
            numbered = numbered && self.numbering();
        }
        if numbered {
            self.lines += memchr::memchr_iter(b'\n', bytes).count();
            if !block.ends_with('\n') {
                self.lines += 1;
            }
        } else if !self.count_all {
            // the counting stopped in this piece: nothing more is looked at
            self.stopped = true;
        }
        self.keep_tail(block);
    }

    /// Line `n` (without its `\n`), one the error search may match.
    fn look(&mut self, n: usize, line: &str) {
        let raw = self.search.is_match(line);
        if raw {
            self.raw.add(n, line, self.limit);
        }
        let plain: Cow<'_, str> = strip_csi(line);
        let stripped = match &plain {
            Cow::Borrowed(_) => raw,
            Cow::Owned(p) => self.search.is_match(p),
        };
        if stripped {
            self.stripped.add(n, &plain, self.limit);
        }
    }

    /// Keep (at least) the last `cap` bytes of the text.
    fn keep_tail(&mut self, block: &str) {
        let cap = self.cap();
        if block.len() >= cap {
            let mut from = block.len() - cap;
            while !block.is_char_boundary(from) {
                from += 1;
            }
            self.tail_cut |= from > 0 || !self.tail.is_empty();
            self.tail.clear();
            self.tail.push_str(&block[from..]);
        } else {
            self.tail.push_str(block);
            if self.tail.len() > 2 * cap {
                let mut cut = self.tail.len() - cap;
                while !self.tail.is_char_boundary(cut) {
                    cut += 1;
                }
                self.tail.drain(..cut);
                self.tail_cut = true;
            }
        }
    }

    /// The longest range of lines from line `a` (1-based), ending no later than
    /// `max_end`, that prints in at most `budget` chars: its last line and its
    /// chars; None when line `a` alone is longer, or lies past the first lines
    /// the tally kept.
    pub fn lines_within(&self, a: usize, max_end: usize, budget: usize) -> Option<(usize, usize)> {
        let whole = !self.head_full;
        let mut it = self.head.split_inclusive('\n').peekable();
        let mut used = 0;
        let mut end = None;
        let mut n = 0;
        while let Some(l) = it.next() {
            n += 1;
            if n > max_end {
                break;
            }
            // a last line the head holds only part of
            let partial = it.peek().is_none() && !whole && !l.ends_with('\n');
            if n < a {
                continue;
            }
            let c = crate::text::count_chars(l);
            if used + c > budget {
                break;
            }
            if partial {
                return None;
            }
            used += c;
            end = Some((n, used));
        }
        end
    }

    /// The longest run of last lines of a text of `total` lines that prints in
    /// at most `budget` chars (`budget` at most the tally's limit): its first
    /// line and its chars.
    pub fn tail_within(&self, total: usize, budget: usize) -> Option<(usize, usize)> {
        self.tail_within_before(total, (1, total), budget)
    }

    /// [`Self::tail_within`] for lines `first..=end` (1-based) only: the
    /// longest run of lines ending at `end`, starting at `first` or later,
    /// that prints in at most `budget` chars, from the last lines the tally
    /// holds (None when they do not reach back to `end`).
    pub fn tail_within_before(
        &self,
        total: usize,
        (first, end): (usize, usize),
        budget: usize,
    ) -> Option<(usize, usize)> {
        let pieces = self.tail.split_inclusive('\n').count();
        // a tail that dropped its start begins inside a line: that line is not
        // reached (the tail holds more chars than any budget after it)
        let whole_lines = if self.tail_cut {
            pieces.saturating_sub(1)
        } else {
            pieces
        };
        let mut used = 0;
        let mut start = None;
        let mut n = total;
        for l in self.tail.split_inclusive('\n').rev().take(whole_lines) {
            if n > end {
                n -= 1;
                continue;
            }
            if n < first {
                break;
            }
            let c = crate::text::count_chars(l);
            if used + c > budget {
                break;
            }
            used += c;
            start = Some((n, used));
            n -= 1;
        }
        start
    }
}

/// The scan feeds a streamed output's tally as it reads it.
impl LineSink for LineTally {
    fn raw_piece(&mut self, data: &[u8]) {
        LineTally::raw_piece(self, data);
    }
    fn raw_line(&mut self, n: usize, line: &[u8], candidate: bool) {
        LineTally::raw_line(self, n, line, candidate);
    }
    fn raw_pending(&mut self, part: &[u8]) {
        LineTally::raw_pending(self, part);
    }
    fn raw_pending_end(&mut self, n: usize, end: &[u8]) {
        LineTally::raw_pending_end(self, n, end);
    }
    fn raw_pending_open(&self) -> bool {
        LineTally::raw_pending_open(self)
    }
    fn raw_end(&mut self) {
        LineTally::raw_end(self);
    }
}

#[cfg(test)]
mod tests;
