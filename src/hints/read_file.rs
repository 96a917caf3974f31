//! read_file: a file's head was shown.
//!
//! **What it does.** States the file's size and language, lists its structure
//! (top-level definitions first, each with its exact line span), and suggests: the
//! next range of lines after the cut, the spans of the largest definitions that were
//! cut off (or the rest of the one the cut fell inside), and a grep for a real
//! symbol name.
//!
//! **Why.** An agent that sees only the head of a file re-reads it blindly from the
//! top, or asks for fixed ranges that ignore where the cut was. With exact spans it
//! can jump straight to the definition it needs.
//!
//! **Example.** `sed -n '53,152p' typing.py  # next 100 lines after the cut`

use super::{Context, Recovery, Structure, Suggestion, ellipsize, sed_range};
use crate::cut::thousands;
use crate::outline::{Kind, Symbol};
use crate::quote;

/// Lines suggested for reading after the cut.
pub const NEXT_LINES: usize = 100;

/// Cut-off definitions shorter than this are not suggested one by one.
pub const MIN_SYMBOL_LINES: usize = 10;

/// A cut-off definition longer than this is suggested by its first lines only.
pub const MAX_SYMBOL_LINES: usize = 200;

pub fn build(ctx: &Context<'_>) -> Recovery {
    let path = ctx.arg(|a| &a.path);
    let mut r = Recovery::default();
    let name = path.as_deref().unwrap_or("(path not given)");
    let mut fact = format!("File: {} | {}", ellipsize(name, 200), ctx.size_fact());
    if let Some(lang) = ctx.language {
        fact.push_str(" | ");
        fact.push_str(lang);
    }
    r.facts.push(fact);

    let symbols: &[Symbol] = ctx.outline.map_or(&[], |o| &o.symbols);
    if let Some(o) = ctx.outline {
        let mut title = if o.partial {
            format!(
                "Structure (lines 1-{} of {}; partial: {} stopped the outline there)",
                o.covered_lines,
                ctx.totals.lines,
                o.stopped_by.map_or("a limit", |s| s.describe())
            )
        } else {
            format!("Structure (lines 1-{})", ctx.totals.lines)
        };
        if o.syntax_errors {
            title.pop();
            title.push_str("; best effort: the parser found syntax errors)");
        }
        let lines = structure_lines(symbols, ctx.first_omitted_line());
        if !lines.is_empty() {
            r.structure = Some(Structure { title, lines });
        } else if o.partial {
            // Never "no definitions" for lines the outline did not reach.
            r.facts.push(format!(
                "Structure: no definitions found in lines 1-{} of {} (partial: {} stopped the \
                 outline there)",
                o.covered_lines,
                ctx.totals.lines,
                o.stopped_by.map_or("a limit", |s| s.describe())
            ));
        } else {
            r.facts.push("Structure: no definitions found".to_string());
        }
    } else if let Some(t) = crate::outline::text::detect(path.as_deref(), ctx.idx.text)
        .and_then(|f| crate::outline::text::outline(f, ctx.idx.text))
    {
        // Not code: markdown headings, a JSON skeleton, YAML/TOML keys, a
        // table's shape, log levels, a page's headings.
        r.structure = Some(Structure {
            title: t.title,
            lines: super::cap_lines(t.lines, "entries", super::MAX_STRUCTURE_LINES),
        });
    }

    let Some(path) = path else {
        r.notes.push(
            "The file path is not in the tool arguments, so no command can be suggested; \
             pass it as `path` to get runnable suggestions."
                .to_string(),
        );
        return r;
    };
    let total = ctx.totals.lines;
    let first_gap = ctx.gaps().next();
    // 1. The next range after the cut.
    let mut next_start = None;
    match first_gap {
        Some(g) if g.lines.is_some() && g.cut_after.is_none() => {
            let (a, _) = g.lines.unwrap_or((1, 1));
            let b = (a + NEXT_LINES - 1).min(total);
            if let Some(cmd) = sed_range(&path, a, b) {
                let n = b + 1 - a;
                r.suggestions.push(ctx.shell(
                    cmd,
                    format!("next {n} lines after the cut (lines {a}-{b} of {total})"),
                ));
            }
            next_start = Some(a);
        }
        Some(_) => {
            // The cut fell inside a line longer than the budget: page by bytes.
            if let Some(kept_end) = ctx.prefix_bytes
                && let Some(p) = quote::shell_path(&path)
            {
                r.suggestions.push(ctx.shell(
                    format!("tail -c +{} {p} | head -c 4000", kept_end + 1),
                    format!(
                        "the next 4,000 bytes after the cut (from byte {} of {})",
                        thousands(kept_end + 1),
                        thousands(ctx.totals.bytes)
                    ),
                ));
            }
        }
        None => {}
    }
    // 2. The definition the cut fell inside, then the largest ones cut off.
    if let Some(a) = next_start {
        let inside = symbols
            .iter()
            .filter(|s| s.line < a && s.end_line >= a)
            .max_by_key(|s| s.depth);
        if let Some(s) = inside
            && let Some(cmd) = sed_range(&path, a, s.end_line)
        {
            r.suggestions.push(ctx.shell(
                cmd,
                format!(
                    "rest of {} (lines {a}-{}; it starts at line {})",
                    describe(s),
                    s.end_line,
                    s.line
                ),
            ));
        }
        let mut cut_off: Vec<&Symbol> = symbols
            .iter()
            .filter(|s| s.line >= a && s.depth == 0 && s.end_line + 1 - s.line >= MIN_SYMBOL_LINES)
            .collect();
        cut_off.sort_by_key(|s| std::cmp::Reverse(s.end_line - s.line));
        cut_off.truncate(2);
        cut_off.sort_by_key(|s| s.line);
        for s in &cut_off {
            let span = s.end_line + 1 - s.line;
            let (end, purpose) = if span > MAX_SYMBOL_LINES {
                (
                    s.line + MAX_SYMBOL_LINES - 1,
                    format!(
                        "the first {MAX_SYMBOL_LINES} of {span} lines of {} (lines {}-{}), one of the largest definitions cut off",
                        describe(s),
                        s.line,
                        s.end_line
                    ),
                )
            } else {
                (
                    s.end_line,
                    format!(
                        "{} (lines {}-{}), one of the largest definitions cut off",
                        describe(s),
                        s.line,
                        s.end_line
                    ),
                )
            };
            if let Some(cmd) = sed_range(&path, s.line, end) {
                r.suggestions.push(ctx.shell(cmd, purpose));
            }
        }
        // 3. A grep for a real symbol name from the omitted part.
        let target = symbols
            .iter()
            .filter(|s| s.line >= a && s.depth == 0 && s.kind != Kind::Impl)
            .max_by_key(|s| (s.end_line - s.line, std::cmp::Reverse(s.line)))
            .or_else(|| symbols.iter().find(|s| s.line >= a));
        if let Some(s) = target
            && let Some(g) = grep_symbol(ctx, &path, &s.name)
        {
            r.suggestions.push(g);
        }
    }
    r
}

/// `class TypeVar`, `impl Display for Foo`, `method Foo.bar`.
fn describe(s: &Symbol) -> String {
    match (&s.detail, s.kind) {
        (Some(d), Kind::Impl) => ellipsize(d, 80),
        _ => match (&s.parent, s.kind) {
            (Some(p), Kind::Method) => format!("method {p}.{}", s.name),
            _ => format!("{} {}", s.kind.as_str(), s.name),
        },
    }
}

/// A search for every line mentioning `name`, with the configured grep tool or,
/// if none is configured, with `grep -n` through the shell (none when the name or
/// path cannot be a shell word: they hold a NUL).
fn grep_symbol(ctx: &Context<'_>, path: &str, name: &str) -> Option<Suggestion> {
    let g = &ctx.config.suggest.grep;
    let purpose = format!("every line of the file that mentions {name}");
    if !g.tool.is_empty() {
        return Some(ctx.call(&g.tool, &[(&g.pattern, name), (&g.path, path)], purpose));
    }
    let (n, p) = (quote::shell_word(name)?, quote::shell_path(path)?);
    Some(ctx.shell(format!("grep -n -F -e {n} {p}"), purpose))
}

/// Structure lines: top-level definitions first (then deeper ones); within a
/// depth, those cut off before those wholly shown, public before private (`_`)
/// names, and types before functions; listed in
/// source order and indented by depth, with an exact count of the rest.
pub fn structure_lines(symbols: &[Symbol], first_omitted: Option<usize>) -> Vec<String> {
    let cap = super::MAX_STRUCTURE_LINES;
    let room = if symbols.len() > cap { cap - 1 } else { cap };
    let rank = |s: &Symbol| {
        let is_type = s.kind.is_container();
        let private = s.name.starts_with('_');
        let shown = first_omitted.is_some_and(|a| s.end_line < a);
        (s.depth, shown, private, !is_type, s.line)
    };
    let mut order: Vec<usize> = (0..symbols.len()).collect();
    order.sort_by_key(|&i| rank(&symbols[i]));
    let mut chosen = vec![false; symbols.len()];
    for &i in order.iter().take(room) {
        chosen[i] = true;
    }
    let count = room.min(symbols.len());
    let mut lines: Vec<String> = symbols
        .iter()
        .zip(&chosen)
        .filter(|(_, c)| **c)
        .map(|(s, _)| {
            let label = match (&s.detail, s.kind) {
                (Some(d), Kind::Impl) => ellipsize(d, 80),
                _ => format!("{} {}", s.kind.as_str(), ellipsize(&s.name, 80)),
            };
            format!(
                "{}- {label} (lines {}-{})",
                "  ".repeat(s.depth),
                s.line,
                s.end_line
            )
        })
        .collect();
    let left = symbols.len() - count;
    if left > 0 {
        lines.push(format!(
            "... and {} more definitions ({} in all)",
            thousands(left),
            thousands(symbols.len())
        ));
    }
    lines
}
