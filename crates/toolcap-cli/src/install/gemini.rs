//! `toolcap install gemini-cli`: Gemini CLI's `BeforeTool` and `AfterTool`
//! hooks and the MCP server, in its `settings.json`.

use serde_json::json;

use super::writers::{set_hook, set_mcp};
use super::{Change, Edit, Scope, Target, open_hook_cmd};

/// The tools Gemini CLI's `AfterTool` hook caps after they ran (its matcher
/// names these; the hook reads the same list).
pub const GEMINI_AFTER_TOOLS: [&str; 7] = [
    "read_file",
    "read_many_files",
    "grep_search",
    "glob",
    "list_directory",
    "web_fetch",
    "run_shell_command",
];

/// The files `toolcap install gemini-cli` changes.
pub(super) fn edits(scope: &Scope, program: &str, mcp: bool, install: bool) -> Vec<Edit> {
    let mut out = Vec::new();
    let settings = match scope {
        Scope::User(h) => h.join(".gemini").join("settings.json"),
        Scope::Project(d) => d.join(".gemini").join("settings.json"),
    };
    let cmd = open_hook_cmd(program, Target::GeminiCli, "");
    // the tools its AfterTool hook caps; Gemini CLI's matcher is a regex
    let after = format!("^({})$", GEMINI_AFTER_TOOLS.join("|"));
    let mcp_on = mcp && install;
    let entry = json!({"command": program, "args": ["mcp"]});
    out.push(Edit {
        path: settings,
        change: Change::Json(Box::new(move |v| {
            set_hook(
                v,
                "BeforeTool",
                "run_shell_command",
                &cmd,
                "gemini-cli",
                Some("toolcap"),
                install,
            );
            // file reads, searches, listings and fetches capped after they
            // ran: the view comes back as a read_file tail call
            set_hook(
                v,
                "AfterTool",
                &after,
                &cmd,
                "gemini-cli",
                Some("toolcap"),
                install,
            );
            set_mcp(v, "mcpServers", entry.clone(), mcp_on);
        })),
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn applied(v: &Value, install: bool) -> Value {
        let scope = Scope::Project(std::path::PathBuf::from("/p"));
        let mut v = v.clone();
        for e in edits(&scope, "/t/toolcap", true, install) {
            if let Change::Json(f) = e.change {
                f(&mut v);
            }
        }
        v
    }

    #[test]
    fn the_after_tool_hook_takes_the_shell_too() {
        let users = json!({"security": {"auth": {"selectedType": "gemini-api-key"}},
                           "hooks": {"AfterTool": [{"matcher": "write_file",
                               "hooks": [{"type": "command", "command": "./fmt.sh"}]}]}});
        let with = applied(&users, true);
        let after = with["hooks"]["AfterTool"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(after.len(), 2, "{with}");
        // Gemini CLI reads the matcher as a regex over the tool's name
        assert_eq!(
            after[1]["matcher"],
            "^(read_file|read_many_files|grep_search|glob|list_directory|web_fetch|run_shell_command)$"
        );
        assert_eq!(
            with["hooks"]["BeforeTool"][0]["matcher"],
            "run_shell_command"
        );
        // installed twice, once there; uninstalled, the user's settings as they were
        assert_eq!(applied(&with, true), with);
        assert_eq!(applied(&with, false), users);
    }
}
