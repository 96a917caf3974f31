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

use super::{Context, Intent, Pattern, Recovery, Source, Structure, Suggestion};
use crate::outline::{Kind, Symbol};
use crate::text::ellipsize;
use crate::text::thousands;

/// Cut-off definitions shorter than this are not suggested one by one.
pub const MIN_SYMBOL_LINES: usize = 10;

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
        let budget = if ctx.stored() {
            STORED_STRUCTURE_CHARS
        } else {
            STRUCTURE_CHARS
        };
        let lines = structure_lines(symbols, ctx.first_omitted_line(), budget);
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
    } else if let Some(t) = ctx
        .language
        .and_then(crate::outline::text::Format::from_name)
        .or_else(|| crate::outline::text::detect(path.as_deref(), ctx.idx.text))
        .and_then(|f| {
            crate::outline::text::outline_capped(f, ctx.idx.text, super::MAX_STRUCTURE_LINES)
        })
    {
        // Not code: markdown headings, a JSON skeleton, YAML/TOML keys, a
        // table's shape, log levels, a page's headings; capped where they are
        // listed, so the count of the rest is the count of all entries.
        r.structure = Some(Structure {
            title: t.title,
            lines: t.lines,
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
    let src = Source::File(&path);
    let budget = ctx.lines_room(src);
    let first_gap = ctx.gaps().next();
    let lines = |a: usize, b: usize, purpose: String| {
        ctx.offer(src, Intent::Lines { start: a, end: b }, purpose)
    };
    // 1. The next range after the cut, as many lines as come back whole from
    //    the tool that reads them.
    let mut next_start = None;
    let mut next_end = 0;
    match first_gap {
        Some(g) if g.cut_after.is_none() && g.lines.is_some() => {
            let (a, _) = g.lines.unwrap_or((1, 1));
            next_start = Some(a);
            match ctx.lines_within(a, total, budget) {
                Some((b, chars)) => {
                    let n = b + 1 - a;
                    let next = lines(
                        a,
                        b,
                        format!(
                            "next {}, {} (lines {a}-{b} of {total})",
                            crate::text::plural(n, "line", "lines"),
                            crate::text::plural(chars, "char", "chars")
                        ),
                    );
                    // a read tool that reads only a file's first lines: as
                    // many of them as come back whole, when that goes past
                    // the cut
                    let head = || {
                        let (k, c) = ctx.lines_within(1, total, budget)?;
                        (k >= a).then(|| {
                            lines(
                                1,
                                k,
                                format!(
                                    "the first {}, {} (lines {a}-{k} are new)",
                                    crate::text::plural(k, "line", "lines"),
                                    crate::text::plural(c, "char", "chars")
                                ),
                            )
                        })?
                    };
                    r.suggestions.extend(next.or_else(head));
                    next_end = b;
                }
                // line `a` alone is too long: its first chars
                None => r
                    .suggestions
                    .extend(char_window(ctx, &path, ctx.idx.start(a - 1), budget)),
            }
        }
        Some(_) => {
            // The cut fell inside a line: read on by bytes from there.
            if let Some(kept_end) = ctx.prefix_bytes {
                r.suggestions
                    .extend(char_window(ctx, &path, kept_end, budget));
            }
        }
        None => {}
    }
    // 2. The definition the cut fell inside, then the largest ones cut off,
    //    each whole when it fits, else its first lines that do.
    if let Some(a) = next_start {
        let inside = symbols
            .iter()
            .filter(|s| s.line < a && s.end_line >= a)
            .max_by_key(|s| s.depth);
        if let Some(s) = inside
            && s.end_line > next_end
            && let Some((end, chars)) = ctx.lines_within(a, s.end_line, budget)
            && end == s.end_line
        {
            r.suggestions.extend(lines(
                a,
                end,
                format!(
                    "rest of {} (lines {a}-{end}, {}; it starts at line {})",
                    describe(s),
                    crate::text::plural(chars, "char", "chars"),
                    s.line
                ),
            ));
        }
        if ctx.stored() {
            // by name: the largest definition cut off, and any other the same way
            let largest = symbols
                .iter()
                .filter(|s| s.line >= a && s.end_line > next_end && s.kind != Kind::Impl)
                // a name that names one definition only (C's `typedef enum {..} E;`
                // is an enum and a type)
                .filter(|s| {
                    symbols
                        .iter()
                        .filter(|o| o.name == s.name && o.parent == s.parent)
                        .count()
                        == 1
                })
                .max_by_key(|s| (s.end_line - s.line, std::cmp::Reverse(s.line)));
            if let Some(s) = largest {
                let name = match (&s.parent, s.kind) {
                    (Some(p), Kind::Method) => format!("{p}.{}", s.name),
                    _ => s.name.clone(),
                };
                r.suggestions.extend(ctx.offer(
                    src,
                    Intent::Symbol(name),
                    format!(
                        "{} {}-{}{}; any definition by name, outline=true for all {}",
                        describe(s),
                        s.line,
                        s.end_line,
                        if s.kind.is_container() {
                            " (its members' first lines if larger than a reply)"
                        } else {
                            ""
                        },
                        thousands(symbols.len())
                    ),
                ));
            }
            return r;
        }
        let mut cut_off: Vec<&Symbol> = symbols
            .iter()
            .filter(|s| s.line >= a && s.depth == 0 && s.end_line + 1 - s.line >= MIN_SYMBOL_LINES)
            .filter(|s| s.end_line > next_end)
            .collect();
        cut_off.sort_by_key(|s| std::cmp::Reverse(s.end_line - s.line));
        cut_off.truncate(2);
        cut_off.sort_by_key(|s| s.line);
        for s in &cut_off {
            let span = s.end_line + 1 - s.line;
            let Some((end, chars)) = ctx.lines_within(s.line, s.end_line, budget) else {
                continue;
            };
            let purpose = if end == s.end_line {
                format!(
                    "{} (lines {}-{}, {}), one of the largest definitions cut off",
                    describe(s),
                    s.line,
                    s.end_line,
                    crate::text::plural(chars, "char", "chars")
                )
            } else {
                format!(
                    "the first {} of {span} lines of {} (lines {}-{end}, {}; it ends at line {}), one of the largest definitions cut off",
                    end + 1 - s.line,
                    describe(s),
                    s.line,
                    crate::text::plural(chars, "char", "chars"),
                    s.end_line
                )
            };
            r.suggestions.extend(lines(s.line, end, purpose));
        }
        // 3. A search for a real symbol name from the omitted part: the largest
        //    definition cut off whose mentions print within the budget (a name
        //    on every other line does not narrow).
        let mut targets: Vec<&Symbol> = symbols
            .iter()
            .filter(|s| s.line >= a && s.kind != Kind::Impl && s.name.chars().count() >= 3)
            .collect();
        targets.sort_by_key(|s| (s.depth, std::cmp::Reverse(s.end_line - s.line), s.line));
        if let Some(g) = targets
            .iter()
            .take(20)
            .find_map(|s| grep_symbol(ctx, src, &s.name, budget))
        {
            r.suggestions.push(g);
        }
    }
    r
}

/// Bytes to print from byte `from` of the file so that at most `budget` chars
/// come out and the last one is whole: `tail -c +A FILE | head -c N`, with the
/// chars and the line(s) it covers.
fn char_window(ctx: &Context<'_>, path: &str, from: usize, budget: usize) -> Option<Suggestion> {
    let text = ctx.idx.text;
    // a stored result's chunk is what get_continuation returns from an offset
    let budget = if ctx.stored() {
        ctx.config.max_kept_chars
    } else {
        budget
    };
    let rest = text.get(from..)?;
    if rest.is_empty() {
        return None;
    }
    let len = rest
        .char_indices()
        .nth(budget)
        .map_or(rest.len(), |(i, _)| i);
    let chars = rest[..len].chars().count();
    let (line, col) = line_col(ctx, from);
    let (end_line, end_col) = line_col(ctx, from + len - 1);
    let where_ = if line == end_line {
        format!(
            "chars {}-{} of line {line}",
            thousands(col),
            thousands(end_col)
        )
    } else {
        format!(
            "line {line} char {} to line {end_line} char {}",
            thousands(col),
            thousands(end_col)
        )
    };
    let from_char = crate::text::count_chars(&text[..from]);
    let what = if ctx.stored() {
        format!(
            "the next {} after the cut ({where_}; chars {}-{} of {})",
            crate::text::plural(chars, "char", "chars"),
            thousands(from_char + 1),
            thousands(from_char + chars),
            thousands(ctx.totals.chars)
        )
    } else {
        format!(
            "the next {} after the cut ({where_}; bytes {}-{} of {})",
            crate::text::plural(chars, "char", "chars"),
            thousands(from + 1),
            thousands(from + len),
            thousands(ctx.totals.bytes)
        )
    };
    ctx.offer(
        Source::File(path),
        Intent::Chars {
            from_char,
            from_byte: from,
            bytes: len,
        },
        what,
    )
}

/// 1-based line and char column of the char starting at byte `b`.
fn line_col(ctx: &Context<'_>, b: usize) -> (usize, usize) {
    let text = ctx.idx.text;
    // `b` may fall inside a char when it is the last byte of a window
    let mut end = b.min(text.len());
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    let line_start = text[..end].rfind('\n').map_or(0, |i| i + 1);
    let line = text.as_bytes()[..end]
        .iter()
        .filter(|&&c| c == b'\n')
        .count()
        + 1;
    (line, text[line_start..end].chars().count() + 1)
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

/// A search for every line mentioning `name`: through the store when the
/// result is kept, else with the harness's grep tool or `grep -n -F` through
/// the shell; none when those lines would not come back whole (over `budget`
/// chars as `grep -n` prints them).
fn grep_symbol(
    ctx: &Context<'_>,
    src: Source<'_>,
    name: &str,
    budget: usize,
) -> Option<Suggestion> {
    // what `grep -n` prints: `N:line` for every line that mentions the name
    let (lines, chars) = (0..ctx.idx.len())
        .filter(|&i| ctx.idx.line(i).contains(name))
        .fold((0usize, 0usize), |(n, c), i| {
            (
                n + 1,
                c + (i + 1).to_string().len() + 2 + ctx.idx.line(i).chars().count(),
            )
        });
    if lines == 0 || chars > budget {
        return None;
    }
    let purpose = format!(
        "every line of the file that mentions {name} ({})",
        crate::text::plural(lines, "line", "lines")
    );
    // the pattern is the name as it is: `_$ZodTypeInternals` must not anchor
    ctx.offer(src, Intent::Search(Pattern::fixed(name)), purpose)
}

/// Chars the structure listing of a cut file may take in the first view.
pub const STRUCTURE_CHARS: usize = 640;

/// The same when the result is stored: any definition can then be asked for by
/// name, and `outline=true` lists them all.
pub const STORED_STRUCTURE_CHARS: usize = 400;

/// Structure lines, dense (a class on one line with its members and their
/// spans, definitions of one kind in a row joined) within [`STRUCTURE_CHARS`]:
/// chosen by what a reader most likely asks for next — public before private
/// (`_`) names, larger before smaller — listed in source order, with an exact
/// count of the rest by kind. A definition wholly shown above the cut is neither
/// listed nor counted (the reader has it).
pub fn structure_lines(
    symbols: &[Symbol],
    first_omitted: Option<usize>,
    budget: usize,
) -> Vec<String> {
    let defs = crate::store::symbols::dense_defs(symbols);
    let rank_key = |s: &Symbol| {
        let shown = first_omitted.is_some_and(|a| s.end_line < a);
        let private = s.name.starts_with('_');
        (
            shown,
            private,
            std::cmp::Reverse(s.end_line - s.line),
            s.line,
        )
    };
    // (a definition wholly shown above the cut is neither listed nor counted)
    let mut rank: Vec<usize> = (0..symbols.len())
        .filter(|&i| !rank_key(&symbols[i]).0)
        .collect();
    rank.sort_by_key(|&i| rank_key(&symbols[i]));
    crate::render::outline::dense_within(&defs, &rank, budget, 2)
}
