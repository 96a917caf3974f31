//! What each line of command output is worth, for the `head_tail` cut: the
//! failure blocks of common test runners and the diagnostics of compilers,
//! recognised by one table of block rules ([`RULES`]), and the error, warning
//! and summary lines outside them.
//!
//! A block rule names a runner family, the kind of block (a test failure, a
//! compiler error or warning), the line that starts a block, and how the block
//! goes on: every line until a stop line (`Until`), or the lines indented
//! deeper than the start line, with blank lines between them (`Indented`). A
//! block also ends where another block starts, and after `max_lines` lines.
//! Inside a failure block the *key* lines (the start line with the test's name,
//! error lines, assertion messages and their values, locations, the first
//! stack frame in the user's code) come before the other lines; stack frames in
//! library code count as ordinary lines.
//!
//! The table is data: adding a runner is adding a row (and a fixture). The
//! patterns are compiled once; a line is matched against all start patterns at
//! once (one literal search finds which rules' starts a line may match). The cut classifies only the lines the scan kept (on a
//! bounded scan: the head, the tail and error lines with the lines after them),
//! so the cost does not grow with the size of a streamed result.

use std::sync::{LazyLock, OnceLock};

use aho_corasick::AhoCorasick;
use regex::bytes;

use crate::cut::error_lines::is_error_line;
use crate::cut::index::LineIndex;

/// What a block is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A failed test (or a crash): name, message, values, where.
    Failure,
    /// A compiler's error diagnostic with its source excerpt.
    Error,
    /// A compiler's warning diagnostic.
    Warning,
}

/// How a block goes on after its start line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// Every line until a stop line (or another block's start).
    Until,
    /// Lines indented deeper than the start line (or matching `more`), blank
    /// lines between them included.
    Indented,
    /// As `Indented`, and the first line that is not indented deeper belongs to
    /// the block and ends it (a Python traceback's exception line).
    IndentedThenLast,
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct BlockRule {
    /// The runner or tool family the rule is for (documentation, and tests).
    #[allow(dead_code)]
    pub runner: &'static str,
    pub kind: Kind,
    /// A line that starts a block (a regex).
    pub start: &'static str,
    /// Literals of which every start line holds one (`^` first: starts with
    /// it): a line holding none is not matched against `start` (one search
    /// finds them for all rules).
    pub needles: &'static [&'static str],
    pub body: Body,
    /// A line that ends the block and is not part of it ("" for none).
    pub stop: &'static str,
    /// For `Indented` bodies: a line that goes on with the block although it is
    /// not indented ("" for none).
    pub more: &'static str,
    /// For `Indented` bodies: what an indented line must look like to go on
    /// with the block ("" for anything).
    pub cont: &'static str,
    /// The longest block, in lines.
    pub max_lines: usize,
    /// The start line names what failed (a test's name, a panic's message);
    /// else it is only a heading (`Traceback (most recent call last):`).
    pub names: bool,
    /// A line right above the start (at most [`NAME_ABOVE`] lines up) that
    /// names the failing test, when the runner prints it first (`go test -v`:
    /// `=== RUN   TestName` above the messages); "" for none.
    pub name_before: &'static str,
}

/// The first failure's name and first key lines, up to this many, come before
/// the other failures' names.
pub const FIRST_KEYS: usize = 6;

/// How far above a block's start its `name_before` line is looked for.
pub const NAME_ABOVE: usize = 3;

use Body::*;
use Kind::*;

/// rustc's excerpt lines: ` --> file:1:2`, `  |`, `12 |     code`, `  = note: ...`.
const RUSTC_CONT: &str = r"^\s*(-->|::: |\||\d+\s*[|+]|= |\.\.\.)";
/// rustc's lines that go on with a diagnostic at the start of a line.
const RUSTC_MORE: &str = r"^(\d+\s*[|+]|help: |note: )";

/// The block rules, tried in order (the first whose start matches wins).
pub const RULES: &[BlockRule] = &[
    // cargo test: `---- tests::name stdout ----` and what the test printed
    BlockRule {
        runner: "cargo test",
        kind: Failure,
        start: r"^---- .+ stdout ----$",
        needles: &["^---- "],
        body: Until,
        stop: r"^(failures:|test result: |successes:)",
        more: "",
        cont: "",
        max_lines: 80,
        names: true,
        name_before: "",
    },
    // a Rust panic (in a test or a program): message, values, backtrace
    BlockRule {
        runner: "rust panic",
        kind: Failure,
        start: r"^thread '[^']*' (\(\d+\) )?panicked at ",
        needles: &["^thread '"],
        body: Until,
        stop: r"^(failures:|test result: |error: test failed|\s*$)",
        more: "",
        cont: "",
        max_lines: 80,
        names: true,
        name_before: "",
    },
    // cargo nextest: `FAIL [ 0.004s] crate tests::name` and its output
    BlockRule {
        runner: "cargo nextest",
        kind: Failure,
        start: r"^\s*(FAIL|SIGSEGV|SIGABRT|SIGKILL|TIMEOUT|LEAK-FAIL) \[\s*[\d.]+m?s\] ",
        needles: &["FAIL [", "SIGSEGV [", "SIGABRT [", "SIGKILL [", "TIMEOUT ["],
        body: Until,
        stop: r"^\s*(PASS|FAIL|SKIP|SLOW|SIGSEGV|SIGABRT|TIMEOUT|Summary|Cancelling) \[|^-{5,}$|^\s*Summary \[",
        more: "",
        cont: "",
        max_lines: 80,
        names: true,
        name_before: "",
    },
    // pytest: `____ test_name ____` up to the next test or section
    BlockRule {
        runner: "pytest",
        kind: Failure,
        start: r"^_{3,} .+ _{3,}$",
        needles: &["^___"],
        body: Until,
        stop: r"^={3,}( .* ={3,})?$",
        more: "",
        cont: "",
        max_lines: 120,
        names: true,
        name_before: "",
    },
    // unittest: `FAIL: test_x (module.Class.test_x)` up to the next one or `Ran N tests`
    BlockRule {
        runner: "unittest",
        kind: Failure,
        start: r"^(FAIL|ERROR|UNEXPECTED SUCCESS): \S+ \(.+\)",
        needles: &["^FAIL: ", "^ERROR: ", "^UNEXPECTED SUCCESS: "],
        body: Until,
        stop: r"^={20,}$|^Ran \d+ tests? in ",
        more: "",
        cont: "",
        max_lines: 80,
        names: true,
        name_before: "",
    },
    // a Python traceback, ending with its exception line
    BlockRule {
        runner: "python",
        kind: Failure,
        start: r"^\s*Traceback \(most recent call last\):",
        needles: &["Traceback (most recent call last):"],
        body: IndentedThenLast,
        stop: "",
        more: "",
        cont: "",
        max_lines: 80,
        names: false,
        name_before: "",
    },
    // jest: `● Suite › test name` and its expectation
    BlockRule {
        runner: "jest",
        kind: Failure,
        start: r"^\s*● .+",
        needles: &["● "],
        body: Until,
        stop: r"^(Test Suites|Tests|Snapshots|Time):|^(PASS|FAIL) \S",
        more: "",
        cont: "",
        max_lines: 60,
        names: true,
        name_before: "",
    },
    // vitest: ` FAIL  file.test.ts > suite > test` in its failed-tests section
    BlockRule {
        runner: "vitest",
        kind: Failure,
        start: r"^\s*FAIL\s+\S+.* > .+",
        needles: &[" > "],
        body: Until,
        stop: r"^\s*(⎯){3,}|^\s*(Test Files|Tests|Duration)\s",
        more: "",
        cont: "",
        max_lines: 60,
        names: true,
        name_before: "",
    },
    // go test: `--- FAIL: TestName (0.00s)` and its indented messages
    BlockRule {
        runner: "go test",
        kind: Failure,
        start: r"^\s*--- FAIL: \S+",
        needles: &["--- FAIL: "],
        body: Indented,
        stop: "",
        more: "",
        cont: "",
        max_lines: 60,
        names: true,
        name_before: "",
    },
    // go test -v: a test's messages (`    x_test.go:36: got 1, want 2`) under
    // its `=== RUN   TestName` line, printed before its `--- FAIL:` line
    BlockRule {
        runner: "go test",
        kind: Failure,
        start: r"^\s+\S+_test\.go:\d+: ",
        needles: &["_test.go:"],
        body: Indented,
        stop: "",
        more: "",
        cont: "",
        max_lines: 60,
        names: true,
        name_before: r"^=== (RUN|CONT|NAME)\s+\S",
    },
    // a Go panic and its goroutine dump
    BlockRule {
        runner: "go panic",
        kind: Failure,
        start: r"^panic: ",
        needles: &["^panic: "],
        body: Until,
        stop: r"^(FAIL|ok|exit status)\b",
        more: "",
        cont: "",
        max_lines: 40,
        names: true,
        name_before: "",
    },
    // mocha and rspec: `  1) Suite test name` and its indented message
    BlockRule {
        runner: "mocha/rspec",
        kind: Failure,
        start: r"^\s*\d+\) \S.*",
        needles: &[") "],
        body: Until,
        stop: r"^(Finished in |Failed examples:|\s*\d+ (passing|failing|pending)\b)|^\s*(✔|✓|√) ",
        more: "",
        cont: "",
        max_lines: 60,
        names: true,
        name_before: "",
    },
    // rustc / cargo build: `error[E0425]: ...` with ` --> file`, the excerpt and notes
    BlockRule {
        runner: "rustc",
        kind: Error,
        start: r"^error(\[\w+\])?: ",
        needles: &["^error"],
        body: Indented,
        stop: "",
        more: RUSTC_MORE,
        cont: RUSTC_CONT,
        max_lines: 40,
        names: true,
        name_before: "",
    },
    BlockRule {
        runner: "rustc",
        kind: Warning,
        start: r"^warning(\[\w+\])?: ",
        needles: &["^warning"],
        body: Indented,
        stop: "",
        more: RUSTC_MORE,
        cont: RUSTC_CONT,
        max_lines: 40,
        names: true,
        name_before: "",
    },
    // gcc / clang / javac: `file:12:5: error: ...` with the excerpt and notes
    BlockRule {
        runner: "gcc/clang/javac",
        kind: Error,
        start: r"^[^\s:]+:\d+:(\d+:)? (fatal error|error): ",
        needles: &[" error: "],
        body: Indented,
        stop: "",
        more: r"^[^\s:]+:\d+:(\d+:)? note: ",
        cont: "",
        max_lines: 40,
        names: true,
        name_before: "",
    },
    BlockRule {
        runner: "gcc/clang/javac",
        kind: Warning,
        start: r"^[^\s:]+:\d+:(\d+:)? warning: ",
        needles: &[" warning: "],
        body: Indented,
        stop: "",
        more: r"^[^\s:]+:\d+:(\d+:)? note: ",
        cont: "",
        max_lines: 40,
        names: true,
        name_before: "",
    },
    // tsc: `file.ts(3,7): error TS2322: ...` or `file.ts:3:7 - error TS2322: ...`
    BlockRule {
        runner: "tsc",
        kind: Error,
        start: r"^\S+(\(\d+,\d+\):|:\d+:\d+ -) error TS\d+: ",
        needles: &[" error TS"],
        body: Indented,
        stop: "",
        more: r"^\d+ ",
        cont: "",
        max_lines: 40,
        names: true,
        name_before: "",
    },
];

/// Lines of a failure block that say what failed: messages and values.
const KEY: &[&str] = &[
    r"^\s*(left|right)\s*:",
    r"^\s*[-+]?\s*([Ee]xpected|EXPECTED|[Rr]eceived|[Aa]ctual|[Gg]ot)\b",
    r"^\s*([Aa]ssert|ASSERT)",
    r"assertion",
    r"^E\s",
    r"Failure/Error:",
    r"(Error|Exception|Failure)( \[\w+\])?:( |$)",
    r"^\s*[-+][^-+]",
    r"panicked at |^\s*panic: ",
];

/// Lines of a failure block that say where: the failing source line, locations.
const WHERE: &[&str] = &[
    r"^>\s",
    r"^\s*-->",
    r"^\s*\S+\.(go|py|rs|js|jsx|ts|tsx|mjs|cjs|rb|java|kt|c|cc|cpp|h|hpp|cs|php):\d+(:\d+)?:? ",
];

/// Stack frames (and pytest's `file:12: in name` lines).
const FRAME: &str = r#"^\s*(File "|at |\d+: |❯ |# \./|# /)|^\S+:\d+: in \S+$|^\s+\S+\.go:\d+ \+0x"#;

/// Where library code lives: a frame mentioning one of these is not the user's.
const LIBRARY: &str = r"/rustc/|\.cargo/registry|/\.rustup/|/site-packages/|/dist-packages/|node_modules|node:internal|\(internal/|/usr/lib/|/usr/local/lib/|<frozen |/lib/python\d|/lib/ruby/|/go/src/runtime|/usr/local/go/|__rustc::|\bcore::|\bstd::|/gems/";

/// Separator lines: a row of one character (and pytest's `_ _ _`).
const SEPARATOR: &str = r"^\s*([=\-_~*#]{8,}|(⎯|─|━){8,}|(_ ){4,}_?)\s*$";

/// Summary lines of test runners and builds.
/// A line that starts with a digit.
const DIGIT_FIRST: &[&str] = &["^0", "^1", "^2", "^3", "^4", "^5", "^6", "^7", "^8", "^9"];

/// (Each with literals of which every line it matches holds one.)
const SUMMARY: &[(&str, &[&str])] = &[
    (r"^test result: ", &["^test result: "]),
    (r"^\s*Summary \[", &["Summary ["]),
    (
        r"^=+ .*\b(passed|failed|errors?|skipped|xfailed|xpassed|deselected|no tests ran)\b.* =+$",
        &["^="],
    ),
    (r"^Ran \d+ tests? in ", &["^Ran "]),
    (r"^(FAILED|OK)( \(.*\))?$", &["^FAILED", "^OK"]),
    (
        r"^(Tests|Test Suites|Snapshots):\s+\d",
        &["^Tests:", "^Test Suites:", "^Snapshots:"],
    ),
    (
        r"^\s*(Test Files|Tests)\s+\d+ (failed|passed)",
        &["Test Files", "Tests"],
    ),
    (r"^(FAIL|ok)\s+\S+\s+[\d.]+s", &["^FAIL", "^ok"]),
    (r"^(FAIL|PASS)$", &["^FAIL", "^PASS"]),
    (
        r"^\s+\d+ (passing|failing|pending)\b",
        &["passing", "failing", "pending"],
    ),
    (r"^\d+ examples?, \d+ failures?", DIGIT_FIRST),
    (r"^Finished in ", &["^Finished in "]),
    (r"^error: could not compile", &["^error: could not compile"]),
    (
        r"^\d+ (errors?|warnings?)( and \d+ warnings?)? generated",
        &["generated"],
    ),
    (r"^Found \d+ errors?", &["^Found "]),
    (r"^\d+ errors?$", DIGIT_FIRST),
    (r"^BUILD (FAILED|SUCCESSFUL)", &["^BUILD "]),
    (r"^(make|ninja): \*\*\*", &["^make: ***", "^ninja: ***"]),
];

/// A summary that counts failures: `5 failing`, `1 failed`, `3 errors`.
const FAILED_COUNT: &str =
    r"\b[1-9][\d,]* (failed|failing|failures?|errors?|broken)\b|\b(failures|errors)=[1-9]";

/// The literals every warning line holds one of.
const WARNING_WORDS: &[&str] = &["arn", "ARN"];

/// A warning word.
const WARNING: &str = r"(^|[^\w./-])(warning|Warning|WARNING|WARN|warn)($|[^\w/-])";

struct Compiled {
    /// The rules' starts, the summary patterns and the warning pattern, in
    /// that order, each tried on the lines holding one of its literals (one
    /// search over the text finds the literals of all of them).
    lines: Prefiltered,
    /// Each rule's other patterns, compiled when a block of it is found.
    rules: Vec<OnceLock<RuleRx>>,
}

/// Bits of [`Compiled::lines`]' patterns: the rules' starts, the summaries,
/// the warning.
const START_BITS: u64 = (1 << RULES.len()) - 1;
const SUMMARY_BITS: u64 = ((1 << SUMMARY.len()) - 1) << RULES.len();
const WARNING_BITS: u64 = 1 << (RULES.len() + SUMMARY.len());
const _: () = assert!(RULES.len() + SUMMARY.len() < 64);

/// Patterns each tried only on the lines holding one of its literals (one
/// search over a line finds them all), and compiled the first time one is
/// tried: most lines of a log are decided without a regex, and a result that
/// has no line of a kind never compiles its patterns.
struct Prefiltered {
    /// The literals found anywhere in a line, and the pattern of each.
    finder: Option<AhoCorasick>,
    owner: Vec<usize>,
    /// The literals a line starts with (given with a leading `^`), and the
    /// pattern of each.
    prefixes: Vec<(&'static str, usize)>,
    patterns: Vec<&'static str>,
    compiled: Vec<OnceLock<Regex>>,
}

impl Prefiltered {
    fn new(rows: impl Iterator<Item = (&'static str, &'static [&'static str])> + Clone) -> Self {
        assert!(rows.clone().count() <= 64, "at most 64 patterns");
        let all = || {
            rows.clone()
                .enumerate()
                .flat_map(|(k, (_, n))| n.iter().map(move |l| (*l, k)))
        };
        let anywhere: Vec<(&str, usize)> = all().filter(|(l, _)| !l.starts_with('^')).collect();
        Prefiltered {
            // (a DFA: these few short literals make a small one, and it scans
            // a text faster than the default automaton)
            finder: (!anywhere.is_empty()).then(|| {
                AhoCorasick::builder()
                    .kind(Some(aho_corasick::AhoCorasickKind::DFA))
                    .match_kind(aho_corasick::MatchKind::LeftmostLongest)
                    .build(anywhere.iter().map(|(l, _)| l))
                    .expect("static literals")
            }),
            owner: anywhere.iter().map(|&(_, k)| k).collect(),
            prefixes: all()
                .filter_map(|(l, k)| l.strip_prefix('^').map(|p| (p, k)))
                .collect(),
            patterns: rows.clone().map(|(p, _)| p).collect(),
            compiled: rows.map(|_| OnceLock::new()).collect(),
        }
    }

    /// For each line of `idx`, the patterns whose literals it holds (one
    /// search over the whole text, not one per line).
    fn masks(&self, idx: &LineIndex<'_>) -> Vec<u64> {
        let mut masks = vec![0u64; idx.len()];
        if let Some(f) = &self.finder {
            // every match, overlapping ones too (` warning: ` and `arn`): a
            // search from just after the last match's start, which skips ahead
            // fast (no literal is a prefix of another, so at most one starts at
            // a place: a test checks)
            let text = idx.text;
            let (mut line, mut pos) = (0, 0);
            while let Some(m) = f.find(aho_corasick::Input::new(text).span(pos..text.len())) {
                while line + 1 < idx.len() && idx.start(line + 1) <= m.start() {
                    line += 1;
                }
                if let Some(x) = masks.get_mut(line) {
                    *x |= 1 << self.owner[m.pattern().as_usize()];
                }
                pos = m.start() + 1;
            }
        }
        if !self.prefixes.is_empty() {
            for (i, x) in masks.iter_mut().enumerate() {
                let line = idx.line(i);
                for &(p, k) in &self.prefixes {
                    if line.starts_with(p) {
                        *x |= 1 << k;
                    }
                }
            }
        }
        masks
    }

    /// The first pattern of `mask` (the line's literals) that matches `line`.
    fn first_of(&self, line: &str, mut mask: u64) -> Option<usize> {
        while mask != 0 {
            let k = mask.trailing_zeros() as usize;
            if self.compiled[k]
                .get_or_init(|| regex(self.patterns[k]))
                .is_match(line)
            {
                return Some(k);
            }
            mask &= mask - 1;
        }
        None
    }

    fn matches(&self, line: &str, mask: u64) -> bool {
        self.first_of(line, mask).is_some()
    }
}

/// A rule's patterns besides its start.
struct RuleRx {
    stop: Option<Regex>,
    more: Option<Regex>,
    cont: Option<Regex>,
    name_before: Option<Regex>,
}

/// The patterns for the lines inside failure blocks, compiled when one is found.
struct Inner {
    key: RegexSet,
    place: RegexSet,
    frame: Regex,
    library: Regex,
}

impl Compiled {
    /// The first rule (in table order) whose start matches `line`.
    #[cfg(test)]
    fn start_of(&self, line: &str) -> Option<usize> {
        let idx = LineIndex::new(line);
        let mask = self.lines.masks(&idx).first().copied().unwrap_or(0);
        self.lines.first_of(line, mask & START_BITS)
    }

    fn rule(&self, r: usize) -> &RuleRx {
        self.rules[r].get_or_init(|| {
            let rule = &RULES[r];
            RuleRx {
                stop: opt(rule.stop),
                more: opt(rule.more),
                cont: opt(rule.cont),
                name_before: opt(rule.name_before),
            }
        })
    }
}

/// A pattern over a line's bytes, ASCII only: `\d`, `\s`, `\w` and `\b`
/// are ASCII, `.` any byte, non-ASCII literals (`●`, `⎯`) their UTF-8 bytes
/// (so a repeated one is grouped, `(⎯){3,}`, and none is in a class).
/// What the tools print is matched the same, and the automata are small: the
/// patterns compile in a fraction of the time their Unicode forms take (a 1 KB
/// result pays for compiling them too).
struct Regex(bytes::Regex);

impl Regex {
    fn is_match(&self, line: &str) -> bool {
        self.0.is_match(line.as_bytes())
    }
}

/// Patterns tried together: whether any matches.
struct RegexSet(bytes::RegexSet);

impl RegexSet {
    fn is_match(&self, line: &str) -> bool {
        self.0.is_match(line.as_bytes())
    }
}

fn regex(p: &str) -> Regex {
    Regex(
        bytes::RegexBuilder::new(p)
            .unicode(false)
            .build()
            .expect("static regex"),
    )
}

fn set<'a>(ps: impl IntoIterator<Item = &'a str>) -> RegexSet {
    RegexSet(
        bytes::RegexSetBuilder::new(ps)
            .unicode(false)
            .build()
            .expect("static regexes"),
    )
}

fn opt(p: &str) -> Option<Regex> {
    (!p.is_empty()).then(|| regex(p))
}

static COMPILED: LazyLock<Compiled> = LazyLock::new(|| Compiled {
    lines: Prefiltered::new(
        RULES
            .iter()
            .map(|r| (r.start, r.needles))
            .chain(SUMMARY.iter().copied())
            .chain([(WARNING, WARNING_WORDS)]),
    ),
    rules: RULES.iter().map(|_| OnceLock::new()).collect(),
});

static SEPARATOR_RX: LazyLock<Regex> = LazyLock::new(|| regex(SEPARATOR));
static FAILED_RX: LazyLock<Regex> = LazyLock::new(|| regex(FAILED_COUNT));

static INNER: LazyLock<Inner> = LazyLock::new(|| Inner {
    key: set(KEY.iter().copied()),
    place: set(WHERE.iter().copied()),
    frame: regex(FRAME),
    library: regex(LIBRARY),
});

/// How much a line is worth keeping: the lower, the sooner it is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rank {
    /// The last line with text: how the run ended.
    Last = 0,
    /// A failure block's key line: the test's name, the message and its values.
    FailureKey = 1,
    /// A runner's or build's summary line.
    Summary = 2,
    /// Where a failure happened: the failing source line, its location, the
    /// first stack frame in the user's code.
    FailureWhere = 3,
    /// An error line, or a line of a compiler's error diagnostic.
    Error = 4,
    /// One of the lines right after an error line.
    ErrorContext = 5,
    /// A warning line or a line of a warning diagnostic.
    Warning = 6,
    /// Another line of a failure block (source excerpts, notes).
    Failure = 7,
    /// The first lines (set by the cut, within its head share).
    Head = 8,
    /// Everything else (progress, library stack frames, separators).
    Rest = 9,
}

/// What the classification found for a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineClass {
    pub rank: Rank,
    /// Inside a recognised block (never collapsed with its neighbours).
    pub in_block: bool,
    /// For a failure's key or where line: how many lines of the same rank
    /// come before it in its block (the name is 0, its first message line
    /// usually 1), so that every failure gets its first lines before any gets
    /// more.
    pub nth: u16,
    /// In the first failure block of the output (kept whole before the others
    /// get more than their names and first message lines).
    pub first: bool,
}

impl LineClass {
    /// The order in which the cut fills its budget: lower first. The last
    /// line; the first failure's name and first [`FIRST_KEYS`] key lines, and
    /// the summary lines that count failures; every other failure's name;
    /// every failure's first message line; the other summary lines; the
    /// failures' other key lines (breadth first), where they happened, and the
    /// other ranks in their order.
    pub fn tier(&self) -> (u8, u16) {
        match (self.rank, self.nth) {
            (Rank::Last, _) => (0, 0),
            (Rank::FailureKey, n) if self.first && usize::from(n) < FIRST_KEYS => (1, 0),
            (Rank::Summary, 0) => (1, 0),
            (Rank::FailureKey, 0) => (1, 1),
            (Rank::FailureKey, 1) => (2, 0),
            (Rank::Summary, _) => (3, 0),
            (Rank::FailureKey, n) => (4, n),
            (Rank::FailureWhere, n) => (5, n),
            // a diagnostic's headline, then its location, then the rest of it
            (Rank::Error | Rank::Warning, n) => (6 + self.rank as u8, n.min(2)),
            (r, _) => (6 + r as u8, 0),
        }
    }
}

/// Failure blocks that follow each other with only blank lines between.
#[derive(Debug, Clone, Copy)]
struct Chain {
    start: usize,
    end: usize,
    first: bool,
    /// Key and where lines so far.
    counts: [u16; 2],
    /// The rule of its last block.
    rule: usize,
    /// How many blocks it has.
    blocks: u8,
    /// A compiler's error diagnostic (first whole, whatever it holds).
    diagnostic: bool,
}

/// Leading spaces and tabs.
fn indent(s: &str) -> usize {
    s.bytes().take_while(|&b| b == b' ' || b == b'\t').count()
}

/// Classify the lines of `idx` (placeholders stay `Rest`, outside blocks).
pub fn classify(idx: &LineIndex<'_>) -> Vec<LineClass> {
    let c = &*COMPILED;
    let n = idx.len();
    let mut out = vec![
        LineClass {
            rank: Rank::Rest,
            in_block: false,
            nth: 0,
            first: false,
        };
        n
    ];
    // which lines hold the literals of a block start, a summary, a warning
    let masks = c.lines.masks(idx);
    let start_of = |i: usize| -> Option<usize> {
        if idx.blocked(i) {
            return None;
        }
        c.lines.first_of(idx.line(i), masks[i] & START_BITS)
    };
    let mut i = 0;
    let mut context = 0usize;
    let mut seen_failure = false;
    let mut names_seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    // the failure block before: where it ended, whether it was the first, and
    // its key and where lines so far (a block right after it, with only blank
    // lines between, goes on with it: cargo's `---- name stdout ----`, then
    // the panic)
    let mut prev: Option<Chain> = None;
    // a chain of failure blocks taken as the first failure is the first only
    // if it has a message, not just a name (mocha lists `  1) name` as the
    // test runs, before the failures)
    let close = |p: Option<Chain>, out: &mut [LineClass], seen: &mut bool| {
        if let Some(p) = p.filter(|p| p.first) {
            if !p.diagnostic && p.counts[0] < 2 {
                out[p.start..p.end].iter_mut().for_each(|c| c.first = false);
            } else {
                *seen = true;
            }
        }
    };
    while i < n {
        if let Some(r) = start_of(i) {
            let end = extent(idx, i, r, &start_of);
            // a failure named again in a closing list (nextest's summary lists
            // each `FAIL [ 0.140s] name` line once more): a summary line
            let name = idx.line(i).trim();
            if end == i + 1 && !names_seen.insert(name) {
                out[i] = LineClass {
                    rank: Rank::Summary,
                    in_block: false,
                    nth: 1,
                    first: false,
                };
                i += 1;
                continue;
            }
            let failure = RULES[r].kind == Kind::Failure;
            // (a block of the same rule is the next failure, not more of this
            // one; so is a third block: cargo's next `---- name stdout ----`
            // after a name and its panic)
            let goes_on = prev.filter(|p| {
                failure
                    && p.rule != r
                    && p.blocks == 1
                    && (p.end..i).all(|k| !idx.blocked(k) && idx.line(k).trim().is_empty())
            });
            let mut chain = match goes_on {
                Some(p) => p,
                None => {
                    close(prev.take(), &mut out, &mut seen_failure);
                    Chain {
                        start: i,
                        end,
                        first: (failure || RULES[r].kind == Kind::Error) && !seen_failure,
                        counts: [0, 0],
                        rule: r,
                        blocks: 0,
                        diagnostic: RULES[r].kind == Kind::Error,
                    }
                }
            };
            let first = chain.first;
            mark_block(idx, &mut out, (i, end), &RULES[r], first, &mut chain.counts);
            chain.end = end;
            chain.rule = r;
            chain.blocks += 1;
            prev = (failure || RULES[r].kind == Kind::Error).then_some(chain);
            // the line above that names the test, when the runner prints it first
            if let Some(m) = &c.rule(r).name_before
                && let Some(k) = (i.saturating_sub(NAME_ABOVE)..i)
                    .rev()
                    .find(|&k| !idx.blocked(k) && m.is_match(idx.line(k)))
            {
                out[k] = LineClass {
                    rank: Rank::FailureKey,
                    in_block: true,
                    nth: 0,
                    first,
                };
            }
            context = 0;
            i = end;
            continue;
        }
        if !idx.blocked(i) {
            let line = idx.line(i);
            let error = is_error_line(line);
            // a summary line is a summary even when it holds an error word
            // (`test result: FAILED. 866 passed; 9 failed`): it says how the
            // run ended; the lines after it are still an error's context
            let rank = if c.lines.matches(line, masks[i] & SUMMARY_BITS) {
                context = if error {
                    crate::cut::error_lines::ERROR_CONTEXT
                } else {
                    context.saturating_sub(1)
                };
                Rank::Summary
            } else if error {
                context = crate::cut::error_lines::ERROR_CONTEXT;
                Rank::Error
            } else if context > 0 {
                context -= 1;
                Rank::ErrorContext
            } else if c.lines.matches(line, masks[i] & WARNING_BITS) {
                Rank::Warning
            } else {
                Rank::Rest
            };
            out[i].rank = rank;
            if rank == Rank::Summary && !FAILED_RX.is_match(line) {
                out[i].nth = 1;
            }
        } else {
            context = 0;
        }
        i += 1;
    }
    close(prev.take(), &mut out, &mut seen_failure);
    // the last line with text says how the command ended
    if let Some(last) = (0..n)
        .rev()
        .find(|&i| !idx.blocked(i) && !idx.line(i).trim().is_empty())
    {
        out[last].rank = Rank::Last;
        // and the line it finishes (`error: 1 target failed:` before
        // `` `--test test_buf` ``)
        if let Some(k) = last.checked_sub(1)
            && !idx.blocked(k)
            && idx.line(k).trim_end().ends_with(':')
        {
            out[k].rank = Rank::Last;
        }
    }
    out
}

/// Where the block that rule `r` starts at line `s` ends (exclusive).
fn extent(
    idx: &LineIndex<'_>,
    s: usize,
    r: usize,
    start_of: &dyn Fn(usize) -> Option<usize>,
) -> usize {
    let rx = COMPILED.rule(r);
    let rule = &RULES[r];
    let n = idx.len();
    let limit = (s + rule.max_lines).min(n);
    let base = indent(idx.line(s));
    let goes_on = |j: usize| -> bool {
        let l = idx.line(j);
        indent(l) > base && !l.trim().is_empty() && rx.cont.as_ref().is_none_or(|m| m.is_match(l))
            || rx.more.as_ref().is_some_and(|m| m.is_match(l))
    };
    let mut j = s + 1;
    let mut end = j;
    while j < limit {
        if idx.blocked(j) {
            break;
        }
        let l = idx.line(j);
        if rx.stop.as_ref().is_some_and(|m| m.is_match(l)) {
            break;
        }
        let blank = l.trim().is_empty();
        if !blank && start_of(j).is_some() && indent(l) <= base {
            break;
        }
        match rule.body {
            Until => {
                j += 1;
                if !blank {
                    end = j;
                }
            }
            Indented | IndentedThenLast => {
                if blank {
                    j += 1;
                    continue;
                }
                if goes_on(j) {
                    j += 1;
                    end = j;
                    continue;
                }
                if rule.body == IndentedThenLast {
                    end = j + 1;
                }
                break;
            }
        }
    }
    end.min(limit).max(s + 1)
}

/// Rank the lines `s..e` of a block of `kind`.
fn mark_block(
    idx: &LineIndex<'_>,
    out: &mut [LineClass],
    (s, e): (usize, usize),
    rule: &BlockRule,
    first: bool,
    counts: &mut [u16; 2],
) {
    let c = &*INNER;
    let mut user_frame_seen = false;
    // (counts: key and where lines so far in this block)
    let mut nth = |rank: Rank| -> u16 {
        let k = match rank {
            Rank::FailureKey => 0,
            Rank::FailureWhere => 1,
            _ => return 0,
        };
        counts[k] = counts[k].saturating_add(1);
        counts[k] - 1
    };
    let mut j = s;
    while j < e {
        let line = idx.line(j);
        let rank = match rule.kind {
            Kind::Error | Kind::Warning => {
                let rank = if rule.kind == Kind::Error {
                    Rank::Error
                } else {
                    Rank::Warning
                };
                // headline first, then where, then the excerpt (the first
                // error shown whole before the others' headlines)
                let n = if j == s || first {
                    0
                } else if c.place.is_match(line) {
                    1
                } else {
                    2
                };
                out[j] = LineClass {
                    rank,
                    in_block: true,
                    nth: n,
                    first,
                };
                j += 1;
                continue;
            }
            Kind::Failure => {
                if j == s {
                    if rule.names {
                        Rank::FailureKey
                    } else {
                        Rank::Failure
                    }
                } else if j + 1 == e && is_error_line(line) {
                    Rank::FailureKey
                } else if c.frame.is_match(line) {
                    // a frame and the line that goes with it (Rust's `at path`,
                    // Python's source line): the first in the user's code is key
                    let next = (j + 1 < e).then(|| idx.line(j + 1));
                    let companion = next.filter(|l| {
                        let t = l.trim_start();
                        t.starts_with("at ") && !line.trim_start().starts_with("at ")
                            || indent(l) > indent(line) && !c.frame.is_match(l)
                    });
                    let lib = c.library.is_match(line)
                        || companion.is_some_and(|l| c.library.is_match(l));
                    let rank = if !lib && !user_frame_seen {
                        user_frame_seen = true;
                        Rank::FailureWhere
                    } else {
                        Rank::Rest
                    };
                    let n = nth(rank);
                    let upto = j + 1 + usize::from(companion.is_some());
                    for c in &mut out[j..upto] {
                        *c = LineClass {
                            rank,
                            in_block: true,
                            nth: n,
                            first,
                        };
                    }
                    j += 1 + usize::from(companion.is_some());
                    continue;
                } else if is_separator(line) || line.trim().is_empty() {
                    Rank::Rest
                } else if c.key.is_match(line) || is_error_line(line) && indent(line) < 4 {
                    // (an error word deeper in is mostly in quoted source code)
                    Rank::FailureKey
                } else if c.place.is_match(line) {
                    Rank::FailureWhere
                } else {
                    Rank::Failure
                }
            }
        };
        out[j] = LineClass {
            rank,
            in_block: true,
            nth: nth(rank),
            first,
        };
        j += 1;
    }
}

/// Whether a line is a row of separator characters.
pub fn is_separator(line: &str) -> bool {
    // (most lines start with something else: no regex for them)
    let t = line.trim_start();
    t.len() >= 8
        && t.starts_with(['=', '-', '_', '~', '*', '#', '⎯', '─', '━'])
        && SEPARATOR_RX.is_match(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranks(text: &str) -> Vec<Rank> {
        classify(&LineIndex::new(text))
            .into_iter()
            .map(|c| c.rank)
            .collect()
    }

    #[test]
    fn every_rule_compiles_and_starts_where_it_should() {
        let starts = [
            ("---- tests::x stdout ----", "cargo test"),
            ("thread 'main' panicked at src/main.rs:2:5:", "rust panic"),
            ("        FAIL [   0.004s] demo tests::x", "cargo nextest"),
            ("______ test_load[7] ______", "pytest"),
            ("FAIL: test_x (mod.Case.test_x)", "unittest"),
            ("Traceback (most recent call last):", "python"),
            ("  ● Suite › adds", "jest"),
            (" FAIL  src/a.test.ts > math > adds", "vitest"),
            ("--- FAIL: TestAdd (0.00s)", "go test"),
            ("panic: runtime error: index out of range", "go panic"),
            ("  1) Calculator adds", "mocha/rspec"),
            ("error[E0425]: cannot find value `x`", "rustc"),
            ("src/a.c:3:5: error: expected ';'", "gcc/clang/javac"),
            ("src/a.ts(3,7): error TS2322: Type", "tsc"),
        ];
        for (line, runner) in starts {
            let r = COMPILED
                .start_of(line)
                .unwrap_or_else(|| panic!("no rule starts at {line:?}"));
            assert_eq!(RULES[r].runner, runner, "{line}");
        }
    }

    /// A line that a rule's start (a summary pattern, the warning pattern)
    /// matches holds one of its literals (else they would hide it), on every
    /// line of every shell fixture.
    #[test]
    fn every_start_line_holds_a_needle() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/shell");
        // every rule's start and every summary pattern, with their literals
        let rows: Vec<(&str, &[&str], Regex)> = RULES
            .iter()
            .map(|r| (r.runner, r.needles, regex(r.start)))
            .chain(SUMMARY.iter().map(|(p, n)| (*p, *n, regex(p))))
            .chain([("warning", WARNING_WORDS, regex(WARNING))])
            .collect();
        let mut checked = 0;
        for f in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = f.path();
            if path.extension().is_none_or(|e| e != "log") {
                continue;
            }
            let text =
                String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default()).into_owned();
            for line in text.lines() {
                for (what, needles, rx) in &rows {
                    if rx.is_match(line) {
                        checked += 1;
                        assert!(
                            needles.iter().any(|n| match n.strip_prefix('^') {
                                Some(p) => line.starts_with(p),
                                None => line.contains(n),
                            }),
                            "{}: {line:?} matches {what} but holds none of {needles:?}",
                            path.display(),
                        );
                    }
                }
            }
        }
        assert!(checked > 50, "{checked} start lines");
    }

    /// No literal searched anywhere in a line is a prefix of another (at most
    /// one starts at a place, so the search finds every one).
    #[test]
    fn no_literal_is_a_prefix_of_another() {
        let all: Vec<&str> = RULES
            .iter()
            .flat_map(|r| r.needles.iter())
            .chain(SUMMARY.iter().flat_map(|(_, n)| n.iter()))
            .chain(WARNING_WORDS.iter())
            .copied()
            .filter(|l| !l.starts_with('^'))
            .collect();
        for a in &all {
            for b in &all {
                assert!(a == b || !b.starts_with(a), "{a:?} is a prefix of {b:?}");
            }
        }
    }

    #[test]
    fn a_cargo_failure_block_is_ranked_with_its_values_and_user_frame() {
        let t = "test a ... ok\n\nfailures:\n\n---- tests::x stdout ----\n\nthread 'tests::x' panicked at src/lib.rs:8:9:\nassertion `left == right` failed\n  left: 1\n right: 2\nstack backtrace:\n   0: core::panicking::panic_fmt\n             at /rustc/abc/library/core/src/panicking.rs:80:14\n   1: demo::tests::x\n             at ./src/lib.rs:8:9\nnote: run with `RUST_BACKTRACE=full`\n\n\nfailures:\n    tests::x\n\ntest result: FAILED. 1 passed; 1 failed\n";
        let r = ranks(t);
        use Rank::*;
        assert_eq!(r[4], FailureKey); // ---- tests::x stdout ----
        assert_eq!(r[6], FailureKey); // panicked at
        assert_eq!(r[7], FailureKey); // assertion
        assert_eq!(r[8], FailureKey); // left
        assert_eq!(r[9], FailureKey); // right
        assert_eq!(r[10], Failure); // stack backtrace:
        assert_eq!((r[11], r[12]), (Rest, Rest)); // library frame
        assert_eq!((r[13], r[14]), (FailureWhere, FailureWhere)); // user frame
        assert_eq!(r[21], Last);
    }

    #[test]
    fn a_python_traceback_ends_with_its_exception_line() {
        let t = "start\nTraceback (most recent call last):\n  File \"/usr/lib/python3.11/json/decoder.py\", line 3, in f\n    x()\n  File \"app.py\", line 9, in g\n    y()\nValueError: bad\nafter\n";
        let c = classify(&LineIndex::new(t));
        assert!(c[1..7].iter().all(|c| c.in_block));
        assert!(!c[7].in_block);
        assert_eq!(c[2].rank, Rank::Rest);
        assert_eq!(c[4].rank, Rank::FailureWhere);
        assert_eq!(c[6].rank, Rank::FailureKey);
    }
}

#[cfg(test)]
mod debug_dump {
    #[test]
    #[ignore]
    fn dump() {
        let p = std::env::var("DUMP").unwrap_or_default();
        let t = std::fs::read_to_string(p).unwrap_or_default();
        let idx = super::LineIndex::new(&t);
        for (i, c) in super::classify(&idx).iter().enumerate() {
            let l = idx.line(i);
            println!(
                "{:4} {:?}{} {}",
                i + 1,
                c.rank,
                if c.in_block { "*" } else { "" },
                &l[..l.len().min(90)]
            );
        }
    }
}
