//! The recovery tools' names: the configuration keeps these tools bypassed (so
//! paging through a stored result never cuts itself), the presets name them, and
//! `store::tools` defines and dispatches them (their public path).

/// `get_continuation`: the next chunk (or a line range) of a stored result.
pub const GET_CONTINUATION: &str = "get_continuation";
/// `fetch_tool_output`: a stored call's tool, arguments and output as JSON.
pub const FETCH_TOOL_OUTPUT: &str = "fetch_tool_output";
/// `get_tool_result`: the full content behind a reference.
pub const GET_TOOL_RESULT: &str = "get_tool_result";
/// `search_tool_output`: the lines of a stored result matching a regex.
pub const SEARCH_TOOL_OUTPUT: &str = "search_tool_output";
/// `query_tool_output`: a value of a stored JSON result, picked by a path.
pub const QUERY_TOOL_OUTPUT: &str = "query_tool_output";

/// Every recovery tool, in the order their definitions are listed.
pub const RECOVERY_TOOLS: [&str; 5] = [
    GET_CONTINUATION,
    FETCH_TOOL_OUTPUT,
    GET_TOOL_RESULT,
    SEARCH_TOOL_OUTPUT,
    QUERY_TOOL_OUTPUT,
];
