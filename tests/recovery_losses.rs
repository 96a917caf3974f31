//! The losses the recovery benchmark found (issue 23 §2, losses 2-5 and the search
//! over colour codes), each on real material: a definition asked for by name, the
//! first view's dense outline, the last tsc error found through its colour codes.

use serde_json::json;

use crate::support::recovery::{fixture, reply, stored};

#[test]
fn a_method_comes_back_by_name_in_one_call() {
    // `_GenericAlias._make_substitution` in typing.py: lines 1448-1508 (Python's ast)
    let src = fixture("fixtures/read_file/typing.py");
    let tools = stored("read_file", json!({"path": "typing.py"}), &src, "call_t").tools;
    let text = reply(
        &tools,
        "get_continuation",
        json!({"tool_call_id": "call_t", "symbol": "_GenericAlias._make_substitution"}),
    );
    let want: String = src
        .lines()
        .skip(1447)
        .take(61)
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        text,
        format!(
            "method _GenericAlias._make_substitution (lines 1448-1508 of 3,519, 2,788 chars):\n{want}"
        )
    );
}

#[test]
fn a_class_larger_than_a_reply_lists_its_methods_first_lines() {
    // class _GenericAlias: lines 1334-1552, about 8,000 chars; its methods are the
    // `    def` lines inside it
    let src = fixture("fixtures/read_file/typing.py");
    let lines: Vec<&str> = src.lines().collect();
    let tools = stored("read_file", json!({"path": "typing.py"}), &src, "call_t").tools;
    let text = reply(
        &tools,
        "get_continuation",
        json!({"tool_call_id": "call_t", "symbol": "_GenericAlias"}),
    );
    assert!(
        text.starts_with("class _GenericAlias (lines 1334-1552 of 3,519, "),
        "{text}"
    );
    let defs: Vec<usize> = (1334..=1552)
        .filter(|&n| lines[n - 1].starts_with("    def "))
        .collect();
    assert!(defs.len() >= 10, "{defs:?}");
    for n in defs {
        let shown = format!("\n{n}-");
        let at = text
            .find(&shown)
            .unwrap_or_else(|| panic!("line {n} not listed:\n{text}"));
        let rest = &text[at + 1..];
        let line = rest.lines().next().unwrap_or("");
        assert!(line.ends_with(lines[n - 1]), "{line}");
    }
    assert!(text.chars().count() <= 3_500);
}

#[test]
fn the_first_view_lists_signature_lines_and_offers_one_by_name() {
    let src = fixture("fixtures/read_file/typing.py");
    let lines: Vec<&str> = src.lines().collect();
    let out = stored("read_file", json!({"path": "typing.py"}), &src, "call_t").out;
    let text = &out.text;
    let structure = text
        .split("Structure (lines 1-3519):\n")
        .nth(1)
        .and_then(|s| s.split("\n\n").next())
        .unwrap_or_else(|| panic!("no structure:\n{text}"));
    // the largest public classes and functions after the cut, by their first
    // line and its number (the store reads them by these rows)
    for l in [
        "  844: class ForwardRef(_Final, _root=True):",
        "  1788: class Generic:",
        "  2300: def get_type_hints(obj, globalns=None, localns=None, include_extras=False):",
    ] {
        assert!(structure.lines().any(|s| s == l), "{l}\n{structure}");
    }
    let signature = regex::Regex::new(r"^  (\d+): (.*)$").unwrap();
    let mut signatures = 0;
    for l in structure.lines() {
        if let Some(c) = signature.captures(l) {
            assert_eq!(lines[c[1].parse::<usize>().unwrap() - 1], &c[2], "{l}");
            signatures += 1;
        }
    }
    assert!(signatures >= 8, "{structure}");
    // then the rest densely, names with their spans
    assert!(
        structure.contains("  function Union 666-707, TypeGuard 795-841"),
        "{structure}"
    );
    let span = regex::Regex::new(r"\b\d+-\d+\b").unwrap();
    let dense = structure
        .lines()
        .filter(|l| !signature.is_match(l) && !l.trim_start().starts_with("..."))
        .map(|l| span.find_iter(l).count())
        .sum::<usize>();
    // the rest counted by kind, exactly: the outline has 264 definitions, one of
    // them (`_idfunc`, line 39) wholly in the kept head and so neither listed nor
    // counted
    assert!(text.contains("    def _idfunc(_, x):\n"), "{text}");
    let last = structure.lines().last().unwrap_or("");
    assert!(
        last.starts_with(&format!(
            "  ... and {} more: ",
            264 - 1 - signatures - dense
        )),
        "{signatures} signature lines, {dense} listed densely; {last}"
    );
    assert!(
        text.contains(
            "get_continuation(tool_call_id=\"call_t\", symbol=\"_GenericAlias\")  # class _GenericAlias 1334-1552"
        ),
        "{text}"
    );
}

#[test]
fn the_last_tsc_error_is_found_through_its_colour_codes() {
    // tsc colours the file name, the position and the word "error"
    let log = fixture("fixtures/shell/tsc_errors.log");
    let tools = stored("bash", json!({"command": "npx tsc"}), &log, "call_c").tools;
    let text = reply(
        &tools,
        "search_tool_output",
        json!({"tool_call_id": "call_c", "pattern": r"^ts/src/\S+:\d+:\d+ - error TS\d+: ", "context": 0}),
    );
    assert!(
        text.starts_with("21 of 140 lines match ")
            && text.contains("; showing all (lines 1-126):\n"),
        "{text}"
    );
    // the last one, line 126, without its escapes and with its own number
    assert!(
        text.contains("\n126: ts/src/report.ts:34:10 - error TS2362: The left-hand side of an arithmetic operation"),
        "{text}"
    );
    assert!(!text.contains('\x1b'));
}
