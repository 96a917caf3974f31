//! Unit and property tests of the scan.

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

/// A log's levels read by the scan as it finds the lines are what the
/// everyday reader finds in the same pieces, wherever the pieces are cut:
/// lines crossing pieces, a giant line, `\r\n` ends, invalid UTF-8, no final
/// newline.
#[test]
fn levels_from_the_scan_match_the_everyday_reader() {
    use crate::everyday::{Builder, Kind};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/shell/");
    let mut text = Vec::new();
    for name in ["cargo_test_failure.log", "python_unittest_failure.log"] {
        text.extend(std::fs::read(format!("{dir}{name}")).unwrap());
    }
    for i in 0..400 {
        let level = ["ERROR", "WARN", "INFO", "DEBUG"][i % 4];
        text.extend(
            format!(
                "2026-11-21T10:00:{:02}Z {level} worker-{i} took {i}ms\r\n",
                i % 60
            )
            .bytes(),
        );
    }
    text.extend(b"[warn] \xff\xfe bad bytes\n");
    text.extend(b"ERROR ");
    text.extend(std::iter::repeat_n(b'x', (8 << 20) + 10));
    text.extend(b"\nWARN: the end, no newline");
    let bounds = Some(Bounds::for_budget(2000));
    let whole = {
        let mut b = Builder::new(Kind::Levels);
        b.feed(&text);
        b.finish()
    };
    assert!(whole.view.is_some(), "the log's levels are read: {whole:?}");
    for step in [1usize, 7, 4096, 1 << 20, text.len()] {
        // (every piece of 1 byte: only the first 200 KB)
        let text = if step == 1 {
            &text[..200_000]
        } else {
            &text[..]
        };
        let mut s = Scanner::new(true, bounds).with_levels();
        let mut b = Builder::new(Kind::Levels);
        for piece in text.chunks(step) {
            s.feed(piece);
            b.feed(piece);
        }
        assert_eq!(s.end_levels(), Some(b.finish()), "pieces of {step} bytes");
    }
}
