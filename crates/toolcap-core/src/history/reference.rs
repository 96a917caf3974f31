//! The one line a masked result becomes, and reading it back.
//!
//! ```text
//! [result of read_file 'src/x.rs' (tool_call_id "call_12", 48,210 chars, 1,203 lines) masked — get_continuation(tool_call_id="call_12", offset=0)  # read it again from the start]
//! ```
//!
//! The sizes are those of the text the line replaces, counted exactly. When the
//! store holds a larger original (the model was shown a cut of it), its size
//! follows: `(..., 2,412 chars, 61 lines; 48,210 chars, 1,203 lines stored)`.
//! The call is the recovery call of the harness's tools
//! ([`crate::hints::calls::stored_read_call`]). Without a store the line says
//! the result was not kept and names the tool to call again.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::cut::index::Totals;
use crate::hints::Suggestion;
use crate::quote::{json_string, shell_word};
use crate::text::{ellipsize, plural, static_regex};

/// How the line begins (what recognising it starts from).
pub(super) const START: &str = "[result of ";

/// Longest subject shown (a path, a command, a URL), in chars.
const MAX_SUBJECT_CHARS: usize = 80;

/// Argument keys naming what a call was about, in the order they are looked for.
pub(super) const SUBJECT_KEYS: &[&str] = &[
    "path",
    "file_path",
    "filePath",
    "filename",
    "file",
    "notebook_path",
    "url",
    "uri",
    "command",
    "cmd",
    "pattern",
    "query",
];

/// What a call was about: the first subject argument that is a string (a
/// command given as an argv list is its words joined by spaces).
pub(super) fn subject(args: &Value) -> Option<String> {
    let obj = args.as_object()?;
    SUBJECT_KEYS.iter().find_map(|k| match obj.get(*k)? {
        Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        Value::Array(words) if !words.is_empty() => Some(
            words
                .iter()
                .map(|w| w.as_str().map_or_else(|| w.to_string(), str::to_string))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => None,
    })
}

/// The subject as shown on the line: its first line, at most
/// [`MAX_SUBJECT_CHARS`] chars, as one shell word (quoted when needed).
fn shown_subject(s: &str) -> Option<String> {
    let first = s.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut short = ellipsize(first, MAX_SUBJECT_CHARS);
    if first.len() < s.trim().len() && !short.ends_with('…') {
        short.push('…');
    }
    shell_word(&short)
}

/// Where the masked result can be had again.
pub(super) enum Back<'a> {
    /// In the store: this call reads it; `full` is the stored size when it is
    /// not the size of the text masked.
    Stored {
        call: Option<&'a Suggestion>,
        full: Option<Totals>,
    },
    /// Nowhere: the tool must be called again.
    NotKept,
}

/// The line that replaces a result of `tool` (arguments `args`) under `id`,
/// whose text had `size`.
pub(super) fn render(tool: &str, args: &Value, id: &str, size: Totals, back: &Back<'_>) -> String {
    let tool_shown = if tool.is_empty() { "a tool" } else { tool };
    let mut line = format!("{START}{tool_shown}");
    if let Some(s) = subject(args).as_deref().and_then(shown_subject) {
        line.push(' ');
        line.push_str(&s);
    }
    line.push_str(&format!(
        " (tool_call_id {}, {}, {}",
        json_string(id),
        plural(size.chars, "char", "chars"),
        plural(size.lines, "line", "lines")
    ));
    if let Back::Stored {
        full: Some(full), ..
    } = back
    {
        line.push_str(&format!(
            "; {}, {} stored",
            plural(full.chars, "char", "chars"),
            plural(full.lines, "line", "lines")
        ));
    }
    line.push_str(") masked");
    match back {
        Back::Stored {
            call: Some(call), ..
        } => {
            line.push_str(" — ");
            line.push_str(&call.render());
        }
        Back::Stored { call: None, .. } => {
            line.push_str(" — stored under this tool_call_id");
        }
        Back::NotKept => {
            line.push_str("; not stored — call ");
            line.push_str(tool_shown);
            line.push_str(" again to see it");
        }
    }
    line.push(']');
    // one line whatever the call holds (a shell command's line ends are escaped
    // as JSON; a display subject has none)
    line.replace('\n', " ")
}

static MASKED: LazyLock<Regex> = LazyLock::new(|| {
    static_regex(
        r#"^\[result of [^\n]*? \(tool_call_id ("(?:[^"\\]|\\.)*"), ([0-9,]+) chars?, ([0-9,]+) lines?[;)][^\n]*\]$"#,
    )
});

/// A masked line read back: the id and the size of the text it replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Masked {
    pub id: String,
    pub chars: usize,
    pub lines: usize,
}

/// `text` read as a masked line, when it is one.
pub(super) fn recognise(text: &str) -> Option<Masked> {
    if !text.starts_with(START) {
        return None;
    }
    let c = MASKED.captures(text)?;
    let id: String = serde_json::from_str(c.get(1)?.as_str()).ok()?;
    let num = |i: usize| c.get(i)?.as_str().replace(',', "").parse::<usize>().ok();
    Some(Masked {
        id,
        chars: num(2)?,
        lines: num(3)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, json};

    fn size(chars: usize, lines: usize) -> Totals {
        Totals {
            chars,
            bytes: chars,
            lines,
        }
    }

    #[test]
    fn the_line_states_exact_sizes_and_reads_back() {
        let mut args = Map::new();
        args.insert("tool_call_id".into(), json!("call_12"));
        args.insert("offset".into(), json!(0));
        let call = Suggestion {
            tool: "get_continuation".into(),
            args,
            purpose: "read it again from the start".into(),
        };
        let back = Back::Stored {
            call: Some(&call),
            full: None,
        };
        let line = render(
            "read_file",
            &json!({"path": "src/x.rs"}),
            "call_12",
            size(48210, 1203),
            &back,
        );
        assert_eq!(
            line,
            "[result of read_file src/x.rs (tool_call_id \"call_12\", 48,210 chars, 1,203 lines) \
             masked — get_continuation(tool_call_id=\"call_12\", offset=0)  # read it again from the start]"
        );
        assert_eq!(
            recognise(&line),
            Some(Masked {
                id: "call_12".into(),
                chars: 48210,
                lines: 1203
            })
        );
    }

    #[test]
    fn untrusted_subjects_and_ids_stay_on_one_quoted_line() {
        let line = render(
            "bash",
            &json!({"command": "echo 'a b'\nrm -rf x"}),
            "id \"q\"\n",
            size(1, 1),
            &Back::NotKept,
        );
        assert_eq!(
            line,
            "[result of bash 'echo '\\''a b'\\''…' (tool_call_id \"id \\\"q\\\"\\n\", 1 char, 1 line) \
             masked; not stored — call bash again to see it]"
        );
        assert!(!line.contains('\n'));
        assert_eq!(
            recognise(&line).map(|m| m.id),
            Some("id \"q\"\n".to_string())
        );
    }

    #[test]
    fn a_stored_original_larger_than_the_text_is_named() {
        let line = render(
            "grep",
            &json!({"pattern": "fn main"}),
            "c1",
            size(2412, 61),
            &Back::Stored {
                call: None,
                full: Some(size(48210, 1203)),
            },
        );
        assert!(line.contains(
            "(tool_call_id \"c1\", 2,412 chars, 61 lines; 48,210 chars, 1,203 lines stored) masked"
        ));
        assert_eq!(recognise(&line).map(|m| m.chars), Some(2412));
        assert_eq!(recognise("[result of nothing]"), None);
    }
}
