//! C, C++ and C#: conditional compilation whose branches are not whole code,
//! read with every condition true ([`blank_conditionals`]).

use std::borrow::Cow;

use super::{blank, skip_spaces};

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
pub(crate) fn blank_conditionals(source: &str) -> Cow<'_, str> {
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
    blank(source, &spans)
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
}
