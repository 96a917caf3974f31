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

use std::borrow::Cow;

use super::{Context, Intent, Pattern, Recovery, Source, Structure, Suggestion};
use crate::outline::{Kind, Symbol};
use crate::text::thousands;
use crate::text::{ellipsize, plural};

/// Cut-off definitions shorter than this are not suggested one by one.
pub const MIN_SYMBOL_LINES: usize = 10;

pub fn build(ctx: &Context<'_>) -> Recovery {
    build_view(ctx, None)
}

/// A shell command's output that is lines of one file (`sed -n 'A,Bp' F`,
/// `head -n N F`, `cat -n F`...; recognised by the processor's resolution):
/// read_file's hints with the file's own line numbers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Printed<'a> {
    /// The file, as the command names it.
    pub path: &'a str,
    /// The command as given: one simple command of literal words (the
    /// processor parsed it), what prints the same lines again.
    pub command: &'a str,
    /// The file's line the output's first line is; `None` when unknown
    /// (`tail -n N`: counted from the file's end).
    pub first: Option<usize>,
    /// Every output line starts with its number (`cat -n`, `nl`).
    pub numbered: bool,
    /// The command prints to the file's end (`cat F`, `sed -n '5,$p' F`).
    pub to_end: bool,
    /// The outline was made from the whole file on disk, not from the
    /// printed lines alone (none of them is left out of it).
    pub whole: bool,
}

impl Printed<'_> {
    /// Whether lines of the output are read again from the file itself
    /// (`sed -n 'A,Bp' F`, numbered as the file's lines): the output is the
    /// file's lines verbatim and where they start is known. Else the command
    /// runs again with a filter (`cat -n F | sed -n 'A,Bp'`), numbered as the
    /// output's lines.
    fn reads_file(&self) -> bool {
        !self.numbered && self.first.is_some()
    }

    /// Whether the output is the whole file (`cat F`, `sed -n '1,$p' F`).
    fn whole_file(&self) -> bool {
        self.first == Some(1) && self.to_end
    }
}

/// Lines printed from inside a file may start inside a definition (or a
/// string) begun above them, which no parser reads alone: the 0-based index of
/// the first line at the left margin that can start a top-level item (not
/// blank, not a closing bracket), from which such a fragment is outlined (the
/// lines before it are left out); the number of lines when there is none.
pub(crate) fn top_level_start(text: &str) -> usize {
    text.split_inclusive('\n')
        .position(|l| {
            l.chars()
                .next()
                .is_some_and(|c| !c.is_whitespace() && !matches!(c, '}' | ')' | ']'))
        })
        .unwrap_or_else(|| text.split_inclusive('\n').count())
}

/// The hints of a file's head (`printed`: of a command's output that is lines
/// of a file).
pub(crate) fn build_printed(ctx: &Context<'_>, printed: &Printed<'_>) -> Recovery {
    build_view(ctx, Some(printed))
}

fn build_view(ctx: &Context<'_>, printed: Option<&Printed<'_>>) -> Recovery {
    let path = match printed {
        Some(p) => Some(p.path.to_string()),
        None => ctx.arg(|a| &a.path),
    };
    // Line n of the result is line n + off of the file, as every line number
    // shown says (a stored result is read by its own lines: numbered as they
    // are; so is a command run again with a filter).
    let off = match printed {
        Some(p) if p.reads_file() && !ctx.stored() => p.first.unwrap_or(1) - 1,
        _ => 0,
    };
    let mut r = Recovery::default();
    let name = path.as_deref().unwrap_or("(path not given)");
    let mut fact = format!("File: {}", ellipsize(name, 200));
    if let Some(p) = printed {
        let n = ctx.totals.lines;
        let what = match p.first {
            Some(1) => format!("lines 1-{n}"),
            Some(a) if off > 0 => {
                format!("lines {a}-{} (lines 1-{n} of this output)", a + n - 1)
            }
            Some(a) => format!(
                "its lines {a}-{} as lines 1-{n} here",
                (a + n).saturating_sub(1)
            ),
            None => format!("its last {}", plural(n, "line", "lines")),
        };
        // the program (the call shows the whole command)
        let program = p.command.split_whitespace().next().unwrap_or_default();
        let program = program.rsplit('/').next().unwrap_or(program);
        fact.push_str(&format!(" | {what}, printed by {}", ellipsize(program, 40)));
    }
    fact.push_str(&format!(" | {}", ctx.size_fact()));
    if let Some(lang) = ctx.language {
        fact.push_str(" | ");
        fact.push_str(lang);
    }
    r.facts.push(fact);

    // the outline's symbols, numbered as shown
    let symbols: Cow<'_, [Symbol]> = match ctx.outline {
        Some(o) if off > 0 => Cow::Owned(
            o.symbols
                .iter()
                .map(|s| Symbol {
                    line: s.line + off,
                    end_line: s.end_line + off,
                    ..s.clone()
                })
                .collect(),
        ),
        Some(o) => Cow::Borrowed(&o.symbols),
        None => Cow::Borrowed(&[]),
    };
    let symbols: &[Symbol] = &symbols;
    if let Some(o) = ctx.outline {
        let mut title = match (o.partial, off) {
            (true, 0) => format!(
                "Structure (lines 1-{} of {}; partial: {} stopped the outline there)",
                o.covered_lines,
                ctx.totals.lines,
                o.stopped_by.map_or("a limit", |s| s.describe())
            ),
            (true, _) => format!(
                "Structure (lines {}-{} of {}-{}; partial: {} stopped the outline there)",
                1 + off,
                o.covered_lines + off,
                1 + off,
                ctx.totals.lines + off,
                o.stopped_by.map_or("a limit", |s| s.describe())
            ),
            (false, _) => format!("Structure (lines {}-{})", 1 + off, ctx.totals.lines + off),
        };
        // a fragment is outlined from its first top-level line
        if let Some(p) = printed
            && p.first != Some(1)
            && !p.whole
        {
            let k = top_level_start(ctx.idx.text);
            if k > 0 && k < ctx.totals.lines {
                title.pop();
                title.push_str(&format!(
                    "; lines {}-{} continue a definition begun above them: not outlined)",
                    1 + off,
                    k + off
                ));
            }
        }
        if o.syntax_errors {
            title.pop();
            title.push_str("; best effort: the parser found syntax errors)");
        }
        let budget = if ctx.stored() {
            STORED_STRUCTURE_CHARS
        } else {
            STRUCTURE_CHARS
        };
        let lines = structure_lines(symbols, ctx.first_omitted_line().map(|a| a + off), budget);
        if !lines.is_empty() {
            r.structure = Some(Structure { title, lines });
        } else if o.partial {
            // Never "no definitions" for lines the outline did not reach.
            r.facts.push(format!(
                "Structure: no definitions found in lines {}-{} of {} (partial: {} stopped the \
                 outline there)",
                1 + off,
                o.covered_lines + off,
                if off == 0 {
                    ctx.totals.lines.to_string()
                } else {
                    format!("{}-{}", 1 + off, ctx.totals.lines + off)
                },
                o.stopped_by.map_or("a limit", |s| s.describe())
            ));
        } else {
            r.facts.push("Structure: no definitions found".to_string());
        }
    } else if let Some(t) = ctx
        .language
        .and_then(crate::outline::text::Format::from_name)
        .or_else(|| crate::outline::text::detect(path.as_deref(), ctx.idx.text))
        .filter(|_| off == 0)
        .and_then(|f| {
            crate::outline::text::outline_capped(f, ctx.idx.text, super::MAX_STRUCTURE_LINES)
        })
    {
        // Not code: markdown headings, a JSON skeleton, YAML/TOML keys, a
        // table's shape, log levels, a page's headings; capped where they are
        // listed, so the count of the rest is the count of all entries (not
        // for lines printed from inside a file: numbered as the output's).
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
    // where lines are read again: the file, or the command that printed
    // them run again with a filter (numbered as the output's lines)
    let src = match printed {
        Some(p) if !p.reads_file() => Source::Reprint(p.command),
        _ => Source::File(&path),
    };
    let budget = ctx.lines_room(src);
    let first_gap = ctx.gaps().next();
    // lines a-b of the result, numbered as shown
    let lines = |a: usize, b: usize, purpose: String| {
        ctx.offer(
            src,
            Intent::Lines {
                start: a + off,
                end: b + off,
            },
            purpose,
        )
    };
    // a byte window of the result: the file's own bytes only when the result
    // is the whole file from its start
    let window_src = match printed {
        Some(p) if p.first != Some(1) || p.numbered => Source::Reprint(p.command),
        _ => Source::File(&path),
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
                            "next {}, {} (lines {}-{} of {})",
                            plural(n, "line", "lines"),
                            plural(chars, "char", "chars"),
                            a + off,
                            b + off,
                            of_total(total, off)
                        ),
                    );
                    // a read tool that reads only a file's first lines: as
                    // many of them as come back whole, when that goes past
                    // the cut (the result's first line the file's)
                    let head = || {
                        if off > 0 {
                            return None;
                        }
                        let (k, c) = ctx.lines_within(1, total, budget)?;
                        (k >= a).then(|| {
                            lines(
                                1,
                                k,
                                format!(
                                    "the first {}, {} (lines {a}-{k} are new)",
                                    plural(k, "line", "lines"),
                                    plural(c, "char", "chars")
                                ),
                            )
                        })?
                    };
                    r.suggestions.extend(next.or_else(head));
                    next_end = b;
                }
                // line `a` alone is too long: its first chars
                None => r.suggestions.extend(char_window(
                    ctx,
                    window_src,
                    off,
                    ctx.idx.start(a - 1),
                    budget,
                )),
            }
        }
        Some(_) => {
            // The cut fell inside a line: read on by bytes from there.
            if let Some(kept_end) = ctx.prefix_bytes {
                r.suggestions
                    .extend(char_window(ctx, window_src, off, kept_end, budget));
            }
        }
        None => {}
    }
    // 2. The definition the cut fell inside, then the largest ones cut off,
    //    each whole when it fits, else its first lines that do (the symbols
    //    are numbered as shown: `s.line - off` is the result's line).
    if let Some(a) = next_start {
        let inside = symbols
            .iter()
            .filter(|s| s.line < a + off && s.end_line >= a + off)
            .max_by_key(|s| s.depth);
        if let Some(s) = inside
            && s.end_line > next_end + off
            && let Some((end, chars)) = ctx.lines_within(a, s.end_line - off, budget)
            && end + off == s.end_line
        {
            r.suggestions.extend(lines(
                a,
                end,
                format!(
                    "rest of {} (lines {}-{}, {}; it starts at line {})",
                    describe(s),
                    a + off,
                    end + off,
                    plural(chars, "char", "chars"),
                    s.line
                ),
            ));
        }
        if ctx.stored() {
            if printed.is_some() {
                // the store outlines a result by its path argument: a shell
                // command's output is not asked for by symbol
                return r;
            }
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
            .filter(|s| {
                s.line >= a + off && s.depth == 0 && s.end_line + 1 - s.line >= MIN_SYMBOL_LINES
            })
            .filter(|s| s.end_line > next_end + off)
            .collect();
        cut_off.sort_by_key(|s| std::cmp::Reverse(s.end_line - s.line));
        cut_off.truncate(2);
        cut_off.sort_by_key(|s| s.line);
        for s in &cut_off {
            let span = s.end_line + 1 - s.line;
            let Some((end, chars)) = ctx.lines_within(s.line - off, s.end_line - off, budget)
            else {
                continue;
            };
            let end = end + off;
            let purpose = if end == s.end_line {
                format!(
                    "{} (lines {}-{}, {}), one of the largest definitions cut off",
                    describe(s),
                    s.line,
                    s.end_line,
                    plural(chars, "char", "chars")
                )
            } else {
                format!(
                    "the first {} of {span} lines of {} (lines {}-{end}, {}; it ends at line {}), one of the largest definitions cut off",
                    end + 1 - s.line,
                    describe(s),
                    s.line,
                    plural(chars, "char", "chars"),
                    s.end_line
                )
            };
            r.suggestions
                .extend(lines(s.line - off, end - off, purpose));
        }
        // 3. A search for a real symbol name from the omitted part: the largest
        //    definition cut off whose mentions print within the budget (a name
        //    on every other line does not narrow).
        let mut targets: Vec<&Symbol> = symbols
            .iter()
            .filter(|s| s.line >= a + off && s.kind != Kind::Impl && s.name.chars().count() >= 3)
            .collect();
        targets.sort_by_key(|s| (s.depth, std::cmp::Reverse(s.end_line - s.line), s.line));
        let search = Searched { src, printed, off };
        if let Some(g) = targets
            .iter()
            .take(20)
            .find_map(|s| grep_symbol(ctx, &search, &s.name, budget))
        {
            r.suggestions.push(g);
        }
    }
    r
}

/// `of 400` for the file's lines; `of lines 1000-1400` for lines printed from
/// inside a file.
fn of_total(total: usize, off: usize) -> String {
    if off == 0 {
        total.to_string()
    } else {
        format!("{}-{}", 1 + off, total + off)
    }
}

/// Where a search of the result's lines runs, and how its line numbers read.
struct Searched<'a> {
    src: Source<'a>,
    printed: Option<&'a Printed<'a>>,
    off: usize,
}

/// Bytes to print from byte `from` of the file so that at most `budget` chars
/// come out and the last one is whole: `tail -c +A FILE | head -c N`, with the
/// chars and the line(s) it covers.
/// `src` is the file, or the command that printed the result (its output's
/// bytes then); line numbers are shown as the result's line + `off`.
fn char_window(
    ctx: &Context<'_>,
    src: Source<'_>,
    off: usize,
    from: usize,
    budget: usize,
) -> Option<Suggestion> {
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
    let (line, end_line) = (line + off, end_line + off);
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
            plural(chars, "char", "chars"),
            thousands(from_char + 1),
            thousands(from_char + chars),
            thousands(ctx.totals.chars)
        )
    } else {
        // a file decoded from a legacy encoding is read through iconv: the
        // bytes are of its UTF-8 text, and said so
        let of = match ctx.decoded_from {
            Some(_) => format!("of its {} in UTF-8", thousands(ctx.totals.bytes)),
            None if matches!(src, Source::Reprint(_)) => {
                format!("of the output's {}", thousands(ctx.totals.bytes))
            }
            None => format!("of {}", thousands(ctx.totals.bytes)),
        };
        format!(
            "the next {} after the cut ({where_}; bytes {}-{} {of})",
            plural(chars, "char", "chars"),
            thousands(from + 1),
            thousands(from + len),
        )
    };
    ctx.offer(
        src,
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
/// the shell (lines printed from inside a file: `grep -n -F` over the file,
/// kept to those lines with `awk`; a command run again: its output piped into
/// `grep -n -F`); none when those lines would not come back whole (over
/// `budget` chars as `grep -n` prints them).
fn grep_symbol(
    ctx: &Context<'_>,
    search: &Searched<'_>,
    name: &str,
    budget: usize,
) -> Option<Suggestion> {
    let off = search.off;
    // what `grep -n` prints: `N:line` for every line that mentions the name
    let (lines, chars) = (0..ctx.idx.len())
        .filter(|&i| ctx.idx.line(i).contains(name))
        .fold((0usize, 0usize), |(n, c), i| {
            (
                n + 1,
                c + (i + 1 + off).to_string().len() + 2 + ctx.idx.line(i).chars().count(),
            )
        });
    if lines == 0 || chars > budget {
        return None;
    }
    let count = plural(lines, "line", "lines");
    let total = ctx.totals.lines;
    // the pattern is the name as it is: `_$ZodTypeInternals` must not anchor
    match (search.printed, search.src) {
        // lines A-B of the file: the file's lines that mention it, kept to those
        (Some(p), Source::File(path)) if !ctx.stored() && !p.whole_file() => {
            let (a, b) = (1 + off, total + off);
            let command = format!(
                "{} {} | awk -F: '$1 >= {a} && $1 <= {b}'",
                Pattern::fixed(name).shell?,
                crate::quote::shell_path(path)?
            );
            ctx.offer(
                search.src,
                Intent::Shell(command),
                format!("every line of lines {a}-{b} of the file that mentions {name} ({count})"),
            )
        }
        (Some(_), Source::Reprint(_)) if !ctx.stored() => ctx.offer(
            search.src,
            Intent::Search(Pattern::fixed(name)),
            format!("re-runs the command; every line of its output that mentions {name} ({count})"),
        ),
        _ => ctx.offer(
            search.src,
            Intent::Search(Pattern::fixed(name)),
            format!("every line of the file that mentions {name} ({count})"),
        ),
    }
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
