//! The cut's own tests (a sibling file, so that `shape.rs` holds the cut alone).

use super::*;
use crate::text::{byte_of_char, count_char_starts, thousands};

proptest::proptest! {
    /// The lane-wise count equals the plain one, on any bytes and lengths
    /// (across the 255-byte groups).
    #[test]
    fn char_starts_counted_exactly(b in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..2000)) {
        let plain = b.iter().filter(|&&x| (x & 0xC0) != 0x80).count();
        proptest::prop_assert_eq!(count_char_starts(&b), plain);
        let s = String::from_utf8_lossy(&b);
        proptest::prop_assert_eq!(count_chars(&s), s.chars().count());
    }
}

fn lines(n: usize, width: usize) -> String {
    (1..=n).map(|i| format!("{i:0width$}\n")).collect()
}

fn run(text: &str, shape: Shape, budget: usize) -> (Cut, String) {
    let idx = LineIndex::new(text);
    let c = cut(&idx, shape, budget, &crate::measure::Chars);
    let p = c.pieces(&idx);
    let r = marker::body(&parts(&idx, &p, false));
    (c, r)
}

#[test]
fn byte_of_char_matches_char_indices() {
    for s in [
        "",
        "abc",
        &"é".repeat(5000),
        &"aé😀".repeat(3000),
        &"x".repeat(9000),
    ] {
        for n in [0, 1, 2, 4095, 4096, 4097, 5000, 8191, 9000, 9001, 20000] {
            let want = s.char_indices().nth(n).map_or(s.len(), |(i, _)| i);
            assert_eq!(byte_of_char(s, n), want, "n={n} len={}", s.len());
        }
    }
}

#[test]
fn totals_count_lines_like_editors() {
    assert_eq!(LineIndex::new("").totals().lines, 0);
    assert_eq!(LineIndex::new("a").totals().lines, 1);
    assert_eq!(LineIndex::new("a\n").totals().lines, 1);
    assert_eq!(LineIndex::new("a\nb").totals().lines, 2);
    assert_eq!(LineIndex::new("\n\n").totals().lines, 2);
    assert_eq!(LineIndex::new("é\n").totals().chars, 2);
}

#[test]
fn head_keeps_whole_lines_within_budget() {
    // 100 lines of 10 chars (9 digits + \n) = 1000 chars
    let t = lines(100, 9);
    let (c, r) = run(&t, Shape::Head, 95);
    assert_eq!(c.ranges.len(), 1);
    assert_eq!(c.ranges[0].end, 90);
    assert!(r.starts_with("000000001\n"));
    assert!(
        r.contains("000000009\n\n[... 910 chars, 91 lines omitted (lines 10-100 of 100) ...]\n")
    );
}

#[test]
fn multibyte_at_the_boundary_is_never_split() {
    // a line of 30 'é' (2 bytes each), budget 25 chars: one line, cut on a char boundary
    let t = "é".repeat(30) + "\n" + &"next\n".repeat(40);
    let (c, r) = run(&t, Shape::Head, 25);
    assert_eq!(c.ranges[0].end, 50);
    assert!(r.starts_with(&"é".repeat(25)));
    assert!(
        r.contains(
            "[... 206 chars, 40 lines omitted (line 1 cut after char 25 of 30; lines 2-41 of 41) ...]"
        ),
        "{r}"
    );
}

#[test]
fn crlf_lines_are_whole_and_counted_once() {
    let t = "aaaa\r\nbbbb\r\n".to_string() + &"cccc\r\n".repeat(30);
    let (c, r) = run(&t, Shape::Head, 12);
    assert_eq!(c.ranges[0].end, 12);
    assert!(
        r.starts_with("aaaa\r\nbbbb\r\n\n[... 180 chars, 30 lines omitted (lines 3-32 of 32) ...]"),
        "{r:?}"
    );
}

#[test]
fn no_final_newline() {
    let t = "one\ntwo\n".to_string() + &"x".repeat(100) + "\nthree";
    let (_, r) = run(&t, Shape::Head, 8);
    assert_eq!(
        r,
        "one\ntwo\n\n[... 106 chars, 2 lines omitted (lines 3-4 of 4) ...]\n"
    );
    let (_, r) = run(&t, Shape::Tail, 6);
    assert_eq!(
        r,
        "[... 109 chars, 3 lines omitted (lines 1-3 of 4) ...]\n\nthree\n"
    );
}

#[test]
fn a_marker_never_costs_more_than_it_hides() {
    // the kept part stays within its budget: the 5 chars left after an
    // 8-char head are not shown over a budget of 8
    let t = "one\ntwo\nthree";
    let (c, r) = run(t, Shape::Head, 8);
    assert_eq!(c.kept_chars(&LineIndex::new(t)), 8);
    assert!(
        r.starts_with("one\ntwo\n\n[... 5 chars, 1 line omitted"),
        "{r}"
    );
    // between two kept parts: a short gap is shown
    let mut t = String::from("error: first\n");
    t.push_str("short gap\n");
    t.push_str("error: second\n");
    for i in 0..200 {
        t.push_str(&format!("progress line number {i} of a long run\n"));
    }
    t.push_str("error: last\n");
    let (_, r) = run(&t, Shape::HeadTail, 300);
    assert!(
        r.contains("error: first\nshort gap\nerror: second\n"),
        "{r}"
    );
}

#[test]
fn one_giant_line_head_tail() {
    let t = "x".repeat(10_000);
    let (c, r) = run(&t, Shape::HeadTail, 2000);
    assert_eq!(c.kept_chars(&LineIndex::new(&t)), 2000);
    assert!(
        r.contains("[... 8,000 chars omitted (line 1 of 1: chars 401-8,400 of 10,000) ...]"),
        "{r}"
    );
}

#[test]
fn empty_input_cuts_to_nothing() {
    let (c, r) = run("", Shape::Head, 10);
    assert!(c.ranges.is_empty());
    assert_eq!(r, "");
}

#[test]
fn head_tail_keeps_errors_and_collapses_near_duplicates() {
    let mut t = String::new();
    for i in 1..=500 {
        if i == 250 {
            t.push_str("error[E0425]: cannot find value `x` in this scope\n");
        } else {
            t.push_str(&format!("   Compiling crate{i} v0.1.0\n"));
        }
    }
    let (c, r) = run(&t, Shape::HeadTail, 2000);
    let idx = LineIndex::new(&t);
    assert!(c.kept_chars(&idx) <= 2000);
    // the budget left after the error shows the run's last lines as they
    // are (filled from the end); only what does not fit is collapsed
    let mut want = String::from(
        "   Compiling crate* v0.1.0  (×249, lines 1-249)\n\
         error[E0425]: cannot find value `x` in this scope\n\
         \x20  Compiling crate* v0.1.0  (×187, lines 251-437)\n",
    );
    for i in 438..=500 {
        want.push_str(&format!("   Compiling crate{i} v0.1.0\n"));
    }
    assert_eq!(r, want);
    assert!(r.chars().count() <= 2000, "{}", r.chars().count());
    // the collapsed runs are omitted parts (never claimed as shown verbatim)
    let gaps: Vec<Gap> = c
        .pieces(&idx)
        .into_iter()
        .filter_map(|p| match p {
            Piece::Omitted(g) => Some(g),
            Piece::Kept(..) => None,
        })
        .collect();
    assert_eq!(gaps.len(), 2);
    assert_eq!(gaps[0].lines, Some((1, 249)));
    assert_eq!(gaps[1].lines, Some((251, 437)));
    assert!(gaps.iter().all(|g| g.collapsed.is_some()));
}

#[test]
fn head_tail_keeps_a_failure_block_before_progress_lines() {
    let mut t = String::from("running 300 tests\n");
    for i in 0..150 {
        t.push_str(&format!("test tests::parses_{i:03} ... ok\n"));
    }
    t.push_str("test tests::compares ... FAILED\n");
    for i in 150..299 {
        t.push_str(&format!("test tests::parses_{i:03} ... ok\n"));
    }
    t.push_str("\nfailures:\n\n---- tests::compares stdout ----\n\nthread 'tests::compares' panicked at src/lib.rs:82:9:\nassertion `left == right` failed\n  left: \"0.9.0\"\n right: \"0.10.0\"\nnote: run with `RUST_BACKTRACE=1`\n\n\nfailures:\n    tests::compares\n\ntest result: FAILED. 299 passed; 1 failed; 0 ignored\n\n");
    for i in 0..200 {
        t.push_str(&format!("test other::case_{i:03} ... ok\n"));
    }
    t.push_str("\ntest result: ok. 200 passed; 0 failed\n");
    let (c, r) = run(&t, Shape::HeadTail, 1000);
    assert!(c.kept_chars(&LineIndex::new(&t)) <= 1000);
    for key in [
        "---- tests::compares stdout ----",
        "panicked at src/lib.rs:82:9:",
        "assertion `left == right` failed",
        "  left: \"0.9.0\"",
        " right: \"0.10.0\"",
        "test result: FAILED. 299 passed; 1 failed; 0 ignored",
        "test result: ok. 200 passed; 0 failed",
        "test tests::compares ... FAILED",
    ] {
        assert!(r.contains(key), "{key} missing:\n{r}");
    }
    assert!(
        r.contains("test tests::parses_* ... ok  (×150, lines 2-151)"),
        "{r}"
    );
    // in original order
    let at = |s: &str| r.find(s).unwrap_or(usize::MAX);
    assert!(
        at("... FAILED") < at("---- tests::compares") && at("left:") < at("test result: FAILED")
    );
}

#[test]
fn thousands_separators() {
    assert_eq!(thousands(0), "0");
    assert_eq!(thousands(999), "999");
    assert_eq!(thousands(1000), "1,000");
    assert_eq!(thousands(118077), "118,077");
    assert_eq!(thousands(1234567), "1,234,567");
}

#[test]
fn already_cut_detects_our_own_output() {
    let t = lines(1000, 9);
    let (_, r) = run(&t, Shape::Head, 100);
    let full = format!("{r}\n--- Recovery Options ---\n");
    assert!(crate::render::recognise::already_cut(&full));
    assert!(!crate::render::recognise::already_cut(&t));
}
