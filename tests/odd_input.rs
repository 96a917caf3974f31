//! Binary and odd results: binary data is summarised, not cut; a 50 MB single
//! line, an empty result, only newlines, mixed CRLF/LF and a byte-order mark each
//! come out right; toolcap's own output is never cut again, and text that only
//! looks like it is.

use assert_cmd::Command;
use serde_json::{Value, json};
use toolcap::{Config, Reason, ToolResultProcessor};

fn processor() -> ToolResultProcessor {
    ToolResultProcessor::new(Config::defaults())
}

fn png() -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\x01\0\0\0\x01\0\x08\x06\0\0\0".to_vec();
    b.extend(b"\0\0\0\x29tEXtSoftware\0toolcap test image generator\0\0\0\0");
    b.extend((0..20_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8));
    b
}

#[test]
fn a_png_is_summarised_with_its_type_and_size_not_cut() {
    let bytes = png();
    let text = String::from_utf8_lossy(&bytes);
    let out = processor().process("read_file", &text, &json!({"path": "logo.png"}));
    assert_eq!(out.reason, Reason::Binary);
    assert!(out.truncated && out.kept.is_empty());
    assert_eq!(out.omitted.chars, text.chars().count());
    let first = out.text.lines().next().expect("marker line");
    assert!(first.starts_with("[... binary result omitted: "), "{first}");
    assert!(first.contains("looks like: PNG image"), "{first}");
    assert!(first.contains(&toolcap_text::text::thousands(text.chars().count())));
    // none of the data reaches the model: no NUL, no replacement characters
    assert!(!out.text.contains('\0') && !out.text.contains('\u{FFFD}'));
    assert!(
        out.text.contains("\"toolcap test image generator\""),
        "{}",
        out.text
    );
    let cmds: Vec<&str> = out
        .suggestions
        .iter()
        .filter_map(|s| s.args["command"].as_str())
        .collect();
    assert_eq!(
        cmds,
        [
            "od -A d -t x1z -N 512 logo.png | head -n 40",
            "grep -a -o -E '[[:print:]]{8,}' logo.png | head -n 100"
        ]
    );
    // the suggested commands run and show the real bytes
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("logo.png"), &bytes).expect("write");
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(cmds[0])
        .current_dir(dir.path())
        .output()
        .expect("bash");
    assert!(String::from_utf8_lossy(&out.stdout).contains("89 50 4e 47"));
}

#[test]
fn nul_bytes_in_a_command_output_make_it_binary() {
    let text = "record\0with\0nuls\n".repeat(1_000);
    let out = processor().process("shell", &text, &json!({"command": "cat data.bin"}));
    assert_eq!(out.reason, Reason::Binary);
    assert!(out.text.contains("NUL chars"), "{}", out.text);
    assert!(
        out.text
            .contains("shell(command=\"cat data.bin 2>&1 | od -A d -t x1z -N 512 | head -n 40\")")
    );
    // a log that merely has a few odd characters is still text
    let log: String = (0..1_000)
        .map(|i| format!("step {i} ok \u{FFFD}\u{1b}[32m✓\u{1b}[0m\n"))
        .collect();
    let out = processor().process("shell", &log, &json!({"command": "make"}));
    assert_eq!(out.reason, Reason::Cut);
}

#[test]
fn the_cli_summarises_a_binary_file_and_writes_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("logo.png");
    std::fs::write(&f, png()).expect("write");
    let out = Command::cargo_bin("toolcap")
        .expect("binary")
        .env_remove("TOOLCAP_CONFIG")
        .arg("preview")
        .arg(&f)
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).expect("UTF-8 output");
    assert!(stdout.contains("looks like: PNG image"));
    assert!(!stdout.contains('\0'));
}

#[test]
fn a_50_mb_single_line_is_cut_on_a_char_boundary() {
    // (its time is a benchmark's: `process_one_line/50` in benches/toolcap.rs)
    let line = "é".repeat(25 * 1024 * 1024); // 50 MiB of two-byte chars, no newline
    let out = processor().process("read_file", &line, &json!({"path": "big.txt"}));
    assert_eq!(out.reason, Reason::Cut);
    assert_eq!(out.original.lines, 1);
    assert_eq!(out.original.bytes, 50 * 1024 * 1024);
    assert_eq!(out.kept.len(), 1);
    assert!(out.kept[0].partial);
    assert_eq!(out.kept[0].chars, 2000);
    assert!(out.text.starts_with(&"é".repeat(2000)));
    assert!(
        out.text.contains(&format!(
            "[... 26,212,400 chars omitted (line 1 cut after char 2,000 of {}) ...]",
            toolcap_text::text::thousands(25 * 1024 * 1024)
        )),
        "{}",
        &out.text[4000..4400]
    );
    // paging by bytes starts right after the kept part
    assert!(
        out.text
            .contains("shell(command=\"tail -c +4001 big.txt | head -c 6300\")  # the next 3,150 chars after the cut"),
        "{}",
        &out.text[4000..]
    );
    // and shell output of one huge line keeps its start and its end
    let out = processor().process("shell", &line, &json!({"command": "cat big.txt"}));
    assert_eq!(out.kept.len(), 2);
    assert!(out.kept.iter().map(|k| k.chars).sum::<usize>() <= 2000);
    assert!(out.text.starts_with('é'));
}

#[test]
fn an_empty_result_passes_through() {
    for tool in ["read_file", "shell", "grep", "web_fetch", "mcp__x"] {
        let out = processor().process(tool, "", &json!({}));
        assert_eq!(out.reason, Reason::UnderThreshold);
        assert_eq!(out.text, "");
        assert_eq!(out.original.lines, 0);
    }
    Command::cargo_bin("toolcap")
        .expect("binary")
        .env_remove("TOOLCAP_CONFIG")
        .args(["process", "--tool", "shell"])
        .write_stdin("")
        .assert()
        .success()
        .stdout("");
}

#[test]
fn only_newlines_are_counted_as_lines() {
    let text = "\n".repeat(10_000);
    let out = processor().process("read_file", &text, &json!({"path": "blank.txt"}));
    assert_eq!(out.reason, Reason::Cut);
    assert_eq!(out.original.lines, 10_000);
    assert_eq!(out.kept[0].end_line, 2_000);
    assert!(out.text.starts_with(&"\n".repeat(2_000)));
    assert!(
        out.text
            .contains("[... 8,000 chars, 8,000 lines omitted (lines 2001-10000 of 10000) ...]")
    );
    // the next range is as long as comes back whole from the shell tool
    assert!(out.text.contains(
        "shell(command=\"sed -n '2001,5150p' blank.txt\")  # next 3,150 lines, 3,150 chars"
    ));
}

#[test]
fn mixed_crlf_and_lf_lines_are_kept_byte_for_byte() {
    let text: String = (1..=1_000)
        .map(|i| {
            if i % 2 == 0 {
                format!("line {i:04}\r\n")
            } else {
                format!("line {i:04}\n")
            }
        })
        .collect();
    let out = processor().process("read_file", &text, &json!({"path": "mixed.txt"}));
    assert_eq!(out.original.lines, 1_000);
    let end = out.kept[0].end_line;
    let kept: String = text.split_inclusive('\n').take(end).collect();
    assert!(kept.chars().count() <= 2000);
    assert!(out.text.starts_with(&kept));
    let next: String = text
        .split_inclusive('\n')
        .nth(end)
        .expect("next line")
        .into();
    assert!(!out.text.contains(&next));
    // the next range, sized to the shell tool's budget: its size is exact
    let next_end = (end + 1..=1_000)
        .take_while(|&n| {
            text.split_inclusive('\n')
                .skip(end)
                .take(n - end)
                .map(|l| l.chars().count())
                .sum::<usize>()
                <= 3_150
        })
        .last()
        .expect("a range");
    assert!(
        out.text
            .contains(&format!("sed -n '{},{next_end}p' mixed.txt", end + 1)),
        "{}",
        out.text
    );
}

#[test]
fn a_byte_order_mark_is_kept_and_does_not_hide_the_language() {
    let text = format!(
        "\u{feff}{}",
        (0..300)
            .map(|i| format!("def handler_{i}(x):\n    return x\n\n"))
            .collect::<String>()
    );
    let out = processor().process("read_file", &text, &json!({"path": "bom.py"}));
    assert_eq!(out.reason, Reason::Cut);
    assert!(out.text.starts_with("\u{feff}def handler_0(x):\n"));
    assert_eq!(out.original.chars, text.chars().count());
    assert_eq!(out.language.as_deref(), Some("python"));
    let outline = out.outline.expect("outline");
    assert_eq!(outline.symbols.len(), 300);
    assert_eq!(outline.symbols[0].line, 1);
}

#[test]
fn a_cleaned_result_is_not_cut_when_processed_again() {
    // distinct lines plus runs of identical lines: over the threshold, under it
    // once the runs are collapsed, and over it again with the cleaning note
    let p = processor();
    let args = json!({"command": "make"});
    let mut found = 0;
    for n in 90..140 {
        let mut text = String::new();
        for i in 0..n {
            text.push_str(&format!("compiling unit {i:03} ok......\n"));
            if i % 10 == 0 {
                text.push_str(&"waiting for lock\n".repeat(20));
            }
        }
        let out = p.process("shell", &text, &args);
        if out.reason != Reason::Cleaned || out.text.chars().count() <= 3500 {
            continue;
        }
        found += 1;
        let again = p.process("shell", &out.text, &args);
        assert_eq!(again.reason, Reason::AlreadyCut);
        assert_eq!(again.text, out.text);
    }
    assert!(
        found > 0,
        "no case where the note takes a cleaned result over"
    );
}

#[test]
fn a_huge_result_that_only_looks_processed_is_still_cut() {
    let text = format!(
        "[... 3 chars omitted (line 1 of 1) ...]\n\n--- Recovery Options ---\n{}",
        (0..50_000)
            .map(|i| format!("data line {i}\n"))
            .collect::<String>()
    );
    let out = processor().process("shell", &text, &json!({"command": "cat x"}));
    assert_eq!(out.reason, Reason::Cut);
    assert!(out.text.chars().count() < 2000 + 4000 + 1000);
}

#[test]
fn json_reports_of_binary_results_count_everything_as_omitted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("a.out");
    let mut elf = b"\x7fELF\x02\x01\x01\0".to_vec();
    elf.extend(std::iter::repeat_n(0u8, 5000));
    std::fs::write(&f, &elf).expect("write");
    let out = Command::cargo_bin("toolcap")
        .expect("binary")
        .env_remove("TOOLCAP_CONFIG")
        .arg("preview")
        .arg(&f)
        .arg("--json")
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).expect("JSON");
    assert_eq!(v["reason"], "binary");
    assert_eq!(v["truncated"], true);
    assert_eq!(v["language"], "binary");
    assert_eq!(v["omitted"]["chars"], v["original"]["chars"]);
    assert!(
        v["text"]
            .as_str()
            .expect("text")
            .contains("ELF executable or library")
    );
}

#[test]
fn many_isolated_error_lines_cost_few_markers() {
    // an error line every fourth line: each kept one would need its own marker
    let text: String = (0..3000)
        .map(|i| {
            if i % 4 == 0 {
                "FAIL\n".to_string()
            } else {
                format!("filler line number {i}\n")
            }
        })
        .collect();
    let out = processor().process("shell", &text, &json!({"command": "make"}));
    // omission markers of the cut (not the recovery section's own note)
    let body = out
        .text
        .split("--- Recovery Options ---")
        .next()
        .unwrap_or("");
    let markers = body.lines().filter(|l| l.starts_with("[... ")).count();
    assert!(markers <= toolcap_cut::shape::MAX_GAPS, "{markers} markers");
    // error lines are kept, each placed exactly by the runs of filler lines
    // around it (shown as one line with their range) or by a marker
    assert!(
        body.lines().filter(|l| *l == "FAIL").count() >= 8,
        "{}",
        out.text
    );
    assert!(
        body.contains("filler line number *  (×3, lines 2-4)\nFAIL\n"),
        "{}",
        out.text
    );
    // kept + markers + recovery stay near the budget, not four times over it
    assert!(
        out.text.chars().count() < 2000 + 1000 + 1200,
        "{}",
        out.text.len()
    );
}

#[test]
fn a_streamed_binary_result_gets_the_same_summary_as_in_memory() {
    let mut bytes = Vec::new();
    while bytes.len() < 300_000 {
        bytes.extend(png());
    }
    let p = processor();
    let args = json!({"command": "cat logo.png"});
    let call = toolcap::ToolCall::new("shell", &args);
    let (streamed, raw) = p.process_stream(&call, &bytes[..]).expect("reads");
    assert!(raw.is_none());
    let mem = p.process_call(&call, &String::from_utf8_lossy(&bytes));
    assert_eq!(streamed.reason, Reason::Binary);
    assert_eq!(streamed.text, mem.text);
    // `original.bytes` differs: the scanner counts the bytes read, the in-memory
    // path the bytes of the text after lossy decoding (every other field agrees)
    let (mut a, mut b) = (
        serde_json::to_value(&streamed).expect("report"),
        serde_json::to_value(&mem).expect("report"),
    );
    a["original"]["bytes"] = Value::Null;
    b["original"]["bytes"] = Value::Null;
    assert_eq!(a, b);
}

#[test]
fn a_streamed_processed_result_is_not_cut_again() {
    // a large log full of four-byte characters: its cut output is several KB
    let text: String = (0..20_000)
        .map(|i| format!("{i} 𝄞𝄞𝄞𝄞𝄞𝄞𝄞𝄞 error 𝄞𝄞𝄞 done\n"))
        .collect();
    let p = processor();
    // a long command of four-byte characters, repeated in the suggestions
    let args = json!({"command": format!("echo {}", "𝄞".repeat(600))});
    let call = toolcap::ToolCall::new("shell", &args);
    let once = p.process_call(&call, &text);
    assert_eq!(once.reason, Reason::Cut);
    // (within 3,500 chars since kept part + recovery fit the threshold, but
    // more bytes than that)
    assert!(once.text.len() > 3500, "{} bytes", once.text.len());
    let (again, _) = p
        .process_stream(&call, once.text.as_bytes())
        .expect("reads");
    assert_eq!(again.text, once.text);
}
