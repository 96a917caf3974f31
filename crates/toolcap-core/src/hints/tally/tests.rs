use super::*;
use crate::cut::scan::{Bounds, Scanner};

static E: LazyLock<Regex> = LazyLock::new(|| Regex::new("error").unwrap());

#[test]
fn pieces_or_whole_give_the_same_tally() {
    let text: String = (1..=500)
        .map(|i| {
            if i % 7 == 0 {
                format!("\x1b[31merr\x1b[0mor at {i} é\r\n")
            } else if i % 5 == 0 {
                format!("error {i}\n")
            } else {
                format!("line {i} {}\n", "x".repeat(i % 13))
            }
        })
        .collect::<String>()
        + "last";
    let whole = LineTally::of(&text, 300, &E, true);
    for (step, all) in [1, 7, 64, 1000]
        .into_iter()
        .flat_map(|s| [(s, true), (s, false)])
    {
        let whole = LineTally::of(&text, 300, &E, all);
        let mut t = LineTally::new(300, &E, all);
        let mut i = 0;
        while i < text.len() {
            let mut j = (i + step).min(text.len());
            while !text.is_char_boundary(j) {
                j += 1;
            }
            t.feed(&text[i..j]);
            i = j;
        }
        t.finish();
        assert_eq!(t.raw, whole.raw);
        assert_eq!(t.stripped, whole.stripped);
        assert_eq!(t.raw.complete, all);
        for b in [10, 100, 299] {
            assert_eq!(
                t.tail_within(501, b),
                whole.tail_within(501, b),
                "{step} {b}"
            );
            assert_eq!(t.lines_within(3, 501, b), whole.lines_within(3, 501, b));
        }
    }
    assert_eq!(whole.raw.count, 86);
    assert_eq!(whole.stripped.count, 157);
    // the last lines, counted by hand
    assert_eq!(whole.tail_within(501, 4), Some((501, 4)));
    assert_eq!(whole.tail_within(501, 18), Some((500, 14)));
    // every matching line numbered as grep -n numbers it: sizes of the
    // first (`7:error at 7 é\r` is 17 chars with its line end)
    assert_eq!(whole.stripped.sizes[0], "5:error 5\n".chars().count());
    assert_eq!(
        whole.stripped.sizes[1],
        "7:error at 7 é\r\n".chars().count()
    );
    assert_eq!(whole.lines_within(1, 2, 100), Some((2, 19)));
}

/// The shell hints' tally fed by the scan (raw pieces, its lines handed over)
/// equals the tally of the lossy decoding of the whole input: invalid UTF-8,
/// `\r` ends, colour codes, lines split across pieces, giant lines, a last line
/// without its end, and both ways of counting.
#[test]
fn tally_from_the_scan_equals_the_tally_of_the_text() {
    static E: LazyLock<Regex> = LazyLock::new(|| Regex::new("error|Fatal").unwrap());
    let mut raw: Vec<u8> = Vec::new();
    for i in 1..=700usize {
        match i % 11 {
            0 => raw.extend_from_slice(format!("\x1b[31merr\x1b[0mor at {i} é\r\n").as_bytes()),
            3 => {
                raw.extend_from_slice(format!("error {i} ").as_bytes());
                raw.extend_from_slice(b"\xff\xfe bad\n");
            }
            5 => {
                raw.extend_from_slice(format!("Fatal {i} ").as_bytes());
                raw.extend_from_slice(b"\xe2\x82\n");
            }
            7 if i % 77 == 7 => {
                raw.extend_from_slice(b"giant ");
                raw.extend(std::iter::repeat_n(b'x', 3000));
                raw.extend_from_slice(b" error in the middle ");
                raw.extend(std::iter::repeat_n(b'y', 3000));
                raw.push(b'\n');
            }
            _ => raw.extend_from_slice(format!("line {i} {}\n", "z".repeat(i % 13)).as_bytes()),
        }
    }
    raw.extend_from_slice(b"last error \xf0\x9f");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let lines = text.split_inclusive('\n').count();
    let b = Bounds {
        head_bytes: 100,
        tail_bytes: 100,
        max_middle_lines: 10,
        giant_line: 1000,
        giant_keep: 100,
    };
    for limit in [20, 300, 5000] {
        for all in [true, false] {
            let whole = LineTally::of(&text, limit, &E, all);
            for step in [1, 7, 64, 1000, 5000, 1 << 20] {
                let t = LineTally::new(limit, &E, all);
                let mut t = t;
                let mut sc = Scanner::new(true, Some(b)).with_tally(&mut t);
                for piece in raw.chunks(step) {
                    sc.feed(piece);
                }
                sc.end_tally();
                drop(sc.finish());
                assert_eq!(t.raw, whole.raw, "{limit} {all} {step}");
                assert_eq!(t.stripped, whole.stripped, "{limit} {all} {step}");
                for budget in [1, 10, 19, 100, 299, 4999] {
                    if budget > limit {
                        continue;
                    }
                    assert_eq!(
                        t.tail_within(lines, budget),
                        whole.tail_within(lines, budget),
                        "{limit} {all} {step} {budget}"
                    );
                    for a in [1, 3, 40] {
                        assert_eq!(
                            t.lines_within(a, lines, budget),
                            whole.lines_within(a, lines, budget),
                            "{limit} {all} {step} {budget} {a}"
                        );
                    }
                }
            }
        }
    }
}
