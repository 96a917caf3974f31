//! One syntax error costs at most the definition it sits in (issue 28 item
//! 5): on excerpts of the three real files where it ruined the rest of the
//! outline (Newtonsoft.Json, MIT; moshi, Apache-2.0; pyenv, MIT: their
//! notices are in the samples), the definitions after the error keep their
//! container, and the outline says which lines were read best-effort.

use toolcap::outline::{Language, LineSpan, Options, Outline, outline_with};

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/outline_samples/syntax_errors/"
);

fn outline_of(lang: &str, file: &str) -> Option<Outline> {
    let lang = Language::from_name(lang)?; // the language's feature is off
    let source = std::fs::read_to_string(format!("{DIR}{file}")).expect("sample");
    let options = Options {
        budget: None,
        ..Options::default()
    };
    Some(outline_with(&source, lang, &options).expect("outline"))
}

/// "kind name line-end" per symbol, indented by depth.
fn listed(o: &Outline) -> Vec<String> {
    o.symbols
        .iter()
        .map(|s| {
            format!(
                "{}{} {} {}-{}",
                "  ".repeat(s.depth),
                s.kind,
                s.name,
                s.line,
                s.end_line
            )
        })
        .collect()
}

fn spans(o: &Outline) -> Vec<(usize, usize)> {
    o.best_effort.iter().map(|s| (s.start, s.end)).collect()
}

#[test]
fn an_if_split_by_a_conditional_costs_no_method_of_the_class() {
    // Before: `class JsonTextReader (lines 9-94)`, and the two methods after
    // it listed as module-level functions.
    let Some(o) = outline_of("csharp", "JsonTextReader.cs") else {
        return;
    };
    assert!(o.syntax_errors);
    assert_eq!(
        listed(&o),
        [
            "module Newtonsoft.Json 3-126",
            "  class JsonTextReader 9-125",
            "    method ParseReadString 16-94",
            "    method BlockCopyChars 96-101",
            "    method ShiftBufferIfNeeded 103-124",
        ]
    );
    // The `#if` branches inside ParseReadString were read without their
    // bodies.
    assert_eq!(spans(&o), [(54, 69), (79, 86)]);
}

#[test]
fn a_nested_class_the_grammar_misreads_costs_only_itself() {
    // Before: no class JsonReader, its methods listed as top-level
    // functions, the enum and the companion's `of` missing.
    let Some(o) = outline_of("kotlin", "JsonReader.kt") else {
        return;
    };
    assert!(o.syntax_errors);
    assert_eq!(
        listed(&o),
        [
            "class JsonReader 5-139",
            "  method tag 14-17",
            "  method setTag 20-24",
            "  method promoteNameToValue 40-40",
            "  enum Token 81-129",
            "  method of 135-137",
        ]
    );
    // `public class Options` with its primary constructor on the next line
    // (lines 46-78) is what tree-sitter-kotlin cannot read: it alone is lost.
    assert_eq!(spans(&o), [(46, 78)]);
}

#[test]
fn a_misread_function_does_not_swallow_the_next_ones() {
    // Before: `is_mac` read as running on, and can_use_homebrew, locked_in,
    // lock_in and osx_version missing.
    let Some(o) = outline_of("bash", "python-build") else {
        return;
    };
    assert!(o.syntax_errors);
    let names: Vec<&str> = o.symbols.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "capitalize",
            "sanitize",
            "colorize",
            "os_information",
            "can_use_homebrew",
            "can_use_macports",
            "locked_in",
            "lock_in",
            "osx_version",
        ]
    );
    assert_eq!(spans(&o), [(32, 36)]);
}

#[test]
fn best_effort_lines_are_in_the_json_only_with_errors() {
    let Some(lang) = Language::from_name("python") else {
        return;
    };
    let clean = outline_with("def f():\n    pass\n", lang, &Options::default()).expect("outline");
    assert!(clean.best_effort.is_empty());
    let json = serde_json::to_value(&clean).expect("json");
    assert!(json.get("best_effort").is_none(), "{json}");

    // A broken statement in a method: before, the method ran on over the
    // next one (`method f (lines 2-6)`, g missing); now the method it sits
    // in is what it costs, and its lines are named.
    let source = "class A:\n    def f(self):\n        x = (1,\n\n    def g(self):\n        pass\n\ndef h():\n    pass\n";
    let o = outline_with(source, lang, &Options::default()).expect("outline");
    assert!(o.syntax_errors);
    assert_eq!(
        listed(&o),
        ["class A 1-6", "  method g 5-6", "function h 8-9"]
    );
    assert_eq!(spans(&o), [(2, 4)]);
    let json = serde_json::to_value(&o).expect("json");
    assert_eq!(json["best_effort"], serde_json::json!(o.best_effort));
    assert!(!o.best_effort.is_empty());
    for s in &o.best_effort {
        assert!(s.start <= s.end && s.end <= o.lines, "{s:?}");
    }
    assert_eq!(LineSpan { start: 3, end: 3 }.to_string(), "3");
    assert_eq!(
        LineSpan {
            start: 998,
            end: 1_200
        }
        .to_string(),
        "998-1,200"
    );
}

/// Errors past what the re-parses reached (16 at most, and one budget of
/// parser work between them) are named as read best-effort too: before, an
/// outline of 20 broken classes named the first 9 and said nothing of the
/// errors in the 11 after them.
#[test]
fn errors_the_reparses_did_not_reach_are_read_best_effort() {
    let Some(lang) = Language::from_name("python") else {
        return;
    };
    let mut source = String::new();
    for i in 0..20 {
        source.push_str(&format!(
            "class A{i}:\n    def f(self):\n        x = (1,\n\n    def g(self):\n        pass\n\n"
        ));
    }
    let options = Options {
        budget: None,
        ..Options::default()
    };
    let o = outline_with(&source, lang, &options).expect("outline");
    assert!(o.syntax_errors);
    // every class is listed, and a best-effort span names lines of each
    // (the broken statement, or where the parser noticed it)
    let classes = o.symbols.iter().filter(|s| s.depth == 0).count();
    assert_eq!(classes, 20, "{:?}", listed(&o));
    for i in 0..20 {
        let (first, last) = (7 * i + 1, 7 * i + 6);
        assert!(
            o.best_effort
                .iter()
                .any(|s| s.start <= last && first <= s.end),
            "class A{i} (lines {first}-{last}) not named: {:?}",
            spans(&o)
        );
    }
}

/// The re-parses share one budget: with a budget the first re-parse uses
/// up, containing stops there, every error is named as read best-effort,
/// and the outline is the same on every run (the budget is parser work, not
/// time).
#[test]
fn reparses_share_one_budget() {
    let Some(lang) = Language::from_name("bash") else {
        return;
    };
    let one = std::fs::read_to_string(format!("{DIR}python-build")).expect("sample");
    let source = one.repeat(4);
    let per_copy = one.lines().count();
    let with = |budget| {
        let options = Options {
            budget,
            ..Options::default()
        };
        outline_with(&source, lang, &options).expect("outline")
    };
    let unbounded = with(None);
    // without a budget each copy's error is contained (lines 32-36 of each)
    assert_eq!(
        spans(&unbounded),
        (0..4)
            .map(|k| (32 + k * per_copy, 36 + k * per_copy))
            .collect::<Vec<_>>()
    );
    let tiny = with(Some(std::time::Duration::from_millis(1)));
    assert_eq!(
        tiny.best_effort,
        with(Some(std::time::Duration::from_millis(1))).best_effort
    );
    assert_eq!(
        listed(&tiny),
        listed(&with(Some(std::time::Duration::from_millis(1))))
    );
    // each copy's error is named (the containing stopped before any): the
    // lines where the parser found it, around the statement contained above
    for k in 0..4 {
        let (a, b) = (32 + k * per_copy, 44 + k * per_copy);
        assert!(
            tiny.best_effort.iter().any(|s| s.start <= b && a <= s.end),
            "copy {k}: {:?}",
            spans(&tiny)
        );
    }
    // and it listed less than the unbounded outline: the budget bound it
    assert!(tiny.symbols.len() < unbounded.symbols.len());
}
