//! Budgets that follow the model: a call that says how much of its context is
//! left gets a threshold and kept budget that shrink as the window fills, and
//! the report says why (`budget_source`, `budget`).

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{Value, json};
use toolcap::config::ConfigErrorKind;
use toolcap::{Config, ContextWindow, Processed, ToolCall, ToolResultProcessor};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

fn typing_py() -> String {
    std::fs::read_to_string(fixture("read_file/typing.py")).unwrap()
}

fn kept_chars(p: &Processed) -> usize {
    p.kept.iter().map(|k| k.chars).sum()
}

fn process_with(p: &ToolResultProcessor, text: &str, context: ContextWindow<'_>) -> Processed {
    let args = json!({"path": "typing.py"});
    let mut call = ToolCall::new("read_file", &args);
    call.context = context;
    p.process_call(&call, text)
}

/// A harness passes what it has left after each turn of a 200k-token window:
/// the kept part shrinks as the window fills, never grows, stops at the
/// floor, and every report says where its budget came from.
#[test]
fn budgets_shrink_monotonically_as_the_window_fills() {
    let text = typing_py();
    let p = ToolResultProcessor::new(Config::defaults());
    let used = [
        0, 100_000, 180_000, 190_000, 192_000, 194_000, 196_000, 198_000, 199_000, 199_900,
        200_000, 210_000,
    ];
    let mut last: Option<(usize, usize)> = None;
    let mut rows = Vec::new();
    for u in used {
        let out = process_with(
            &p,
            &text,
            ContextWindow {
                limit: Some(200_000),
                used: Some(u),
                ..ContextWindow::default()
            },
        );
        assert!(out.truncated, "used {u}");
        let b = out.budget.as_ref().expect("a budget report");
        let left = 200_000usize.saturating_sub(u);
        assert_eq!(b.context_left, Some(left));
        assert_eq!(b.context_limit, Some(200_000));
        assert_eq!(b.context_used, Some(u));
        assert_eq!(b.configured_threshold, 3500);
        assert_eq!(b.configured_kept_budget, 2000);
        // the allowance: a tenth of what is left, at 3 chars a token
        let allowance = (left as f64 * 0.1 * 3.0).floor() as usize;
        assert_eq!(b.allowance, Some(allowance));
        let expected_threshold = allowance.clamp(1500, 3500);
        assert_eq!(out.threshold, expected_threshold, "used {u}");
        assert_eq!(
            out.kept_budget,
            expected_threshold * 2000 / 3500,
            "used {u}"
        );
        assert!(out.kept_budget < out.threshold);
        let why = if expected_threshold < 3500 {
            "context"
        } else {
            "config"
        };
        assert_eq!(out.budget_source, why, "used {u}");
        assert_eq!(b.floored, allowance < 1500, "used {u}");
        // the kept part fits the budget, and the marker still counts exactly
        let kept = kept_chars(&out);
        assert!(
            kept <= out.kept_budget,
            "used {u}: {kept} > {}",
            out.kept_budget
        );
        assert_eq!(kept + out.omitted.chars, out.original.chars);
        let marker = format!(
            "[... {} chars, ",
            toolcap_text::text::thousands(out.omitted.chars)
        );
        assert!(out.text.contains(&marker), "used {u}: {marker}");
        if let Some((prev_threshold, prev_kept)) = last {
            assert!(out.threshold <= prev_threshold, "used {u}");
            assert!(kept <= prev_kept, "used {u}: kept {kept} > {prev_kept}");
        }
        last = Some((out.threshold, kept));
        rows.push((u, out.threshold, kept, out.budget_source));
    }
    // it does shrink: from the configured view to the floor's
    let (first, floor) = (rows[0], rows[rows.len() - 1]);
    assert_eq!((first.1, first.3), (3500, "config"));
    assert_eq!(floor.1, 1500);
    assert!(floor.2 < first.2 / 2 + 200, "{rows:?}");
    let distinct: std::collections::BTreeSet<usize> = rows.iter().map(|r| r.2).collect();
    assert!(distinct.len() >= 4, "{rows:?}");
}

#[test]
fn a_call_that_says_nothing_keeps_the_configured_budgets_and_reports_no_figures() {
    let text = typing_py();
    let p = ToolResultProcessor::new(Config::defaults());
    let out = process_with(&p, &text, ContextWindow::default());
    assert_eq!(out.threshold, 3500);
    assert_eq!(out.kept_budget, 2000);
    assert_eq!(out.budget_source, "config");
    assert!(out.budget.is_none());
    let v = toolcap::bind::report_json(&out, None);
    assert_eq!(v["budget_source"], "config");
    assert!(v.get("budget").is_none());
    // the same output as before budgets existed: plenty left changes nothing
    let roomy = process_with(
        &p,
        &text,
        ContextWindow {
            left: Some(150_000),
            ..ContextWindow::default()
        },
    );
    assert_eq!(roomy.text, out.text);
    assert_eq!(roomy.budget_source, "config");
}

#[test]
fn a_model_name_gives_the_window() {
    let text = typing_py();
    let p = ToolResultProcessor::new(Config::defaults());
    let out = process_with(
        &p,
        &text,
        ContextWindow {
            model: Some("anthropic/claude-sonnet-4-5"),
            used: Some(195_000),
            ..ContextWindow::default()
        },
    );
    let b = out.budget.as_ref().unwrap();
    assert_eq!(b.model_window, Some(200_000));
    assert_eq!(b.context_left, Some(5_000));
    assert_eq!(out.threshold, 1500);
    assert_eq!(out.budget_source, "model");
    // an unknown model: the configured budgets, and a note that says why
    let out = process_with(
        &p,
        &text,
        ContextWindow {
            model: Some("my-own-model"),
            used: Some(195_000),
            ..ContextWindow::default()
        },
    );
    assert_eq!(out.threshold, 3500);
    assert_eq!(out.budget_source, "config");
    let note = out.budget.unwrap().note.unwrap();
    assert!(
        note.contains("\"my-own-model\" is not in [budget.models]"),
        "{note}"
    );
}

#[test]
fn the_model_table_matches_exact_names_then_the_most_specific_glob() {
    let c = Config::from_sources(
        Some((
            "[budget.models]\n\"gpt-4o-mini\" = 64000\n\"gpt-4o*\" = 100000\n\"my-llm\" = 32768\n",
            Path::new("my.toml"),
        )),
        None,
    )
    .unwrap();
    let w = |m: &str| c.budget.window_of(m);
    assert_eq!(w("gpt-4o-mini"), Some(64_000));
    assert_eq!(w("GPT-4o-2024-08-06"), Some(100_000)); // the user's entry replaced the default
    assert_eq!(w("openrouter/my-llm"), Some(32_768));
    assert_eq!(w("gpt-4.1-mini"), Some(1_047_576));
    assert_eq!(w("o1-mini-2024"), Some(128_000)); // more specific than o1*
    assert_eq!(w("o1-preview"), Some(200_000));
    assert_eq!(w("gemini-2.5-pro"), Some(1_048_576));
    assert_eq!(w("claude-opus-4-1-20250805"), Some(200_000));
    assert_eq!(w("nothing-like-it"), None);
    assert!(c.describe().contains("\"my-llm\" = 32768  # file my.toml"));
}

#[test]
fn token_units_get_a_token_allowance() {
    let c = Config::from_sources(
        Some((
            "[tools.read_file]\nunit = \"tokens\"\nthreshold = 1000\nmax_kept = 500\n",
            Path::new("t.toml"),
        )),
        None,
    )
    .unwrap();
    let p = ToolResultProcessor::new(c);
    let out = process_with(
        &p,
        &typing_py(),
        ContextWindow {
            left: Some(7_000),
            ..ContextWindow::default()
        },
    );
    // 10% of 7,000 tokens: 700 tokens, no conversion to chars
    assert_eq!(out.threshold, 700);
    assert_eq!(out.kept_budget, 350);
    assert_eq!(out.unit, "tokens");
    let b = out.budget.unwrap();
    assert_eq!(b.allowance, Some(700));
    assert_eq!(b.chars_per_token, None);
    // the floor in tokens: 1,500 chars at 3 chars a token
    assert_eq!(b.floor, 500);
}

#[test]
fn a_size_hint_caps_like_the_context() {
    let p = ToolResultProcessor::new(Config::defaults());
    let out = process_with(
        &p,
        &typing_py(),
        ContextWindow {
            max_result_chars: Some(2_500),
            left: Some(100_000),
            ..ContextWindow::default()
        },
    );
    assert_eq!(out.threshold, 2_500);
    assert_eq!(out.budget_source, "size_hint");
    assert!(
        out.text.chars().count() <= 2_500 + 200,
        "{}",
        out.text.len()
    );
}

#[test]
fn an_earlier_cut_with_more_room_is_not_cut_again() {
    let text = typing_py();
    let p = ToolResultProcessor::new(Config::defaults());
    let first = process_with(&p, &text, ContextWindow::default());
    let again = process_with(
        &p,
        &first.text,
        ContextWindow {
            left: Some(1_000),
            ..ContextWindow::default()
        },
    );
    assert_eq!(again.reason, toolcap::Reason::AlreadyCut);
    assert_eq!(again.text, first.text);
}

fn user(text: &str) -> toolcap::ConfigError {
    Config::from_sources(Some((text, Path::new("my.toml"))), None).unwrap_err()
}

#[test]
fn config_errors_name_the_key_and_the_fix() {
    let e = user("[budget]\nfraction = 0\n");
    assert_eq!(
        (e.origin.as_str(), e.key.as_str()),
        ("my.toml", "budget.fraction")
    );
    assert_eq!(e.kind(), ConfigErrorKind::Invalid);
    assert!(e.problem.contains("above 0 and at most 1, got 0"), "{e}");
    assert!(e.fix.contains("0.1"), "{e}");
    let e = user("[budget]\nfraction = 1.5\n");
    assert_eq!(e.key, "budget.fraction");
    let e = user("[budget]\nchars_per_token = 0.5\n");
    assert_eq!(e.key, "budget.chars_per_token");
    assert!(e.problem.contains("between 1 and 10"), "{e}");
    let e = user("[budget]\nmin_threshold = 100\n");
    assert_eq!(e.key, "budget.min_threshold");
    assert!(e.problem.contains("at least 500"), "{e}");
    let e = user("[budget]\nmin_threshold = -3\n");
    assert_eq!(e.key, "budget.min_threshold");
    let e = user("[budget]\nfractoin = 0.2\n");
    assert_eq!(e.key, "budget.fractoin");
    assert_eq!(e.kind(), ConfigErrorKind::Schema);
    let e = user("[budget]\nfraction = \"a tenth\"\n");
    assert_eq!(e.key, "budget.fraction");
    let e = user("[budget.models]\n\"my-llm\" = \"128k\"\n");
    assert_eq!(e.key, "budget.models.\"my-llm\"");
    assert!(e.problem.contains("whole number of tokens"), "{e}");
    let e = user("[budget.models]\n\"my-llm\" = 0\n");
    assert_eq!(e.key, "budget.models.\"my-llm\"");
    assert!(e.problem.contains("positive number of tokens"), "{e}");
    let e = user("[budget.models]\n\" \" = 1000\n");
    assert_eq!(e.key, "budget.models");
}

fn toolcap() -> Command {
    let mut c = Command::cargo_bin("toolcap").expect("binary builds");
    c.env_remove("TOOL_RESULT_BYPASS_TOOLS")
        .env_remove("TOOLCAP_CONFIG");
    c
}

#[test]
fn cli_context_flags_lower_the_budgets_and_say_why() {
    let path = fixture("read_file/typing.py");
    let out = toolcap()
        .args([
            "process",
            "--tool",
            "read_file",
            "--json",
            "--context-left",
            "8000",
        ])
        .arg("--arg")
        .arg("path=typing.py")
        .arg(&path)
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["budget_source"], "context");
    assert_eq!(v["threshold"], 2400);
    assert_eq!(v["kept_budget"], 1371);
    assert_eq!(v["budget"]["context_left"], 8000);
    assert_eq!(v["budget"]["allowance"], 2400);
    assert_eq!(v["budget"]["configured_threshold"], 3500);
    let kept: u64 = v["kept"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["chars"].as_u64().unwrap())
        .sum();
    assert!(kept <= 1371);

    let out = toolcap()
        .args(["process", "--tool", "read_file", "--json"])
        .args(["--model", "gpt-4o", "--context-used", "120000"])
        .arg(&path)
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["budget_source"], "model");
    assert_eq!(v["budget"]["model_window"], 128_000);
    assert_eq!(v["threshold"], 2400);
}

#[test]
fn cli_context_errors_are_usage_errors_naming_the_flag() {
    let path = fixture("read_file/typing.py");
    let out = toolcap()
        .args(["process", "--tool", "read_file", "--context-used", "1000"])
        .arg(&path)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        err.contains("--context-used") && err.contains("--context-limit"),
        "{err}"
    );
    let out = toolcap()
        .args(["process", "--tool", "read_file", "--model", "my-llm"])
        .arg(&path)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        err.contains("\"my-llm\"") && err.contains("[budget.models]"),
        "{err}"
    );
    toolcap()
        .args(["process", "--tool", "read_file", "--context-left", "-5"])
        .arg(&path)
        .assert()
        .code(2);
}

/// A budget lowers the suggestions as well as the view (issue 34): with the
/// context nearly full (the 1,500-char floor in force) every size a
/// suggestion states (`3,100 chars`) fits that threshold, for a file read, a
/// command's output, grep matches and a stored result read back; with the
/// window empty they are sized to the configured 3,500.
#[test]
fn suggestions_fit_the_threshold_in_force() {
    let chars = regex::Regex::new(r"([\d,]+) chars").unwrap();
    let cases: Vec<(&str, &str)> = vec![
        ("read_file", "read_file/typing.py"),
        ("shell", "shell/cargo_test_failure.log"),
        ("shell", "shell/pytest_humanize.log"),
        ("grep_content", "grep/raise_asyncio.txt"),
    ];
    for stored in [false, true] {
        for (left, floor) in [(Some(0), true), (Some(10_000_000), false)] {
            for (tool, rel) in &cases {
                let text = std::fs::read_to_string(fixture(rel)).unwrap();
                let call: Value = match *tool {
                    "read_file" => json!({"path": "typing.py"}),
                    _ => {
                        let j =
                            std::fs::read_to_string(fixture(&format!("{rel}.call.json"))).unwrap();
                        serde_json::from_str::<Value>(&j).unwrap()["args"].clone()
                    }
                };
                let mut p = ToolResultProcessor::new(Config::defaults());
                if stored {
                    p = p.with_store(
                        std::sync::Arc::new(toolcap::MemoryStore::new()),
                        toolcap::SaveWhen::Cut,
                    );
                }
                let mut c = ToolCall::new(tool, &call);
                c.id = Some("call_b");
                c.context = ContextWindow {
                    left,
                    ..Default::default()
                };
                let out = p.process_call(&c, &text);
                assert!(out.truncated, "{rel}");
                assert_eq!(out.threshold, if floor { 1500 } else { 3500 }, "{rel}");
                let mut sized = 0;
                for s in &out.suggestions {
                    for m in chars.captures_iter(&s.purpose) {
                        let n: usize = m[1].replace(',', "").parse().unwrap();
                        sized += 1;
                        assert!(
                            n <= out.threshold,
                            "{rel} (stored: {stored}, threshold {}): {}",
                            out.threshold,
                            s.render()
                        );
                    }
                }
                assert!(sized > 0, "{rel}: no suggestion states its size");
            }
        }
    }
}
