//! Swift: `#if` directives between the `case`s of a `switch` blanked
//! ([`blank_swift_case_conditionals`]).

use std::borrow::Cow;

use super::blank;

/// Swift: tree-sitter-swift cannot parse a `#if` between the `case`s of a
/// `switch` (`#if os(iOS)\n case UIApplication.willEnterForegroundNotification:
/// ...\n #elseif os(macOS)\n case NSApplication...`: expo-modules-core's
/// `AppContext.swift` lost its whole class). The directive lines of a
/// conditional whose first code line is a `case` or `default` are blanked:
/// every branch's cases are kept, a switch the parser reads.
pub(crate) fn blank_swift_case_conditionals(source: &str) -> Cow<'_, str> {
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
    blank(source, &spans)
}

#[cfg(test)]
mod tests {
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
}
