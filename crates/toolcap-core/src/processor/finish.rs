//! The stages after the threshold check, shared by the in-memory and streamed
//! paths: analyse (the family's outline, tally and page hooks), cut, hints
//! (the family's hook), fitted beside the kept part, then rendered.

use super::cutting::{Cutter, Cutting};
use super::report::CollapsedRun;
use super::report::LineRange;
use super::report::Processed;
use super::report::Reason;
use super::report::Stored;
use super::report::ToolCall;
use super::resolve::Resolved;
use super::{ToolResultProcessor, decode, over, whole};
use crate::config::Config;
use crate::config::Shape;
use crate::config::ToolEntry;
use crate::config::Unit;
use crate::cut::clean::CleanStats;
use crate::cut::index::LineIndex;
use crate::cut::index::OriginMap;
use crate::cut::index::Totals;
use crate::cut::jsoncut;
use crate::cut::scan;
use crate::cut::shape;
use crate::cut::shape::Gap;
use crate::cut::shape::KeptSpan;
use crate::hints;
use crate::hints::HEADING;
use crate::hints::{Fact, RecoveryModel};
use crate::outline::Outline;
use crate::render::marker;
use serde_json::Value;

/// What was gathered while reading a result besides its text: the bounded
/// scan, and the shell hints' tally of a streamed output.
pub(super) struct Read<'t> {
    /// The whole text, when held.
    pub(super) text: Option<&'t str>,
    /// Its line index, when it is the whole text's (not a bounded scan's).
    pub(super) orig_idx: Option<&'t LineIndex<'t>>,
    pub(super) scanned: Option<scan::Scanned>,
    pub(super) tally: Option<hints::tally::LineTally>,
    /// What a streamed everyday output (a diff, grep results, a listing)
    /// holds, read as it came.
    pub(super) everyday: Option<crate::cut::everyday::Everyday>,
}

/// Everything a family's hints are built from, but the cut itself.
struct Facts<'a> {
    call: &'a ToolCall<'a>,
    r: &'a Resolved<'a>,
    config: &'a Config,
    orig_idx: Option<&'a LineIndex<'a>>,
    work_idx: &'a LineIndex<'a>,
    scan_idx: Option<&'a LineIndex<'a>>,
    scanned: Option<&'a scan::Scanned>,
    cleaning: Option<CleanStats>,
    original: Totals,
    original_tokens: Option<usize>,
    outline: Option<&'a Outline>,
    language: Option<&'a str>,
    json: Option<&'a Value>,
    tally: Option<&'a hints::tally::LineTally>,
    everyday: Option<&'a crate::cut::everyday::Everyday>,
}

impl Facts<'_> {
    /// The family's recovery section for cut `c` (`stored`: the id the full
    /// result is kept under), with the facts every family shares.
    fn recover(&self, c: &Cutting, stored: Option<&str>) -> RecoveryModel {
        let entry = self.r.entry();
        // a budget lowered by the call's context lowers what the suggested
        // calls may return too
        let lowered = (self.r.budget_source != crate::config::BudgetSource::Config)
            .then(|| self.config.within(&self.call.context));
        let ctx = hints::Context {
            tool: self.call.name,
            args: self.call.args,
            entry,
            config: lowered.as_ref().unwrap_or(self.config),
            idx: self.orig_idx.unwrap_or(self.work_idx),
            cleaned: self.scan_idx,
            errors: self.scanned.map(|s| s.errors),
            cleaning: self.cleaning,
            totals: self.original,
            kept: &c.kept,
            gaps: &c.gaps,
            shown: &c.body,
            prefix_bytes: c.prefix_bytes,
            outline: self.outline,
            language: self.language,
            json: self.json.filter(|_| c.json.is_some()),
            shown_json: c.shown_json.as_ref(),
            whole: self.orig_idx,
            stored,
            tally: self.tally,
            decoded_from: self.call.decoded_from.map(decode::iconv_name),
            everyday: self.everyday,
        };
        let mut recovery = self.r.strategy().hints(&ctx);
        if let Some(enc) = self.call.decoded_from {
            recovery.facts.push(Fact::Decoded {
                encoding: enc.to_string(),
                iconv: decode::iconv_name(enc).to_string(),
            });
        }
        if let Some(c) = &self.cleaning {
            recovery.facts.push(Fact::Cleaned { what: c.describe() });
        }
        if let Some(t) = self.original_tokens {
            let unit = match entry.unit {
                Unit::Tokens(e) => e.as_str(),
                Unit::Chars => "chars",
            };
            recovery.facts.push(Fact::Tokens {
                unit: unit.to_string(),
                total: t,
                kept: entry.max_kept,
            });
        }
        recovery
    }
}

impl ToolResultProcessor {
    /// Clean/JSON/lines cut, outline, hints and render, from the whole text (when
    /// held) and the scan (when one was made).
    pub(super) fn finish(
        &self,
        call: &ToolCall<'_>,
        r: &Resolved<'_>,
        mut out: Processed,
        read: Read<'_>,
        keep: &mut dyn FnMut(Totals, usize) -> Option<Stored>,
    ) -> Processed {
        let Read {
            text,
            orig_idx,
            scanned,
            tally,
            everyday,
        } = read;
        let entry = r.entry();
        let m = r.measure();
        let cleaned = scanned.as_ref().is_some_and(|s| s.clean.changed());
        out.cleaning = scanned
            .as_ref()
            .map(|s| s.clean)
            .filter(CleanStats::changed);
        if let Some(s) = &scanned
            && cleaned
            && !s.reduced
            && !over(entry, m, &s.text, crate::text::count_chars(&s.text))
        {
            return self.cleaned_whole(out, s, keep);
        }

        // Analyse: language and outline (they need the whole text).
        let (language, outline) = text.map_or((None, None), |t| analyse(call, r, t));

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

        // The cut: JSON stays JSON where it can; a page is shown as its text;
        // else lines.
        let json_value = match text {
            // a reduced scan holds only part of the text: parse the original
            // (when cleaning changed nothing)
            Some(t) if entry.json && (!cleaned || !scanned.as_ref().is_some_and(|s| s.reduced)) => {
                jsoncut::parse(if cleaned { work_idx.text } else { t })
            }
            _ => None,
        };
        let page = match (text, orig_idx) {
            (Some(t), Some(idx)) if !cleaned && json_value.is_none() => {
                r.strategy().page(t).map(|p| (p, idx))
            }
            _ => None,
        };
        // Where the full result will be kept: the suggestions that read or
        // search it then call the recovery tools (planned before the cut, as
        // the section's size decides how much is kept; redone below if keeping
        // it fails).
        let planned = call.id.filter(|_| self.store.is_some());
        // A command's whole output, tallied for the shell hints (a bounded scan
        // keeps only some of its lines); a streamed one was tallied as read.
        let tally = tally.or_else(|| {
            text.and_then(|t| {
                r.strategy()
                    .tally(t, r.tally_limit(&self.config), planned.is_some())
            })
        });
        // Everyday output (a diff, grep results, a listing): what its lines
        // hold, read from the whole text or as it streamed
        let everyday = everyday.or_else(|| {
            let kind = r.strategy().everyday(call, entry)?;
            Some(crate::cut::everyday::Builder::of(kind, text?))
        });
        let cutter = Cutter {
            entry,
            m,
            work_idx,
            json: json_value.as_ref(),
            page: page.as_ref().map(|(p, idx)| (p, *idx)),
            prepared: prepared(call, entry, everyday.as_ref()),
            original: out.original,
            cleaned,
            scanned: scanned.is_some(),
        };
        let facts = Facts {
            call,
            r,
            config: &self.config,
            orig_idx,
            work_idx,
            scan_idx: scan_idx.as_ref(),
            scanned: scanned.as_ref(),
            cleaning: out.cleaning,
            original: out.original,
            original_tokens: out.original_tokens,
            outline: outline.as_ref(),
            language: language.as_deref(),
            json: json_value.as_ref(),
            tally: tally.as_ref(),
            everyday: everyday.as_ref(),
        };
        let (c, mut recovery) = self.fit(&cutter, &facts, planned);

        // The report: what was omitted, where reading on starts, where the
        // full result was kept.
        out.json = c.json;
        out.html = c.page;
        report_omitted(&mut out, &c.gaps);
        let shown = reading_on(&out, &c.kept, entry.shape);
        out.stored = keep(out.original, shown);
        // the full result was not kept after all: suggest without the store
        if out.stored.is_none() && planned.is_some() {
            recovery = facts.recover(&c, None);
        }
        // (a suggestion that reads the stored result already says it is kept)
        if let Some(s) = &out.stored {
            stored_fact(&self.config, s, &mut recovery);
        }
        // The kept part and the recovery section together stay within the
        // threshold that triggered the cut (counted in chars).
        let recovery = recovery.render().fit(recovery_cap(entry, &c.body));
        let mut text_out = c.body;
        text_out.push('\n');
        text_out.push_str(&recovery.render());
        debug_assert!(text_out.contains(HEADING));

        out.set_reason(Reason::Cut);
        out.kept = c.kept;
        out.language = language;
        out.outline = outline;
        out.suggestions = recovery.suggestions;
        out.text = text_out;
        trace_cut(call, &out);
        out
    }

    /// A result that cleaning alone brought under its threshold: shown whole,
    /// cleaned, with what was removed (and where the output as it was is kept).
    fn cleaned_whole(
        &self,
        mut out: Processed,
        s: &scan::Scanned,
        keep: &mut dyn FnMut(Totals, usize) -> Option<Stored>,
    ) -> Processed {
        out.set_reason(Reason::Cleaned);
        out.kept = whole(&out.original);
        // what was removed can be read back: the output as it was is kept
        out.stored = keep(out.original, 0);
        let mut what = s.clean.describe();
        if let Some(st) = &out.stored {
            what.push_str("; ");
            what.push_str(&marker::cleaned_stored(
                &self.config.suggest,
                &st.tool_call_id,
            ));
        }
        out.text = marker::cleaned(&s.text, &what);
        out
    }
}

/// The text's language (or text format) and outline, by the family's hook
/// (read_file's detects code from the call's path argument).
fn analyse(call: &ToolCall<'_>, r: &Resolved<'_>, text: &str) -> (Option<String>, Option<Outline>) {
    let path = r
        .entry()
        .args
        .path
        .iter()
        .find_map(|k| call.args.get(k).and_then(Value::as_str));
    r.strategy().outline(call, path, text)
}

/// A cut grep result shows the first match of this many of the files most
/// likely wanted (`GrepView::wanted`) besides its first lines ...
const FAVOURED_FILES: usize = 5;
/// ... of the files whose matches start past this line (the head holds the
/// others).
const FAVOURED_AFTER: usize = 10;

/// How the cut ranks lines: everyday content by position; a run that
/// succeeded without its error lines first (a log is a report whatever the exit
/// status: its error lines still rank).
fn prepared(
    call: &ToolCall<'_>,
    entry: &ToolEntry,
    everyday: Option<&crate::cut::everyday::Everyday>,
) -> shape::Prepared {
    if let Some(e) = everyday.filter(|e| e.kind.is_content()) {
        let prep = shape::Prepared::content(succeeded(call, entry));
        match &e.view {
            // the first match of the files most likely wanted beside the head
            Some(crate::cut::everyday::View::Grep(g)) => {
                prep.favour(g.first_matches(FAVOURED_FILES, FAVOURED_AFTER))
            }
            _ => prep,
        }
    } else if succeeded(call, entry)
        && !everyday.is_some_and(|e| matches!(e.view, Some(crate::cut::everyday::View::Levels(_))))
    {
        shape::Prepared::succeeded()
    } else {
        shape::Prepared::default()
    }
}

/// The fact saying where the full result is kept, unless a suggestion that
/// reads it already says so.
fn stored_fact(config: &Config, s: &Stored, recovery: &mut RecoveryModel) {
    if !recovery
        .suggestions
        .iter()
        .any(|g| marker::reads_stored(&config.suggest, g, &s.tool_call_id))
    {
        recovery.facts.push(crate::render::facts::stored_fact(
            &config.suggest,
            &s.tool_call_id,
            s.offset,
        ));
    }
}

/// What was omitted, in the report: chars, whole lines, the ranges, and the
/// runs shown collapsed.
fn report_omitted(out: &mut Processed, gaps: &[Gap]) {
    for g in gaps {
        if let (Some(text), Some((a, b))) = (&g.collapsed, g.lines) {
            out.collapsed.push(CollapsedRun {
                start_line: a,
                end_line: b,
                lines: b + 1 - a,
                chars: g.chars,
                text: text.clone(),
            });
        }
        out.omitted.chars += g.chars;
        out.omitted.lines += g.whole_lines();
        if let Some((a, b)) = g.lines {
            out.omitted.ranges.push(LineRange {
                start_line: a,
                end_line: b,
            });
        }
    }
}

/// The recovery section's cap ([`hints::section_cap`]).
fn recovery_cap(entry: &ToolEntry, body: &str) -> usize {
    hints::section_cap(entry, body)
}

/// The cut, for a tracing subscriber (the fields are counted only when one
/// listens).
fn trace_cut(call: &ToolCall<'_>, out: &Processed) {
    {
        tracing::info!(
            target: "toolcap::cut",
            tool = %out.tool,
            family = %out.family,
            tool_call_id = call.id,
            threshold = out.threshold,
            unit = out.unit,
            original_chars = out.original.chars,
            original_lines = out.original.lines,
            kept_chars = out.kept.iter().map(|k| k.chars).sum::<usize>(),
            shown_chars = crate::text::count_chars(&out.text),
            omitted_chars = out.omitted.chars,
            omitted_lines = out.omitted.lines,
            stored = out.stored.is_some(),
            "result cut"
        );
    }
}

impl ToolResultProcessor {
    /// The cut at the kept budget and its recovery section; when the section's
    /// facts, commands and notes do not fit beside the kept part within the
    /// threshold that triggered the cut (counted in chars), keep less (down to
    /// half the kept budget) rather than drop suggestions; structure lines are
    /// left out first.
    fn fit(
        &self,
        cutter: &Cutter<'_>,
        facts: &Facts<'_>,
        planned: Option<&str>,
    ) -> (Cutting, RecoveryModel) {
        let entry = cutter.entry;
        let mut c = cutter.at(entry.max_kept);
        let mut recovery = facts.recover(&c, planned);
        if entry.unit != Unit::Chars {
            return (c, recovery);
        }
        let stored_fact = if planned.is_some() {
            STORED_FACT_CHARS
        } else {
            0
        };
        let floor = entry.max_kept / 2;
        let mut budget = entry.max_kept;
        // a few rounds: the section changes with the cut (other lines kept,
        // other ranges suggested)
        for _ in 0..3 {
            // facts, commands and notes: the structure listing is shortened
            // rather than the kept part
            // (but for everyday output, whose parts are its outline: see
            // `hints::everyday`)
            let essential = RecoveryModel {
                structure: recovery.structure.clone().filter(|_| {
                    facts
                        .everyday
                        .is_some_and(|e| e.kind.is_content() && e.view.is_some())
                }),
                ..recovery.clone()
            }
            .render();
            let need =
                crate::text::count_chars(&c.body) + 1 + essential.rendered_chars() + stored_fact;
            if need <= entry.threshold || budget == floor {
                break;
            }
            budget = budget.saturating_sub(need - entry.threshold).max(floor);
            let smaller = cutter.at(budget);
            // a budget smaller than a collapsed run's line (cleaned output)
            // would cut that line, which stands for several: keep the cut that
            // kept it whole
            if smaller
                .kept
                .iter()
                .any(|k| k.partial && k.start_line != k.end_line)
            {
                break;
            }
            c = smaller;
            recovery = facts.recover(&c, planned);
        }
        (c, recovery)
    }
}

/// Where reading on starts: right after the kept head (at 0 when the result
/// was reshaped or cleaned, or nothing of its start was kept).
fn reading_on(out: &Processed, kept: &[KeptSpan], shape: Shape) -> usize {
    match kept.first() {
        // the kept head is the original's first characters, verbatim (whole
        // lines, then maybe the start of the next line)
        Some(k)
            if k.start_line == 1
                && out.cleaning.is_none()
                && out.json.is_none()
                && out.html.is_none() =>
        {
            // (a head cut into a long line: whole lines, then the start of the
            // next one; error lines kept later are labelled, not verbatim)
            match kept.get(1) {
                Some(n)
                    if shape == Shape::Head
                        && !k.partial
                        && n.partial
                        && n.start_line == k.end_line + 1 =>
                {
                    k.chars + n.chars
                }
                _ => k.chars,
            }
        }
        _ => 0,
    }
}

/// Room taken by the recovery fact that says where the full result is stored
/// (`The full result is stored. Call get_continuation with tool_call_id=...`),
/// when planning the kept part.
const STORED_FACT_CHARS: usize = 200;

/// A streamed result that starts like JSON (`{` or `[`) is held in memory up
/// to this many bytes, so that a JSON document printed by a command (often one
/// line of 40 KB or more) is shortened as valid JSON rather than cut inside its
/// line.
pub const JSON_HOLD_BYTES: usize = 8 << 20;

/// Whether the call's arguments say the command exited with 0 (its first
/// exit-code argument present is `0` or `"0"`).
fn succeeded(call: &ToolCall<'_>, entry: &ToolEntry) -> bool {
    entry
        .args
        .exit_code
        .iter()
        .find_map(|k| call.args.get(k))
        .is_some_and(|v| match v {
            Value::Number(n) => n.as_i64() == Some(0),
            Value::String(s) => s.trim() == "0",
            _ => false,
        })
}
