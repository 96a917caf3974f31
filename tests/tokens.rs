//! Token budgets: with `unit = "tokens"` the kept part, measured with the same
//! encoder, is within the budget, the cut stays on line boundaries, and the
//! marker reports tokens as well.
#![cfg(feature = "tokens")]

use std::path::Path;

use serde_json::json;
use toolcap::{Config, ToolResultProcessor};
use toolcap_text::measure::{Encoding, Measure, Tokens};

fn fixture(rel: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(rel),
    )
    .unwrap()
}

fn processor(toml: &str) -> ToolResultProcessor {
    ToolResultProcessor::new(
        Config::from_sources(Some((toml, Path::new("tokens.toml"))), None).unwrap(),
    )
}

#[test]
fn kept_part_fits_the_token_budget_on_line_boundaries() {
    let text = fixture("read_file/typing.py");
    for (enc, name) in [
        (Encoding::O200kBase, "o200k_base"),
        (Encoding::Cl100kBase, "cl100k_base"),
    ] {
        let p = processor(&format!(
            "[tools.read_file]\nunit = \"tokens\"\nencoding = \"{name}\"\nthreshold = 1000\nmax_kept = 300\n"
        ));
        let out = p.process("read_file", &text, &json!({"path": "typing.py"}));
        assert!(out.truncated);
        assert_eq!(out.unit, "tokens");
        assert_eq!(out.kept_budget, 300);
        let t = Tokens::new(enc);
        assert_eq!(out.original_tokens, Some(t.cost(&text)));
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let k = &out.kept[0];
        assert!(!k.partial);
        let kept: String = lines[k.start_line - 1..k.end_line].concat();
        let cost = t.cost(&kept);
        assert!(cost <= 300, "{name}: kept {cost} tokens");
        // and not wastefully small: one more line would not fit
        let more: String = lines[k.start_line - 1..=k.end_line].concat();
        assert!(t.cost(&more) > 300 - 40, "{name}: stopped early at {cost}");
        assert!(out.text.starts_with(&kept));
        // the marker counts the omitted tokens exactly
        let omitted: String = lines[k.end_line..].concat();
        let marker = format!(
            "({} tokens), {} lines omitted",
            toolcap_text::text::thousands(t.cost(&omitted)),
            toolcap_text::text::thousands(lines.len() - k.end_line)
        );
        assert!(out.text.contains(&marker), "{name}: {marker} missing");
    }
}

#[test]
fn token_thresholds_decide_what_is_cut() {
    let p = processor("[tools.shell]\nunit = \"tokens\"\nthreshold = 5000\nmax_kept = 400\n");
    // ~6,300 chars of build log is well under 5,000 tokens: unchanged
    let log = fixture("shell/cargo_test_failure.log");
    let out = p.process("bash", &log, &json!({"command": "cargo test"}));
    assert!(!out.truncated);
    assert_eq!(out.text, log);
    let big = log.repeat(4);
    let out = p.process("bash", &big, &json!({"command": "cargo test"}));
    assert!(out.truncated);
    let t = Tokens::new(Encoding::O200kBase);
    let kept_cost: usize = out
        .kept
        .iter()
        .map(|k| {
            let lines: Vec<&str> = big.split_inclusive('\n').collect();
            lines[k.start_line - 1..k.end_line].concat()
        })
        .map(|s| t.cost(&s))
        .sum();
    assert!(
        kept_cost <= 400 + out.kept.len() * 2,
        "kept {kept_cost} tokens"
    );
}

#[test]
fn bad_token_config_is_rejected_with_the_key() {
    let e = Config::from_sources(
        Some((
            "[tools.grep]\nunit = \"tokens\"\nencoding = \"gpt2\"\n",
            Path::new("t.toml"),
        )),
        None,
    )
    .unwrap_err();
    assert_eq!(e.key, "tools.grep.encoding");
    let e = Config::from_sources(
        Some((
            "[tools.grep]\nunit = \"tokens\"\nthreshold = 400\n",
            Path::new("t.toml"),
        )),
        None,
    )
    .unwrap_err();
    assert_eq!(e.key, "tools.grep.threshold");
    assert!(e.problem.contains("max_kept_tokens = 500 tokens"), "{e}");
    let e = Config::from_sources(
        Some(("[tools.grep]\nunit = \"bytes\"\n", Path::new("t.toml"))),
        None,
    )
    .unwrap_err();
    assert_eq!(e.key, "tools.grep.unit");
}
