//! The losses the recovery benchmark found (issue 23 §2, losses 2-5 and the search
//! over colour codes), each on real material: a definition asked for by name, the
//! first view's dense outline, the last tsc error found through its colour codes.

use std::sync::Arc;

use serde_json::{Value, json};
use toolcap::store::tools::{Dispatch, RecoveryTools};
use toolcap::store::{MemoryStore, SaveWhen};
use toolcap::{Config, Processed, ToolCall, ToolResultProcessor};

fn fixture(rel: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `text` processed as `tool`'s result under `id` with a store: the report and the
/// recovery tools over it.
fn stored(tool: &str, args: Value, text: &str, id: &str) -> (Processed, RecoveryTools) {
    let store = Arc::new(MemoryStore::new());
    let p = ToolResultProcessor::new(Config::defaults()).with_store(store.clone(), SaveWhen::Cut);
    let mut call = ToolCall::new(tool, &args);
    call.id = Some(id);
    call.dialog = Some("t1");
    let out = p.process_call(&call, text);
    assert!(
        out.truncated && out.stored.is_some(),
        "{tool} result not stored"
    );
    (out, RecoveryTools::new(store, "t1"))
}

fn reply(tools: &RecoveryTools, name: &str, args: Value) -> String {
    match tools.dispatch(name, &args) {
        Dispatch::Handled(r) => {
            assert!(!r.is_error, "{name}: {}", r.text);
            r.text
        }
        Dispatch::NotMine => panic!("{name} is a recovery tool"),
    }
}

#[test]
fn a_method_comes_back_by_name_in_one_call() {
    // `_GenericAlias._make_substitution` in typing.py: lines 1448-1508 (Python's ast)
    let src = fixture("fixtures/read_file/typing.py");
    let (_, tools) = stored("read_file", json!({"path": "typing.py"}), &src, "call_t");
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
    let (_, tools) = stored("read_file", json!({"path": "typing.py"}), &src, "call_t");
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
fn the_first_view_lists_definitions_densely_and_offers_one_by_name() {
    let src = fixture("fixtures/read_file/typing.py");
    let (out, _) = stored("read_file", json!({"path": "typing.py"}), &src, "call_t");
    let text = &out.text;
    let structure = text
        .split("Structure (lines 1-3519):\n")
        .nth(1)
        .and_then(|s| s.split("\n\n").next())
        .unwrap_or_else(|| panic!("no structure:\n{text}"));
    // classes on one line each, several to a line, with their spans
    assert!(
        structure.contains("class ForwardRef 844-925, TypeVar 981-1046"),
        "{structure}"
    );
    // the rest counted by kind, exactly: the outline has 264 definitions
    let listed = structure
        .lines()
        .filter(|l| !l.trim_start().starts_with("..."))
        .flat_map(|l| l.split(", "))
        .count();
    let last = structure.lines().last().unwrap_or("");
    assert!(
        last.starts_with(&format!("  ... and {} more: ", 264 - listed)),
        "{listed} listed; {last}"
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
    let (_, tools) = stored("bash", json!({"command": "npx tsc"}), &log, "call_c");
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
