//! Suggestion presets: the tool and argument names of the harnesses people use,
//! so that `[suggest] preset = "claude-code"` makes every suggestion call a tool
//! the harness really has. A preset sets every `[suggest.*]` key (a tool the
//! harness lacks is set to `""`: suggestions that need it are not offered);
//! explicit `[suggest.*]` keys in the same or a later file still override it.
//!
//! Where each name comes from (checked 2026-11; see docs/configuration.md):
//!
//! - `claude-code`: Claude Code's tools reference (code.claude.com/docs/en/tools-reference):
//!   `Read(file_path, offset, limit)` with a 1-based `offset`, `Grep(pattern, path,
//!   output_mode, -n)`, `Glob(pattern, path)`, `Bash(command)`,
//!   `WebFetch(url, prompt)`, `WebSearch(query)`.
//! - `opencode`: sst/opencode `packages/opencode/src/tool/*.ts`: `read(filePath,
//!   offset, limit)` with a 1-indexed `offset`, `grep(pattern, path, include)`,
//!   `glob(pattern, path)`, `bash(command)`, `webfetch(url, format)`.
//! - `codex`: openai/codex `codex-rs/core/src/openai_tools.rs`: `shell(command)`
//!   where `command` is an argv array (`["bash", "-lc", "..."]`); no read, grep,
//!   glob or web tools.
//! - `gemini-cli`: google-gemini/gemini-cli `packages/core/src/tools/definitions/coreTools.ts`
//!   and `read-file.ts`: `read_file(file_path, start_line, end_line)` (1-based,
//!   inclusive), `grep_search(pattern, dir_path)`, `glob(pattern, dir_path)`,
//!   `run_shell_command(command)`, `google_web_search(query)`,
//!   `web_fetch(prompt)`.
//! - `mcp-filesystem`: modelcontextprotocol/servers `src/filesystem/index.ts`:
//!   `read_text_file(path, head, tail)` (only the first or last N lines),
//!   `search_files(path, pattern)` (a glob over file names); no shell, no
//!   content search, no web tools.
//! - `generic`: the names of `thresholds.toml` (`shell`, `grep_content`, ...).

use serde_json::{Value, json};

/// The valid preset names, in the order they are listed in messages.
pub const PRESETS: [&str; 6] = [
    "generic",
    "claude-code",
    "opencode",
    "codex",
    "gemini-cli",
    "mcp-filesystem",
];

/// One preset: `(key, value)` pairs over the `[suggest.*]` keys, with every
/// string key of every tool present (`""` for a tool the harness lacks), and
/// the fixed arguments of tools that need them (`grep.args`, `web_fetch.args`).
pub struct Preset {
    /// `shell.tool`, `read.start`, ... → value.
    pub strings: Vec<(&'static str, &'static str)>,
    /// `shell.argv`.
    pub argv: bool,
    /// Fixed arguments added to every call, by tool (`grep`, `web_fetch`).
    pub args: Vec<(&'static str, Value)>,
}

/// Every string key of `[suggest.*]`, in display order.
pub const STRING_KEYS: [&str; 20] = [
    "shell.tool",
    "shell.command",
    "read.tool",
    "read.path",
    "read.start",
    "read.limit",
    "read.end",
    "read.head",
    "read.tail",
    "grep.tool",
    "grep.pattern",
    "grep.path",
    "web_search.tool",
    "web_search.query",
    "web_fetch.tool",
    "web_fetch.url",
    "web_fetch.save_to",
    "glob.tool",
    "glob.pattern",
    "glob.path",
];

/// The preset named `name`, if there is one.
pub fn preset(name: &str) -> Option<Preset> {
    let none = |tool: &'static str| -> Vec<(&'static str, &'static str)> {
        STRING_KEYS
            .iter()
            .copied()
            .filter(|k| k.starts_with(tool) && k.as_bytes().get(tool.len()) == Some(&b'.'))
            .map(|k| (k, ""))
            .collect()
    };
    type Parts = (
        Vec<(&'static str, &'static str)>,
        bool,
        Vec<(&'static str, Value)>,
    );
    let (strings, argv, args): Parts = match name {
        "generic" => (
            vec![
                ("shell.tool", "shell"),
                ("shell.command", "command"),
                ("grep.tool", "grep_content"),
                ("grep.pattern", "pattern"),
                ("grep.path", "path"),
                ("web_search.tool", "web_search"),
                ("web_search.query", "query"),
                ("web_fetch.tool", "web_fetch"),
                ("web_fetch.url", "url"),
                ("web_fetch.save_to", "save_to"),
                ("glob.tool", "glob_files"),
                ("glob.pattern", "pattern"),
                ("glob.path", "path"),
            ]
            .into_iter()
            .chain(none("read"))
            .collect(),
            false,
            Vec::new(),
        ),
        "claude-code" => (
            vec![
                ("shell.tool", "Bash"),
                ("shell.command", "command"),
                ("read.tool", "Read"),
                ("read.path", "file_path"),
                ("read.start", "offset"),
                ("read.limit", "limit"),
                ("read.end", ""),
                ("read.head", ""),
                ("read.tail", ""),
                ("grep.tool", "Grep"),
                ("grep.pattern", "pattern"),
                ("grep.path", "path"),
                ("web_search.tool", "WebSearch"),
                ("web_search.query", "query"),
                ("web_fetch.tool", "WebFetch"),
                ("web_fetch.url", "url"),
                ("web_fetch.save_to", ""),
                ("glob.tool", "Glob"),
                ("glob.pattern", "pattern"),
                ("glob.path", "path"),
            ],
            false,
            vec![
                ("grep", json!({"output_mode": "content", "-n": true})),
                (
                    "web_fetch",
                    json!({"prompt": "Return the page's main text as it is written."}),
                ),
            ],
        ),
        "opencode" => (
            vec![
                ("shell.tool", "bash"),
                ("shell.command", "command"),
                ("read.tool", "read"),
                ("read.path", "filePath"),
                ("read.start", "offset"),
                ("read.limit", "limit"),
                ("read.end", ""),
                ("read.head", ""),
                ("read.tail", ""),
                ("grep.tool", "grep"),
                ("grep.pattern", "pattern"),
                ("grep.path", "path"),
                ("web_fetch.tool", "webfetch"),
                ("web_fetch.url", "url"),
                ("web_fetch.save_to", ""),
                ("glob.tool", "glob"),
                ("glob.pattern", "pattern"),
                ("glob.path", "path"),
            ]
            .into_iter()
            .chain(none("web_search"))
            .collect(),
            false,
            vec![("web_fetch", json!({"format": "markdown"}))],
        ),
        "codex" => (
            vec![("shell.tool", "shell"), ("shell.command", "command")]
                .into_iter()
                .chain(none("read"))
                .chain(none("grep"))
                .chain(none("web_search"))
                .chain(none("web_fetch"))
                .chain(none("glob"))
                .collect(),
            true,
            Vec::new(),
        ),
        "gemini-cli" => (
            vec![
                ("shell.tool", "run_shell_command"),
                ("shell.command", "command"),
                ("read.tool", "read_file"),
                ("read.path", "file_path"),
                ("read.start", "start_line"),
                ("read.limit", ""),
                ("read.end", "end_line"),
                ("read.head", ""),
                ("read.tail", ""),
                ("grep.tool", "grep_search"),
                ("grep.pattern", "pattern"),
                ("grep.path", "dir_path"),
                ("web_search.tool", "google_web_search"),
                ("web_search.query", "query"),
                ("glob.tool", "glob"),
                ("glob.pattern", "pattern"),
                ("glob.path", "dir_path"),
            ]
            .into_iter()
            // gemini-cli's web_fetch takes a prompt holding the URLs, not a url
            .chain(none("web_fetch"))
            .collect(),
            false,
            Vec::new(),
        ),
        "mcp-filesystem" => (
            vec![
                ("read.tool", "read_text_file"),
                ("read.path", "path"),
                ("read.start", ""),
                ("read.limit", ""),
                ("read.end", ""),
                ("read.head", "head"),
                ("read.tail", "tail"),
                ("glob.tool", "search_files"),
                ("glob.pattern", "pattern"),
                ("glob.path", "path"),
            ]
            .into_iter()
            .chain(none("shell"))
            .chain(none("grep"))
            .chain(none("web_search"))
            .chain(none("web_fetch"))
            .collect(),
            false,
            Vec::new(),
        ),
        _ => return None,
    };
    Some(Preset {
        strings,
        argv,
        args,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_sets_every_key() {
        for name in PRESETS {
            let p = preset(name).expect("listed preset exists");
            let mut keys: Vec<&str> = p.strings.iter().map(|(k, _)| *k).collect();
            keys.sort_unstable();
            let mut all: Vec<&str> = STRING_KEYS.to_vec();
            all.sort_unstable();
            assert_eq!(keys, all, "{name}");
        }
        assert!(preset("cursor").is_none());
    }
}
