//! Tool families as strategies: one trait whose hooks the pipeline calls at
//! each stage (analyse: outline, tally, page; cut; hints), each doing nothing
//! (or the common thing) by default. The built-in families implement it exactly
//! as a harness's own families ([`Registered`]) do; the pipeline itself holds no
//! per-family policy.

use std::borrow::Cow;

use serde_json::Value;

use super::ToolCall;
use super::custom::Registered;
use super::printed::FilePrint;
use crate::config::Family;
use crate::cut::html_text::{PageText, page_text};
use crate::hints::tally::LineTally;
use crate::hints::{self, Context, Recovery};
use crate::outline::{self, Language, Outline, detect};

/// What a tool family does beyond the common pipeline.
pub(crate) trait Strategy: Send + Sync {
    /// Whether results are scanned bounded (head, tail and error lines kept;
    /// the middle counted, not held), so they can be streamed.
    fn bounded(&self) -> bool {
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

    /// Hints: the recovery section of a cut result (default: empty).
    fn hints(&self, _ctx: &Context<'_>) -> Recovery {
        Recovery::default()
    }
}

/// A harness's own family: its hint builder, nothing else.
impl Strategy for Registered {
    fn hints(&self, ctx: &Context<'_>) -> Recovery {
        self.family.hints.build(ctx)
    }
}

/// `read_file`: code gets its language detected and an outline.
struct ReadFile;

impl Strategy for ReadFile {
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
        match detect::language(explicit, path, text) {
            Some((lang, _)) => (
                Some(lang.name().to_string()),
                outline::outline(text, lang).ok(),
            ),
            None => (text_kind(call.args, path, text), None),
        }
    }

    fn hints(&self, ctx: &Context<'_>) -> Recovery {
        hints::read_file::build(ctx)
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
    /// `printed::whole_file_outline`), not from the printed lines alone.
    pub(super) whole: std::sync::atomic::AtomicBool,
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
        // the file as it reads, when it is at hand and still holds these lines
        if let Some(first) = self.print.first
            && let Some(o) =
                super::printed::whole_file_outline(&self.print.path, first, &source, lang)
        {
            self.whole.store(true, std::sync::atomic::Ordering::Relaxed);
            return (Some(lang.name().to_string()), Some(o));
        }
        if self.print.first == Some(1) {
            return (
                Some(lang.name().to_string()),
                outline::outline(&source, lang).ok(),
            );
        }
        // lines from inside the file: outlined from the first top-level line
        // (the lines before it left blank, so the numbering stays): begun
        // inside a definition or a string, the parser would misread them all
        let k = hints::read_file::top_level_start(&source);
        let mut fragment = "\n".repeat(k);
        fragment.extend(source.split_inclusive('\n').skip(k));
        (
            Some(lang.name().to_string()),
            outline::outline(&fragment, lang).ok(),
        )
    }

    fn hints(&self, ctx: &Context<'_>) -> Recovery {
        let p = &self.print;
        hints::read_file::build_printed(
            ctx,
            &hints::read_file::Printed {
                path: &p.path,
                command: &p.command,
                first: p.first,
                numbered: p.numbered,
                to_end: p.last.is_none(),
                whole: self.whole.load(std::sync::atomic::Ordering::Relaxed),
            },
        )
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

/// `shell`: scanned bounded, and tallied for its hints.
struct Shell;

impl Strategy for Shell {
    fn bounded(&self) -> bool {
        true
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

    fn hints(&self, ctx: &Context<'_>) -> Recovery {
        hints::jq::build_shell(ctx)
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

    fn hints(&self, ctx: &Context<'_>) -> Recovery {
        hints::web_fetch::build(ctx)
    }
}

/// A built-in family that differs from the common pipeline only in its hints.
struct HintsOnly(fn(&Context<'_>) -> Recovery);

impl Strategy for HintsOnly {
    fn hints(&self, ctx: &Context<'_>) -> Recovery {
        (self.0)(ctx)
    }
}

static READ_FILE: ReadFile = ReadFile;
static SHELL: Shell = Shell;
static WEB_FETCH: WebFetch = WebFetch;
static GREP: HintsOnly = HintsOnly(hints::grep::build);
static WEB_SEARCH: HintsOnly = HintsOnly(hints::web_search::build);
static GLOB: HintsOnly = HintsOnly(hints::glob::build);
static GENERIC: HintsOnly = HintsOnly(hints::generic::build);

/// The strategy of a built-in family.
pub(super) fn builtin(family: Family) -> &'static dyn Strategy {
    match family {
        Family::ReadFile => &READ_FILE,
        Family::Grep => &GREP,
        Family::Shell => &SHELL,
        Family::WebSearch => &WEB_SEARCH,
        Family::WebFetch => &WEB_FETCH,
        Family::Glob => &GLOB,
        Family::Generic => &GENERIC,
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
