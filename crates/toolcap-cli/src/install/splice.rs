//! Editing a JSON (or JSONC: `//` and `/* */` comments, as Gemini CLI and
//! Claude Code read their settings) file in place: only the top-level members
//! whose value changed are rewritten, so the user's layout, key order, comments
//! and one-line style elsewhere stay byte for byte.

use serde_json::{Map, Value};

/// A top-level member of the file's object: byte spans of its key and value.
#[derive(Debug, Clone, Copy)]
struct Member {
    key_start: usize,
    value_start: usize,
    value_end: usize,
}

/// The text with comments blanked out (same byte offsets: every comment byte
/// becomes a space, newlines kept), for finding spans and for parsing.
pub fn blank_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let mut in_string = false;
    while i < b.len() {
        let c = b[i];
        if in_string {
            match c {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match (c, b.get(i + 1)) {
            (b'"', _) => in_string = true,
            (b'/', Some(b'/')) => {
                while i < b.len() && b[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
                continue;
            }
            (b'/', Some(b'*')) => {
                let start = i;
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                let end = (i + 2).min(b.len());
                for x in &mut out[start..end] {
                    if *x != b'\n' {
                        *x = b' ';
                    }
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    // only ASCII bytes outside strings were replaced by spaces: still UTF-8
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// The top-level members of `plain` (comments blanked), with the byte offset of
/// the object's closing brace; None when it is not one object.
fn members(plain: &str) -> Option<(Vec<(String, Member)>, usize)> {
    let b = plain.as_bytes();
    let skip_ws = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let mut i = skip_ws(0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    let mut out = Vec::new();
    loop {
        i = skip_ws(i);
        match b.get(i)? {
            b'}' => return Some((out, i)),
            b',' => {
                i += 1;
                continue;
            }
            b'"' => {}
            _ => return None,
        }
        let key_start = i;
        let mut de = serde_json::Deserializer::from_str(&plain[i..]).into_iter::<Value>();
        let key = de.next()?.ok()?.as_str()?.to_string();
        i += de.byte_offset();
        i = skip_ws(i);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let value_start = skip_ws(i + 1);
        let mut de = serde_json::Deserializer::from_str(&plain[value_start..]).into_iter::<Value>();
        de.next()?.ok()?;
        let value_end = value_start + de.byte_offset();
        out.push((
            key,
            Member {
                key_start,
                value_start,
                value_end,
            },
        ));
        i = value_end;
    }
}

/// `value` as JSON for a member whose key starts at column `indent` of a
/// multi-line file (pretty, its lines indented to match), or compact for a
/// one-line file.
fn render(value: &Value, indent: usize, one_line: bool) -> Option<String> {
    if one_line {
        return serde_json::to_string(value).ok();
    }
    // the file's own indent unit: its top-level keys' column
    let unit = " ".repeat(indent.max(1));
    let mut buf = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
    serde::Serialize::serialize(value, &mut ser).ok()?;
    let pretty = String::from_utf8(buf).ok()?;
    let pad = " ".repeat(indent);
    Some(pretty.replace('\n', &format!("\n{pad}")))
}

/// `text` with the top-level members of `new` that differ from `old` rewritten,
/// added or removed in place; None when the file's shape is not one this editor
/// reads (the caller then writes the whole file).
pub fn splice(text: &str, old: &Map<String, Value>, new: &Map<String, Value>) -> Option<String> {
    let plain = blank_comments(text);
    let (found, close) = members(&plain)?;
    let one_line = !text.trim_end().contains('\n');
    let indent = found.first().map_or(2, |(_, m)| {
        m.key_start - plain[..m.key_start].rfind('\n').map_or(0, |n| n + 1)
    });
    // edits as (start, end, replacement), applied from the end
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for (key, m) in &found {
        if let Some(v) = new.get(key)
            && old.get(key) != Some(v)
        {
            edits.push((m.value_start, m.value_end, render(v, indent, one_line)?));
        }
    }
    // members that go, in runs of neighbours: each run goes with one comma (the
    // one after it, or before it when it ends the object)
    let stays: Vec<bool> = found.iter().map(|(k, _)| new.contains_key(k)).collect();
    let mut n = 0;
    while n < found.len() {
        if stays[n] {
            n += 1;
            continue;
        }
        let first = n;
        while n < found.len() && !stays[n] {
            n += 1;
        }
        let last = n - 1;
        let (start, end) = match (found.get(n), first.checked_sub(1)) {
            (Some((_, next)), _) => (found[first].1.key_start, next.key_start),
            (None, Some(before)) => (found[before].1.value_end, found[last].1.value_end),
            // every member goes: the object is left empty, `{}` or `{\n}`
            (None, None) => {
                let open = plain[..found[first].1.key_start].rfind('{')?;
                let inside = if one_line { "" } else { "\n" };
                edits.push((open + 1, close, inside.to_string()));
                continue;
            }
        };
        edits.push((start, end, String::new()));
    }
    let added: Vec<(&String, &Value)> = new
        .iter()
        .filter(|(k, _)| !found.iter().any(|(f, _)| f == *k))
        .collect();
    if !added.is_empty() {
        let kept = found.iter().filter(|(k, _)| new.contains_key(k)).count();
        let mut insert = String::new();
        for (i, (k, v)) in added.iter().enumerate() {
            let key = serde_json::to_string(k).ok()?;
            let value = render(v, indent, one_line)?;
            let first = i == 0 && kept == 0;
            if one_line {
                insert.push_str(&format!("{}{key}:{value}", if first { "" } else { "," }));
            } else {
                insert.push_str(&format!(
                    "{}\n{}{key}: {value}",
                    if first { "" } else { "," },
                    " ".repeat(indent)
                ));
            }
        }
        // after the last member that stays, else right after `{`
        let at = found
            .iter()
            .filter(|(k, _)| new.contains_key(k))
            .map(|(_, m)| m.value_end)
            .max()
            .unwrap_or_else(|| plain[..close].rfind('{').map_or(close, |o| o + 1));
        edits.push((at, at, insert));
    }
    edits.sort_by_key(|e| std::cmp::Reverse((e.0, e.1)));
    let mut out = text.to_string();
    for (start, end, with) in edits {
        out.replace_range(start..end, &with);
    }
    // what it says must be what was asked, or the whole-file write is used
    let check: Value = serde_json::from_str(&blank_comments(&out)).ok()?;
    (check.as_object() == Some(new)).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn edit(text: &str, f: impl Fn(&mut Map<String, Value>)) -> String {
        let old: Value = serde_json::from_str(&blank_comments(text)).expect("JSON");
        let old = old.as_object().expect("object").clone();
        let mut new = old.clone();
        f(&mut new);
        splice(text, &old, &new).expect("spliced")
    }

    #[test]
    fn comments_and_layout_stay_around_the_changed_member() {
        let t = "{\n  // my auth\n  \"security\": {\"auth\": 1}, /* keep */\n  \"ui\": 2\n}\n";
        let added = edit(t, |m| {
            m.insert("hooks".into(), json!({"a": [1]}));
        });
        assert!(added.starts_with("{\n  // my auth\n  \"security\": {\"auth\": 1}, /* keep */\n  \"ui\": 2,\n  \"hooks\": {\n    \"a\": ["), "{added}");
        let back = edit(&added, |m| {
            m.remove("hooks");
        });
        assert_eq!(back, t);
    }

    #[test]
    fn one_line_files_stay_one_line_and_come_back_byte_for_byte() {
        let t = "{\"model\":\"opus\"}";
        let added = edit(t, |m| {
            m.insert("env".into(), json!({"A": "b"}));
        });
        assert_eq!(added, "{\"model\":\"opus\",\"env\":{\"A\":\"b\"}}");
        assert_eq!(
            edit(&added, |m| {
                m.remove("env");
            }),
            t
        );
    }

    #[test]
    fn a_changed_member_is_rewritten_in_place() {
        let t = "{\n    \"a\": [1,2],\n    \"b\": 1 // b\n}\n";
        let out = edit(t, |m| {
            m.insert("a".into(), json!([3]));
        });
        assert_eq!(
            out,
            "{\n    \"a\": [\n        3\n    ],\n    \"b\": 1 // b\n}\n"
        );
    }

    #[test]
    fn empty_objects_take_members() {
        assert_eq!(
            edit("{}\n", |m| {
                m.insert("k".into(), json!(1));
            }),
            "{\"k\":1}\n"
        );
        assert_eq!(
            edit("{\n}\n", |m| {
                m.insert("k".into(), json!(1));
            }),
            "{\n  \"k\": 1\n}\n"
        );
    }
}
