//! Bash: parameter expansions with an operator read as `${name}`
//! ([`blank_bash_expansions`]).

use std::borrow::Cow;

use super::edited;

/// Bash parameter expansions with an operator (`${theme/ '[GTK2/3]'}`,
/// `${de/ *}`, `${x%%.*}`, `${a:-default}`) read as the plain `${name}`: the
/// operator and its words are moved out as spaces after the `}` (same
/// length). tree-sitter-bash fails on some of these (a quoted pattern with
/// a `/`), and a failure there loses every function after it; what an
/// expansion substitutes does not matter to the outline.
pub(crate) fn blank_bash_expansions(source: &str) -> Cow<'_, str> {
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
    edited(source, bytes)
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

#[cfg(test)]
mod tests {
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
}
