//! From what a suggestion is for to the call that does it with the tools at hand.
//!
//! A family says *what* it suggests — an [`Intent`]: lines A-B of the result,
//! its last N lines, N chars from a point, the lines matching a pattern, or a
//! call only one kind of tool can make (a shell command, a narrower glob, a
//! fetch, a web search) — and where the result came from (its [`Source`]: a
//! file, a command that prints it again, or nothing). [`Context::offer`] turns
//! it into a [`Suggestion`] for the tools available in this context, in this
//! order:
//!
//! 1. the full result is stored: reading and searching the result go through
//!    the recovery tools (`get_continuation(tool_call_id, start_line,
//!    end_line)`, `search_tool_output(tool_call_id, pattern)`; their names
//!    after a prefix such as `mcp__toolcap__`), or, with the `toolcap-cli`
//!    preset, through `toolcap continue ID --start-line A --end-line B` and
//!    `toolcap search ID 'pattern'` run by the shell tool;
//! 2. the harness's read / grep / glob / fetch / search tool named in
//!    `[suggest]` (a preset or the MCP server's own tools), when it can
//!    express the intent (`read_text_file` can only read the first or last N
//!    lines);
//! 3. a shell command (`sed -n 'A,Bp' FILE`, `COMMAND 2>&1 | tail -n 200`),
//!    when the harness has a shell tool.
//!
//! An intent none of them can express is not offered: no suggestion names a
//! tool that is not available.

mod stored;

use serde_json::{Map, Value, json};

use super::{Context, Suggestion};
use crate::config::RecoveryCalls;
use crate::quote;
pub(crate) use stored::stored_read_call;

/// Where the result came from, for reading it again without the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source<'a> {
    /// The content of this file (a file read, a saved page).
    File(&'a str),
    /// What this shell command prints (run again: the output may differ).
    Rerun(&'a str),
    /// What this command prints, when it is one simple command of literal
    /// words (no operator, expansion or redirection: checked by whoever names
    /// it, as the processor does for a file print like `cat -n 'my file.py'`):
    /// piped into a filter as it is, never wrapped in `bash -c`.
    Reprint(&'a str),
    /// Nothing can print it again.
    Nowhere,
}

/// Lines of the result matching a pattern, as each kind of tool searches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    /// A Rust regex matching the lines (for `search_tool_output` and a grep tool).
    pub regex: String,
    /// The shell filter printing the same lines with their numbers
    /// (`grep -n -F -e 'name'`); the file (or the re-run output) is its input.
    pub shell: Option<String>,
}

impl Pattern {
    /// Lines containing `text` as it is (regex characters escaped; `grep -F`).
    pub fn fixed(text: &str) -> Pattern {
        Pattern {
            regex: quote::regex_literal(text),
            shell: quote::shell_word(text).map(|w| format!("grep -n -F -e {w}")),
        }
    }
}

/// What a suggestion is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Intent {
    /// Lines `start..=end` of the result (1-based, inclusive, original numbering).
    Lines {
        /// The first line.
        start: usize,
        /// The last line.
        end: usize,
    },
    /// The last `n` lines of the result.
    Tail {
        /// How many.
        n: usize,
    },
    /// `chars` chars of the result from char `from_char` (byte `from_byte`;
    /// `bytes` bytes), for a line too long to read by lines.
    Chars {
        /// 0-based char offset.
        from_char: usize,
        /// The same point as a 0-based byte offset.
        from_byte: usize,
        /// Bytes to read.
        bytes: usize,
    },
    /// The lines of the result matching a pattern.
    Search(Pattern),
    /// A definition of the result by name (`Class.method`): only a stored
    /// result can be asked this way (`get_continuation(symbol=...)`).
    Symbol(String),
    /// A shell command (only a shell tool can run it).
    Shell(String),
    /// The harness's grep tool over `path` (else `grep -n -E` through the shell).
    Grep {
        /// The pattern (a regex), without an inline case flag.
        pattern: String,
        /// The file or directory.
        path: String,
        /// Match ignoring case (the tool's case option, `(?i)`, or `grep -i`).
        ignore_case: bool,
    },
    /// The harness's glob tool.
    Glob {
        /// The glob pattern.
        pattern: String,
        /// The directory, if any.
        path: Option<String>,
    },
    /// The harness's fetch tool.
    Fetch {
        /// The URL.
        url: String,
    },
    /// The harness's web search tool.
    WebSearch {
        /// The query.
        query: String,
    },
}

impl Context<'_> {
    /// Whether the full result is stored (its recovery tools read and search it).
    pub fn stored(&self) -> bool {
        self.stored.is_some()
    }

    /// Chars a suggestion reading lines of the result may return and come back
    /// whole: a `get_continuation` chunk when the result is stored (less one for
    /// the line end it adds to a last line without one); else the read tool's
    /// room (a file source and a read tool), else the shell's.
    pub fn lines_room(&self, src: Source<'_>) -> usize {
        if self.stored() {
            return self.config.max_kept_chars.saturating_sub(1).max(1);
        }
        let r = &self.config.suggest.read;
        if matches!(src, Source::File(_)) && !r.tool.is_empty() {
            return self.budget_for(&r.tool);
        }
        self.shell_budget()
    }

    /// Whether the full result is stored and read back with `toolcap` commands
    /// through the shell (the `toolcap-cli` preset): a filter over the whole
    /// output then reads it with `toolcap show ID` instead of running the
    /// command again.
    pub fn replays_stored(&self) -> bool {
        self.stored.is_some()
            && !self.config.suggest.shell.tool.is_empty()
            && matches!(self.config.suggest.recovery, RecoveryCalls::Cli { .. })
    }

    /// `COMMAND 2>&1 | FILTER`, or, when the output is stored and read back
    /// through the shell, `toolcap show ID | FILTER` (the stored output; the
    /// command does not run again).
    pub fn replay_piped(&self, cmd: &str, filter: &str) -> Option<String> {
        match (&self.config.suggest.recovery, self.stored) {
            (RecoveryCalls::Cli { program, options }, Some(id)) if self.replays_stored() => {
                let id_word = quote::shell_word(id)?;
                let id_word = if id.starts_with('-') {
                    format!("-- {id_word}")
                } else {
                    id_word
                };
                let opts = if options.is_empty() {
                    String::new()
                } else {
                    format!(" {options}")
                };
                Some(format!("{program} show{opts} {id_word} | {filter}"))
            }
            _ if self.never_reruns() => None,
            _ => quote::rerun_piped(cmd, filter),
        }
    }

    /// For a result decoded from a legacy encoding, the command that reads
    /// file `path` as the text toolcap counted (`iconv -f CP932 -t UTF-8
    /// FILE`, by [`Context::decoded_from`]), so that the lines, bytes and matches a suggestion names are
    /// what it prints; `None` for UTF-8 (the file is read as it is), `Some(None)`
    /// when the path cannot be quoted.
    fn iconv(&self, path: &str) -> Option<Option<String>> {
        let enc = self.decoded_from?;
        Some(quote::shell_word(enc).and_then(|e| {
            Some(format!(
                "iconv -f {e} -t UTF-8 {}",
                quote::shell_path(path)?
            ))
        }))
    }

    /// The command that prints the result again (`Source::Reprint`), as the
    /// text toolcap counted: piped through `iconv -f CP932 -t UTF-8` when the
    /// result was decoded from a legacy encoding, as a file read is (see
    /// [`Self::iconv`]); `None` when the encoding's name cannot be quoted.
    fn reprinted(&self, cmd: &str) -> Option<String> {
        match self.decoded_from {
            Some(enc) => Some(format!(
                "{} | iconv -f {} -t UTF-8",
                cmd.trim(),
                quote::shell_word(enc)?
            )),
            None => Some(cmd.trim().to_string()),
        }
    }

    /// `COMMAND 2>&1 | FILTER` for a command run again (see
    /// [`quote::rerun_piped`]), its output piped through `iconv -f CP932 -t
    /// UTF-8` first when the result was decoded from a legacy encoding.
    fn rerun(&self, cmd: &str, filter: &str) -> Option<String> {
        match self.decoded_from {
            Some(enc) => quote::rerun_piped(
                cmd,
                &format!("iconv -f {} -t UTF-8 | {filter}", quote::shell_word(enc)?),
            ),
            None => quote::rerun_piped(cmd, filter),
        }
    }

    /// The suggestion doing `intent` (see the module docs), or None when no
    /// available tool can.
    pub fn offer(
        &self,
        src: Source<'_>,
        intent: Intent,
        purpose: impl Into<String>,
    ) -> Option<Suggestion> {
        if matches!(src, Source::Rerun(_)) && self.never_reruns() {
            return None;
        }
        self.render(src, &intent, purpose.into())
    }

    /// Whether suggestions may not run the command again: recovery by `toolcap`
    /// commands through the shell (`toolcap run`, the hooks) reads the stored
    /// output back, and where nothing is stored offers nothing in its place (a
    /// command may have effects: a deploy must not run twice).
    pub fn never_reruns(&self) -> bool {
        !self.stored() && matches!(self.config.suggest.recovery, RecoveryCalls::Cli { .. })
    }

    fn render(&self, src: Source<'_>, intent: &Intent, purpose: String) -> Option<Suggestion> {
        if let Some(id) = self.stored
            && let Some(sug) = self.stored_call(id, intent, &purpose)
        {
            return Some(sug);
        }
        match (intent, src) {
            (
                Intent::Lines { .. }
                | Intent::Tail { .. }
                | Intent::Chars { .. }
                | Intent::Search(_),
                Source::File(path),
            ) => self.render_file(path, intent, purpose),
            (
                Intent::Lines { .. }
                | Intent::Tail { .. }
                | Intent::Chars { .. }
                | Intent::Search(_),
                Source::Reprint(cmd),
            ) => self.render_reprint(cmd, intent, &purpose),
            (
                Intent::Lines { .. }
                | Intent::Tail { .. }
                | Intent::Chars { .. }
                | Intent::Search(_),
                Source::Rerun(cmd),
            ) => self.render_rerun(cmd, intent, &purpose),
            (Intent::Lines { .. } | Intent::Tail { .. } | Intent::Chars { .. }, _) => None,
            (Intent::Search(_), _) => None,
            _ => self.render_tool(intent, &purpose),
        }
    }

    /// A command through the harness's shell tool (none when it has none).
    fn shell_call(&self, command: String, purpose: &str) -> Option<Suggestion> {
        let s = &self.config.suggest;
        if s.shell.tool.is_empty() {
            return None;
        }
        let mut args = Map::new();
        let value = if s.shell.argv {
            json!(["bash", "-lc", command])
        } else {
            Value::String(command)
        };
        args.insert(s.shell.command.clone(), value);
        Some(Suggestion {
            tool: s.shell.tool.clone(),
            args,
            purpose: purpose.to_string(),
        })
    }

    /// Lines, the tail, chars or a search of a file: the harness's read or
    /// grep tool, else a shell command.
    fn render_file(&self, path: &str, intent: &Intent, purpose: String) -> Option<Suggestion> {
        let s = &self.config.suggest;
        let r = &s.read;
        let total = self.totals.lines;
        let shell = |command: String| self.shell_call(command, &purpose);
        let call = |tool: &str, pairs, extra| tool_call(tool, pairs, extra, &purpose);
        match intent {
            Intent::Lines { start, end } => {
                if !r.tool.is_empty() {
                    let p = (r.path.as_str(), Value::String(path.to_string()));
                    if !r.start.is_empty() && !r.limit.is_empty() {
                        return call(
                            &r.tool,
                            vec![
                                p,
                                (&r.start, json!(start)),
                                (&r.limit, json!(end + 1 - start)),
                            ],
                            None,
                        );
                    }
                    if !r.start.is_empty() && !r.end.is_empty() {
                        return call(
                            &r.tool,
                            vec![p, (&r.start, json!(start)), (&r.end, json!(end))],
                            None,
                        );
                    }
                    if *start == 1 && !r.head.is_empty() {
                        return call(&r.tool, vec![p, (&r.head, json!(end))], None);
                    }
                    if *end == total && !r.tail.is_empty() {
                        return call(&r.tool, vec![p, (&r.tail, json!(end + 1 - start))], None);
                    }
                }
                match self.iconv(path) {
                    Some(read) => shell(format!("{} | sed -n '{start},{end}p'", read?)),
                    None => shell(super::sed_range(path, *start, *end)?),
                }
            }
            Intent::Tail { n } => {
                let start = total + 1 - (*n).min(total);
                if !r.tool.is_empty() && !r.tail.is_empty() {
                    return call(
                        &r.tool,
                        vec![
                            (r.path.as_str(), Value::String(path.to_string())),
                            (&r.tail, json!(n)),
                        ],
                        None,
                    );
                }
                self.render(
                    Source::File(path),
                    &Intent::Lines { start, end: total },
                    purpose,
                )
            }
            Intent::Chars {
                from_byte, bytes, ..
            } => shell(match self.iconv(path) {
                // the offsets are of the decoded text's UTF-8: read that, not
                // the file's own bytes
                Some(read) => format!("{} | tail -c +{} | head -c {bytes}", read?, from_byte + 1),
                None => format!(
                    "tail -c +{} {} | head -c {bytes}",
                    from_byte + 1,
                    quote::shell_path(path)?
                ),
            }),
            Intent::Search(p) => {
                let g = &s.grep;
                if !g.tool.is_empty() {
                    let mut pairs = vec![(g.pattern.as_str(), Value::String(p.regex.clone()))];
                    pairs.extend(file_search_args(g, path));
                    return call(&g.tool, pairs, Some(&g.args));
                }
                match self.iconv(path) {
                    Some(read) => shell(format!("{} | {}", read?, p.shell.as_ref()?)),
                    None => shell(format!(
                        "{} {}",
                        p.shell.as_ref()?,
                        quote::shell_path(path)?
                    )),
                }
            }
            _ => None,
        }
    }

    /// Lines, the tail, chars or a search of what a command printed: the
    /// command run again, piped into a filter.
    fn render_reprint(&self, cmd: &str, intent: &Intent, purpose: &str) -> Option<Suggestion> {
        let command = match intent {
            Intent::Lines { start, end } => {
                format!("{} | sed -n '{start},{end}p'", self.reprinted(cmd)?)
            }
            Intent::Tail { n } => format!("{} | tail -n {n}", self.reprinted(cmd)?),
            Intent::Chars {
                from_byte, bytes, ..
            } => format!(
                "{} | tail -c +{} | head -c {bytes}",
                self.reprinted(cmd)?,
                from_byte + 1
            ),
            Intent::Search(p) => format!("{} | {}", self.reprinted(cmd)?, p.shell.as_ref()?),
            _ => return None,
        };
        self.shell_call(command, purpose)
    }

    /// Lines, the tail or a search of a command's output: the command run
    /// again (chars are not read this way).
    fn render_rerun(&self, cmd: &str, intent: &Intent, purpose: &str) -> Option<Suggestion> {
        let command = match intent {
            Intent::Lines { start, end } => self.rerun(cmd, &format!("sed -n '{start},{end}p'"))?,
            Intent::Tail { n } => self.rerun(cmd, &format!("tail -n {n}"))?,
            Intent::Search(p) => self.rerun(cmd, p.shell.as_ref()?)?,
            _ => return None,
        };
        self.shell_call(command, purpose)
    }

    /// A command, a grep of one file, a glob, a fetch or a web search, wherever
    /// the result came from: the harness's tool for it, else the shell.
    fn render_tool(&self, intent: &Intent, purpose: &str) -> Option<Suggestion> {
        let s = &self.config.suggest;
        let call = |tool: &str, pairs, extra| tool_call(tool, pairs, extra, purpose);
        match intent {
            Intent::Shell(command) => self.shell_call(command.clone(), purpose),
            Intent::Grep {
                pattern,
                path,
                ignore_case,
            } => {
                let g = &s.grep;
                // the tool takes the case option (or an inline flag), else the shell's -i
                if !g.tool.is_empty() && (!ignore_case || !g.ignore_case.is_empty()) {
                    let mut pat = pattern.clone();
                    let mut pairs = file_search_args(g, path);
                    if *ignore_case {
                        if g.ignore_case == "(?i)" {
                            pat.insert_str(0, "(?i)");
                        } else {
                            pairs.push((g.ignore_case.as_str(), Value::Bool(true)));
                        }
                    }
                    pairs.insert(0, (g.pattern.as_str(), Value::String(pat)));
                    return call(&g.tool, pairs, Some(&g.args));
                }
                self.shell_call(
                    format!(
                        "grep -n -E{} -e {} {}",
                        if *ignore_case { " -i" } else { "" },
                        quote::shell_word(pattern)?,
                        quote::shell_path(path)?
                    ),
                    purpose,
                )
            }
            Intent::Glob { pattern, path } => {
                let g = &s.glob;
                if g.tool.is_empty() {
                    return None;
                }
                let mut pairs = vec![(g.pattern.as_str(), Value::String(pattern.clone()))];
                if let Some(p) = path {
                    pairs.push((g.path.as_str(), Value::String(p.clone())));
                }
                call(&g.tool, pairs, None)
            }
            Intent::Fetch { url } => {
                let f = &s.web_fetch;
                if f.tool.is_empty() {
                    return None;
                }
                call(
                    &f.tool,
                    vec![(f.url.as_str(), Value::String(url.clone()))],
                    Some(&f.args),
                )
            }
            Intent::WebSearch { query } => {
                let w = &s.web_search;
                if w.tool.is_empty() {
                    return None;
                }
                call(
                    &w.tool,
                    vec![(w.query.as_str(), Value::String(query.clone()))],
                    None,
                )
            }
            _ => None,
        }
    }
}

/// A call of a harness's tool: its arguments (skipping those it has no name
/// for), then the configured extra arguments it does not set itself.
fn tool_call(
    tool: &str,
    pairs: Vec<(&str, Value)>,
    extra: Option<&Map<String, Value>>,
    purpose: &str,
) -> Option<Suggestion> {
    let mut args = Map::new();
    for (k, v) in pairs {
        if !k.is_empty() {
            args.insert(k.to_string(), v);
        }
    }
    for (k, v) in extra.into_iter().flatten() {
        args.entry(k.clone()).or_insert_with(|| v.clone());
    }
    Some(Suggestion {
        tool: tool.to_string(),
        args,
        purpose: purpose.to_string(),
    })
}

/// The arguments naming one file to the harness's grep tool: its path argument,
/// or, where that takes only a folder (`[suggest.grep] include`), the file's
/// folder (none for the working directory) and its name as the include glob.
fn file_search_args<'a>(g: &'a crate::config::GrepTool, path: &str) -> Vec<(&'a str, Value)> {
    let p = std::path::Path::new(path);
    match (g.include.is_empty(), p.parent(), p.file_name()) {
        (false, Some(dir), Some(name)) => {
            let mut pairs = Vec::new();
            if !dir.as_os_str().is_empty() {
                pairs.push((g.path.as_str(), Value::String(dir.to_string_lossy().into())));
            }
            pairs.push((
                g.include.as_str(),
                Value::String(name.to_string_lossy().into()),
            ));
            pairs
        }
        _ => vec![(g.path.as_str(), Value::String(path.to_string()))],
    }
}
