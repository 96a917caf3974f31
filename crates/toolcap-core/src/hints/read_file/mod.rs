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

mod reads;

use super::{
    Context, Entry, Fact, Intent, Listing, Note, Outlined, PrintedLines, Purpose, RecoveryModel,
    Source, Structure, Suggestion, Title,
};
use crate::outline::{Kind, Symbol};
use crate::text::ellipsize;
use reads::{Searched, char_window, grep_symbol};

/// Cut-off definitions shorter than this are not suggested one by one.
pub const MIN_SYMBOL_LINES: usize = 10;

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
    /// The definitions the printed lines start and end inside.
    pub enclosing: Option<&'a Enclosing>,
    /// The output without its numbers (`cat -n F | sed -n 'A,Bp'`): the
    /// file's lines, as a read of the file prints them.
    pub stripped: Option<&'a str>,
}

/// A read tool's result whose rows are lines of a file from some line on
/// (numbered, `     12→text`, `12:text`..., or read from an offset; see
/// `toolcap_outline::numbered`): read_file's hints with the file's own line
/// numbers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Numbered<'a> {
    /// The result's row (1-based) holding the first line read.
    pub first_row: usize,
    /// The result's row holding the last line read.
    pub last_row: usize,
    /// The file's line the first row is.
    pub first_line: usize,
    /// The file, when a header names it (`[File: /repo/a.py (300 lines total)]`).
    pub path: Option<&'a str>,
    /// The result with its numbers stripped, every row kept (a header's
    /// rows empty): the file's lines, as a read of the file prints them.
    pub text: Option<&'a str>,
    /// The definitions the read starts and ends inside.
    pub enclosing: Option<&'a Enclosing>,
}

/// The definitions lines printed from inside a file start and end inside
/// (innermost; numbered as the file's lines).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Enclosing {
    /// The one begun above the first line.
    pub starts: Option<Symbol>,
    /// The one going on past the last line (not the one they start inside).
    pub ends: Option<Symbol>,
}

/// Row n of the result is line `n + shift` of the file (negative under a
/// header: `[File: ...]` above the file's first line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Off {
    shift: isize,
    /// The result's rows that are the file's lines.
    first_row: usize,
    last_row: usize,
}

impl Off {
    /// Rows numbered as they are: the result's lines 1..=total.
    fn rows(total: usize, shift: usize) -> Off {
        Off {
            shift: isize::try_from(shift).unwrap_or(isize::MAX),
            first_row: 1,
            last_row: total,
        }
    }

    /// The file's line that row `row` is.
    pub(super) fn line(self, row: usize) -> usize {
        row.saturating_add_signed(self.shift)
    }

    /// The result's row that the file's line `line` is.
    pub(super) fn row(self, line: usize) -> usize {
        line.saturating_add_signed(self.shift.saturating_neg())
    }

    fn is_zero(self) -> bool {
        self.shift == 0
    }

    /// The lines as the facts write them: line n of the result's lines
    /// `1..=total` is line `n + off` of the file.
    fn shown(self) -> (usize, usize) {
        (
            self.line(self.first_row).saturating_sub(1),
            self.last_row + 1 - self.first_row.min(self.last_row + 1),
        )
    }
}

impl Printed<'_> {
    /// Whether lines of the output are read again from the file itself
    /// (`sed -n 'A,Bp' F`, numbered as the file's lines): the output is the
    /// file's lines verbatim and where they start is known. Else the command
    /// runs again with a filter (`cat -n F | sed -n 'A,Bp'`), numbered as the
    /// output's lines.
    fn reads_file(&self) -> bool {
        self.first.is_some() && (!self.numbered || self.first != Some(1))
    }

    /// Whether the output is the whole file (`cat F`, `sed -n '1,$p' F`).
    pub(super) fn whole_file(&self) -> bool {
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

/// The recovery section of a file's head as typed values (`printed`: of a
/// command's output that is lines of a file).
pub(crate) fn view_model(
    ctx: &Context<'_>,
    printed: Option<&Printed<'_>>,
    numbered: Option<&Numbered<'_>>,
) -> RecoveryModel {
    let path = match printed {
        Some(p) => Some(p.path.to_string()),
        None => ctx
            .arg(|a| &a.path)
            .or_else(|| numbered.and_then(|n| n.path).map(str::to_string)),
    };
    // Line n of the result is line n + off of the file, as every line number
    // shown says (a stored result is read by its own lines: numbered as they
    // are; so is a command run again with a filter).
    let total = ctx.totals.lines;
    let off = match (printed, numbered) {
        (Some(p), _) if p.reads_file() && !ctx.stored() => {
            Off::rows(total, p.first.unwrap_or(1) - 1)
        }
        (None, Some(n)) if !ctx.stored() && n.first_row <= n.last_row && n.last_row <= total => {
            Off {
                shift: isize::try_from(n.first_line).unwrap_or(isize::MAX)
                    - isize::try_from(n.first_row).unwrap_or(isize::MAX),
                first_row: n.first_row,
                last_row: n.last_row,
            }
        }
        _ => Off::rows(total, 0),
    };
    // lines read again from the file by the shell (`sed -n 'X,Yp' F`) print
    // without the numbers the result has: their chars are counted on the
    // result without them (a harness's read tool numbers them as it reads)
    let stripped = match (printed, numbered) {
        (Some(p), _) if p.numbered && p.reads_file() => p.stripped,
        (None, Some(n)) => n.text,
        _ => None,
    }
    .filter(|_| ctx.config.suggest.read.tool.is_empty());
    // (a read that does not end in a newline ends on a line of the file
    // that has one, but for the file's last)
    let stripped = stripped
        .filter(|_| !ctx.stored() && ctx.whole.is_some())
        .map(|s| match s.ends_with('\n') {
            true => Cow::Borrowed(s),
            false => Cow::Owned(format!("{s}\n")),
        });
    let stripped_idx = stripped
        .as_deref()
        .map(crate::cut::index::LineIndex::new)
        // (as many rows; a last row left empty, without a newline, is none)
        .filter(|w| w.len() == ctx.idx.len() || w.len() + 1 == ctx.idx.len());
    let file_ctx;
    let ctx = match &stripped_idx {
        Some(w) => {
            file_ctx = Context {
                whole: Some(w),
                ..*ctx
            };
            &file_ctx
        }
        None => ctx,
    };
    let mut r = RecoveryModel::default();
    r.facts.push(file_fact(ctx, printed, path.as_deref(), off));
    // the outline's symbols, numbered as shown
    let symbols: Cow<'_, [Symbol]> = match ctx.outline {
        Some(o) if !off.is_zero() => Cow::Owned(
            o.symbols
                .iter()
                .map(|s| Symbol {
                    line: off.line(s.line),
                    end_line: off.line(s.end_line),
                    ..s.clone()
                })
                .collect(),
        ),
        Some(o) => Cow::Borrowed(&o.symbols),
        None => Cow::Borrowed(&[]),
    };
    let enclosing = match (printed, numbered) {
        (Some(p), _) => p.enclosing,
        (None, Some(n)) => n.enclosing,
        _ => None,
    }
    .filter(|_| !ctx.stored());
    // a `cat -n` / `nl` print's rows as read here still carry its numbers
    // (`nl` counts only the lines that are not blank: not the file's)
    let tab_numbered = printed.is_some_and(|p| p.numbered) && stripped_idx.is_none();
    // (the structure is listed last, in the room the suggestions leave)
    let listed = |mut r: RecoveryModel| {
        structure(
            ctx,
            printed,
            path.as_deref(),
            (off, tab_numbered),
            &symbols,
            enclosing,
            &mut r,
        );
        r
    };
    let Some(file) = path.as_deref() else {
        r.notes.push(Note::NoPath);
        return listed(r);
    };
    let path = file;
    // where lines are read again: the file, or the command that printed
    // them run again with a filter (numbered as the output's lines)
    let src = match printed {
        Some(p) if !p.reads_file() => Source::Reprint(p.command),
        _ => Source::File(path),
    };
    // a byte window of the result: the file's own bytes only when the result
    // is the whole file from its start
    let window_src = match (printed, numbered) {
        (Some(p), _) if p.first != Some(1) || p.numbered => Source::Reprint(p.command),
        // the result's bytes are not the file's
        (None, Some(_)) => Source::Nowhere,
        _ => Source::File(path),
    };
    let view = View {
        ctx,
        printed,
        off,
        src,
        window_src,
        budget: ctx.lines_room(src),
        symbols: &symbols,
        numbered: (numbered.is_some() && printed.is_none())
            || printed.is_some_and(|p| p.numbered && p.reads_file()),
    };
    if let Some((a, next_end)) = view.next_range(&mut r) {
        view.cut_definitions(a, next_end, &mut r);
    }
    listed(r)
}

/// `File: typing.py | 3,520 lines, 120,077 chars | python`, with what printed
/// the lines of a command's output.
fn file_fact(
    ctx: &Context<'_>,
    printed: Option<&Printed<'_>>,
    path: Option<&str>,
    off: Off,
) -> Fact {
    let printed = printed.map(|p| {
        // the program (the call shows the whole command)
        let program = p.command.split_whitespace().next().unwrap_or_default();
        let program = program.rsplit('/').next().unwrap_or(program);
        PrintedLines {
            first: p.first,
            renumbered: off.shift > 0,
            program: program.to_string(),
        }
    });
    Fact::File {
        path: path.map(str::to_string),
        printed,
        size: ctx.size(),
        language: ctx.language.map(str::to_string),
    }
}

/// The structure listing: the outline's definitions, or a text format's
/// outline; or a fact saying there are no definitions.
fn structure(
    ctx: &Context<'_>,
    printed: Option<&Printed<'_>>,
    path: Option<&str>,
    (off, tab_numbered): (Off, bool),
    symbols: &[Symbol],
    enclosing: Option<&Enclosing>,
    r: &mut RecoveryModel,
) {
    let Some(o) = ctx.outline else {
        if let Some(t) = ctx
            .language
            .and_then(crate::outline::text::Format::from_name)
            .or_else(|| crate::outline::text::detect(path, ctx.idx.text))
            .filter(|_| off.is_zero())
            .and_then(|f| {
                crate::outline::text::outline_capped(f, ctx.idx.text, super::MAX_STRUCTURE_LINES)
            })
        {
            // Not code: markdown headings, a JSON skeleton, YAML/TOML keys, a
            // table's shape, log levels, a page's headings; capped where they are
            // listed, so the count of the rest is the count of all entries (not
            // for lines printed from inside a file: numbered as the output's).
            r.structure = Some(
                Structure {
                    title: t.title,
                    lines: t.lines,
                }
                .into(),
            );
        }
        return;
    };
    let stopped_by = o.stopped_by.map_or("a limit", |s| s.describe());
    // a fragment is outlined from its first top-level line
    let begun_above = printed
        .filter(|p| p.first != Some(1) && !p.whole && !p.numbered)
        .map(|_| top_level_start(ctx.idx.text))
        .filter(|&k| k > 0 && k < ctx.totals.lines);
    let (shown_off, shown_total) = off.shown();
    let title = Title::Outline {
        off: shown_off,
        total: shown_total,
        partial: o.partial.then_some(Outlined {
            off: shown_off,
            covered: o.covered_lines,
            total: shown_total,
            stopped_by,
        }),
        begun_above,
        starts_inside: enclosing.and_then(|e| e.starts.as_ref()).map(inside),
        ends_inside: enclosing.and_then(|e| e.ends.as_ref()).map(inside),
        syntax_errors: o.syntax_errors,
    };
    let budget = if ctx.stored() {
        STORED_STRUCTURE_CHARS
    } else {
        STRUCTURE_CHARS
    };
    // what the section's cap leaves for the listing, after the facts and
    // suggestions (kept before structure lines when the cap binds), its
    // title and the note a store adds
    let room = super::section_cap(ctx.entry, ctx.shown)
        .saturating_sub(r.clone().render().rendered_chars())
        .saturating_sub(title.to_string().chars().count() + SECTION_SLACK);
    let lines = code_view_lines(
        ctx,
        (off, tab_numbered),
        symbols,
        ctx.first_omitted_line().map(|a| off.line(a)),
        budget,
        room,
    );
    if !lines.is_empty() {
        r.structure = Some(Listing {
            title,
            lines: lines.into_iter().map(Entry::Text).collect(),
        });
    } else {
        // Never "no definitions" for lines the outline did not reach.
        r.facts.push(Fact::NoDefinitions {
            partial: o.partial.then_some(Outlined {
                off: shown_off,
                covered: o.covered_lines,
                total: shown_total,
                stopped_by,
            }),
        });
    }
}

/// What read_file's suggestions read: the call, where its lines are read
/// again, and the outline's symbols numbered as shown.
struct View<'v, 'a> {
    ctx: &'v Context<'a>,
    printed: Option<&'v Printed<'v>>,
    /// Line n of the result is line n + off of the file.
    off: Off,
    /// Where lines are read again.
    src: Source<'v>,
    /// Where a byte window of the result is read.
    window_src: Source<'v>,
    /// Chars a read of lines may return.
    budget: usize,
    symbols: &'v [Symbol],
    /// The result is a numbered read (its lines are not the file's as they
    /// are): its mentions of a name are not counted as the file's.
    numbered: bool,
}

impl View<'_, '_> {
    /// Lines a-b of the result, numbered as shown.
    fn lines(&self, a: usize, b: usize, purpose: Purpose) -> Option<Suggestion> {
        self.ctx.offer(
            self.src,
            Intent::Lines {
                start: self.off.line(a),
                end: self.off.line(b),
            },
            purpose,
        )
    }

    /// 1. The next range after the cut, as many lines as come back whole
    ///    from the tool that reads them. The first omitted line and the last
    ///    line read (0 when none), when the cut fell between lines.
    fn next_range(&self, r: &mut RecoveryModel) -> Option<(usize, usize)> {
        let (ctx, off, budget) = (self.ctx, self.off, self.budget);
        // the last row that is a line of the file
        let total = off.last_row;
        let g = ctx.gaps().next()?;
        if g.lines.is_some_and(|(a, _)| a > total) {
            // only rows below the file's lines (a footer) were cut
            return None;
        }
        let Some((a, _)) = g.lines.filter(|_| g.cut_after.is_none()) else {
            // The cut fell inside a line: read on by bytes from there.
            if let Some(kept_end) = ctx.prefix_bytes {
                r.suggestions
                    .extend(char_window(ctx, self.window_src, off, kept_end, budget));
            }
            return None;
        };
        let Some((b, chars)) = ctx.lines_within(a, total, budget) else {
            // line `a` alone is too long: its first chars
            r.suggestions.extend(char_window(
                ctx,
                self.window_src,
                off,
                ctx.idx.start(a - 1),
                budget,
            ));
            return Some((a, 0));
        };
        let (shown_off, shown_total) = off.shown();
        let next = self.lines(
            a,
            b,
            Purpose::NextFileLines {
                start: off.line(a),
                end: off.line(b),
                chars,
                total: shown_total,
                off: shown_off,
            },
        );
        // a read tool that reads only a file's first lines: as many of them
        // as come back whole, when that goes past the cut (the result's first
        // line the file's)
        let head = || {
            if !off.is_zero() {
                return None;
            }
            let (k, c) = ctx.lines_within(1, total, budget)?;
            (k >= a).then(|| {
                self.lines(
                    1,
                    k,
                    Purpose::FirstLines {
                        lines: k,
                        chars: c,
                        new_from: a,
                    },
                )
            })?
        };
        r.suggestions.extend(next.or_else(head));
        Some((a, b))
    }

    /// 2. The definition the cut fell inside, then the largest ones cut off,
    ///    each whole when it fits, else its first lines that do (the symbols
    ///    are numbered as shown: `s.line - off` is the result's line); 3. a
    ///    search for a symbol's mentions.
    fn cut_definitions(&self, a: usize, next_end: usize, r: &mut RecoveryModel) {
        self.rest_of_inside(a, next_end, r);
        if self.ctx.stored() {
            // the store outlines a result by its path argument: a shell
            // command's output is not asked for by symbol
            if self.printed.is_none() {
                self.largest_by_name(a, next_end, r);
            }
            return;
        }
        self.largest_cut_off(a, next_end, r);
        if !self.numbered {
            self.symbol_search(a, r);
        }
    }

    /// The rest of the definition the cut fell inside, when it fits.
    fn rest_of_inside(&self, a: usize, next_end: usize, r: &mut RecoveryModel) {
        let off = self.off;
        let inside = self
            .symbols
            .iter()
            .filter(|s| s.line < off.line(a) && s.end_line >= off.line(a))
            .max_by_key(|s| s.depth);
        if let Some(s) = inside
            && s.end_line > off.line(next_end)
            && s.end_line <= off.line(off.last_row)
            && let Some((end, chars)) = self.ctx.lines_within(a, off.row(s.end_line), self.budget)
            && off.line(end) == s.end_line
        {
            r.suggestions.extend(self.lines(
                a,
                end,
                Purpose::RestOf {
                    what: describe(s),
                    start: off.line(a),
                    end: off.line(end),
                    chars,
                    starts_at: s.line,
                },
            ));
        }
    }

    /// A stored result: the largest definition cut off by name, and any
    /// other the same way.
    fn largest_by_name(&self, a: usize, next_end: usize, r: &mut RecoveryModel) {
        let symbols = self.symbols;
        // the name the store finds this definition alone by (C's `typedef
        // enum {..} E;` is an enum and a type: no name), a method's with its
        // class first
        let unique_name = |s: &Symbol| {
            let qualified = s.parent.as_ref().map(|p| format!("{p}.{}", s.name));
            let names = match (qualified, s.kind) {
                (Some(q), Kind::Method) => vec![q, s.name.clone()],
                (Some(q), _) => vec![s.name.clone(), q],
                (None, _) => vec![s.name.clone()],
            };
            names.into_iter().find(|n| {
                matches!(crate::store::symbols::resolve(symbols, n)[..], [one] if std::ptr::eq(one, s))
            })
        };
        let largest = symbols
            .iter()
            .filter(|s| s.line >= a && s.end_line > next_end && s.kind != Kind::Impl)
            .filter_map(|s| Some((s, unique_name(s)?)))
            .max_by_key(|(s, _)| (s.end_line - s.line, std::cmp::Reverse(s.line)));
        let Some((s, name)) = largest else {
            return;
        };
        r.suggestions.extend(self.ctx.offer(
            self.src,
            Intent::Symbol(name),
            Purpose::DefinitionByName {
                what: describe(s),
                start: s.line,
                end: s.end_line,
                container: s.kind.is_container(),
                definitions: symbols.len(),
            },
        ));
    }

    /// The two largest top-level definitions cut off, in source order.
    fn largest_cut_off(&self, a: usize, next_end: usize, r: &mut RecoveryModel) {
        let off = self.off;
        let mut cut_off: Vec<&Symbol> = self
            .symbols
            .iter()
            .filter(|s| {
                s.line >= off.line(a)
                    && s.depth == 0
                    && s.end_line + 1 - s.line >= MIN_SYMBOL_LINES
                    && s.line <= off.line(off.last_row)
            })
            .filter(|s| s.end_line > off.line(next_end))
            .collect();
        cut_off.sort_by_key(|s| std::cmp::Reverse(s.end_line - s.line));
        cut_off.truncate(2);
        cut_off.sort_by_key(|s| s.line);
        for s in &cut_off {
            let Some((end, chars)) = self.ctx.lines_within(
                off.row(s.line),
                off.row(s.end_line.min(off.line(off.last_row))),
                self.budget,
            ) else {
                continue;
            };
            let end = off.line(end);
            let purpose = if end == s.end_line {
                Purpose::CutOffDefinition {
                    what: describe(s),
                    start: s.line,
                    end,
                    chars,
                }
            } else {
                Purpose::CutOffDefinitionHead {
                    what: describe(s),
                    start: s.line,
                    end,
                    chars,
                    ends_at: s.end_line,
                }
            };
            r.suggestions
                .extend(self.lines(off.row(s.line), off.row(end), purpose));
        }
    }

    /// 3. A search for a real symbol name from the omitted part: the largest
    ///    definition cut off whose mentions print within the budget (a name
    ///    on every other line does not narrow).
    fn symbol_search(&self, a: usize, r: &mut RecoveryModel) {
        let off = self.off;
        let mut targets: Vec<&Symbol> = self
            .symbols
            .iter()
            .filter(|s| {
                s.line >= off.line(a) && s.kind != Kind::Impl && s.name.chars().count() >= 3
            })
            .collect();
        targets.sort_by_key(|s| (s.depth, std::cmp::Reverse(s.end_line - s.line), s.line));
        let search = Searched {
            src: self.src,
            printed: self.printed,
            off,
        };
        if let Some(g) = targets
            .iter()
            .take(20)
            .find_map(|s| grep_symbol(self.ctx, &search, &s.name, self.budget))
        {
            r.suggestions.push(g);
        }
    }
}

/// `class TypeVar (lines 900-1048)`, numbered as the file's lines.
fn inside(s: &Symbol) -> crate::render::facts::Inside {
    crate::render::facts::Inside {
        what: describe(s),
        start: s.line,
        end: s.end_line,
    }
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

/// Chars the structure listing of a cut file may take in the first view.
pub const STRUCTURE_CHARS: usize = 640;

/// The same when the result is stored: any definition can then be asked for by
/// name, and `outline=true` lists them all.
pub const STORED_STRUCTURE_CHARS: usize = 400;

/// Chars the signature lines of the definitions after the cut may take in
/// the first view.
pub const SIGNATURE_CHARS: usize = 1000;

/// A signature line longer than this many chars is shortened (`…`).
const MAX_SIGNATURE_LINE: usize = 160;

/// The code view's structure lines: the definitions that begin after the cut
/// (classes, functions, methods, tests), each as its first line verbatim with
/// its line number (`1688:     def deconstruct(self):`; a numbered read's row
/// as it is printed, `1688:    def ...`, its own number not repeated; a
/// `cat -n` / `nl` print's without its number), chosen as [`structure_lines`]
/// ranks them within [`SIGNATURE_CHARS`] and the room the section's cap
/// leaves, listed in source order; then the dense listing of the rest (those
/// begun above the cut and going on past it, impl blocks, those left out)
/// within what is left (at least a line's worth, at most `budget`), with its
/// exact count of what does not fit. A definition whose line does not hold its
/// name (a parse at odds with the text) gets no signature line: it is listed
/// densely.
fn code_view_lines(
    ctx: &Context<'_>,
    (off, tab_numbered): (Off, bool),
    symbols: &[Symbol],
    first_omitted: Option<usize>,
    budget: usize,
    room: usize,
) -> Vec<String> {
    let rows = ctx.whole.unwrap_or(ctx.idx);
    let Some(a) = first_omitted else {
        return structure_lines(symbols, first_omitted, budget);
    };
    let last = off.line(off.last_row);
    // the first line of definition i, as the section numbers it, when it is
    // one of the result's rows and holds the definition's name
    let signature = |s: &Symbol| -> Option<String> {
        let row = off.row(s.line);
        // (an impl block's header names no definition of its own: the dense
        // listing labels it)
        if s.kind == Kind::Impl || s.line < a || s.line > last || row == 0 || row > rows.len() {
            return None;
        }
        let text = rows.line(row - 1).trim_end();
        let text = if tab_numbered {
            strip_tab_number(text)
        } else {
            text
        };
        if s.name.is_empty() || !text.contains(s.name.as_str()) {
            return None;
        }
        let n = s.line.to_string();
        let own_number = text
            .trim_start()
            .strip_prefix(n.as_str())
            .is_some_and(|rest| !rest.starts_with(|c: char| c.is_ascii_digit()));
        let line = if own_number {
            text.to_string()
        } else {
            format!("{n}: {text}")
        };
        Some(ellipsize(&line, MAX_SIGNATURE_LINE))
    };
    let rank_key = |s: &Symbol| {
        (
            s.name.starts_with('_'),
            std::cmp::Reverse(s.end_line - s.line),
            s.line,
        )
    };
    let cands: Vec<(usize, String)> = symbols
        .iter()
        .enumerate()
        .filter_map(|(i, s)| Some((i, signature(s)?)))
        .collect();
    // the signature lines, chosen by rank within the room (a line's worth
    // kept for the dense rest), listed in source order
    let sig_budget = SIGNATURE_CHARS.min(room.saturating_sub(MIN_DENSE_CHARS));
    let mut ranked = cands;
    ranked.sort_by_key(|(i, _)| rank_key(&symbols[*i]));
    let mut listed = vec![false; symbols.len()];
    let mut chosen = Vec::new();
    let mut used = 0;
    for (i, line) in ranked {
        // (each line counted with the listing's indent and its line end)
        let cost = line.chars().count() + 3;
        if used + cost <= sig_budget {
            used += cost;
            listed[i] = true;
            chosen.push((i, line));
        }
    }
    chosen.sort_by_key(|(i, _)| symbols[*i].line);
    // then the rest, densely, in what is left (at least a line's worth, at
    // most `budget`), with the exact count of what does not fit: the
    // definitions begun above the cut and going on past it, those the
    // signature lines left out
    let defs: Vec<crate::render::outline::Def> = symbols.iter().map(Into::into).collect();
    let mut rank: Vec<usize> = (0..symbols.len())
        .filter(|&i| !listed[i] && symbols[i].end_line >= a)
        .collect();
    rank.sort_by_key(|&i| rank_key(&symbols[i]));
    let dense_budget = room
        .saturating_sub(used)
        .clamp(MIN_DENSE_CHARS, budget.max(MIN_DENSE_CHARS));
    let mut lines: Vec<String> = chosen.into_iter().map(|(_, l)| l).collect();
    lines.extend(crate::render::outline::dense_within(
        &defs,
        &rank,
        dense_budget,
        2,
    ));
    lines
}

/// A `cat -n` / `nl` row's text: what follows the tab after its number
/// (spaces, digits); the row as it is when it has none.
fn strip_tab_number(row: &str) -> &str {
    let rest = row.trim_start_matches(' ');
    let digits = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    match digits.strip_prefix('\t') {
        Some(text) if digits.len() < rest.len() => text,
        _ => row,
    }
}

/// Chars of the section the listing's plan leaves free (rounding, a
/// store's note).
const SECTION_SLACK: usize = 120;

/// The fewest chars the dense listing after signature lines is given.
const MIN_DENSE_CHARS: usize = 240;

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
    let defs: Vec<crate::render::outline::Def> = symbols.iter().map(Into::into).collect();
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

#[cfg(test)]
mod tests;
