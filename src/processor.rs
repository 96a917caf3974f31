//! The pipeline: bypass → threshold → detect → outline → cut → hints → render.

use serde::Serialize;
use serde_json::Value;

use crate::config::{Config, Family};
use crate::cut::{self, KeptSpan, LineIndex, Piece, Totals};
use crate::detect;
use crate::hints::{self, Suggestion};
use crate::outline::{self, Language, Outline};

/// One tool call whose result is to be processed.
#[derive(Debug, Clone, Copy)]
pub struct ToolCall<'a> {
    /// The tool's name as the harness calls it (`read_file`, `Bash`, `mcp__x__y`).
    pub name: &'a str,
    /// The call's arguments (a JSON object; anything else is treated as no arguments).
    pub args: &'a Value,
    /// The language of a file's content, when the caller knows better than detection.
    pub lang: Option<Language>,
}

impl<'a> ToolCall<'a> {
    pub fn new(name: &'a str, args: &'a Value) -> Self {
        ToolCall {
            name,
            args,
            lang: None,
        }
    }
}

/// Why the result was or was not cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The tool is in the bypass list.
    Bypass,
    /// The result is at or under the tool's threshold.
    UnderThreshold,
    /// The result already carries toolcap's marker: never cut twice.
    AlreadyCut,
    /// The result was cut.
    Cut,
}

/// What was omitted, exactly.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Omitted {
    pub chars: usize,
    /// Lines of which nothing was kept.
    pub lines: usize,
    /// Those lines as 1-based inclusive ranges.
    pub ranges: Vec<LineRange>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LineRange {
    pub start_line: usize,
    pub end_line: usize,
}

/// The processed result: what the model sees, and the exact facts behind it.
/// Serializes to the `--json` contract.
#[derive(Debug, Clone, Serialize)]
pub struct Processed {
    pub tool: String,
    pub family: Family,
    pub truncated: bool,
    pub bypassed: bool,
    pub reason: Reason,
    pub threshold: usize,
    pub original: Totals,
    pub kept: Vec<KeptSpan>,
    pub omitted: Omitted,
    /// Detected language or content kind of the result, if any.
    pub language: Option<String>,
    pub outline: Option<Outline>,
    pub suggestions: Vec<Suggestion>,
    /// Exactly what the model sees.
    pub text: String,
}

/// Makes oversized tool results fit: see the crate docs.
#[derive(Debug, Clone, Default)]
pub struct ToolResultProcessor {
    config: Config,
}

impl ToolResultProcessor {
    pub fn new(config: Config) -> Self {
        ToolResultProcessor { config }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Process `text`, the result of calling `tool` with `args`.
    pub fn process(&self, tool: &str, text: &str, args: &Value) -> Processed {
        self.process_call(&ToolCall::new(tool, args), text)
    }

    /// Process `text`, the result of `call`.
    pub fn process_call(&self, call: &ToolCall<'_>, text: &str) -> Processed {
        let entry = self.config.entry_for(call.name);
        let unchanged = |reason: Reason, totals: Totals| Processed {
            tool: call.name.to_string(),
            family: entry.family,
            truncated: false,
            bypassed: reason == Reason::Bypass,
            reason,
            threshold: entry.threshold,
            original: totals,
            kept: if totals.lines > 0 {
                vec![KeptSpan {
                    start_line: 1,
                    end_line: totals.lines,
                    chars: totals.chars,
                    partial: false,
                }]
            } else {
                Vec::new()
            },
            omitted: Omitted::default(),
            language: None,
            outline: None,
            suggestions: Vec::new(),
            text: text.to_string(),
        };
        if self.config.is_bypassed(call.name) {
            return unchanged(Reason::Bypass, LineIndex::new(text).totals());
        }
        let chars = cut::count_chars(text);
        if chars <= entry.threshold {
            return unchanged(Reason::UnderThreshold, LineIndex::new(text).totals());
        }
        if cut::already_cut(text) {
            return unchanged(Reason::AlreadyCut, LineIndex::new(text).totals());
        }
        let idx = LineIndex::new(text);
        let totals = idx.totals();
        let the_cut = cut::cut(&idx, entry.shape, self.config.max_kept_chars);
        let pieces = the_cut.pieces(&idx);

        let explicit = call.lang.or_else(|| {
            call.args
                .get("language")
                .and_then(Value::as_str)
                .and_then(Language::from_name)
        });
        let path = entry
            .args
            .path
            .iter()
            .find_map(|k| call.args.get(k).and_then(Value::as_str));
        let (language, outline) = if entry.family == Family::ReadFile {
            match detect::language(explicit, path, text) {
                Some((lang, _)) => (
                    Some(lang.name().to_string()),
                    outline::outline(text, lang).ok(),
                ),
                None => (detect::text_kind(path, text).map(str::to_string), None),
            }
        } else {
            (detect::text_kind(path, text).map(str::to_string), None)
        };

        let ctx = hints::Context {
            tool: call.name,
            args: call.args,
            entry,
            config: &self.config,
            idx: &idx,
            totals,
            cut: &the_cut,
            pieces: &pieces,
            outline: outline.as_ref(),
            language: language.as_deref(),
        };
        let recovery = hints::build(&ctx);
        let mut out = cut::render(&idx, &pieces);
        out.push('\n');
        out.push_str(&recovery.render());

        let mut kept = Vec::new();
        let mut omitted = Omitted::default();
        for p in &pieces {
            match p {
                Piece::Kept(_, span) => kept.push(span.clone()),
                Piece::Omitted(g) => {
                    omitted.chars += g.chars;
                    omitted.lines += g.whole_lines();
                    if let Some((a, b)) = g.lines {
                        omitted.ranges.push(LineRange {
                            start_line: a,
                            end_line: b,
                        });
                    }
                }
            }
        }
        Processed {
            tool: call.name.to_string(),
            family: entry.family,
            truncated: true,
            bypassed: false,
            reason: Reason::Cut,
            threshold: entry.threshold,
            original: totals,
            kept,
            omitted,
            language,
            outline,
            suggestions: recovery.suggestions,
            text: out,
        }
    }
}
