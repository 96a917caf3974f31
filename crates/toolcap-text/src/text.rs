//! Plain-text helpers every stage shares: counting characters and finding
//! their byte offsets, formatting counts for the model, and compiling the
//! patterns written in the source. A leaf module: it uses nothing else of the
//! crate.

/// A regex written in the source (a `static` behind a `LazyLock`). The one place
/// a pattern's compile error becomes a panic: the patterns are constants, and
/// every one of them is compiled by the tests, so a bad one fails the tests,
/// never a user (`clippy::expect_used` is denied everywhere else).
#[allow(
    clippy::expect_used,
    reason = "a constant pattern, compiled by the tests"
)]
pub fn static_regex(pattern: &str) -> regex::Regex {
    regex::Regex::new(pattern).expect("a pattern written in the source compiles")
}

/// Count Unicode scalar values in a UTF-8 string (bytes that are not continuation bytes).
pub fn count_chars(s: &str) -> usize {
    count_char_starts(s.as_bytes())
}

/// Count UTF-8 character starts in a byte slice (safe on any slice boundary).
pub fn count_char_starts(b: &[u8]) -> usize {
    // counted in byte-wide lanes, 255 bytes at a time (no lane overflows), which
    // the compiler turns into vector code: about 7× `filter().count()`
    b.chunks(255)
        .map(|chunk| {
            let starts = chunk.iter().fold(0u8, |n, &x| {
                n.wrapping_add(u8::from(i8::from_ne_bytes([x]) >= -64))
            });
            usize::from(starts)
        })
        .sum()
}

/// Byte offset of the `n`-th character of `s` (or `s.len()` past the end).
/// Counts whole blocks of bytes at a time, so seeking far into a large text is
/// fast.
pub fn byte_of_char(s: &str, n: usize) -> usize {
    const BLOCK: usize = 4096;
    let b = s.as_bytes();
    let (mut i, mut seen) = (0, 0);
    while i + BLOCK <= b.len() {
        let c = count_char_starts(&b[i..i + BLOCK]);
        if seen + c > n {
            break;
        }
        seen += c;
        i += BLOCK;
    }
    // the rest byte by byte (a block may have ended inside a character: its
    // continuation bytes are skipped, its start was counted)
    for (j, &byte) in b.iter().enumerate().skip(i) {
        if (byte & 0xC0) != 0x80 {
            if seen == n {
                return j;
            }
            seen += 1;
        }
    }
    b.len()
}

/// Byte offset where the last `n` characters of `s` start.
pub fn byte_of_last_chars(s: &str, n: usize) -> usize {
    if n == 0 {
        return s.len();
    }
    s.char_indices().rev().nth(n - 1).map_or(0, |(i, _)| i)
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `1 line` / `3,520 lines`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

/// Shorten a display string (never a command argument) to `max` chars.
pub fn ellipsize(s: &str, max: usize) -> String {
    let s = s.trim();
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// Parse an age like `7d`, `12h`, `30m`, `45s`, `2w` (a number and one unit).
pub fn parse_age(s: &str) -> Option<std::time::Duration> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit())?;
    let (num, unit) = s.split_at(split);
    let n: u64 = num.parse().ok()?;
    let secs = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => return None,
    };
    n.checked_mul(secs).map(std::time::Duration::from_secs)
}

/// An age in milliseconds in the largest unit (days at most) that divides it
/// (`7d`, `90m`, `1500ms`): the form `parse_age` reads.
pub fn format_age_ms(ms: i64) -> String {
    const UNITS: [(i64, &str); 4] = [
        (86_400_000, "d"),
        (3_600_000, "h"),
        (60_000, "m"),
        (1000, "s"),
    ];
    for (size, unit) in UNITS {
        if ms >= size && ms % size == 0 {
            return format!("{}{unit}", ms / size);
        }
    }
    format!("{ms}ms")
}
