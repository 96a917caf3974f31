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
//!
//! The parts: `feed` finds the lines and takes each once, `window` keeps the
//! tail window and what leaves it; `crate::error_lines` (a leaf the cut and
//! the hints use too) decides which lines look like errors.

use std::collections::VecDeque;

use crate::clean::{self, CleanStats};
use crate::error_lines::ERROR_CONTEXT;
use crate::index::{Origin, Totals};

/// Lines kept after each error line leaving the tail window (bounded mode):
/// enough for the rest of a failure block that an error line starts or
/// carries (a panic's assertion and values, a traceback's frames, a test's
/// `Expected`/`Received`), which the cut ranks by [`crate::blocks`].
pub const MIDDLE_CONTEXT: usize = 12;

mod feed;
mod window;

use window::Entry;

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
    /// Bytes a giant line keeps at each end.
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
            // a line costs at least one: it uses no more error lines than that
            // (with their context), unless many of the first ones are each too
            // long to fit
            max_middle_lines: budget.saturating_mul(1 + ERROR_CONTEXT).max(64),
            giant_line: 8 << 20,
            giant_keep: side,
        }
    }
}

/// Error-looking lines of the original, exactly: every line (repeats collapsed
/// into a run included) whose text, with colour codes stripped as
/// the suggested `sed` strips them, matches [`crate::error_lines::ERROR_PATTERN`]; so
/// the suggested grep finds as many. (A giant line counts by its kept ends.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ErrorStats {
    /// How many lines match.
    pub count: usize,
    /// 1-based original line number of the first.
    pub first: Option<usize>,
    /// 1-based original line number of the last.
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
    /// The original's exact sizes (bytes, chars, lines).
    pub totals: Totals,
    /// What cleaning removed.
    pub clean: CleanStats,
    /// The error-looking lines found.
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

/// What the scanner hands the raw input and the lines that may match an
/// error search, as it reads (implemented by the shell hints' tally, which the
/// cut stage does not know).
pub trait LineSink {
    /// A piece of the raw input, as read.
    fn raw_piece(&mut self, data: &[u8]);
    /// Line `n` (1-based), without its `\n`; `candidate`: it may match.
    fn raw_line(&mut self, n: usize, line: &[u8], candidate: bool);
    /// The start of a line not ended yet.
    fn raw_pending(&mut self, part: &[u8]);
    /// The end of the pending line, numbered `n`.
    fn raw_pending_end(&mut self, n: usize, end: &[u8]);
    /// Whether a line is pending.
    fn raw_pending_open(&self) -> bool;
    /// The input ended.
    fn raw_end(&mut self);
}

/// Streaming scanner: feed bytes, then finish.
pub struct Scanner<'t> {
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
    /// The shell hints' tally of the input, fed the lines that may match its
    /// search as they are found (see [`Self::with_tally`]).
    tally: Option<&'t mut dyn LineSink>,
    /// The lines ended so far (for the tally's line numbers).
    seen: usize,
    /// A log's levels, read from the lines as they are found (see
    /// [`Self::with_levels`]).
    levels: Option<crate::everyday::LevelFeed>,
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

impl<'t> Scanner<'t> {
    /// A scanner that cleans terminal noise when `clean`, and keeps all the
    /// lines or, with `bounds`, only what they allow.
    pub fn new(clean: bool, bounds: Option<Bounds>) -> Scanner<'t> {
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
            tally: None,
            seen: 0,
            levels: None,
        }
    }

    /// Hand `sink` the raw input and the lines it may look at as they are
    /// scanned (the shell hints' tally: the same as a tally of the input's
    /// lossy UTF-8 decoding); end it with [`Self::end_tally`].
    pub fn with_tally(mut self, sink: &'t mut dyn LineSink) -> Scanner<'t> {
        self.tally = Some(sink);
        self
    }

    /// Read the input's lines for a log's levels as they are found: the
    /// [`Everyday`](crate::everyday::Everyday) of
    /// [`Kind::Levels`](crate::everyday::Kind::Levels) that a
    /// [`Builder`](crate::everyday::Builder) fed the same pieces gives, from
    /// this one pass ([`Self::end_levels`]).
    pub fn with_levels(mut self) -> Scanner<'t> {
        self.levels = Some(crate::everyday::LevelFeed::default());
        self
    }

    /// The log's levels of the whole input (see [`Self::with_levels`]), after
    /// the last piece was fed.
    pub fn end_levels(&mut self) -> Option<crate::everyday::Everyday> {
        let mut lv = self.levels.take()?;
        let mut lines = self.seen;
        if let Some(first) = self.pending_start() {
            lines += 1;
            lv.held_line(lines, first);
        }
        Some(lv.finish(lines))
    }

    /// The first bytes (at least 64 KiB, or all) of the line begun and not
    /// ended, if any.
    fn pending_start(&self) -> Option<&[u8]> {
        match &self.giant {
            Some(g) => Some(&g.first),
            None => (!self.cur.is_empty()).then_some(&self.cur[..]),
        }
    }

    /// End the tally of the whole input (see [`Self::with_tally`]), after the
    /// last piece was fed.
    pub fn end_tally(&mut self) {
        let Some(t) = self.tally.take() else { return };
        if t.raw_pending_open() {
            t.raw_pending_end(self.seen + 1, &[]);
        }
        t.raw_end();
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
        crate::text::count_char_starts(bytes)
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
mod tests;
