//! What the parser is given instead of the source, where tree-sitter cannot
//! parse around a construct (it does not run the preprocessor), always at
//! the same length, so every byte offset, line and column stays the
//! source's ([`prepare`]). Each language's row in the table
//! ([`Language`](super::Language)) names its step, one module per language:
//!
//! - C/C++ macros ([`c`]): export and attribute macros around a
//!   declaration (`UV_EXTERN int uv_run(...)`, `class LEVELDB_EXPORT Env {`,
//!   `g_log (...) G_GNUC_PRINTF (3, 4);`), macro calls on lines of their own
//!   (`NAMESPACE_BEGIN(pybind11)`, `GLIB_AVAILABLE_IN_ALL`), comments inside
//!   a multi-line `#define`.
//! - C, C++ and C# conditional compilation whose branches are not whole
//!   code, read with every condition true ([`conditionals`]).
//! - Bash parameter expansions with an operator, read as `${name}`
//!   ([`bash`]).
//! - Kotlin calls to functions named like modifiers ([`kotlin`]).
//! - Scala 2 identifiers that are Scala 3 keywords (`val enum = ...`,
//!   `inline(...)`) ([`scala`]).
//! - Swift `#if` directives between the `case`s of a `switch` ([`swift`]).
//!
//! Every step edits through [`blank`] (spaces over spans, line breaks kept) or
//! [`underscore_at`] (one letter of a word made `_`), both finished by
//! [`edited`].

use std::borrow::Cow;

#[cfg(feature = "lang-bash")]
pub(super) mod bash;
#[cfg(any(feature = "lang-c", feature = "lang-cpp"))]
pub(super) mod c;
#[cfg(any(feature = "lang-c", feature = "lang-cpp", feature = "lang-csharp"))]
pub(super) mod conditionals;
#[cfg(feature = "lang-kotlin")]
pub(super) mod kotlin;
#[cfg(feature = "lang-scala")]
pub(super) mod scala;
#[cfg(feature = "lang-swift")]
pub(super) mod swift;

/// The one blanking step: `source` with every byte in each of `spans` replaced by
/// a space, line breaks (`\n`, `\r`) kept; borrowed when there are no spans.
/// A span covers whole characters, so the result is still UTF-8.
#[cfg_attr(
    not(any(
        feature = "lang-c",
        feature = "lang-cpp",
        feature = "lang-csharp",
        feature = "lang-swift"
    )),
    allow(dead_code)
)]
pub(super) fn blank<'a>(source: &'a str, spans: &[(usize, usize)]) -> Cow<'a, str> {
    if spans.is_empty() {
        return Cow::Borrowed(source);
    }
    let mut bytes = source.as_bytes().to_vec();
    for &(a, b) in spans {
        if let Some(s) = bytes.get_mut(a..b) {
            for byte in s.iter_mut().filter(|b| !matches!(**b, b'\n' | b'\r')) {
                *byte = b' ';
            }
        }
    }
    edited(source, bytes)
}

/// `bytes` (an edit of `source` that replaced whole characters by ASCII) as the
/// text the parser is given; `source` itself should the edit not be UTF-8.
#[cfg_attr(
    not(any(
        feature = "lang-c",
        feature = "lang-cpp",
        feature = "lang-csharp",
        feature = "lang-swift",
        feature = "lang-kotlin",
        feature = "lang-scala",
        feature = "lang-bash"
    )),
    allow(dead_code)
)]
pub(super) fn edited(source: &str, bytes: Vec<u8>) -> Cow<'_, str> {
    match String::from_utf8(bytes) {
        Ok(s) => Cow::Owned(s),
        Err(_) => Cow::Borrowed(source),
    }
}

/// `source` with the ASCII letter at each byte offset of `at` replaced by `_`
/// (same length, still UTF-8); borrowed when `at` is empty.
#[cfg_attr(
    not(any(feature = "lang-kotlin", feature = "lang-scala")),
    allow(dead_code)
)]
pub(super) fn underscore_at<'a>(source: &'a str, at: &[usize]) -> Cow<'a, str> {
    if at.is_empty() {
        return Cow::Borrowed(source);
    }
    let mut bytes = source.as_bytes().to_vec();
    for &pos in at {
        bytes[pos] = b'_';
    }
    // An ASCII letter replaced by `_`: still UTF-8.
    edited(source, bytes)
}

#[cfg_attr(
    not(any(feature = "lang-c", feature = "lang-cpp", feature = "lang-scala")),
    allow(dead_code)
)]
pub(super) fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

#[cfg_attr(
    not(any(
        feature = "lang-c",
        feature = "lang-cpp",
        feature = "lang-csharp",
        feature = "lang-scala"
    )),
    allow(dead_code)
)]
pub(super) fn skip_spaces(s: &[u8], mut i: usize) -> usize {
    while s.get(i).is_some_and(|b| *b == b' ' || *b == b'\t') {
        i += 1;
    }
    i
}
