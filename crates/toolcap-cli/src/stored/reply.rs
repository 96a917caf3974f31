//! A recovery tool's reply as the command line prints it: asked of the store,
//! printed as the model would get it, its closing marker turned into the
//! `toolcap` command that reads on.

use serde_json::json;
use toolcap_store::continuation::{ReplyError, ToolReply, json_text};
use toolcap_store::tools::{self, GET_CONTINUATION, SEARCH_TOOL_OUTPUT};
use toolcap_store::{ResultStore, StoreError};

use super::super::common::{Failure, other, usage, write_out};
use super::StoreArgs;
use super::location::open_to_read;

/// A recovery tool's reply from the store at `at`, added to its record (`name`
/// called with `args` in `dialog`, as the model would call it); where no store
/// exists yet, an empty one answers (with the tool's own "not found").
pub(super) fn ask(
    target: &StoreArgs,
    at: &toolcap_stores::Location,
    dialog: &str,
    name: &str,
    args: &serde_json::Value,
    tool: impl Fn(&dyn ResultStore) -> Result<ToolReply, StoreError>,
) -> Result<ToolReply, Failure> {
    match open_to_read(target, at)? {
        Some(s) => {
            let reply = tool(&*s).map_err(|e| other(e.to_string()))?;
            tools::record_call(&*s, dialog, name, args, &reply);
            Ok(reply)
        }
        None => tool(&toolcap_store::MemoryStore::new()).map_err(|e| other(e.to_string())),
    }
}

/// The message of an error reply (`{"error": "..."}`), else its whole text.
pub(super) fn said(reply: &ToolReply) -> String {
    serde_json::from_str::<serde_json::Value>(&reply.text)
        .ok()
        .and_then(|v| v["error"].as_str().map(str::to_string))
        .unwrap_or_else(|| reply.text.clone())
}

/// Print a recovery tool's reply as the model would get it; an error reply exits 1
/// (2 for a bad argument), with a note on stderr where it adds to the reply.
pub(super) fn reply_out(
    reply: &ToolReply,
    line_end: bool,
    id: &str,
    dialog: &str,
    path: &toolcap_stores::Location,
) -> Result<(), Failure> {
    // The text exactly; a line end after a marker or JSON, never after a final chunk.
    let mut text = reply.text.clone();
    if reply.is_error || reply.next_offset.is_some() || line_end {
        text.push('\n');
    }
    // a bad argument (a line past the end, an invalid pattern) is a usage error:
    // said once, on stderr, naming the fix
    if reply.is_error && matches!(reply.error, Some(ReplyError::BadArgument) | None) {
        return Err(usage(said(reply)));
    }

    write_out(text.as_bytes())?;
    if reply.is_error {
        let note = match reply.error {
            Some(ReplyError::PastEnd) => format!(
                "--offset: at or past the end of the result stored under id {}; pass a smaller offset (`toolcap show ID --meta` gives its size in chars)",
                json_text(&json!(id))
            ),
            Some(ReplyError::NotStored) => format!(
                "no result stored under id {} in dialog {} of {}{}; check the id, and pass --dialog D if it was stored under another dialog",
                json_text(&json!(id)),
                json_text(&json!(dialog)),
                path,
                path.missing_note()
            ),
            Some(ReplyError::StoreFailed | ReplyError::Expired) => said(reply),
            // (said above)
            Some(ReplyError::BadArgument) | None => return Err(usage(String::new())),
        };
        return Err(other(note));
    }
    Ok(())
}

/// A reply's closing marker in the CLI's own form: `Call get_continuation with
/// tool_call_id="ID" offset=N to read more` becomes ``Run `toolcap continue ID
/// --offset N` to read more``, and `Call search_tool_output with ... skip=N`
/// ``Run `toolcap search ID 'PATTERN' --skip N` ``: the caller is a shell, not a
/// model with recovery tools. `opts`: the options given, repeated in the command.
pub(super) fn reply_in_cli_form(
    mut reply: ToolReply,
    id: &str,
    pattern: Option<&str>,
    opts: &[String],
) -> ToolReply {
    let jid = json_text(&json!(id));
    let (prefix, sub) = match pattern {
        None => (
            format!("Call {GET_CONTINUATION} with tool_call_id={jid} "),
            "continue",
        ),
        Some(p) => (
            format!(
                "Call {SEARCH_TOOL_OUTPUT} with tool_call_id={jid} pattern={} ",
                json_text(&json!(p))
            ),
            "search",
        ),
    };
    let Some(at) = reply.text.rfind(&prefix) else {
        return reply;
    };
    let rest = &reply.text[at + prefix.len()..];
    let Some(to) = rest.find(" to ") else {
        return reply;
    };
    let mut flags = Vec::new();
    for pair in rest[..to].split(' ') {
        let flag = match pair.split_once('=') {
            Some(("offset", n)) => format!("--offset {n}"),
            Some(("start_line", n)) => format!("--start-line {n}"),
            Some(("end_line", n)) => format!("--end-line {n}"),
            Some(("skip", n)) => format!("--skip {n}"),
            Some(("from_end", "true")) => "--from-end".to_string(),
            // a marker this does not know: left as the tool's
            _ => return reply,
        };
        if !flag.ends_with(|c: char| c.is_ascii_digit()) && flag != "--from-end" {
            return reply;
        }
        flags.push(flag);
    }
    let Some(id_word) = toolcap_text::quote::shell_word(id) else {
        return reply;
    };
    let pat_word = match pattern {
        Some(p) => match toolcap_text::quote::shell_word(p) {
            Some(w) => Some(w),
            None => return reply,
        },
        None => None,
    };
    let mut words = vec![super::super::project::toolcap_program(), sub.to_string()];
    let positional: Vec<String> = std::iter::once(id_word).chain(pat_word).collect();
    if id.starts_with('-') || pattern.is_some_and(|p| p.starts_with('-')) {
        // options first, then `--` and the id (and pattern)
        words.extend(opts.iter().cloned());
        words.extend(flags);
        words.push("--".to_string());
        words.extend(positional);
    } else {
        // `toolcap continue ID --offset N`, `toolcap search ID 'pat' --skip N`
        words.extend(positional);
        words.extend(opts.iter().cloned());
        words.extend(flags);
    }
    let command = words.join(" ");
    let text = format!("{}Run `{command}`{}", &reply.text[..at], &rest[to..]);
    reply.text = text;
    reply
}

/// A `--symbol` / `--outline` reply in the CLI's own words: `symbol="Class.name"`
/// becomes `--symbol Class.name`, `start_line and end_line` `--start-line and
/// --end-line`, the outline call and the search named as the commands that make
/// them; a line range to read on as the command (see [`reply_in_cli_form`]).
pub(super) fn symbols_in_cli_form(mut reply: ToolReply, id: &str, opts: &[String]) -> ToolReply {
    let Some(id_word) = toolcap_text::quote::shell_word(id).filter(|_| !id.starts_with('-')) else {
        return reply;
    };
    let program = super::super::project::toolcap_program();
    let given = opts.iter().map(|o| format!(" {o}")).collect::<String>();
    let mut text = String::with_capacity(reply.text.len());
    let mut rest = reply.text.as_str();
    // symbol="NAME" (a name has no quote or space in it)
    while let Some(at) = rest.find("symbol=\"") {
        let after = &rest[at + "symbol=\"".len()..];
        match after.find('"') {
            Some(end) if !after[..end].contains([' ', '\\']) => {
                text.push_str(&rest[..at]);
                text.push_str("--symbol ");
                text.push_str(&after[..end]);
                rest = &after[end + 1..];
            }
            _ => break,
        }
    }
    text.push_str(rest);
    let jid = json_text(&json!(id));
    reply.text = text
        .replace("start_line and end_line", "--start-line and --end-line")
        .replace(
            "call get_continuation with outline=true",
            &format!("run `{program} continue {id_word}{given} --outline`"),
        )
        .replace(
            &format!("search_tool_output with tool_call_id={jid} finds them"),
            &format!("`{program} search {id_word}{given} PATTERN` finds them"),
        );
    reply_in_cli_form(reply, id, None, opts)
}
