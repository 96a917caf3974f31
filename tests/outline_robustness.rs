//! The outline never panics and keeps its invariants on any input: truncated
//! sources, random bytes, deep nesting, odd line endings, non-ASCII names.

#![cfg(any(feature = "lang-rust", feature = "lang-python"))]

use toolcap::outline::{Language, Outline, outline};

/// Invariants every outline must satisfy, whatever the input.
fn check(source: &str, lang: Language) -> Outline {
    let o = outline(source, lang).unwrap_or_else(|e| panic!("outline failed: {e}"));
    assert_eq!(o.language, lang.name());
    let lines = o.lines.max(1);
    let mut prev_depth: Option<usize> = None;
    for s in &o.symbols {
        assert!(!s.name.is_empty(), "empty name: {s:?}");
        assert!(s.line >= 1 && s.line <= s.end_line, "bad range: {s:?}");
        assert!(
            s.end_line <= lines,
            "end_line past the last line {lines}: {s:?}"
        );
        assert_eq!(
            s.depth == 0,
            s.parent.is_none(),
            "depth/parent mismatch: {s:?}"
        );
        assert!(
            s.depth <= prev_depth.map_or(0, |d| d + 1),
            "depth jumps: {s:?} after depth {prev_depth:?}"
        );
        prev_depth = Some(s.depth);
    }
    o
}

/// Every prefix of `source` (at char boundaries, every `step` bytes).
fn check_prefixes(source: &str, lang: Language, step: usize) {
    let mut i = 0;
    while i <= source.len() {
        if source.is_char_boundary(i) {
            check(&source[..i], lang);
        }
        i += step;
    }
}

/// A small deterministic pseudo-random generator (no dependency needed).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

/// Random text drawn from `alphabet` pieces.
fn random_source(rng: &mut Lcg, alphabet: &[&str], pieces: usize) -> String {
    (0..pieces)
        .map(|_| alphabet[(rng.next() as usize) % alphabet.len()])
        .collect()
}

fn check_random(lang: Language, alphabet: &[&str]) {
    let mut rng = Lcg(0x5eed ^ lang.name().len() as u64);
    for _ in 0..300 {
        let pieces = (rng.next() % 200) as usize;
        let source = random_source(&mut rng, alphabet, pieces);
        check(&source, lang);
    }
}

fn check_common(lang: Language) {
    for source in [
        "",
        "\n",
        "\r\n\r\n",
        "\u{feff}",
        "\0\0\0",
        "}}}}{{{{",
        "((((((((((",
        "é漢字🦀",
        "\t \x0c \x0b",
    ] {
        check(source, lang);
    }
    // Deep nesting of brackets.
    check(&"(".repeat(20_000), lang);
    check(&"[{(".repeat(5_000), lang);
}

#[cfg(feature = "lang-python")]
const PYTHON_SAMPLE: &str = r#"import os

if True:
    class A(B, metaclass=M):
        """Doc."""
        @property
        async def f(self, x: int = 1) -> "A":
            def g():
                return lambda y: y
            return g
    # comment
else:
    def h(*args, **kwargs): pass

class Ünïcode:
    def 名前(self):
        return "é"
"#;

#[cfg(feature = "lang-python")]
#[test]
fn python_never_panics() {
    let lang = Language::Python;
    check_common(lang);
    check_prefixes(PYTHON_SAMPLE, lang, 1);
    check_prefixes(&PYTHON_SAMPLE.replace('\n', "\r\n"), lang, 1);
    check_random(
        lang,
        &[
            "def ", "class ", "async ", "f", "A", "(", ")", ":", "\n", "    ", "\t", "@d\n",
            "if x", "else", "try", "except", "pass", "'", "\"\"\"", "#", "\\", "=", ",", "é", " ",
        ],
    );

    // Deeply nested definitions.
    let mut deep = String::new();
    for i in 0..300 {
        deep.push_str(&"    ".repeat(i));
        deep.push_str(&format!("class C{i}:\n"));
    }
    deep.push_str(&"    ".repeat(300));
    deep.push_str("pass\n");
    let o = check(&deep, lang);
    assert_eq!(o.symbols.len(), 300);
    assert_eq!(o.symbols[299].depth, 299);

    // Many definitions.
    let many: String = (0..5_000)
        .map(|i| format!("def f{i}():\n    pass\n"))
        .collect();
    assert_eq!(check(&many, lang).symbols.len(), 5_000);

    // Non-ASCII names and CRLF line endings keep their lines.
    let o = check("class Ü:\r\n    def 名前(self):\r\n        pass\r\n", lang);
    let got: Vec<_> = o
        .symbols
        .iter()
        .map(|s| (s.name.as_str(), s.line, s.end_line))
        .collect();
    assert_eq!(got, [("Ü", 1, 3), ("名前", 2, 3)]);
}

#[cfg(feature = "lang-rust")]
const RUST_SAMPLE: &str = r##"//! Crate.
use std::fmt;

#[derive(Debug)]
pub struct S<'a, T: ?Sized> { r: &'a T }

impl<'a, T> fmt::Debug for S<'a, T> where T: fmt::Debug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { todo!() }
}

pub trait Tr { type A; fn m(&self); }
mod m { macro_rules! mac { ($x:tt) => { $x }; } pub union U { a: u8 } }
const C: &str = "é漢字";
static S2: [u8; 2] = [0; 2];
fn main() { fn inner() {} let s = r#"raw"#; }
"##;

#[cfg(feature = "lang-rust")]
#[test]
fn rust_never_panics() {
    let lang = Language::Rust;
    check_common(lang);
    check_prefixes(RUST_SAMPLE, lang, 1);
    check_random(
        lang,
        &[
            "fn ",
            "impl ",
            "struct ",
            "trait ",
            "mod ",
            "for ",
            "<",
            ">",
            "{",
            "}",
            "(",
            ")",
            ";",
            "\n",
            " ",
            "x",
            "T",
            "'a",
            "#[a]",
            "//",
            "/*",
            "*/",
            "\"",
            "r#\"",
            "macro_rules! ",
            "const ",
            "type ",
            "=",
            "é",
        ],
    );

    // Deeply nested modules.
    let depth = 300;
    let deep = format!(
        "{}fn f() {{}}{}",
        "mod m {\n".repeat(depth),
        "}\n".repeat(depth)
    );
    let o = check(&deep, lang);
    assert_eq!(o.symbols.len(), depth + 1);
    assert_eq!(o.symbols[depth].depth, depth);

    // Many definitions.
    let many: String = (0..5_000).map(|i| format!("fn f{i}() {{}}\n")).collect();
    assert_eq!(check(&many, lang).symbols.len(), 5_000);
}
