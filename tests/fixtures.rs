//! Every real-world fixture under `fixtures/<family>/` (with its `NAME.call.json`
//! sidecar naming the tool and arguments) is processed with the default config:
//! the text the model sees is snapshotted, and every number in the report is
//! checked against a recount of the original done here, independently of the
//! library's own counting.

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolcap::{Config, Processed, ToolResultProcessor};

struct Case {
    name: String,
    text: String,
    tool: String,
    args: Value,
}

fn cases() -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut sidecars: Vec<PathBuf> = Vec::new();
    for fam in std::fs::read_dir(&root).expect("fixtures/ exists") {
        let fam = fam.expect("dir entry").path();
        if !fam.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&fam).expect("family dir") {
            let f = f.expect("dir entry").path();
            if f.to_string_lossy().ends_with(".call.json") {
                sidecars.push(f);
            }
        }
    }
    sidecars.sort();
    assert!(
        sidecars.len() >= 12,
        "expected the fixture set, found {}",
        sidecars.len()
    );
    sidecars
        .into_iter()
        .map(|sc| {
            let data = PathBuf::from(sc.to_string_lossy().trim_end_matches(".call.json"));
            let call: Value = serde_json::from_str(&std::fs::read_to_string(&sc).expect("sidecar"))
                .expect("sidecar JSON");
            let fam = data
                .parent()
                .and_then(Path::file_name)
                .expect("family")
                .to_string_lossy();
            let file = data.file_name().expect("name").to_string_lossy();
            Case {
                name: format!("{fam}__{file}"),
                text: std::fs::read_to_string(&data).expect("fixture is UTF-8"),
                tool: call["tool"].as_str().expect("tool").to_string(),
                args: call["args"].clone(),
            }
        })
        .collect()
}

/// Lines of `s` with their terminators, counted the simple way.
fn lines_of(s: &str) -> Vec<&str> {
    s.split_inclusive('\n').collect()
}

fn process(c: &Case) -> Processed {
    ToolResultProcessor::new(Config::defaults()).process(&c.tool, &c.text, &c.args)
}

#[test]
fn snapshots_of_what_the_model_sees() {
    for c in cases() {
        let p = process(&c);
        insta::assert_snapshot!(c.name.clone(), p.text);
    }
}

/// A few fixtures as the model sees them when the full result is stored (the
/// suggestions read and search it through the recovery tools), and with the
/// tool names of two harnesses (`[suggest] preset`).
#[test]
fn snapshots_with_a_store_and_with_presets() {
    let picked = [
        "read_file__typing.py",
        "shell__pytest_failure.log",
        "grep__def_init_context_unittest.txt",
        "glob__python_stdlib_py_files.txt",
        "web_fetch__ch08-02-strings.md",
        "web_search__interior_mutability.md",
    ];
    let preset = |name: &str| {
        Config::from_sources(
            Some((
                &format!("[suggest]\npreset = \"{name}\"\n"),
                Path::new("preset.toml"),
            )),
            None,
        )
        .expect("preset config")
    };
    let mut seen = 0;
    for c in cases()
        .into_iter()
        .filter(|c| picked.contains(&c.name.as_str()))
    {
        seen += 1;
        let store: std::sync::Arc<dyn toolcap::ResultStore> =
            std::sync::Arc::new(toolcap::MemoryStore::new());
        let p =
            ToolResultProcessor::new(Config::defaults()).with_store(store, toolcap::SaveWhen::Cut);
        let mut call = toolcap::ToolCall::new(&c.tool, &c.args);
        call.id = Some("call_1");
        let out = p.process_call(&call, &c.text);
        assert!(out.stored.is_some(), "{}", c.name);
        // a file, a command's output, a page: everything is read from the store
        if ["read_file", "shell", "web_fetch"].contains(&c.tool.as_str()) {
            for s in &out.suggestions {
                assert!(
                    ["get_continuation", "search_tool_output"].contains(&s.tool.as_str()),
                    "{}: {}",
                    c.name,
                    s.render()
                );
            }
        }
        insta::assert_snapshot!(format!("stored__{}", c.name), out.text);
        for name in ["claude-code", "mcp-filesystem"] {
            let out = ToolResultProcessor::new(preset(name)).process(&c.tool, &c.text, &c.args);
            insta::assert_snapshot!(format!("{name}__{}", c.name), out.text);
        }
    }
    assert_eq!(seen, picked.len());
}

#[test]
fn every_number_in_the_report_equals_a_recount() {
    for c in cases() {
        let p = process(&c);
        let lines = lines_of(&c.text);
        let chars = c.text.chars().count();
        assert_eq!(p.original.chars, chars, "{}", c.name);
        assert_eq!(p.original.bytes, c.text.len(), "{}", c.name);
        assert_eq!(p.original.lines, lines.len(), "{}", c.name);
        if p.reason == toolcap::Reason::Cleaned {
            check_cleaned(&c, &p);
            continue;
        }
        assert!(p.truncated, "{} should be over its threshold", c.name);
        let cleaned = p.cleaning.is_some();
        if let Some(js) = &p.json {
            check_json_cut(&c, &p, js);
            continue;
        }
        if let Some(h) = &p.html {
            check_page_cut(&c, &p, h);
            continue;
        }
        // kept + omitted = original (both counted in the original, a cleaned
        // output's colour codes and repeats included)
        let kept: usize = p.kept.iter().map(|k| k.chars).sum();
        assert_eq!(kept + p.omitted.chars, chars, "{}", c.name);
        // (the kept budget holds what the model is shown: of a cleaned
        // output, its cleaned lines)
        if !cleaned {
            assert!(kept <= 2000, "{}: kept {kept} chars", c.name);
        }
        // whole-line kept spans hold exactly those lines' chars
        for k in p.kept.iter().filter(|k| !k.partial) {
            let n: usize = lines[k.start_line - 1..k.end_line]
                .iter()
                .map(|l| l.chars().count())
                .sum();
            assert_eq!(k.chars, n, "{}: kept span {:?}", c.name, k);
        }
        // omitted ranges: line counts and (for whole-line cuts) char counts
        let omitted_lines: usize = p
            .omitted
            .ranges
            .iter()
            .map(|r| r.end_line + 1 - r.start_line)
            .sum();
        assert_eq!(p.omitted.lines, omitted_lines, "{}", c.name);
        if p.kept.iter().all(|k| !k.partial) {
            let n: usize = p
                .omitted
                .ranges
                .iter()
                .flat_map(|r| &lines[r.start_line - 1..r.end_line])
                .map(|l| l.chars().count())
                .sum();
            assert_eq!(p.omitted.chars, n, "{}", c.name);
            // every line is either kept or omitted, exactly once
            let mut seen = vec![0u8; lines.len()];
            for k in &p.kept {
                for s in &mut seen[k.start_line - 1..k.end_line] {
                    *s += 1;
                }
            }
            for r in &p.omitted.ranges {
                for s in &mut seen[r.start_line - 1..r.end_line] {
                    *s += 1;
                }
            }
            assert!(
                seen.iter().all(|&s| s == 1),
                "{}: a line kept or omitted twice or never",
                c.name
            );
        }
        // each run of near-duplicate lines shown as one line says exactly how
        // many lines it stands for, and which
        for run in &p.collapsed {
            let n: usize = lines[run.start_line - 1..run.end_line]
                .iter()
                .map(|l| l.chars().count())
                .sum();
            assert_eq!(run.chars, n, "{}: {run:?}", c.name);
            assert_eq!(run.lines, run.end_line + 1 - run.start_line);
            assert!(
                run.text.ends_with(&format!(
                    "  (×{}, lines {}-{})",
                    thousands(run.lines),
                    run.start_line,
                    run.end_line
                )),
                "{}: {run:?}",
                c.name
            );
            assert!(
                p.text.starts_with(&format!("{}\n", run.text))
                    || p.text.contains(&format!("\n{}\n", run.text)),
                "{}: {run:?}",
                c.name
            );
            assert!(
                p.omitted
                    .ranges
                    .iter()
                    .any(|r| r.start_line == run.start_line && r.end_line == run.end_line),
                "{}: a collapsed run is not counted as omitted",
                c.name
            );
        }
        // each marker in the text states its range's exact counts
        for r in p.omitted.ranges.iter().filter(|r| {
            !p.collapsed
                .iter()
                .any(|x| x.start_line == r.start_line && x.end_line == r.end_line)
        }) {
            let n: usize = lines[r.start_line - 1..r.end_line]
                .iter()
                .map(|l| l.chars().count())
                .sum();
            let range = if r.start_line == r.end_line {
                format!("line {} of {}", r.start_line, lines.len())
            } else {
                format!("lines {}-{} of {}", r.start_line, r.end_line, lines.len())
            };
            assert!(
                p.text.contains(&range),
                "{}: marker for {range} missing",
                c.name
            );
            if p.kept.iter().all(|k| !k.partial) {
                let count = r.end_line + 1 - r.start_line;
                let head = format!(
                    "[... {} {}, {} {}{} omitted ({range})",
                    thousands(n),
                    if n == 1 { "char" } else { "chars" },
                    thousands(count),
                    if count == 1 { "line" } else { "lines" },
                    if cleaned {
                        " of the original output"
                    } else {
                        ""
                    }
                );
                assert!(p.text.contains(&head), "{}: expected marker {head}", c.name);
            }
        }
        // the header states the exact totals
        assert!(
            p.text.contains(&format!(
                "{} lines, {} chars",
                thousands(lines.len()),
                thousands(chars)
            )) || lines.len() == 1
                && p.text
                    .contains(&format!("1 line, {} chars", thousands(chars))),
            "{}: totals missing",
            c.name
        );
        // kept text appears verbatim, in order
        let body = p
            .text
            .split("--- Recovery Options ---")
            .next()
            .unwrap_or("");
        let mut at = 0;
        for k in p.kept.iter().filter(|k| !k.partial && !cleaned) {
            let chunk: String = lines[k.start_line - 1..k.end_line].concat();
            let plain = body[at..].find(&chunk);
            let numbered: String = lines[k.start_line - 1..k.end_line]
                .iter()
                .enumerate()
                .map(|(i, l)| format!("[line {}] {l}", k.start_line + i))
                .collect();
            let found = plain
                .map(|i| (i, chunk.len()))
                .or_else(|| body[at..].find(&numbered).map(|i| (i, numbered.len())));
            let (i, len) = found.unwrap_or_else(|| {
                panic!(
                    "{}: kept lines {}-{} not verbatim",
                    c.name, k.start_line, k.end_line
                )
            });
            at += i + len;
        }
        // processing the output again does not cut it twice
        let again = ToolResultProcessor::new(Config::defaults()).process(&c.tool, &p.text, &c.args);
        assert_eq!(again.text, p.text, "{}: cut twice", c.name);
    }
}

/// A result that fit once cleaned of terminal noise: every original line is
/// accounted for (a collapsed run counts as the lines it stands for).
fn check_cleaned(c: &Case, p: &Processed) {
    let stats = p.cleaning.expect("cleaning stats");
    let (body, note) = p
        .text
        .rsplit_once("\n[toolcap: terminal noise removed: ")
        .expect("note");
    assert!(note.ends_with("; nothing else omitted]\n"), "{}", c.name);
    let mut lines = 0;
    let mut repeated = 0;
    for l in body.lines() {
        match l
            .strip_prefix("(repeated ")
            .and_then(|r| r.split(' ').next())
        {
            Some(n) if l.ends_with(" more times)") || l.ends_with(" more time)") => {
                let n: usize = n.parse().expect("count");
                lines += n;
                repeated += n;
            }
            _ => lines += 1,
        }
    }
    assert_eq!(
        lines,
        lines_of(&c.text).len(),
        "{}: lines not accounted for",
        c.name
    );
    assert_eq!(repeated, stats.repeated_lines, "{}", c.name);
}

/// A JSON result cut as JSON: the shown part parses, its size is what the report
/// says and within the budget, and the notes inside it add up to the counts.
/// An HTML page cut as its text: the shown text is what the note says, the text of
/// the page's content (no markup), and the marker counts exactly what of the page
/// comes after the source of the last shown character.
fn check_page_cut(c: &Case, p: &Processed, h: &toolcap::HtmlStats) {
    let body = p.text.split("\n--- Recovery Options ---").next().unwrap();
    let (note, rest) = body.split_once('\n').unwrap();
    assert!(
        note.starts_with("[toolcap: HTML page shown as text")
            && note.contains(&format!(
                "{} of its text's {} chars below]",
                thousands(h.shown_chars),
                thousands(h.text_chars)
            )),
        "{}: {note}",
        c.name
    );
    let (shown, marker) = rest.rsplit_once("\n\n[... ").expect("marker");
    assert_eq!(shown.chars().count(), h.shown_chars, "{}", c.name);
    assert!(
        h.shown_chars <= 2000 && h.shown_chars < h.text_chars,
        "{}",
        c.name
    );
    assert!(
        !shown.contains("<p>") && !shown.contains("<div"),
        "{}: markup shown",
        c.name
    );
    // every shown word is in the page before the omitted part, in order
    let r = &p.omitted.ranges;
    assert_eq!(r.len(), 1, "{}", c.name);
    assert_eq!(r[0].end_line, p.original.lines, "{}", c.name);
    let lines: Vec<&str> = c.text.split_inclusive('\n').collect();
    let before: String = lines[..r[0].start_line - 1].concat();
    let mut at = 0;
    for w in shown
        .split_whitespace()
        .filter(|w| w.chars().all(char::is_alphanumeric))
    {
        match before[at..].find(w) {
            Some(i) => at += i + w.len(),
            None => panic!(
                "{}: shown word {w:?} is not in the page before line {}",
                c.name, r[0].start_line
            ),
        }
    }
    // the omitted part: the whole lines counted exactly, and the cut line's rest
    let whole: usize = lines[r[0].start_line - 1..]
        .iter()
        .map(|l| l.chars().count())
        .sum();
    // "line L cut after char K of N": the rest of line L is omitted too
    let cut_rest = marker
        .split("line ")
        .nth(1)
        .and_then(|m| m.split_once(" cut after char "))
        .map_or(0, |(l, rest)| {
            let l: usize = l.parse().expect("line number");
            let k: usize = rest
                .split(' ')
                .next()
                .unwrap()
                .replace(',', "")
                .parse()
                .expect("char");
            assert_eq!(l + 1, r[0].start_line, "{}", c.name);
            lines[l - 1].chars().count() - k
        });
    assert_eq!(p.omitted.chars, whole + cut_rest, "{}: {marker}", c.name);
    assert!(
        marker.starts_with(&format!("{} chars, ", thousands(p.omitted.chars))),
        "{}: {marker}",
        c.name
    );
    assert_eq!(
        p.omitted.lines,
        p.original.lines + 1 - r[0].start_line,
        "{}",
        c.name
    );
}

fn check_json_cut(c: &Case, p: &Processed, js: &toolcap::JsonStats) {
    let (shown, rest) = p
        .text
        .split_once("\n\n[... JSON shortened")
        .expect("JSON marker");
    let v: Value = serde_json::from_str(shown)
        .unwrap_or_else(|e| panic!("{}: shown part is not JSON: {e}", c.name));
    assert_eq!(js.shown_chars, shown.chars().count(), "{}", c.name);
    assert!(js.shown_chars <= 2000, "{}", c.name);
    assert!(
        p.kept.is_empty() && p.omitted.chars == p.original.chars,
        "{}",
        c.name
    );
    assert!(
        rest.contains(&format!(
            "{} chars shown as {} chars",
            thousands(p.original.chars),
            thousands(js.shown_chars)
        )),
        "{}",
        c.name
    );
    // recount the notes left in the value
    fn walk(v: &Value, items: &mut usize, dropped: &mut usize) {
        match v {
            Value::String(s) => {
                if let Some(n) = s
                    .strip_prefix("[… ")
                    .and_then(|r| r.split(" more item").next())
                    && s.contains(" more item")
                {
                    *items += n.replace(',', "").parse::<usize>().expect("count");
                }
                if let Some(i) = s.rfind("…[+") {
                    let n = s[i + "…[+".len()..]
                        .trim_end_matches(" chars]")
                        .replace(',', "");
                    *dropped += n.parse::<usize>().expect("dropped count");
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, items, dropped)),
            Value::Object(o) => o.values().for_each(|x| walk(x, items, dropped)),
            _ => {}
        }
    }
    let (mut items, mut dropped) = (0, 0);
    walk(&v, &mut items, &mut dropped);
    assert_eq!(items, js.items_elided, "{}", c.name);
    assert_eq!(dropped, js.string_chars_dropped, "{}", c.name);
    let again = ToolResultProcessor::new(Config::defaults()).process(&c.tool, &p.text, &c.args);
    assert_eq!(again.text, p.text, "{}: cut twice", c.name);
}

fn thousands(n: usize) -> String {
    toolcap_text::text::thousands(n)
}

/// The read_file `sed` suggestions, run by a real shell on the real file, print
/// exactly the lines they promise, starting at the first omitted line.
#[test]
fn read_file_sed_suggestions_print_the_promised_lines() {
    for c in cases().into_iter().filter(|c| c.tool == "read_file") {
        let p = process(&c);
        let path = c.args["path"].as_str().expect("path");
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join(path);
        std::fs::create_dir_all(target.parent().expect("parent")).expect("mkdir");
        std::fs::write(&target, &c.text).expect("write");
        let lines = lines_of(&c.text);
        let first = p.omitted.ranges[0].start_line;
        let seds: Vec<&Value> = p
            .suggestions
            .iter()
            .filter_map(|s| s.args.get("command"))
            .filter(|cmd| cmd.as_str().is_some_and(|c| c.starts_with("sed -n")))
            .collect();
        assert!(!seds.is_empty(), "{}: no sed suggestion", c.name);
        let first_cmd = seds[0].as_str().expect("string");
        assert!(
            first_cmd.starts_with(&format!("sed -n '{first},")),
            "{}: {first_cmd}",
            c.name
        );
        for cmd in seds {
            let cmd = cmd.as_str().expect("string");
            let range = cmd
                .split('\'')
                .nth(1)
                .expect("quoted range")
                .trim_end_matches('p');
            let (a, b) = range.split_once(',').expect("A,B");
            let (a, b): (usize, usize) = (a.parse().expect("A"), b.parse().expect("B"));
            let out = std::process::Command::new("bash")
                .arg("-c")
                .arg(cmd)
                .current_dir(dir.path())
                .output()
                .expect("bash runs");
            assert!(out.status.success(), "{cmd} failed");
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                lines[a - 1..b].concat(),
                "{}: {cmd}",
                c.name
            );
        }
    }
}

/// Every suggestion renders as `tool(key=JSON, ...)` whose JSON values parse back to
/// the argument values.
#[test]
fn rendered_calls_parse_back_to_their_arguments() {
    for c in cases() {
        let p = process(&c);
        for s in &p.suggestions {
            let rendered = s.render();
            let line = format!("  • {rendered}");
            assert!(p.text.contains(&line), "{}: {rendered} not in text", c.name);
            for (k, v) in &s.args {
                let needle = format!("{k}={v}");
                assert!(rendered.contains(&needle), "{}: {needle}", c.name);
                let back: Value = serde_json::from_str(&v.to_string()).expect("JSON value");
                assert_eq!(&back, v);
            }
        }
    }
}

/// When the store cannot keep the result (here: an id it refuses), the
/// suggestions do not point at it: they are the ones without a store.
#[test]
fn a_result_the_store_refuses_is_suggested_without_it() {
    let c = cases()
        .into_iter()
        .find(|c| c.name == "read_file__typing.py")
        .expect("typing.py fixture");
    let store: std::sync::Arc<dyn toolcap::ResultStore> =
        std::sync::Arc::new(toolcap::MemoryStore::new());
    let p = ToolResultProcessor::new(Config::defaults()).with_store(store, toolcap::SaveWhen::Cut);
    let mut call = toolcap::ToolCall::new(&c.tool, &c.args);
    call.id = Some("bad\u{7}id");
    let out = p.process_call(&call, &c.text);
    assert!(out.stored.is_none() && out.store_error.is_some());
    assert!(!out.text.contains("get_continuation"), "{}", out.text);
    assert!(out.text.contains("sed -n '67,"), "{}", out.text);
    assert!(
        out.suggestions
            .iter()
            .all(|s| !["get_continuation", "search_tool_output"].contains(&s.tool.as_str())),
        "{}",
        out.text
    );
}
