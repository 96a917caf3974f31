//! A stored result read by its definitions: `get_continuation(tool_call_id,
//! symbol="Class.method")` returns that definition's lines, and
//! `get_continuation(tool_call_id, outline=true)` the outline of the whole result.
//!
//! The outline is made from the stored text (the language from the call's file
//! path, else sniffed from the text), with the same outliner and limits as the
//! first view's. A definition larger than one reply comes back as the list of its
//! own definitions, each with its first line, so the next call can name one.

use super::continuation::{ToolReply, check_id, not_cached};
use super::{ResultStore, StoreError};
use crate::outline::{self, Kind, Outline, Symbol};
use crate::quote::json_string;
use crate::render::outline::{Def, dense_within};
use crate::text::{count_chars, plural, thousands};

/// Argument keys that name a read file's path (those of the read_file family in
/// the default thresholds.toml): the language is detected from its extension.
const PATH_KEYS: [&str; 7] = [
    "path",
    "file_path",
    "filePath",
    "absolute_path",
    "target_file",
    "file",
    "filename",
];

/// `method TypeVar.__init__`, `class TypeVar`, `impl Display for Foo`.
fn describe(s: &Symbol) -> String {
    match (&s.detail, s.kind) {
        (Some(d), Kind::Impl) => d.clone(),
        _ => match &s.parent {
            Some(p) => format!("{} {p}.{}", s.kind.as_str(), s.name),
            None => format!("{} {}", s.kind.as_str(), s.name),
        },
    }
}

/// The stored output and its outline, or the reply saying why there is none.
fn outlined(
    store: &dyn ResultStore,
    dialog_id: &str,
    tool_call_id: &str,
) -> Result<Result<(String, Outline), ToolReply>, StoreError> {
    if let Err(reply) = check_id(tool_call_id) {
        return Ok(Err(reply));
    }
    let Some(record) = store.get(dialog_id, tool_call_id)? else {
        return Ok(Err(not_cached(tool_call_id)));
    };
    let path = record
        .meta
        .tool_args
        .as_object()
        .and_then(|o| PATH_KEYS.iter().find_map(|k| o.get(*k)?.as_str()))
        .map(str::to_string)
        // a shell command that printed a file (`cat inspect.py`): the first view
        // outlined it as that file
        .or_else(|| printed_file_name(&record.meta.tool_args));
    let Some((lang, _)) = outline::detect::language(None, path.as_deref(), &record.output) else {
        return Ok(Err(ToolReply::error(&format!(
            "the result of {} is not source code in a language toolcap outlines, so it has no \
             definitions to ask for; use search_tool_output with a pattern instead",
            json_string(tool_call_id)
        ))));
    };
    match outline::outline(&record.output, lang) {
        Ok(o) => Ok(Ok((record.output, o))),
        Err(e) => Ok(Err(ToolReply::error(&format!(
            "the result of {} could not be outlined ({e}); use search_tool_output with a \
             pattern instead",
            json_string(tool_call_id)
        )))),
    }
}

/// Whether `s` is what `wanted` names: its name, or `Parent.name` (also
/// `Parent::name`), the parent being the enclosing definition's name.
fn names(s: &Symbol, wanted: &str) -> bool {
    let split = wanted.rsplit_once("::").or_else(|| wanted.rsplit_once('.'));
    match split {
        Some((parent, name)) if !parent.is_empty() && !name.is_empty() => {
            let parent = parent.rsplit(['.', ':']).next().unwrap_or(parent);
            s.name == name && s.parent.as_deref() == Some(parent)
        }
        _ => s.name == wanted,
    }
}

/// The definitions `wanted` names among `symbols` (see [`get_symbol`]): those
/// of that name or `Parent.name`, except that a name one type bears is the
/// type's although its constructors (Java's, C#'s, C++'s, whose parent is the
/// type: `Type.Type` names them) or a C++ deduction guide bear it too. The
/// recovery section suggests a name only where this finds the one definition
/// it describes.
pub fn resolve<'a>(symbols: &'a [Symbol], wanted: &str) -> Vec<&'a Symbol> {
    let wanted = wanted.trim();
    let found: Vec<&Symbol> = symbols.iter().filter(|s| names(s, wanted)).collect();
    let containers: Vec<&Symbol> = found
        .iter()
        .copied()
        .filter(|s| s.kind.is_container())
        .collect();
    if let [c] = containers[..] {
        return vec![c];
    }
    found
}

/// `get_continuation(tool_call_id, symbol)`: the lines of the definition named
/// `symbol` (with the attribute or decorator lines right above it), within
/// `reply_chars` chars; a definition larger than that comes back as the list of
/// its own definitions with their first lines (or, having none, as its first
/// lines with where to read on). Several definitions of that name are listed
/// with their spans; an unknown name says which names are close.
pub fn get_symbol(
    store: &dyn ResultStore,
    dialog_id: &str,
    tool_call_id: &str,
    symbol: &str,
    reply_chars: usize,
) -> Result<ToolReply, StoreError> {
    let wanted = symbol.trim();
    if wanted.is_empty() {
        return Ok(ToolReply::error(
            "symbol is empty; pass a definition's name like \"parse\" or \"Parser.parse\"",
        ));
    }
    let (text, o) = match outlined(store, dialog_id, tool_call_id)? {
        Ok(x) => x,
        Err(reply) => return Ok(reply),
    };
    // the lines as stored, a CRLF line with its `\r` (counted as the view and
    // the line-range replies count it)
    let mut lines: Vec<&str> = text.split('\n').collect();
    if text.is_empty() || text.ends_with('\n') {
        lines.pop();
    }
    let total = lines.len();
    let found = resolve(&o.symbols, wanted);
    let s = match found.as_slice() {
        [] => return Ok(not_found(tool_call_id, wanted, &o)),
        [one] => *one,
        many => {
            let list: Vec<String> = many
                .iter()
                .map(|s| format!("{} (lines {}-{})", describe(s), s.line, s.end_line))
                .collect();
            return Ok(ToolReply::ok(format!(
                "{} definitions are named {}: {}. Name one with its class (symbol=\"Class.name\") \
                 or read its lines with start_line and end_line.\n",
                many.len(),
                json_string(wanted),
                list.join("; ")
            )));
        }
    };
    // the attribute and decorator lines right above the name's line
    let mut start = s.line;
    while start > 1 {
        let above = lines.get(start - 2).map_or("", |l| l.trim_start());
        if above.starts_with('@') || above.starts_with("#[") {
            start -= 1;
        } else {
            break;
        }
    }
    let end = s.end_line.min(total).max(start);
    let body_chars: usize = (start..=end)
        .map(|n| count_chars(lines.get(n - 1).copied().unwrap_or("")) + 1)
        .sum();
    let head = format!(
        "{} (lines {start}-{end} of {}, {}):\n",
        describe(s),
        thousands(total),
        plural(body_chars, "char", "chars")
    );
    if count_chars(&head) + body_chars <= reply_chars {
        let mut out = head;
        for n in start..=end {
            out.push_str(lines.get(n - 1).copied().unwrap_or(""));
            out.push('\n');
        }
        return Ok(ToolReply::ok(out));
    }
    let id = json_string(tool_call_id);
    // too large for one reply: its own definitions, each with its first line
    let members: Vec<&Symbol> = o
        .symbols
        .iter()
        .filter(|m| m.depth == s.depth + 1 && m.line > s.line && m.end_line <= s.end_line)
        .collect();
    if !members.is_empty() {
        let mut out = format!(
            "{} (lines {start}-{end} of {}, {}: more than one reply holds). Its {}, each with its \
             first line; ask for one with symbol=\"{}.NAME\", or read lines with start_line and \
             end_line:\n",
            describe(s),
            thousands(total),
            plural(body_chars, "char", "chars"),
            plural(members.len(), "definition", "definitions"),
            s.name
        );
        let closing = |left: usize| {
            format!(
                "[... {} more definitions of {} not shown: search_tool_output with tool_call_id={id} \
                 finds them by name]\n",
                thousands(left),
                s.name
            )
        };
        let mut used = count_chars(&out);
        let mut shown = 0;
        for (k, m) in members.iter().enumerate() {
            let first = lines.get(m.line - 1).copied().unwrap_or("");
            let line = format!(
                "{}-{}: {}\n",
                m.line,
                m.end_line,
                first.trim_end_matches('\r')
            );
            // room for the closing count of the others, if any
            let left = members.len() - k - 1;
            let after = if left == 0 {
                0
            } else {
                count_chars(&closing(left))
            };
            if used + count_chars(&line) + after > reply_chars {
                break;
            }
            out.push_str(&line);
            used += count_chars(&line);
            shown += 1;
        }
        if shown < members.len() {
            out.push_str(&closing(members.len() - shown));
        }
        return Ok(ToolReply::ok(out));
    }
    // one large definition: its first lines
    let mut out = head;
    // room for the closing line (its numbers at their widest)
    let closing = |last: usize| {
        format!(
            "[showing lines {start}-{last} of its {start}-{end}. Call get_continuation with \
             tool_call_id={id} start_line={} end_line={end} to read on]\n",
            last + 1
        )
    };
    let room = reply_chars.saturating_sub(count_chars(&out) + count_chars(&closing(end)));
    let mut used = 0;
    let mut last = start - 1;
    for n in start..=end {
        let l = lines.get(n - 1).copied().unwrap_or("");
        let c = count_chars(l) + 1;
        if used + c > room {
            break;
        }
        out.push_str(l);
        out.push('\n');
        used += c;
        last = n;
    }
    if last < start {
        return Ok(ToolReply::ok(format!(
            "{out}[its first line alone is longer than a reply; call fetch_tool_output with \
             tool_call_id={id} and an offset to page through it]\n"
        )));
    }
    out.push_str(&closing(last));
    Ok(ToolReply::ok(out))
}

/// No definition of that name: the names that come close (the same name in
/// another case, or containing it).
fn not_found(tool_call_id: &str, wanted: &str, o: &Outline) -> ToolReply {
    let last = wanted
        .rsplit(['.', ':'])
        .next()
        .unwrap_or(wanted)
        .to_lowercase();
    let close: Vec<String> = o
        .symbols
        .iter()
        .filter(|s| !last.is_empty() && s.name.to_lowercase().contains(&last))
        .take(10)
        .map(|s| format!("{} (lines {}-{})", describe(s), s.line, s.end_line))
        .collect();
    let partial = if o.partial {
        format!(
            " (the outline covers lines 1-{} of {})",
            o.covered_lines, o.lines
        )
    } else {
        String::new()
    };
    let mut msg = format!(
        "no definition named {} in the outline of {}{partial}",
        json_string(wanted),
        json_string(tool_call_id)
    );
    if close.is_empty() {
        msg.push_str(
            "; call get_continuation with outline=true for every definition, or \
                       search_tool_output for the name",
        );
    } else {
        msg.push_str(&format!("; close: {}", close.join("; ")));
    }
    ToolReply::error(&msg)
}

/// `get_continuation(tool_call_id, outline=true)`: the outline of the whole stored
/// result, densely (a class on one line with its members and their spans), top
/// level first, as much as fits in `reply_chars` chars, the rest counted.
pub fn get_outline(
    store: &dyn ResultStore,
    dialog_id: &str,
    tool_call_id: &str,
    reply_chars: usize,
) -> Result<ToolReply, StoreError> {
    let (_, o) = match outlined(store, dialog_id, tool_call_id)? {
        Ok(x) => x,
        Err(reply) => return Ok(reply),
    };
    let mut head = format!(
        "Outline of {} ({}, {} lines, {}",
        json_string(tool_call_id),
        o.language,
        thousands(o.lines),
        plural(o.symbols.len(), "definition", "definitions")
    );
    if o.partial {
        head.push_str(&format!("; covers lines 1-{}", o.covered_lines));
    }
    if o.syntax_errors {
        head.push_str("; best effort: syntax errors");
    }
    head.push_str("). NAME a-b: lines a to b; ask for one with symbol=\"Class.name\":\n");
    if o.symbols.is_empty() {
        return Ok(ToolReply::ok(format!("{head}(no definitions)\n")));
    }
    let defs: Vec<Def> = o.symbols.iter().map(Def::from).collect();
    let mut rank: Vec<usize> = (0..defs.len()).collect();
    rank.sort_by_key(|&i| (defs[i].depth, i));
    let lines = dense_within(
        &defs,
        &rank,
        reply_chars.saturating_sub(count_chars(&head)),
        0,
    );
    let mut out = head;
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    Ok(ToolReply::ok(out))
}

/// The file a shell command printed (`cat inspect.py`, `sed -n '1,80p' a.rs`),
/// for its language: the last word of its `command` (or `cmd`) whose name
/// toolcap knows a language of. (The processor parses print commands fully;
/// the store only needs the name, and cannot import the processor.)
fn printed_file_name(args: &serde_json::Value) -> Option<String> {
    let o = args.as_object()?;
    let command = ["command", "cmd"].iter().find_map(|k| match o.get(*k)? {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Array(a) => Some(
            a.iter()
                .filter_map(serde_json::Value::as_str)
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => None,
    })?;
    command
        .split_whitespace()
        .rev()
        .map(|w| w.trim_matches(|c| c == '\'' || c == '"'))
        .find(|w| outline::detect::language(None, Some(w), "").is_some())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MemoryStore, Record};
    use serde_json::json;

    const SRC: &str = "import os\n\n\nclass Shape:\n    \"\"\"A shape.\"\"\"\n\n    def area(self):\n        return 0\n\n    @property\n    def name(self):\n        return 'shape'\n\n\ndef area(x):\n    return x * x\n";

    fn store() -> MemoryStore {
        let s = MemoryStore::new();
        s.put(&Record::new(
            "d",
            "call_1",
            "read_file",
            &json!({"path": "shapes.py"}),
            SRC,
        ))
        .unwrap();
        s.put(&Record::new(
            "d",
            "call_2",
            "bash",
            &json!({"command": "ls"}),
            "a\nb\n",
        ))
        .unwrap();
        s
    }

    #[test]
    fn a_symbol_by_name_and_by_class() {
        let s = store();
        let r = get_symbol(&s, "d", "call_1", "Shape.name", 3500).unwrap();
        assert_eq!(
            r.text,
            "method Shape.name (lines 10-12 of 16, 57 chars):\n    @property\n    def name(self):\n        return 'shape'\n"
        );
        let r = get_symbol(&s, "d", "call_1", "area", 3500).unwrap();
        assert_eq!(
            r.text,
            "2 definitions are named \"area\": method Shape.area (lines 7-8); function area (lines 15-16). Name one with its class (symbol=\"Class.name\") or read its lines with start_line and end_line.\n"
        );
        let r = get_symbol(&s, "d", "call_1", "Shape", 60).unwrap();
        assert_eq!(
            r.text,
            "class Shape (lines 4-12 of 16, 128 chars: more than one reply holds). Its 2 definitions, each with its first line; ask for one with symbol=\"Shape.NAME\", or read lines with start_line and end_line:\n[... 2 more definitions of Shape not shown: search_tool_output with tool_call_id=\"call_1\" finds them by name]\n"
        );
        // a class larger than a reply: its methods' first lines
        let body = "        x = 1\n".repeat(300);
        let big = format!("class Big:\n    def one(self):\n{body}\n    def two(self):\n{body}");
        s.put(&Record::new(
            "d",
            "call_3",
            "read_file",
            &json!({"file_path": "big.py"}),
            &big,
        ))
        .unwrap();
        let r = get_symbol(&s, "d", "call_3", "Big", 3500).unwrap();
        assert_eq!(
            r.text,
            "class Big (lines 1-604 of 604, 8,450 chars: more than one reply holds). Its 2 definitions, each with its first line; ask for one with symbol=\"Big.NAME\", or read lines with start_line and end_line:\n2-302:     def one(self):\n304-604:     def two(self):\n"
        );
        // a function larger than a reply: its first lines, and where to read on
        let r = get_symbol(&s, "d", "call_3", "Big.two", 500).unwrap();
        assert!(r.text.starts_with("method Big.two (lines 304-604 of 604, 4,219 chars):\n    def two(self):\n        x = 1\n"), "{}", r.text);
        assert!(r.text.ends_with("[showing lines 304-325 of its 304-604. Call get_continuation with tool_call_id=\"call_3\" start_line=326 end_line=604 to read on]\n"), "{}", r.text);
        // (the whole reply within its 500 chars, the closing line counted)
        assert!(count_chars(&r.text) <= 500, "{}", count_chars(&r.text));
    }

    #[test]
    fn unknown_names_and_results_that_are_not_code() {
        let s = store();
        let r = get_symbol(&s, "d", "call_1", "nam", 3500).unwrap();
        assert!(r.is_error);
        assert_eq!(
            r.text,
            r#"{"error": "no definition named \"nam\" in the outline of \"call_1\"; close: method Shape.name (lines 11-12)"}"#
        );
        let r = get_symbol(&s, "d", "call_2", "x", 3500).unwrap();
        assert!(
            r.is_error && r.text.contains("not source code"),
            "{}",
            r.text
        );
        let r = get_symbol(&s, "d", "call_9", "x", 3500).unwrap();
        assert!(r.is_error && r.text.contains("No cached result"));
    }

    #[test]
    fn the_whole_outline() {
        let s = store();
        let r = get_outline(&s, "d", "call_1", 3500).unwrap();
        assert_eq!(
            r.text,
            "Outline of \"call_1\" (python, 16 lines, 4 definitions). NAME a-b: lines a to b; ask for one with symbol=\"Class.name\":\nclass Shape 4-12: area 7-8, name 11-12\nfunction area 15-16\n"
        );
    }
}
