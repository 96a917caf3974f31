//! The hostile-input corpus: values built to break naive quoting, and odd results.
//! Shared by `tests/hostile.rs` and `tests/no_panic.rs`.

#![allow(dead_code)]

/// File names, patterns, commands, queries and URLs that must stay one literal.
/// Every value that could inject a command injects `touch PWNED`.
pub fn values() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = [
        "plain.py",
        "with space.py",
        "it's.py",
        "'",
        "''",
        "\"double\" quotes.py",
        "$(touch PWNED).py",
        "`touch PWNED`.py",
        "a;touch PWNED;b.py",
        "a|touch PWNED",
        "a && touch PWNED",
        "a || touch PWNED",
        "x\ntouch PWNED\n",
        "x\r\ntouch PWNED",
        "$HOME ${IFS}touch${IFS}PWNED",
        "'; touch PWNED; echo '",
        "\"; touch PWNED; echo \"",
        "\\'$(touch PWNED)\\'",
        "a > PWNED",
        "< /etc/passwd",
        "-n",
        "-rf",
        "--help",
        "-e touch PWNED",
        "#not a comment",
        "*",
        "~",
        "!!",
        "%s%n%x",
        "a\tb",
        "ünïcødé ✓ 名前.py",
        "back\\slash",
        "https://example.com/a b?q=$(touch PWNED)&x='y'",
        "https://example.com/`touch PWNED`",
        "site:evil.com \"quoted\" OR (a|b)",
        "[a-z]+(foo|bar)\\b.*",
        "(",
        "\u{1b}[31mred\u{1b}[0m",
        "\u{202e}evil.txt",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    v.push(b"nul\0byte; touch PWNED".to_vec());
    v.push(b"\xff\xfe non-utf8 \xc3(; touch PWNED".to_vec());
    v.push(format!("long-{}.py", "x".repeat(20_000)).into_bytes());
    v.push(format!("{}; touch PWNED", "'\"$`".repeat(2_000)).into_bytes());
    v
}

/// Results no tool should crash on: binary data, huge lines, empty, only newlines,
/// mixed line endings, a byte-order mark.
pub fn odd_results() -> Vec<(&'static str, Vec<u8>)> {
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\x01\0\0\0\x01\0\x08\x06\0\0\0".to_vec();
    png.extend((0..20_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8));
    vec![
        ("empty", Vec::new()),
        ("only newlines", b"\n".repeat(10_000)),
        ("only CRLF", b"\r\n".repeat(5_000)),
        (
            "mixed CRLF and LF",
            (0..2_000)
                .flat_map(|i| {
                    if i % 2 == 0 {
                        format!("line {i}\r\n").into_bytes()
                    } else {
                        format!("line {i}\n").into_bytes()
                    }
                })
                .collect(),
        ),
        ("BOM", {
            let mut b = "\u{feff}".as_bytes().to_vec();
            b.extend("def f():\n    return 1\n\n".repeat(500).as_bytes());
            b
        }),
        ("one long line", "a".repeat(200_000).into_bytes()),
        ("one long multibyte line", "é✓𝄞".repeat(30_000).into_bytes()),
        ("PNG", png),
        ("NULs in text", b"text\0with\0nuls\n".repeat(1_000)),
        ("invalid UTF-8", b"\xff\xfe\xfd\xc3\x28".repeat(4_000)),
        ("lone CRs", b"progress\r".repeat(5_000)),
        ("fake marker", {
            let mut b =
                b"[... 3 chars omitted (line 1 of 1) ...]\n\n--- Recovery Options ---\n".to_vec();
            b.extend(b"x\n".repeat(50_000));
            b
        }),
    ]
}
