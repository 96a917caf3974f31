//! Error lines (a leaf: the scan, the cut and the shell hints use it): which
//! lines look like errors, decided from where the error words are (one SIMD
//! search over a block finds them), and how a suggested grep finds the same
//! lines ([`ERROR_PATTERN`], [`STRIP_COLOUR_SED`]).
//!
//! An error word: `error`, `ERROR`, `...Error`, `...Exception`, `panic`,
//! `panicked`, `Traceback`, `FAIL`, `FAILED`, `Failed`, `failed to`, `fatal`,
//! `Fatal`, `FATAL`, `cannot`, `Cannot`; and a line that starts with `E   ` (a
//! pytest failure line) is an error line. A word joined by `-`, `.`, `/` or
//! `_` to anything is part of a name or a flag, not an error word
//! (`libgpg-error-dev`, `error.py`, `/api/errors/`, `log.error(`, `-error`),
//! except that a class name ending in `Error` or `Exception` may follow a `.`
//! (`json.decoder.JSONDecodeError: ...`), and a word may end a sentence with
//! one `.` (`an error.`).
//!
//! One pattern decides both the lines counted as error-looking and the lines
//! the suggested `grep -E` prints, so a count in the recovery section is the
//! count of its own search.
//!
//! [`is_error_line`] decides it by hand (the regex costs most of the time on a
//! log where every eighth line has an error word); a test checks it against the
//! regex of [`ERROR_PATTERN`] and against `grep -E` itself.

use std::borrow::Cow;
use std::sync::LazyLock;

use aho_corasick::AhoCorasick;

/// Lines kept after each error line from an omitted middle (where the budget allows).
pub const ERROR_CONTEXT: usize = 2;

/// What an error-looking line contains (see the module docs); valid both as a
/// Rust regex and as a `grep -E` pattern, so a suggested grep finds exactly the
/// lines counted here (with `LC_ALL=C`: the classes are ASCII in both).
pub const ERROR_PATTERN: &str = concat!(
    "^E   ",
    "|(^|[^[:alnum:]_./-])",
    "(error|ERROR|FAIL(ED)?|Failed|failed to|panic(ked)?|Traceback|[Ff]atal|FATAL|[Cc]annot)",
    "\\.?([^[:alnum:]_./-]|$)",
    "|(^|[^[:alnum:]_/-])[A-Za-z]*(Error|Exception)\\.?([^[:alnum:]_./-]|$)",
);

/// The words the finder looks for: every line [`ERROR_PATTERN`] matches holds
/// one, and where it is decides the line ([`error_at`]).
pub const ERROR_WORDS: [&str; 15] = [
    "error",
    "Error",
    "ERROR",
    "panic",
    "Traceback",
    "FAIL",
    "Failed",
    "failed to",
    "Exception",
    "fatal",
    "Fatal",
    "FATAL",
    "cannot",
    "Cannot",
    // a pytest failure line starts with it
    "E   ",
];

/// The error words' finder: SIMD (Teddy) where the CPU has it, else Aho-Corasick.
/// No error word holds another one past its first byte, nor ends with the start
/// of another one, so the non-overlapping matches it reports are every
/// occurrence that can decide a line (two overlapping words are both glued to
/// word characters).
pub enum WordFinder {
    /// The SIMD searcher (Teddy), where the CPU has it.
    Packed(aho_corasick::packed::Searcher),
    /// Aho-Corasick, elsewhere.
    Automaton(AhoCorasick),
}

impl WordFinder {
    /// The matches in `hay` in order: (start, index in [`ERROR_WORDS`]).
    pub fn hits<'h>(&'h self, hay: &'h [u8]) -> Box<dyn Iterator<Item = (usize, usize)> + 'h> {
        match self {
            WordFinder::Packed(p) => Box::new(
                p.find_iter(hay)
                    .map(|m| (m.start(), m.pattern().as_usize())),
            ),
            WordFinder::Automaton(a) => Box::new(
                a.find_iter(hay)
                    .map(|m| (m.start(), m.pattern().as_usize())),
            ),
        }
    }
}

/// The finder of [`ERROR_WORDS`], built on first use.
#[allow(clippy::expect_used, reason = "constant words, compiled by the tests")]
pub static ERROR_FINDER: LazyLock<WordFinder> =
    LazyLock::new(|| match aho_corasick::packed::Searcher::new(ERROR_WORDS) {
        Some(p) => WordFinder::Packed(p),
        None => WordFinder::Automaton(AhoCorasick::new(ERROR_WORDS).expect("static patterns")),
    });

/// A word character of the pattern's classes: `[[:alnum:]_]`.
fn word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The character before `s` allows a word to start there: `s` starts the line,
/// or the character before is neither a word character nor a joiner (`-`, `/`,
/// and `.` when `dot_joins`; it does not for class names: `json.JSONDecodeError`).
fn left_ok(line: &[u8], s: usize, dot_joins: bool) -> bool {
    let Some(c) = s.checked_sub(1).and_then(|i| line.get(i)).copied() else {
        return true;
    };
    !word(c) && c != b'-' && c != b'/' && !(dot_joins && c == b'.')
}

/// The character at `e` allows a word to end before it: the line ends, or it is
/// neither a word character nor a joiner, or it is one `.` (a sentence's end)
/// followed by the line's end or by such a character.
fn right_ok(line: &[u8], e: usize) -> bool {
    let free = |c: u8| !word(c) && c != b'-' && c != b'.' && c != b'/';
    match line.get(e) {
        None => true,
        Some(b'.') => line.get(e + 1).is_none_or(|&n| free(n)),
        Some(&c) => free(c),
    }
}

/// Whether the error word `ERROR_WORDS[id]` found at `h` in `line` makes it an
/// error line (as [`ERROR_PATTERN`] decides).
pub fn error_at(line: &[u8], h: usize, id: usize) -> bool {
    let Some(w) = ERROR_WORDS.get(id) else {
        return false;
    };
    let e = h + w.len();
    let rest = line.get(e..).unwrap_or_default();
    match *w {
        "E   " => h == 0,
        "Error" | "Exception" => {
            // the class name starts where the letters before the word start
            let s = line.get(..h).map_or(h, |before| {
                h - before
                    .iter()
                    .rev()
                    .take_while(|c| c.is_ascii_alphabetic())
                    .count()
            });
            left_ok(line, s, false) && right_ok(line, e)
        }
        _ => {
            if !left_ok(line, h, true) {
                return false;
            }
            let longer = match *w {
                "panic" => rest.starts_with(b"ked"),
                "FAIL" => rest.starts_with(b"ED"),
                _ => false,
            };
            right_ok(line, e) || (longer && right_ok(line, e + if *w == "FAIL" { 2 } else { 3 }))
        }
    }
}

/// Whether `line` (one line, without its terminator) looks like an error line:
/// exactly what [`ERROR_PATTERN`] matches.
pub fn is_error_line(line: &str) -> bool {
    let b = line.as_bytes();
    ERROR_FINDER.hits(b).any(|(h, id)| error_at(b, h, id))
}

/// A `sed` command that strips colour codes (CSI escape sequences) exactly as
/// [`strip_csi`] does, for a suggested grep to count what the scan counted
/// (with `LC_ALL=C`: byte ranges).
pub const STRIP_COLOUR_SED: &str = r"sed 's|\x1b\[[0-?]*[ -/]*[@-~]||g'";

/// `line` without its CSI escape sequences (ESC `[`, parameter bytes `0-?`,
/// intermediate bytes ` -/`, one final byte `@-~`), as `STRIP_COLOUR_SED`
/// strips them.
pub fn strip_csi(line: &str) -> Cow<'_, str> {
    let b = line.as_bytes();
    if memchr::memchr(0x1b, b).is_none() {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut from = 0;
    let mut i = 0;
    while let Some(k) = memchr::memchr(0x1b, &b[i..]) {
        let esc = i + k;
        let mut j = esc + 1;
        if b.get(j) == Some(&b'[') {
            j += 1;
            while b.get(j).is_some_and(|c| (0x30..=0x3f).contains(c)) {
                j += 1;
            }
            while b.get(j).is_some_and(|c| (0x20..=0x2f).contains(c)) {
                j += 1;
            }
            if b.get(j).is_some_and(|c| (0x40..=0x7e).contains(c)) {
                // a whole sequence: all ASCII, so `esc` and `j + 1` are boundaries
                out.push_str(&line[from..esc]);
                from = j + 1;
                i = j + 1;
                continue;
            }
        }
        i = esc + 1;
    }
    out.push_str(&line[from..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use regex::Regex;

    fn regex() -> Regex {
        Regex::new(ERROR_PATTERN).expect("the pattern compiles")
    }

    /// Real lines (apt's term.log, pytest, cargo, a dense service log) and what
    /// they are.
    const CASES: &[(&str, bool)] = &[
        // apt: package and file names are not errors; the real failure is
        (
            "Unpacking libgpg-error-dev (1.46-1) over (1.46-1) ...",
            false,
        ),
        (
            "Preparing to unpack .../liberror-perl_0.17029-2_all.deb ...",
            false,
        ),
        ("Setting up libcom-err2:amd64 (1.47.0-2+b2) ...", false),
        (
            "mkdir: cannot create directory '/etc/toolcap-demo/missing/parent/demo.conf': No such file or directory",
            true,
        ),
        (
            "dpkg: error processing package toolcap-failing-postinst (--configure):",
            true,
        ),
        (
            "Failed to open connection to \"system\" message bus: Failed to connect to socket",
            true,
        ),
        (
            "E: Sub-process /usr/bin/dpkg returned an error code (1)",
            true,
        ),
        // pytest: the E lines carry the exception
        ("E       assert 2 == 3", true),
        ("E   ValueError: bad", true),
        (
            "E           json.decoder.JSONDecodeError: Expecting ':' delimiter",
            true,
        ),
        (
            "FAILED test_inventory.py::test_price_rounding - AssertionError",
            true,
        ),
        (
            "/usr/lib/python3.11/json/decoder.py:353: JSONDecodeError",
            true,
        ),
        ("    from .error import ParseError", true),
        ("    from . import error", true),
        ("import error.py", false),
        ("        self.error(msg)", false),
        ("GET /api/errors/42 200", false),
        ("GET /api/v1/error/42 200", false),
        ("path=/api/v1/error", false),
        ("error-prone", false),
        ("--error-log=x", false),
        ("flag -error", false),
        ("an error.", true),
        ("error: could not compile `foo`", true),
        ("error[E0308]: mismatched types", true),
        ("thread 'main' panicked at src/main.rs:2:5", true),
        ("panic-free", false),
        ("test result: FAILED. 1 passed; 1 failed", true),
        ("5 passed; 0 failed; 0 ignored", false),
        ("the build failed to start", true),
        ("fatal: not a git repository", true),
        ("Traceback (most recent call last):", true),
        (
            "2026-11-21T10:01:01Z ERROR worker-1 request id=1 took 13ms",
            true,
        ),
        (
            "2026-11-21T10:01:01Z WARN worker-1 request id=1 took 13ms",
            false,
        ),
        ("MyError_code", false),
        ("x1Error", false),
        ("errors were found", false),
        ("Errors were encountered while processing:", false),
        ("onError", true),
        ("raise CalledProcessError(retcode)", true),
        ("E  two spaces only", false),
        (" E   not at the start", false),
        ("caf\u{e9} error", true),
        ("\u{e9}error", true),
        ("panicked", true),
        ("FAILURE", false),
        ("Cannot", true),
        ("a/b-error", false),
        ("-error", false),
        (".error", false),
        ("error..", false),
        ("error.: x", true),
        ("x error/", false),
        ("x.error", false),
    ];

    #[test]
    fn real_lines_are_picked_as_the_pattern_says() {
        let re = regex();
        for &(line, want) in CASES {
            assert_eq!(is_error_line(line), want, "{line:?}");
            assert_eq!(re.is_match(line), want, "regex: {line:?}");
        }
    }

    /// `grep -E` (as the suggestion runs it) picks the same lines.
    #[test]
    fn grep_agrees() {
        let input: String = CASES.iter().map(|(l, _)| format!("{l}\n")).collect();
        let got = toolcap_testkit::grep_line_numbers(ERROR_PATTERN, &input).expect("grep runs");
        let want: Vec<usize> = (1..=CASES.len()).filter(|&i| CASES[i - 1].1).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn colour_codes_are_stripped_as_sed_strips_them() {
        assert_eq!(strip_csi("\x1b[1m\x1b[31mE   x\x1b[0m"), "E   x");
        assert_eq!(strip_csi("a\x1b[38;5;196mb\x1b[K"), "ab");
        // not a CSI sequence: left alone
        assert_eq!(strip_csi("a\x1b]0;t\x07b"), "a\x1b]0;t\x07b");
        assert_eq!(strip_csi("a\x1b[12"), "a\x1b[12");
        let input = "\x1b[31mFAILED\x1b[0m x\na\x1b[38;5;196mb\x1b[K\nc\x1b[12\n";
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!("LC_ALL=C {STRIP_COLOUR_SED}"))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                use std::io::Write;
                c.stdin.take().map(|mut i| i.write_all(input.as_bytes()));
                c.wait_with_output()
            })
            .expect("sed runs");
        let want: String = input
            .lines()
            .map(|l| format!("{}\n", strip_csi(l)))
            .collect();
        assert_eq!(String::from_utf8_lossy(&out.stdout), want);
    }

    /// Lines built from error words, joiners, letters and other characters.
    fn line() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            4 => proptest::sample::select(ERROR_WORDS.to_vec()).prop_map(str::to_string),
            1 => Just("panicked".to_string()),
            1 => Just("FAILED".to_string()),
            1 => Just("E".to_string()),
            3 => "[-./_ :a-zA-Z0-9(\u{e9}]{0,3}",
        ];
        proptest::collection::vec(piece, 0..6).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn the_hand_check_is_the_regex(l in line()) {
            prop_assert_eq!(is_error_line(&l), regex().is_match(&l), "{:?}", l);
        }
    }
}
