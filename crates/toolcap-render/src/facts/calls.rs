//! The words of the purposes of a listing's, a page's, a JSON document's, a
//! search's and binary data's reads, from their numbers.

use std::fmt;

use super::parts::{BinaryOf, Look};
use super::purpose::Purpose;
use crate::quote;
use crate::text::{ellipsize, plural, thousands};

/// What a call that runs a command again says first.
fn rerun_head(rerun: bool) -> &'static str {
    if rerun { "re-runs the command; " } else { "" }
}

/// The purposes of a file listing's and a page's reads.
pub(super) fn write_listing(p: &Purpose, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let chars = |n: usize| plural(n, "char", "chars");
    let page = |stored: bool| {
        if stored {
            "of the stored page"
        } else {
            "of the saved page"
        }
    };
    match p {
        Purpose::OnlyUnder {
            dir,
            items,
            files,
            chars: c,
        } => {
            let (one, many) = if *files {
                ("file", "files")
            } else {
                ("path", "paths")
            };
            write!(
                f,
                "only under {dir}/ ({}, {} in this listing)",
                plural(*items, one, many),
                chars(*c)
            )
        }
        Purpose::OnlyExtension {
            ext,
            paths,
            chars: c,
        } => write!(
            f,
            "only .{ext} files ({}, {} in this listing)",
            plural(*paths, "path", "paths"),
            chars(*c)
        ),
        Purpose::SavePage { file, then_search } => {
            write!(f, "save the whole page to {file}")?;
            if *then_search {
                f.write_str(" (then search it with the commands below)")?;
            }
            Ok(())
        }
        Purpose::FindSection { label, line, lines } => write!(
            f,
            "find the section {}, the first heading cut off that few lines mention (line {line} \
             here; on {} of this page)",
            quote::json_string(&ellipsize(label, 60)),
            plural(*lines, "line", "lines")
        ),
        Purpose::PageLines {
            start,
            end,
            chars: c,
            stored,
        } => write!(
            f,
            "lines {start}-{end} {}, right after the cut ({})",
            page(*stored),
            chars(*c)
        ),
        Purpose::PageLineStart {
            line,
            chars: c,
            stored,
            span: (a, b),
        } => write!(
            f,
            "the first {} of line {line} {}, right after the cut ({} {}-{})",
            chars(*c),
            page(*stored),
            if *stored { "chars" } else { "bytes" },
            thousands(*a),
            thousands(*b)
        ),
        _ => Ok(()),
    }
}

/// The purposes of the reads of a JSON document a command printed.
pub(super) fn write_jq(p: &Purpose, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match p {
        Purpose::JqKeys {
            rerun,
            path,
            first,
            keys,
            chars,
        } => {
            f.write_str(rerun_head(*rerun))?;
            if first == keys {
                write!(f, "the {} keys", thousands(*first))?;
            } else {
                write!(
                    f,
                    "the first {} of its {} keys",
                    thousands(*first),
                    thousands(*keys)
                )?;
            }
            write!(
                f,
                " of {path} in order ({}); then ask for one with jq -c '{path}.KEY'",
                plural(*chars, "char", "chars")
            )
        }
        Purpose::JqItems {
            rerun,
            path,
            from,
            to,
            len,
            chars,
        } => {
            write!(
                f,
                "{}items {from}-{} (0-based) of the {} in {path}: {}",
                rerun_head(*rerun),
                to - 1,
                thousands(*len),
                plural(to - from, "item", "items")
            )?;
            if let Some(c) = chars {
                write!(f, ", {}", plural(*c, "char", "chars"))?;
            }
            Ok(())
        }
        Purpose::JqNames {
            rerun,
            path,
            key,
            items,
            chars,
        } => write!(
            f,
            "{}the {} of all {} items in {path} ({})",
            rerun_head(*rerun),
            quote::json_string(key),
            thousands(*items),
            plural(*chars, "char", "chars")
        ),
        Purpose::JqTopKeys { rerun, keys } => write!(
            f,
            "{}each of the {} top-level keys with the size of its value",
            rerun_head(*rerun),
            thousands(*keys)
        ),
        _ => Ok(()),
    }
}

/// The purposes of a web search's follow-ups and of a look at binary data.
pub(super) fn write_web(p: &Purpose, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let what = |t: &Option<String>| {
        t.as_deref()
            .map_or_else(String::new, |t| format!(": {}", ellipsize(t, 60)))
    };
    match p {
        Purpose::SameSearchOn { domain, results } => write!(
            f,
            "the same search limited to {domain} ({} of these results)",
            thousands(*results)
        ),
        Purpose::ExactPhrase => f.write_str("the exact phrase only"),
        Purpose::FetchResult { n, title } => {
            write!(f, "result {n}, the first one cut off{}", what(title))
        }
        Purpose::ResultHead { bytes, n, title } => write!(
            f,
            "the first {} bytes of result {n}, the first one cut off{}",
            thousands(*bytes),
            what(title)
        ),
        Purpose::Binary { look, of } => write_binary(*look, *of, f),
        _ => Ok(()),
    }
}

/// `the first 100 printable strings in the file`.
fn write_binary(look: Look, of: BinaryOf, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    if of == BinaryOf::Output {
        f.write_str(rerun_head(true))?;
    }
    match look {
        Look::Hex { bytes } => {
            let whose = match of {
                BinaryOf::Stored => "the stored output",
                BinaryOf::File => "the file",
                BinaryOf::Output => "its output",
            };
            write!(f, "the first {} bytes of {whose} in hex", thousands(bytes))
        }
        Look::Strings { count } => {
            let whose = match of {
                BinaryOf::Stored => "of the stored output",
                BinaryOf::File => "in the file",
                BinaryOf::Output => "of its output",
            };
            write!(
                f,
                "the first {} printable strings {whose}",
                thousands(count)
            )
        }
    }
}
