//! A call's tool resolved once into the value every stage is handed: its
//! config entry, the family name reported, the family's strategy, how sizes
//! are measured, and the budgets derived from the configuration and from what
//! the call says of the context left (`config::budget`).
//!
//! A shell call whose command prints lines of a source file (`sed -n 'A,Bp'
//! F`, `head -n N F`, `cat -n F`...; see `printed.rs`) resolves to the file's
//! content: the `read_file` family's cut (its shape, cleaning and JSON
//! settings, the shell tool's budgets) and the [`Printed`] strategy (the
//! file's language and outline, read_file's hints with the file's own line
//! numbers), while the family reported stays the tool's.

use std::borrow::Cow;
use std::cell::OnceCell;

use super::family::{Printed, Strategy};
use super::printed::FilePrint;
use crate::config::{BudgetReport, BudgetSource, Config, ContextWindow, ToolEntry, Unit};
use crate::measure::{Chars, Measure};
use crate::outline::Language;

/// A call's tool, resolved (see the module docs).
pub(super) struct Resolved<'p> {
    /// The tool's entry as configured.
    configured: &'p ToolEntry,
    /// The entry every stage uses: the configured one, with the threshold and
    /// kept budget of this call's context when it said anything of it.
    entry: Cow<'p, ToolEntry>,
    /// Where the budgets come from, and the figures behind them.
    pub(super) budget_source: BudgetSource,
    pub(super) budget: Option<BudgetReport>,
    /// The family name reported (a built-in one, or a registered family's).
    pub(super) family: &'p str,
    /// What the family does at each stage.
    strategy: &'p dyn Strategy,
    /// The file print a shell command is, cut as the file's content.
    printed: Option<Printed>,
    /// A shell command's output that is a numbered view of a file under a
    /// header naming it (SWE-agent's `open`, `str_replace_editor view`): the
    /// strategy of the config's file-content family (read_file's).
    viewed: Option<&'static dyn Strategy>,
    /// A harness's own family (never bypassed by the config's list).
    pub(super) custom: bool,
    /// How sizes are counted, made on first use (a token encoder loads then).
    measure: OnceCell<Box<dyn Measure>>,
}

impl<'p> Resolved<'p> {
    pub(super) fn new(
        entry: &'p ToolEntry,
        family: &'p str,
        strategy: &'p dyn Strategy,
        custom: bool,
    ) -> Self {
        Resolved {
            configured: entry,
            entry: Cow::Borrowed(entry),
            budget_source: BudgetSource::Config,
            budget: None,
            family,
            strategy,
            printed: None,
            viewed: None,
            custom,
            measure: OnceCell::new(),
        }
    }

    /// What the call's family does at each stage (a file print's own
    /// strategy, when the call is one).
    pub(super) fn strategy(&self) -> &dyn Strategy {
        match (&self.printed, self.viewed) {
            (Some(p), _) => p,
            (None, Some(v)) => v,
            (None, None) => self.strategy,
        }
    }

    /// The file a shell call printed lines of, when it is one.
    pub(super) fn printed(&self) -> Option<&FilePrint> {
        self.printed.as_ref().map(|p| &p.print)
    }

    /// A call of a family whose commands may print a file's lines (the
    /// shell's, [`Strategy::prints_files`]; see `printed.rs`) that prints
    /// source code (a language toolcap outlines, from the file's extension or
    /// the call's `lang`): cut as a file's content is (the shape, cleaning and
    /// JSON settings of the config's first entry whose family says
    /// [`Strategy::file_content`], read_file's; the tool's own budgets and
    /// argument keys), with the [`Printed`]
    /// strategy. A log, a JSON document or a text file printed by `cat` stays
    /// a command's output (its failures and its tail kept, JSON shortened as
    /// JSON).
    pub(super) fn with_printed(mut self, config: &Config, call: &super::ToolCall<'_>) -> Self {
        if !self.strategy.prints_files() {
            return self;
        }
        let Some(print) = super::printed::parse_args(call.args, &self.configured.args.command)
        else {
            return self;
        };
        let code = call.lang.is_some()
            || std::path::Path::new(&print.path)
                .extension()
                .and_then(|e| e.to_str())
                .and_then(Language::from_extension)
                .is_some();
        if !code {
            return self;
        }
        self.as_file_content(config);
        self.printed = Some(Printed {
            print,
            whole: Default::default(),
        });
        self
    }

    /// Cut as a file's content is: the shape, cleaning and JSON settings of
    /// the config's first entry whose family says [`Strategy::file_content`]
    /// (read_file's), that family's strategy returned.
    fn as_file_content(&mut self, config: &Config) -> Option<&'static dyn Strategy> {
        let read = config
            .tools
            .iter()
            .find(|t| super::family::builtin(t.family).file_content());
        let e = self.entry.to_mut();
        e.shape = read.map_or(crate::config::Shape::Head, |r| r.shape);
        e.clean = read.is_some_and(|r| r.clean);
        e.json = read.is_some_and(|r| r.json);
        read.map(|r| super::family::builtin(r.family))
    }

    /// A call of a family whose commands may print a file's lines, not
    /// recognised from its arguments, whose output is a numbered view of a
    /// source file under a header naming it (SWE-agent's `open` / `goto` /
    /// `scroll_down`: `[File: /repo/a.py (900 lines total)]`, `N:text`;
    /// `str_replace_editor view`: "Here's the result of running `cat -n` on
    /// /repo/a.py:"; see `toolcap_outline::numbered`): cut as a file's content
    /// with read_file's strategy, never as a command's output.
    pub(super) fn with_viewed(
        mut self,
        config: &Config,
        call: &super::ToolCall<'_>,
        text: &str,
    ) -> Self {
        if !self.strategy.prints_files() || self.printed.is_some() || self.custom {
            return self;
        }
        // (a header names the file in the first rows: most outputs are not
        // read further)
        let head: String = text.chars().take(4096).collect();
        if ![
            "[File: ",
            "Here's the result of running `cat -n` on ",
            "<path>",
        ]
        .iter()
        .any(|h| head.contains(h))
        {
            return self;
        }
        let Some(path) = crate::outline::numbered::detect(text).and_then(|r| r.path) else {
            return self;
        };
        let code = call.lang.is_some()
            || std::path::Path::new(&path)
                .extension()
                .and_then(|e| e.to_str())
                .and_then(Language::from_extension)
                .is_some();
        if code {
            self.viewed = self.as_file_content(config);
        }
        self
    }

    /// The budgets of a call whose context is `ctx` (see `config::budget`).
    pub(super) fn with_context(mut self, config: &Config, ctx: &ContextWindow<'_>) -> Self {
        if ctx.is_empty() {
            return self;
        }
        let c = self.configured;
        let tokens = matches!(c.unit, Unit::Tokens(_));
        let b = config.budget.apply(c.threshold, c.max_kept, tokens, ctx);
        if (b.threshold, b.max_kept) != (c.threshold, c.max_kept) {
            let e = self.entry.to_mut();
            e.threshold = b.threshold;
            e.max_kept = b.max_kept;
        }
        self.budget_source = b.source;
        self.budget = b.report;
        self
    }

    /// The tool's entry for this call: family, threshold, kept budget, shape,
    /// unit, argument keys.
    pub(super) fn entry(&self) -> &ToolEntry {
        &self.entry
    }

    /// The entry as configured, before a call's context lowered its budgets:
    /// what toolcap's own earlier output of this tool is recognised by.
    pub(super) fn configured(&self) -> &'p ToolEntry {
        self.configured
    }

    /// The measure of the entry's unit (the token encoder is loaded here,
    /// only when used).
    pub(super) fn measure(&self) -> &dyn Measure {
        self.measure
            .get_or_init(|| match self.entry.unit {
                #[cfg(feature = "tokens")]
                Unit::Tokens(e) => Box::new(crate::measure::Tokens::new(e)),
                _ => Box::new(Chars),
            })
            .as_ref()
    }

    /// The most chars a shell suggestion is sized to, after the most a cut
    /// keeps: what a tally of a command's output must cover (see `hints::tally`).
    pub(super) fn tally_limit(&self, config: &Config) -> usize {
        let shell = config.entry_for(&config.suggest.shell.tool);
        let room = (shell.threshold / 10 * 9).max(config.max_kept_chars);
        self.entry.max_kept.saturating_add(room)
    }

    /// The most bytes a result of this tool is held whole before it is
    /// streamed: every result of at most `threshold` chars fits in 4 bytes a
    /// char, and so does toolcap's own output (to be recognised, not cut again).
    pub(super) fn raw_limit(&self) -> usize {
        self.configured
            .threshold
            .max(crate::cut::bounds::max_output_chars(
                self.configured.max_kept,
            ))
            .saturating_mul(4)
            .saturating_add(4)
    }
}
