//! The tail window: the last lines kept while the scan goes on, plain lines
//! held as spans of the chunk being fed, and what leaves it: error lines and
//! the lines right after them go to the middle, the rest is dropped (counted).

use super::{Bounds, Cur, Line, MIDDLE_CONTEXT, Origin, Run, Scanner, Text, chars_of, split_term};

/// An entry of the tail window: one kept line, or a span of plain lines of the
/// chunk being fed (lines kept verbatim, not error-looking, not repeats: most
/// lines of a big log), held as one entry so a line passing through costs a few
/// additions. Spans are settled at the end of each chunk: the lines that leave
/// the window leave (in order, as lines would), the rest become lines.
pub(super) enum Entry {
    Line(Line),
    Span(Span),
}

/// The span being extended by the lines of a chunk, and its last line's body
/// (start, length): the line the next one is compared with for runs.
pub(super) struct Open {
    pub(super) span: Span,
    pub(super) last: (usize, usize),
}

/// Consecutive plain lines: `start..end` of the chunk being fed, or of `text`
/// once the chunk is gone (a span left in the tail window at the end of a chunk
/// takes a copy of its bytes).
pub(super) struct Span {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) first_line: usize,
    pub(super) chars_before: usize,
    pub(super) lines: usize,
    pub(super) chars: usize,
    /// All its bytes are ASCII (characters are bytes).
    pub(super) ascii: bool,
    pub(super) text: Option<String>,
}

impl Span {
    /// Its bytes: in `cur`, the chunk being fed, or its own copy.
    fn bytes<'a>(&'a self, cur: Cur<'a>) -> &'a [u8] {
        let all = match &self.text {
            Some(t) => t.as_bytes(),
            None => cur.unwrap_or_default(),
        };
        all.get(self.start..self.end).unwrap_or_default()
    }
}

impl Entry {
    /// Bytes of its (cleaned) lines.
    fn len(&self) -> usize {
        match self {
            Entry::Line(l) => l.len,
            Entry::Span(s) => s.end - s.start,
        }
    }
}

impl Scanner<'_> {
    /// Keep a string's buffer for reuse (a bounded number of them).
    pub(super) fn recycle(&mut self, s: String) {
        if self.spare.len() < 256 {
            self.spare.push(s);
        }
    }

    /// At the end of a chunk: lines and the run that still refer to it take
    /// copies (at most the tail window).
    pub(super) fn detach(&mut self, cur: &[u8]) {
        self.settle(Some(cur));
        for e in self.ring.iter_mut() {
            if let Entry::Line(l) = e
                && let Text::Raw { .. } = l.text
            {
                let t = std::mem::replace(&mut l.text, Text::Owned(String::new()));
                l.text = Text::Owned(t.into_owned(Some(cur)));
            }
        }
        if let Some(run) = &mut self.run
            && let Text::Raw { .. } = run.content
        {
            let t = std::mem::replace(&mut run.content, Text::Owned(String::new()));
            run.content = Text::Owned(t.into_owned(Some(cur)));
        }
    }

    /// Keep a logical line: in the head, in the tail window, or (leaving the
    /// window) in the middle when it is an error line or right after one.
    /// `len`: bytes of its content.
    pub(super) fn emit(
        &mut self,
        text: Text,
        len: usize,
        term: &'static str,
        origin: Origin,
        is_err: bool,
        cur: Cur<'_>,
    ) {
        let text = match text {
            Text::Owned(mut s) => {
                s.push_str(term);
                Text::Owned(s)
            }
            // a raw line's terminator follows it in the chunk
            Text::Raw { start, len } => Text::Raw {
                start,
                len: len + term.len(),
            },
        };
        let line = Line {
            text,
            len: len + term.len(),
            origin,
            is_err,
        };
        let Some(b) = self.bounds else {
            let t = line.text.into_owned(cur);
            self.head.push(Line {
                text: Text::Owned(t),
                ..line
            });
            return;
        };
        if !self.head_done {
            self.head_bytes += line.len;
            let t = line.text.into_owned(cur);
            self.head.push(Line {
                text: Text::Owned(t),
                ..line
            });
            if self.head_bytes >= b.head_bytes {
                self.head_done = true;
            }
            return;
        }
        self.ring_bytes += line.len;
        self.ring.push_back(Entry::Line(line));
        self.evict(b, cur);
    }

    /// Drop whole entries from the front of the tail window while what follows
    /// them fills it.
    pub(super) fn evict(&mut self, b: Bounds, cur: Cur<'_>) {
        while self.ring.len() > 1
            && self.ring_bytes - self.ring.front().map_or(0, Entry::len) >= b.tail_bytes
        {
            let Some(old) = self.ring.pop_front() else {
                break;
            };
            self.ring_bytes -= old.len();
            match old {
                Entry::Line(l) => self.leave_ring(l, b, cur),
                Entry::Span(s) => self.leave_span(&s, b, cur),
            }
        }
    }

    /// Count the open span's lines and put it in the tail window; its last line
    /// is the run the next line is compared with.
    pub(super) fn close_span(&mut self, open: Option<Open>, cur: &[u8]) {
        let (Some(Open { span, last }), Some(bd)) = (open, self.bounds) else {
            return;
        };
        self.bytes += span.end - span.start;
        self.chars += span.chars;
        self.lines += span.lines;
        if self.clean {
            let content = Text::Raw {
                start: last.0,
                len: last.1,
            };
            let old = self.run.replace(Run {
                content,
                repeats: 0,
                first: None,
                chars: 0,
                last_term: "",
            });
            if let Some(Run {
                content: Text::Owned(s),
                ..
            }) = old
            {
                self.recycle(s);
            }
        }
        self.ring_bytes += span.end - span.start;
        self.ring.push_back(Entry::Span(span));
        self.evict(bd, Some(cur));
    }

    /// The first `n` lines of a span, with their origins.
    pub(super) fn span_lines(s: &Span, cur: Cur<'_>, n: usize) -> Vec<Line> {
        let bytes = s.bytes(cur);
        let end = match n.checked_sub(1) {
            None => 0,
            Some(k) if k + 1 >= s.lines => bytes.len(),
            Some(k) => memchr::memchr_iter(b'\n', bytes)
                .nth(k)
                .map_or(bytes.len(), |i| i + 1),
        };
        // a span lies in a chunk that was valid UTF-8, on line boundaries
        let text = match std::str::from_utf8(&bytes[..end]) {
            Ok(t) => std::borrow::Cow::Borrowed(t),
            Err(_) => String::from_utf8_lossy(&bytes[..end]),
        };
        let mut out = Vec::with_capacity(n.min(s.lines));
        let mut chars_before = s.chars_before;
        for (k, line) in text.split_inclusive('\n').enumerate() {
            let chars = chars_of(line.as_bytes(), s.ascii);
            let (_, term) = split_term(line);
            out.push(Line {
                text: Text::Owned(line.to_string()),
                len: line.len(),
                origin: Origin {
                    first_line: s.first_line + k,
                    lines: 1,
                    chars_before,
                    chars,
                    content_chars: chars - term.len(),
                    skipped: None,
                    placeholder: false,
                },
                is_err: false,
            });
            chars_before += chars;
        }
        out
    }

    /// A span leaving the tail window: its first lines are kept when they follow
    /// an error line (as [`Self::leave_ring`] does for a line).
    pub(super) fn leave_span(&mut self, s: &Span, b: Bounds, cur: Cur<'_>) {
        if self.ctx_left == 0 {
            return;
        }
        let n = self.ctx_left.min(s.lines);
        self.ctx_left -= n;
        let room = b.max_middle_lines.saturating_sub(self.middle.len());
        let lines = Self::span_lines(s, cur, n.min(room));
        self.middle.extend(lines);
    }

    /// At the end of a chunk (`cur`): the lines of the front span that the lines
    /// after them push out of the tail window leave it, and the spans still in
    /// it take a copy of their bytes.
    /// (Also at the end of the scan, with no chunk: then every span owns its
    /// bytes already.)
    pub(super) fn settle(&mut self, cur: Cur<'_>) {
        let Some(b) = self.bounds else { return };
        self.evict(b, cur);
        if let Some(Entry::Span(_)) = self.ring.front()
            && let Some(Entry::Span(mut s)) = self.ring.pop_front()
        {
            let len = s.end - s.start;
            self.ring_bytes -= len;
            // keep its lines from the end while fewer than `tail_bytes` follow them
            let bytes = s.bytes(cur);
            let mut after = self.ring_bytes;
            let mut any_after = !self.ring.is_empty();
            let mut from = len;
            let mut kept_lines = 0;
            while from > 0 && !(any_after && after >= b.tail_bytes) {
                let start = memchr::memrchr(b'\n', &bytes[..from - 1]).map_or(0, |i| i + 1);
                kept_lines += 1;
                after += from - start;
                any_after = true;
                from = start;
            }
            if from > 0 {
                let gone = Span {
                    start: s.start,
                    end: s.start + from,
                    first_line: s.first_line,
                    chars_before: s.chars_before,
                    lines: s.lines - kept_lines,
                    chars: chars_of(&bytes[..from], s.ascii),
                    ascii: s.ascii,
                    text: None,
                };
                let src = match &s.text {
                    Some(t) => Some(t.as_bytes()),
                    None => cur,
                };
                self.leave_span(&gone, b, src);
                s.start += from;
                s.first_line += gone.lines;
                s.chars_before += gone.chars;
                s.lines = kept_lines;
                s.chars -= gone.chars;
            }
            if s.lines > 0 {
                self.ring_bytes += s.end - s.start;
                self.ring.push_front(Entry::Span(s));
            }
        }
        for e in self.ring.iter_mut() {
            if let Entry::Span(s) = e
                && s.text.is_none()
            {
                let bytes = s.bytes(cur);
                let copy = match std::str::from_utf8(bytes) {
                    Ok(t) => t.to_string(),
                    Err(_) => String::from_utf8_lossy(bytes).into_owned(),
                };
                s.end = copy.len();
                s.start = 0;
                s.text = Some(copy);
            }
        }
    }

    pub(super) fn leave_ring(&mut self, old: Line, b: Bounds, cur: Cur<'_>) {
        let keep = if old.is_err {
            self.ctx_left = MIDDLE_CONTEXT;
            true
        } else if self.ctx_left > 0 {
            self.ctx_left -= 1;
            true
        } else {
            false
        };
        if keep && self.middle.len() < b.max_middle_lines {
            let t = old.text.into_owned(cur);
            self.middle.push(Line {
                text: Text::Owned(t),
                ..old
            });
        } else if let Text::Owned(s) = old.text {
            self.recycle(s);
        }
    }
}
