//! [`Suggest`]: the harness's own tools that suggestions call, with their
//! argument names.

/// The harness's own tools that suggestions call, with their argument names.
/// An empty `tool` means "no such tool": suggestions that need it use another
/// tool that can do the same job (usually the shell), or are not offered.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Suggest {
    /// The preset the names came from (`generic` unless `[suggest] preset` says
    /// otherwise; explicit `[suggest.*]` keys may override some of them).
    pub preset: String,
    /// The tool that runs a shell command.
    pub shell: ShellTool,
    /// The tool that reads lines of a file.
    pub read: ReadTool,
    /// The tool that searches file contents.
    pub grep: GrepTool,
    /// The web search tool.
    pub web_search: SearchTool,
    /// The tool that fetches a web page.
    pub web_fetch: FetchTool,
    /// The tool that lists files by pattern.
    pub glob: GlobTool,
    /// How suggestions read and search a stored result (the recovery tools, or
    /// `toolcap continue` / `toolcap search` through the shell tool: preset
    /// `toolcap-cli`).
    pub recovery: RecoveryCalls,
}

/// How the suggestions for a stored result read and search it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "via", rename_all = "snake_case")]
pub enum RecoveryCalls {
    /// Call the recovery tools (`get_continuation`, `search_tool_output`), each
    /// name after `prefix`: `""` for a harness that serves them itself,
    /// `mcp__toolcap__` where `toolcap mcp` is added to Claude Code as the MCP
    /// server `toolcap`.
    Tools {
        /// Put before each recovery tool's name.
        prefix: String,
    },
    /// Run `PROGRAM continue ID ...` / `PROGRAM search ID ...` with the shell
    /// tool (what `toolcap run` prints: the agent reads back through the shell
    /// that ran the command). Without a shell tool, the recovery tools are named.
    Cli {
        /// The toolcap program as the shell finds it (`toolcap`, or an absolute
        /// path), already quoted for the shell.
        program: String,
        /// Options put after the id (`--store '/path/results.db'`), already
        /// quoted for the shell; empty for none.
        options: String,
    },
}

/// The preset of `toolcap run`: recovery through `toolcap continue` / `toolcap
/// search` in the shell.
pub const TOOLCAP_CLI: &str = "toolcap-cli";

impl RecoveryCalls {
    /// What a preset uses: `toolcap-cli` the CLI, every other the tools.
    pub fn for_preset(preset: &str) -> RecoveryCalls {
        if preset == TOOLCAP_CLI {
            RecoveryCalls::Cli {
                program: "toolcap".to_string(),
                options: String::new(),
            }
        } else {
            RecoveryCalls::Tools {
                prefix: String::new(),
            }
        }
    }
}

/// The harness's shell tool: `tool(command="...")`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ShellTool {
    /// The tool's name (empty: the harness has no shell tool).
    pub tool: String,
    /// Its argument holding the command.
    pub command: String,
    /// The command is an argv array run as `["bash", "-lc", COMMAND]` (Codex's
    /// `shell`), not a string.
    pub argv: bool,
}
/// The harness's file reading tool, by the way it takes a range of lines:
/// `start` + `limit` (first line, 1-based, and how many), `start` + `end`
/// (first and last line, 1-based, inclusive), or only `head` / `tail` (the
/// first or last N lines). An empty name means the tool has no such argument.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ReadTool {
    /// The tool's name (empty: read lines with `sed` through the shell tool).
    pub tool: String,
    /// Its argument holding the file path.
    pub path: String,
    /// The argument naming the first line to read (1-based).
    pub start: String,
    /// The argument saying how many lines to read from `start`.
    pub limit: String,
    /// The argument naming the last line to read (1-based, inclusive).
    pub end: String,
    /// The argument asking for the first N lines.
    pub head: String,
    /// The argument asking for the last N lines.
    pub tail: String,
}
/// The harness's content search tool: `tool(pattern="...", path="...")`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GrepTool {
    /// The tool's name (empty: use the shell tool with `grep`).
    pub tool: String,
    /// Its argument holding the pattern.
    pub pattern: String,
    /// Its argument holding the path.
    pub path: String,
    /// How it searches ignoring case: the name of a boolean argument (`-i`
    /// for Claude Code's `Grep`), or `(?i)` for an inline flag at the head of
    /// the pattern (a ripgrep-based tool); empty when it cannot (a
    /// case-insensitive follow-up then goes through the shell's `grep -i`).
    pub ignore_case: String,
    /// Its argument holding a file-name glob, for a tool whose path argument
    /// takes only a folder (Gemini CLI's `grep_search`: `include_pattern`): a
    /// search of one file is then its folder plus the file's name; empty when
    /// the path argument takes a file.
    pub include: String,
    /// Fixed arguments added to every call (Claude Code's `Grep` needs
    /// `output_mode = "content"` to print the matching lines).
    pub args: serde_json::Map<String, serde_json::Value>,
}
/// The harness's web search tool: `tool(query="...")`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SearchTool {
    /// The tool's name.
    pub tool: String,
    /// Its argument holding the query.
    pub query: String,
}
/// The harness's page fetch tool: `tool(url="...", save_to="...")`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FetchTool {
    /// The tool's name.
    pub tool: String,
    /// Its argument holding the URL.
    pub url: String,
    /// Its argument naming a file to save the page to (empty: none).
    pub save_to: String,
    /// Fixed arguments added to every call (Claude Code's `WebFetch` needs a
    /// `prompt`).
    pub args: serde_json::Map<String, serde_json::Value>,
}
/// The harness's file listing tool: `tool(pattern="...", path="...")`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GlobTool {
    /// The tool's name (empty: use the shell tool with `find`).
    pub tool: String,
    /// Its argument holding the glob pattern.
    pub pattern: String,
    /// Its argument holding the directory.
    pub path: String,
}

impl Suggest {
    /// The tool and argument names read by `get` from their dotted keys
    /// (`shell.tool`, `read.start`, ...; "" when not set), with the fixed
    /// arguments `args` gives for a tool (`grep`, `web_fetch`): one builder for
    /// a preset's names and for a merged configuration's.
    pub(crate) fn from_keys(
        preset: String,
        argv: bool,
        get: impl Fn(&str) -> String,
        args: impl Fn(&str) -> serde_json::Map<String, serde_json::Value>,
    ) -> Suggest {
        Suggest {
            recovery: RecoveryCalls::for_preset(&preset),
            preset,
            shell: ShellTool {
                tool: get("shell.tool"),
                command: get("shell.command"),
                argv,
            },
            read: ReadTool {
                tool: get("read.tool"),
                path: get("read.path"),
                start: get("read.start"),
                limit: get("read.limit"),
                end: get("read.end"),
                head: get("read.head"),
                tail: get("read.tail"),
            },
            grep: GrepTool {
                tool: get("grep.tool"),
                pattern: get("grep.pattern"),
                path: get("grep.path"),
                ignore_case: get("grep.ignore_case"),
                include: get("grep.include"),
                args: args("grep"),
            },
            web_search: SearchTool {
                tool: get("web_search.tool"),
                query: get("web_search.query"),
            },
            web_fetch: FetchTool {
                tool: get("web_fetch.tool"),
                url: get("web_fetch.url"),
                save_to: get("web_fetch.save_to"),
                args: args("web_fetch"),
            },
            glob: GlobTool {
                tool: get("glob.tool"),
                pattern: get("glob.pattern"),
                path: get("glob.path"),
            },
        }
    }

    /// (tool, [(field, value)]) for display: the string keys of each tool.
    pub fn fields(&self) -> Vec<(&'static str, Vec<(&'static str, &str)>)> {
        vec![
            (
                "shell",
                vec![
                    ("tool", &*self.shell.tool),
                    ("command", &*self.shell.command),
                ],
            ),
            (
                "read",
                vec![
                    ("tool", &*self.read.tool),
                    ("path", &*self.read.path),
                    ("start", &*self.read.start),
                    ("limit", &*self.read.limit),
                    ("end", &*self.read.end),
                    ("head", &*self.read.head),
                    ("tail", &*self.read.tail),
                ],
            ),
            (
                "grep",
                vec![
                    ("tool", &*self.grep.tool),
                    ("pattern", &*self.grep.pattern),
                    ("path", &*self.grep.path),
                    ("ignore_case", &*self.grep.ignore_case),
                    ("include", &*self.grep.include),
                ],
            ),
            (
                "web_search",
                vec![
                    ("tool", &*self.web_search.tool),
                    ("query", &*self.web_search.query),
                ],
            ),
            (
                "web_fetch",
                vec![
                    ("tool", &*self.web_fetch.tool),
                    ("url", &*self.web_fetch.url),
                    ("save_to", &*self.web_fetch.save_to),
                ],
            ),
            (
                "glob",
                vec![
                    ("tool", &*self.glob.tool),
                    ("pattern", &*self.glob.pattern),
                    ("path", &*self.glob.path),
                ],
            ),
        ]
    }
}
