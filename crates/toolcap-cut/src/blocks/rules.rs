//! The block rules: one row per runner and compiler (see the module docs of
//! [`super`]), the patterns of key, location and library lines, summaries and
//! warnings. Data only: [`super`] compiles and applies it.

use Body::{Indented, IndentedThenLast, Until};
use Kind::{Error, Failure, Warning};

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

/// The first failure's first location lines, up to this many, rank with its
/// key lines (pytest's failing source line `>   assert ...` and its
/// `tests/test_x.py:499: AssertionError`; a chained traceback's two frames in
/// the user's code); so do the last failure's, after every failure's name.
pub const FIRST_WHERE: u16 = 2;

/// The lines Python prints between chained tracebacks.
pub const CHAINED: &[&str] = &[
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
];

/// How far above a block's start its `name_before` line is looked for.
pub const NAME_ABOVE: usize = 3;

/// rustc's excerpt lines: ` --> file:1:2`, `  |`, `12 |     code`, `  = note: ...`.
pub(super) const RUSTC_CONT: &str = r"^\s*(-->|::: |\||\d+\s*[|+]|= |\.\.\.)";
/// rustc's lines that go on with a diagnostic at the start of a line.
pub(super) const RUSTC_MORE: &str = r"^(\d+\s*[|+]|help: |note: )";

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
    // Python's compile errors, as `compileall` (`***   File "x.py", line 3`),
    // `py_compile` and the interpreter print them without a traceback: the
    // location, the source line, the caret, then `SyntaxError: ...` (a frame of
    // a traceback names its function, `, in f`, and is inside that block)
    BlockRule {
        runner: "python compile",
        kind: Error,
        start: r#"^(\*\*\* +| {2})File "[^"]+", line \d+$"#,
        needles: &["File \""],
        body: IndentedThenLast,
        stop: "",
        more: "",
        cont: "",
        max_lines: 12,
        names: true,
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
pub(super) const KEY: &[&str] = &[
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

/// The values under a failure's message (they rank with it).
pub(super) const VALUES: &str =
    r"^\s*(left|right)\s*:|^\s*[-+]?\s*([Ee]xpected|[Rr]eceived|[Aa]ctual|[Gg]ot|[Ww]ant)\b";

/// A local variable and its value, as pytest shows them in a failure
/// (`self = <...>`, `popenargs = (...)`): data, not a message.
pub(super) const LOCAL: &str = r"^[a-z_][a-z0-9_]* = ";

/// Lines of a failure block that say where: the failing source line, locations.
pub(super) const WHERE: &[&str] = &[
    r"^>\s",
    r"^\s*-->",
    r"^\s*\S+\.(go|py|rs|js|jsx|ts|tsx|mjs|cjs|rb|java|kt|c|cc|cpp|h|hpp|cs|php):\d+(:\d+)?:? ",
];

/// Stack frames (and pytest's `file:12: in name` lines).
pub(super) const FRAME: &str =
    r#"^\s*(File "|at |\d+: |❯ |# \./|# /)|^\S+:\d+: in \S+$|^\s+\S+\.go:\d+ \+0x"#;

/// Where library code lives: a frame mentioning one of these is not the user's.
pub(super) const LIBRARY: &str = r"/rustc/|\.cargo/registry|/\.rustup/|/site-packages/|/dist-packages/|node_modules|node:internal|\(internal/|/usr/lib/|/usr/local/lib/|<frozen |/lib/python\d|/lib/ruby/|/go/src/runtime|/usr/local/go/|__rustc::|\bcore::|\bstd::|/gems/";

/// Separator lines: a row of one character (and pytest's `_ _ _`).
pub(super) const SEPARATOR: &str = r"^\s*([=\-_~*#]{8,}|(⎯|─|━){8,}|(_ ){4,}_?)\s*$";

/// Summary lines of test runners and builds.
/// A line that starts with a digit.
pub(super) const DIGIT_FIRST: &[&str] =
    &["^0", "^1", "^2", "^3", "^4", "^5", "^6", "^7", "^8", "^9"];

/// (Each with literals of which every line it matches holds one.)
pub(super) const SUMMARY: &[(&str, &[&str])] = &[
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
pub(super) const FAILED_COUNT: &str =
    r"\b[1-9][\d,]* (failed|failing|failures?|errors?|broken)\b|\b(failures|errors)=[1-9]";

/// A line of a closing list that names one failed test: pytest's short test
/// summary (`FAILED tests/test_x.py::test_y[1-2] - AssertionError: ...`,
/// `ERROR tests/test_z.py - ImportError: ...`).
pub(super) const LISTED: &str = r"^(FAILED|ERROR) \S+(::\S+| - |$)";

/// A failed test's name under cargo's closing `failures:` line (`    tests::name`).
pub(super) const LISTED_NAME: &str = r"^    \S+$";

/// The literals every warning line holds one of.
pub(super) const WARNING_WORDS: &[&str] = &["arn", "ARN"];

/// A warning word.
pub(super) const WARNING: &str = r"(^|[^\w./-])(warning|Warning|WARNING|WARN|warn)($|[^\w/-])";
