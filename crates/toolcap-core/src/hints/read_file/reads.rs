//! read_file's reads of the omitted part that are not a range of lines: a
//! window of chars from inside a long line, and a search for a symbol's
//! mentions.

use super::{Off, Printed};
use crate::hints::{
    BytesOf, CharRange, Context, Intent, MentionsIn, Pattern, Purpose, Source, Suggestion,
};

/// Where a search of the result's lines runs, and how its line numbers read.
pub(super) struct Searched<'a> {
    pub(super) src: Source<'a>,
    pub(super) printed: Option<&'a Printed<'a>>,
    pub(super) off: Off,
}

/// Bytes to print from byte `from` of the file so that at most `budget` chars
/// come out and the last one is whole: `tail -c +A FILE | head -c N`, with the
/// chars and the line(s) it covers.
/// `src` is the file, or the command that printed the result (its output's
/// bytes then); line numbers are shown as the result's line + `off`.
pub(super) fn char_window(
    ctx: &Context<'_>,
    src: Source<'_>,
    off: Off,
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
    let (line, end_line) = (off.line(line), off.line(end_line));
    let from_char = crate::text::count_chars(&text[..from]);
    let range = if ctx.stored() {
        CharRange::Stored {
            from_char,
            total: ctx.totals.chars,
        }
    } else {
        // a file decoded from a legacy encoding is read through iconv: the
        // bytes are of its UTF-8 text, and said so
        let of = match ctx.decoded_from {
            Some(_) => BytesOf::Utf8,
            None if matches!(src, Source::Reprint(_)) => BytesOf::Output,
            None => BytesOf::File,
        };
        CharRange::Bytes {
            from,
            len,
            total: ctx.totals.bytes,
            of,
        }
    };
    let what = Purpose::CharsAfterCut {
        chars,
        at: (line, col, end_line, end_col),
        range,
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

/// A search for every line mentioning `name`: through the store when the
/// result is kept, else with the harness's grep tool or `grep -n -F` through
/// the shell (lines printed from inside a file: `grep -n -F` over the file,
/// kept to those lines with `awk`; a command run again: its output piped into
/// `grep -n -F`); none when those lines would not come back whole (over
/// `budget` chars as `grep -n` prints them).
pub(super) fn grep_symbol(
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
                c + off.line(i + 1).to_string().len() + 2 + ctx.idx.line(i).chars().count(),
            )
        });
    if lines == 0 || chars > budget {
        return None;
    }
    let total = ctx.totals.lines;
    // the pattern is the name as it is: `_$ZodTypeInternals` must not anchor
    match (search.printed, search.src) {
        // lines A-B of the file: the file's lines that mention it, kept to those
        (Some(p), Source::File(path)) if !ctx.stored() && !p.whole_file() => {
            let (a, b) = (off.line(1), off.line(total));
            let command = format!(
                "{} {} | awk -F: '$1 >= {a} && $1 <= {b}'",
                Pattern::fixed(name).shell?,
                crate::quote::shell_path(path)?
            );
            ctx.offer(
                search.src,
                Intent::Shell(command),
                Purpose::Mentions {
                    name: name.to_string(),
                    lines,
                    within: MentionsIn::Lines(a, b),
                },
            )
        }
        (Some(_), Source::Reprint(_)) if !ctx.stored() => ctx.offer(
            search.src,
            Intent::Search(Pattern::fixed(name)),
            Purpose::Mentions {
                name: name.to_string(),
                lines,
                within: MentionsIn::Rerun,
            },
        ),
        _ => ctx.offer(
            search.src,
            Intent::Search(Pattern::fixed(name)),
            Purpose::Mentions {
                name: name.to_string(),
                lines,
                within: MentionsIn::File,
            },
        ),
    }
}
