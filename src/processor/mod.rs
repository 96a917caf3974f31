//! The pipeline: bypass → threshold → clean → (JSON | lines) cut → detect →
//! outline → hints → render.
//!
//! `mod.rs` holds the processor and the in-memory entry points; `report` the
//! types it returns, `custom` the harness's own families, `binary` binary
//! results, `stream` the bounded reading of large results, `finish` the stages
//! after the threshold check.

mod binary;
mod custom;
mod finish;
mod report;
mod stream;

use custom::Registered;
pub use custom::{CustomFamily, HintBuilder};
pub use report::{
    CollapsedRun, HtmlStats, LineRange, Omitted, Processed, Reason, Stored, StreamError, ToolCall,
};
pub use stream::read_pieces;

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::clean::CleanStats;
use crate::config::{ArgKeys, Config, ConfigError, Family, Shape, ToolEntry, Unit, glob_match};
use crate::cut::{self, Gap, KeptSpan, LineIndex, OriginMap, Piece, Totals};
use crate::hints::{self, HEADING, Recovery, Suggestion};
use crate::jsoncut::{self, JsonStats};
use crate::measure::{Chars, Measure};
use crate::outline::detect;
use crate::outline::{self, Language, Outline};
use crate::scan::{self, Bounds};
use crate::store::spill::LossyDecoder;
use crate::store::{self, Meta, OutputWriter, ResultStore, SaveWhen, StoreError};

/// A store attached to the processor, and which results go into it.
#[derive(Debug, Clone)]
struct Attached {
    store: Arc<dyn ResultStore>,
    save: SaveWhen,
}

/// Makes oversized tool results fit: see the crate docs.
#[derive(Clone, Default)]
pub struct ToolResultProcessor {
    config: Config,
    custom: Vec<Arc<Registered>>,
    store: Option<Attached>,
}

impl std::fmt::Debug for ToolResultProcessor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolResultProcessor")
            .field("config", &self.config)
            .field(
                "custom",
                &self
                    .custom
                    .iter()
                    .map(|c| &c.family.name)
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// The recovery-section builder of a built-in family.
fn builtin(family: Family) -> fn(&hints::Context<'_>) -> Recovery {
    match family {
        Family::ReadFile => hints::read_file::build,
        Family::Grep => hints::grep::build,
        Family::Shell => hints::jq::build_shell,
        Family::WebSearch => hints::web_search::build,
        Family::WebFetch => hints::web_fetch::build,
        Family::Glob => hints::glob::build,
        Family::Generic => hints::generic::build,
    }
}

impl ToolResultProcessor {
    /// A processor with `config`, no custom family and no store.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolcap::{Config, ToolResultProcessor};
    ///
    /// let p = ToolResultProcessor::new(Config::defaults());
    /// let out = p.process("shell", "ok\n", &json!({"command": "true"}));
    /// assert!(!out.truncated);
    /// assert_eq!(out.text, "ok\n");
    /// ```
    pub fn new(config: Config) -> Self {
        ToolResultProcessor {
            config,
            custom: Vec::new(),
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

    /// The same processor (custom families, store) with another configuration.
    pub fn with_config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// The configuration the processor runs with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Add a harness-defined family; its patterns are matched before the config's
    /// tool entries. Fails when its threshold does not exceed `max_kept_chars`.
    pub fn register(&mut self, family: CustomFamily) -> Result<(), ConfigError> {
        let max = self.config.max_kept_chars;
        if family.threshold <= max {
            return Err(ConfigError {
                origin: format!("CustomFamily {:?}", family.name),
                key: "threshold".into(),
                problem: format!(
                    "threshold = {} is not greater than max_kept_chars = {max}",
                    family.threshold
                ),
                fix: format!("use a threshold above {max}"),
                kind: crate::config::ConfigErrorKind::Conflict,
                source: None,
            });
        }
        let entry = ToolEntry {
            key: family.name.clone(),
            family: Family::Generic,
            names: family.patterns.clone(),
            threshold: family.threshold,
            shape: family.shape,
            args: family.args.clone(),
            unit: Unit::Chars,
            max_kept: max,
            clean: false,
            json: true,
        };
        self.custom.push(Arc::new(Registered { family, entry }));
        Ok(())
    }

    /// Process `text`, the result of calling `tool` with `args`.
    pub fn process(&self, tool: &str, text: &str, args: &Value) -> Processed {
        self.process_call(&ToolCall::new(tool, args), text)
    }

    /// The entry, family name and hint builder for a tool.
    fn resolve(&self, name: &str) -> (&ToolEntry, String, Option<&Registered>) {
        let custom = self
            .custom
            .iter()
            .find(|c| {
                c.family
                    .patterns
                    .iter()
                    .any(|p| p == name || glob_match(p, name))
            })
            .map(|c| c.as_ref());
        let entry = custom.map_or_else(|| self.config.entry_for(name), |c| &c.entry);
        let family = custom.map_or_else(
            || entry.family.as_str().to_string(),
            |c| c.family.name.clone(),
        );
        (entry, family, custom)
    }

    /// Whether results of this tool are scanned bounded (head, tail and error
    /// lines kept; the middle counted, not held): the shell family, whose hints
    /// need nothing else.
    fn bounded(entry: &ToolEntry, custom: Option<&Registered>) -> bool {
        custom.is_none() && entry.family == Family::Shell
    }

    /// Whether `tool`'s results can be processed from a stream with bounded
    /// memory by [`process_stream`](Self::process_stream) (else read the whole
    /// result and call [`process_call`](Self::process_call)). With a store
    /// attached too: the full result is written to it as it is read (bounded by
    /// the store: a [`SqliteStore`](crate::store::SqliteStore) holds one chunk).
    pub fn streams(&self, tool: &str) -> bool {
        let (entry, _, custom) = self.resolve(tool);
        Self::bounded(entry, custom) && entry.unit == Unit::Chars && !self.config.is_bypassed(tool)
    }

    fn blank(&self, call: &ToolCall<'_>) -> Processed {
        let (entry, family, _) = self.resolve(call.name);
        Processed {
            tool: call.name.to_string(),
            family,
            truncated: false,
            bypassed: false,
            reason: Reason::UnderThreshold,
            threshold: entry.threshold,
            unit: entry.unit.name(),
            kept_budget: entry.max_kept,
            original: Totals::default(),
            original_tokens: None,
            kept: Vec::new(),
            omitted: Omitted::default(),
            collapsed: Vec::new(),
            cleaning: None,
            json: None,
            html: None,
            language: None,
            outline: None,
            suggestions: Vec::new(),
            text: String::new(),
            stored: None,
            store_error: None,
        }
    }

    /// Process `text`, the result of `call`. With a store attached, a failure to save
    /// is reported in [`Processed::store_error`]; see [`Self::try_process_call`].
    pub fn process_call(&self, call: &ToolCall<'_>, text: &str) -> Processed {
        self.run(call, text).0
    }

    /// [`Self::process_call`], failing when the attached store cannot save the result.
    pub fn try_process_call(
        &self,
        call: &ToolCall<'_>,
        text: &str,
    ) -> Result<Processed, StoreError> {
        match self.run(call, text) {
            (out, None) => Ok(out),
            (_, Some(e)) => Err(e),
        }
    }

    /// The pipeline, then keeping the full result when a store wants it.
    fn run(&self, call: &ToolCall<'_>, text: &str) -> (Processed, Option<StoreError>) {
        let mut err = None;
        let mut out = self.pipeline(call, text, &mut |size, shown| {
            self.save(call, text, size, true, shown)
                .unwrap_or_else(|e| {
                    err = Some(e);
                    None
                })
        });
        if !out.truncated && !out.bypassed {
            match self.save(call, text, out.original, false, out.original.chars) {
                Ok(s) => out.stored = s,
                Err(e) => err = Some(e),
            }
        }
        out.store_error = err.as_ref().map(ToString::to_string);
        (out, err)
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

    /// bypass → threshold → scan → cut → hints → render. `keep(original, offset)`
    /// is asked to keep a result that is cut (offset: where reading on starts) and
    /// says where it was kept.
    fn pipeline(
        &self,
        call: &ToolCall<'_>,
        text: &str,
        keep: &mut dyn FnMut(Totals, usize) -> Option<Stored>,
    ) -> Processed {
        let (entry, _, custom) = self.resolve(call.name);
        let m = measure_for(entry.unit);
        let m = m.as_ref();
        let mut out = self.blank(call);
        out.original = Totals::of(text);
        if self.config.is_bypassed(call.name) && custom.is_none() {
            out.bypassed = true;
            out.reason = Reason::Bypass;
            out.kept = whole(&out.original);
            out.text = text.to_string();
            return out;
        }
        if !over(entry, m, text, out.original.chars) {
            out.kept = whole(&out.original);
            out.text = text.to_string();
            return out;
        }
        if crate::bounds::already_processed(text, entry.max_kept, entry.threshold, m) {
            out.reason = Reason::AlreadyCut;
            out.kept = whole(&out.original);
            out.text = text.to_string();
            return out;
        }
        if let Some(b) = binary::detect(text) {
            return binary::summarise(out, &b, text, call, entry, &self.config);
        }
        if matches!(entry.unit, Unit::Tokens(_)) {
            out.original_tokens = Some(m.cost(text));
        }
        let bounded = Self::bounded(entry, custom);
        let scanned = (entry.clean || bounded).then(|| {
            scan::scan(
                text,
                entry.clean,
                bounded.then(|| Bounds::for_budget(entry.max_kept)),
            )
        });
        // a bounded scan stands in for the whole text's line index
        let orig_idx = (!bounded).then(|| LineIndex::new(text));
        let read = finish::Read {
            scanned,
            tally: None,
        };
        self.finish(call, out, Some(text), orig_idx.as_ref(), read, keep)
    }
}

/// The whole original as one kept span.
fn whole(totals: &Totals) -> Vec<KeptSpan> {
    if totals.lines > 0 {
        vec![KeptSpan {
            start_line: 1,
            end_line: totals.lines,
            chars: totals.chars,
            partial: false,
        }]
    } else {
        Vec::new()
    }
}

/// Whether `s` (of `chars` characters, counted once by the caller) is over the
/// entry's threshold (a token is at least one byte: a text of at most
/// `threshold` bytes fits).
fn over(entry: &ToolEntry, m: &dyn Measure, s: &str, chars: usize) -> bool {
    match entry.unit {
        Unit::Chars => chars > entry.threshold,
        Unit::Tokens(_) => s.len() > entry.threshold && m.cost(s) > entry.threshold,
    }
}

/// The measure for a unit (the token encoder is loaded here, only when used).
fn measure_for(unit: Unit) -> Box<dyn Measure> {
    match unit {
        #[cfg(feature = "tokens")]
        Unit::Tokens(e) => Box::new(crate::measure::Tokens::new(e)),
        _ => Box::new(Chars),
    }
}

/// Cut, then make sure the kept part measured as a whole fits the budget (token
/// counts of lines do not always add up to the count of their concatenation).
fn cut_within(
    idx: &LineIndex<'_>,
    shape: Shape,
    budget: usize,
    m: &dyn Measure,
    prep: &cut::Prepared,
) -> cut::Cut {
    let mut b = budget;
    loop {
        let c = cut::cut_prepared(idx, shape, b, m, prep);
        let mut kept: String = c.ranges.iter().map(|r| &idx.text[r.start..r.end]).collect();
        // the lines shown for runs of near-duplicates are shown too
        for r in &c.collapsed {
            kept.push_str(&r.text);
            kept.push('\n');
        }
        let cost = m.cost(&kept);
        if cost <= budget || b == 0 {
            return c;
        }
        b = b.saturating_sub((cost - budget).max(1));
    }
}
