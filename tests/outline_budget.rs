//! Issue 17, item 1: a source over the outline's budget gets a partial
//! outline that says how far it got, the same on every run, and never a
//! claim that there are no definitions.

#![cfg(feature = "lang-php")]

use serde_json::json;
use toolcap::outline::{Language, Options, Stop, outline_with};
use toolcap::{Config, ToolResultProcessor};

/// A PHP file shaped like generated protobuf code (the Google App Engine
/// SDK's `datastore_v3_pb.php`, 327 KB, was the case in the issue): one
/// namespace, classes whose methods are indented, few blank lines, so no
/// line at column 0 after a blank line is anywhere near the end.
fn generated_php(bytes: usize) -> String {
    let mut s = String::from("<?php\nnamespace google\\appengine_datastore_v3;\n");
    let mut class = 0;
    while s.len() < bytes {
        s.push_str(&format!(
            "class Message{class} extends \\google\\net\\ProtocolMessage {{\n"
        ));
        for field in 0..40 {
            s.push_str(&format!(
                "  private $field_{field} = null;\n  public function getField{field}() {{\n    \
                 if (!isset($this->field_{field})) {{\n      return '';\n    }}\n    return \
                 $this->field_{field};\n  }}\n  public function setField{field}($val) {{\n    \
                 $this->field_{field} = $val;\n    return $this;\n  }}\n"
            ));
        }
        s.push_str("}\n");
        class += 1;
    }
    s
}

fn php() -> Language {
    Language::from_name("php").expect("php")
}

#[test]
fn a_source_over_the_budget_says_how_far_its_outline_got() {
    let source = generated_php(2_000_000);
    let o = outline_with(&source, php(), &Options::default()).expect("outline");
    assert!(o.partial, "a 2 MB source is over the default budget");
    assert_eq!(o.stopped_by, Some(Stop::TimeBudget));
    assert!(o.covered_lines > 1_000, "covered {} lines", o.covered_lines);
    assert!(o.covered_lines < o.lines);
    // Definitions up to the cut are listed, the classes and their methods.
    assert!(o.symbols.len() > 100, "{} symbols", o.symbols.len());
    assert!(o.symbols.iter().all(|s| s.end_line <= o.covered_lines));
    assert!(
        o.symbols
            .iter()
            .any(|s| s.name == "getField0" && s.parent.as_deref() == Some("Message0"))
    );
}

#[test]
fn the_same_source_gets_the_same_outline_on_every_run() {
    let source = generated_php(1_500_000);
    let first = outline_with(&source, php(), &Options::default()).expect("outline");
    assert!(first.partial);
    // A different size cap (above the source's size) is a different cache
    // key: each of these is computed again, not served from the cache.
    for extra in 1..=5 {
        let options = Options {
            max_bytes: Options::default().max_bytes + extra,
            ..Options::default()
        };
        let again = outline_with(&source, php(), &options).expect("outline");
        assert_eq!(again, first, "run {extra}");
    }
}

#[test]
fn one_class_holding_the_whole_file_is_cut_between_its_members() {
    // Every definition inside one class: the only line at column 0 is the
    // class's. The cut falls between two methods, not before the class.
    let mut source = String::from("<?php\nclass Everything {\n");
    let mut i = 0;
    while source.len() < 1_500_000 {
        source.push_str(&format!(
            "    public function method{i}($a) {{\n        return $a + {i};\n    }}\n"
        ));
        i += 1;
    }
    source.push_str("}\n");
    let o = outline_with(&source, php(), &Options::default()).expect("outline");
    assert!(o.partial);
    assert!(o.covered_lines > 1_000, "covered {} lines", o.covered_lines);
    let methods = o.symbols.iter().filter(|s| s.depth == 1).count();
    assert!(methods > 300, "{methods} methods");
    assert_eq!(o.symbols[0].name, "Everything");
    // The class is open at the cut: it ends at the last covered line.
    assert_eq!(o.symbols[0].end_line, o.covered_lines);
}

#[test]
fn the_read_file_hint_never_says_no_definitions_when_the_outline_stopped_early() {
    let source = generated_php(1_500_000);
    let processor = ToolResultProcessor::new(Config::defaults());
    let out = processor.process(
        "read_file",
        &source,
        &json!({"path": "datastore_v3_pb.php"}),
    );
    assert!(out.truncated);
    assert!(
        !out.text.contains("Structure: no definitions found\n"),
        "{}",
        out.text
    );
    assert!(
        out.text
            .contains("partial: the time budget stopped the outline there"),
        "{}",
        out.text
    );
}
