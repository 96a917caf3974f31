//! Kotlin: calls to functions named like modifiers renamed
//! ([`rename_kotlin_modifier_calls`]).

use std::borrow::Cow;

use memchr::memmem::find;

use super::underscore_at;

/// Kotlin modifiers that tree-sitter-kotlin cannot read as a function's
/// name in a call: `override((width * scale).toInt(), ...)` in a lambda (a
/// call to a function named `override`, expo-image) is a parse error that
/// loses the whole class around it.
const KOTLIN_MODIFIERS: &[&str] = &[
    "override",
    "open",
    "abstract",
    "final",
    "public",
    "private",
    "protected",
    "internal",
    "inline",
    "noinline",
    "crossinline",
    "suspend",
    "lateinit",
    "sealed",
    "external",
    "tailrec",
    "vararg",
    "infix",
];

/// Kotlin: a modifier keyword right before `(` is a call to a function of
/// that name (a modifier is followed by a space); its first letter becomes
/// `_` (`_verride(...)`: an identifier the grammar reads as a call). Not
/// after `fun` (a declaration keeps its name), `.` (a method call parses)
/// or `>` (`fun <T> open(`).
pub(crate) fn rename_kotlin_modifier_calls(source: &str) -> Cow<'_, str> {
    let s = source.as_bytes();
    let mut at: Vec<usize> = Vec::new();
    for kw in KOTLIN_MODIFIERS {
        let mut from = 0;
        while let Some(pos) = find(&s[from..], kw.as_bytes()).map(|p| p + from) {
            from = pos + kw.len();
            if s.get(pos + kw.len()) != Some(&b'(') {
                continue;
            }
            let before = s[..pos].last().copied();
            if before.is_some_and(|b| {
                b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'`' | b'@')
            }) {
                continue;
            }
            let prev = s[..pos].iter().rposition(|b| !b.is_ascii_whitespace());
            let after_fun = prev.is_some_and(|p| s[..=p].ends_with(b"fun") || s[p] == b'>');
            if !after_fun {
                at.push(pos);
            }
        }
    }
    underscore_at(source, &at)
}

#[cfg(test)]
mod tests {
    #[test]
    fn kotlin_calls_named_like_modifiers_are_renamed() {
        let k = |s: &str| super::rename_kotlin_modifier_calls(s).into_owned();
        assert_eq!(
            k("    override((w * scale).toInt(), h)\n"),
            "    _verride((w * scale).toInt(), h)\n"
        );
        for s in [
            "override fun f() {}\n",
            "fun open(a: Int) {}\n",
            "fun <T> open(a: T) {}\n",
            "x.open(1)\n",
            "reopen(1)\n",
            "`open`(1)\n",
        ] {
            assert_eq!(k(s), s);
        }
    }
}
