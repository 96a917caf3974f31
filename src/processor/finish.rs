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
                crate::text::thousands(t),
                crate::text::thousands(entry.max_kept)
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
