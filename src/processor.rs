//! The pipeline: bypass → threshold → detect → outline → cut → hints → render.

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::config::{Config, Family};
use crate::cut::{self, KeptSpan, LineIndex, Piece, Totals};
use crate::detect;
use crate::hints::{self, Suggestion};
use crate::outline::{self, Language, Outline};
use crate::store::{self, Meta, ResultStore, SaveWhen, StoreError};

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
    /// The dialog (thread) the call belongs to; [`store::DEFAULT_DIALOG`] if `None`.
    pub dialog: Option<&'a str>,
}

impl<'a> ToolCall<'a> {
    pub fn new(name: &'a str, args: &'a Value) -> Self {
        ToolCall {
            name,
            args,
            lang: None,
            id: None,
            dialog: None,
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
    /// Where the full result was kept, when a store is attached and saved it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stored: Option<Stored>,
    /// Why saving the full result failed (the text then does not mention it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store_error: Option<String>,
}

/// A full result kept in a store: how the model gets it back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Stored {
    pub tool_call_id: String,
    pub dialog_id: String,
    /// `memory` or `sqlite`.
    pub storage_type: String,
    /// Where `get_continuation` reads on from: the character offset right after the
    /// kept head (0 when the head was cut; the total for a result that was not cut).
    pub offset: usize,
}

/// A store attached to the processor, and which results go into it.
#[derive(Debug, Clone)]
struct Attached {
    store: Arc<dyn ResultStore>,
    save: SaveWhen,
}

/// Makes oversized tool results fit: see the crate docs.
#[derive(Debug, Clone, Default)]
pub struct ToolResultProcessor {
    config: Config,
    store: Option<Attached>,
}

impl ToolResultProcessor {
    pub fn new(config: Config) -> Self {
        ToolResultProcessor {
            config,
            store: None,
        }
    }

    /// Keep full results in `store` (default: none): the cut ones, or all that are
    /// not bypassed ([`SaveWhen`]), under the call's id ([`ToolCall::id`]; calls
    /// without one are not kept) and dialog. The recovery section of a kept, cut
    /// result then says how to read the rest:
    /// `Call get_continuation with tool_call_id="call_abc123" offset=1985 to read more`.
    pub fn with_store(mut self, store: Arc<dyn ResultStore>, save: SaveWhen) -> Self {
        self.store = Some(Attached { store, save });
        self
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Process `text`, the result of calling `tool` with `args`.
    pub fn process(&self, tool: &str, text: &str, args: &Value) -> Processed {
        self.process_call(&ToolCall::new(tool, args), text)
    }

    /// Process `text`, the result of `call`. With a store attached, a failure to save
    /// is reported in [`Processed::store_error`]; see [`Self::try_process_call`].
    pub fn process_call(&self, call: &ToolCall<'_>, text: &str) -> Processed {
        let (mut out, err) = self.process_inner(call, text);
        out.store_error = err.map(|e| e.to_string());
        out
    }

    /// [`Self::process_call`], failing when the attached store cannot save the result.
    pub fn try_process_call(
        &self,
        call: &ToolCall<'_>,
        text: &str,
    ) -> Result<Processed, StoreError> {
        match self.process_inner(call, text) {
            (out, None) => Ok(out),
            (_, Some(e)) => Err(e),
        }
    }

    /// Save the full result when a store is attached and wants it.
    fn save(
        &self,
        call: &ToolCall<'_>,
        text: &str,
        size: Totals,
        truncated: bool,
        shown_chars: usize,
    ) -> Result<Option<Stored>, StoreError> {
        let (Some(a), Some(id)) = (&self.store, call.id) else {
            return Ok(None);
        };
        if !truncated && a.save == SaveWhen::Cut {
            return Ok(None);
        }
        let dialog = call.dialog.unwrap_or(store::DEFAULT_DIALOG);
        let mut meta = Meta::with_size(dialog, id, call.name, call.args, size);
        meta.truncated = truncated;
        meta.shown_chars = shown_chars;
        a.store.put_output(&meta, text)?;
        Ok(Some(Stored {
            tool_call_id: id.to_string(),
            dialog_id: dialog.to_string(),
            storage_type: a.store.storage_type().to_string(),
            offset: shown_chars,
        }))
    }

    fn process_inner(&self, call: &ToolCall<'_>, text: &str) -> (Processed, Option<StoreError>) {
        let keep =
            |mut p: Processed| match self.save(call, text, p.original, false, p.original.chars) {
                Ok(stored) => {
                    p.stored = stored;
                    (p, None)
                }
                Err(e) => (p, Some(e)),
            };
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
            stored: None,
            store_error: None,
        };
        if self.config.is_bypassed(call.name) {
            // never kept: the recovery tools' own results are bypassed
            return (
                unchanged(Reason::Bypass, LineIndex::new(text).totals()),
                None,
            );
        }
        let chars = cut::count_chars(text);
        if chars <= entry.threshold {
            return keep(unchanged(
                Reason::UnderThreshold,
                LineIndex::new(text).totals(),
            ));
        }
        if cut::already_cut(text) {
            return keep(unchanged(Reason::AlreadyCut, LineIndex::new(text).totals()));
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
        let mut recovery = hints::build(&ctx);
        // Reading on starts where the first omitted part does.
        let shown = match the_cut.ranges.first() {
            Some(r) if r.start == 0 => cut::count_chars(&text[..r.end]),
            _ => 0,
        };
        let (stored, store_err) = match self.save(call, text, totals, true, shown) {
            Ok(s) => (s, None),
            Err(e) => (None, Some(e)),
        };
        if let Some(s) = &stored {
            recovery.facts.push(format!(
                "The full result is stored. Call get_continuation with tool_call_id={} offset={} to read more",
                crate::quote::json_string(&s.tool_call_id),
                s.offset
            ));
        }
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
        let processed = Processed {
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
            stored,
            store_error: None,
        };
        (processed, store_err)
    }
}
