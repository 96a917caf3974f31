//! Shell-style globs on tool names.

pub(super) fn is_glob(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// Shell-style glob match on tool names: `*`, `?`, `[abc]`, `[a-z]`, `[!x]`.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    glob_at(&p, &n)
}

pub(super) fn glob_at(p: &[char], n: &[char]) -> bool {
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, ni));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                '[' => {
                    if let Some((matched, next)) = class_match(&p[pi..], n[ni])
                        && matched
                    {
                        pi += next;
                        ni += 1;
                        continue;
                    }
                }
                c if c == n[ni] => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, sn)) => {
                pi = sp + 1;
                ni = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Match a `[...]` class at the start of `p`; returns (matched, length of the class).
pub(super) fn class_match(p: &[char], c: char) -> Option<(bool, usize)> {
    let end = p.iter().skip(1).position(|&x| x == ']')? + 1;
    let mut body = &p[1..end];
    let negate = matches!(body.first(), Some('!') | Some('^'));
    if negate {
        body = &body[1..];
    }
    let mut i = 0;
    let mut hit = false;
    while i < body.len() {
        if i + 2 < body.len() && body[i + 1] == '-' {
            if body[i] <= c && c <= body[i + 2] {
                hit = true;
            }
            i += 3;
        } else {
            if body[i] == c {
                hit = true;
            }
            i += 1;
        }
    }
    Some((hit != negate, end + 1))
}
