//! The words of the facts and notes of listings, search results, pages,
//! other tools' and binary results, and of the facts every family shares
//! (encoding, cleaning, tokens, where the full result is stored).

use std::fmt;

use super::{Fact, Note};
use crate::config::{RecoveryCalls, Suggest};
use crate::quote;
use crate::text::{ellipsize, plural, thousands};

/// Chars of a pattern, a listed path or a page's title shown in a fact.
const ARG_CHARS: usize = 120;

/// Domains named in the domains fact (the rest are counted).
const DOMAINS_SHOWN: usize = 8;

/// Why a result was taken for binary: `1,204 NUL chars and 3,310 non-text
/// chars in the first 8,192`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Evidence {
    /// NUL characters in the sample.
    pub nul: usize,
    /// Non-text characters in the sample (NULs included).
    pub non_text: usize,
    /// Characters looked at.
    pub sample: usize,
}

impl fmt::Display for Evidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::notes::binary_evidence(
            self.nul,
            self.non_text,
            self.sample,
        ))
    }
}

/// How a stored result is read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadBack {
    /// By the `PROGRAM continue ID [OPTIONS]` command (recovery through the
    /// shell tool).
    Command(String),
    /// By a recovery tool under this name prefix.
    Tool(String),
}

/// How the result stored under `id` is read back, as `[suggest] recovery`
/// says.
pub fn read_back(s: &Suggest, id: &str) -> ReadBack {
    match &s.recovery {
        RecoveryCalls::Cli { program, options }
            if !s.shell.tool.is_empty() && !id.starts_with('-') =>
        {
            let id_word = quote::shell_word(id).unwrap_or_else(|| quote::json_string(id));
            let opts = if options.is_empty() {
                String::new()
            } else {
                format!(" {options}")
            };
            ReadBack::Command(format!("{program} continue {id_word}{opts}"))
        }
        RecoveryCalls::Tools { prefix } => ReadBack::Tool(prefix.clone()),
        RecoveryCalls::Cli { .. } => ReadBack::Tool(String::new()),
    }
}

/// The fact saying where the full result is kept and how to read on from char
/// `offset` (where the shown part stops): `The full result is stored. Call
/// get_continuation with tool_call_id="ID" offset=N to read more`, the tool
/// named as `[suggest] recovery` says, or the `toolcap continue ID` command.
pub fn stored_fact(s: &Suggest, id: &str, offset: usize) -> Fact {
    Fact::Stored {
        id: id.to_string(),
        offset,
        read: read_back(s, id),
    }
}

/// The facts of `results.rs`' variants.
pub(super) fn write_fact(fact: &Fact, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match fact {
        Fact::Paths {
            pattern,
            path,
            shown,
            total,
        } => {
            if let Some(p) = pattern {
                write!(f, "Pattern: {} | ", ellipsize(p, ARG_CHARS))?;
            }
            if let Some(p) = path {
                write!(f, "Path: {} | ", ellipsize(p, ARG_CHARS))?;
            }
            write!(f, "{shown} shown of {}", plural(*total, "path", "paths"))
        }
        Fact::SearchResults {
            query,
            shown,
            total,
            format,
        } => {
            if let Some(q) = query {
                write!(f, "Query: {} | ", ellipsize(&quote::json_string(q), 160))?;
            }
            write!(
                f,
                "{shown} shown of {} ({format})",
                plural(*total, "result", "results")
            )
        }
        Fact::Domains(domains) => {
            write!(f, "Domains ({}): ", thousands(domains.len()))?;
            for (i, (d, n)) in domains.iter().take(DOMAINS_SHOWN).enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{d} ({})", thousands(*n))?;
            }
            if domains.len() > DOMAINS_SHOWN {
                write!(f, ", and {} more", thousands(domains.len() - DOMAINS_SHOWN))?;
            }
            Ok(())
        }
        Fact::Page { title, url } => {
            let mut head = Vec::new();
            if let Some(t) = title {
                head.push(format!("Page: {}", ellipsize(t, ARG_CHARS)));
            }
            if let Some(u) = url {
                head.push(format!("URL: {}", ellipsize(u, 200)));
            }
            f.write_str(&head.join(" | "))
        }
        Fact::PageSize { size, html } => {
            write!(f, "Size: {size} | {}", if *html { "HTML" } else { "text" })
        }
        Fact::ToolResult { tool, size } => {
            write!(f, "Tool: {} | Result: {size}", ellipsize(tool, 80))
        }
        Fact::Binary {
            tool,
            what,
            chars,
            evidence,
        } => write!(
            f,
            "Binary result from {}: {what} | {} | {evidence}",
            ellipsize(tool, 80),
            plural(*chars, "char", "chars"),
        ),
        Fact::Decoded { encoding, iconv } => write!(
            f,
            "Encoding: {encoding}, decoded to UTF-8 (chars and lines counted in the decoded \
             text; a command reading the file itself reads {encoding} bytes: pipe it through \
             iconv -f {iconv} -t UTF-8 to search it)"
        ),
        Fact::Cleaned { what } => write!(f, "Cleaned before cutting: {what}"),
        Fact::Tokens { unit, total, kept } => write!(
            f,
            "Tokens ({unit}): {} in all; up to {} kept",
            thousands(*total),
            thousands(*kept)
        ),
        Fact::Stored { id, offset, read } => match read {
            ReadBack::Command(command) => write!(
                f,
                "The full result is stored. Run `{command}` to read more (from char {offset})"
            ),
            ReadBack::Tool(prefix) => write!(
                f,
                "The full result is stored. Call {prefix}get_continuation with tool_call_id={} \
                 offset={offset} to read more",
                quote::json_string(id),
            ),
        },
        _ => Ok(()),
    }
}

/// The notes of `results.rs`' variants.
pub(super) fn write_note(note: &Note, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match note {
        Note::NoUrl => f.write_str(
            "The URL is not in the tool arguments; pass it as `url` to get runnable suggestions.",
        ),
        Note::NoQuery => f.write_str(
            "The query is not in the tool arguments; pass it as `query` to get refined searches.",
        ),
        Note::JsonDocument => f.write_str(
            "The output is one JSON document, shown shortened as valid JSON: jq paths reach its \
             parts (line ranges do not).",
        ),
        // The call's own arguments are not repeated (`this call: ...`): the
        // model wrote them, and on the next-use benchmark (issue 43 item 7) they
        // held none of the 447 facts agents used next in 490 views, at 97 chars
        // a view.
        Note::CallAgain { tool, .. } => write!(
            f,
            "To see other parts, call {} again with narrower arguments.",
            ellipsize(tool, 80)
        ),
        Note::BinaryUnkept => f.write_str(
            "The output is not text and could not be kept, so nothing of it can be read back; \
             the command is not suggested again (it may have effects).",
        ),
        Note::BinaryNoText { tool, hex } => write!(
            f,
            "The result is not text; call {} again with arguments that return text, or save \
             the data to a file and inspect it with `{hex} FILE`.",
            ellipsize(tool, 80)
        ),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::facts::Size;

    #[test]
    fn where_the_full_result_is_stored_is_data_until_written() {
        let mut s = Config::defaults().suggest;
        s.recovery = RecoveryCalls::Tools {
            prefix: "mcp__toolcap__".into(),
        };
        let f = stored_fact(&s, "call \"1\"", 2000);
        assert_eq!(
            f,
            Fact::Stored {
                id: "call \"1\"".into(),
                offset: 2000,
                read: ReadBack::Tool("mcp__toolcap__".into()),
            }
        );
        assert_eq!(
            f.to_string(),
            "The full result is stored. Call mcp__toolcap__get_continuation with \
             tool_call_id=\"call \\\"1\\\"\" offset=2000 to read more"
        );
        s.recovery = RecoveryCalls::Cli {
            program: "toolcap".into(),
            options: String::new(),
        };
        s.shell.tool = "Bash".into();
        let f = stored_fact(&s, "call-1", 12);
        assert_eq!(
            f.to_string(),
            "The full result is stored. Run `toolcap continue call-1` to read more (from char 12)"
        );
    }

    #[test]
    fn shared_facts_in_words() {
        let t = Fact::Tokens {
            unit: "o200k_base".into(),
            total: 9120,
            kept: 500,
        };
        assert_eq!(
            t.to_string(),
            "Tokens (o200k_base): 9,120 in all; up to 500 kept"
        );
        let g = Fact::ToolResult {
            tool: "lookup".into(),
            size: Size {
                lines: 1,
                chars: 78_338,
            },
        };
        assert_eq!(g.to_string(), "Tool: lookup | Result: 1 line, 78,338 chars");
        let n = Note::CallAgain {
            tool: "lookup".into(),
            args: Vec::new(),
        };
        assert_eq!(
            n.to_string(),
            "To see other parts, call lookup again with narrower arguments."
        );
    }
}
