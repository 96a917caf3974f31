//! Tests of line ranges and search over stored results.

use serde_json::json;

use super::*;
use crate::{MemoryStore, Record};

fn store_with(output: &str) -> MemoryStore {
    let s = MemoryStore::new();
    s.put(&Record::new(
        "d",
        "c1",
        "bash",
        &json!({"command": "make"}),
        output,
    ))
    .expect("put");
    s
}

fn log() -> String {
    (1..=50)
        .map(|i| {
            if i % 10 == 0 {
                format!("line {i} ERROR failed to open /tmp/x{i}\n")
            } else {
                format!("line {i} ok\n")
            }
        })
        .collect()
}

#[test]
fn lines_come_back_whole_with_the_next_start_line() {
    let s = store_with(&log());
    // a range served whole: its lines and nothing else, as `sed -n '3,5p'` prints them
    let r = get_lines(&s, "d", "c1", 3, Some(5), 2000).expect("lines");
    assert_eq!(r.text, "line 3 ok\nline 4 ok\nline 5 ok\n");
    // no end asked for: where it stopped and where to read on
    let r = get_lines(&s, "d", "c1", 3, None, 30).expect("lines");
    assert_eq!(
        r.text,
        "line 3 ok\nline 4 ok\nline 5 ok\n\n[showing lines 3-5 of 50. Call get_continuation with tool_call_id=\"c1\" start_line=6 to read on]"
    );
    // stopped before the end asked for: the same
    let r = get_lines(&s, "d", "c1", 3, Some(9), 30).expect("lines");
    assert!(r.text.ends_with("\n\n[showing lines 3-5 of 50. Call get_continuation with tool_call_id=\"c1\" start_line=6 to read on]"), "{}", r.text);
    // the last lines: no marker
    let r = get_lines(&s, "d", "c1", 49, None, 2000).expect("lines");
    assert_eq!(
        r.text,
        "line 49 ok\nline 50 ERROR failed to open /tmp/x50\n"
    );
}

#[test]
fn a_chunk_holds_whole_lines_up_to_its_size() {
    let s = store_with(&log());
    // "line 1 ok\n" .. "line 9 ok\n" are 10 chars each
    let r = get_lines(&s, "d", "c1", 1, None, 25).expect("lines");
    assert!(
        r.text
            .starts_with("line 1 ok\nline 2 ok\n\n[showing lines 1-2 of 50."),
        "{}",
        r.text
    );
}

#[test]
fn a_line_range_reply_fills_its_budget_and_never_passes_it() {
    // 400 lines of 0-119 chars, then one of 9,000
    let mut out = String::new();
    for i in 0..400 {
        out.push_str(&"x".repeat(i * 37 % 120));
        out.push('\n');
    }
    out.push_str(&"y".repeat(9000));
    out.push('\n');
    let s = store_with(&out);
    let widths: Vec<usize> = out.lines().map(count_chars).collect();
    for budget in [300, 1000, 2000, 3500] {
        for start in [1, 57, 390, 401] {
            let r = get_line_range(&s, "d", "c1", start, None, budget).expect("lines");
            let len = count_chars(&r.text);
            assert!(len <= budget, "start {start}, budget {budget}: {len} chars");
            // no room left for the next whole line
            let shown = r.text.lines().take_while(|l| !l.starts_with('[')).count();
            let lines: usize = widths[start - 1..start - 1 + shown.min(401 - start + 1)]
                .iter()
                .map(|w| w + 1)
                .sum();
            if start + shown <= 401 && start < 401 {
                let next = widths[start - 1 + shown] + 1;
                assert!(
                    lines + next + reply_reserve("c1", &s.meta("d", "c1").expect("m").expect("m"))
                        > budget,
                    "start {start}, budget {budget}: line {} would still fit",
                    start + shown
                );
            }
        }
    }
    // a range of about 2,500 chars comes back in one reply, where a 2,000-char
    // chunk needs two
    let r = get_line_range(&s, "d", "c1", 1, Some(45), DEFAULT_REPLY_CHARS).expect("r");
    let chars: usize = widths[..45].iter().map(|w| w + 1).sum();
    assert!((2000..3000).contains(&chars), "{chars}");
    assert!(!r.text.contains("[showing lines"), "{}", r.text);
    assert_eq!(r.text.lines().count(), 45, "{}", r.text);
    let chunked = get_lines(&s, "d", "c1", 1, Some(45), 2000).expect("r");
    assert!(!chunked.text.contains("[showing lines 1-45 of"));
}

#[test]
fn bad_line_ranges_are_errors_the_model_can_act_on() {
    let s = store_with(&log());
    assert!(get_lines(&s, "d", "c1", 0, None, 100).expect("r").is_error);
    assert!(
        get_lines(&s, "d", "c1", 5, Some(4), 100)
            .expect("r")
            .is_error
    );
    let past = get_lines(&s, "d", "c1", 51, None, 100).expect("r");
    assert!(
        past.text
            .contains("past the last line of the result (50 lines)")
    );
    let missing = get_lines(&s, "d", "nope", 1, None, 100).expect("r");
    assert!(missing.text.contains("No cached result"));
}

#[test]
fn search_counts_every_match_and_shows_context() {
    let s = store_with(&log());
    let r = search_tool_output(&s, "d", "c1", "ERROR", &SearchOptions::default()).expect("search");
    let want = "5 of 50 lines match \"ERROR\"; showing all (lines 10-50):\n\
                9- line 9 ok\n10: line 10 ERROR failed to open /tmp/x10\n11- line 11 ok\n--\n\
                19- line 19 ok\n20: line 20 ERROR failed to open /tmp/x20\n21- line 21 ok\n--\n\
                29- line 29 ok\n30: line 30 ERROR failed to open /tmp/x30\n31- line 31 ok\n--\n\
                39- line 39 ok\n40: line 40 ERROR failed to open /tmp/x40\n41- line 41 ok\n--\n\
                49- line 49 ok\n50: line 50 ERROR failed to open /tmp/x50\n";
    assert_eq!(r.text, want);
}

#[test]
fn search_pages_through_many_matches() {
    let s = store_with(&log());
    let opts = SearchOptions {
        context: 0,
        max_matches: 2,
        skip: 0,
        ignore_case: true,
        from_end: false,
    };
    let r = search_tool_output(&s, "d", "c1", "error", &opts).expect("search");
    assert_eq!(
        r.text,
        "5 of 50 lines match \"error\"; showing 2 of them (lines 10-20):\n\
         10: line 10 ERROR failed to open /tmp/x10\n--\n20: line 20 ERROR failed to open /tmp/x20\n\
         [3 more matching lines. Call search_tool_output with tool_call_id=\"c1\" pattern=\"error\" skip=2 to see them]\n"
    );
    let r = search_tool_output(&s, "d", "c1", "error", &SearchOptions { skip: 4, ..opts })
        .expect("search");
    assert!(
        r.text
            .starts_with("5 of 50 lines match \"error\"; showing 1 of them (line 50):\n50: ")
    );
}

#[test]
fn search_shows_as_many_matches_as_fit_in_one_reply() {
    // 300 lines, every third an error line
    let out: String = (1..=300)
        .map(|i| {
            if i % 3 == 0 {
                format!("step {i}: error: cannot open /srv/data/{i}.bin\n")
            } else {
                format!("step {i}: ok\n")
            }
        })
        .collect();
    let s = store_with(&out);
    let opts = SearchOptions::default();
    // 22 matches that fit are all shown (the fixed default would show 20)
    let few = store_with(
        &out.lines()
            .take(66)
            .map(|l| format!("{l}\n"))
            .collect::<String>(),
    );
    let r = search_within(&few, "d", "c1", "error", &opts, DEFAULT_REPLY_CHARS).expect("s");
    assert!(
        r.text
            .starts_with("22 of 66 lines match \"error\"; showing all (lines 3-66):\n"),
        "{}",
        r.text
    );
    for budget in [200, 1000, DEFAULT_REPLY_CHARS] {
        let r = search_within(&s, "d", "c1", "error", &opts, budget).expect("s");
        let len = count_chars(&r.text);
        let shown = r.text.lines().filter(|l| l.contains(": error")).count();
        assert!(shown >= 1);
        assert!(len <= budget || shown == 1, "budget {budget}: {len} chars");
        // one more match would not have fit
        let more = search_tool_output(
            &s,
            "d",
            "c1",
            "error",
            &SearchOptions {
                max_matches: shown + 1,
                ..opts.clone()
            },
        )
        .expect("s");
        assert!(
            count_chars(&more.text) > budget,
            "budget {budget}: {shown} shown"
        );
        assert!(
            r.text.contains(&format!("skip={shown} to see them]")),
            "{}",
            r.text
        );
    }
}

#[test]
fn search_reads_across_pieces_and_long_lines_are_shortened() {
    let long = "x".repeat(1000);
    let s = store_with(&format!("a\n{long}needle\nb\nneedle é\n"));
    let opts = SearchOptions {
        context: 0,
        ..SearchOptions::default()
    };
    let r = search_tool_output(&s, "d", "c1", "needle", &opts).expect("search");
    assert!(
        r.text
            .contains(&format!("2: {}… [+706 chars]\n", "x".repeat(300)))
    );
    assert!(r.text.contains("4: needle é\n"));
    assert!(r.text.starts_with("2 of 4 lines match"));
}

#[test]
fn search_errors_name_the_fix() {
    let s = store_with(&log());
    let bad =
        search_tool_output(&s, "d", "c1", "_$Zod(", &SearchOptions::default()).expect("search");
    assert!(bad.is_error);
    assert!(bad.text.contains("escape regex characters"), "{}", bad.text);
    let none =
        search_tool_output(&s, "d", "c1", "panic", &SearchOptions::default()).expect("search");
    assert_eq!(
        none.text,
        "No line of the 50-line result matches \"panic\".\n"
    );
    let missing = search_tool_output(&s, "d", "x", "a", &SearchOptions::default()).expect("search");
    assert!(missing.text.contains("No cached result"));
}

/// A line longer than `LONG_LINE` is read by its start and counted: a line
/// range shows its first chars with its exact size, a search matches its start
/// and says so, and the lines after it keep their numbers.
#[test]
fn a_long_line_is_read_by_its_start_and_counted() {
    let long = format!("start {} end", "é".repeat(3 * LONG_LINE));
    let output = format!("one\n{long}\nthree start\n");
    let s = store_with(&output);
    let long_chars = long.chars().count();
    let r = get_lines(&s, "d", "c1", 2, None, 100).expect("read");
    assert!(
        r.text.starts_with(&format!("start {}", "é".repeat(94))),
        "{}",
        r.text
    );
    assert!(
        r.text.contains(&format!(
            "[line 2 has {} chars; only its first 100 are shown",
            thousands(long_chars)
        )),
        "{}",
        r.text
    );
    let Search::Found(f) =
        search(&s, "d", "c1", "start", &SearchOptions::default()).expect("search")
    else {
        panic!("not found");
    };
    assert_eq!((f.total_lines, f.total_matches, f.long_lines), (3, 2, 1));
    let l2 = f.lines.iter().find(|l| l.line == 2).expect("line 2");
    assert_eq!(l2.omitted_chars, long_chars - SEARCH_LINE_CHARS);
    // its end is past what a reader holds: not matched, and the reply says why
    let r = search_tool_output(&s, "d", "c1", "end$", &SearchOptions::default()).expect("search");
    assert!(
        r.text.starts_with("No line of the 3-line result matches"),
        "{}",
        r.text
    );
    assert!(r.text.contains("1 line is longer than 1,048,576 bytes: each was matched against its first 1,048,576 bytes only"), "{}", r.text);
}

#[test]
fn search_from_end_shows_the_last_error_of_a_real_log() {
    // tsc's colour output: the last error is found by its text without colour codes
    let log = toolcap_testkit::fixture("shell/tsc_errors.log");
    let s = store_with(log);
    let pattern = r"error TS\d+:";
    let re = regex::Regex::new(pattern).expect("re");
    let matching: Vec<(usize, String)> = log
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, crate::cut::clean::clean_line(l).0))
        .filter(|(_, l)| re.is_match(l))
        .collect();
    assert!(matching.len() > 10, "{} errors", matching.len());
    let (last, text) = matching.last().expect("a match");
    let opts = SearchOptions {
        context: 0,
        max_matches: 1,
        from_end: true,
        ..SearchOptions::default()
    };
    let r = search_tool_output(&s, "d", "c1", pattern, &opts).expect("search");
    assert_eq!(
        r.text,
        format!(
            "{} of {} lines match \"error TS\\\\d+:\"; showing the last 1 (line {last}):\n\
             {last}: {text}\n\
             [{} earlier matching lines. Call search_tool_output with tool_call_id=\"c1\" pattern=\"error TS\\\\d+:\" from_end=true skip=1 to see them]\n",
            matching.len(),
            log.lines().count(),
            matching.len() - 1
        )
    );
    // the page before it: the matches before the last, from the end
    let r = search_tool_output(
        &s,
        "d",
        "c1",
        pattern,
        &SearchOptions {
            skip: 1,
            max_matches: 2,
            ..opts
        },
    )
    .expect("search");
    let (a, b) = (
        matching[matching.len() - 3].0,
        matching[matching.len() - 2].0,
    );
    assert!(
        r.text.starts_with(&format!(
            "{} of {} lines match \"error TS\\\\d+:\"; showing 2 of them, before the last 1 (lines {a}-{b}):\n{a}: ",
            matching.len(),
            log.lines().count()
        )),
        "{}",
        r.text
    );
    assert!(
        r.text.ends_with("from_end=true skip=3 to see them]\n"),
        "{}",
        r.text
    );
    // past the first match
    let r = search_tool_output(
        &s,
        "d",
        "c1",
        pattern,
        &SearchOptions {
            skip: matching.len(),
            ..opts
        },
    )
    .expect("search");
    assert!(
        r.text.ends_with("is past the first of them.\n"),
        "{}",
        r.text
    );
}

#[test]
fn search_from_end_shows_what_the_same_page_from_the_start_shows() {
    // (context lines around matches that are near each other, matches next to each other)
    let out: String = (1..=120)
        .map(|i| match i % 7 {
            0 | 1 => format!("{i} error here\n"),
            3 => format!("{i} warning\n"),
            _ => format!("{i} fine\n"),
        })
        .collect();
    let s = store_with(&out);
    let total = out.lines().filter(|l| l.contains("error")).count();
    for context in 0..=3 {
        for (skip, max) in [(0, 1), (0, 5), (3, 4), (7, 30), (0, 100)] {
            let back = search(
                &s,
                "d",
                "c1",
                "error",
                &SearchOptions {
                    context,
                    max_matches: max,
                    skip,
                    ignore_case: false,
                    from_end: true,
                },
            )
            .expect("search");
            let first = total.saturating_sub(skip + max);
            let fwd = search(
                &s,
                "d",
                "c1",
                "error",
                &SearchOptions {
                    context,
                    max_matches: (total - skip).min(max),
                    skip: first,
                    ignore_case: false,
                    from_end: false,
                },
            )
            .expect("search");
            let (Search::Found(back), Search::Found(fwd)) = (back, fwd) else {
                panic!("not found");
            };
            assert_eq!(
                back.lines, fwd.lines,
                "context {context} skip {skip} max {max}"
            );
            assert_eq!(back.shown_matches, fwd.shown_matches);
            assert_eq!(
                back.next_skip,
                (first > 0).then_some(skip + back.shown_matches)
            );
        }
    }
}

#[test]
fn search_from_end_fits_the_last_matches_in_one_reply() {
    let out: String = (1..=300)
        .map(|i| {
            if i % 3 == 0 {
                format!("step {i}: error: cannot open /srv/data/{i}.bin\n")
            } else {
                format!("step {i}: ok\n")
            }
        })
        .collect();
    let s = store_with(&out);
    let opts = SearchOptions {
        from_end: true,
        ..SearchOptions::default()
    };
    let r = search_within(&s, "d", "c1", "error", &opts, 1000).expect("s");
    assert!(count_chars(&r.text) <= 1000, "{}", r.text);
    let shown: Vec<&str> = r.text.lines().filter(|l| l.contains(": error")).collect();
    assert!(shown.len() > 1, "{}", r.text);
    // the last ones, ending with the last line's error, then where the earlier ones are
    assert!(
        shown
            .last()
            .is_some_and(|l| l.starts_with("300: step 300: error")),
        "{}",
        r.text
    );
    assert!(
        r.text.ends_with(&format!(
            "earlier matching lines. Call search_tool_output with tool_call_id=\"c1\" pattern=\"error\" from_end=true skip={} to see them]\n",
            shown.len()
        )),
        "{}",
        r.text
    );
}
