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
//! - `toolcap-cli`: a shell tool only (`shell(command)`), and a stored result read
//!   and searched with `toolcap continue ID ...` / `toolcap search ID ...` run
//!   through it: what `toolcap run` prints, for an agent whose one way back is
//!   the shell that ran the command (see [`super::RecoveryCalls::Cli`]).

use serde_json::{Value, json};

/// The valid preset names, in the order they are listed in messages.
pub const PRESETS: [&str; 7] = [
    "generic",
    "claude-code",
    "opencode",
    "codex",
    "gemini-cli",
    "mcp-filesystem",
    TOOLCAP_CLI,
];

// the name lives beside the recovery calls it selects (`suggest`), which need
// nothing else of the presets
pub use super::suggest::TOOLCAP_CLI;

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
pub const STRING_KEYS: [&str; 22] = [
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
    "grep.ignore_case",
    "grep.include",
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
    let (strings, argv, args): Parts = match name {
        "generic" => generic(),
        "claude-code" => claude_code(),
        "opencode" => opencode(),
        "codex" => (shell_only(), true, Vec::new()),
        "gemini-cli" => gemini_cli(),
        "mcp-filesystem" => mcp_filesystem(),
        TOOLCAP_CLI => (shell_only(), false, Vec::new()),
        _ => return None,
    };
    Some(Preset {
        strings,
        argv,
        args,
    })
}

/// A preset's parts: its string keys, `shell.argv` and its fixed arguments
/// (the fields of [`Preset`]).
type Parts = (
    Vec<(&'static str, &'static str)>,
    bool,
    Vec<(&'static str, Value)>,
);

/// Every string key of `tool` set to `""`: a tool the harness lacks.
fn none(tool: &'static str) -> Vec<(&'static str, &'static str)> {
    STRING_KEYS
        .iter()
        .copied()
        .filter(|k| k.starts_with(tool) && k.as_bytes().get(tool.len()) == Some(&b'.'))
        .map(|k| (k, ""))
        .collect()
}

/// A harness whose only tool is a shell named `shell(command=...)`.
fn shell_only() -> Vec<(&'static str, &'static str)> {
    vec![("shell.tool", "shell"), ("shell.command", "command")]
        .into_iter()
        .chain(none("read"))
        .chain(none("grep"))
        .chain(none("web_search"))
        .chain(none("web_fetch"))
        .chain(none("glob"))
        .collect()
}

/// `generic`: the names of `thresholds.toml`.
fn generic() -> Parts {
    (
        vec![
            ("shell.tool", "shell"),
            ("shell.command", "command"),
            ("grep.tool", "grep_content"),
            ("grep.pattern", "pattern"),
            ("grep.path", "path"),
            ("grep.ignore_case", "-i"),
            ("grep.include", ""),
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
    )
}

/// `claude-code`: Claude Code's tools.
fn claude_code() -> Parts {
    (
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
            ("grep.ignore_case", "-i"),
            ("grep.include", ""),
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
    )
}

/// `opencode`: sst/opencode's tools.
fn opencode() -> Parts {
    (
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
            // opencode's grep runs ripgrep: an inline flag in the pattern
            ("grep.ignore_case", "(?i)"),
            ("grep.include", ""),
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
    )
}

/// `gemini-cli`: google-gemini/gemini-cli's core tools.
fn gemini_cli() -> Parts {
    (
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
            // grep_search runs git grep -E / grep -E: no inline flag, no option
            ("grep.ignore_case", ""),
            // its dir_path takes only a folder: one file is its folder plus
            // include_pattern (the file's name)
            ("grep.include", "include_pattern"),
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
    )
}

/// `mcp-filesystem`: the MCP filesystem server's tools.
fn mcp_filesystem() -> Parts {
    (
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
    )
}

impl Preset {
    /// The [`Suggest`](super::Suggest) this preset sets.
    pub fn suggest(&self, name: &str) -> super::Suggest {
        let get = |k: &str| {
            self.strings
                .iter()
                .find(|(key, _)| *key == k)
                .map_or_else(String::new, |(_, v)| v.to_string())
        };
        let args = |t: &str| match self.args.iter().find(|(k, _)| *k == t) {
            Some((_, Value::Object(o))) => o.clone(),
            _ => serde_json::Map::new(),
        };
        super::Suggest::from_keys(name.to_string(), self.argv, get, args)
    }
}

/// The name of the `[suggest]` setting for a set of listed tools.
pub const LISTED: &str = "listed";

impl super::Suggest {
    /// Suggestion tools picked from the tools a server lists (an MCP server's
    /// `tools/list`: each tool's name and the properties of its input schema):
    /// for each kind of tool (shell, read, grep, glob, web search, fetch), the
    /// first one of the presets' tools that is listed under its name and takes
    /// every argument the suggestions would pass; a kind with none is empty (its
    /// suggestions are not offered, or go through the recovery tools). With no
    /// tools listed, every kind is empty.
    pub fn from_listed(tools: &[(String, Vec<String>)]) -> super::Suggest {
        let takes = |tool: &str, args: &[&str]| {
            !tool.is_empty()
                && tools.iter().any(|(name, props)| {
                    name == tool
                        && args
                            .iter()
                            .filter(|a| !a.is_empty())
                            .all(|a| props.iter().any(|p| p == a))
                })
        };
        let all: Vec<super::Suggest> = PRESETS
            .iter()
            .filter_map(|n| preset(n).map(|p| p.suggest(n)))
            .collect();
        let mut out = super::Suggest::empty();
        let keys =
            |m: &serde_json::Map<String, Value>| -> Vec<String> { m.keys().cloned().collect() };
        if let Some(s) = all
            .iter()
            .find(|s| takes(&s.shell.tool, &[&s.shell.command]))
        {
            out.shell = s.shell.clone();
        }
        if let Some(s) = all.iter().find(|s| {
            let r = &s.read;
            takes(
                &r.tool,
                &[&r.path, &r.start, &r.limit, &r.end, &r.head, &r.tail],
            )
        }) {
            out.read = s.read.clone();
        }
        if let Some(s) = all.iter().find(|s| {
            let g = &s.grep;
            let extra = keys(&g.args);
            let mut a: Vec<&str> = vec![&g.pattern, &g.path];
            if !g.include.is_empty() {
                a.push(&g.include);
            }
            a.extend(extra.iter().map(String::as_str));
            takes(&g.tool, &a)
        }) {
            out.grep = s.grep.clone();
            // a case option the listed tool does not take is not passed
            let ic = &out.grep.ignore_case;
            if !ic.is_empty() && ic != "(?i)" && !takes(&out.grep.tool, &[ic]) {
                out.grep.ignore_case.clear();
            }
        }
        if let Some(s) = all
            .iter()
            .find(|s| takes(&s.glob.tool, &[&s.glob.pattern, &s.glob.path]))
        {
            out.glob = s.glob.clone();
        }
        if let Some(s) = all
            .iter()
            .find(|s| takes(&s.web_search.tool, &[&s.web_search.query]))
        {
            out.web_search = s.web_search.clone();
        }
        if let Some(s) = all.iter().find(|s| {
            let f = &s.web_fetch;
            let extra = keys(&f.args);
            let mut a: Vec<&str> = vec![&f.url, &f.save_to];
            a.extend(extra.iter().map(String::as_str));
            takes(&f.tool, &a)
        }) {
            out.web_fetch = s.web_fetch.clone();
        }
        out
    }

    /// No tool of any kind (preset name [`LISTED`]).
    pub fn empty() -> super::Suggest {
        let e = String::new;
        super::Suggest {
            preset: LISTED.to_string(),
            recovery: super::RecoveryCalls::for_preset(LISTED),
            shell: super::ShellTool {
                tool: e(),
                command: e(),
                argv: false,
            },
            read: super::ReadTool {
                tool: e(),
                path: e(),
                start: e(),
                limit: e(),
                end: e(),
                head: e(),
                tail: e(),
            },
            grep: super::GrepTool {
                tool: e(),
                pattern: e(),
                path: e(),
                ignore_case: e(),
                include: e(),
                args: serde_json::Map::new(),
            },
            web_search: super::SearchTool {
                tool: e(),
                query: e(),
            },
            web_fetch: super::FetchTool {
                tool: e(),
                url: e(),
                save_to: e(),
                args: serde_json::Map::new(),
            },
            glob: super::GlobTool {
                tool: e(),
                pattern: e(),
                path: e(),
            },
        }
    }
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

    #[test]
    fn listed_tools_are_picked_by_name_and_arguments() {
        let t = |n: &str, p: &[&str]| (n.to_string(), p.iter().map(ToString::to_string).collect());
        // the MCP filesystem server
        let s = super::super::Suggest::from_listed(&[
            t("read_file", &["path", "head", "tail"]),
            t("read_text_file", &["path", "head", "tail"]),
            t("search_files", &["path", "pattern", "excludePatterns"]),
            t("list_directory", &["path"]),
        ]);
        assert_eq!(s.read.tool, "read_text_file");
        assert_eq!(
            (s.read.head.as_str(), s.read.tail.as_str()),
            ("head", "tail")
        );
        assert_eq!(s.glob.tool, "search_files");
        assert!(s.shell.tool.is_empty() && s.grep.tool.is_empty());
        assert!(s.web_fetch.tool.is_empty() && s.web_search.tool.is_empty());
        // a shell tool with a string command; a Grep without output_mode is not
        // Claude Code's
        let s = super::super::Suggest::from_listed(&[
            t("bash", &["command", "timeout"]),
            t("Grep", &["pattern", "path"]),
        ]);
        assert_eq!((s.shell.tool.as_str(), s.shell.argv), ("bash", false));
        assert!(s.grep.tool.is_empty());
        assert_eq!(
            super::super::Suggest::from_listed(&[]),
            super::super::Suggest::empty()
        );
    }
}
