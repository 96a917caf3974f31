//! What the processor returns: the call it was given and the report of what it did.

use crate::config::BudgetReport;
use crate::config::ContextWindow;
use crate::cut::clean::CleanStats;
use crate::cut::index::Totals;
use crate::cut::jsoncut::JsonStats;
use crate::cut::shape::KeptSpan;
use crate::hints::Suggestion;
use crate::outline::Language;
use crate::outline::Outline;
use crate::store::StoreError;
use serde::Serialize;
use serde_json::Value;

/// One tool call whose result is to be processed.
#[derive(Debug, Clone, Copy)]
pub struct ToolCall<'a> {
    /// The tool's name as the harness calls it (`read_file`, `Bash`, `mcp__x__y`).
    pub name: &'a str,
    /// The call's arguments (a JSON object; anything else is treated as no arguments).
    pub args: &'a Value,
    /// The language of a file's content, when the caller knows better than detection.
    pub lang: Option<Language>,
    /// The tool call's id: with a store attached, the full result is kept under it.
    pub id: Option<&'a str>,
    /// The dialog (thread) the call belongs to; [`store::DEFAULT_DIALOG`](crate::store::DEFAULT_DIALOG) if `None`.
    pub dialog: Option<&'a str>,
    /// What the caller knows of the room left in the model's context: with
    /// any of it, the tool's threshold and kept budget follow it (see
    /// [`ContextWindow`]); the default says nothing.
    pub context: ContextWindow<'a>,
    /// The legacy encoding the result's text was decoded from, when it was not
    /// UTF-8 (set by [`ToolResultProcessor::process_bytes`](crate::ToolResultProcessor::process_bytes)): stated in the
    /// recovery section and in [`Processed::encoding`].
    pub decoded_from: Option<&'a str>,
}

impl<'a> ToolCall<'a> {
    /// A call of tool `name` with `args`; no language override, id or dialog.
    pub fn new(name: &'a str, args: &'a Value) -> Self {
        ToolCall {
            name,
            args,
            lang: None,
            id: None,
            dialog: None,
            context: ContextWindow::default(),
            decoded_from: None,
        }
    }
}

/// Why the result was or was not cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::VariantArray, strum::EnumCount)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Reason {
    /// The tool is in the bypass list.
    Bypass,
    /// The result is at or under the tool's threshold.
    UnderThreshold,
    /// Terminal noise was removed and the rest fits: nothing else omitted.
    Cleaned,
    /// The result already carries toolcap's marker: never cut twice.
    AlreadyCut,
    /// The result was cut.
    Cut,
    /// The result is binary data: summarised, nothing kept (see `binary.rs`).
    Binary,
}

impl Reason {
    /// Every reason, in declaration order (for bindings that list the values
    /// their type declarations allow).
    pub const ALL: [Reason; <Reason as strum::EnumCount>::COUNT] =
        toolcap_text::all_variants(<Reason as strum::VariantArray>::VARIANTS);

    /// Whether a result with this reason shows less than the original (it was
    /// cut, or summarised as binary data): [`Processed::truncated`].
    pub fn shows_less(self) -> bool {
        matches!(self, Reason::Cut | Reason::Binary)
    }
}

/// What was omitted, exactly.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[non_exhaustive]
pub struct Omitted {
    /// Characters of the original not shown verbatim.
    pub chars: usize,
    /// Lines of which nothing was kept.
    pub lines: usize,
    /// Those lines as 1-based inclusive ranges.
    pub ranges: Vec<LineRange>,
}

/// Lines `start_line` to `end_line` of the original, 1-based and inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct LineRange {
    /// The first line.
    pub start_line: usize,
    /// The last line.
    pub end_line: usize,
}

/// The processed result: what the model sees, and the exact facts behind it.
/// Serializes to the `--json` contract.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct Processed {
    /// The tool name as called.
    pub tool: String,
    /// The tool family (a built-in one, or a name registered with
    /// [`ToolResultProcessor::register`](crate::ToolResultProcessor::register)).
    pub family: String,
    /// Whether the text shows less than the original (cut or summarised):
    /// always `reason.shows_less()`, kept as a field for the `--json` report.
    pub truncated: bool,
    /// Whether the tool is bypassed (its result passes through unchanged):
    /// always `reason == Reason::Bypass`, kept as a field for the `--json` report.
    pub bypassed: bool,
    /// Why the text is what it is.
    pub reason: Reason,
    /// The tool's threshold, in `unit`: results longer than this are cut.
    pub threshold: usize,
    /// What `threshold` (and `kept_budget`) count: `chars` or `tokens`.
    pub unit: &'static str,
    /// How much of the original may be kept, in `unit`.
    pub kept_budget: usize,
    /// Where `threshold` and `kept_budget` come from: `config` (the tool's
    /// configured figures), `context` (lowered by the context left), `model`
    /// (the same, the window from the model's name) or `size_hint` (lowered by
    /// the client's size hint).
    pub budget_source: &'static str,
    /// The figures behind the budgets, when the call said anything about its
    /// context ([`ToolCall::context`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetReport>,
    /// Characters, bytes and lines of the original result: the bytes are the
    /// input's own (as read, in its encoding) when it was given as bytes
    /// ([`ToolResultProcessor::process_bytes`](crate::ToolResultProcessor::process_bytes), the streaming entry points, the
    /// CLI); characters and lines, and every count in the text, are of the text
    /// as decoded (invalid UTF-8 replaced by U+FFFD, or decoded from
    /// [`encoding`](Self::encoding)).
    pub original: Totals,
    /// The legacy encoding the input was decoded from (`Shift_JIS`, `EUC-JP`,
    /// `GBK`, `windows-1252`, ...), when it was not UTF-8.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    /// Tokens of the original, when the tool counts in tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_tokens: Option<usize>,
    /// Kept parts, in original line numbers (empty when JSON was reshaped).
    pub kept: Vec<KeptSpan>,
    /// What was left out, in original line numbers: every line not shown
    /// verbatim, including the lines of runs in `collapsed`.
    pub omitted: Omitted,
    /// Runs of near-duplicate lines shown as one line each (`head_tail` cuts):
    /// their lines are counted in `omitted` (not shown verbatim), and listed here
    /// with the line that stands for them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub collapsed: Vec<CollapsedRun>,
    /// What terminal-noise cleaning did, when it changed anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cleaning: Option<CleanStats>,
    /// What JSON reshaping dropped, when a JSON result was cut as JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub json: Option<JsonStats>,
    /// How much of a fetched HTML page's text was shown, when the page was cut
    /// as its text (`web_fetch`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub html: Option<HtmlStats>,
    /// When the call was a shell command that prints a file's lines
    /// (`sed -n 'A,Bp' F`, `head -n N F`, `cat -n F`...): which file and
    /// lines. The result was then cut as the file's content (`read_file`'s
    /// cut and hints; the recovery section numbers lines as the file does);
    /// `family` stays the tool's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub printed_file: Option<PrintedFile>,
    /// Detected language or content kind of the result, if any.
    pub language: Option<String>,
    /// The code or text structure of the original, when one was made.
    pub outline: Option<Outline>,
    /// The recovery section's suggested calls (tool, arguments, purpose).
    pub suggestions: Vec<Suggestion>,
    /// Exactly what the model sees.
    pub text: String,
    /// Where the full result was kept, when a store is attached and saved it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stored: Option<Stored>,
    /// Why saving the full result failed (the text then does not mention it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store_error: Option<String>,
}

impl Processed {
    /// A printed file's last line printed, once the output's lines are counted
    /// (`original`): the start plus the output's lines, none when the output is
    /// empty or where it starts is unknown.
    pub(crate) fn printed_to_end(&mut self) {
        let lines = self.original.lines;
        if let Some(p) = &mut self.printed_file {
            p.end_line = p.start_line.filter(|_| lines > 0).map(|s| s + lines - 1);
        }
    }

    /// Set why the text is what it is, and the two flags that follow from it
    /// (`truncated`, `bypassed`): the one place they are written, so they never
    /// disagree with `reason`.
    pub(crate) fn set_reason(&mut self, reason: Reason) {
        self.reason = reason;
        self.truncated = reason.shows_less();
        self.bypassed = reason == Reason::Bypass;
    }
}

/// A run of near-duplicate lines (equal but for numbers, ids, paths or names)
/// shown as one line: `test tests::parses_* ... ok  (×40, lines 27-66)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct CollapsedRun {
    /// The first line of the run (1-based, in the original).
    pub start_line: usize,
    /// The last line (inclusive).
    pub end_line: usize,
    /// Lines of the original it stands for.
    pub lines: usize,
    /// Characters of the original it stands for (counted in `omitted.chars`).
    pub chars: usize,
    /// The line shown for it.
    pub text: String,
}

/// The lines of a file a shell command printed ([`Processed::printed_file`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct PrintedFile {
    /// The file, as the command names it.
    pub path: String,
    /// The file's line the output's first line is; `None` when the command
    /// counts from the file's end (`tail -n N`).
    pub start_line: Option<usize>,
    /// The file's line the output's last line is, when `start_line` is known:
    /// the last line printed (`sed -n '700,5000p'` of a 736-line file: 736),
    /// not the last asked for.
    pub end_line: Option<usize>,
    /// Every output line starts with its line number (`cat -n`, `nl`).
    pub numbered: bool,
}

/// A fetched HTML page cut as its text (markup, scripts, styles and menus left out).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct HtmlStats {
    /// Characters of the page's text (what a reader would read).
    pub text_chars: usize,
    /// Characters of that text shown.
    pub shown_chars: usize,
}

/// A full result kept in a store: how the model gets it back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Stored {
    /// The tool call id the result is kept under.
    pub tool_call_id: String,
    /// The dialog (thread) it is kept in.
    pub dialog_id: String,
    /// `memory` or `sqlite`.
    pub storage_type: String,
    /// Where `get_continuation` reads on from: the character offset right after the
    /// kept head (0 when the head was cut or the result reshaped; the total for a
    /// result that was not cut).
    pub offset: usize,
}

/// Why [`ToolResultProcessor::try_process_stream`](crate::ToolResultProcessor::try_process_stream) failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StreamError {
    /// Reading the input failed.
    #[error("cannot read the input: {0}")]
    Read(#[from] std::io::Error),
    /// The attached store could not keep the full result.
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[cfg(test)]
mod tests {
    use super::Reason;

    /// `ALL` lists every reason once, by the names the `--json` report's
    /// `reason` writes (the Node binding's type declaration lists them).
    #[test]
    fn every_reason_is_listed_once_in_all() {
        let names: Vec<serde_json::Value> = Reason::ALL
            .iter()
            .map(|r| serde_json::to_value(r).unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "bypass",
                "under_threshold",
                "cleaned",
                "already_cut",
                "cut",
                "binary"
            ]
        );
    }
}
