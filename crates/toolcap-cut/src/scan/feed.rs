//! Line finding: a chunk's lines in blocks (one vector pass finds them, one
//! search finds their error words), each line taken once: plain lines by the
//! shortcuts (spans, repeats), the others decoded, cleaned, collapsed into runs
//! and kept or dropped; giant lines summarised by their ends.

use std::collections::VecDeque;

use super::window::Open;
use super::window::Span;
use super::{
    Cur, Giant, Run, Scanner, Text, chars_of, is_blank, run_bytes, same_bytes, split_term,
};
use crate::clean;
use crate::error_lines::{ERROR_FINDER, error_at, is_error_line, strip_csi};
use crate::index::Origin;
use crate::text::count_chars;

/// Lines are scanned in blocks of about this many bytes (see `Scanner::feed`):
/// small enough that the pass finding them leaves the block in the L1 cache.
const BLOCK_BYTES: usize = 16 << 10;

/// What the chunk-level pre-scans learnt about one raw line.
#[derive(Clone, Copy)]
struct LineFacts {
    raw_len: usize,
    chars: usize,
    /// Whether it is an error line, when known (from where its error words are).
    err: Option<bool>,
    /// It may hold an escape, `\r` or backspace.
    maybe_noise: bool,
}

impl LineFacts {
    /// A line nothing was pre-scanned for: check everything.
    fn unknown(raw_len: usize, chars: usize) -> LineFacts {
        LineFacts {
            raw_len,
            chars,
            err: None,
            maybe_noise: true,
        }
    }
}

/// How one original line is checked for error words: `pick` (whether it is
/// kept as an error line) when already known, else checked on its cleaned text;
/// `count` (whether it is counted, as the suggested grep sees the line) when
/// known, else as `pick`.
#[derive(Clone, Copy)]
struct Check {
    pick: Option<bool>,
    count: Option<bool>,
}

impl Scanner<'_> {
    /// Feed the next bytes of the result.
    pub fn feed(&mut self, data: &[u8]) {
        if let Some(t) = &mut self.tally {
            t.raw_piece(data);
        }
        let Some(last_nl) = memchr::memrchr(b'\n', data) else {
            if let Some(t) = &mut self.tally {
                t.raw_pending(data);
            }
            self.append(data);
            return;
        };
        let mut start = 0;
        // a line begun in an earlier chunk ends at the first newline
        if !self.cur.is_empty() || self.giant.is_some() {
            let nl = memchr::memchr(b'\n', data).unwrap_or(last_nl);
            self.seen += 1;
            if let Some(t) = &mut self.tally {
                t.raw_pending_end(self.seen, &data[..=nl]);
            }
            self.append(&data[..=nl]);
            if let Some(lv) = &mut self.levels {
                let first = match &self.giant {
                    Some(g) => &g.first[..],
                    None => self.cur.strip_suffix(b"\n").unwrap_or(&self.cur),
                };
                lv.held_line(self.seen, first);
            }
            let line = std::mem::take(&mut self.cur);
            // (nothing in the window refers to a chunk between two feeds)
            self.finish_cur(line, None);
            start = nl + 1;
        }
        // whole lines: found, with their noise and non-ASCII bytes, in one pass;
        // checked for error words once per chunk
        let region = &data[start..=last_nl];
        let raw_ok = self.bounds.is_some();
        // the shortcuts for plain lines: spans once the head is full (bounded),
        // repeats counted into their run (cleaning)
        let repeats = self.spans && self.clean;
        let giant = self.bounds.map_or(usize::MAX, |bd| bd.giant_line);
        let mut open: Option<Open> = None;
        // by blocks of lines of about 16 KiB: the pass finding lines brings a
        // block into the cache, the search for error words and the lines' own
        // work find it there
        // (a log's level words marked in the same pass)
        let mut lines = if self.levels.is_some() {
            crate::lines::Lines::with_levels(region)
        } else {
            crate::lines::Lines::new(region)
        };
        let mut block = std::mem::take(&mut self.block);
        let mut until = 0;
        let mut more = true;
        while more {
            block.clear();
            until += BLOCK_BYTES;
            more = lines.fill(&mut block, until);
            let Some(first) = block.first().map(|l| l.start) else {
                continue;
            };
            let spans = self.spans && self.bounds.is_some() && self.head_done;
            let end = block.last().map_or(first, |l| l.end);
            let mut hits = ERROR_FINDER
                .hits(&region[first..end])
                .map(|(h, id)| (h + first, id))
                .peekable();
            let full = self
                .bounds
                .is_some_and(|bd| self.middle.len() >= bd.max_middle_lines);
            for &li in &block {
                let (a, b) = (li.start, li.end);
                let raw = &region[a..b];
                self.seen += 1;
                if let Some(lv) = &mut self.levels
                    && let Some(bits) = lines.level_bits(a)
                {
                    lv.line_at(self.seen, &raw[..raw.len() - 1], bits);
                }
                // its error words decide whether it is an error line
                let mut err = false;
                let mut hit = false;
                while let Some((h, id)) = hits.next_if(|&(h, _)| h < b) {
                    hit |= h >= a;
                    err |= h >= a && error_at(raw, h - a, id);
                }
                // the shell hints' tally looks at the lines its search may
                // match: an error word, or an escape that may hide one
                if let Some(t) = &mut self.tally
                    && (hit || (li.noise && memchr::memchr(0x1b, raw).is_some()))
                {
                    t.raw_line(self.seen, &raw[..raw.len() - 1], true);
                }
                if (spans || repeats)
                    && b - a <= giant
                    && !(self.clean && li.noise)
                    && (!li.high || std::str::from_utf8(raw).is_ok())
                    && self.plain_line(&mut open, region, (a, b), !li.high, spans, (err, full))
                {
                    continue;
                }
                self.close_span(open.take(), region);
                if self.bounds.is_some_and(|bd| raw.len() > bd.giant_line) {
                    self.append(raw);
                    let line = std::mem::take(&mut self.cur);
                    self.finish_cur(line, Some(region));
                    continue;
                }
                match std::str::from_utf8(raw) {
                    Ok(line) => {
                        let chars = chars_of(raw, !li.high);
                        let loc = raw_ok.then_some(a);
                        let facts = LineFacts {
                            raw_len: raw.len(),
                            chars,
                            err: Some(err),
                            maybe_noise: li.noise,
                        };
                        self.raw_line(line, facts, loc, Some(region));
                    }
                    Err(_) => {
                        let line = String::from_utf8_lossy(raw);
                        let chars = count_chars(&line);
                        let facts = LineFacts::unknown(line.len(), chars);
                        self.raw_line(&line, facts, None, Some(region));
                    }
                }
            }
        }
        self.block = block;
        self.close_span(open.take(), region);
        self.detach(region);
        if last_nl + 1 < data.len() {
            if let Some(t) = &mut self.tally {
                t.raw_pending(&data[last_nl + 1..]);
            }
            self.append(&data[last_nl + 1..]);
        }
    }

    fn append(&mut self, piece: &[u8]) {
        match (&mut self.giant, self.bounds) {
            (Some(g), Some(b)) => {
                g.total_bytes += piece.len();
                // keep the last `giant_keep` bytes; count what drops out before them
                let drop = (g.last.len() + piece.len()).saturating_sub(b.giant_keep);
                let from_last = drop.min(g.last.len());
                let (x, y) = g.last.as_slices();
                let (x, y) = (
                    &x[..from_last.min(x.len())],
                    &y[..from_last.saturating_sub(x.len())],
                );
                let from_piece = &piece[..drop - from_last];
                for gone in [x, y, from_piece] {
                    g.skipped_chars += crate::text::count_char_starts(gone);
                    g.skipped_escapes += memchr::memchr_iter(0x1b, gone).count();
                    g.skipped_cr |= memchr::memchr2(b'\r', 0x08, gone).is_some();
                }
                g.last.drain(..from_last);
                g.last.extend(&piece[drop - from_last..]);
            }
            _ => {
                self.cur.extend_from_slice(piece);
                if let Some(b) = self.bounds
                    && self.cur.len() > b.giant_line
                {
                    // keep the first bytes on a char boundary; the rest goes to `last`
                    let mut cut = b.giant_keep.min(self.cur.len());
                    while cut > 0 && (self.cur[cut] & 0xC0) == 0x80 {
                        cut -= 1;
                    }
                    let rest = self.cur.split_off(cut);
                    let first = std::mem::take(&mut self.cur);
                    let total = first.len();
                    self.giant = Some(Giant {
                        first,
                        last: VecDeque::new(),
                        total_bytes: total,
                        skipped_chars: 0,
                        skipped_escapes: 0,
                        skipped_cr: false,
                    });
                    self.append(&rest);
                }
            }
        }
    }

    /// The line assembled in `cur` is complete. `chunk`: the chunk being fed,
    /// which lines already in the tail window may refer to.
    pub(super) fn finish_cur(&mut self, mut line: Vec<u8>, chunk: Cur<'_>) {
        match self.giant.take() {
            None => {
                let s = String::from_utf8_lossy(&line);
                let chars = count_chars(&s);
                self.raw_line(&s, LineFacts::unknown(s.len(), chars), None, chunk);
                line.clear();
                self.cur = line;
            }
            Some(g) => self.giant_line(g, chunk),
        }
    }

    /// A giant line, summarised: its first and last bytes with a note of what was
    /// skipped between them; counts exact.
    fn giant_line(&mut self, g: Giant, chunk: Cur<'_>) {
        let mut last: Vec<u8> = g.last.into_iter().collect();
        // start the kept end on a char boundary
        let mut k = 0;
        while k < last.len() && (last[k] & 0xC0) == 0x80 {
            k += 1;
        }
        // the bytes before the boundary are part of a char counted as skipped
        last.drain(..k);
        let first = String::from_utf8_lossy(&g.first).into_owned();
        let last_s = String::from_utf8_lossy(&last).into_owned();
        let (body, term) = split_term(&last_s);
        let total_chars = count_chars(&first) + g.skipped_chars + count_chars(&last_s);
        let term_chars = count_chars(term);
        let chars_before = self.chars;
        self.bytes += g.total_bytes;
        self.chars += total_chars;
        self.lines += 1;
        let (content, seqs, overwrote) = if self.clean {
            let (a, s1, o1) = clean::clean_line(&first);
            let (b, s2, o2) = clean::clean_line(body);
            if g.skipped_cr || o1 || o2 {
                // a progress line: its final state is what follows the last \r
                (b, s1 + s2 + g.skipped_escapes, true)
            } else {
                (format!("{a}{b}"), s1 + s2 + g.skipped_escapes, false)
            }
        } else {
            (format!("{first}{body}"), 0, false)
        };
        if self.clean {
            self.stats.ansi_sequences += seqs;
            if overwrote {
                self.stats.overwritten_lines += 1;
            }
        }
        let skipped = (!self.clean || !overwrote).then_some((first.len(), g.skipped_chars));
        let origin = Origin {
            first_line: self.lines - 1,
            lines: 1,
            chars_before,
            chars: total_chars,
            content_chars: total_chars - term_chars,
            skipped: skipped.filter(|(_, n)| *n > 0),
            placeholder: false,
        };
        // (counted by its kept ends: the middle of a giant line is not looked at)
        let check = Check {
            pick: None,
            count: None,
        };
        self.logical(Text::Owned(content), None, term, origin, check, chunk);
    }

    /// One complete original line (with its terminator, if any), decoded, with
    /// its size in bytes and chars; `err`: whether it is an error line, when known.
    /// `maybe_noise`: it may hold an escape, `\r` or backspace. `loc`: where the
    /// line starts in `cur`, the chunk being fed, when it does.
    fn raw_line(&mut self, s: &str, facts: LineFacts, loc: Option<usize>, cur: Cur<'_>) {
        let LineFacts {
            raw_len,
            chars,
            err,
            maybe_noise,
        } = facts;
        let chars_before = self.chars;
        self.bytes += raw_len;
        self.chars += chars;
        self.lines += 1;
        let (body, term) = split_term(s);
        if body.starts_with("--- Recovery Options ---") {
            self.saw_heading = true;
        } else if body.starts_with("[... ") && body.ends_with(" ...]") {
            self.saw_marker = true;
        }
        let origin = Origin {
            first_line: self.lines - 1,
            lines: 1,
            chars_before,
            chars,
            content_chars: chars - count_chars(term),
            skipped: None,
            placeholder: false,
        };
        if self.clean
            && maybe_noise
            && memchr::memchr3(0x1b, b'\r', 0x08, body.as_bytes()).is_some()
        {
            let (c, seqs, ow) = clean::clean_line(body);
            self.stats.ansi_sequences += seqs;
            if ow {
                self.stats.overwritten_lines += 1;
            }
            // overwrites can join words: always check a cleaned line; counted as
            // the suggested grep sees it, with only colour codes stripped
            let check = Check {
                pick: None,
                count: Some(is_error_line(&strip_csi(body))),
            };
            let t = Text::Owned(c);
            self.logical(t, None, term, origin, check, cur);
        } else {
            let t = match loc {
                Some(start) => Text::Raw {
                    start,
                    len: body.len(),
                },
                None => {
                    let mut t = self.spare.pop().unwrap_or_default();
                    t.clear();
                    t.push_str(body);
                    Text::Owned(t)
                }
            };
            // the line as it is: one check picks it and counts it
            let err = err.unwrap_or_else(|| is_error_line(body));
            let check = Check {
                pick: Some(err),
                count: Some(err),
            };
            self.logical(t, Some(body), term, origin, check, cur);
        }
    }

    /// A cleaned line (`body`: its content when `text` is raw): collapse runs
    /// (when cleaning), then keep or drop it.
    fn logical(
        &mut self,
        text: Text,
        body: Option<&str>,
        term: &'static str,
        origin: Origin,
        check: Check,
        cur: Cur<'_>,
    ) {
        let content: &str = match (&text, body) {
            (Text::Owned(s), _) => s,
            (Text::Raw { .. }, Some(b)) => b,
            (Text::Raw { .. }, None) => "",
        };
        let is_err = |c: &str| check.pick.unwrap_or_else(|| is_error_line(c));
        if !self.clean {
            let err = is_err(content);
            self.count_error(check.count.unwrap_or(err), origin.first_line);
            let len = content.len();
            self.emit(text, len, term, origin, err, cur);
            return;
        }
        if let Some(run) = &mut self.run
            && run_bytes(&run.content, cur) == content.as_bytes()
            && !content.trim().is_empty()
        {
            run.repeats += 1;
            run.first.get_or_insert((origin, term));
            run.chars += origin.chars;
            run.last_term = term;
            let counted = check.count.unwrap_or_else(|| is_err(content));
            self.count_error(counted, origin.first_line);
            if let Text::Owned(s) = text {
                self.recycle(s);
            }
            return;
        }
        let err = is_err(content);
        self.count_error(check.count.unwrap_or(err), origin.first_line);
        let len = content.len();
        let run_content = match &text {
            Text::Raw { start, len } => Text::Raw {
                start: *start,
                len: *len,
            },
            Text::Owned(s) => {
                let mut copy = self.spare.pop().unwrap_or_default();
                copy.clear();
                copy.push_str(s);
                Text::Owned(copy)
            }
        };
        self.flush_run(cur);
        self.run = Some(Run {
            content: run_content,
            repeats: 0,
            first: None,
            chars: 0,
            last_term: "",
        });
        self.emit(text, len, term, origin, err, cur);
    }

    /// Count original line `line` (0-based) as an error line when `err`.
    fn count_error(&mut self, err: bool, line: usize) {
        if err {
            self.errors.count += 1;
            self.errors.first.get_or_insert(line + 1);
            self.errors.last = Some(line + 1);
        }
    }

    /// End the current run: write its repeats.
    pub(super) fn flush_run(&mut self, cur: Cur<'_>) {
        let Some(run) = self.run.take() else { return };
        let n = run.repeats;
        if let Some((first, first_term)) = run.first {
            if n + 1 >= clean::MIN_RUN {
                self.stats.repeat_runs += 1;
                self.stats.repeated_lines += n;
                let text = crate::render::marker::repeated(n);
                let origin = Origin {
                    first_line: first.first_line,
                    lines: n,
                    chars_before: first.chars_before,
                    chars: run.chars,
                    content_chars: run.chars,
                    skipped: None,
                    placeholder: false,
                };
                let len = text.len();
                let term = if run.last_term.is_empty() {
                    "\n"
                } else {
                    run.last_term
                };
                self.emit(Text::Owned(text), len, term, origin, false, cur);
            } else {
                // too short to collapse (MIN_RUN is 3: one repeat): the line again
                let content = String::from_utf8_lossy(run_bytes(&run.content, cur)).into_owned();
                let err = is_error_line(&content);
                let len = content.len();
                self.emit(Text::Owned(content), len, first_term, first, err, cur);
            }
        }
        if let Text::Owned(s) = run.content {
            self.recycle(s);
        }
    }

    /// A plain line of the chunk (`cur[a..b]`, whole, newline-terminated, and,
    /// when cleaning, with no noise byte): a repeat of the line before counts
    /// into its run (when cleaning), any other line extends the open span (when
    /// `spans`: the head is full), unless it is an error line (`err`) and the
    /// middle can still take error lines (not `full`). `false` (nothing done)
    /// when neither applies, or when it ends a run of repeats: the general path
    /// takes it.
    fn plain_line(
        &mut self,
        open: &mut Option<Open>,
        cur: &[u8],
        (a, b): (usize, usize),
        ascii: bool,
        spans: bool,
        (err, full): (bool, bool),
    ) -> bool {
        let line = &cur[a..b];
        let term: &'static str = if line.ends_with(b"\r\n") {
            "\r\n"
        } else {
            "\n"
        };
        let body = &line[..line.len() - term.len()];
        if self.clean {
            let prev = match open {
                Some(o) => cur.get(o.last.0..o.last.0 + o.last.1),
                None => self
                    .run
                    .as_ref()
                    .map(|run| run_bytes(&run.content, Some(cur))),
            };
            if prev.is_some_and(|p| same_bytes(p, body)) && !is_blank(body) {
                self.count_repeat(open, cur, line, ascii, term);
                // (the line is the last one counted)
                self.count_error(err, self.lines - 1);
                return true;
            }
            if open.is_none() && self.run.as_ref().is_some_and(|run| run.first.is_some()) {
                return false;
            }
        }
        // an error line leaving the window can still be kept from the middle:
        // the general path takes it
        if !spans || (err && !full) {
            return false;
        }
        let line_no = open
            .as_ref()
            .map_or(self.lines, |o| o.span.first_line + o.span.lines);
        self.count_error(err, line_no);
        match body.first() {
            Some(b'-') if body.starts_with(b"--- Recovery Options ---") => self.saw_heading = true,
            Some(b'[') if body.starts_with(b"[... ") && body.ends_with(b" ...]") => {
                self.saw_marker = true;
            }
            _ => {}
        }
        let chars = chars_of(line, ascii);
        match open {
            Some(o) => {
                o.span.end = b;
                o.span.lines += 1;
                o.span.chars += chars;
                o.span.ascii &= ascii;
                o.last = (a, body.len());
            }
            None => {
                *open = Some(Open {
                    span: Span {
                        start: a,
                        end: b,
                        first_line: self.lines,
                        chars_before: self.chars,
                        lines: 1,
                        chars,
                        ascii,
                        text: None,
                    },
                    last: (a, body.len()),
                });
            }
        }
        true
    }

    /// A plain `line` (of `cur`, ending in `term`) that repeats the line before
    /// it: counted into the run, which the line before (ending the open span, if
    /// any) starts.
    fn count_repeat(
        &mut self,
        open: &mut Option<Open>,
        cur: &[u8],
        line: &[u8],
        ascii: bool,
        term: &'static str,
    ) {
        self.close_span(open.take(), cur);
        let chars = chars_of(line, ascii);
        let origin = Origin {
            first_line: self.lines,
            lines: 1,
            chars_before: self.chars,
            chars,
            content_chars: chars - term.len(),
            skipped: None,
            placeholder: false,
        };
        self.bytes += line.len();
        self.chars += chars;
        self.lines += 1;
        if let Some(run) = &mut self.run {
            run.repeats += 1;
            run.first.get_or_insert((origin, term));
            run.chars += chars;
            run.last_term = term;
        }
    }
}
