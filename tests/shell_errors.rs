//! Error lines in real shell output (issue 17, items 2 and 7): the lines that
//! carry a failure are the ones kept from the middle, and the count printed is
//! the count the suggested grep prints when run for real (colour or not).

use crate::support::colour;
use colour::strip_colour;

use std::path::Path;
use std::process::Command;

use serde_json::json;
use toolcap::{Config, Processed, ToolResultProcessor};

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/shell")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// The fixture processed as the output of `cat FIXTURE` (so the suggestions
/// that re-run the command can be run here).
fn process(name: &str) -> (String, Processed) {
    let path = fixture(name);
    let text = std::fs::read_to_string(&path).expect("fixture is UTF-8");
    let p = ToolResultProcessor::new(Config::defaults()).process(
        "shell",
        &text,
        &json!({"command": format!("cat {path}")}),
    );
    (text, p)
}

/// The original lines kept verbatim (per the report's kept spans) between
/// lines `from` and `to` (1-based, inclusive), each checked to be in the text.
fn kept_between<'a>(text: &'a str, p: &Processed, from: usize, to: usize) -> Vec<&'a str> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for k in &p.kept {
        for n in k.start_line.max(from)..=k.end_line.min(to) {
            let l = lines[n - 1];
            assert!(
                p.text.contains(&strip_colour(l)),
                "kept line {n} is not in the text"
            );
            out.push(l);
        }
    }
    out
}

#[test]
fn apt_term_log_keeps_the_failures_not_package_names() {
    let (text, p) = process("apt_term_failure.log");
    assert!(p.truncated);
    // kept from the middle (the head is lines 1-7, the tail from 3,100 on)
    let middle = kept_between(&text, &p, 8, 3100);
    assert!(
        middle
            .iter()
            .any(|l| l.starts_with("Failed to open connection to \"system\" message bus")),
        "{middle:#?}"
    );
    // the failing package's lines at the end are kept whole
    for want in [
        "Setting up toolcap-failing-postinst (1.0) ...",
        "mkdir: cannot create directory '/etc/toolcap-demo/missing/parent/demo.conf': No such file or directory",
        "dpkg: error processing package toolcap-failing-postinst (--configure):",
        "Errors were encountered while processing:",
        " toolcap-failing-postinst",
    ] {
        assert!(p.text.lines().any(|l| l == want), "{want}: {}", p.text);
    }
    // package names holding error words are not error lines
    assert!(
        !middle
            .iter()
            .any(|l| l.contains("gpg-error") || l.contains("liberror")),
        "{middle:#?}"
    );
    // the section does not count the error-looking lines (issue 43 item 7:
    // the count held none of the facts agents used next); they are searched
    // by a suggestion, which finds the dpkg failure's 4
    assert!(!p.text.contains("error-looking line"), "{}", p.text);
    let search = p
        .suggestions
        .iter()
        .find(|s| s.purpose.contains("error lines with their line numbers"))
        .unwrap_or_else(|| panic!("no error-line search:\n{}", p.text));
    assert!(search.purpose.contains("(4 lines"), "{}", search.purpose);
}

#[test]
fn pytest_keeps_the_e_lines_that_carry_the_exception() {
    for name in ["pytest_failure.log", "pytest_failure_color.log"] {
        let (text, p) = process(name);
        assert!(p.truncated, "{name}");
        let middle = kept_between(&text, &p, 1, p.original.lines);
        for want in [
            "E       AssertionError: assert 2 == (2 + 7 == 7)",
            "E           json.decoder.JSONDecodeError: Expecting ':' delimiter",
            "E       AssertionError: assert Decimal('8.49') == 8.49",
            "E           KeyError: 'c-3'",
        ] {
            assert!(
                middle.iter().any(|l| l.contains(want) && !text.is_empty()),
                "{name}: {want} not kept: {middle:#?}"
            );
        }
    }
}

/// Every shell fixture, coloured or not: the suggested grep, run in bash on the
/// same output, prints as many lines and chars as its comment says.
#[test]
fn the_suggested_grep_finds_the_lines_counted() {
    let mut checked = 0;
    let mut coloured = 0;
    for entry in std::fs::read_dir(fixture("")).expect("fixtures/shell") {
        let name = entry
            .expect("dir entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if !name.ends_with(".log") {
            continue;
        }
        let (text, p) = process(&name);
        let Some(grep) = p
            .suggestions
            .iter()
            .find(|s| s.purpose.contains("error lines with their line numbers"))
        else {
            continue;
        };
        let cmd = grep.args["command"].as_str().expect("a command");
        if text.contains('\x1b') {
            coloured += 1;
            assert!(
                cmd.contains("sed 's|"),
                "{name}: colour not stripped: {cmd}"
            );
        }
        let out = Command::new("bash")
            .arg("-c")
            .arg(cmd)
            .output()
            .expect("bash runs");
        let printed = String::from_utf8_lossy(&out.stdout).into_owned();
        let found = printed
            .lines()
            .filter(|l| {
                l.split(':')
                    .next()
                    .is_some_and(|n| n.parse::<usize>().is_ok())
            })
            .count();
        // what the comment says: `(22 lines, 1,806 chars)`, or `(the first
        // 30 of 41, 3,100 chars)` when the lines do not all fit
        let said = |re: &str| {
            regex::Regex::new(re)
                .expect("regex")
                .captures(&grep.purpose)
                .map(|c| {
                    (1..c.len())
                        .map(|i| c[i].replace(',', "").parse::<usize>().expect("a number"))
                        .collect::<Vec<usize>>()
                })
        };
        // `(the first 30 of 41, 3,100 chars)`, `(the first 52, 3,136 chars)`
        // (the rest not counted), or `(22 lines, 1,806 chars)`
        let (shown, all, chars) = match said(r"\(the first ([\d,]+) of ([\d,]+), ([\d,]+) chars") {
            Some(v) => (v[0], Some(v[1]), v[2]),
            None => match said(r"\(the first ([\d,]+), ([\d,]+) chars") {
                Some(v) => (v[0], None, v[1]),
                None => {
                    let v = said(r"\(([\d,]+) lines?, ([\d,]+) chars?")
                        .unwrap_or_else(|| panic!("{name}: no count in {}", grep.purpose));
                    (v[0], Some(v[0]), v[1])
                }
            },
        };
        assert_eq!(found, shown, "{name}: {cmd}");
        assert_eq!(printed.chars().count(), chars, "{name}: {cmd}");
        assert!(chars <= 3150, "{name}: {chars} chars");
        if shown < all.unwrap_or(usize::MAX) {
            // a `head -n K`: one more line would not have fit
            let more = cmd.replace(
                &format!("| head -n {shown}"),
                &format!("| head -n {}", shown + 1),
            );
            let out = Command::new("bash")
                .arg("-c")
                .arg(&more)
                .output()
                .expect("bash runs");
            assert!(out.stdout.len() > chars, "{name}: {more}");
            assert!(
                String::from_utf8_lossy(&out.stdout).chars().count() > 3150,
                "{name}: line {} would fit too",
                shown + 1
            );
        }
        checked += 1;
    }
    assert!(
        checked >= 5 && coloured >= 2,
        "{checked} checked, {coloured} coloured"
    );
}
