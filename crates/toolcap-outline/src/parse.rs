//! Parsing within the outline's limits: the size cap and the budget, and
//! the prefix outlined when the whole source does not fit them.

use std::cell::RefCell;
use std::ops::ControlFlow;

use tree_sitter::{ParseOptions, Parser};

use super::languages::{compiled_query, prepare};
use super::recover::contain;
use super::walk::{collect, nest};
use super::{Language, LineSpan, Options, Outline, OutlineError, Stop};

/// Parser work per millisecond of [`Options::budget`]. The budget is
/// counted in the parser's own work (tree-sitter calls its progress callback
/// once per 100 parse operations; one call is one unit), never in wall time,
/// so the same source, language and options give the same outline on every
/// run and every machine. Measured here with `parse_work_rate` (the unit
/// tests; fastest of 5 runs, on 2 cores under a load average of 12): 16-22
/// units per ms on PHP, Python, Rust and C sources of 80-330 KB (84-230
/// bytes per unit), about twice that unloaded.
pub(super) const WORK_PER_MS: u64 = 40;

/// The parser work a budget allows.
pub(super) fn work_for(budget: std::time::Duration) -> u64 {
    u64::try_from(budget.as_millis())
        .unwrap_or(u64::MAX)
        .saturating_mul(WORK_PER_MS)
}

pub(super) fn compute(
    source: &str,
    lang: Language,
    options: &Options,
) -> Result<Outline, OutlineError> {
    let language = lang.name();
    let compiled = compiled_query(lang)?;
    let blanked = prepare(source, lang);
    let source: &str = &blanked;
    let mut parser = KeptParser::take(lang)?;
    let parser = parser.get();
    let lines = count_lines(source);
    let mut stopped_by = None;
    let mut end = source.len();
    if end > options.max_bytes {
        end = top_level_boundary(source, options.max_bytes);
        stopped_by = Some(Stop::SizeCap);
    }
    // A source up to `always_bytes` is outlined whole, whatever the budget.
    // A larger one gets the budget's work for the whole source; if that is
    // not enough, the first half of what the parser got through in it (cut
    // at a boundary) is outlined: about half the budget again.
    let work = options
        .budget
        .filter(|_| end > options.always_bytes)
        .map(|b| work_for(b).max(1));
    let tree = match parse_within(parser, &source[..end], work, None) {
        Parsed::Tree(tree) => Some(tree),
        Parsed::Failed => return Err(OutlineError::Parse { language }),
        Parsed::Stopped { reached } => {
            stopped_by = Some(Stop::TimeBudget);
            parser.reset();
            end = top_level_boundary(source, (reached / 2).min(end));
            // Parsing a prefix again costs about what reaching its end cost
            // the first time: half the budget, or the whole of it with the
            // error recovery at the cut.
            match parse_within(parser, &source[..end], work, None) {
                Parsed::Tree(tree) => Some(tree),
                Parsed::Failed => return Err(OutlineError::Parse { language }),
                Parsed::Stopped { reached } => {
                    // The prefix costs more than its share (error recovery):
                    // outline half of what the parser got through.
                    parser.reset();
                    end = top_level_boundary(source, reached / 2);
                    match parse_within(parser, &source[..end], None, None) {
                        Parsed::Tree(tree) => Some(tree),
                        _ => None,
                    }
                }
            }
        }
    };
    let Some(tree) = tree else {
        return Ok(Outline {
            language,
            lines,
            partial: true,
            covered_lines: 0,
            stopped_by,
            syntax_errors: false,
            best_effort: Vec::new(),
            symbols: Vec::new(),
        });
    };
    let prefix = &source[..end];
    let syntax_errors = tree.root_node().has_error();
    // With errors, each is contained to the statement it sits in (see
    // `super::recover`); the outline is of the source with those blanked.
    // The re-parses share one budget's work, whatever the source's size:
    // containing costs at most about one more budget of parsing.
    let mut recover_work = options.budget.map(|b| work_for(b).max(1));
    let (tree, contained, best_effort) = if syntax_errors {
        let c = contain(
            prefix,
            tree,
            |text, old| {
                parser.reset();
                let (parsed, done) = parse_counted(parser, text, recover_work, Some(old));
                if let Some(left) = &mut recover_work {
                    *left = left.saturating_sub(done);
                }
                match parsed {
                    Parsed::Tree(tree) => Some(tree),
                    Parsed::Stopped { .. } | Parsed::Failed => None,
                }
            },
            |tree, text| nest(collect(compiled, tree.root_node(), text), lang),
        );
        let spans = c
            .best_effort
            .iter()
            .map(|&(a, b)| LineSpan {
                start: a + 1,
                end: b + 1,
            })
            .collect();
        (c.tree, Some(c.text), spans)
    } else {
        (tree, None, Vec::new())
    };
    let outlined: &str = contained.as_deref().unwrap_or(prefix);
    let root = tree.root_node();
    let defs = collect(compiled, root, outlined);
    let covered_lines = if end == source.len() {
        lines
    } else {
        // The prefix ends at a line start: its lines are whole.
        count_lines(prefix)
    };
    let mut symbols = nest(defs, lang);
    if covered_lines < lines {
        // A definition still open at the cut (a class holding the rest of
        // the file) ends beyond the covered lines: say so by its end at the
        // last covered line, never before.
        for s in &mut symbols {
            s.end_line = s.end_line.min(covered_lines).max(s.line);
        }
    }
    Ok(Outline {
        language,
        lines,
        partial: covered_lines < lines,
        covered_lines,
        stopped_by: if covered_lines < lines {
            stopped_by
        } else {
            None
        },
        syntax_errors,
        best_effort,
        symbols,
    })
}

thread_local! {
    /// This thread's parser, kept from one outline to the next with the
    /// language it is set to, so an outline parses with the same work as a
    /// bare parse with a parser at hand (creating and freeing one per outline
    /// showed as up to 5% of outlining 1 MB, much of it glibc consolidating
    /// the chunks the tree freed).
    static PARSER: RefCell<Option<(Language, Parser)>> = const { RefCell::new(None) };
}

/// This thread's kept parser (or a new one) set to a language, put back
/// when dropped.
struct KeptParser {
    lang: Language,
    parser: Option<Parser>,
}

impl KeptParser {
    fn take(lang: Language) -> Result<KeptParser, OutlineError> {
        let kept = PARSER
            .try_with(|p| p.try_borrow_mut().ok().and_then(|mut p| p.take()))
            .ok()
            .flatten();
        let parser = match kept {
            Some((kept_lang, mut parser)) if kept_lang == lang => {
                parser.reset();
                parser
            }
            kept => {
                let mut parser = kept.map_or_else(Parser::new, |(_, p)| p);
                parser.reset();
                parser
                    .set_language(&(lang.spec().grammar)())
                    .map_err(|e| OutlineError::grammar(lang, e))?;
                parser
            }
        };
        Ok(KeptParser {
            lang,
            parser: Some(parser),
        })
    }

    fn get(&mut self) -> &mut Parser {
        self.parser.get_or_insert_with(Parser::new)
    }
}

impl Drop for KeptParser {
    fn drop(&mut self) {
        if let Some(parser) = self.parser.take() {
            let _ = PARSER.try_with(|p| {
                if let Ok(mut p) = p.try_borrow_mut() {
                    *p = Some((self.lang, parser));
                }
            });
        }
    }
}

pub(super) enum Parsed {
    Tree(tree_sitter::Tree),
    /// The deadline passed after the parser had read this many bytes.
    Stopped {
        reached: usize,
    },
    Failed,
}

/// Parse `text`, giving up after `work` units of parser work (see
/// [`WORK_PER_MS`]); incrementally when given the `old` tree, edited to
/// match `text`.
pub(super) fn parse_within(
    parser: &mut Parser,
    text: &str,
    work: Option<u64>,
    old: Option<&tree_sitter::Tree>,
) -> Parsed {
    parse_counted(parser, text, work, old).0
}

/// [`parse_within`], with the units of work the parse took.
fn parse_counted(
    parser: &mut Parser,
    text: &str,
    work: Option<u64>,
    old: Option<&tree_sitter::Tree>,
) -> (Parsed, u64) {
    let bytes = text.as_bytes();
    let mut reached = 0usize;
    let mut done = 0u64;
    let mut stopped = false;
    let mut progress = |state: &tree_sitter::ParseState| {
        done += 1;
        if work.is_some_and(|w| done > w) {
            reached = state.current_byte_offset();
            stopped = true;
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let options = ParseOptions::new().progress_callback(&mut progress);
    let tree = parser.parse_with_options(
        &mut |i, _| bytes.get(i..).unwrap_or(&[]),
        old,
        Some(options),
    );
    let parsed = match tree {
        Some(tree) => Parsed::Tree(tree),
        None if stopped => Parsed::Stopped { reached },
        None => Parsed::Failed,
    };
    (parsed, done)
}

/// A byte offset at most `limit` where a construct starts at the outermost
/// level found near it: the start of a line that does not close a block,
/// with the least indentation among the lines in the last half of `limit`
/// (at most 1 MiB back), preferably after a blank line, and then the nearest
/// to `limit`. Definitions before it are whole; in a file whose definitions
/// are all inside one block (a class, a namespace, `declare module`), the cut
/// falls between two members of that block rather than before the block.
/// Depends on the text alone.
pub fn top_level_boundary(source: &str, limit: usize) -> usize {
    if limit >= source.len() {
        return source.len();
    }
    let bytes = source.as_bytes();
    // Line starts at or before `limit`, scanning backwards.
    let line_start_before = |mut i: usize| {
        while i > 0 && bytes.get(i - 1) != Some(&b'\n') {
            i -= 1;
        }
        i
    };
    // The indentation of the line starting at `i`, if it opens a construct
    // (not blank, not closing a block).
    let opening_indent = |i: usize| {
        let rest = bytes.get(i..).unwrap_or(&[]);
        let indent = rest
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        match rest.get(indent) {
            Some(b) if !b.is_ascii_whitespace() && !matches!(b, b'}' | b')' | b']') => Some(indent),
            _ => None,
        }
    };
    let previous_blank = |i: usize| {
        if i == 0 {
            return true;
        }
        let p = line_start_before(i - 1);
        bytes
            .get(p..i)
            .is_some_and(|l| l.iter().all(u8::is_ascii_whitespace))
    };
    let first = line_start_before(limit);
    let floor = first.saturating_sub((limit / 2).min(1 << 20));
    // (indent, not after a blank line, offset): the least wins; ties go to
    // the first seen, the nearest to `limit`.
    let mut best: Option<(usize, bool, usize)> = None;
    let mut i = first;
    loop {
        if let Some(indent) = opening_indent(i) {
            let key = (indent, !previous_blank(i), i);
            if best.is_none_or(|b| (key.0, key.1) < (b.0, b.1)) {
                best = Some(key);
                if key.0 == 0 && !key.1 {
                    break;
                }
            }
        }
        if i <= floor || i == 0 {
            break;
        }
        i = line_start_before(i - 1);
    }
    best.map_or(first, |(_, _, i)| i)
}

pub(super) fn count_lines(source: &str) -> usize {
    let newlines = memchr::memchr_iter(b'\n', source.as_bytes()).count();
    if source.is_empty() || source.ends_with('\n') {
        newlines
    } else {
        newlines + 1
    }
}
