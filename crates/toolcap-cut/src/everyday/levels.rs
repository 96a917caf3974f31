//! Logs: the level of each line (`ERROR`, `WARN`, `INFO`, `DEBUG`, `TRACE`,
//! ...), counted with the first and last line of each. A line's level is the
//! first level word among its first 120 bytes: an upper-case word alone
//! (`2024-01-01T00:00:00Z DEBUG cargo::core`), or any case in brackets
//! (`[info]`), after `level=` (logfmt) or as a JSON `"level":"warn"`.

/// One level's lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Level {
    /// As the log writes it, upper-cased (`WARNING` and `WARN` stay apart).
    pub name: String,
    pub lines: usize,
    /// The first and last line with it (1-based).
    pub first: usize,
    pub last: usize,
}

/// The levels of a log, most severe first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelsView {
    /// Each level found, most severe first.
    pub levels: Vec<Level>,
    /// Lines with a level.
    pub leveled: usize,
}

const NAMES: [&str; 12] = [
    "FATAL", "CRITICAL", "CRIT", "ERROR", "ERR", "WARNING", "WARN", "NOTICE", "INFO", "DEBUG",
    "TRACE", "VERBOSE",
];

/// The level a line is written at, if any (its bytes: the level words are
/// ASCII, so a line's bytes hold one where its text does).
#[cfg(test)]
pub fn level_of(line: &str) -> Option<&'static str> {
    level_of_bytes(line.as_bytes()).and_then(|i| NAMES.get(i).copied())
}

/// The level (its index in [`NAMES`]) a line is written at, if any.
fn level_of_bytes(line: &[u8]) -> Option<usize> {
    let head = &line[..line.len().min(HEAD)];
    let mut i = 0;
    while i < head.len() {
        if !head[i].is_ascii_alphabetic() {
            i += 1;
            continue;
        }
        let start = i;
        while i < head.len() && head[i].is_ascii_alphabetic() {
            i += 1;
        }
        if let Some(n) = word_level(head, start) {
            return Some(n);
        }
    }
    None
}

/// A line's level is read from its first this many bytes.
const HEAD: usize = 120;

/// The level the word starting at `start` of a line's `head` (a letter after a
/// non-letter, or the head's first byte) writes, if it writes one: an upper-case
/// word alone (not joined to a name: `log.error`, `error_count`), or a word of
/// any case in brackets, after `level=` or as a JSON `"level":"warn"`.
///
/// Read as one number: the word's first 8 bytes are classified together (a
/// bit trick over the 8 bytes of a `u64`: which are ASCII letters), so a line
/// costs no loop over its letters (called for every line of a log).
#[inline]
fn word_level(head: &[u8], start: usize) -> Option<usize> {
    const HI: u64 = 0x8080_8080_8080_8080;
    let rest = head.get(start..)?;
    let x = match rest.first_chunk::<8>() {
        Some(b8) => u64::from_le_bytes(*b8),
        None => {
            // fewer than 8 bytes left: zeros after them (not letters)
            let mut b8 = [0u8; 8];
            for (d, s) in b8.iter_mut().zip(rest) {
                *d = *s;
            }
            u64::from_le_bytes(b8)
        }
    };
    // per byte (below 0x80): lower-cased, then >= 'a' and > 'z' by the carry
    // into the lane's top bit (no lane carries into the next)
    let y = (x | 0x2020_2020_2020_2020) & !HI;
    let from_a = y.wrapping_add(0x1F1F_1F1F_1F1F_1F1F) & HI;
    let past_z = y.wrapping_add(0x0505_0505_0505_0505) & HI;
    let letters = from_a & !past_z & !x;
    // the word's length: its leading letters (9 and more is too long)
    let len = ((!letters & HI).trailing_zeros() / 8) as usize;
    if len < 3 || (len == 8 && rest.get(8).is_some_and(u8::is_ascii_alphabetic)) {
        return None;
    }
    let word = x & (u64::MAX >> (64 - 8 * len));
    let k = word & !0x2020_2020_2020_2020;
    let name = name_of(k)?;
    // a letter with 0x20 set is lower case
    let lower = word & 0x2020_2020_2020_2020 != 0;
    let i = start + len;
    let joined = |c: Option<&u8>| {
        c.is_some_and(|&c| {
            c.is_ascii_alphanumeric() || c >= 0x80 || matches!(c, b'_' | b'.' | b'-' | b'/' | b'\'')
        })
    };
    let before = start.checked_sub(1).and_then(|k| head.get(k));
    let after = head.get(i);
    if !lower && !joined(before) && (after == Some(&b':') || !joined(after) && after != Some(&b':'))
    {
        return Some(name);
    }
    let marked = match before {
        Some(b'[') => after == Some(&b']'),
        Some(b'<') => after == Some(&b'>'),
        Some(b'=') => head[..start].ends_with(b"level="),
        Some(b'"') => {
            head[..start].ends_with(b"\"level\":\"") || head[..start].ends_with(b"\"level\": \"")
        }
        _ => false,
    };
    marked.then_some(name)
}

/// The multiplier of [`name_of`]'s hash: the top 4 bits of `key × HASH_MUL`
/// differ for the twelve names (checked when compiling, in [`NAME_SLOTS`]).
const HASH_MUL: u64 = 0xca02_135e_92b1_d3f3;

/// Per hash slot: the key of the name there and 1 + its index in [`NAMES`] (0:
/// none).
const NAME_SLOTS: [(u64, usize); 16] = {
    let mut slots = [(0u64, 0usize); 16];
    let mut i = 0;
    while i < NAMES.len() {
        let slot = (NAME_KEYS[i].wrapping_mul(HASH_MUL) >> 60) as usize;
        assert!(slots[slot].1 == 0, "two level names in one hash slot");
        slots[slot] = (NAME_KEYS[i], i + 1);
        i += 1;
    }
    slots
};

/// The index in [`NAMES`] of the name whose key ([`key`]) is `k`, if any: one
/// multiplication and one compare, the same for every word (a search of the
/// list branches differently for each name a log's lines take turns with).
#[inline]
fn name_of(k: u64) -> Option<usize> {
    let (key, i) = NAME_SLOTS[(k.wrapping_mul(HASH_MUL) >> 60) as usize];
    (key == k && i > 0).then(|| i - 1)
}

/// A word of up to 8 ASCII letters, upper-cased, as one number (its bytes from
/// the lowest).
const fn key(word: &[u8]) -> u64 {
    let mut k = 0u64;
    let mut i = 0;
    while i < word.len() && i < 8 {
        k |= (word[i].to_ascii_uppercase() as u64) << (8 * i);
        i += 1;
    }
    k
}

const NAME_KEYS: [u64; NAMES.len()] = {
    let mut keys = [0u64; NAMES.len()];
    let mut i = 0;
    while i < NAMES.len() {
        keys[i] = key(NAMES[i].as_bytes());
        i += 1;
    }
    keys
};

/// Whether byte `i` of `block` (whose byte before is a newline or nothing)
/// may start a level word: a letter after a non-letter, either after a mark
/// (`[`, `<`, `=`, `"`) or upper case and followed by an upper-case letter.
/// Every word [`word_level`] reads a level from starts at such a byte.
#[cfg(test)]
fn may_start(prev: u8, b: u8, next: u8) -> bool {
    b.is_ascii_alphabetic()
        && !prev.is_ascii_alphabetic()
        && (matches!(prev, b'[' | b'<' | b'=' | b'"')
            || (b.is_ascii_uppercase() && next.is_ascii_uppercase()))
}

/// The bytes of `block` (lines, the first starting at its start) that may
/// start a level word ([`may_start`]): bit `i % 64` of `bits[i / 64]`, byte by
/// byte (the reference [`chunk_candidates`] is tested against).
#[cfg(test)]
pub(crate) fn candidates(block: &[u8], bits: &mut Vec<u64>) {
    bits.clear();
    bits.resize(block.len().div_ceil(64), 0);
    let at = |i: usize| block.get(i).copied().unwrap_or(b'\n');
    for i in 0..block.len() {
        let prev = i.checked_sub(1).map_or(b'\n', at);
        if may_start(prev, at(i), at(i + 1)) {
            bits[i / 64] |= 1 << (i % 64);
        }
    }
}

/// Where a level word may start ([`may_start`]) in the next 64 bytes of a
/// text read from a line's start, 64 bytes at a time (the scan's line finding
/// calls it on each chunk it classifies, while the chunk is in the cache):
/// one vector pass gives which bytes are letters, upper-case letters and
/// marks, bit operations the rest. `carry`: whether the byte before the
/// chunk is a letter, a mark (from the chunk before; none before the first).
/// A chunk's last byte is taken to be followed by an upper-case letter: a
/// candidate too many is only looked at ([`word_level`] checks the word).
#[inline]
pub(crate) fn chunk_candidates(chunk: &[u8; 64], carry: &mut (u64, u64)) -> u64 {
    let (letter, upper, mark) = classes64(chunk);
    let prev_letter = (letter << 1) | carry.0;
    let prev_mark = (mark << 1) | carry.1;
    let next_upper = (upper >> 1) | (1 << 63);
    *carry = (letter >> 63, mark >> 63);
    letter & !prev_letter & (prev_mark | (upper & next_upper))
}

/// [`classes64`] byte by byte.
#[cfg(not(target_arch = "x86_64"))]
fn classes64(chunk: &[u8; 64]) -> (u64, u64, u64) {
    let (mut letter, mut upper, mut mark) = (0u64, 0u64, 0u64);
    for (i, &b) in chunk.iter().enumerate() {
        letter |= u64::from(b.is_ascii_alphabetic()) << i;
        upper |= u64::from(b.is_ascii_uppercase()) << i;
        mark |= u64::from(matches!(b, b'[' | b'<' | b'=' | b'"')) << i;
    }
    (letter, upper, mark)
}

/// Bit `i` set where byte `i` of the chunk is an ASCII letter, an upper-case
/// one, a mark (`[`, `<`, `=`, `"`).
#[cfg(target_arch = "x86_64")]
#[inline]
fn classes64(chunk: &[u8; 64]) -> (u64, u64, u64) {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_loadu_si128, _mm_movemask_epi8,
        _mm_or_si128, _mm_set1_epi8,
    };
    let (mut letter, mut upper, mut mark) = (0u64, 0u64, 0u64);
    for (k, part) in chunk.chunks_exact(16).enumerate() {
        // SAFETY: SSE2 is part of every x86_64 CPU; the load reads the 16
        // bytes of `part`.
        let (l, u, m) = unsafe {
            let v = _mm_loadu_si128(part.as_ptr().cast::<__m128i>());
            let set = |b: u8| _mm_set1_epi8(i8::from_ne_bytes([b]));
            // signed compares: bytes >= 0x80 are negative, never letters
            let within = |v: __m128i, lo: u8, hi: u8| {
                _mm_and_si128(
                    _mm_cmpgt_epi8(v, set(lo - 1)),
                    _mm_cmpgt_epi8(set(hi + 1), v),
                )
            };
            let eq = |b: u8| _mm_cmpeq_epi8(v, set(b));
            (
                _mm_movemask_epi8(within(_mm_or_si128(v, set(0x20)), b'a', b'z')),
                _mm_movemask_epi8(within(v, b'A', b'Z')),
                _mm_movemask_epi8(_mm_or_si128(
                    _mm_or_si128(eq(b'['), eq(b'<')),
                    _mm_or_si128(eq(b'='), eq(b'"')),
                )),
            )
        };
        let bits = |x: i32| u64::from(u32::from_ne_bytes(x.to_ne_bytes()) & 0xFFFF) << (16 * k);
        letter |= bits(l);
        upper |= bits(u);
        mark |= bits(m);
    }
    (letter, upper, mark)
}

/// The level of a line starting at byte `at` of the text `bits` were found
/// for ([`chunk_candidates`]); `line` without its `\n`. The same as
/// [`level_of_bytes`], looking only at the words that may start a level.
pub(crate) fn level_at(line: &[u8], bits: &[u64], at: usize) -> Option<usize> {
    let head = &line[..line.len().min(HEAD)];
    let end = at + head.len();
    let mut w = at;
    while w < end {
        let word = bits.get(w / 64).copied().unwrap_or(0) >> (w % 64);
        if word == 0 {
            w = (w / 64 + 1) * 64;
            continue;
        }
        let j = w + word.trailing_zeros() as usize;
        if j >= end {
            break;
        }
        if let Some(n) = word_level(head, j - at) {
            return Some(n);
        }
        w = j + 1;
    }
    None
}

/// The levels' counts as lines are read: per level name (by its index in
/// [`NAMES`]) its lines and first and last line, in arrays (a line costs two
/// stores and an add; the [`Level`]s are made once, at the end).
#[derive(Debug, Default)]
pub(super) struct Reader {
    lines: [usize; NAMES.len()],
    first: [usize; NAMES.len()],
    last: [usize; NAMES.len()],
    leveled: usize,
}

impl Reader {
    pub(super) fn line(&mut self, n: usize, line: &[u8]) {
        self.level(n, level_of_bytes(line));
    }

    /// Line `n` is written at level `name` (its index in [`NAMES`], if any).
    #[inline]
    pub(crate) fn level(&mut self, n: usize, name: Option<usize>) {
        let Some(i) = name.filter(|&i| i < NAMES.len()) else {
            return;
        };
        self.leveled += 1;
        if self.lines[i] == 0 {
            self.first[i] = n;
        }
        self.lines[i] += 1;
        self.last[i] = n;
    }

    pub(super) fn finish(self, lines: usize) -> Option<LevelsView> {
        // a log: a level on a third of the lines at least, and on ten
        if self.leveled < 10 || self.leveled * 3 < lines {
            return None;
        }
        // most severe first: the order of NAMES
        let levels = NAMES
            .iter()
            .enumerate()
            .filter(|&(i, _)| self.lines[i] > 0)
            .map(|(i, name)| Level {
                name: (*name).to_string(),
                lines: self.lines[i],
                first: self.first[i],
                last: self.last[i],
            })
            .collect();
        Some(LevelsView {
            levels,
            leveled: self.leveled,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{
        HEAD, NAME_KEYS, candidates, chunk_candidates, level_at, level_of, level_of_bytes,
        word_level,
    };
    use proptest::prelude::*;

    /// Each line's level as the scan reads it: from the level-word
    /// candidates of the whole text, found 64 bytes at a time.
    fn by_block(block: &[u8]) -> Vec<Option<usize>> {
        let mut bits = Vec::new();
        let mut carry = (0, 0);
        for chunk in block.chunks(64) {
            let mut c = [0u8; 64];
            c[..chunk.len()].copy_from_slice(chunk);
            bits.push(chunk_candidates(&c, &mut carry));
        }
        // every byte the byte-by-byte reference marks is marked
        let mut want = Vec::new();
        candidates(block, &mut want);
        for (got, want) in bits.iter().zip(&want) {
            assert_eq!(got & want, *want);
        }
        let mut at = 0;
        let mut out = Vec::new();
        for line in block.split_inclusive(|&b| b == b'\n') {
            let body = line.strip_suffix(b"\n").unwrap_or(line);
            out.push(level_at(body, &bits, at));
            at += line.len();
        }
        out
    }

    /// The word reading of 26a2bd9, letter by letter: what `word_level`'s
    /// eight-bytes-at-once reading is checked against.
    fn word_level_by_letter(head: &[u8], start: usize) -> Option<usize> {
        let (mut len, mut k, mut lower) = (0, 0u64, false);
        for &b in head[start..].iter().take(9) {
            if !b.is_ascii_alphabetic() {
                break;
            }
            if len < 8 {
                k |= u64::from(b & !0x20) << (8 * len);
            }
            lower |= b.is_ascii_lowercase();
            len += 1;
        }
        if !(3..=8).contains(&len) {
            return None;
        }
        let name = NAME_KEYS.iter().position(|&n| n == k)?;
        let i = start + len;
        let joined = |c: Option<&u8>| {
            c.is_some_and(|&c| {
                c.is_ascii_alphanumeric()
                    || c >= 0x80
                    || matches!(c, b'_' | b'.' | b'-' | b'/' | b'\'')
            })
        };
        let before = start.checked_sub(1).and_then(|k| head.get(k));
        let after = head.get(i);
        if !lower
            && !joined(before)
            && (after == Some(&b':') || !joined(after) && after != Some(&b':'))
        {
            return Some(name);
        }
        let marked = match before {
            Some(b'[') => after == Some(&b']'),
            Some(b'<') => after == Some(&b'>'),
            Some(b'=') => head[..start].ends_with(b"level="),
            Some(b'"') => {
                head[..start].ends_with(b"\"level\":\"")
                    || head[..start].ends_with(b"\"level\": \"")
            }
            _ => false,
        };
        marked.then_some(name)
    }

    #[test]
    fn the_scan_reads_the_levels_of_real_logs_line_by_line_alike() {
        // real output: cargo's own debug log, a failing test run, a service log
        let text = [
            "   0.04s DEBUG main:exec: cargo::core::compiler: fresh\n",
            "2024-01-01 12:00:00,123 - app - WARNING - disk low\n",
            "[info] started <WARN> [Error]\r\n",
            "ts=1 level=error msg=x\n{\"level\": \"warn\",\"msg\":\"x\"}\n",
            "thread 'main' panicked at src/lib.rs:3:5: ERROR_CODE log.error ERRORS\n",
            &format!("{}ERROR\n{}ERR\n", "x ".repeat(59), "y ".repeat(58)),
        ]
        .concat();
        let mut text = text.into_bytes();
        for name in ["cargo_test_failure.log", "python_unittest_failure.log"] {
            let path = format!("{}/../../fixtures/shell/{name}", env!("CARGO_MANIFEST_DIR"));
            text.extend(std::fs::read(path).unwrap());
        }
        let want: Vec<_> = text
            .split_inclusive(|&b| b == b'\n')
            .map(|l| level_of_bytes(l.strip_suffix(b"\n").unwrap_or(l)))
            .collect();
        assert_eq!(by_block(&text), want);
        assert!(want.iter().flatten().count() >= 6, "{want:?}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        #[test]
        fn words_read_eight_bytes_at_once_as_letter_by_letter(parts in proptest::collection::vec(
            prop_oneof![
                Just("ERROR"), Just("error"), Just("Warning"), Just("WARNINGS"), Just("CRITICAL"),
                Just("CRITICALS"), Just("INFO"), Just("info"), Just("ERR"), Just("[Trace]"),
                Just("level="), Just("\"level\": \""), Just(" "), Just(":"), Just("_"), Just("."),
                Just("é"), Just("\u{ff}"), Just("Z"), Just("\0"), Just("`"), Just("{"), Just("@"),
            ],
            0..40,
        )) {
            let line = parts.concat().into_bytes();
            let head = &line[..line.len().min(HEAD)];
            for start in 0..head.len() {
                prop_assert_eq!(word_level(head, start), word_level_by_letter(head, start), "at {}", start);
            }
        }

        #[test]
        fn candidates_find_every_level_word(parts in proptest::collection::vec(
            prop_oneof![
                Just("ERROR"), Just("warn"), Just("Info"), Just("DEBUG"), Just("ERR"),
                Just("["), Just("]"), Just("<"), Just(">"), Just("level="),
                Just("\"level\":\""), Just(" "), Just("\n"), Just("\r"), Just(":"),
                Just("_"), Just("x"), Just("AB"), Just("é"), Just("2024-01-01T00:00:00Z"),
            ],
            0..120,
        )) {
            let block = parts.concat().into_bytes();
            let want: Vec<_> = block
                .split_inclusive(|&b| b == b'\n')
                .map(|l| level_of_bytes(l.strip_suffix(b"\n").unwrap_or(l)))
                .collect();
            prop_assert_eq!(by_block(&block), want);
        }
    }

    #[test]
    fn every_name_and_no_other_word_is_found_by_its_hash() {
        for (i, k) in NAME_KEYS.iter().enumerate() {
            assert_eq!(super::name_of(*k), Some(i));
        }
        for w in [
            "ERRORS", "INF", "WARNIN", "DEBU", "TRACES", "NOTE", "", "XXXXXXXX",
        ] {
            assert_eq!(super::name_of(super::key(w.as_bytes())), None, "{w}");
        }
    }

    #[test]
    fn levels_are_words_of_their_own() {
        assert_eq!(
            level_of("   0.04s DEBUG main:exec: cargo::core"),
            Some("DEBUG")
        );
        assert_eq!(
            level_of("2024-01-01 12:00:00,123 - app - WARNING - disk low"),
            Some("WARNING")
        );
        assert_eq!(level_of("[info] started"), Some("INFO"));
        assert_eq!(level_of("ts=1 level=error msg=x"), Some("ERROR"));
        assert_eq!(level_of("{\"level\":\"warn\",\"msg\":\"x\"}"), Some("WARN"));
        assert_eq!(level_of("ERROR: could not open"), Some("ERROR"));
        assert_eq!(level_of("log.error(\"x\")"), None);
        assert_eq!(level_of("an error happened"), None);
        assert_eq!(level_of("ERROR_CODE = 3"), None);
    }
}
