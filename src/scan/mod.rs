//! One pass over a result, in memory or streamed: counts lines and characters,
//! cleans terminal noise (when asked), collapses runs of identical lines, finds
//! error-looking lines, and keeps either every line or, bounded, only what a
//! head + tail + error-lines cut can use (the first and last bytes, error lines
//! with the lines right after them), standing in for the rest with placeholder
//! lines that carry the omitted lines' exact counts.
//!
//! The result is a text whose lines map back to the original ([`Origin`]), so
//! the same cut and the same markers work on a 1 KB result held in memory and on
//! a 1 GB stream read through a bounded buffer.
//!
//! How it stays cheap per line: a chunk is taken in blocks of about 16 KiB; one
//! vector pass finds a block's lines with their noise and non-ASCII flags
//! (`crate::lines`), the error-word search runs over the block while it is in
//! cache, and then each line is looked at once. Most lines of a big log are
//! *plain* (no error word, no noise, valid UTF-8): once the head is full they
//! only extend a span, one tail-window entry for a run of such lines, and a
//! line that repeats the one before only counts into its run. At the end of a
//! chunk the spans are settled: the lines the window no longer holds leave it in
//! order (as single lines would), the rest are copied. A property test checks
//! these shortcuts against the general path on random inputs cut at random.

use std::collections::VecDeque;

use crate::clean::{self, CleanStats};
use crate::cut::{ERROR_CONTEXT, Origin, Totals, count_chars};

mod errors;
use errors::{ERROR_FINDER, error_at};
pub use errors::{ERROR_PATTERN, STRIP_COLOUR_SED, is_error_line, strip_csi};

/// Lines are scanned in blocks of about this many bytes (see `Scanner::feed`):
/// small enough that the pass finding them leaves the block in the L1 cache.
const BLOCK_BYTES: usize = 16 << 10;

/// What the bounded mode keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Bytes of (cleaned) lines kept from the start.
    pub head_bytes: usize,
    /// Bytes of (cleaned) lines kept from the end.
    pub tail_bytes: usize,
    /// Error-looking lines (with their context) kept from the middle, at most.
    pub max_middle_lines: usize,
    /// A line longer than this keeps its first and last `giant_keep` bytes only.
    pub giant_line: usize,
    pub giant_keep: usize,
}

impl Bounds {
    /// Bounds that hold everything a cut of `budget` units can keep: the kept
    /// head and tail are at most `budget` characters (4 bytes each at most) and
    /// their neighbouring lines must be there too.
    pub fn for_budget(budget: usize) -> Bounds {
        let side = budget.saturating_mul(32).max(64 << 10);
        Bounds {
            head_bytes: side,
            tail_bytes: side,
            // the cut keeps at most `budget` units of lines from the middle, and
            // a line costs at least one: more error lines than that (with their
            // context) cannot be used
            max_middle_lines: budget.saturating_mul(1 + ERROR_CONTEXT).max(64),
            giant_line: 8 << 20,
            giant_keep: side,
        }
    }
}

/// Error-looking lines of the original, exactly: every line (repeats collapsed
/// into a run included) whose text, with colour codes stripped as
/// [`STRIP_COLOUR_SED`] strips them, matches [`crate::cut::ERROR_PATTERN`]; so
/// the suggested grep finds as many. (A giant line counts by its kept ends.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ErrorStats {
    pub count: usize,
    /// 1-based original line numbers of the first and last.
    pub first: Option<usize>,
    pub last: Option<usize>,
}

/// The outcome of a scan.
#[derive(Debug, Clone)]
pub struct Scanned {
    /// The lines kept (cleaned when asked), with placeholder lines standing in
    /// for omitted spans in bounded mode.
    pub text: String,
    /// Per line of `text`: what it stands for in the original.
    pub origin: Vec<Origin>,
    pub totals: Totals,
    pub clean: CleanStats,
    pub errors: ErrorStats,
    /// Whether any line was left out (bounded mode).
    pub reduced: bool,
    /// The original carries toolcap's recovery heading and a marker line
    /// (checked against the in-memory path by the property tests).
    #[cfg_attr(not(test), allow(dead_code))]
    pub already_cut: bool,
}

// A run too short to collapse has exactly one repeat (see `Scanner::flush_run`).
const _: () = assert!(clean::MIN_RUN == 3);

/// The text of a placeholder line (never kept by a cut, never shown).
pub const PLACEHOLDER: &str = "\u{FFFC}";

/// A kept line's text: owned, or a range of the input chunk being fed (lines
/// passing through the tail window are copied only if they are still in it when
/// the chunk ends).
enum Text {
    Owned(String),
    Raw { start: usize, len: usize },
}

/// The input chunk being fed, for lines that refer to it.
type Cur<'a> = Option<&'a [u8]>;

impl Text {
    fn into_owned(self, cur: Cur<'_>) -> String {
        match self {
            Text::Owned(s) => s,
            Text::Raw { start, len } => {
                let bytes = cur
                    .and_then(|c| c.get(start..start + len))
                    .unwrap_or_default();
                String::from_utf8_lossy(bytes).into_owned()
            }
        }
    }
}

/// An entry of the tail window: one kept line, or a span of plain lines of the
/// chunk being fed (lines kept verbatim, not error-looking, not repeats: most
/// lines of a big log), held as one entry so a line passing through costs a few
/// additions. Spans are settled at the end of each chunk: the lines that leave
/// the window leave (in order, as lines would), the rest become lines.
enum Entry {
    Line(Line),
    Span(Span),
}

/// The span being extended by the lines of a chunk, and its last line's body
/// (start, length): the line the next one is compared with for runs.
struct Open {
    span: Span,
    last: (usize, usize),
}

/// Consecutive plain lines: `start..end` of the chunk being fed, or of `text`
/// once the chunk is gone (a span left in the tail window at the end of a chunk
/// takes a copy of its bytes).
struct Span {
    start: usize,
    end: usize,
    first_line: usize,
    chars_before: usize,
    lines: usize,
    chars: usize,
    /// All its bytes are ASCII (characters are bytes).
    ascii: bool,
    text: Option<String>,
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

struct Line {
    text: Text,
    /// Bytes of the line's text (terminator included).
    len: usize,
    origin: Origin,
    is_err: bool,
}

struct Run {
    content: Text,
    /// How many repeats so far, and what they add up to: the first one's origin,
    /// all their characters, the last one's terminator (constant memory however
    /// long the run).
    repeats: usize,
    first: Option<(Origin, &'static str)>,
    chars: usize,
    last_term: &'static str,
}

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

/// Streaming scanner: feed bytes, then finish.
pub struct Scanner {
    clean: bool,
    bounds: Option<Bounds>,
    // original counts
    bytes: usize,
    chars: usize,
    lines: usize,
    // the line being assembled
    cur: Vec<u8>,
    giant: Option<Giant>,
    // run state (cleaning)
    run: Option<Run>,
    // what is kept
    head: Vec<Line>,
    head_bytes: usize,
    head_done: bool,
    ring: VecDeque<Entry>,
    ring_bytes: usize,
    /// The lines of the block being scanned (kept for its allocation).
    block: Vec<crate::lines::LineInfo>,
    /// Whether plain lines may pass through the window as spans (always, but
    /// for the test that proves spans change nothing).
    spans: bool,
    middle: Vec<Line>,
    ctx_left: usize,
    spare: Vec<String>,
    stats: CleanStats,
    errors: ErrorStats,
    saw_heading: bool,
    saw_marker: bool,
}

/// A line longer than `giant_line`: its first and last bytes, and counts of the rest.
struct Giant {
    first: Vec<u8>,
    last: VecDeque<u8>,
    total_bytes: usize,
    skipped_chars: usize,
    skipped_escapes: usize,
    skipped_cr: bool,
}

impl Scanner {
    pub fn new(clean: bool, bounds: Option<Bounds>) -> Scanner {
        Scanner {
            clean,
            bounds,
            bytes: 0,
            chars: 0,
            lines: 0,
            cur: Vec::new(),
            giant: None,
            run: None,
            head: Vec::new(),
            head_bytes: 0,
            head_done: false,
            ring: VecDeque::new(),
            ring_bytes: 0,
            spans: true,
            block: Vec::new(),
            middle: Vec::new(),
            ctx_left: 0,
            spare: Vec::new(),
            stats: CleanStats::default(),
            errors: ErrorStats::default(),
            saw_heading: false,
            saw_marker: false,
        }
    }

    /// Keep a string's buffer for reuse (a bounded number of them).
    fn recycle(&mut self, s: String) {
        if self.spare.len() < 256 {
            self.spare.push(s);
        }
    }

    /// At the end of a chunk: lines and the run that still refer to it take
    /// copies (at most the tail window).
    fn detach(&mut self, cur: &[u8]) {
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

    /// Feed the next bytes of the result.
    pub fn feed(&mut self, data: &[u8]) {
        let Some(last_nl) = memchr::memrchr(b'\n', data) else {
            self.append(data);
            return;
        };
        let mut start = 0;
        // a line begun in an earlier chunk ends at the first newline
        if !self.cur.is_empty() || self.giant.is_some() {
            let nl = memchr::memchr(b'\n', data).unwrap_or(last_nl);
            self.append(&data[..=nl]);
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
        let mut lines = crate::lines::Lines::new(region);
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
                // its error words decide whether it is an error line
                let mut err = false;
                while let Some((h, id)) = hits.next_if(|&(h, _)| h < b) {
                    err |= h >= a && error_at(raw, h - a, id);
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
                    g.skipped_chars += crate::cut::count_char_starts(gone);
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
    fn finish_cur(&mut self, mut line: Vec<u8>, chunk: Cur<'_>) {
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
    fn flush_run(&mut self, cur: Cur<'_>) {
        let Some(run) = self.run.take() else { return };
        let n = run.repeats;
        if let Some((first, first_term)) = run.first {
            if n + 1 >= clean::MIN_RUN {
                self.stats.repeat_runs += 1;
                self.stats.repeated_lines += n;
                let text = format!(
                    "(repeated {} more {})",
                    crate::cut::thousands(n),
                    if n == 1 { "time" } else { "times" }
                );
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

    /// Keep a logical line: in the head, in the tail window, or (leaving the
    /// window) in the middle when it is an error line or right after one.
    /// `len`: bytes of its content.
    fn emit(
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
    fn evict(&mut self, b: Bounds, cur: Cur<'_>) {
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
                self.saw_marker = true
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
                })
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

    /// Count the open span's lines and put it in the tail window; its last line
    /// is the run the next line is compared with.
    fn close_span(&mut self, open: Option<Open>, cur: &[u8]) {
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
    fn span_lines(s: &Span, cur: Cur<'_>, n: usize) -> Vec<Line> {
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
    fn leave_span(&mut self, s: &Span, b: Bounds, cur: Cur<'_>) {
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
    fn settle(&mut self, cur: Cur<'_>) {
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

    fn leave_ring(&mut self, old: Line, b: Bounds, cur: Cur<'_>) {
        let keep = if old.is_err {
            self.ctx_left = ERROR_CONTEXT;
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

    /// Finish the scan.
    pub fn finish(mut self) -> Scanned {
        if !self.cur.is_empty() || self.giant.is_some() {
            let line = std::mem::take(&mut self.cur);
            self.finish_cur(line, None);
        }
        self.flush_run(None);
        // the last lines may push lines of a span out of the tail window
        self.settle(None);
        let totals = Totals {
            chars: self.chars,
            bytes: self.bytes,
            lines: self.lines,
        };
        let mut text = String::new();
        let mut origin = Vec::new();
        let mut next_line = 0usize; // next original line expected
        let mut next_chars = 0usize;
        let mut reduced = false;
        let ring: Vec<Line> = std::mem::take(&mut self.ring)
            .into_iter()
            .flat_map(|e| match e {
                Entry::Line(l) => vec![Line {
                    text: Text::Owned(l.text.into_owned(None)),
                    ..l
                }],
                // spans own their bytes once their chunk is settled
                Entry::Span(s) => Self::span_lines(&s, None, s.lines),
            })
            .collect();
        let all = std::mem::take(&mut self.head)
            .into_iter()
            .chain(std::mem::take(&mut self.middle))
            .chain(ring);
        for l in all {
            let Text::Owned(lt) = l.text else { continue };
            if l.origin.first_line > next_line {
                // a placeholder for the omitted original lines
                reduced = true;
                text.push_str(PLACEHOLDER);
                text.push('\n');
                origin.push(Origin {
                    first_line: next_line,
                    lines: l.origin.first_line - next_line,
                    chars_before: next_chars,
                    chars: l.origin.chars_before - next_chars,
                    content_chars: 0,
                    skipped: None,
                    placeholder: true,
                });
            }
            next_line = l.origin.first_line + l.origin.lines;
            next_chars = l.origin.chars_before + l.origin.chars;
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&lt);
            origin.push(l.origin);
        }
        if next_line < totals.lines {
            reduced = true;
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(PLACEHOLDER);
            text.push('\n');
            origin.push(Origin {
                first_line: next_line,
                lines: totals.lines - next_line,
                chars_before: next_chars,
                chars: totals.chars - next_chars,
                content_chars: 0,
                skipped: None,
                placeholder: true,
            });
        }
        Scanned {
            text,
            origin,
            totals,
            clean: self.stats,
            errors: self.errors,
            reduced,
            already_cut: self.saw_heading && self.saw_marker,
        }
    }
}

/// Characters in `bytes` (valid UTF-8): its length when it is known to be
/// ASCII.
fn chars_of(bytes: &[u8], ascii: bool) -> usize {
    if ascii {
        bytes.len()
    } else {
        crate::cut::count_char_starts(bytes)
    }
}

/// A line that never forms a run: empty or white space only (as `str::trim`
/// sees it, the test `Scanner::logical` makes).
fn is_blank(body: &[u8]) -> bool {
    match body.first() {
        None => true,
        // a printable ASCII character first: not blank
        Some(c) if c.is_ascii_graphic() => false,
        Some(_) => String::from_utf8_lossy(body).trim().is_empty(),
    }
}

/// `x == y`, deciding most unequal lines of equal length (log lines with the
/// same timestamp prefix) by their last bytes, without a call to `memcmp`.
#[inline]
fn same_bytes(x: &[u8], y: &[u8]) -> bool {
    let n = x.len();
    if n != y.len() {
        return false;
    }
    if n >= 8 {
        let tail = |s: &[u8]| s.get(n - 8..).and_then(|t| <[u8; 8]>::try_from(t).ok());
        if tail(x) != tail(y) {
            return false;
        }
    }
    x == y
}

/// The bytes of a run's content.
fn run_bytes<'a>(t: &'a Text, cur: Cur<'a>) -> &'a [u8] {
    match t {
        Text::Owned(s) => s.as_bytes(),
        Text::Raw { start, len } => cur
            .and_then(|c| c.get(*start..start + len))
            .unwrap_or_default(),
    }
}

/// Split a line into its body and its terminator (`\n`, `\r\n` or none).
fn split_term(s: &str) -> (&str, &'static str) {
    match s.strip_suffix('\n') {
        Some(b) => match b.strip_suffix('\r') {
            Some(b) => (b, "\r\n"),
            None => (b, "\n"),
        },
        None => (s, ""),
    }
}

/// Scan a whole text held in memory.
pub fn scan(text: &str, clean: bool, bounds: Option<Bounds>) -> Scanned {
    let mut s = Scanner::new(clean, bounds);
    s.feed(text.as_bytes());
    s.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_and_progress_bars() {
        let t = "\x1b[1m\x1b[32m   Compiling\x1b[0m foo\n 10%\r 50%\r100%\nok\n";
        let c = scan(t, true, None);
        assert_eq!(c.text, "   Compiling foo\n100%\nok\n");
        assert_eq!(c.clean.ansi_sequences, 3);
        assert_eq!(c.clean.overwritten_lines, 1);
        assert_eq!(c.origin.len(), 3);
        assert_eq!(c.totals.lines, 3);
        assert_eq!(c.totals.chars, t.chars().count());
    }

    #[test]
    fn crlf_is_a_line_ending_not_an_overwrite() {
        let c = scan("a\r\nb\r\n", true, None);
        assert_eq!(c.text, "a\r\nb\r\n");
        assert!(!c.clean.changed());
    }

    #[test]
    fn runs_collapse_with_exact_counts_and_origins() {
        let t = "start\nsame\nsame\nsame\nsame\nend\nx\nx\ny";
        let c = scan(t, true, None);
        assert_eq!(c.text, "start\nsame\n(repeated 3 more times)\nend\nx\nx\ny");
        assert_eq!(c.clean.repeat_runs, 1);
        assert_eq!(c.clean.repeated_lines, 3);
        assert_eq!(c.origin[2].first_line, 2);
        assert_eq!(c.origin[2].lines, 3);
        assert_eq!(c.origin[2].chars, "same\nsame\nsame\n".len());
        assert_eq!(c.origin[5].first_line, 7);
        assert_eq!(c.origin.len(), 7);
    }

    #[test]
    fn bounded_keeps_head_tail_and_errors_with_exact_placeholders() {
        let mut t = String::new();
        for i in 0..10_000 {
            if i == 5000 {
                t.push_str("error: it broke\n");
            } else {
                t.push_str(&format!("line {i}\n"));
            }
        }
        let b = Bounds {
            head_bytes: 100,
            tail_bytes: 100,
            max_middle_lines: 10,
            giant_line: 1000,
            giant_keep: 100,
        };
        let s = scan(&t, false, Some(b));
        assert!(s.reduced);
        assert_eq!(s.totals.lines, 10_000);
        assert_eq!(s.totals.chars, t.chars().count());
        assert_eq!(s.errors.count, 1);
        assert_eq!(s.errors.first, Some(5001));
        // every original line is accounted for exactly once, in order
        let mut next = 0;
        let mut chars = 0;
        for o in &s.origin {
            assert_eq!(o.first_line, next);
            assert_eq!(o.chars_before, chars);
            next += o.lines;
            chars += o.chars;
        }
        assert_eq!(next, 10_000);
        assert_eq!(chars, s.totals.chars);
        assert!(s.text.contains("error: it broke\nline 5001\nline 5002\n"));
    }

    #[test]
    fn giant_lines_keep_their_ends_and_exact_counts() {
        let t = format!("{}\nend\n", "ab".repeat(5000));
        let b = Bounds {
            head_bytes: 1 << 20,
            tail_bytes: 1 << 20,
            max_middle_lines: 10,
            giant_line: 1000,
            giant_keep: 100,
        };
        let s = scan(&t, false, Some(b));
        assert_eq!(s.totals.chars, t.chars().count());
        assert_eq!(s.origin[0].content_chars, 10_000);
        let (at, skipped) = s.origin[0].skipped.unwrap();
        assert_eq!(at, 100);
        assert_eq!(skipped + 100 + 99, 10_000); // the kept end holds the newline
        assert!(s.text.starts_with(&"ab".repeat(50)));
    }

    /// An error line pushed out of the tail window by a giant line or a line of
    /// invalid UTF-8 (lines taken without a reference to the chunk) keeps its
    /// text.
    #[test]
    fn lines_pushed_out_by_unusual_lines_keep_their_text() {
        let b = Bounds {
            head_bytes: 4,
            tail_bytes: 30,
            max_middle_lines: 10,
            giant_line: 100,
            giant_keep: 20,
        };
        for pusher in ["x".repeat(500), "bad \u{FFFD}".to_string()] {
            let mut t = String::from("head line\nerror: boom\nafter it\n");
            t.push_str(&pusher);
            t.push_str("\nand the tail is here, long enough\n");
            let mut bytes = t.into_bytes();
            if pusher.starts_with("bad") {
                // make that line invalid UTF-8
                let at = bytes
                    .windows(3)
                    .position(|w| w == "\u{FFFD}".as_bytes())
                    .unwrap_or(0);
                bytes.splice(at..at + 3, [0xFF]);
            }
            let mut sc = Scanner::new(true, Some(b));
            sc.feed(&bytes);
            let s = sc.finish();
            assert!(s.text.contains("error: boom\nafter it\n"), "{:?}", s.text);
        }
    }

    use proptest::prelude::*;

    /// Scan `text` fed in pieces of `piece` bytes, with or without spans.
    fn scan_pieces(text: &[u8], clean: bool, b: Bounds, piece: usize, spans: bool) -> Scanned {
        let mut s = Scanner::new(clean, Some(b));
        s.spans = spans;
        for c in text.chunks(piece.max(1)) {
            s.feed(c);
        }
        s.finish()
    }

    fn same(a: &Scanned, b: &Scanned) -> Result<(), TestCaseError> {
        prop_assert_eq!(&a.text, &b.text);
        prop_assert_eq!(&a.origin, &b.origin);
        prop_assert_eq!(a.totals, b.totals);
        prop_assert_eq!(a.clean, b.clean);
        prop_assert_eq!(a.errors, b.errors);
        prop_assert_eq!(a.reduced, b.reduced);
        prop_assert_eq!(a.already_cut, b.already_cut);
        Ok(())
    }

    /// Lines drawn from a small set so that repeats, runs, error lines, noise,
    /// CRLF, multi-byte and invalid bytes all come up.
    fn log_text() -> impl Strategy<Value = Vec<u8>> {
        let line = prop_oneof![
            4 => "[a-c]{0,12}".prop_map(String::into_bytes),
            1 => "[a-c]{35,70}".prop_map(String::into_bytes),
            2 => Just(b"same line".to_vec()),
            1 => Just(b"error: it broke".to_vec()),
            1 => Just(b"caf\xc3\xa9 \xe2\x9c\x93".to_vec()),
            1 => Just(b"50%\r100%".to_vec()),
            1 => Just(b"\x1b[31mred\x1b[0m".to_vec()),
            1 => Just(b"bad \xff byte".to_vec()),
            1 => Just(b"--- Recovery Options ---".to_vec()),
            1 => Just(b"[... 3 lines omitted ...]".to_vec()),
            1 => Just(Vec::new()),
            1 => Just(b"\x0b".to_vec()),
            1 => Just("\u{a0}".as_bytes().to_vec()),
            1 => Just(b"  ".to_vec()),
        ];
        let end = prop_oneof![4 => Just(b"\n".to_vec()), 1 => Just(b"\r\n".to_vec())];
        proptest::collection::vec((line, end), 0..300)
            .prop_map(|ls| ls.into_iter().flat_map(|(l, e)| [l, e].concat()).collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// Spans are a shortcut: the scan is the same with them and without, however
        /// the input is cut into pieces.
        #[test]
        fn spans_change_nothing(
            text in log_text(),
            clean in any::<bool>(),
            head in 0usize..200,
            tail in 0usize..400,
            middle in 0usize..6,
            piece in prop_oneof![Just(1usize), 2usize..64, Just(1 << 20)],
        ) {
            let b = Bounds {
                head_bytes: head,
                tail_bytes: tail,
                max_middle_lines: middle,
                giant_line: 40,
                giant_keep: 10,
            };
            let with = scan_pieces(&text, clean, b, piece, true);
            let without = scan_pieces(&text, clean, b, piece, false);
            same(&with, &without)?;
            let whole = scan_pieces(&text, clean, b, 1 << 20, false);
            same(&with, &whole)?;
        }
    }
}
