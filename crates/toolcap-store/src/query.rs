//! `query_tool_output(tool_call_id, path)`: a value picked out of a stored JSON result
//! by a path, so the model does not page through the whole document (or re-run the
//! tool through `jq`) for one field.
//!
//! A path is a chain of steps from the document's root (`.` alone is the root):
//!
//! - `.key` or `["key"]` (any key, JSON-escaped): an object's member;
//! - `[N]`: an array's element, `[-1]` the last;
//! - `[*]`: every element of an array (or every member value of an object);
//! - `[key=value]`: the elements of an array whose member `key` equals `value` (a
//!   string compared as is, or a number, `true`, `false` or `null` compared as JSON;
//!   `value` may be quoted: `[name="a b"]`).
//!
//! Steps after `[*]` or `[key=value]` apply to each value picked so far. The reply is
//! the value as indented JSON (several values: a JSON array, after a line saying how
//! many), within the reply budget; a longer value is cut at a line and says how long
//! it is and which keys or how many elements it has, so the next path can be narrower.

use serde_json::Value;

use super::ResultStore;
use super::StoreError;
use super::continuation::{ToolReply, check_id, missing, not_cached};
use crate::quote::json_string;
use crate::text::{count_chars, thousands};

/// The largest stored result parsed as JSON (characters); past this the reply says to
/// search instead.
pub const MAX_QUERY_CHARS: usize = 64 << 20;

/// One step of a path.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Key(String),
    Index(i64),
    All,
    Where(String, String),
}

/// Parses a path into its steps, or says what is wrong at which character.
fn parse_path(path: &str) -> Result<Vec<Step>, String> {
    let chars: Vec<char> = path.trim().chars().collect();
    let mut steps = Vec::new();
    let mut i = 0;
    if chars.is_empty() {
        return Err(
            "path is empty; pass \".\" for the whole document or a path like \".packages[0].name\""
                .to_string(),
        );
    }
    if chars[0] == '$' {
        i = 1;
    }
    let bad = |at: usize, what: &str| {
        format!(
            "path {} is not valid at character {} ({what}); write steps like .key, [\"key\"], [0], [-1], [*] or [name=value]",
            json_string(path.trim()),
            at + 1
        )
    };
    while i < chars.len() {
        match chars[i] {
            '.' => {
                i += 1;
                let start = i;
                while i < chars.len() && chars[i] != '.' && chars[i] != '[' {
                    i += 1;
                }
                let key: String = chars[start..i].iter().collect();
                if key.is_empty() {
                    if i < chars.len() && chars[i] == '[' {
                        continue; // `.[0]` as jq writes it
                    }
                    if i == chars.len() && steps.is_empty() {
                        break; // `.`: the root
                    }
                    return Err(bad(start, "a key is missing after the dot"));
                }
                steps.push(Step::Key(key));
            }
            '[' => {
                let start = i + 1;
                let Some(len) = closing(&chars[start..]) else {
                    return Err(bad(i, "no closing ]"));
                };
                let inner: String = chars[start..start + len].iter().collect();
                let inner = inner.trim();
                i = start + len + 1;
                if inner == "*" {
                    steps.push(Step::All);
                } else if inner.starts_with('"') {
                    match serde_json::from_str::<String>(inner) {
                        Ok(k) => steps.push(Step::Key(k)),
                        Err(_) => return Err(bad(start, "a quoted key must be a JSON string")),
                    }
                } else if let Ok(n) = inner.parse::<i64>() {
                    steps.push(Step::Index(n));
                } else if let Some((k, v)) = inner.split_once('=') {
                    let k = k.trim();
                    let k = if k.starts_with('"') {
                        serde_json::from_str::<String>(k)
                            .map_err(|_| bad(start, "a quoted key must be a JSON string"))?
                    } else {
                        k.to_string()
                    };
                    let v = v.trim();
                    if k.is_empty() || v.is_empty() {
                        return Err(bad(start, "a filter needs key=value"));
                    }
                    steps.push(Step::Where(k, v.to_string()));
                } else {
                    return Err(bad(
                        start,
                        "expected an index, *, a quoted key or key=value",
                    ));
                }
            }
            c => return Err(bad(i, &format!("unexpected {c:?}"))),
        }
    }
    Ok(steps)
}

/// The length of a bracket's contents up to its `]`, skipping `]` inside quotes.
fn closing(chars: &[char]) -> Option<usize> {
    let mut quoted = false;
    let mut escaped = false;
    for (i, &c) in chars.iter().enumerate() {
        if quoted {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                quoted = false;
            }
        } else if c == '"' {
            quoted = true;
        } else if c == ']' {
            return Some(i);
        }
    }
    None
}

/// Whether `v` equals the filter's `want` (a string as is, else as JSON text).
fn equals(v: &Value, want: &str) -> bool {
    let unquoted = serde_json::from_str::<String>(want).ok();
    match v {
        Value::String(s) => s == unquoted.as_deref().unwrap_or(want),
        other => serde_json::from_str::<Value>(want).is_ok_and(|w| &w == other),
    }
}

/// What a value is, for a message: its type and its keys or length.
fn describe(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let keys: Vec<&str> = m.keys().map(String::as_str).collect();
            let mut shown = String::new();
            for k in &keys {
                if count_chars(&shown) > 300 {
                    shown.push_str(&format!(", … ({} keys in all)", keys.len()));
                    break;
                }
                if !shown.is_empty() {
                    shown.push_str(", ");
                }
                shown.push_str(k);
            }
            format!("an object with keys {shown}")
        }
        Value::Array(a) => format!("an array of {} elements", thousands(a.len())),
        Value::String(_) => "a string".to_string(),
        Value::Number(_) => "a number".to_string(),
        Value::Bool(_) => "a boolean".to_string(),
        Value::Null => "null".to_string(),
    }
}

fn step_text(s: &Step) -> String {
    match s {
        Step::Key(k)
            if !k.is_empty()
                && k.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-') =>
        {
            format!(".{k}")
        }
        Step::Key(k) => format!("[{}]", json_string(k)),
        Step::Index(n) => format!("[{n}]"),
        Step::All => "[*]".to_string(),
        Step::Where(k, v) => format!("[{k}={v}]"),
    }
}

/// Applies the steps; an error names the step that found nothing and what was there.
fn select<'a>(root: &'a Value, steps: &[Step]) -> Result<Vec<&'a Value>, String> {
    let mut cur: Vec<&Value> = vec![root];
    let mut at = String::new();
    for step in steps {
        let mut next = Vec::new();
        for v in &cur {
            match (step, v) {
                (Step::Key(k), Value::Object(m)) => next.extend(m.get(k)),
                (Step::Index(n), Value::Array(a)) => {
                    let i = if *n < 0 { a.len() as i64 + n } else { *n };
                    if i >= 0 {
                        next.extend(a.get(i as usize));
                    }
                }
                (Step::All, Value::Array(a)) => next.extend(a.iter()),
                (Step::All, Value::Object(m)) => next.extend(m.values()),
                (Step::Where(k, want), Value::Array(a)) => next.extend(
                    a.iter()
                        .filter(|e| e.get(k.as_str()).is_some_and(|x| equals(x, want))),
                ),
                _ => {}
            }
        }
        if next.is_empty() {
            let here = if at.is_empty() {
                "the document"
            } else {
                at.as_str()
            };
            let what = cur.first().map_or_else(String::new, |v| describe(v));
            return Err(format!(
                "nothing at {at}{} ({here} is {what})",
                step_text(step)
            ));
        }
        at.push_str(&step_text(step));
        cur = next;
    }
    Ok(cur)
}

/// `query_tool_output(tool_call_id, path)`: the value at `path` in a stored JSON
/// result, as indented JSON, the whole reply within `reply_chars` characters.
pub fn query_tool_output(
    store: &dyn ResultStore,
    dialog_id: &str,
    tool_call_id: &str,
    path: &str,
    reply_chars: usize,
) -> Result<ToolReply, StoreError> {
    if let Err(reply) = check_id(tool_call_id) {
        return Ok(reply);
    }
    let steps = match parse_path(path) {
        Ok(s) => s,
        Err(e) => return Ok(ToolReply::error(&e)),
    };
    let Some(meta) = store.meta(dialog_id, tool_call_id)? else {
        return missing(store, dialog_id, tool_call_id, || not_cached(tool_call_id));
    };
    let id = json_string(tool_call_id);
    if meta.size.chars > MAX_QUERY_CHARS {
        return Ok(ToolReply::error(&format!(
            "the result of tool_call_id={id} has {} chars, more than the {} a query parses; call search_tool_output instead",
            thousands(meta.size.chars),
            thousands(MAX_QUERY_CHARS)
        )));
    }
    let Some(record) = store.get(dialog_id, tool_call_id)? else {
        return missing(store, dialog_id, tool_call_id, || not_cached(tool_call_id));
    };
    let doc: Value = match serde_json::from_str(record.output.trim_start_matches('\u{feff}')) {
        Ok(v) => v,
        Err(e) => {
            return Ok(ToolReply::error(&format!(
                "the result of tool_call_id={id} is not JSON (line {}, column {}: {}); call search_tool_output instead",
                e.line(),
                e.column(),
                e.to_string()
                    .split(" at line")
                    .next()
                    .unwrap_or("syntax error")
            )));
        }
    };
    let found = match select(&doc, &steps) {
        Ok(f) => f,
        Err(e) => return Ok(ToolReply::error(&e)),
    };
    let (head, value) = match found.as_slice() {
        [one] => (String::new(), (*one).clone()),
        many => (
            format!(
                "{} values match {}:\n",
                many.len(),
                json_string(path.trim())
            ),
            Value::Array(many.iter().map(|v| (*v).clone()).collect()),
        ),
    };
    let body = serde_json::to_string_pretty(&value).unwrap_or_default();
    let whole = format!("{head}{body}\n");
    if count_chars(&whole) <= reply_chars {
        return Ok(ToolReply::ok(whole));
    }
    // too long: the first lines that fit, then what the value is
    let lines_total = body.lines().count();
    let note_for = |shown: usize| {
        format!(
            "[the value is {} chars in {} lines, {}; showing its first {} lines. Query a narrower path, e.g. {}]\n",
            thousands(count_chars(&body)),
            thousands(lines_total),
            describe(&value),
            thousands(shown),
            narrower(path.trim(), &value)
        )
    };
    let reserve = count_chars(&note_for(lines_total));
    let mut text = head;
    let mut used = count_chars(&text) + reserve;
    let mut shown = 0;
    for line in body.lines() {
        let n = count_chars(line) + 1;
        if used + n > reply_chars {
            break;
        }
        text.push_str(line);
        text.push('\n');
        used += n;
        shown += 1;
    }
    text.push_str(&note_for(shown));
    Ok(ToolReply::ok(text))
}

/// An example of a narrower path below `path` for `value`.
fn narrower(path: &str, value: &Value) -> String {
    let base = if path == "." { "" } else { path };
    match value {
        Value::Object(m) => match m.keys().next() {
            Some(k) => format!("{base}{}", step_text(&Step::Key(k.clone()))),
            None => base.to_string(),
        },
        Value::Array(a) => match a.first() {
            Some(Value::Object(m)) if m.contains_key("name") => format!("{base}[name=...]"),
            _ => format!("{base}[0]"),
        },
        _ => base.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{MemoryStore, Record};

    fn store_with(output: &str) -> MemoryStore {
        let s = MemoryStore::new();
        s.put(&Record::new(
            "d",
            "c1",
            "bash",
            &json!({"command": "cargo metadata"}),
            output,
        ))
        .expect("put");
        s
    }

    fn doc() -> String {
        let pkgs: Vec<Value> = (0..200)
            .map(|i| json!({"name": format!("pkg{i}"), "version": format!("1.{i}.0"), "edition": "2021", "deps": [{"name": "x", "req": "^1"}]}))
            .collect();
        serde_json::to_string_pretty(
            &json!({"packages": pkgs, "version": 1, "weird key": {"a]b": true}}),
        )
        .expect("json")
    }

    fn ask(s: &MemoryStore, path: &str) -> ToolReply {
        query_tool_output(s, "d", "c1", path, 3500).expect("query")
    }

    #[test]
    fn paths_pick_values() {
        let s = store_with(&doc());
        assert_eq!(
            ask(&s, ".packages[name=pkg150].version").text,
            "\"1.150.0\"\n"
        );
        assert_eq!(ask(&s, "$.packages[-1].name").text, "\"pkg199\"\n");
        assert_eq!(ask(&s, ".packages[3][\"edition\"]").text, "\"2021\"\n");
        assert_eq!(ask(&s, "[\"weird key\"][\"a]b\"]").text, "true\n");
        assert_eq!(ask(&s, ".version").text, "1\n");
        let many = ask(&s, ".packages[version=\"1.7.0\"].deps[*].name");
        assert_eq!(many.text, "\"x\"\n");
        let all = ask(&s, ".packages[*].deps[0].req");
        assert!(
            all.text
                .starts_with("200 values match \".packages[*].deps[0].req\":\n[\n  \"^1\",")
        );
    }

    #[test]
    fn a_long_value_is_cut_within_the_budget_and_says_how_to_narrow() {
        let s = store_with(&doc());
        let r = ask(&s, ".");
        assert!(!r.is_error);
        assert!(count_chars(&r.text) <= 3500, "{}", count_chars(&r.text));
        assert!(
            r.text
                .contains("an object with keys packages, version, weird key; showing its first"),
            "{}",
            r.text
        );
        assert!(r.text.contains("Query a narrower path, e.g. .packages]"));
        let r = ask(&s, ".packages");
        assert!(r.text.contains("an array of 200 elements"));
        assert!(r.text.contains("e.g. .packages[name=...]"));
    }

    #[test]
    fn errors_say_what_is_there_and_how_to_fix_it() {
        let s = store_with(&doc());
        let r = ask(&s, ".packages[name=nope]");
        assert!(r.is_error);
        assert!(
            r.text.contains(
                "nothing at .packages[name=nope] (.packages is an array of 200 elements)"
            ),
            "{}",
            r.text
        );
        let r = ask(&s, ".nope");
        assert!(r.text.contains("nothing at .nope (the document is an object with keys packages, version, weird key)"), "{}", r.text);
        let r = ask(&s, ".packages[");
        assert!(
            r.text
                .contains("is not valid at character 10 (no closing ])"),
            "{}",
            r.text
        );
        let plain = store_with("not json at all\n");
        let r = query_tool_output(&plain, "d", "c1", ".a", 3500).expect("q");
        assert!(
            r.is_error && r.text.contains("is not JSON (line 1, column 2"),
            "{}",
            r.text
        );
        assert!(r.text.contains("call search_tool_output instead"));
        let r = query_tool_output(&plain, "d", "nope", ".a", 3500).expect("q");
        assert!(r.text.contains("No cached result"));
    }
}
