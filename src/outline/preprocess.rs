//! What the parser is given instead of the source, where tree-sitter cannot
//! parse around a construct (it does not run the preprocessor), always at
//! the same length, so every byte offset, line and column stays the
//! source's ([`prepare`]):
//!
//! - C/C++ macros ([`blank_macros`]): export and attribute macros around a
//!   declaration (`UV_EXTERN int uv_run(...)`, `class LEVELDB_EXPORT Env {`,
//!   `g_log (...) G_GNUC_PRINTF (3, 4);`), macro calls on lines of their own
//!   (`NAMESPACE_BEGIN(pybind11)`, `GLIB_AVAILABLE_IN_ALL`), comments inside
//!   a multi-line `#define`. A macro here is an upper-case identifier with
//!   an underscore (`[A-Z][A-Z0-9]*_[A-Z0-9_]*`): the convention export,
//!   attribute and namespace macros follow, and one that type names rarely
//!   do.
//! - C, C++ and C# conditional compilation whose branches are not whole
//!   code, read with every condition true ([`blank_conditionals`]).
//! - Bash parameter expansions with an operator, read as `${name}`
//!   ([`blank_bash_expansions`]).
//! - Kotlin calls to functions named like modifiers
//!   ([`rename_kotlin_modifier_calls`]).
//! - Scala 2 identifiers that are Scala 3 keywords (`val enum = ...`,
//!   `inline(...)`) ([`rename_scala3_keywords`]).
//! - Swift `#if` directives between the `case`s of a `switch`
//!   ([`blank_swift_case_conditionals`]).

use std::borrow::Cow;

/// What the parser is given for `source` in `lang`: C and C++: export and
/// attribute macros blanked; C, C++ and C#: conditional compilation
/// tree-sitter cannot parse around read with every condition true; Bash:
/// parameter expansions read as `${name}`; Kotlin: calls to functions named
/// like modifiers renamed; Scala: Scala 2 identifiers that are Scala 3
/// keywords renamed; Swift: `#if` directives between `switch` cases
/// blanked. Same length: every offset, line
/// and column is the source's. Borrowed when nothing changes.
pub(super) fn prepare(source: &str, lang: super::Language) -> Cow<'_, str> {
    match lang.name() {
        "c" | "cpp" => match blank_macros(source) {
            Cow::Borrowed(s) => blank_conditionals(s),
            Cow::Owned(s) => match blank_conditionals(&s) {
                Cow::Owned(t) => Cow::Owned(t),
                Cow::Borrowed(_) => Cow::Owned(s),
            },
        },
        "csharp" => blank_conditionals(source),
        "bash" => blank_bash_expansions(source),
        "kotlin" => rename_kotlin_modifier_calls(source),
        "scala" => rename_scala3_keywords(source),
        "swift" => blank_swift_case_conditionals(source),
        _ => Cow::Borrowed(source),
    }
}

/// `source` with the macros described above blanked; borrowed when there is
/// nothing to blank.
pub(super) fn blank_macros(source: &str) -> Cow<'_, str> {
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
    if spans.is_empty() {
        return Cow::Borrowed(source);
    }
    let mut bytes = source.as_bytes().to_vec();
    for (a, b) in spans {
        if let Some(s) = bytes.get_mut(a..b) {
            for byte in s.iter_mut().filter(|b| !matches!(**b, b'\n' | b'\r')) {
                *byte = b' ';
            }
        }
    }
    // Whole macro calls were replaced (every byte of a character), by ASCII
    // spaces, line breaks kept: still UTF-8.
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

/// Bash parameter expansions with an operator (`${theme/ '[GTK2/3]'}`,
/// `${de/ *}`, `${x%%.*}`, `${a:-default}`) read as the plain `${name}`: the
/// operator and its words are moved out as spaces after the `}` (same
/// length). tree-sitter-bash fails on some of these (a quoted pattern with
/// a `/`), and a failure there loses every function after it; what an
/// expansion substitutes does not matter to the outline.
pub(super) fn blank_bash_expansions(source: &str) -> Cow<'_, str> {
    let s = source.as_bytes();
    let mut edits: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i + 1 < s.len() {
        if s[i] == b'$' && s[i + 1] == b'{' && (i == 0 || s[i - 1] != b'\\') {
            let name = i + 2;
            let name_end = name
                + s[name..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                    .count();
            let op = s.get(name_end).copied();
            if name_end > name
                && matches!(op, Some(b'/' | b'%' | b'#' | b':' | b'^' | b','))
                && let Some(close) = expansion_end(s, name_end)
            {
                // `${name` kept, `OPERATOR...` blanked, `}` moved
                // right after the name.
                edits.push((name_end, close));
                i = close + 1;
                continue;
            }
        }
        i += 1;
    }
    if edits.is_empty() {
        return Cow::Borrowed(source);
    }
    let mut bytes = s.to_vec();
    for (from, close) in edits {
        if let Some(span) = bytes.get_mut(from..=close) {
            let keep_newlines: Vec<bool> = span.iter().map(|b| *b == b'\n').collect();
            for (b, nl) in span.iter_mut().zip(keep_newlines) {
                *b = if nl { b'\n' } else { b' ' };
            }
            span[0] = b'}';
        }
    }
    // Whole expansions were rewritten to ASCII: still UTF-8.
    match String::from_utf8(bytes) {
        Ok(s) => Cow::Owned(s),
        Err(_) => Cow::Borrowed(source),
    }
}

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
pub(super) fn rename_kotlin_modifier_calls(source: &str) -> Cow<'_, str> {
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

/// `source` with the ASCII letter at each byte offset of `at` replaced by `_`
/// (same length, still UTF-8); borrowed when `at` is empty.
fn underscore_at<'a>(source: &'a str, at: &[usize]) -> Cow<'a, str> {
    if at.is_empty() {
        return Cow::Borrowed(source);
    }
    let mut bytes = source.as_bytes().to_vec();
    for &pos in at {
        bytes[pos] = b'_';
    }
    // An ASCII letter replaced by `_`: still UTF-8.
    match String::from_utf8(bytes) {
        Ok(s) => Cow::Owned(s),
        Err(_) => Cow::Borrowed(source),
    }
}

/// Scala: tree-sitter-scala reads Scala 3, where `enum` and `inline` are
/// keywords; in Scala 2 code they are identifiers (`val enum =
/// zipFile.entries()`, `val r = inline(callsite, ...)`: the Scala 2.11
/// library and compiler), a parse error that loses the class around it. Their
/// first letter becomes `_` where they are not Scala 3's: `enum` not followed
/// by a name (`enum Color`), `inline` right before `(`. Not after `.` or a
/// backtick, nor where the word is a listed definition's own name (after
/// `def`, `type`, `class`, `object`, `trait`: the outline's names are read
/// from what the parser is given; a `val` is not listed).
pub(super) fn rename_scala3_keywords(source: &str) -> Cow<'_, str> {
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

/// Swift: tree-sitter-swift cannot parse a `#if` between the `case`s of a
/// `switch` (`#if os(iOS)\n case UIApplication.willEnterForegroundNotification:
/// ...\n #elseif os(macOS)\n case NSApplication...`: expo-modules-core's
/// `AppContext.swift` lost its whole class). The directive lines of a
/// conditional whose first code line is a `case` or `default` are blanked:
/// every branch's cases are kept, a switch the parser reads.
pub(super) fn blank_swift_case_conditionals(source: &str) -> Cow<'_, str> {
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut at = 0;
    for line in source.split_inclusive('\n') {
        lines.push((at, line));
        at += line.len();
    }
    fn directive(line: &str) -> Option<&str> {
        let t = line.trim_start().strip_prefix('#')?;
        let end = t
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(t.len());
        Some(&t[..end]).filter(|w| matches!(*w, "if" | "elseif" | "else" | "endif"))
    }
    let mut spans = Vec::new();
    // Open conditionals: their directive lines so far, and whether their
    // first code line is a case.
    let mut stack: Vec<(Vec<(usize, usize)>, bool)> = Vec::new();
    for (i, (start, line)) in lines.iter().enumerate() {
        let Some(word) = directive(line) else {
            continue;
        };
        let span = (*start, start + line.len());
        match word {
            "if" => {
                let next = lines[i + 1..]
                    .iter()
                    .map(|(_, l)| l.trim())
                    .find(|l| !l.is_empty() && !l.starts_with("//"));
                let cases = next.is_some_and(|l| {
                    l.starts_with("case ") || l.starts_with("default:") || l.starts_with("@unknown")
                });
                stack.push((vec![span], cases));
            }
            "endif" => {
                if let Some((mut spans_of, cases)) = stack.pop() {
                    spans_of.push(span);
                    if cases {
                        spans.extend(spans_of);
                    }
                }
            }
            _ => {
                if let Some((spans_of, _)) = stack.last_mut() {
                    spans_of.push(span);
                }
            }
        }
    }
    if spans.is_empty() {
        return Cow::Borrowed(source);
    }
    let mut bytes = source.as_bytes().to_vec();
    for (a, b) in spans {
        if let Some(s) = bytes.get_mut(a..b) {
            for byte in s.iter_mut().filter(|b| !matches!(**b, b'\n' | b'\r')) {
                *byte = b' ';
            }
        }
    }
    // Whole lines were blanked (every byte of a character): still UTF-8.
    match String::from_utf8(bytes) {
        Ok(s) => Cow::Owned(s),
        Err(_) => Cow::Borrowed(source),
    }
}

/// The `}` closing a `${...}` whose operator starts at `i` (nested `${`
/// and quoted words skipped); None past a line or 4,000 bytes.
fn expansion_end(s: &[u8], mut i: usize) -> Option<usize> {
    let limit = (i + 4000).min(s.len());
    let mut depth = 0usize;
    while i < limit {
        match s[i] {
            b'\\' => i += 1,
            b'\'' | b'"' => {
                let q = s[i];
                i += 1;
                while i < limit && s[i] != q {
                    if s[i] == b'\\' && q == b'"' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'\n' => return None,
            b'{' if s[i - 1] == b'$' => depth += 1,
            b'}' if depth > 0 => depth -= 1,
            b'}' => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
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
    while s.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
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

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn skip_spaces(s: &[u8], mut i: usize) -> usize {
    while s.get(i).is_some_and(|b| *b == b' ' || *b == b'\t') {
        i += 1;
    }
    i
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

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Conditional compilation (`#if`/`#ifdef`/`#elif`/`#else`/`#endif`, C, C++
/// and C#) that tree-sitter cannot parse around, read as the preprocessor
/// would with every condition true, by blanking (same length, newlines
/// kept):
///
/// - a conditional any of whose branches is not whole code: one that closes
///   more braces, parentheses or brackets than it opens or leaves some open
///   (`if (x) {` in one branch and `if (!x) {` in the other; `} else if
///   (y) {`), or that starts with a token continuing the code before it (`:
///   public Base` inside a class head): its directives and every branch but
///   the first;
/// - `#if 0` (or `false`): its first branch and its directives.
///
/// Any other conditional (whole declarations in each branch, an include
/// guard) is left as written: tree-sitter parses those, and the
/// definitions of every branch are listed.
pub(super) fn blank_conditionals(source: &str) -> Cow<'_, str> {
    if !source.contains('#') {
        return Cow::Borrowed(source);
    }
    let lines = scan_lines(source);
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut stack: Vec<Cond> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        let next = i + 1 + line.continued;
        match line.directive {
            Some(Directive::If { zero }) => stack.push(Cond {
                directives: vec![(line.start, lines[next - 1].end)],
                branches: vec![Branch::starting(i)],
                zero,
            }),
            Some(Directive::Else) if !stack.is_empty() => {
                if let Some(c) = stack.last_mut() {
                    c.directives.push((line.start, lines[next - 1].end));
                    if let Some(b) = c.branches.last_mut() {
                        b.end_line = i;
                    }
                    c.branches.push(Branch::starting(next - 1));
                }
            }
            Some(Directive::Endif) if !stack.is_empty() => {
                if let Some(mut c) = stack.pop() {
                    c.directives.push((line.start, lines[next - 1].end));
                    if let Some(b) = c.branches.last_mut() {
                        b.end_line = i;
                    }
                    let effective = c.decide(&lines, &mut spans);
                    // The code outside any conditional needs no balance.
                    if let Some(b) = stack.last_mut().and_then(|p| p.branches.last_mut()) {
                        b.add(&effective);
                    }
                }
            }
            Some(_) => {}
            None => {
                if let Some(b) = stack.last_mut().and_then(|c| c.branches.last_mut()) {
                    b.add(&line.code);
                }
            }
        }
        i = next;
    }
    // Conditionals left open at the end (a cut source): decided as they are.
    while let Some(mut c) = stack.pop() {
        if let Some(b) = c.branches.last_mut() {
            b.end_line = lines.len();
        }
        let effective = c.decide(&lines, &mut spans);
        if let Some(b) = stack.last_mut().and_then(|p| p.branches.last_mut()) {
            b.add(&effective);
        }
    }
    if spans.is_empty() {
        return Cow::Borrowed(source);
    }
    let mut bytes = source.as_bytes().to_vec();
    for (a, b) in spans {
        if let Some(s) = bytes.get_mut(a..b) {
            for byte in s.iter_mut().filter(|b| !matches!(**b, b'\n' | b'\r')) {
                *byte = b' ';
            }
        }
    }
    // Whole lines were blanked (every byte of a character): still UTF-8.
    match String::from_utf8(bytes) {
        Ok(s) => Cow::Owned(s),
        Err(_) => Cow::Borrowed(source),
    }
}

/// A conditional-compilation directive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Directive {
    /// `#if`, `#ifdef`, `#ifndef`; `zero`: `#if 0` / `#if false`.
    If {
        zero: bool,
    },
    /// `#elif`, `#elifdef`, `#elifndef`, `#else`.
    Else,
    Endif,
    /// Any other directive (`#define`, `#include`, `#region`, ...).
    Other,
}

/// The bracket balance of a stretch of code, and its first token.
#[derive(Debug, Clone, Copy, Default)]
struct Code {
    /// Net depth change (`{`, `(` and `[` open, `}`, `)` and `]` close).
    delta: i32,
    /// The lowest depth reached, relative to the start (0 or less).
    min: i32,
    /// Whether the stretch starts with a token continuing the code before
    /// it (`:`, `,`, `)`, `.`, `?`, `=`, `&&`, `||`, `->`); None when it has
    /// no code.
    continues: Option<bool>,
}

#[derive(Debug)]
struct Line {
    /// Byte range, without the line break.
    start: usize,
    end: usize,
    directive: Option<Directive>,
    /// For a directive: how many following lines continue it (`\`).
    continued: usize,
    code: Code,
}

#[derive(Debug, Default)]
struct Branch {
    /// The line of the directive opening it (its content follows it), and
    /// the line of the directive closing it.
    dir_line: usize,
    end_line: usize,
    code: Code,
}

impl Branch {
    fn starting(dir_line: usize) -> Branch {
        Branch {
            dir_line,
            end_line: dir_line,
            code: Code::default(),
        }
    }

    /// Append a stretch of code.
    fn add(&mut self, code: &Code) {
        if self.code.continues.is_none() {
            self.code.continues = code.continues;
        }
        self.code.min = self.code.min.min(self.code.delta + code.min);
        self.code.delta += code.delta;
    }

    fn whole(&self) -> bool {
        self.code.delta == 0 && self.code.min == 0 && self.code.continues != Some(true)
    }
}

struct Cond {
    /// Byte ranges of its directive lines.
    directives: Vec<(usize, usize)>,
    branches: Vec<Branch>,
    zero: bool,
}

impl Cond {
    /// Push the spans to blank; return the code the parser will see in its
    /// place (for the enclosing branch's balance).
    fn decide(self, lines: &[Line], spans: &mut Vec<(usize, usize)>) -> Code {
        let content = |b: &Branch| -> Option<(usize, usize)> {
            let first = lines.get(b.dir_line + 1)?;
            let last = lines.get(b.end_line.checked_sub(1)?)?;
            (b.end_line > b.dir_line + 1).then_some((first.start, last.end))
        };
        let mut branches = self.branches.into_iter();
        if self.zero {
            if let Some(first) = branches.next()
                && let Some(span) = content(&first)
            {
                spans.push(span);
            }
            spans.extend(self.directives);
            // What follows `#if 0 ... #else` is kept as plain code.
            return branches.next().map(|b| b.code).unwrap_or_default();
        }
        let all: Vec<Branch> = branches.collect();
        let first = all.first().map(|b| b.code).unwrap_or_default();
        if all.iter().all(Branch::whole) {
            // Parsed as written; the first branch stands for it.
            return first;
        }
        spans.extend(self.directives);
        for b in all.iter().skip(1) {
            if let Some(span) = content(b) {
                spans.push(span);
            }
        }
        first
    }
}

/// Every line of `source` with its directive or its code's balance,
/// skipping comments, string and character literals.
fn scan_lines(source: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut in_comment = false;
    let mut start = 0;
    let mut continuing = 0usize;
    for raw in source.split_inclusive('\n') {
        let text = raw.trim_end_matches(['\n', '\r']);
        let s = text.as_bytes();
        let end = start + text.len();
        let ends_with_backslash = s.last() == Some(&b'\\');
        if continuing > 0 {
            // A continuation line of a directive.
            scan_code(s, &mut in_comment);
            out.push(Line {
                start,
                end,
                directive: Some(Directive::Other),
                continued: 0,
                code: Code::default(),
            });
            if let Some(owner) = out.len().checked_sub(continuing + 1)
                && let Some(l) = out.get_mut(owner)
            {
                l.continued += 1;
            }
            continuing = if ends_with_backslash {
                continuing + 1
            } else {
                0
            };
        } else {
            let trimmed = skip_spaces(s, 0);
            let directive = (!in_comment && s.get(trimmed) == Some(&b'#'))
                .then(|| directive(&s[trimmed + 1..]));
            let code = scan_code(s, &mut in_comment);
            if directive.is_some() && ends_with_backslash {
                continuing = 1;
            }
            out.push(Line {
                start,
                end,
                directive,
                continued: 0,
                code: if directive.is_some() {
                    Code::default()
                } else {
                    code
                },
            });
        }
        start += raw.len();
    }
    out
}

fn directive(s: &[u8]) -> Directive {
    let i = skip_spaces(s, 0);
    let word_len = s.get(i..).map_or(0, |r| {
        r.iter().take_while(|b| b.is_ascii_alphabetic()).count()
    });
    let word = s.get(i..i + word_len).unwrap_or(b"");
    match word {
        b"if" => {
            let rest = s.get(i + word_len..).unwrap_or(b"");
            let j = skip_spaces(rest, 0);
            let arg_len = rest.get(j..).map_or(0, |r| {
                r.iter().take_while(|b| b.is_ascii_alphanumeric()).count()
            });
            let arg = rest.get(j..j + arg_len).unwrap_or(b"");
            let after = skip_spaces(rest, j + arg_len);
            let ends = rest
                .get(after..)
                .is_none_or(|r| r.is_empty() || r.starts_with(b"//") || r.starts_with(b"/*"));
            Directive::If {
                zero: ends && (arg == b"0" || arg == b"false"),
            }
        }
        b"ifdef" | b"ifndef" => Directive::If { zero: false },
        b"elif" | b"elifdef" | b"elifndef" | b"else" => Directive::Else,
        b"endif" => Directive::Endif,
        _ => Directive::Other,
    }
}

/// The balance of one line of code; `in_comment` carries a `/* ... */`
/// comment across lines.
fn scan_code(s: &[u8], in_comment: &mut bool) -> Code {
    let mut code = Code::default();
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        if *in_comment {
            if b == b'*' && s.get(i + 1) == Some(&b'/') {
                *in_comment = false;
                i += 2;
            } else {
                i += 1;
            }
            continue;
        }
        match b {
            b'/' if s.get(i + 1) == Some(&b'/') => break,
            b'/' if s.get(i + 1) == Some(&b'*') => {
                *in_comment = true;
                i += 2;
                continue;
            }
            b' ' | b'\t' | b'\r' | 0x0c => {
                i += 1;
                continue;
            }
            _ => {}
        }
        if code.continues.is_none() {
            let two = s.get(i..i + 2).unwrap_or(b"");
            code.continues = Some(
                matches!(b, b':' | b',' | b')' | b'.' | b'?' | b'=' | b']') && two != b"::"
                    || two == b"&&"
                    || two == b"||"
                    || two == b"->",
            );
        }
        match b {
            b'"' | b'\'' => {
                // A literal, to its closing quote on this line.
                i += 1;
                while i < s.len() && s[i] != b {
                    i += if s[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'{' | b'(' | b'[' => code.delta += 1,
            b'}' | b')' | b']' => {
                code.delta -= 1;
                code.min = code.min.min(code.delta);
            }
            _ => {}
        }
        i += 1;
    }
    code
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

    fn conditionals(s: &str) -> String {
        let out = super::blank_conditionals(s).into_owned();
        assert_eq!(out.len(), s.len());
        out
    }

    #[test]
    fn conditionals_that_split_code_keep_their_first_branch() {
        // Unbalanced branches: the first is kept, the directives and the
        // other branches blanked (line breaks kept).
        assert_eq!(
            conditionals(
                "int f(int x) {\n#ifdef A\n  if (x) {\n#else\n  if (!x) {\n#endif\n  }\n}\n"
            ),
            "int f(int x) {\n        \n  if (x) {\n     \n           \n      \n  }\n}\n"
        );
        // A branch continuing the code before it (a base clause).
        assert_eq!(
            conditionals("class A\n#if OLD\n  : public B\n#endif\n{};\n"),
            "class A\n       \n  : public B\n      \n{};\n"
        );
        // `#if 0`: its first branch goes, the `#else` branch stays.
        assert_eq!(
            conditionals("#if 0\nint a;\n#else\nint b;\n#endif\n"),
            "     \n      \n     \nint b;\n      \n"
        );
    }

    #[test]
    fn whole_conditionals_are_left_as_written() {
        for s in [
            "#ifndef H_\n#define H_\nint f(void);\n#endif\n",
            "#ifdef _WIN32\nint f(void) { return 1; }\n#else\nint f(void) { return 2; }\n#endif\n",
            "#if A\n#define X \\\n  {\n#endif\n",
            "/*\n#if 0\n*/\nint a;\n",
        ] {
            assert_eq!(conditionals(s), s);
        }
    }

    #[test]
    fn bash_expansions_read_as_the_plain_name() {
        let b = |s: &str| {
            let out = super::blank_bash_expansions(s).into_owned();
            assert_eq!(out.len(), s.len());
            out
        };
        assert_eq!(
            b("theme=\"${theme/ '[GTK2/3]'}\"\n"),
            "theme=\"${theme}            \"\n"
        );
        assert_eq!(b("x=${a:-${b%.*}} y\n"), "x=${a}          y\n");
        for s in ["echo ${name} $x \\${a/b}\n", "echo ${#arr[@]}\n", "'${'\n"] {
            assert_eq!(b(s), s);
        }
    }

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

    #[test]
    fn swift_conditionals_between_switch_cases_are_blanked() {
        let k = |s: &str| super::blank_swift_case_conditionals(s).into_owned();
        assert_eq!(
            k(
                "switch n {\n#if os(iOS)\ncase .a:\n  f()\n#else\ncase .b:\n  g()\n#endif\ndefault:\n  return\n}\n"
            ),
            "switch n {\n           \ncase .a:\n  f()\n     \ncase .b:\n  g()\n      \ndefault:\n  return\n}\n"
        );
        for s in [
            "#if os(iOS)\nimport UIKit\n#endif\n",
            "class A {\n  #if DEBUG\n  func f() {}\n  #endif\n}\n",
        ] {
            assert_eq!(k(s), s);
        }
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
