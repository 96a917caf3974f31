//! C and C++: export and attribute macros around a declaration blanked
//! ([`blank_macros`]), then conditional compilation tree-sitter cannot parse
//! around read with every condition true ([`super::conditionals`]).
//!
//! A macro here is an upper-case identifier with an underscore
//! (`[A-Z][A-Z0-9]*_[A-Z0-9_]*`): the convention export, attribute and
//! namespace macros follow, and one that type names rarely do.

use std::borrow::Cow;

use super::conditionals::blank_conditionals;
use memchr::memmem::find;

use super::{blank, is_ident_start, skip_spaces};

/// What the parser is given for C or C++ source: [`blank_macros`], then
/// [`blank_conditionals`]. Borrowed when nothing changes.
pub(crate) fn prepare(source: &str) -> Cow<'_, str> {
    match blank_macros(source) {
        Cow::Borrowed(s) => blank_conditionals(s),
        Cow::Owned(s) => match blank_conditionals(&s) {
            Cow::Owned(t) => Cow::Owned(t),
            Cow::Borrowed(_) => Cow::Owned(s),
        },
    }
}

/// `source` with the macros described above blanked; borrowed when there is
/// nothing to blank.
pub(crate) fn blank_macros(source: &str) -> Cow<'_, str> {
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    // Inside a directive continued over lines (`#define F(x) \`): the
    // macro's body is left as written.
    let mut continued = false;
    for line in source.split_inclusive('\n') {
        if !continued {
            line_spans(line, &source.as_bytes()[start..], start, &mut spans);
        }
        let text = line.trim_end_matches(['\n', '\r']);
        let directive = continued || text.trim_start().starts_with('#');
        continued = directive && text.ends_with('\\');
        start += line.len();
    }
    trailing_spans(source.as_bytes(), &mut spans);
    define_comment_spans(source, &mut spans);
    blank(source, &spans)
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

/// `/* ... */` comments inside a `#define` that runs over several lines:
/// tree-sitter-c ends the macro's body at such a comment and parses the
/// rest as code (`#define HEAD(name) \ struct name { \ int *root; /* the
/// root */ \ }` loses the macro and the next definitions).
fn define_comment_spans(source: &str, spans: &mut Vec<(usize, usize)>) {
    let mut start = 0;
    let mut in_directive = false;
    for line in source.split_inclusive('\n') {
        let s = line.trim_end_matches(['\n', '\r']).as_bytes();
        let continues = s.last() == Some(&b'\\');
        if in_directive || s.get(skip_spaces(s, 0)) == Some(&b'#') {
            if continues || in_directive {
                let mut from = 0;
                while let Some(open) = find(&s[from..], b"/*").map(|p| p + from) {
                    let Some(close) = find(&s[open + 2..], b"*/").map(|p| p + open + 2) else {
                        break;
                    };
                    spans.push((start + open, start + close + 2));
                    from = close + 2;
                }
            }
            in_directive = continues;
        }
        start += line.len();
    }
}

/// Attribute macros after a declarator's parameter list, before the `;`,
/// `{` or `:` that ends it: `g_log (...) G_GNUC_PRINTF (3, 4);`,
/// `localtime_r() FMT_NOEXCEPT {`. Only after a parameter list (a `(...)`
/// right after a name or a `)`), so a cast `(void) UNUSED_VAR;` is left
/// alone.
fn trailing_spans(s: &[u8], spans: &mut Vec<(usize, usize)>) {
    // For each open `(`: whether it follows a name, `)` or `]` (a call or
    // a declarator's parameter list).
    let mut opens: Vec<bool> = Vec::new();
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'/' if s.get(i + 1) == Some(&b'/') => {
                while i < s.len() && s[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if s.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < s.len() && !(s[i] == b'*' && s.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 1;
            }
            b'"' | b'\'' => {
                let q = s[i];
                i += 1;
                while i < s.len() && s[i] != q && s[i] != b'\n' {
                    i += if s[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'(' => {
                let before = s[..i]
                    .iter()
                    .rposition(|b| !b.is_ascii_whitespace())
                    .map(|j| s[j]);
                opens.push(
                    before.is_some_and(|b| {
                        b.is_ascii_alphanumeric() || matches!(b, b'_' | b')' | b']')
                    }),
                );
            }
            b')' if opens.pop() == Some(true) => trailing_after(s, i + 1, spans),
            b'#' if s[..i]
                .iter()
                .rev()
                .take_while(|b| **b != b'\n')
                .all(|b| *b == b' ' || *b == b'\t') =>
            {
                // A directive, with its continuation lines: skipped.
                opens.clear();
                while i < s.len() && !(s[i] == b'\n' && s[i - 1] != b'\\') {
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// The macros (with their arguments) from `s[i..]`, if what follows them
/// ends a declaration.
fn trailing_after(s: &[u8], mut i: usize, spans: &mut Vec<(usize, usize)>) {
    let mut found = Vec::new();
    loop {
        let j = skip_whitespace(s, i);
        let Some(len) = s.get(j..).and_then(macro_len) else {
            break;
        };
        let mut end = j + len;
        let k = skip_spaces(s, end);
        if s.get(k) == Some(&b'(') {
            match close_paren(s, k) {
                Some(e) => end = e,
                None => return,
            }
        }
        found.push((j, end));
        i = end;
    }
    let next = skip_whitespace(s, i);
    let ends = match s.get(next) {
        Some(b';' | b'{') => true,
        Some(b':') => s.get(next + 1) != Some(&b':'),
        _ => false,
    };
    if ends {
        spans.extend(found);
    }
}

fn skip_whitespace(s: &[u8], mut i: usize) -> usize {
    while s.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// Length of a declaration specifier keyword at the start of `s`, followed
/// by a space.
fn specifier_len(s: &[u8]) -> Option<usize> {
    [
        &b"explicit"[..],
        b"inline",
        b"static",
        b"virtual",
        b"constexpr",
        b"friend",
        b"extern",
    ]
    .iter()
    .find(|kw| s.starts_with(kw) && s.get(kw.len()).is_some_and(|b| *b == b' ' || *b == b'\t'))
    .map(|kw| kw.len())
}

/// How far a macro's argument list may run over lines (bytes).
const MAX_MACRO_ARGS: usize = 2000;

/// Whether nothing but spaces and a comment follows `s[i..]` on its line.
fn rest_is_blank(s: &[u8], i: usize) -> bool {
    let j = skip_spaces(s, i);
    match s.get(j) {
        None | Some(b'\n' | b'\r') => true,
        Some(b'/') => matches!(s.get(j + 1), Some(b'/' | b'*')),
        _ => false,
    }
}

/// End of the balanced parentheses starting at `s[i] == '('`, over lines
/// up to [`MAX_MACRO_ARGS`] bytes (string and character literals skipped:
/// `DEPRECATED("use f()")`); None at a `;`, `{` or `}` outside them.
fn close_paren(s: &[u8], i: usize) -> Option<usize> {
    let s = s.get(..(i + MAX_MACRO_ARGS).min(s.len()))?;
    let mut depth = 0usize;
    let mut j = i;
    while let Some(&b) = s.get(j) {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            b'"' | b'\'' => {
                j += 1;
                while *s.get(j)? != b {
                    if s[j] == b'\n' {
                        return None;
                    }
                    j += if s[j] == b'\\' { 2 } else { 1 };
                }
            }
            b';' | b'{' | b'}' => return None,
            _ => {}
        }
        j += 1;
    }
    None
}

/// The spans to blank in one line (`offset`: the line's start in the
/// source).
fn line_spans(line: &str, rest: &[u8], offset: usize, spans: &mut Vec<(usize, usize)>) {
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
    // `NAMESPACE_BEGIN(x)`, also after specifiers (`explicit FMT_CONSTEXPR
    // context(...)`).
    let line_has_paren = s.contains(&b'(');
    while let Some(len) = specifier_len(&s[i..]) {
        i = skip_spaces(s, i + len);
    }
    while let Some(len) = s.get(i..).and_then(macro_len) {
        let after = skip_spaces(s, i + len);
        if rest_is_blank(s, i + len) {
            // Alone on its line (an attribute before the next line's
            // declaration).
            spans.push((offset + i, offset + i + len));
            return;
        }
        match s.get(after) {
            Some(b'(') if after == i + len => {
                // `MACRO(args)` alone on its line or lines, no `{` after it
                // (a trailing comment allowed), or a statement of its own:
                // `PYBIND11_TYPE_CASTER(Type,\n const_name("Dict[") + ...);`
                // (the `;` is kept: an empty declaration or statement, valid
                // wherever the call was).
                if let Some(end) = close_paren(rest, after) {
                    let semi = skip_spaces(rest, end);
                    if rest_is_blank(rest, end)
                        || (rest.get(semi) == Some(&b';') && rest_is_blank(rest, semi + 1))
                    {
                        spans.push((offset + i, offset + end));
                    }
                }
                return;
            }
            Some(&b) if (is_ident_start(b) || b == b'~') && line_has_paren => {
                // An attribute before a function declaration (or a
                // destructor: `PYBIND11_NOINLINE ~handle()`).
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
                || matches!(s.get(next), Some(b'{' | b':' | b'<'))
                || s.get(next..).is_some_and(|r| r.starts_with(b"final"));
            if opens {
                spans.push((offset + m, offset + m + len));
            }
        }
    }
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
    fn trailing_and_multi_line_macros_are_blanked() {
        assert_eq!(
            blanked("void g_log (const gchar *f,\n  ...) G_GNUC_PRINTF (3, 4);\n"),
            "void g_log (const gchar *f,\n  ...)                     ;\n"
        );
        assert_eq!(
            blanked("PYBIND11_DEPRECATED(\n  \"use f() instead\")\nbase() = default;\n"),
            "                    \n                    \nbase() = default;\n"
        );
        assert_eq!(
            blanked("WARNING_DISABLE(4522) // C4522\nclass A {};\n"),
            "                      // C4522\nclass A {};\n"
        );
        assert_eq!(
            blanked("  explicit FMT_CONSTEXPR ctx(int n);\n  PYBIND11_NOINLINE ~h() {}\n"),
            "  explicit               ctx(int n);\n                    ~h() {}\n"
        );
        // A macro call that is a statement of its own goes, its `;` stays.
        assert_eq!(
            blanked("  PYBIND11_TYPE_CASTER(Type,\n    const_name(\"Dict[\") + k::name);\n};\n"),
            "                            \n                                  ;\n};\n"
        );
        // A cast is not a parameter list.
        for s in ["  (void) UNUSED_VAR;\n", "  x = FOO_BAR(y);\n"] {
            assert_eq!(blanked(s), s);
        }
    }

    #[test]
    fn macro_bodies_are_left_as_written() {
        for s in [
            "#define EXPECT_THROW(s, e) \\\n  GTEST_TEST_THROW_(s, e, GTEST_NONFATAL_FAILURE_)\n#define B 1\n",
            "#define F(x) g(x) G_GNUC_CONST;\n",
        ] {
            assert_eq!(blanked(s), s);
        }
    }

    #[test]
    fn comments_inside_multi_line_defines_are_blanked() {
        assert_eq!(
            blanked("#define H(n) \\\nstruct n { /* root */ \\\n}\nint x; /* kept */\n"),
            "#define H(n) \\\nstruct n {            \\\n}\nint x; /* kept */\n"
        );
    }

    #[test]
    fn code_that_only_looks_like_it_is_left_alone() {
        for s in [
            "#define UV_EXTERN extern\n",
            "struct MY_TYPE value;\n",
            "MY_CONST = 3;\n",
            "FOO_BAR(x) + 1;\n",
            "  ASSERT_EQ(a, b) << \"x\";\n",
            "size_T x;\n",
            "int MAX_LEN;\n",
            "FILE *f = fopen(name, \"r\");\n",
        ] {
            assert_eq!(blanked(s), s);
        }
    }
}
