//! The recovery tools' definitions: their names, descriptions and JSON
//! schemas, in the OpenAI or the Anthropic form.

use serde_json::{Value, json};

use super::{
    FETCH_TOOL_OUTPUT, GET_CONTINUATION, GET_TOOL_RESULT, QUERY_TOOL_OUTPUT, SEARCH_TOOL_OUTPUT,
};
use crate::lines;

/// The shape of tool definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::EnumString)]
#[strum(serialize_all = "lowercase")]
pub enum ToolFormat {
    /// `[{"type": "function", "function": {"name", "description", "parameters"}}]`
    OpenAi,
    /// `[{"name", "description", "input_schema"}]`
    Anthropic,
}

impl ToolFormat {
    /// `openai` or `anthropic`.
    pub fn parse(s: &str) -> Option<ToolFormat> {
        s.parse().ok()
    }
}

fn id_param() -> Value {
    json!({
        "type": "string",
        "description": "The id of the tool call whose result was cut (as given in the result's recovery notes)."
    })
}

/// (name, description, JSON schema of the arguments) of each recovery tool.
fn specs(chunk_chars: usize, reply_chars: usize) -> [(&'static str, String, Value); 5] {
    [
        (
            GET_CONTINUATION,
            format!(
                "Read more of a tool result that was cut short. Returns up to {chunk_chars} characters \
                 of the full result starting at `offset`, or whole lines from `start_line` (to \
                 `end_line`, up to {reply_chars} characters a reply); while more remains, the text ends with a note saying where to continue. \
                 For source code: `symbol` returns one definition's lines by name, `outline` lists every definition with its lines."
            ),
            json!({
                "type": "object",
                "properties": {
                    "tool_call_id": id_param(),
                    "offset": {
                        "type": "integer",
                        "minimum": 0,
                        "description": "Character offset to read from. Omit to continue right after what was shown."
                    },
                    "start_line": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "Read whole lines from this line (1-based) instead of from a character offset."
                    },
                    "end_line": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "With start_line: the last line wanted (inclusive; default: as many as fit in one reply)."
                    },
                    "symbol": {
                        "type": "string",
                        "description": "A definition's name (\"parse\", or \"Parser.parse\" for a method): its lines, or, when larger than one reply, its own definitions with their first lines."
                    },
                    "outline": {
                        "type": "boolean",
                        "description": "true: every definition of the result with its lines (a class on one line with its methods)."
                    }
                },
                "required": ["tool_call_id"],
                "additionalProperties": false
            }),
        ),
        (
            FETCH_TOOL_OUTPUT,
            "Fetch a stored tool call: its tool name, arguments and full output, as JSON. Pass \
             offset and limit (characters) to page through a very large output."
                .to_string(),
            json!({
                "type": "object",
                "properties": {
                    "tool_call_id": id_param(),
                    "offset": {"type": "integer", "minimum": 0, "description": "First character of the output to return (default 0)."},
                    "limit": {"type": "integer", "minimum": 1, "description": "Most characters of the output to return (default: all)."}
                },
                "required": ["tool_call_id"],
                "additionalProperties": false
            }),
        ),
        (
            GET_TOOL_RESULT,
            "Load the full content of an earlier tool result that the conversation holds only a \
             reference to (a message with a result_ref)."
                .to_string(),
            json!({
                "type": "object",
                "properties": {"tool_call_id": id_param()},
                "required": ["tool_call_id"],
                "additionalProperties": false
            }),
        ),
        (
            SEARCH_TOOL_OUTPUT,
            format!(
                "Search a stored tool result that was cut short, without running the tool again: \
                 the lines matching a regular expression, with their line numbers and a little \
                 context, and how many lines match in all. Shows as many matching lines as fit \
                 in {reply_chars} characters (or max_matches); pass skip to see more. \
                 from_end=true shows the last matches (the last error of a log: max_matches=1)."
            ),
            json!({
                "type": "object",
                "properties": {
                    "tool_call_id": id_param(),
                    "pattern": {"type": "string", "description": "Regular expression (Rust syntax: no look-around or back-references); escape ( [ . * + ? $ to match them literally."},
                    "context": {"type": "integer", "minimum": 0, "maximum": lines::MAX_CONTEXT, "description": "Lines of context before and after each match (default 1)."},
                    "max_matches": {"type": "integer", "minimum": 1, "description": "Most matching lines to show (default: as many as fit in one reply)."},
                    "skip": {"type": "integer", "minimum": 0, "description": "Matching lines to skip first, to page through many matches (default 0)."},
                    "ignore_case": {"type": "boolean", "description": "Match letters regardless of case (default false)."},
                    "from_end": {"type": "boolean", "description": "true: count max_matches and skip from the last match backwards, to see the last matches (default false)."}
                },
                "required": ["tool_call_id", "pattern"],
                "additionalProperties": false
            }),
        ),
        (
            QUERY_TOOL_OUTPUT,
            format!(
                "Pick a value out of a stored tool result that is JSON, without paging through it or \
                 running the tool again: the value at `path`, as indented JSON, up to {reply_chars} \
                 characters (a longer value is cut and says which keys or how many elements it has)."
            ),
            json!({
                "type": "object",
                "properties": {
                    "tool_call_id": id_param(),
                    "path": {"type": "string", "description": "Steps from the root: .key or [\"key\"], [0] ([-1] the last), [*] (every element), [key=value] (the elements whose key equals value), e.g. .packages[name=serde].version; \".\" is the whole document."}
                },
                "required": ["tool_call_id", "path"],
                "additionalProperties": false
            }),
        ),
    ]
}

/// The recovery tools' definitions, for a `tools` request parameter.
/// `chunk_chars` is the chunk size `get_continuation` serves (named in its description);
/// line-range and search replies hold up to [`lines::DEFAULT_REPLY_CHARS`] characters.
pub fn definitions(format: ToolFormat, chunk_chars: usize) -> Value {
    sized_definitions(
        format,
        chunk_chars,
        lines::DEFAULT_REPLY_CHARS.max(chunk_chars),
    )
}

pub(super) fn sized_definitions(
    format: ToolFormat,
    chunk_chars: usize,
    reply_chars: usize,
) -> Value {
    let defs = specs(chunk_chars, reply_chars)
        .into_iter()
        .map(|(name, description, schema)| match format {
            ToolFormat::OpenAi => json!({
                "type": "function",
                "function": {"name": name, "description": description, "parameters": schema}
            }),
            ToolFormat::Anthropic => json!({
                "name": name, "description": description, "input_schema": schema
            }),
        });
    Value::Array(defs.collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_come_in_both_shapes() {
        let o = definitions(ToolFormat::OpenAi, 2000);
        assert_eq!(o[0]["function"]["name"], "get_continuation");
        assert_eq!(
            o[1]["function"]["parameters"]["required"],
            json!(["tool_call_id"])
        );
        let a = definitions(ToolFormat::Anthropic, 2000);
        assert_eq!(a[2]["name"], "get_tool_result");
        assert_eq!(
            a[0]["input_schema"]["properties"]["offset"]["type"],
            "integer"
        );
    }
}
