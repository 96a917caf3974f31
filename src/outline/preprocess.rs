//! Blanking the C/C++ macros tree-sitter cannot parse around (it does not run
//! the preprocessor): export and attribute macros before a declaration
//! (`UV_EXTERN int uv_run(...)`, `class LEVELDB_EXPORT Env {`), and
//! statement-like macro lines (`NAMESPACE_BEGIN(pybind11)`,
//! `GLIB_AVAILABLE_IN_ALL` on its own line). Each is replaced by spaces of
//! the same length, so every byte offset, line and column stays the same.
//!
//! A macro here is an upper-case identifier with an underscore
//! (`[A-Z][A-Z0-9]*_[A-Z0-9_]*`): the convention export, attribute and
//! namespace macros follow, and one that type names rarely do.

use std::borrow::Cow;

/// `source` with the macros described above blanked; borrowed when there is
/// nothing to blank.
pub(super) fn blank_macros(source: &str) -> Cow<'_, str> {
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    for line in source.split_inclusive('\n') {
        line_spans(line, start, &mut spans);
        start += line.len();
    }
    if spans.is_empty() {
        return Cow::Borrowed(source);
    }
    let mut bytes = source.as_bytes().to_vec();
    for (a, b) in spans {
        if let Some(s) = bytes.get_mut(a..b) {
            s.fill(b' ');
        }
    }
    // Only ASCII bytes were replaced, by ASCII spaces: still UTF-8.
    match String::from_utf8(bytes) {
        Ok(s) => Cow::Owned(s),
        Err(_) => Cow::Borrowed(source),
    }
}

/// Length of the macro-like identifier at the start of `s`, if there is one.
fn macro_len(s: &[u8]) -> Option<usize> {
    let first = *s.first()?;
    if !first.is_ascii_uppercase() {
        return None;
    }
    let len = s
        .iter()
        .take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || **b == b'_')
        .count();
    let ident = &s[..len];
    // Followed by a lower-case letter: part of a longer identifier.
    let continues = s
        .get(len)
        .is_some_and(|b| b.is_ascii_lowercase() || *b == b'$');
    (len >= 3 && ident.contains(&b'_') && !ident.ends_with(b"_T") && !continues).then_some(len)
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn skip_spaces(s: &[u8], mut i: usize) -> usize {
    while s.get(i).is_some_and(|b| *b == b' ' || *b == b'\t') {
        i += 1;
    }
    i
}

/// End of the balanced parentheses starting at `s[i] == '('`, on this line.
fn close_paren(s: &[u8], i: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (j, &b) in s.iter().enumerate().skip(i) {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            b'"' | b'\'' | b'\n' => return None,
            _ => {}
        }
    }
    None
}

/// The spans to blank in one line (`offset`: the line's start in the
/// source).
fn line_spans(line: &str, offset: usize, spans: &mut Vec<(usize, usize)>) {
    let s = line.as_bytes();
    let body_end = s
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    let mut i = skip_spaces(s, 0);
    if s.get(i) == Some(&b'#') || i >= body_end {
        return;
    }
    // Leading macros: `UV_EXTERN int f(...)`, `GLIB_AVAILABLE_IN_ALL`,
    // `NAMESPACE_BEGIN(x)`.
    let line_has_paren = s.contains(&b'(');
    while let Some(len) = s.get(i..).and_then(macro_len) {
        let after = skip_spaces(s, i + len);
        if after >= body_end {
            // Alone on its line (an attribute before the next line's
            // declaration).
            spans.push((offset + i, offset + i + len));
            return;
        }
        match s.get(after) {
            Some(b'(') if after == i + len => {
                // `MACRO(args)` alone on its line, no `;` or `{` after it.
                match close_paren(s, after) {
                    Some(end) if skip_spaces(s, end) >= body_end => {
                        spans.push((offset + i, offset + end));
                    }
                    _ => {}
                }
                return;
            }
            Some(&b) if is_ident_start(b) && line_has_paren => {
                // An attribute before a function declaration.
                spans.push((offset + i, offset + i + len));
                i = after;
            }
            _ => break,
        }
    }
    // `class LEVELDB_EXPORT Env {`, `struct GTEST_API_ Foo : Base`.
    for kw in [&b"class "[..], b"struct ", b"union "] {
        let mut from = 0;
        while let Some(pos) = find(&s[from..], kw).map(|p| p + from) {
            from = pos + kw.len();
            if pos > 0
                && s.get(pos - 1)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
            {
                continue;
            }
            let m = skip_spaces(s, pos + kw.len());
            let Some(len) = s.get(m..).and_then(macro_len) else {
                continue;
            };
            let name = skip_spaces(s, m + len);
            if name == m + len || !s.get(name).copied().is_some_and(is_ident_start) {
                continue;
            }
            let name_end = name
                + s[name..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                    .count();
            let next = skip_spaces(s, name_end);
            let opens = next >= body_end
                || matches!(s.get(next), Some(b'{' | b':'))
                || s.get(next..).is_some_and(|r| r.starts_with(b"final"));
            if opens {
                spans.push((offset + m, offset + m + len));
            }
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::blank_macros;

    fn blanked(s: &str) -> String {
        let out = blank_macros(s).into_owned();
        assert_eq!(out.len(), s.len());
        out
    }

    #[test]
    fn export_macros_before_declarations_are_blanked() {
        assert_eq!(
            blanked("UV_EXTERN int uv_run(uv_loop_t*, uv_run_mode mode);\n"),
            "          int uv_run(uv_loop_t*, uv_run_mode mode);\n"
        );
        assert_eq!(
            blanked("class LEVELDB_EXPORT Env {\n public:\n"),
            "class                Env {\n public:\n"
        );
        assert_eq!(
            blanked("struct GTEST_API_ Foo : public Bar {"),
            "struct            Foo : public Bar {"
        );
        assert_eq!(
            blanked("GLIB_AVAILABLE_IN_ALL\ngint g_foo (void);\n"),
            "                     \ngint g_foo (void);\n"
        );
        assert_eq!(
            blanked("PYBIND11_NAMESPACE_BEGIN(PYBIND11_NAMESPACE)\nclass A {};\n"),
            "                                            \nclass A {};\n"
        );
    }

    #[test]
    fn code_that_only_looks_like_it_is_left_alone() {
        for s in [
            "#define UV_EXTERN extern\n",
            "struct MY_TYPE value;\n",
            "MY_CONST = 3;\n",
            "FOO_BAR(x);\n",
            "  ASSERT_EQ(a, b) << \"x\";\n",
            "size_T x;\n",
            "int MAX_LEN;\n",
            "FILE *f = fopen(name, \"r\");\n",
        ] {
            assert_eq!(blanked(s), s);
        }
    }
}
