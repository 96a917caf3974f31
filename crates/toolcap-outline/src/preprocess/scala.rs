//! Scala: Scala 2 identifiers that are Scala 3 keywords (`val enum = ...`,
//! `inline(...)`) renamed ([`rename_scala3_keywords`]).

use std::borrow::Cow;

use memchr::memmem::find;

use super::{is_ident_start, skip_spaces, underscore_at};

/// Scala: tree-sitter-scala reads Scala 3, where `enum` and `inline` are
/// keywords; in Scala 2 code they are identifiers (`val enum =
/// zipFile.entries()`, `val r = inline(callsite, ...)`: the Scala 2.11
/// library and compiler), a parse error that loses the class around it. Their
/// first letter becomes `_` where they are not Scala 3's: `enum` not followed
/// by a name (`enum Color`), `inline` right before `(`. Not after `.` or a
/// backtick, nor where the word is a listed definition's own name (after
/// `def`, `type`, `class`, `object`, `trait`: the outline's names are read
/// from what the parser is given; a `val` is not listed).
pub(crate) fn rename_scala3_keywords(source: &str) -> Cow<'_, str> {
    let s = source.as_bytes();
    let mut at: Vec<usize> = Vec::new();
    for kw in ["enum", "inline"] {
        let mut from = 0;
        while let Some(pos) = find(&s[from..], kw.as_bytes()).map(|p| p + from) {
            from = pos + kw.len();
            let before = s[..pos].last().copied();
            if before.is_some_and(|b| {
                b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'`' | b'$')
            }) {
                continue;
            }
            let next = s.get(pos + kw.len()).copied();
            if next.is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$')) {
                continue; // a longer word: `enumerate`, `inlined`
            }
            let identifier = if kw == "enum" {
                let after = skip_spaces(s, pos + kw.len());
                !s.get(after)
                    .is_some_and(|&b| is_ident_start(b) || b == b'`' || b >= 0x80)
            } else {
                next == Some(b'(')
            };
            let prev_end = s[..pos]
                .iter()
                .rposition(|b| !b.is_ascii_whitespace())
                .map_or(0, |p| p + 1);
            let prev_word = s[..prev_end]
                .iter()
                .rposition(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
                .map_or(0, |p| p + 1);
            let named = matches!(
                &s[prev_word..prev_end],
                b"def" | b"type" | b"class" | b"object" | b"trait"
            );
            if identifier && !named {
                at.push(pos);
            }
        }
    }
    underscore_at(source, &at)
}

#[cfg(test)]
mod tests {
    #[test]
    fn scala2_identifiers_that_are_scala3_keywords_are_renamed() {
        let k = |s: &str| super::rename_scala3_keywords(s).into_owned();
        assert_eq!(
            k("    val enum    = zipFile.entries()\n    while (enum.hasMoreElements) {\n"),
            "    val _num    = zipFile.entries()\n    while (_num.hasMoreElements) {\n"
        );
        assert_eq!(
            k("    val r = inline(a, b)\n"),
            "    val r = _nline(a, b)\n"
        );
        for s in [
            "enum Color { case Red }\n",
            "enum Color:\n",
            "inline def f(x: Int) = x\n",
            "def inline(a: Int) = a\n",
            "def enum: Int = 1\n",
            "x.inline(1)\n",
            "enumerate(1)\n",
            "`enum`.x\n",
        ] {
            assert_eq!(k(s), s);
        }
    }
}
