//! The block rules' and ranks' tests.

use super::compiled::{Regex, regex};
use super::rules::{SUMMARY, WARNING, WARNING_WORDS};
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
    let dir = toolcap_testkit::fixture_path("shell");
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
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default()).into_owned();
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
    // the panic line names the test and where: its `---- name stdout ----`
    // heading is then an ordinary line of the failure
    assert_eq!(r[4], Failure); // ---- tests::x stdout ----
    assert_eq!(r[6], FailureKey); // panicked at
    assert_eq!(r[7], FailureKey); // assertion
    assert_eq!(r[8], FailureKey); // left
    assert_eq!(r[9], FailureKey); // right
    assert_eq!(r[10], Failure); // stack backtrace:
    assert_eq!((r[11], r[12]), (Rest, Rest)); // library frame
    assert_eq!((r[13], r[14]), (FailureWhere, FailureWhere)); // user frame
    assert_eq!(r[21], Last);
    // the name, then the message with its values (one nth: they rank together)
    let c = classify(&LineIndex::new(t));
    assert_eq!((c[6].nth, c[7].nth, c[8].nth, c[9].nth), (0, 1, 1, 1));
    // the closing list names the failed test: a summary line
    assert!(c[19].listed && c[19].rank == Summary, "{:?}", c[19]);
    // with its heading; cargo's first `failures:` heads the blocks, not a list
    assert!(c[18].listed && !c[2].listed);
}

#[test]
fn pytest_short_summary_lines_are_listed_names() {
    let t = "tests/t.py F.\n=== FAILURES ===\n_____ test_a[1] _____\n\nE   assert 1 == 2\n\ntests/t.py:3: AssertionError\n=== short test summary info ===\nFAILED tests/t.py::test_a[1] - assert 1 == 2\nFAILED tests/t.py::test_a[2] - assert 2 == 3\nERROR tests/u.py - ImportError: no\n=== 2 failed, 1 error in 0.1s ===\n";
    let c = classify(&LineIndex::new(t));
    assert!(c[8].listed && c[9].listed && c[10].listed);
    assert!(c[7].listed && !c[6].listed && !c[11].listed);
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
