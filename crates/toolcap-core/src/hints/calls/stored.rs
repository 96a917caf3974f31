//! The recovery calls on a stored result: a recovery tool, or `toolcap
//! continue` / `toolcap search` through the shell tool, as `[suggest]
//! recovery` says.

use serde_json::{Map, Value, json};

use super::Intent;
use crate::config::RecoveryCalls;
use crate::hints::{Context, Suggestion};
use crate::quote;
use crate::store::tools::{GET_CONTINUATION, SEARCH_TOOL_OUTPUT};

impl Context<'_> {
    /// The recovery call doing `intent` on the result stored under `id`, as
    /// `[suggest] recovery` says: a recovery tool (its name after a prefix), or
    /// `toolcap continue` / `toolcap search` through the shell tool. None for
    /// an intent only another tool can do (a shell command, a glob, a fetch).
    pub(super) fn stored_call(
        &self,
        id: &str,
        intent: &Intent,
        purpose: &str,
    ) -> Option<Suggestion> {
        let total = self.totals.lines;
        // (recovery tool, its arguments after the id, the same as CLI options)
        let (tool, pairs, cli): (&str, Vec<(&str, Value)>, Vec<String>) = match intent {
            Intent::Lines { start, end } => (
                GET_CONTINUATION,
                vec![("start_line", json!(start)), ("end_line", json!(end))],
                vec![format!("--start-line {start}"), format!("--end-line {end}")],
            ),
            Intent::Tail { n } => {
                let start = total + 1 - n.min(&total);
                (
                    GET_CONTINUATION,
                    vec![("start_line", json!(start)), ("end_line", json!(total))],
                    vec![
                        format!("--start-line {start}"),
                        format!("--end-line {total}"),
                    ],
                )
            }
            Intent::Chars { from_char, .. } => (
                GET_CONTINUATION,
                vec![("offset", json!(from_char))],
                vec![format!("--offset {from_char}")],
            ),
            Intent::Search(p) => {
                let word = quote::shell_word(&p.regex)?;
                let word = if p.regex.starts_with('-') {
                    format!("-- {word}")
                } else {
                    word
                };
                (
                    SEARCH_TOOL_OUTPUT,
                    vec![("pattern", Value::String(p.regex.clone()))],
                    vec![word],
                )
            }
            Intent::Symbol(name) => {
                let word = quote::shell_word(name)?;
                (
                    GET_CONTINUATION,
                    vec![("symbol", Value::String(name.clone()))],
                    vec![format!("--symbol {word}")],
                )
            }
            _ => return None,
        };
        let shell = &self.config.suggest.shell;
        match &self.config.suggest.recovery {
            RecoveryCalls::Cli { program, options } if !shell.tool.is_empty() => {
                let sub = if tool == SEARCH_TOOL_OUTPUT {
                    "search"
                } else {
                    "continue"
                };
                let id_word = quote::shell_word(id)?;
                let mut words = vec![program.clone(), sub.to_string()];
                if id.starts_with('-') {
                    // options first, the id after `--` (it would read as an option)
                    words.extend(cli);
                    if !options.is_empty() {
                        words.push(options.clone());
                    }
                    words.push(format!("-- {id_word}"));
                } else {
                    words.push(id_word);
                    if !options.is_empty() {
                        words.push(options.clone());
                    }
                    words.extend(cli);
                }
                let mut args = Map::new();
                let command = words.join(" ");
                let value = if shell.argv {
                    json!(["bash", "-lc", command])
                } else {
                    Value::String(command)
                };
                args.insert(shell.command.clone(), value);
                Some(Suggestion {
                    tool: shell.tool.clone(),
                    args,
                    purpose: purpose.to_string(),
                })
            }
            recovery => {
                let prefix = match recovery {
                    RecoveryCalls::Tools { prefix } => prefix.as_str(),
                    RecoveryCalls::Cli { .. } => "",
                };
                let mut args = Map::new();
                args.insert("tool_call_id".into(), Value::String(id.to_string()));
                for (k, v) in pairs {
                    args.insert(k.to_string(), v);
                }
                Some(Suggestion {
                    tool: format!("{prefix}{tool}"),
                    args,
                    purpose: purpose.to_string(),
                })
            }
        }
    }
}

/// The call reading the result stored under `id` from its first character, in
/// the form `config`'s `[suggest] recovery` gives every stored-result suggestion
/// (a recovery tool after its prefix, or `toolcap continue ID --offset 0` through
/// the shell tool): what a masked history entry names to get its result back.
/// `tool` is the tool that made the result, `size` the stored result's totals.
pub(crate) fn stored_read_call(
    config: &crate::config::Config,
    tool: &str,
    id: &str,
    size: crate::cut::index::Totals,
    purpose: &str,
) -> Option<Suggestion> {
    let idx = crate::cut::index::LineIndex::new("");
    let ctx = Context {
        tool,
        args: &Value::Null,
        entry: config.entry_for(tool),
        config,
        idx: &idx,
        cleaned: None,
        errors: None,
        cleaning: None,
        totals: size,
        kept: &[],
        gaps: &[],
        shown: "",
        prefix_bytes: None,
        outline: None,
        language: None,
        json: None,
        shown_json: None,
        whole: None,
        stored: Some(id),
        tally: None,
        decoded_from: None,
        everyday: None,
    };
    let intent = Intent::Chars {
        from_char: 0,
        from_byte: 0,
        bytes: size.bytes,
    };
    ctx.stored_call(id, &intent, purpose)
}
