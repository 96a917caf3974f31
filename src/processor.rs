//! The pipeline: bypass → threshold → clean → (JSON | lines) cut → detect →
//! outline → hints → render.

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::clean::{self, CleanStats};
use crate::config::{ArgKeys, Config, ConfigError, Family, Shape, ToolEntry, Unit, glob_match};
use crate::cut::{self, Gap, KeptSpan, LineIndex, OriginMap, Piece, Totals};
use crate::detect;
use crate::hints::{self, HEADING, Recovery, Suggestion};
use crate::jsoncut::{self, JsonStats};
use crate::measure::{Chars, Measure};
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
        }
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

    /// Process `text`, the result of `call`.
    pub fn process_call(&self, call: &ToolCall<'_>, text: &str) -> Processed {
        let custom = self.custom.iter().find(|c| {
            c.family
                .patterns
                .iter()
                .any(|p| p == call.name || glob_match(p, call.name))
        });
        let entry = custom.map_or_else(|| self.config.entry_for(call.name), |c| &c.entry);
        let family_name = custom.map_or_else(
            || entry.family.as_str().to_string(),
            |c| c.family.name.clone(),
        );
        let hint_builder: &dyn HintBuilder = match custom {
            Some(c) => c.family.hints.as_ref(),
            None => &builtin(entry.family),
        };

        #[cfg(feature = "tokens")]
        let tokens_measure = match entry.unit {
            Unit::Tokens(e) => Some(crate::measure::Tokens::new(e)),
            Unit::Chars => None,
        };
        #[cfg(feature = "tokens")]
        let m: &dyn Measure = match &tokens_measure {
            Some(t) => t,
            None => &Chars,
        };
        #[cfg(not(feature = "tokens"))]
        let m: &dyn Measure = &Chars;

        let mut out = Processed {
            tool: call.name.to_string(),
            family: family_name,
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
        };
        let whole = |totals: &Totals| {
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
        };
        let orig_idx = LineIndex::new(text);
        out.original = orig_idx.totals();
        let over = |s: &str| -> bool {
            // a token is at least one byte: a text of at most `threshold` bytes fits
            match entry.unit {
                Unit::Chars => cut::count_chars(s) > entry.threshold,
                Unit::Tokens(_) => s.len() > entry.threshold && m.cost(s) > entry.threshold,
            }
        };
        if self.config.is_bypassed(call.name) && custom.is_none() {
            out.bypassed = true;
            out.reason = Reason::Bypass;
            out.kept = whole(&out.original);
            out.text = text.to_string();
            return out;
        }
        if !over(text) {
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

        // Terminal noise.
        let cleaned = entry
            .clean
            .then(|| clean::clean(text))
            .filter(|c| c.stats.changed());
        let work: &str = cleaned.as_ref().map_or(text, |c| c.text.as_str());
        out.cleaning = cleaned.as_ref().map(|c| c.stats);
        if let Some(c) = &cleaned
            && !over(work)
        {
            out.reason = Reason::Cleaned;
            out.kept = whole(&out.original);
            out.text = format!(
                "{}\n[toolcap: terminal noise removed: {}; nothing else omitted]\n",
                c.text.trim_end_matches('\n'),
                c.stats.describe()
            );
            return out;
        }

        // Language and outline (read_file only).
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
        let (language, outline) = if entry.family == Family::ReadFile && custom.is_none() {
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

        // The cleaned text's lines, mapped back to the original's.
        let clean_idx = cleaned.as_ref().map(|c| {
            LineIndex::with_origin(
                &c.text,
                OriginMap {
                    lines: &c.origin,
                    original: text,
                    original_lines: out.original.lines,
                },
            )
        });

        // The cut: JSON stays JSON where it can; else lines.
        let json_cut = if entry.json {
            jsoncut::parse(work).and_then(|v| jsoncut::cut(&v, entry.max_kept, m))
        } else {
            None
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
                    range: (0, work.len()),
                };
                (
                    format!("{json_text}\n\n{marker}\n"),
                    Vec::new(),
                    vec![gap],
                    None,
                )
            }
            None => {
                let idx = clean_idx.as_ref().unwrap_or(&orig_idx);
                let the_cut = cut_within(idx, entry.shape, entry.max_kept, m);
                let mut pieces = the_cut.pieces(idx);
                if matches!(entry.unit, Unit::Tokens(_)) {
                    for p in &mut pieces {
                        if let Piece::Omitted(g) = p {
                            g.tokens = Some(m.cost(&idx.text[g.range.0..g.range.1]));
                        }
                    }
                }
                let body = cut::render(idx, &pieces, cleaned.is_some());
                let mut kept = Vec::new();
                let mut gaps = Vec::new();
                for p in pieces {
                    match p {
                        Piece::Kept(_, span) => kept.push(span),
                        Piece::Omitted(g) => gaps.push(g),
                    }
                }
                let prefix = match (cleaned.is_none(), the_cut.ranges.first()) {
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
            idx: &orig_idx,
            cleaned: clean_idx.as_ref(),
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
