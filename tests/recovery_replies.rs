//! Recovery replies sized to what one call can hold (issue 23 §2, losses 1 and 6), on
//! real material: a line range fills the reply budget, a search shows every match that
//! fits, and a stored JSON result answers a path query.

use serde_json::{Value, json};
use toolcap::store::lines::{self, DEFAULT_REPLY_CHARS};
use toolcap::store::tools::Dispatch;

use crate::support::recovery::{fixture, reply, stored};

#[test]
fn a_definition_of_2_800_chars_comes_back_in_one_call() {
    // `_make_substitution` in typing.py: lines 1448-1508, 2,788 chars (Python's ast)
    let src = fixture("fixtures/read_file/typing.py");
    let s = stored("read_file", json!({"path": "typing.py"}), &src, "call_t");
    let text = reply(
        &s.tools,
        "get_continuation",
        json!({"tool_call_id": "call_t", "start_line": 1448, "end_line": 1508}),
    );
    let want: String = src
        .lines()
        .skip(1447)
        .take(61)
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(want.chars().count(), 2788);
    assert!(want.starts_with("    def _make_substitution("), "{want}");
    // the range asked for, served whole: its lines and nothing more
    assert_eq!(text, want);
    assert!(text.chars().count() <= DEFAULT_REPLY_CHARS);
    // served a 2,000-char chunk at a time it took two calls
    let chunk =
        lines::get_lines(s.store.as_ref(), "t1", "call_t", 1448, Some(1508), 2000).expect("lines");
    assert!(
        !chunk.text.contains(
            "of 3519. Call get_continuation with tool_call_id=\"call_t\" start_line=1509"
        )
    );
}

#[test]
fn every_failure_line_of_a_nextest_run_comes_back_in_one_search() {
    // cargo nextest run of bytes with one injected bug: 36 lines say FAIL
    let log = fixture("fixtures/shell/cargo_nextest_bytes.log");
    let want: Vec<usize> = log
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("FAIL"))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(want.len(), 36);
    let tools = stored(
        "bash",
        json!({"command": "cargo nextest run"}),
        &log,
        "call_n",
    )
    .tools;
    let text = reply(
        &tools,
        "search_tool_output",
        json!({"tool_call_id": "call_n", "pattern": "FAIL", "context": 0}),
    );
    assert!(
        text.starts_with(&format!(
            "36 of 1404 lines match \"FAIL\"; showing all (lines {}-{}):\n",
            want[0], want[35]
        )),
        "{text}"
    );
    let shown: Vec<usize> = text
        .lines()
        .filter_map(|l| l.split_once(": ").and_then(|(n, _)| n.parse().ok()))
        .collect();
    assert_eq!(shown, want);
    assert!(text.chars().count() <= DEFAULT_REPLY_CHARS);
    // with the default context the matches that fit are shown, and the rest named
    let text = reply(
        &tools,
        "search_tool_output",
        json!({"tool_call_id": "call_n", "pattern": "FAIL"}),
    );
    assert!(text.chars().count() <= DEFAULT_REPLY_CHARS, "{text}");
    let shown = text
        .lines()
        .filter(|l| l.contains(": ") && l.contains("FAIL"))
        .count();
    assert!(shown > 20, "{shown} shown:\n{text}");
    assert!(
        text.contains(&format!("skip={shown} to see them]")),
        "{text}"
    );
}

#[test]
fn a_field_of_cargo_metadata_is_one_query_away() {
    let doc = fixture("fixtures/generic/cargo_metadata.json");
    let parsed: Value = serde_json::from_str(&doc).expect("json");
    let tools = stored(
        "bash",
        json!({"command": "cargo metadata --format-version 1"}),
        &doc,
        "call_m",
    )
    .tools;
    for pkg in parsed["packages"].as_array().expect("packages") {
        let name = pkg["name"].as_str().expect("name");
        for field in ["version", "edition", "license"] {
            let text = reply(
                &tools,
                "query_tool_output",
                json!({"tool_call_id": "call_m", "path": format!(".packages[name={name}].{field}")}),
            );
            assert_eq!(
                serde_json::from_str::<Value>(&text).expect("a JSON value"),
                pkg[field],
                "{name}.{field}"
            );
        }
    }
    // every package is too long for a reply: cut, and the way to narrow named
    let text = reply(
        &tools,
        "query_tool_output",
        json!({"tool_call_id": "call_m", "path": ".packages"}),
    );
    assert!(text.chars().count() <= DEFAULT_REPLY_CHARS);
    assert!(
        text.starts_with("[\n  {\n    \"name\": \"aho-corasick\",\n"),
        "{text}"
    );
    assert!(text.ends_with(
        "an array of 18 elements; showing its first 128 lines. Query a narrower path, e.g. .packages[name=...]]\n"
    ), "{text}");
    let Dispatch::Handled(r) = tools.dispatch(
        "query_tool_output",
        &json!({"tool_call_id": "call_m", "path": ".packages[name=left-pad]"}),
    ) else {
        panic!("query_tool_output is a recovery tool");
    };
    assert!(r.is_error);
    assert!(
        r.text
            .contains("nothing at .packages[name=left-pad] (.packages is an array of 18 elements)"),
        "{}",
        r.text
    );
}
