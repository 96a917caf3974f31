//! The stages after the threshold check, shared by the in-memory and streamed paths.

use super::*;

impl ToolResultProcessor {
    /// Clean/JSON/lines cut, outline, hints and render, from the whole text (when
    /// held) and the scan (when one was made).
    pub(super) fn finish(
        &self,
        call: &ToolCall<'_>,
        mut out: Processed,
        text: Option<&str>,
        orig_idx: Option<&LineIndex<'_>>,
        read: Read,
        keep: &mut dyn FnMut(Totals, usize) -> Option<Stored>,
    ) -> Processed {
        let Read { scanned, tally } = read;
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
            && !over(entry, m, &s.text, crate::text::count_chars(&s.text))
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
                    None => (text_kind(call.args, path, t), None),
                }
            }
            Some(t) => (text_kind(call.args, path, t), None),
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
        let json_value = match text {
            // a reduced scan holds only part of the text: parse the original
            // (when cleaning changed nothing)
            Some(t) if entry.json && (!cleaned || !scanned.as_ref().is_some_and(|s| s.reduced)) => {
                jsoncut::parse(if cleaned { work_idx.text } else { t })
            }
            _ => None,
        };
        // A fetched HTML page is shown as its text, not as its first lines of markup.
        let page = match (text, orig_idx) {
            (Some(t), Some(idx))
                if entry.family == Family::WebFetch
                    && custom.is_none()
                    && !cleaned
                    && json_value.is_none()
                    && crate::outline::html::is_html(t) =>
            {
                Some(crate::html_text::page_text(t))
                    .filter(|p| !p.text.is_empty())
                    .map(|p| (p, idx))
            }
            _ => None,
        };
        let original = out.original;
        // the lines' ranks, learnt once for every budget tried
        let prepared = cut::Prepared::default();
        // The cut at a kept budget: the shown body, kept spans, gaps, the kept
        // verbatim prefix, and the JSON shortening when JSON stayed JSON.
        let cut_at = |budget: usize| -> Cutting {
            if let Some((p, idx)) = &page {
                return page_cut(p, idx, budget, m);
            }
            let json_cut = json_value.as_ref().and_then(|v| jsoncut::cut(v, budget, m));
            match json_cut {
                Some((json_text, stats)) => {
                    let marker = format!(
                        "[... JSON shortened to stay valid JSON: {} shown as {}; {} ...]",
                        hints::plural(original.chars, "char", "chars"),
                        hints::plural(stats.shown_chars, "char", "chars"),
                        stats.describe()
                    );
                    let gap = Gap {
                        chars: original.chars,
                        lines: (original.lines > 0).then_some((1, original.lines)),
                        cut_after: None,
                        resumes_at: None,
                        within: None,
                        tokens: None,
                        range: (0, work_idx.text.len()),
                        collapsed: None,
                    };
                    Cutting {
                        body: format!("{json_text}\n\n{marker}\n"),
                        kept: Vec::new(),
                        gaps: vec![gap],
                        prefix_bytes: None,
                        json: Some(stats),
                        page: None,
                    }
                }
                None => {
                    let idx = work_idx;
                    let the_cut = cut_within(idx, entry.shape, budget, m, &prepared);
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
                    // the kept verbatim prefix: ranges from byte 0 that follow
                    // each other (whole lines, then the start of a long line)
                    let prefix_bytes = match (scanned.is_none(), the_cut.ranges.first()) {
                        (true, Some(r)) if r.start == 0 => Some(
                            the_cut.ranges[1..]
                                .iter()
                                .try_fold(r.end, |end, x| (x.start == end).then_some(x.end))
                                .unwrap_or_else(|| {
                                    the_cut
                                        .ranges
                                        .windows(2)
                                        .take_while(|w| w[1].start == w[0].end)
                                        .last()
                                        .map_or(r.end, |w| w[1].end)
                                }),
                        ),
                        _ => None,
                    };
                    Cutting {
                        body,
                        kept,
                        gaps,
                        prefix_bytes,
                        json: None,
                        page: None,
                    }
                }
            }
        };
        let cleaning = out.cleaning;
        let original_tokens = out.original_tokens;
        // A command's whole output, tallied for the shell hints (a bounded scan
        // keeps only some of its lines); a streamed one was tallied as read.
        // Where the full result will be kept: the suggestions that read or
        // search it then call the recovery tools (planned before the cut, as
        // the section's size decides how much is kept; redone below if keeping
        // it fails).
        let planned = call.id.filter(|_| self.store.is_some());
        let tally = tally.or_else(|| {
            let t = text.filter(|_| entry.family == Family::Shell && custom.is_none())?;
            Some(hints::tally::LineTally::of(
                t,
                tally_limit(&self.config, entry),
                hints::shell::grep_regex(),
                planned.is_some(),
            ))
        });
        let whole = orig_idx;
        let recover = |c: &Cutting, stored: Option<&str>| -> Recovery {
            let ctx = hints::Context {
                tool: call.name,
                args: call.args,
                entry,
                config: &self.config,
                idx: orig_idx.unwrap_or(work_idx),
                cleaned: scan_idx.as_ref(),
                errors: scanned.as_ref().map(|s| s.errors),
                cleaning,
                totals: original,
                kept: &c.kept,
                gaps: &c.gaps,
                shown: &c.body,
                prefix_bytes: c.prefix_bytes,
                outline: outline.as_ref(),
                language: language.as_deref(),
                json: json_value.as_ref().filter(|_| c.json.is_some()),
                whole,
                stored,
                tally: tally.as_ref(),
            };
            let mut recovery = hint_builder.build(&ctx);
            if let Some(c) = &cleaning {
                recovery
                    .facts
                    .push(format!("Cleaned before cutting: {}", c.describe()));
            }
            if let Some(t) = original_tokens {
                recovery.facts.push(format!(
                    "Tokens ({}): {} in all; up to {} kept",
                    match entry.unit {
                        Unit::Tokens(e) => e.as_str(),
                        Unit::Chars => "chars",
                    },
                    crate::text::thousands(t),
                    crate::text::thousands(entry.max_kept)
                ));
            }
            recovery
        };
        let mut c = cut_at(entry.max_kept);
        let mut recovery = recover(&c, planned);
        // The kept part and the recovery section together stay within the
        // threshold that triggered the cut (counted in chars): when the
        // section's facts, commands and notes do not fit beside the kept part,
        // keep less (down to half the kept budget) rather than drop suggestions;
        // structure lines are left out first.
        if entry.unit == Unit::Chars {
            let stored_fact = if self.store.is_some() && call.id.is_some() {
                STORED_FACT_CHARS
            } else {
                0
            };
            let floor = entry.max_kept / 2;
            let mut budget = entry.max_kept;
            // a few rounds: the section changes with the cut (other lines kept,
            // other ranges suggested)
            for _ in 0..3 {
                // facts, commands and notes: the structure listing is
                // shortened rather than the kept part
                let essential = Recovery {
                    structure: None,
                    ..recovery.clone()
                };
                let need = crate::text::count_chars(&c.body)
                    + 1
                    + essential.rendered_chars()
                    + stored_fact;
                if need <= entry.threshold || budget == floor {
                    break;
                }
                budget = budget.saturating_sub(need - entry.threshold).max(floor);
                let smaller = cut_at(budget);
                // a budget smaller than a collapsed run's line (cleaned output)
                // would cut that line, which stands for several: keep the cut
                // that kept it whole
                if smaller
                    .kept
                    .iter()
                    .any(|k| k.partial && k.start_line != k.end_line)
                {
                    break;
                }
                c = smaller;
                recovery = recover(&c, planned);
            }
        }
        // the full result was not kept after all: suggest without the store
        let kept_it = |stored: &Option<Stored>| stored.is_some() || planned.is_none();
        let Cutting {
            body,
            kept,
            gaps,
            json: json_stats,
            page: page_stats,
            prefix_bytes,
        } = c;
        out.json = json_stats;
        out.html = page_stats;
        for g in &gaps {
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
        // Reading on starts right after the kept head (at 0 when the result was
        // reshaped or cleaned, or nothing of its start was kept).
        let shown = match kept.first() {
            // the kept head is the original's first characters, verbatim (whole
            // lines, then maybe the start of the next line)
            Some(k)
                if k.start_line == 1
                    && out.cleaning.is_none()
                    && out.json.is_none()
                    && out.html.is_none() =>
            {
                // (a head cut into a long line: whole lines, then the start of
                // the next one; error lines kept later are labelled, not verbatim)
                match kept.get(1) {
                    Some(n)
                        if entry.shape == Shape::Head
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
        };
        out.stored = keep(out.original, shown);
        if !kept_it(&out.stored) {
            let again = Cutting {
                body: body.clone(),
                kept: kept.clone(),
                gaps: gaps.clone(),
                prefix_bytes,
                json: json_stats,
                page: page_stats,
            };
            recovery = recover(&again, None);
        }
        if let Some(s) = &out.stored {
            recovery.facts.push(hints::calls::stored_fact(
                &self.config.suggest,
                &s.tool_call_id,
                s.offset,
            ));
        }
        // The kept part and the recovery section together stay within the
        // threshold that triggered the cut (counted in chars).
        let cap = match entry.unit {
            Unit::Chars => {
                let room = entry
                    .threshold
                    .saturating_sub(crate::text::count_chars(&body) + 1);
                room.clamp(hints::MIN_RECOVERY_CAP, hints::RECOVERY_CAP)
            }
            Unit::Tokens(_) => hints::RECOVERY_CAP,
        };
        let recovery = recovery.fit(cap);
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

/// The kind of a text that is not code: a text format named by the call's
/// `language` argument (`markdown`), else detected from the path and content.
fn text_kind(args: &Value, path: Option<&str>, t: &str) -> Option<String> {
    args.get("language")
        .and_then(Value::as_str)
        .and_then(crate::outline::text::Format::from_name)
        .map(|f| f.as_str())
        .or_else(|| detect::text_kind(path, t))
        .map(str::to_string)
}

/// What was gathered while reading a result besides its text: the bounded
/// scan, and the shell hints' tally of a streamed output.
pub(super) struct Read {
    pub(super) scanned: Option<scan::Scanned>,
    pub(super) tally: Option<hints::tally::LineTally>,
}

/// The most chars a shell suggestion is sized to, after the most a cut keeps:
/// what a tally of a command's output must cover (see `hints::tally`).
pub(super) fn tally_limit(config: &Config, entry: &ToolEntry) -> usize {
    let shell = config.entry_for(&config.suggest.shell.tool);
    let room = (shell.threshold / 10 * 9).max(config.max_kept_chars);
    entry.max_kept.saturating_add(room)
}

/// One way of cutting a result (see `finish`).
struct Cutting {
    body: String,
    kept: Vec<KeptSpan>,
    gaps: Vec<Gap>,
    prefix_bytes: Option<usize>,
    json: Option<JsonStats>,
    page: Option<HtmlStats>,
}

/// An HTML page cut as its text: the first lines of the page's text within
/// `budget` (the first line cut on a character boundary when it alone is longer),
/// under a note saying so, and the marker of everything of the page after the
/// source of the last character shown.
fn page_cut(
    page: &crate::html_text::PageText,
    idx: &LineIndex<'_>,
    budget: usize,
    m: &dyn Measure,
) -> Cutting {
    let text = page.text.as_str();
    let mut end = 0;
    let mut used = 0;
    for line in text.split_inclusive('\n') {
        let c = m.cost(line);
        if used + c > budget {
            break;
        }
        used += c;
        end += line.len();
    }
    if end == 0 {
        // the first line alone is longer than the budget: its longest start that fits
        let first = text.split_inclusive('\n').next().unwrap_or("");
        let (mut lo, mut hi) = (0usize, first.len());
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            let b = (0..=mid)
                .rev()
                .find(|&i| first.is_char_boundary(i))
                .unwrap_or(0);
            if b > lo && m.cost(&first[..b]) <= budget {
                lo = b;
            } else {
                hi = mid - 1;
            }
        }
        end = lo;
    }
    let shown = text[..end].trim_end_matches('\n');
    let mut source_end = page.source_end(shown.len());
    // When the rest of the last shown line holds no text (only markup), the line
    // goes with what was shown: the omitted part starts on a line of its own.
    let next = page.next_source(end).unwrap_or(idx.text.len());
    if let Some(nl) = idx.text[source_end..next.max(source_end)].find('\n') {
        source_end += nl + 1;
    }
    let shown_chars = crate::text::count_chars(shown);
    let text_chars = crate::text::count_chars(text.trim_end_matches('\n'));
    let stats = HtmlStats {
        text_chars,
        shown_chars,
    };
    let mut body = format!(
        "[toolcap: HTML page shown as text (markup, scripts, styles and menus left out): {} of its text's {} below]\n{shown}\n",
        crate::text::thousands(shown_chars),
        hints::plural(text_chars, "char", "chars")
    );
    let mut gaps = Vec::new();
    let whole_text = shown_chars == text_chars;
    body.push('\n');
    if source_end < idx.text.len() {
        let g = cut::gap(idx, source_end, idx.text.len());
        let marker = cut::marker(&g, idx.original_lines(), false);
        if whole_text {
            // what is left out holds no text of the page
            body.push_str(marker.trim_end_matches(" ...]"));
            body.push_str("; markup only: the page's whole text is shown above ...]");
        } else {
            body.push_str(&marker);
        }
        gaps.push(g);
    } else {
        body.push_str(&format!(
            "[... nothing of the page's text omitted: the rest of its {} is markup, scripts and styles ...]",
            hints::plural(crate::text::count_chars(idx.text), "char", "chars")
        ));
    }
    body.push('\n');
    let (last, _) = idx.locate(source_end.saturating_sub(1));
    let kept = vec![KeptSpan {
        start_line: 1,
        end_line: idx.orig_line_no(last).max(1),
        chars: shown_chars,
        partial: true,
    }];
    Cutting {
        body,
        kept,
        gaps,
        prefix_bytes: None,
        json: None,
        page: Some(stats),
    }
}

/// Room taken by the recovery fact that says where the full result is stored
/// (`The full result is stored. Call get_continuation with tool_call_id=...`),
/// when planning the kept part.
const STORED_FACT_CHARS: usize = 200;

/// A streamed result that starts like JSON (`{` or `[`) is held in memory up
/// to this many bytes, so that a JSON document printed by a command (often one
/// line of 40 KB or more) is shortened as valid JSON rather than cut inside its
/// line; so is a `web_fetch` result that starts like markup (`<`), so that an
/// HTML page is shown as its text.
pub const JSON_HOLD_BYTES: usize = 8 << 20;
