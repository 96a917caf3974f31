//! The pipeline: bypass → threshold → clean → (JSON | lines) cut → detect →
//! outline → hints → render.
//!
//! `mod.rs` holds the processor and the in-memory entry points; `report` the
//! types it returns, `custom` the harness's own families, `binary` binary
//! results, `stream` the bounded reading of large results, `finish` the stages
//! after the threshold check.

mod binary;
mod custom;
mod cutting;
pub mod decode;
mod family;
mod finish;
pub(crate) mod printed;
mod report;
mod resolve;
mod stream;

use custom::Registered;
pub use custom::{CustomFamily, HintBuilder};
pub use report::{
    CollapsedRun, HtmlStats, LineRange, Omitted, PrintedFile, Processed, Reason, Stored,
    StreamError, ToolCall,
};
use resolve::Resolved;
pub use stream::read_pieces;

use std::sync::Arc;

use serde_json::Value;

use crate::config::{Config, ConfigError, Family, ToolEntry, Unit, glob_match};
use crate::cut::index::{LineIndex, Totals};
use crate::cut::scan::{self, Bounds};
use crate::cut::shape::KeptSpan;
use crate::measure::Measure;
use crate::store::{self, Meta, ResultStore, SaveWhen, StoreError};

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

impl ToolResultProcessor {
    /// A processor with `config`, no custom family and no store.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolcap_config::Config;
    /// use toolcap_core::ToolResultProcessor;
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
            return Err(ConfigError::new(
                format!("CustomFamily {:?}", family.name),
                "threshold",
                crate::config::ConfigErrorKind::Conflict,
                format!(
                    "threshold = {} is not greater than max_kept_chars = {max}",
                    family.threshold
                ),
                format!("use a threshold above {max}"),
            ));
        }
        let entry = ToolEntry {
            key: family.name.clone(),
            family: Family::default(),
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

    /// The call's tool resolved once: its entry, family name and strategy (a
    /// harness's family, matched first, else the config's entry), with the
    /// budgets of the context the call says it has left.
    fn resolve(&self, call: &ToolCall<'_>) -> Resolved<'_> {
        self.resolve_named(call.name, Some(call.args))
            .with_printed(&self.config, call)
            .with_context(&self.config, &call.context)
    }

    /// [`Self::resolve`] by the tool's name alone (the configured budgets).
    fn resolve_name(&self, name: &str) -> Resolved<'_> {
        self.resolve_named(name, None)
    }

    /// [`Self::resolve_name`], the config's entry chosen by the call's
    /// arguments too when they are given (an entry for one sub-command of a
    /// tool: [`Config::entry_for_call`](crate::config::Config::entry_for_call)).
    fn resolve_named(&self, name: &str, args: Option<&Value>) -> Resolved<'_> {
        let custom = self.custom.iter().find(|c| {
            c.family
                .patterns
                .iter()
                .any(|p| p == name || glob_match(p, name))
        });
        match custom {
            Some(c) => Resolved::new(&c.entry, &c.family.name, c.as_ref(), true),
            None => {
                let entry = match args {
                    Some(a) => self.config.entry_for_call(name, a),
                    None => self.config.entry_for(name),
                };
                Resolved::new(
                    entry,
                    entry.family.as_str(),
                    family::builtin(entry.family),
                    false,
                )
            }
        }
    }

    /// Whether `tool`'s results can be processed from a stream with bounded
    /// memory by [`process_stream`](Self::process_stream) (else read the whole
    /// result and call [`process_call`](Self::process_call)). With a store
    /// attached too: the full result is written to it as it is read (bounded by
    /// the store: a [`SqliteStore`](crate::store::SqliteStore) holds one chunk).
    pub fn streams(&self, tool: &str) -> bool {
        let r = self.resolve_name(tool);
        r.strategy().bounded() && r.entry().unit == Unit::Chars && !self.config.is_bypassed(tool)
    }

    /// The report of a result not cut (yet): its tool, family and budgets.
    fn blank(call: &ToolCall<'_>, r: &Resolved<'_>) -> Processed {
        let entry = r.entry();
        Processed {
            tool: call.name.to_string(),
            family: r.family.to_string(),
            truncated: false,
            bypassed: false,
            reason: Reason::UnderThreshold,
            threshold: entry.threshold,
            unit: entry.unit.name(),
            kept_budget: entry.max_kept,
            budget_source: r.budget_source.as_str(),
            budget: r.budget.clone(),
            original: Totals::default(),
            encoding: call.decoded_from.map(str::to_string),
            original_tokens: None,
            kept: Vec::new(),
            omitted: Omitted::default(),
            collapsed: Vec::new(),
            cleaning: None,
            json: None,
            html: None,
            printed_file: r.printed().map(|p| PrintedFile {
                path: p.path.clone(),
                start_line: p.first,
                end_line: p.last,
                numbered: p.numbered,
            }),
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

    /// Process a result given as the bytes the tool wrote: UTF-8, or text in a
    /// legacy encoding when it clearly is one (see `processor::decode`: Shift_JIS, EUC-JP,
    /// GBK, windows-1252...), decoded and said so (the recovery section's facts,
    /// [`Processed::encoding`]); [`Processed::original`]'s bytes are `bytes`'s own.
    /// Returns the text the result was processed as, too (the decoded one).
    pub fn process_bytes<'b>(
        &self,
        call: &ToolCall<'_>,
        bytes: &'b [u8],
    ) -> (Processed, std::borrow::Cow<'b, str>) {
        let (out, text, _) = self.run_bytes(call, bytes);
        (out, text)
    }

    /// [`Self::process_bytes`], failing when the attached store cannot save the
    /// result.
    pub fn try_process_bytes<'b>(
        &self,
        call: &ToolCall<'_>,
        bytes: &'b [u8],
    ) -> Result<(Processed, std::borrow::Cow<'b, str>), StoreError> {
        match self.run_bytes(call, bytes) {
            (out, text, None) => Ok((out, text)),
            (_, _, Some(e)) => Err(e),
        }
    }

    fn run_bytes<'b>(
        &self,
        call: &ToolCall<'_>,
        bytes: &'b [u8],
    ) -> (Processed, std::borrow::Cow<'b, str>, Option<StoreError>) {
        let d = decode::decode(bytes);
        let mut call = *call;
        if let Some(enc) = d.encoding {
            call.decoded_from = Some(enc.name());
        }
        let (mut out, err) = self.run(&call, &d.text);
        out.original.bytes = bytes.len();
        (out, d.text, err)
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
        if !out.truncated && !out.bypassed && out.stored.is_none() {
            match self.save(call, text, out.original, false, out.original.chars) {
                Ok(s) => out.stored = s,
                Err(e) => err = Some(e),
            }
        }
        out.store_error = err.as_ref().map(ToString::to_string);
        self.note_seen(call, &out);
        (out, err)
    }

    /// Add the result to the attached store's record (`store::record`): every
    /// result that is not bypassed, cut or not, so that cut rates can be counted.
    /// A store that cannot record is logged; the result stands.
    fn note_seen(&self, call: &ToolCall<'_>, out: &Processed) {
        let Some(a) = &self.store else {
            return;
        };
        if out.bypassed {
            return;
        }
        let reason = serde_json::to_value(out.reason)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let seen = store::record::Seen {
            at_ms: store::now_ms(),
            dialog_id: call.dialog.unwrap_or(store::DEFAULT_DIALOG).to_string(),
            tool_call_id: call.id.map(str::to_string),
            tool: out.tool.clone(),
            family: out.family.clone(),
            reason,
            truncated: out.truncated,
            threshold: out.threshold as u64,
            unit: out.unit.to_string(),
            size_chars: out.original.chars as u64,
            shown_chars: crate::text::count_chars(&out.text) as u64,
            kept_chars: out.kept.iter().map(|k| k.chars as u64).sum(),
        };
        if let Err(e) = a.store.record_seen(&seen) {
            tracing::warn!(target: "toolcap::record", error = %e, tool = call.name, "result not recorded");
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

    /// bypass → threshold → scan → cut → hints → render. `keep(original, offset)`
    /// is asked to keep a result that is cut (offset: where reading on starts) and
    /// says where it was kept.
    fn pipeline(
        &self,
        call: &ToolCall<'_>,
        text: &str,
        keep: &mut dyn FnMut(Totals, usize) -> Option<Stored>,
    ) -> Processed {
        let r = self.resolve(call).with_viewed(&self.config, call, text);
        let entry = r.entry();
        let m = r.measure();
        let mut out = Self::blank(call, &r);
        out.original = Totals::of(text);
        out.printed_to_end();
        if self.config.is_bypassed(call.name) && !r.custom {
            out.set_reason(Reason::Bypass);
            out.kept = whole(&out.original);
            out.text = text.to_string();
            return out;
        }
        if !over(entry, m, text, out.original.chars) {
            out.kept = whole(&out.original);
            out.text = text.to_string();
            return out;
        }
        // toolcap's own output is recognised by the configured budgets: an
        // earlier call may have had more room than this one
        let configured = r.configured();
        if crate::cut::bounds::already_processed(text, configured.max_kept, configured.threshold, m)
        {
            out.set_reason(Reason::AlreadyCut);
            out.kept = whole(&out.original);
            out.text = text.to_string();
            return out;
        }
        if let Some(b) = binary::detect(text) {
            // kept like every cut result (as decoded): the suggestions read it back
            out.stored = keep(out.original, 0);
            return binary::summarise(out, &b, text, call, &r, &self.config);
        }
        if matches!(entry.unit, Unit::Tokens(_)) {
            out.original_tokens = Some(m.cost(text));
        }
        let bounded = r.strategy().bounded();
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
            text: Some(text),
            orig_idx: orig_idx.as_ref(),
            scanned,
            tally: None,
            everyday: None,
        };
        self.finish(call, &r, out, read, keep)
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
