//! Property tests over arbitrary Unicode and arbitrary bytes (decoded lossily, as
//! the CLI does), for every tool family: the processed text stays within its bound,
//! the kept part is whole lines of the original (or one character-boundary cut of a
//! single long line), every number in the report equals a recount, processing is
//! deterministic, and processing the output again does not cut it twice.

use std::path::Path;

use proptest::collection::vec;
use proptest::prelude::*;
use serde_json::{Map, Value};
use toolcap::hints::{HEADING, RECOVERY_CAP, Recovery, Structure, Suggestion};
use toolcap::{Config, Processed, Reason, Shape, ToolResultProcessor};
use toolcap_render::recognise::{CLEANED_NOTE, CLEANED_NOTE_END, MAX_MARKER_CHARS};

/// One tool name per family (and one bypassed tool).
const TOOLS: [&str; 8] = [
    "read_file",
    "grep_content",
    "shell",
    "web_search",
    "web_fetch",
    "glob_files",
    "mcp__x__y",
    "get_continuation",
];

/// Small budgets, so that short generated inputs are cut.
const SMALL: &str = r#"
max_kept_chars = 40
[tools.read_file]
threshold = 80
[tools.grep]
threshold = 80
[tools.shell]
threshold = 80
[tools.web_search]
threshold = 80
[tools.web_fetch]
threshold = 80
[tools.glob]
threshold = 80
[tools.generic]
threshold = 80
"#;

fn processors() -> Vec<ToolResultProcessor> {
    let small = Config::from_sources(Some((SMALL, Path::new("small.toml"))), None)
        .expect("small config is valid");
    vec![
        ToolResultProcessor::new(small),
        ToolResultProcessor::new(Config::defaults()),
    ]
}

/// Lines of the kinds the families look for, and hostile ones.
fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,20}\n",
        "(error|FAILED|panicked|Traceback): [a-z ]{0,12}\n",
        Just("\r\n".to_string()),
        Just("\n".to_string()),
        "\\PC{0,30}\n",
        "\\PC{0,200}",
        "x{60,300}\n",
        "\u{1b}\\[3[0-7]m[a-z]{1,8}\u{1b}\\[0m\r?\n",
        "(#{1,3}) [A-Za-z ]{1,20}\n",
        "(def|class) [a-z_]{1,8}\\(\\):\n    pass\n",
        "fn [a-z]{1,8}\\(\\) \\{\\}\n",
        "src/[a-z]{1,5}\\.rs:[0-9]{1,3}:[a-z ]{0,20}\n",
        "[0-9]{1,2}\\. \\[[A-Za-z]{1,8}\\]\\(https://[a-z]{1,6}\\.com/[a-z]{0,5}\\)\n",
        "https://[a-z]{1,8}\\.org/[a-z/]{0,12}\n",
        "\\{\"[a-z]{1,5}\": \\[[0-9, ]{0,20}\\]\\}\n",
        "[a-z]{1,4}/[a-z]{1,6}\\.(py|rs|md)\n",
        Just("progress 10%\rprogress 100%\n".to_string()),
    ]
}

/// A JSON document (MCP tools return JSON), compact or pretty.
fn json_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "\\PC{0,80}".prop_map(Value::from),
    ];
    let value = leaf.prop_recursive(4, 400, 30, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..30).prop_map(Value::Array),
            vec(("[a-z_]{1,10}", inner), 0..12)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    });
    (value, any::<bool>()).prop_map(|(v, pretty)| {
        if pretty {
            serde_json::to_string_pretty(&v).expect("JSON")
        } else {
            v.to_string()
        }
    })
}

/// A result: generated lines, JSON, arbitrary Unicode, or arbitrary bytes decoded
/// lossily.
fn result_text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => vec(line(), 0..80).prop_map(|v| v.concat()),
        3 => (line(), 1..400usize).prop_map(|(l, n)| l.repeat(n)),
        2 => json_text(),
        1 => any::<String>(),
        1 => vec(any::<u8>(), 0..3000).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        1 => vec(any::<char>(), 0..2000).prop_map(|v| v.into_iter().collect()),
    ]
}

fn args_for(value: &str) -> Value {
    let mut m = Map::new();
    for k in ["path", "pattern", "command", "query", "url"] {
        m.insert(k.to_string(), Value::String(value.to_string()));
    }
    Value::Object(m)
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// Lines of `s` with their terminators.
fn lines_of(s: &str) -> Vec<&str> {
    s.split_inclusive('\n').collect()
}

/// Skip one marker line or one blank line at the start of `s`; the bytes skipped
/// and whether it was a marker.
fn skip_separator(s: &str) -> Option<(usize, bool)> {
    if s.starts_with('\n') {
        return Some((1, false));
    }
    let line_end = s.find('\n').map_or(s.len(), |i| i + 1);
    let l = s[..line_end].trim_end_matches('\n');
    (l.starts_with("[... ") && l.ends_with(" ...]")).then_some((line_end, true))
}

/// Check everything that must hold for `out`, the result of `tool` on `text`.
fn check(p: &ToolResultProcessor, tool: &str, text: &str, args: &Value, out: &Processed) {
    let lines = lines_of(text);
    // totals are a recount
    assert_eq!(out.original.chars, chars(text));
    assert_eq!(out.original.bytes, text.len());
    assert_eq!(out.original.lines, lines.len());

    // deterministic: the same report, field for field
    let again = p.process(tool, text, args);
    assert_eq!(
        serde_json::to_value(&again).expect("report"),
        serde_json::to_value(out).expect("report")
    );
    // never cut twice
    let twice = p.process(tool, &out.text, args);
    assert_eq!(twice.text, out.text, "cut twice ({:?})", twice.reason);

    let budget = out.kept_budget;
    match out.reason {
        Reason::Bypass | Reason::UnderThreshold | Reason::AlreadyCut => {
            assert!(!out.truncated);
            assert_eq!(out.text, text);
            assert_eq!(out.omitted.chars, 0);
            if out.reason == Reason::UnderThreshold {
                assert!(chars(text) <= out.threshold);
            }
        }
        Reason::Cleaned => {
            let body = out
                .text
                .strip_suffix(CLEANED_NOTE_END)
                .and_then(|t| t.rsplit_once(CLEANED_NOTE))
                .map(|(b, _)| b)
                .expect("the cleaning note");
            assert!(chars(body) <= out.threshold);
            assert!(out.cleaning.is_some());
        }
        Reason::Binary => {
            assert!(out.truncated && out.kept.is_empty());
            assert_eq!(out.omitted.chars, out.original.chars);
            assert_eq!(out.omitted.lines, out.original.lines);
            let (marker, rest) = out.text.split_once('\n').expect("marker line");
            assert!(chars(marker) <= MAX_MARKER_CHARS, "{marker}");
            assert!(marker.contains(&toolcap_text::text::thousands(out.original.chars)));
            assert!(rest.starts_with(&format!("\n{HEADING}\n")));
            assert!(chars(rest) <= RECOVERY_CAP + 1);
        }
        Reason::Cut => {
            check_cut(text, &lines, out, budget, p, tool);
            check_facts(text, &lines, out, tool);
        }
        other => panic!("a new reason needs its property here: {other:?}"),
    }
    assert_eq!(out.truncated, out.reason.shows_less());
    assert_eq!(out.bypassed, out.reason == Reason::Bypass);
    // the suggestions listed in the report are the ones the model sees
    for s in &out.suggestions {
        assert!(out.text.contains(&format!("  • {}\n", s.render())));
        for (k, v) in &s.args {
            let back: Value = serde_json::from_str(&v.to_string()).expect("JSON value");
            assert_eq!(&back, v, "{k}");
        }
    }
}

fn check_cut(
    text: &str,
    lines: &[&str],
    out: &Processed,
    budget: usize,
    p: &ToolResultProcessor,
    tool: &str,
) {
    assert!(out.truncated);
    let at = out
        .text
        .rfind(&format!("\n{HEADING}\n"))
        .expect("recovery heading");
    let (body, recovery) = out.text.split_at(at + 1);
    // the bound: the recovery section never exceeds its cap ...
    assert!(chars(recovery) <= RECOVERY_CAP, "{} chars", chars(recovery));
    if let Some(js) = &out.json {
        // ... a JSON cut shows valid JSON within the budget and one marker ...
        let (shown, marker) = body.split_once("\n\n[... JSON shortened").expect("marker");
        serde_json::from_str::<Value>(shown).expect("the shown part is JSON");
        assert_eq!(js.shown_chars, chars(shown));
        assert!(js.shown_chars <= budget);
        assert!(chars(marker) <= MAX_MARKER_CHARS);
        assert!(out.kept.is_empty());
        assert_eq!(out.omitted.chars, out.original.chars);
        return;
    }
    // ... the kept part is within the budget (`kept[].chars` counts the
    // original, as `omitted.chars` does: where cleaning or a collapsed run
    // showed less than the original, the kept original may be more) ...
    let kept: usize = out.kept.iter().map(|k| k.chars).sum();
    if out.cleaning.is_none() && out.collapsed.is_empty() {
        assert!(kept <= budget, "kept {kept} of {budget}");
    }
    assert!(!out.kept.is_empty() || text.is_empty() || budget == 0);
    // spans are in order and do not overlap
    for w in out.kept.windows(2) {
        assert!(w[0].end_line <= w[1].start_line);
    }
    let omitted_lines: usize = out
        .omitted
        .ranges
        .iter()
        .map(|r| r.end_line + 1 - r.start_line)
        .sum();
    assert_eq!(out.omitted.lines, omitted_lines);
    for r in &out.omitted.ranges {
        let range = if r.start_line == r.end_line {
            format!("line {} of {}", r.start_line, lines.len())
        } else {
            format!("lines {}-{} of {}", r.start_line, r.end_line, lines.len())
        };
        assert!(body.contains(&range), "no marker for {range}");
    }
    let entry = p.config().entry_for(tool);
    if entry.shape == Shape::Head
        && let Some(first) = out.kept.first()
    {
        assert_eq!(first.start_line, 1, "a head cut keeps the start");
    }
    let partial = out.kept.iter().any(|k| k.partial);
    for k in out.kept.iter().filter(|k| k.partial) {
        assert_eq!(
            k.start_line, k.end_line,
            "a partial span is part of one line"
        );
        assert!(k.chars < chars(lines[k.start_line - 1]));
    }
    if out.cleaning.is_some() {
        // the kept part is cleaned text: its size is checked above
        return;
    }
    // every char is kept or omitted, once
    assert_eq!(kept + out.omitted.chars, out.original.chars);
    if !partial {
        let mut seen = vec![0u8; lines.len()];
        for k in &out.kept {
            seen[k.start_line - 1..k.end_line]
                .iter_mut()
                .for_each(|s| *s += 1);
        }
        for r in &out.omitted.ranges {
            seen[r.start_line - 1..r.end_line]
                .iter_mut()
                .for_each(|s| *s += 1);
        }
        assert!(
            seen.iter().all(|&s| s == 1),
            "a line kept or omitted twice or never"
        );
        for r in &out.omitted.ranges {
            let n: usize = lines[r.start_line - 1..r.end_line]
                .iter()
                .map(|l| chars(l))
                .sum();
            let count = r.end_line + 1 - r.start_line;
            let head = format!(
                "[... {} {}, {} {} omitted",
                toolcap_text::text::thousands(n),
                if n == 1 { "char" } else { "chars" },
                toolcap_text::text::thousands(count),
                if count == 1 { "line" } else { "lines" }
            );
            assert!(body.contains(&head), "expected {head}");
        }
    }
    // The body is exactly: kept spans, verbatim (whole lines, or the one cut of a
    // long line), possibly labelled `[line N] `, separated by marker lines and the
    // blank lines around them — nothing else.
    let mut pos = 0;
    let mut markers = 0;
    for k in &out.kept {
        let whole: String = lines[k.start_line - 1..k.end_line].concat();
        let candidates: Vec<String> = if k.partial {
            let l = lines[k.start_line - 1];
            let prefix: String = l.chars().take(k.chars).collect();
            let suffix: String = l.chars().skip(chars(l) - k.chars).collect();
            vec![prefix, suffix]
        } else {
            let numbered: String = lines[k.start_line - 1..k.end_line]
                .iter()
                .enumerate()
                .map(|(i, l)| format!("[line {}] {l}", k.start_line + i))
                .collect();
            vec![whole, numbered]
        };
        let candidates: Vec<String> = candidates
            .into_iter()
            .map(|mut c| {
                if !c.ends_with('\n') {
                    c.push('\n');
                }
                c
            })
            .collect();
        loop {
            if let Some(c) = candidates
                .iter()
                .find(|c| body[pos..].starts_with(c.as_str()))
            {
                pos += c.len();
                break;
            }
            let (n, is_marker) = skip_separator(&body[pos..]).unwrap_or_else(|| {
                panic!(
                    "kept lines {}-{} not found verbatim at byte {pos} of the body:\n{body}",
                    k.start_line, k.end_line
                )
            });
            markers += usize::from(is_marker);
            pos += n;
        }
    }
    while pos < body.len() {
        let (n, is_marker) = skip_separator(&body[pos..])
            .unwrap_or_else(|| panic!("unexpected text after the kept part: {:?}", &body[pos..]));
        markers += usize::from(is_marker);
        pos += n;
    }
    assert!(markers >= 1 && markers <= out.kept.len() + 1);
    // few markers whatever the input: head, tail, and a bounded number of runs of
    // error lines from the middle
    assert!(out.kept.len() <= toolcap_cut::shape::MAX_ERROR_RANGES + 2);
    for m in body.lines().filter(|l| l.starts_with("[... ")) {
        assert!(chars(m) <= MAX_MARKER_CHARS);
    }
}

proptest! {
    #[test]
    fn any_result_for_any_family(text in result_text(), value in any::<String>(), with_args: bool) {
        let args = if with_args { args_for(&value) } else { Value::Object(Map::new()) };
        for p in &processors() {
            for tool in TOOLS {
                let out = p.process(tool, &text, &args);
                check(p, tool, &text, &args, &out);
            }
        }
    }

    #[test]
    fn any_bytes_decoded_lossily(bytes in vec(any::<u8>(), 0..4000), value in vec(any::<u8>(), 0..40)) {
        let text = String::from_utf8_lossy(&bytes);
        let args = args_for(&String::from_utf8_lossy(&value));
        for p in &processors() {
            for tool in TOOLS {
                let out = p.process(tool, &text, &args);
                check(p, tool, &text, &args, &out);
            }
        }
    }

    /// The recovery section's cap holds whatever a family puts in it, and what
    /// is left out is counted exactly.
    #[test]
    fn recovery_sections_are_capped_and_count_what_they_leave_out(
        facts in vec("\\PC{0,300}", 0..30),
        lines in vec("\\PC{0,200}", 0..60),
        cmds in vec(("\\PC{0,3000}", "\\PC{0,200}"), 0..12),
        notes in vec("\\PC{0,1500}", 0..5),
    ) {
        let r = Recovery {
            facts: facts.clone(),
            structure: Some(Structure { title: "Structure".into(), lines: lines.clone() }),
            suggestions: cmds
                .iter()
                .map(|(c, purpose)| {
                    let mut a = Map::new();
                    a.insert("command".into(), Value::String(c.clone()));
                    Suggestion { tool: "shell".into(), args: a, purpose: purpose.clone() }
                })
                .collect(),
            notes,
        };
        let text = r.render();
        prop_assert!(chars(&text) <= RECOVERY_CAP, "{} chars", chars(&text));
        let fitted = r.clone().fit(RECOVERY_CAP);
        prop_assert_eq!(fitted.render(), text);
        // suggestions are never shortened: each shown one is one of the originals
        for s in &fitted.suggestions {
            prop_assert!(r.suggestions.iter().any(|o| o.args == s.args));
        }
        let shown_lines = fitted.structure.as_ref().map_or(0, |s| s.lines.len());
        let dropped = |what: &str| -> usize {
            fitted.notes.last().and_then(|n| {
                n.split(", ").chain(n.split(": ")).find_map(|p| {
                    let p = p.trim_start_matches("[... ");
                    let (num, rest) = p.split_once(' ')?;
                    rest.starts_with(&format!("more {what}")).then(|| num.replace(',', "").parse().ok())?
                })
            }).unwrap_or(0)
        };
        prop_assert_eq!(fitted.suggestions.len() + dropped("command"), cmds.len());
        prop_assert_eq!(shown_lines + dropped("structure line"), lines.len());
        prop_assert_eq!(fitted.facts.len() + dropped("fact"), facts.len());
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!(
        "{} {}",
        toolcap_text::text::thousands(n),
        if n == 1 { one } else { many }
    )
}

/// The recovery section's totals and counts are recounts of the original.
fn check_facts(text: &str, lines: &[&str], out: &Processed, tool: &str) {
    let size = format!(
        "{}, {}",
        plural(lines.len(), "line", "lines"),
        plural(chars(text), "char", "chars")
    );
    assert!(out.text.contains(&size), "{tool}: no {size:?}");
    // the error-looking lines are not counted in the section (issue 43 item 7)
    if let Some(at) = out.text.rfind("--- Recovery Options ---") {
        assert!(!out.text[at..].contains("error-looking line"));
    }
}
