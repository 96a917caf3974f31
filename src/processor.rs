//! The pipeline: bypass → threshold → clean → (JSON | lines) cut → detect →
//! outline → hints → render.

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::clean::CleanStats;
use crate::config::{ArgKeys, Config, ConfigError, Family, Shape, ToolEntry, Unit, glob_match};
use crate::cut::{self, Gap, KeptSpan, LineIndex, OriginMap, Piece, Totals};
use crate::detect;
use crate::hints::{self, HEADING, Recovery, Suggestion};
use crate::jsoncut::{self, JsonStats};
use crate::measure::{Chars, Measure};
use crate::outline::{self, Language, Outline};
use crate::scan::{self, Bounds};
use crate::store::spill::LossyDecoder;
use crate::store::{self, Meta, OutputWriter, ResultStore, SaveWhen, StoreError};

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
    /// Terminal noise was removed and the rest fits: nothing else omitted.
    Cleaned,
    /// The result already carries toolcap's marker: never cut twice.
    AlreadyCut,
    /// The result was cut.
    Cut,
    /// The result is binary data: summarised, nothing kept (see `binary.rs`).
    Binary,
}

/// What was omitted, exactly.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Omitted {
    /// Characters of the original not shown verbatim.
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
    /// The tool family (a built-in one, or a name registered with
    /// [`ToolResultProcessor::register`]).
    pub family: String,
    pub truncated: bool,
    pub bypassed: bool,
    pub reason: Reason,
    pub threshold: usize,
    /// What `threshold` (and `kept_budget`) count: `chars` or `tokens`.
    pub unit: &'static str,
    /// How much of the original may be kept, in `unit`.
    pub kept_budget: usize,
    pub original: Totals,
    /// Tokens of the original, when the tool counts in tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_tokens: Option<usize>,
    /// Kept parts, in original line numbers (empty when JSON was reshaped).
    pub kept: Vec<KeptSpan>,
    pub omitted: Omitted,
    /// What terminal-noise cleaning did, when it changed anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cleaning: Option<CleanStats>,
    /// What JSON reshaping dropped, when a JSON result was cut as JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub json: Option<JsonStats>,
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
    /// kept head (0 when the head was cut or the result reshaped; the total for a
    /// result that was not cut).
    pub offset: usize,
}

/// Read `input` to its end, handing each piece read (up to 1 MiB) to `sink`.
pub fn read_pieces(
    mut input: impl std::io::Read,
    sink: &mut dyn FnMut(&[u8]),
) -> std::io::Result<()> {
    let mut buf = vec![0u8; 1 << 20];
    loop {
        match input.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => sink(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// A store attached to the processor, and which results go into it.
#[derive(Debug, Clone)]
struct Attached {
    store: Arc<dyn ResultStore>,
    save: SaveWhen,
}

/// Builds a family's recovery section. Implemented by the built-in families and
/// by any `Fn(&Context) -> Recovery`, so a harness can add its own.
pub trait HintBuilder: Send + Sync {
    fn build(&self, ctx: &hints::Context<'_>) -> Recovery;
}

impl<F> HintBuilder for F
where
    F: Fn(&hints::Context<'_>) -> Recovery + Send + Sync,
{
    fn build(&self, ctx: &hints::Context<'_>) -> Recovery {
        self(ctx)
    }
}

/// A tool family defined by the harness: which tool names it covers, how its
/// results are cut, and how its recovery section is built.
#[derive(Clone)]
pub struct CustomFamily {
    /// Family name, reported as `family`.
    pub name: String,
    /// Tool names (globs allowed: `mcp__jira__*`).
    pub patterns: Vec<String>,
    /// Results longer than this (in the config's default unit, chars) are cut.
    pub threshold: usize,
    pub shape: Shape,
    /// Argument keys of these tools, for hints that read them.
    pub args: ArgKeys,
    pub hints: Arc<dyn HintBuilder>,
}

impl std::fmt::Debug for CustomFamily {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CustomFamily")
            .field("name", &self.name)
            .field("patterns", &self.patterns)
            .field("threshold", &self.threshold)
            .field("shape", &self.shape)
            .finish()
    }
}

impl CustomFamily {
    /// A family for tools matching `patterns`, cut at the head above 3,500 chars,
    /// with recovery hints from `hints`.
    pub fn new(
        name: impl Into<String>,
        patterns: &[&str],
        hints: impl HintBuilder + 'static,
    ) -> CustomFamily {
        CustomFamily {
            name: name.into(),
            patterns: patterns.iter().map(|p| p.to_string()).collect(),
            threshold: 3500,
            shape: Shape::Head,
            args: ArgKeys::default(),
            hints: Arc::new(hints),
        }
    }

    pub fn threshold(mut self, chars: usize) -> Self {
        self.threshold = chars;
        self
    }

    pub fn shape(mut self, shape: Shape) -> Self {
        self.shape = shape;
        self
    }

    pub fn args(mut self, args: ArgKeys) -> Self {
        self.args = args;
        self
    }
}

struct Registered {
    family: CustomFamily,
    entry: ToolEntry,
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
        Family::Shell => hints::shell::build,
        Family::WebSearch => hints::web_search::build,
        Family::WebFetch => hints::web_fetch::build,
        Family::Glob => hints::glob::build,
        Family::Generic => hints::generic::build,
    }
}

impl ToolResultProcessor {
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
            cleaning: None,
            json: None,
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
        if let Some(b) = crate::binary::detect(text) {
            return crate::binary::summarise(out, &b, text, call, entry, &self.config);
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
        self.finish(call, out, Some(text), orig_idx.as_ref(), scanned, keep)
    }

    /// Process a result read from `input` with bounded memory: the head, the
    /// tail and error lines are kept, the rest is counted. Gives the same result
    /// as [`process_call`](Self::process_call) on the whole text. Returns the
    /// original bytes too when the result passes through unchanged (it is then
    /// small). For tools that do not [`stream`](Self::streams), reads the
    /// whole input.
    ///
    /// With a store attached, the full result is written to it as it is read
    /// ([`ResultStore::begin_output`]: a [`SqliteStore`](crate::store::SqliteStore)
    /// holds at most one chunk of it in memory), decoded exactly as
    /// [`process_call`](Self::process_call) would keep it (lossy UTF-8 of the whole
    /// input), and committed when the result is to be kept, else discarded. A
    /// failure to keep it is reported in [`Processed::store_error`]; see
    /// [`Self::try_process_stream`].
    pub fn process_stream(
        &self,
        call: &ToolCall<'_>,
        input: impl std::io::Read,
    ) -> std::io::Result<(Processed, Option<Vec<u8>>)> {
        let (out, raw, _) = self.stream(call, |sink| read_pieces(input, sink))?;
        Ok((out, raw))
    }

    /// [`Self::process_stream`], failing when the attached store cannot keep the
    /// result.
    pub fn try_process_stream(
        &self,
        call: &ToolCall<'_>,
        input: impl std::io::Read,
    ) -> Result<(Processed, Option<Vec<u8>>), StreamError> {
        self.try_process_chunks(call, |sink| read_pieces(input, sink))
    }

    /// [`process_stream`](Self::process_stream) for a result that `produce`
    /// hands over in pieces, in order, by calling the sink it is given once per
    /// piece (pieces of any size; about 1 MiB reads fastest). For input that is
    /// already in memory or mapped (the CLI maps files), this saves the copy a
    /// reader makes.
    pub fn process_chunks(
        &self,
        call: &ToolCall<'_>,
        produce: impl FnOnce(&mut dyn FnMut(&[u8])) -> std::io::Result<()>,
    ) -> std::io::Result<(Processed, Option<Vec<u8>>)> {
        let (out, raw, _) = self.stream(call, produce)?;
        Ok((out, raw))
    }

    /// [`Self::process_chunks`], failing when the attached store cannot keep the
    /// result.
    pub fn try_process_chunks(
        &self,
        call: &ToolCall<'_>,
        produce: impl FnOnce(&mut dyn FnMut(&[u8])) -> std::io::Result<()>,
    ) -> Result<(Processed, Option<Vec<u8>>), StreamError> {
        match self.stream(call, produce)? {
            (out, raw, None) => Ok((out, raw)),
            (_, _, Some(e)) => Err(StreamError::Store(e)),
        }
    }

    fn stream(
        &self,
        call: &ToolCall<'_>,
        produce: impl FnOnce(&mut dyn FnMut(&[u8])) -> std::io::Result<()>,
    ) -> std::io::Result<(Processed, Option<Vec<u8>>, Option<StoreError>)> {
        if !self.streams(call.name) {
            let mut buf = Vec::new();
            produce(&mut |piece: &[u8]| buf.extend_from_slice(piece))?;
            let text = String::from_utf8_lossy(&buf);
            let (p, err) = self.run(call, &text);
            let raw = (p.text == text).then_some(buf);
            return Ok((p, raw, err));
        }
        let (entry, _, _) = self.resolve(call.name);
        // every result of at most `threshold` chars fits in 4 bytes a char, and so
        // does toolcap's own output (to be recognised, not cut again)
        let raw_limit = entry
            .threshold
            .max(crate::bounds::max_output_chars(entry.max_kept))
            .saturating_mul(4)
            .saturating_add(4);
        let mut head: Vec<u8> = Vec::new();
        let mut sc = scan::Scanner::new(entry.clean, Some(Bounds::for_budget(entry.max_kept)));
        // the bytes read so far, while the result may be small enough to process
        // whole, or while it is not decided whether the store gets it
        let mut held: Vec<u8> = Vec::new();
        let mut raw_complete = true;
        let mut spill = self.spill_for(call);
        produce(&mut |data: &[u8]| {
            let n = data.len();
            if head.len() < crate::binary::SAMPLE_BYTES {
                let k = n.min(crate::binary::SAMPLE_BYTES - head.len());
                head.extend_from_slice(&data[..k]);
            }
            sc.feed(data);
            if raw_complete && held.len() + n > raw_limit {
                raw_complete = false;
            }
            if raw_complete || matches!(spill, Spill::Pending) {
                held.extend_from_slice(data);
            } else {
                spill.feed(data);
            }
            if !raw_complete {
                // the start of the result decides whether it is binary, never kept
                if matches!(spill, Spill::Pending) && head.len() >= crate::binary::SAMPLE_BYTES {
                    spill.decide(self.attached_store(), &head, &held);
                }
                if !matches!(spill, Spill::Pending) {
                    held = Vec::new();
                }
            }
        })?;
        let scanned = sc.finish();
        if raw_complete {
            // small enough to hold: the in-memory path, exactly
            drop(spill);
            let text = String::from_utf8_lossy(&held);
            let (p, err) = self.run(call, &text);
            let unchanged = p.text == text;
            return Ok((p, unchanged.then_some(held), err));
        }
        spill.decide(self.attached_store(), &head, &held);
        drop(held);
        let mut out = self.blank(call);
        out.original = scanned.totals;
        let sample = String::from_utf8_lossy(&head);
        if let Some(b) = crate::binary::detect(&sample) {
            // never kept, as in memory: anything written is discarded
            drop(spill);
            let out = crate::binary::summarise(out, &b, &sample, call, entry, &self.config);
            return Ok((out, None, None));
        }
        let mut err = None;
        let mut out = self.finish(call, out, None, None, Some(scanned), &mut |_, shown| {
            spill
                .keep(self, call, true, Some(shown))
                .unwrap_or_else(|e| {
                    err = Some(e);
                    None
                })
        });
        if !out.truncated && !out.bypassed {
            match spill.keep(self, call, false, None) {
                Ok(s) => out.stored = s,
                Err(e) => err = Some(e),
            }
        }
        out.store_error = err.as_ref().map(ToString::to_string);
        Ok((out, None, err))
    }

    fn attached_store(&self) -> Option<&dyn ResultStore> {
        self.store.as_ref().map(|a| a.store.as_ref())
    }

    /// How a streamed result of `call` is to be kept, before anything is read.
    fn spill_for(&self, call: &ToolCall<'_>) -> Spill<'_> {
        let (Some(_), Some(id)) = (&self.store, call.id) else {
            return Spill::Off;
        };
        let dialog = call.dialog.unwrap_or(store::DEFAULT_DIALOG);
        match store::validate_id("dialog id", dialog)
            .and_then(|()| store::validate_id("tool_call_id", id))
        {
            Ok(()) => Spill::Pending,
            Err(e) => Spill::Failed(e),
        }
    }

    /// Clean/JSON/lines cut, outline, hints and render, from the whole text (when
    /// held) and the scan (when one was made).
    fn finish(
        &self,
        call: &ToolCall<'_>,
        mut out: Processed,
        text: Option<&str>,
        orig_idx: Option<&LineIndex<'_>>,
        scanned: Option<scan::Scanned>,
        keep: &mut dyn FnMut(Totals, usize) -> Option<Stored>,
    ) -> Processed {
        let (entry, _, custom) = self.resolve(call.name);
        let m = measure_for(entry.unit);
        let m = m.as_ref();
        let hint_builder: &dyn HintBuilder = match custom {
            Some(c) => c.family.hints.as_ref(),
            None => &builtin(entry.family),
        };
        let cleaned = scanned.as_ref().is_some_and(|s| s.clean.changed());
        out.cleaning = scanned.as_ref().map(|s| s.clean).filter(|c| c.changed());
        if let Some(s) = &scanned
            && cleaned
            && !s.reduced
            && !over(entry, m, &s.text, cut::count_chars(&s.text))
        {
            out.reason = Reason::Cleaned;
            out.kept = whole(&out.original);
            out.text = format!(
                "{}\n[toolcap: terminal noise removed: {}; nothing else omitted]\n",
                s.text.trim_end_matches('\n'),
                s.clean.describe()
            );
            return out;
        }

        // Language and outline (read_file only; they need the whole text).
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
        let (language, outline) = match text {
            Some(t) if entry.family == Family::ReadFile && custom.is_none() => {
                match detect::language(explicit, path, t) {
                    Some((lang, _)) => (
                        Some(lang.name().to_string()),
                        outline::outline(t, lang).ok(),
                    ),
                    None => (detect::text_kind(path, t).map(str::to_string), None),
                }
            }
            Some(t) => (detect::text_kind(path, t).map(str::to_string), None),
            None => (None, None),
        };

        // The scanned text's lines, mapped back to the original's.
        let scan_idx = scanned.as_ref().map(|s| {
            LineIndex::with_origin(
                &s.text,
                OriginMap {
                    lines: &s.origin,
                    original_lines: out.original.lines,
                },
            )
        });
        let Some(work_idx) = scan_idx.as_ref().or(orig_idx) else {
            // neither the text nor a scan of it: nothing to cut
            return out;
        };

        // The cut: JSON stays JSON where it can; else lines.
        let json_cut = match text {
            Some(t) if entry.json && !scanned.as_ref().is_some_and(|s| s.reduced) => {
                jsoncut::parse(if cleaned { work_idx.text } else { t })
                    .and_then(|v| jsoncut::cut(&v, entry.max_kept, m))
            }
            _ => None,
        };
        let (body, kept, gaps, prefix_bytes) = match &json_cut {
            Some((json_text, stats)) => {
                out.json = Some(*stats);
                let marker = format!(
                    "[... JSON shortened to stay valid JSON: {} shown as {}; {} ...]",
                    hints::plural(out.original.chars, "char", "chars"),
                    hints::plural(stats.shown_chars, "char", "chars"),
                    stats.describe()
                );
                let gap = Gap {
                    chars: out.original.chars,
                    lines: (out.original.lines > 0).then_some((1, out.original.lines)),
                    cut_after: None,
                    resumes_at: None,
                    within: None,
                    tokens: None,
                    range: (0, work_idx.text.len()),
                };
                (
                    format!("{json_text}\n\n{marker}\n"),
                    Vec::new(),
                    vec![gap],
                    None,
                )
            }
            None => {
                let idx = work_idx;
                let the_cut = cut_within(idx, entry.shape, entry.max_kept, m);
                let mut pieces = the_cut.pieces(idx);
                if matches!(entry.unit, Unit::Tokens(_)) {
                    for p in &mut pieces {
                        if let Piece::Omitted(g) = p {
                            g.tokens = Some(m.cost(&idx.text[g.range.0..g.range.1]));
                        }
                    }
                }
                let body = cut::render(idx, &pieces, cleaned);
                let mut kept = Vec::new();
                let mut gaps = Vec::new();
                for p in pieces {
                    match p {
                        Piece::Kept(_, span) => kept.push(span),
                        Piece::Omitted(g) => gaps.push(g),
                    }
                }
                let prefix = match (scanned.is_none(), the_cut.ranges.first()) {
                    (true, Some(r)) if r.start == 0 => Some(r.end),
                    _ => None,
                };
                (body, kept, gaps, prefix)
            }
        };
        for g in &gaps {
            out.omitted.chars += g.chars;
            out.omitted.lines += g.whole_lines();
            if let Some((a, b)) = g.lines {
                out.omitted.ranges.push(LineRange {
                    start_line: a,
                    end_line: b,
                });
            }
        }

        let ctx = hints::Context {
            tool: call.name,
            args: call.args,
            entry,
            config: &self.config,
            idx: orig_idx.unwrap_or(work_idx),
            cleaned: scan_idx.as_ref(),
            errors: scanned.as_ref().map(|s| s.errors),
            cleaning: out.cleaning,
            totals: out.original,
            kept: &kept,
            gaps: &gaps,
            shown: &body,
            prefix_bytes,
            outline: outline.as_ref(),
            language: language.as_deref(),
        };
        let mut recovery = hint_builder.build(&ctx);
        if let Some(c) = &out.cleaning {
            recovery
                .facts
                .push(format!("Cleaned before cutting: {}", c.describe()));
        }
        if let Some(t) = out.original_tokens {
            recovery.facts.push(format!(
                "Tokens ({}): {} in all; up to {} kept",
                match entry.unit {
                    Unit::Tokens(e) => e.as_str(),
                    Unit::Chars => "chars",
                },
                crate::cut::thousands(t),
                crate::cut::thousands(entry.max_kept)
            ));
        }
        // Reading on starts right after the kept head (at 0 when the result was
        // reshaped or cleaned, or nothing of its start was kept).
        let shown = match kept.first() {
            // the kept head is the original's first characters, verbatim
            Some(k) if k.start_line == 1 && out.cleaning.is_none() && out.json.is_none() => k.chars,
            _ => 0,
        };
        out.stored = keep(out.original, shown);
        if let Some(s) = &out.stored {
            recovery.facts.push(format!(
                "The full result is stored. Call get_continuation with tool_call_id={} offset={} to read more",
                crate::quote::json_string(&s.tool_call_id),
                s.offset
            ));
        }
        let recovery = recovery.fit(hints::RECOVERY_CAP);
        let mut text_out = body;
        text_out.push('\n');
        text_out.push_str(&recovery.render());
        debug_assert!(text_out.contains(HEADING));

        out.truncated = true;
        out.reason = Reason::Cut;
        out.kept = kept;
        out.language = language;
        out.outline = outline;
        out.suggestions = recovery.suggestions;
        out.text = text_out;
        out
    }
}

/// Why [`ToolResultProcessor::try_process_stream`] failed.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// Reading the input failed.
    #[error("cannot read the input: {0}")]
    Read(#[from] std::io::Error),
    /// The attached store could not keep the full result.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Where a streamed result goes while it is read, when a store may keep it.
enum Spill<'s> {
    /// Nothing is kept: no store, no tool call id, or binary data.
    Off,
    /// Not decided yet: the bytes read are held until the start of the result
    /// shows whether it is binary.
    Pending,
    /// Being written to the store, decoded as the whole input would be.
    Writing(Box<dyn OutputWriter + 's>, LossyDecoder),
    /// Keeping it failed: reported when it is to be kept.
    Failed(StoreError),
}

impl<'s> Spill<'s> {
    /// Decide a pending spill from the start of the result (`head`, all of it
    /// or at least [`crate::binary::SAMPLE_BYTES`]): binary data is not kept, else
    /// start writing, beginning with the bytes `held` so far.
    fn decide(&mut self, store: Option<&'s dyn ResultStore>, head: &[u8], held: &[u8]) {
        let (Spill::Pending, Some(store)) = (&*self, store) else {
            return;
        };
        if crate::binary::detect(&String::from_utf8_lossy(head)).is_some() {
            *self = Spill::Off;
            return;
        }
        *self = match store.begin_output() {
            Ok(w) => Spill::Writing(w, LossyDecoder::new()),
            Err(e) => Spill::Failed(e),
        };
        self.feed(held);
    }

    /// Write the next bytes read.
    fn feed(&mut self, data: &[u8]) {
        if let Spill::Writing(w, dec) = self
            && let Err(e) = dec.feed(data, &mut |s| w.write(s))
        {
            *self = Spill::Failed(e);
        }
    }

    /// Commit what was written when the store wants the result (a cut one,
    /// reading on at `shown`; or, with [`SaveWhen::All`], one that was not cut).
    fn keep(
        &mut self,
        p: &ToolResultProcessor,
        call: &ToolCall<'_>,
        truncated: bool,
        shown: Option<usize>,
    ) -> Result<Option<Stored>, StoreError> {
        let (Some(a), Some(id)) = (&p.store, call.id) else {
            return Ok(None);
        };
        if !truncated && a.save == SaveWhen::Cut {
            return Ok(None);
        }
        let (mut w, mut dec) = match std::mem::replace(self, Spill::Off) {
            Spill::Off | Spill::Pending => return Ok(None),
            Spill::Failed(e) => return Err(e),
            Spill::Writing(w, dec) => (w, dec),
        };
        dec.finish(&mut |s| w.write(s))?;
        let size = dec.totals();
        let dialog = call.dialog.unwrap_or(store::DEFAULT_DIALOG);
        let mut meta = Meta::with_size(dialog, id, call.name, call.args, size);
        meta.truncated = truncated;
        meta.shown_chars = shown.unwrap_or(size.chars);
        w.commit(&meta)?;
        Ok(Some(Stored {
            tool_call_id: id.to_string(),
            dialog_id: dialog.to_string(),
            storage_type: a.store.storage_type().to_string(),
            offset: meta.shown_chars,
        }))
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
fn cut_within(idx: &LineIndex<'_>, shape: Shape, budget: usize, m: &dyn Measure) -> cut::Cut {
    let mut b = budget;
    loop {
        let c = cut::cut(idx, shape, b, m);
        let kept: String = c.ranges.iter().map(|r| &idx.text[r.start..r.end]).collect();
        let cost = m.cost(&kept);
        if cost <= budget || b == 0 {
            return c;
        }
        b = b.saturating_sub((cost - budget).max(1));
    }
}
