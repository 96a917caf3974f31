//! Tool families as strategies: one trait whose hooks the pipeline calls at
//! each stage (analyse: outline, tally, page; cut; hints), each doing nothing
//! (or the common thing) by default. The built-in families implement it exactly
//! as a harness's own families ([`Registered`]) do; the pipeline itself holds no
//! per-family policy (`tests/families.rs` fails when code outside [`builtin`]
//! names a family).

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::ToolCall;
use super::custom::Registered;
use super::printed::FilePrint;
use crate::config::{Config, Family, RecoveryCalls, ToolEntry};
use crate::cut::everyday;
use crate::cut::html_text::{PageText, page_text};
use crate::hints::tally::LineTally;
use crate::hints::{self, BinaryOf, Context, Look, Note, Purpose, RecoveryModel, Suggestion};
use crate::outline::{self, Language, Outline, detect};
use crate::quote;

/// The command that dumps the first bytes of binary data in hex.
pub(super) const HEX: &str = "od -A d -t x1z -N 512";
/// The bytes [`HEX`] dumps.
const HEX_BYTES: usize = 512;
/// The command that prints the printable strings of binary data.
pub(super) const STRINGS: &str = "grep -a -o -E '[[:print:]]{8,}'";
/// The most strings a suggested call prints.
pub(super) const STRINGS_SHOWN: usize = 100;

/// A binary result that was not kept, as its family's hook sees it: the
/// call's path and command arguments, and the configuration.
pub(super) struct BinaryCall<'a> {
    /// The file read, when the call names one.
    pub(super) path: Option<String>,
    /// The command run, when the call names one.
    pub(super) command: Option<String>,
    /// The configuration (the `[suggest]` tool names among it).
    pub(super) config: &'a Config,
}

/// What a tool family does beyond the common pipeline.
pub(crate) trait Strategy: Send + Sync {
    /// Whether results are scanned bounded (head, tail and error lines kept;
    /// the middle counted, not held), so they can be streamed.
    fn bounded(&self) -> bool {
        false
    }

    /// Resolve: whether a call may print a file's lines (`sed -n 'A,Bp' F`,
    /// `cat -n F`...; see `printed.rs`), then cut as the file's content with
    /// the [`Printed`] strategy (default: no).
    fn prints_files(&self) -> bool {
        false
    }

    /// Resolve: whether results are a file's content: a printed file is cut
    /// with the shape, cleaning and JSON settings of the config's first entry
    /// of such a family (default: no).
    fn file_content(&self) -> bool {
        false
    }

    /// Analyse: the language or content kind of the whole text, and its
    /// outline (default: a text format named by the call or detected, no
    /// outline).
    fn outline(
        &self,
        call: &ToolCall<'_>,
        path: Option<&str>,
        text: &str,
    ) -> (Option<String>, Option<Outline>) {
        (text_kind(call.args, path, text), None)
    }

    /// Analyse: the line facts of the whole text that the hints size their
    /// suggestions with, counting the error search's matches to the end when
    /// `count_all` (default: none).
    fn tally(&self, _text: &str, _limit: usize, _count_all: bool) -> Option<LineTally> {
        None
    }

    /// Analyse, for a [`Self::bounded`] family's streamed result: the line
    /// facts gathered piece by piece as the scanner reads it, the same as
    /// [`Self::tally`] of the whole text (default: none).
    fn streamed_tally(&self, _limit: usize, _count_all: bool) -> Option<LineTally> {
        None
    }

    /// Cut: the page to show as its text instead of cutting the markup by
    /// lines (default: none, the text is cut by lines).
    fn page(&self, _text: &str) -> Option<PageText> {
        None
    }

    /// Cut: the kind of everyday output the call prints (a diff, grep
    /// results, a listing; see [`crate::cut::everyday::kind_of`]), read for
    /// its parts as it comes (default: none).
    fn everyday(&self, _call: &ToolCall<'_>, _entry: &ToolEntry) -> Option<everyday::Kind> {
        None
    }

    /// Hints: the recovery section of a cut result (default: empty).
    fn hints(&self, _ctx: &Context<'_>) -> RecoveryModel {
        RecoveryModel::default()
    }

    /// Hints, for a binary result that was not kept: the calls that look at
    /// its bytes and the notes, or `None` when the family has none (a note
    /// then says how to get text).
    fn binary_reads(&self, _call: &BinaryCall<'_>) -> Option<RecoveryModel> {
        None
    }
}

/// A harness's own family: its hint builder, nothing else.
impl Strategy for Registered {
    fn hints(&self, ctx: &Context<'_>) -> RecoveryModel {
        self.family.hints.build(ctx).into()
    }
}

/// `read_file`: code gets its language detected and an outline.
struct ReadFile;

impl Strategy for ReadFile {
    fn file_content(&self) -> bool {
        true
    }

    fn outline(
        &self,
        call: &ToolCall<'_>,
        path: Option<&str>,
        text: &str,
    ) -> (Option<String>, Option<Outline>) {
        let explicit = call.lang.or_else(|| {
            call.args
                .get("language")
                .and_then(Value::as_str)
                .and_then(Language::from_name)
        });
        // a numbered read (`     12→text`, `12:text`...): the file's text
        if let Some(read) = file_read(call.name, call.args, text) {
            let path = path.or(read.path.as_deref());
            return match detect::language(explicit, path, &read.source) {
                Some((lang, _)) => {
                    let body = read.body();
                    let o = lines_outline(path, Some(read.first_line), &body, lang)
                        .0
                        .map(|o| on_rows(o, read.first_row - 1, text));
                    (Some(lang.name().to_string()), o)
                }
                None => (text_kind(call.args, path, &read.source), None),
            };
        }
        match detect::language(explicit, path, text) {
            Some((lang, _)) => (
                Some(lang.name().to_string()),
                outline::outline(text, lang).ok(),
            ),
            None => (text_kind(call.args, path, text), None),
        }
    }

    fn hints(&self, ctx: &Context<'_>) -> RecoveryModel {
        let read = file_read(ctx.tool, ctx.args, ctx.idx.text);
        // the definitions the read starts and ends inside, from the file on
        // disk (its outline is cached: the analysis just made it)
        let enclosing = read.as_ref().and_then(|r| {
            let path = ctx.arg(|a| &a.path).or_else(|| r.path.clone())?;
            let lang = ctx.language.and_then(Language::from_name)?;
            lines_outline(Some(&path), Some(r.first_line), &r.body(), lang).1
        });
        let numbered = read.as_ref().map(|r| hints::read_file::Numbered {
            first_row: r.first_row,
            last_row: r.last_row,
            first_line: r.first_line,
            path: r.path.as_deref(),
            text: Some(&r.source),
            enclosing: enclosing.as_ref(),
        });
        hints::read_file::view_model(ctx, None, numbered.as_ref())
    }

    /// The file's first bytes in hex, and its first printable strings.
    fn binary_reads(&self, call: &BinaryCall<'_>) -> Option<RecoveryModel> {
        let p = call.path.as_deref()?;
        let mut r = RecoveryModel::default();
        if let Some(q) = quote::shell_path(p) {
            let of = BinaryOf::File;
            r.suggestions.push(shell_call(
                call.config,
                format!("{HEX} {q} | head -n 40"),
                Purpose::Binary {
                    look: Look::Hex { bytes: HEX_BYTES },
                    of,
                },
            ));
            r.suggestions.push(shell_call(
                call.config,
                format!("{STRINGS} {q} | head -n {STRINGS_SHOWN}"),
                Purpose::Binary {
                    look: Look::Strings {
                        count: STRINGS_SHOWN,
                    },
                    of,
                },
            ));
        }
        Some(r)
    }
}

/// A shell command that printed a file's lines (`sed -n 'A,Bp' F`,
/// `cat -n F`...; see `printed.rs`): the file's content, as `read_file` sees
/// a file: its language from the file's name (or the call's `--lang`, or the
/// content), its outline (of the text after the line numbers `cat -n` and
/// `nl` print), and read_file's hints with the file's own line numbers.
pub(super) struct Printed {
    pub(super) print: FilePrint,
    /// The outline was made from the whole file on disk (see
    /// `printed::whole_file_outline`), not from the printed lines alone:
    /// the definitions the printed lines start and end inside.
    pub(super) whole: std::sync::OnceLock<super::printed::Enclosing>,
}

impl Strategy for Printed {
    fn outline(
        &self,
        call: &ToolCall<'_>,
        _path: Option<&str>,
        text: &str,
    ) -> (Option<String>, Option<Outline>) {
        let path = Some(self.print.path.as_str());
        let source = if self.print.numbered {
            Cow::Owned(strip_numbers(text))
        } else {
            Cow::Borrowed(text)
        };
        let Some((lang, _)) = detect::language(call.lang, path, &source) else {
            return (text_kind(call.args, path, &source), None);
        };
        let (o, whole) = lines_outline(path, self.print.first, &source, lang);
        if let Some(e) = whole {
            // (one outline per call: set once)
            let _ = self.whole.set(e);
        }
        (Some(lang.name().to_string()), o)
    }

    fn hints(&self, ctx: &Context<'_>) -> RecoveryModel {
        let p = &self.print;
        // lines of a numbered print from inside the file are read from the
        // file: without the numbers
        let stripped =
            (p.numbered && p.first.is_some_and(|f| f > 1)).then(|| strip_numbers(ctx.idx.text));
        hints::read_file::view_model(
            ctx,
            Some(&hints::read_file::Printed {
                path: &p.path,
                command: &p.command,
                first: p.first,
                numbered: p.numbered,
                to_end: p.last.is_none(),
                whole: self.whole.get().is_some(),
                enclosing: self.whole.get(),
                stripped: stripped.as_deref(),
            }),
            None,
        )
    }

    /// The command's output, read as the shell family's.
    fn everyday(&self, call: &ToolCall<'_>, entry: &ToolEntry) -> Option<everyday::Kind> {
        Shell.everyday(call, entry)
    }

    /// A command's output, as the shell family's.
    fn binary_reads(&self, call: &BinaryCall<'_>) -> Option<RecoveryModel> {
        Shell.binary_reads(call)
    }
}

/// The outline of a file's lines `first..` (`None`: counted from its end;
/// `source`, as many lines as
/// shown), numbered as `source`'s lines, and, when it was made from the
/// whole file on disk, the definitions the lines start and end inside: the file as it reads when it is at hand and still holds
/// these lines (see `printed::whole_file_outline`); else the lines from the
/// file's first line as they parse; else, from inside the file, from the first
/// top-level line on (the lines before it left blank, so the numbering stays:
/// begun inside a definition or a string, the parser would misread them all).
fn lines_outline(
    path: Option<&str>,
    first: Option<usize>,
    source: &str,
    lang: Language,
) -> (Option<Outline>, Option<super::printed::Enclosing>) {
    if let Some((p, first)) = path.zip(first)
        && let Some((o, e)) = super::printed::whole_file_outline(p, first, source, lang)
    {
        return (Some(o), Some(e));
    }
    if first == Some(1) {
        return (outline::outline(source, lang).ok(), None);
    }
    let mut k = hints::read_file::top_level_start(source);
    let dedented;
    let mut source = source;
    if k >= source.split_inclusive('\n').count()
        && let Some(d) = dedent(source)
    {
        // no line at the left margin: lines from inside a class or a block
        // (SWE-agent's `goto 735` in a class's methods), read as if their
        // least indented lines were at the margin
        dedented = d;
        source = &dedented;
        k = hints::read_file::top_level_start(source);
    }
    let mut fragment = "\n".repeat(k);
    fragment.extend(source.split_inclusive('\n').skip(k));
    (outline::outline(&fragment, lang).ok(), None)
}

/// `text` with the indentation its least indented non-blank line has (spaces
/// or tabs, the same on every line) taken off every line, as many lines;
/// `None` when there is none to take off.
fn dedent(text: &str) -> Option<String> {
    let indent = |l: &str| l.len() - l.trim_start_matches([' ', '\t']).len();
    let lines = || text.split_inclusive('\n');
    let first = lines().find(|l| !l.trim().is_empty())?;
    let prefix = &first[..indent(first)];
    let n = lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            l.bytes()
                .zip(prefix.bytes())
                .take_while(|(a, b)| a == b)
                .count()
        })
        .min()
        .filter(|&n| n > 0)?;
    Some(
        lines()
            .map(|l| l.get(n.min(indent(l))..).unwrap_or(l))
            .collect(),
    )
}

/// A read tool's result that is lines of a file from some line on: a
/// numbered read (see `toolcap_outline::numbered`), else lines read from the
/// line the call's arguments name, unnumbered: Gemini CLI's `start_line`
/// (1-based; @google/gemini-cli 0.61.0), Pi's `read` from `offset` (1-based,
/// its status line below them: `[Showing lines A-B of N. Use offset=...]`,
/// `[K more lines in file. Use offset=M to continue.]`;
/// @mariozechner/pi-coding-agent 0.73.1 dist/core/tools/read.js, lines
/// 207-251).
fn file_read(tool: &str, args: &Value, text: &str) -> Option<outline::numbered::Read> {
    if let Some(r) = outline::numbered::detect(text) {
        return Some(r);
    }
    let line_arg = |k: &str| {
        args.get(k)
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n > 1)
    };
    let first =
        line_arg("start_line").or_else(|| (tool == "read").then(|| line_arg("offset"))?)?;
    let rows: Vec<&str> = text.lines().collect();
    // Pi's status line, after a blank line
    let status = rows.len() >= 3
        && rows[rows.len() - 2].is_empty()
        && rows.last().is_some_and(|l| {
            l.starts_with('[') && l.ends_with(" to continue.]") && l.contains("Use offset=")
        });
    let last_row = if status { rows.len() - 2 } else { rows.len() };
    (last_row > 0).then(|| outline::numbered::Read {
        form: outline::numbered::Form::Plain,
        source: text.to_string(),
        first_row: 1,
        last_row,
        first_line: first,
        path: None,
        total_lines: None,
    })
}

/// An outline of lines shown from row `by + 1` of `text` on, numbered as
/// `text`'s rows.
fn on_rows(o: Outline, by: usize, text: &str) -> Outline {
    Outline {
        lines: text.lines().count(),
        covered_lines: o.covered_lines + by,
        symbols: o
            .symbols
            .into_iter()
            .map(|s| outline::Symbol {
                line: s.line + by,
                end_line: s.end_line + by,
                ..s
            })
            .collect(),
        best_effort: o
            .best_effort
            .into_iter()
            .map(|b| outline::LineSpan {
                start: b.start + by,
                end: b.end + by,
            })
            .collect(),
        ..o
    }
}

/// `cat -n` / `nl` output without the numbers: each line's text after the
/// first tab when it starts with a number (spaces, digits, spaces), a line of
/// spaces alone (`nl`'s unnumbered blank line) empty; as many lines as given.
fn strip_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        let rest = body.trim_start_matches(' ');
        let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
        let rest = rest.trim_start_matches(' ');
        match rest.strip_prefix('\t') {
            Some(code) => out.push_str(code),
            None if rest.is_empty() => {}
            None => out.push_str(body),
        }
        out.push_str(end);
    }
    out
}

/// `shell`: scanned bounded, read for its everyday output, tallied for its
/// hints; a command printing a file's lines is the file's content.
struct Shell;

impl Strategy for Shell {
    fn bounded(&self) -> bool {
        true
    }

    fn prints_files(&self) -> bool {
        true
    }

    /// The kind the call's command prints; any other command's output may be
    /// a log: read for its levels.
    fn everyday(&self, call: &ToolCall<'_>, entry: &ToolEntry) -> Option<everyday::Kind> {
        let obj = call.args.as_object();
        let cmd = obj.and_then(|obj| {
            entry
                .args
                .command
                .iter()
                .find_map(|k| hints::shell::command_string(obj.get(k)?))
        });
        Some(
            cmd.and_then(|c| everyday::kind_of(&c))
                .unwrap_or(everyday::Kind::Levels),
        )
    }

    fn tally(&self, text: &str, limit: usize, count_all: bool) -> Option<LineTally> {
        Some(LineTally::of(
            text,
            limit,
            hints::shell::grep_regex(),
            count_all,
        ))
    }

    fn streamed_tally(&self, limit: usize, count_all: bool) -> Option<LineTally> {
        Some(LineTally::new(limit, hints::shell::grep_regex(), count_all))
    }

    fn hints(&self, ctx: &Context<'_>) -> RecoveryModel {
        hints::jq::shell_model(ctx)
    }

    /// The command run again: its output's first bytes in hex and first
    /// printable strings (none when recovery goes through `toolcap`
    /// commands: the command is never run again, it may have effects).
    fn binary_reads(&self, call: &BinaryCall<'_>) -> Option<RecoveryModel> {
        let cmd = call.command.as_deref()?;
        let mut r = RecoveryModel::default();
        if matches!(call.config.suggest.recovery, RecoveryCalls::Cli { .. }) {
            r.notes.push(Note::BinaryUnkept);
            return Some(r);
        }
        let of = BinaryOf::Output;
        if let Some(c) = quote::rerun_piped(cmd, &format!("{HEX} | head -n 40")) {
            r.suggestions.push(shell_call(
                call.config,
                c,
                Purpose::Binary {
                    look: Look::Hex { bytes: HEX_BYTES },
                    of,
                },
            ));
        }
        if let Some(c) = quote::rerun_piped(cmd, &format!("{STRINGS} | head -n {STRINGS_SHOWN}")) {
            r.suggestions.push(shell_call(
                call.config,
                c,
                Purpose::Binary {
                    look: Look::Strings {
                        count: STRINGS_SHOWN,
                    },
                    of,
                },
            ));
        }
        Some(r)
    }
}

/// A call of the configured shell tool running `command`.
pub(super) fn shell_call(config: &Config, command: String, purpose: Purpose) -> Suggestion {
    let s = &config.suggest.shell;
    let mut args = Map::new();
    args.insert(s.command.clone(), Value::String(command));
    Suggestion {
        tool: s.tool.clone(),
        args,
        purpose: purpose.into(),
    }
}

/// `web_fetch`: an HTML page is shown as its text.
struct WebFetch;

impl Strategy for WebFetch {
    fn page(&self, text: &str) -> Option<PageText> {
        if !outline::html::is_html(text) {
            return None;
        }
        Some(page_text(text)).filter(|p| !p.text.is_empty())
    }

    fn hints(&self, ctx: &Context<'_>) -> RecoveryModel {
        hints::web_fetch::model(ctx)
    }
}

/// A built-in family that differs from the common pipeline only in its hints.
struct HintsOnly(fn(&Context<'_>) -> RecoveryModel);

impl Strategy for HintsOnly {
    fn hints(&self, ctx: &Context<'_>) -> RecoveryModel {
        (self.0)(ctx)
    }
}

/// The strategy of a built-in family: one row per family (a family that
/// differs from the common pipeline only in its hints is `HintsOnly` with its
/// hint builder). docs/architecture.md, "Adding a tool family".
pub(super) fn builtin(family: Family) -> &'static dyn Strategy {
    match family {
        Family::ReadFile => &ReadFile,
        Family::Grep => &HintsOnly(hints::grep::model),
        Family::Shell => &Shell,
        Family::WebSearch => &HintsOnly(hints::web_search::model),
        Family::WebFetch => &WebFetch,
        Family::Glob => &HintsOnly(hints::glob::model),
        Family::Generic => &HintsOnly(hints::generic::model),
    }
}

/// The kind of a text that is not code: a text format named by the call's
/// `language` argument (`markdown`), else detected from the path and content.
fn text_kind(args: &Value, path: Option<&str>, t: &str) -> Option<String> {
    args.get("language")
        .and_then(Value::as_str)
        .and_then(outline::text::Format::from_name)
        .map(outline::text::Format::as_str)
        .or_else(|| detect::text_kind(path, t))
        .map(str::to_string)
}
