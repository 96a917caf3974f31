//! Budgets that follow the model: a call may say how much of the model's
//! context window is left ([`ContextWindow`]), and a tool's threshold and kept
//! budget then become `min(configured, fraction × left)`, never below a floor.
//!
//! The settings are the `[budget]` table of `thresholds.toml` (`fraction`,
//! `chars_per_token`, `min_threshold`) and its `[budget.models]` table of
//! context windows by model name (globs allowed), merged key by key over the
//! built-in table like every other setting. [`BudgetConfig::apply`] is the one
//! place the figures are computed; the processor reports what it computed
//! ([`BudgetReport`]) in the `--json` report's `budget` and `budget_source`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::glob::is_glob;
use super::{ConfigError, ConfigErrorKind, Source, glob_match};

/// The validated `[budget]` settings.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetConfig {
    /// The share of the context left that one result may take (0 < f ≤ 1).
    pub fraction: f64,
    /// Characters per token, to turn a token allowance into characters for
    /// tools that count characters (and a character hint into tokens for tools
    /// that count tokens).
    pub chars_per_token: f64,
    /// The smallest threshold, in characters, that a budget from the context
    /// (or a size hint) sets: a nearly full window still gets a usable view.
    /// A configured threshold below it is kept as configured.
    pub min_threshold: usize,
    /// Context windows in tokens, by model name or glob, in file order (user
    /// entries after the defaults they do not replace).
    pub models: Vec<ModelWindow>,
}

/// One `[budget.models]` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModelWindow {
    /// A model name, or a glob over names (`claude-*`).
    pub pattern: String,
    /// The model's context window, in tokens.
    pub tokens: usize,
}

impl BudgetConfig {
    /// The context window of `model` in tokens, from `[budget.models]`: the
    /// name (ASCII case ignored), else the part after its last `/`
    /// (`anthropic/claude-sonnet-4-5`, `openai/gpt-4.1`); an exact entry wins
    /// over a glob, and of the globs that match, the one with the most
    /// characters that are not wildcards (the most specific).
    pub fn window_of(&self, model: &str) -> Option<usize> {
        let full = model.trim().to_ascii_lowercase();
        let short = full.rsplit('/').next().unwrap_or(&full).to_string();
        [full.as_str(), short.as_str()]
            .into_iter()
            .filter(|n| !n.is_empty())
            .find_map(|name| self.lookup(name))
    }

    fn lookup(&self, name: &str) -> Option<usize> {
        let exact = self
            .models
            .iter()
            .rev()
            .find(|m| !is_glob(&m.pattern) && m.pattern.to_ascii_lowercase() == name);
        if let Some(m) = exact {
            return Some(m.tokens);
        }
        let literal = |p: &str| p.chars().filter(|c| !matches!(c, '*' | '?')).count();
        self.models
            .iter()
            .enumerate()
            .filter(|(_, m)| {
                is_glob(&m.pattern) && glob_match(&m.pattern.to_ascii_lowercase(), name)
            })
            // most specific; of equals, the later (a user's entry after the defaults)
            .max_by_key(|(i, m)| (literal(&m.pattern), *i))
            .map(|(_, m)| m.tokens)
    }

    /// The threshold and kept budget of a tool whose configured `threshold` and
    /// `max_kept` count `unit` (`tokens`: true for a token unit), for a call
    /// that says `ctx` about its context.
    ///
    /// The allowance is `fraction × left` tokens (in characters for a
    /// character unit: × `chars_per_token`), where `left` is `ctx.left`, else
    /// the window (`ctx.limit`, else the model's from `[budget.models]`) less
    /// `ctx.used`; a size hint (`ctx.max_result_chars`) caps it too. The
    /// threshold becomes `min(threshold, max(floor, allowance))`; the kept
    /// budget shrinks in the same proportion, so it stays below the threshold.
    pub fn apply(
        &self,
        threshold: usize,
        max_kept: usize,
        tokens: bool,
        ctx: &ContextWindow<'_>,
    ) -> Budgeted {
        let unchanged = Budgeted {
            threshold,
            max_kept,
            source: BudgetSource::Config,
            report: None,
        };
        if ctx.is_empty() {
            return unchanged;
        }
        let mut notes = Vec::new();
        let model_window = ctx.model.and_then(|m| self.window_of(m));
        if let (Some(m), None) = (ctx.model, model_window) {
            notes.push(format!(
                "model {m:?} is not in [budget.models]: its context window is unknown"
            ));
        }
        let window = ctx.limit.or(model_window);
        let (left, from_model) = match (ctx.left, window) {
            (Some(l), _) => (Some(l), false),
            (None, Some(w)) => (
                Some(w.saturating_sub(ctx.used.unwrap_or(0))),
                ctx.limit.is_none(),
            ),
            (None, None) => {
                if ctx.used.is_some() && ctx.model.is_none() {
                    notes.push(
                        "context_used alone says nothing of what is left: pass context_limit or a model too"
                            .to_string(),
                    );
                }
                (None, false)
            }
        };
        let cpt = self.chars_per_token;
        let allowance = left.map(|l| {
            let t = l as f64 * self.fraction;
            let v = if tokens { t } else { t * cpt };
            v.floor() as usize
        });
        let hint = ctx.max_result_chars.map(|c| {
            if tokens {
                (c as f64 / cpt).floor() as usize
            } else {
                c
            }
        });
        let floor = if tokens {
            (self.min_threshold as f64 / cpt).ceil() as usize
        } else {
            self.min_threshold
        };
        let cap = match (allowance, hint) {
            (Some(a), Some(h)) => Some(a.min(h)),
            (a, h) => a.or(h),
        };
        let new_threshold = cap.map_or(threshold, |c| c.max(floor).min(threshold));
        let lowered = new_threshold < threshold;
        let source = match (lowered, hint, allowance) {
            (false, _, _) => BudgetSource::Config,
            (true, Some(h), a) if a.is_none_or(|a| h <= a) => BudgetSource::SizeHint,
            (true, _, _) if from_model => BudgetSource::Model,
            (true, _, _) => BudgetSource::Context,
        };
        let new_kept = if lowered {
            let k = (new_threshold as u128 * max_kept as u128 / threshold.max(1) as u128) as usize;
            k.max(1)
        } else {
            max_kept
        };
        let report = BudgetReport {
            context_left: left,
            context_limit: ctx.limit,
            context_used: ctx.used,
            model: ctx.model.map(str::to_string),
            model_window,
            fraction: self.fraction,
            chars_per_token: (!tokens && allowance.is_some()).then_some(cpt),
            allowance,
            max_result_chars: ctx.max_result_chars,
            configured_threshold: threshold,
            configured_kept_budget: max_kept,
            floor,
            floored: cap.is_some_and(|c| c < floor) && lowered,
            note: (!notes.is_empty()).then(|| notes.join("; ")),
        };
        Budgeted {
            threshold: new_threshold,
            max_kept: new_kept,
            source,
            report: Some(report),
        }
    }
}

impl super::Config {
    /// The configuration as a call whose context is `ctx` sees it: every tool's
    /// threshold and kept budget lowered as that call's own are
    /// ([`BudgetConfig::apply`]), and `max_kept_chars` with them (as for a tool
    /// of the `generic` entry's threshold); never raised. An empty `ctx`
    /// ([`ContextWindow::is_empty`]) gives the configuration unchanged.
    ///
    /// What a recovery suggestion is sized by: a suggested call's result costs
    /// the same context as the call it recovers, so it must fit the threshold
    /// in force for that call, not the configured one. The processor calls it
    /// when a call's context lowered its budget.
    ///
    /// ```
    /// use toolcap_config::{Config, ContextWindow};
    ///
    /// let config = Config::defaults();
    /// assert_eq!(config.entry_for("shell").threshold, 3500);
    /// // 3,000 tokens left: 10% of them at 3 chars a token is 900 chars,
    /// // raised to the 1,500-char floor
    /// let ctx = ContextWindow { limit: Some(200_000), used: Some(197_000), ..Default::default() };
    /// let low = config.within(&ctx);
    /// assert_eq!(low.entry_for("shell").threshold, 1500);
    /// assert!(low.max_kept_chars < low.entry_for("shell").threshold);
    /// // a call that says nothing of its context: as configured
    /// let same = config.within(&ContextWindow::default());
    /// assert_eq!(same.entry_for("shell").threshold, 3500);
    /// assert_eq!(same.max_kept_chars, config.max_kept_chars);
    /// ```
    pub fn within(&self, ctx: &ContextWindow<'_>) -> super::Config {
        let mut c = self.clone();
        if ctx.is_empty() {
            return c;
        }
        for t in &mut c.tools {
            let tokens = matches!(t.unit, super::Unit::Tokens(_));
            let b = self.budget.apply(t.threshold, t.max_kept, tokens, ctx);
            t.threshold = b.threshold;
            t.max_kept = b.max_kept;
        }
        let generic = self.entry_for("generic").threshold;
        let b = self.budget.apply(
            generic.max(self.max_kept_chars + 1),
            self.max_kept_chars,
            false,
            ctx,
        );
        c.max_kept_chars = b.max_kept.min(self.max_kept_chars);
        c
    }
}

/// What a call says about the room its result has in the model's context.
/// Every field is optional; the default says nothing, and the configured
/// budgets apply. Token counts are the model's tokens, as the harness counts
/// them (its API's `usage`, or its own estimate).
///
/// ```
/// use toolcap_config::{Config, ContextWindow};
///
/// // a call made with 3,000 tokens left of a 200,000-token window
/// let ctx = ContextWindow { limit: Some(200_000), used: Some(197_000), ..Default::default() };
/// // 10% of the 3,000 tokens left, at 3 chars a token: 900 chars, raised to the
/// // 1,500-char floor (the processor reports it as `threshold`, `budget_source = "context"`)
/// assert_eq!(Config::defaults().within(&ctx).entry_for("shell").threshold, 1500);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ContextWindow<'a> {
    /// Tokens left in the context window (wins over `limit` − `used`).
    pub left: Option<usize>,
    /// The context window's size in tokens.
    pub limit: Option<usize>,
    /// Tokens used so far (the last prompt's size).
    pub used: Option<usize>,
    /// The model's name: its window comes from `[budget.models]` when `limit`
    /// is not given.
    pub model: Option<&'a str>,
    /// The most characters the client takes for this result inline (an MCP
    /// `anthropic/maxResultSizeChars` hint): a cap like the allowance.
    pub max_result_chars: Option<usize>,
}

impl ContextWindow<'_> {
    /// Whether nothing is said (the configured budgets apply, unreported).
    pub fn is_empty(&self) -> bool {
        self.left.is_none()
            && self.limit.is_none()
            && self.used.is_none()
            && self.model.is_none()
            && self.max_result_chars.is_none()
    }
}

/// A tool's budgets for one call: what [`BudgetConfig::apply`] computed.
#[derive(Debug, Clone, PartialEq)]
pub struct Budgeted {
    /// The threshold, in the tool's unit.
    pub threshold: usize,
    /// The kept budget, in the tool's unit (below `threshold`).
    pub max_kept: usize,
    /// Where the budgets come from.
    pub source: BudgetSource,
    /// The figures, when the call said anything about its context.
    pub report: Option<BudgetReport>,
}

/// Where a call's budgets come from (the report's `budget_source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
pub enum BudgetSource {
    /// The configured threshold and kept budget (nothing said, or the
    /// allowance is larger).
    Config,
    /// Lowered by the context left (`context_left`, or `context_limit` −
    /// `context_used`).
    Context,
    /// Lowered by the context left, the window taken from the model's name.
    Model,
    /// Lowered by a size hint (`max_result_chars`, an MCP
    /// `anthropic/maxResultSizeChars`).
    SizeHint,
}

impl BudgetSource {
    /// `config`, `context`, `model` or `size_hint`.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The figures behind a call's budgets, when it said anything about its
/// context: the `--json` report's `budget`. Sizes in tokens are the model's;
/// `allowance`, `floor` and the configured figures are in the tool's unit.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct BudgetReport {
    /// Tokens left: as given, or the window less what is used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_left: Option<usize>,
    /// The window as given, in tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_limit: Option<usize>,
    /// Tokens used, as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_used: Option<usize>,
    /// The model's name, as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The model's window from `[budget.models]`, when it is there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_window: Option<usize>,
    /// `[budget] fraction`.
    pub fraction: f64,
    /// `[budget] chars_per_token`, when a token allowance was turned into chars.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chars_per_token: Option<f64>,
    /// `fraction × context_left`, in the tool's unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowance: Option<usize>,
    /// The size hint, as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_result_chars: Option<usize>,
    /// The tool's configured threshold.
    pub configured_threshold: usize,
    /// The tool's configured kept budget.
    pub configured_kept_budget: usize,
    /// The smallest threshold a budget sets (`min_threshold`, in the tool's unit).
    pub floor: usize,
    /// Whether the floor raised the threshold above the allowance.
    pub floored: bool,
    /// Why a figure could not be used (an unknown model, `context_used` alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

// ---------------------------------------------------------------------------
// The file schema, merging and validation of `[budget]`.

/// `[budget]` as a file writes it: every key optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBudget {
    fraction: Option<f64>,
    chars_per_token: Option<f64>,
    min_threshold: Option<i64>,
    models: Option<toml::Table>,
}

/// `[budget]` while the layers are merged.
#[derive(Debug, Default)]
pub(super) struct MergedBudget {
    fraction: Option<f64>,
    chars_per_token: Option<f64>,
    min_threshold: Option<usize>,
    models: Vec<ModelWindow>,
}

impl MergedBudget {
    /// Merge one layer's `[budget]` (validated here: each error names the key).
    pub(super) fn merge(
        &mut self,
        raw: Option<RawBudget>,
        origin: &str,
        source: &Source,
        sources: &mut BTreeMap<String, Source>,
    ) -> Result<(), ConfigError> {
        let Some(raw) = raw else { return Ok(()) };
        let bad = |key: &str, problem: String, fix: &str| ConfigError {
            origin: origin.to_string(),
            key: key.to_string(),
            problem,
            fix: fix.to_string(),
            kind: ConfigErrorKind::Invalid,
            source: None,
            line: None,
        };
        if let Some(f) = raw.fraction {
            if f.is_nan() || f <= 0.0 || f > 1.0 {
                return Err(bad(
                    "budget.fraction",
                    format!("must be above 0 and at most 1, got {f}"),
                    "set the share of the context left one result may take, e.g. 0.1",
                ));
            }
            self.fraction = Some(f);
            sources.insert("budget.fraction".into(), source.clone());
        }
        if let Some(c) = raw.chars_per_token {
            if !(1.0..=10.0).contains(&c) {
                return Err(bad(
                    "budget.chars_per_token",
                    format!("must be between 1 and 10, got {c}"),
                    "set how many characters a token is taken to hold, e.g. 3",
                ));
            }
            self.chars_per_token = Some(c);
            sources.insert("budget.chars_per_token".into(), source.clone());
        }
        if let Some(v) = raw.min_threshold {
            let Some(v) = usize::try_from(v).ok().filter(|v| *v >= MIN_FLOOR) else {
                return Err(bad(
                    "budget.min_threshold",
                    format!("must be at least {MIN_FLOOR} characters, got {v}"),
                    "raise it: below that the recovery section alone fills the view",
                ));
            };
            self.min_threshold = Some(v);
            sources.insert("budget.min_threshold".into(), source.clone());
        }
        for (name, value) in raw.models.unwrap_or_default() {
            let key = format!("budget.models.{}", toml::Value::String(name.clone()));
            let Some(tokens) = value.as_integer() else {
                return Err(ConfigError {
                    kind: ConfigErrorKind::Schema,
                    ..bad(
                        &key,
                        format!("must be a whole number of tokens, got {value}"),
                        "give the model's context window in tokens, e.g. 200000",
                    )
                });
            };
            if name.trim().is_empty() {
                return Err(bad(
                    "budget.models",
                    "contains an empty model name".into(),
                    "remove the entry with the empty name",
                ));
            }
            let Some(tokens) = usize::try_from(tokens).ok().filter(|t| *t > 0) else {
                return Err(bad(
                    &key,
                    format!("must be a positive number of tokens, got {tokens}"),
                    "give the model's context window in tokens, e.g. 200000",
                ));
            };
            match self.models.iter_mut().find(|m| m.pattern == name) {
                Some(m) => m.tokens = tokens,
                None => self.models.push(ModelWindow {
                    pattern: name.clone(),
                    tokens,
                }),
            }
            sources.insert(format!("budget.models.{name}"), source.clone());
        }
        Ok(())
    }

    /// The validated settings (the built-in file sets every key).
    pub(super) fn finish(self) -> BudgetConfig {
        BudgetConfig {
            fraction: self.fraction.unwrap_or(DEFAULT_FRACTION),
            chars_per_token: self.chars_per_token.unwrap_or(DEFAULT_CHARS_PER_TOKEN),
            min_threshold: self.min_threshold.unwrap_or(DEFAULT_MIN_THRESHOLD),
            models: self.models,
        }
    }
}

/// The lowest `min_threshold` accepted, in characters.
pub const MIN_FLOOR: usize = 500;
const DEFAULT_FRACTION: f64 = 0.1;
const DEFAULT_CHARS_PER_TOKEN: f64 = 3.0;
const DEFAULT_MIN_THRESHOLD: usize = 1500;

impl BudgetConfig {
    /// `toolcap config`'s `[budget]` lines, each with its source.
    pub(super) fn describe(&self, src: &dyn Fn(&str) -> String) -> String {
        let mut out = format!(
            "[budget]\nfraction = {}  # {}\nchars_per_token = {}  # {}\nmin_threshold = {}  # {}\n[budget.models]\n",
            self.fraction,
            src("budget.fraction"),
            self.chars_per_token,
            src("budget.chars_per_token"),
            self.min_threshold,
            src("budget.min_threshold"),
        );
        for m in &self.models {
            let key = toml::Value::String(m.pattern.clone()).to_string();
            out.push_str(&format!(
                "{key} = {}  # {}\n",
                m.tokens,
                src(&format!("budget.models.{}", m.pattern))
            ));
        }
        out
    }
}
