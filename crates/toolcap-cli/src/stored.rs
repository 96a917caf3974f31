//! The stored-result commands: `continue`, `fetch`, `show`, `prune`, and where a
//! command finds its store and dialog.

use std::io::{self, Write};
use std::ops::ControlFlow;
use std::path::PathBuf;

use clap::Args;
use serde_json::json;
use toolcap_config::Config;
use toolcap_store::ResultStore;
use toolcap_store::continuation::{self, ChunkOptions, ToolReply, json_text};
use toolcap_store::lines;
use toolcap_store::tools::{
    FETCH_TOOL_OUTPUT, GET_CONTINUATION, QUERY_TOOL_OUTPUT, SEARCH_TOOL_OUTPUT,
};
use toolcap_store::{Expiry, Retention};
use toolcap_text::text::thousands;

use super::common::{Failure, load_config, other, usage, write_out};

// `toolcap serve`'s and `toolcap mcp`'s retention on a timer
#[cfg(any(feature = "server", feature = "mcp"))]
mod expire;
mod location;
mod reply;

#[cfg(any(feature = "server", feature = "mcp"))]
pub use expire::expire_periodically;
#[cfg(feature = "server")]
pub use location::store_location;
pub use location::{
    dialog_id, env_store, open_store, open_store_creating_dir, read_location, store_failure,
    store_path, try_open_store,
};
use location::{open_existing, open_to_read, read_target};
use reply::{ask, reply_in_cli_form, reply_out, said, symbols_in_cli_form};

/// Which store and dialog a read command looks in.
#[derive(Args)]
pub struct StoreArgs {
    /// The store: a SQLite file or a postgres:// URL (else $TOOLCAP_STORE, else the
    /// default path).
    #[arg(long, value_name = "PATH")]
    store: Option<PathBuf>,
    /// The dialog (thread) the result belongs to (else $TOOLCAP_DIALOG, else "default").
    #[arg(long, value_name = "D")]
    dialog: Option<String>,
    /// The config whose [store] keep and max_bytes this read honours (else
    /// $TOOLCAP_CONFIG, else the built-in ones): a result past them has expired.
    #[arg(long)]
    config: Option<PathBuf>,
}

impl StoreArgs {
    /// `--store PATH` and `--dialog D` as given, for a follow-up command.
    fn options(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(w) = self
            .store
            .as_deref()
            .and_then(|s| s.to_str())
            .and_then(toolcap_text::quote::shell_word)
        {
            out.push(format!("--store {w}"));
        }
        if let Some(w) = self
            .dialog
            .as_deref()
            .and_then(toolcap_text::quote::shell_word)
        {
            out.push(format!("--dialog {w}"));
        }
        if let Some(w) = self
            .config
            .as_deref()
            .and_then(|c| c.to_str())
            .and_then(toolcap_text::quote::shell_word)
        {
            out.push(format!("--config {w}"));
        }
        out
    }
}

#[derive(Args)]
pub struct ContinueArgs {
    /// The tool call id the result was stored under.
    id: String,
    /// Character offset to read from (default: right after what the model was shown).
    #[arg(long)]
    offset: Option<usize>,
    /// Characters per chunk (default: max_kept_chars of the config, 2000).
    #[arg(long, value_name = "N")]
    chunk: Option<usize>,
    /// End each chunk after its last whole line.
    #[arg(long)]
    lines: bool,
    /// Read whole lines from this line (1-based) instead of from a character offset.
    #[arg(long, value_name = "N", conflicts_with_all = ["offset", "lines"])]
    start_line: Option<usize>,
    /// With --start-line: the last line wanted (default: as many as fit in a chunk).
    #[arg(long, value_name = "N", requires = "start_line")]
    end_line: Option<usize>,
    /// A definition's lines by name ("parse", or "Parser.parse" for a method) in a
    /// stored source file; one larger than a reply lists its own definitions.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["offset", "lines", "start_line", "chunk", "outline"])]
    symbol: Option<String>,
    /// Every definition of a stored source file with its lines.
    #[arg(long, conflicts_with_all = ["offset", "lines", "start_line", "chunk"])]
    outline: bool,
    #[command(flatten)]
    at: StoreArgs,
}

#[derive(Args)]
pub struct SearchArgs {
    /// The tool call id the result was stored under.
    id: String,
    /// Regular expression (Rust regex syntax) the lines must match.
    pattern: String,
    /// Lines of context before and after each match (at most 5).
    #[arg(long, value_name = "N", default_value_t = 1)]
    context: usize,
    /// Most matching lines to show (default: as many as fit in one reply, 3,500 chars).
    #[arg(long = "max", value_name = "N")]
    max_matches: Option<usize>,
    /// Matching lines to skip first (to page through many).
    #[arg(long, value_name = "N", default_value_t = 0)]
    skip: usize,
    /// Match letters regardless of case.
    #[arg(long, short = 'i')]
    ignore_case: bool,
    /// Count --max and --skip from the last match backwards: the last matches
    /// (`--from-end --max 1`: the last one).
    #[arg(long)]
    from_end: bool,
    #[command(flatten)]
    at: StoreArgs,
}

#[derive(Args)]
pub struct FetchArgs {
    id: String,
    /// First character of the output to return.
    #[arg(long)]
    offset: Option<usize>,
    /// Most characters of the output to return.
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    #[command(flatten)]
    at: StoreArgs,
}

#[derive(Args)]
pub struct QueryArgs {
    /// The tool call id the result was stored under.
    id: String,
    /// Steps from the root: .key or ["key"], [0] ([-1] the last), [*], [key=value];
    /// "." is the whole document.
    path: String,
    #[command(flatten)]
    at: StoreArgs,
}

#[derive(Args)]
pub struct ShowArgs {
    id: String,
    /// Metadata only (ids, tool, arguments, sizes, truncated, created time).
    #[arg(long)]
    meta: bool,
    #[command(flatten)]
    at: StoreArgs,
}

#[derive(Args)]
pub struct PruneArgs {
    /// Expire the results older than this age (7d, 12h, 30m, 45s or 2w).
    #[arg(long, value_name = "AGE")]
    older_than: Option<String>,
    /// Expire the oldest results until the outputs left hold at most this many bytes
    /// (a number, or with a unit: 500MB, 1GiB).
    #[arg(long, value_name = "SIZE")]
    max_bytes: Option<String>,
    /// Delete every result of this dialog (thread), and the records of its expired ones.
    #[arg(long, value_name = "D")]
    dialog: Option<String>,
    /// The store: a SQLite file or a postgres:// URL (else $TOOLCAP_STORE, else the
    /// default path).
    #[arg(long, value_name = "PATH")]
    store: Option<PathBuf>,
    /// With no --older-than, --max-bytes or --dialog: the config whose [store] keep
    /// and max_bytes to apply (else $TOOLCAP_CONFIG, else the built-in ones).
    #[arg(long)]
    config: Option<PathBuf>,
}

pub fn continue_(a: ContinueArgs) -> Result<(), Failure> {
    let config = load_config(a.at.config.as_deref())?;
    if a.chunk == Some(0) {
        return Err(usage("--chunk 0: a chunk must hold at least 1 character"));
    }
    let opts = ChunkOptions {
        chunk_chars: a.chunk.unwrap_or(config.max_kept_chars),
        line_aligned: a.lines,
    };
    let (path, dialog) = read_target(&a.id, &a.at)?;
    let reply_chars = lines::DEFAULT_REPLY_CHARS.max(opts.chunk_chars);
    if a.symbol.is_some() || a.outline {
        let args = match &a.symbol {
            Some(name) => json!({"tool_call_id": a.id, "symbol": name}),
            None => json!({"tool_call_id": a.id, "outline": true}),
        };
        let cli = |r: ToolReply| symbols_in_cli_form(r, &a.id, &a.at.options());
        let reply = ask(&a.at, &path, &dialog, GET_CONTINUATION, &args, |s| {
            within_cli_form(
                reply_chars,
                |budget| match &a.symbol {
                    Some(name) => {
                        toolcap_store::symbols::get_symbol(s, &dialog, &a.id, name, budget)
                    }
                    None => toolcap_store::symbols::get_outline(s, &dialog, &a.id, budget),
                },
                cli,
            )
        })?;
        let reply = cli(reply);
        return reply_out(&reply, false, &a.id, &dialog, &path);
    }
    let args = json!({"tool_call_id": a.id, "offset": a.offset, "start_line": a.start_line, "end_line": a.end_line});
    let mut opts_given = a.at.options();
    if let Some(n) = a.chunk {
        opts_given.push(format!("--chunk {n}"));
    }
    if a.lines {
        opts_given.push("--lines".to_string());
    }
    let cli = |r: ToolReply| reply_in_cli_form(r, &a.id, None, &opts_given);
    let reply = ask(&a.at, &path, &dialog, GET_CONTINUATION, &args, |s| {
        match a.start_line {
            // what the model gets: a line reply fills the reply budget, unless --chunk asks
            // for chunk-sized pieces
            Some(start) if a.chunk.is_none() => within_cli_form(
                reply_chars,
                |budget| lines::get_line_range(s, &dialog, &a.id, start, a.end_line, budget),
                cli,
            ),
            Some(start) => lines::get_lines(s, &dialog, &a.id, start, a.end_line, opts.chunk_chars),
            None => continuation::get_continuation(s, &dialog, &a.id, a.offset, &opts),
        }
    })?;
    // a line range's closing marker gets a line end, as a chunk's marker does;
    // lines served to the end of the output end as the output does
    let marker = a.start_line.is_some() && reply.closing_note && !reply.text.ends_with('\n');
    let reply = cli(reply);
    reply_out(&reply, marker, &a.id, &dialog, &path)
}

/// The reply `tool` gives within the largest budget whose form as printed
/// (`cli`: the closing marker turned into the command that reads on, which
/// repeats the program, the store's options and the pattern) holds at most
/// `limit` chars: what is printed is what the budget counts.
fn within_cli_form(
    limit: usize,
    tool: impl Fn(usize) -> Result<ToolReply, toolcap_store::StoreError>,
    cli: impl Fn(ToolReply) -> ToolReply,
) -> Result<ToolReply, toolcap_store::StoreError> {
    let mut budget = limit;
    // (each round takes off what the last one was over: a few at most)
    for _ in 0..8 {
        let reply = tool(budget)?;
        let printed = toolcap_text::text::count_chars(&cli(reply.clone()).text);
        if printed <= limit || budget <= 1 {
            return Ok(reply);
        }
        budget = budget.saturating_sub(printed - limit).max(1);
    }
    tool(budget)
}

pub fn search(a: SearchArgs) -> Result<(), Failure> {
    if a.max_matches == Some(0) {
        return Err(usage("--max 0: show at least 1 matching line"));
    }
    let opts = lines::SearchOptions {
        context: a.context,
        max_matches: a.max_matches.unwrap_or(lines::DEFAULT_MAX_MATCHES),
        skip: a.skip,
        ignore_case: a.ignore_case,
        from_end: a.from_end,
    };
    let (path, dialog) = read_target(&a.id, &a.at)?;
    let args = json!({"tool_call_id": a.id, "pattern": a.pattern});
    let mut more = a.at.options();
    if a.context != 1 {
        more.push(format!("--context {}", a.context));
    }
    if let Some(n) = a.max_matches {
        more.push(format!("--max {n}"));
    }
    if a.ignore_case {
        more.push("-i".to_string());
    }
    let cli = |r: ToolReply| reply_in_cli_form(r, &a.id, Some(&a.pattern), &more);
    let reply = ask(&a.at, &path, &dialog, SEARCH_TOOL_OUTPUT, &args, |s| {
        match a.max_matches {
            // what the model gets when it names no max_matches
            None => within_cli_form(
                lines::DEFAULT_REPLY_CHARS,
                |budget| lines::search_within(s, &dialog, &a.id, &a.pattern, &opts, budget),
                cli,
            ),
            Some(_) => lines::search_tool_output(s, &dialog, &a.id, &a.pattern, &opts),
        }
    })?;
    let reply = cli(reply);
    reply_out(&reply, false, &a.id, &dialog, &path)
}

pub fn fetch(a: FetchArgs) -> Result<(), Failure> {
    if a.limit == Some(0) {
        return Err(usage("--limit 0: pass at least 1 character"));
    }
    let (path, dialog) = read_target(&a.id, &a.at)?;
    let args = json!({"tool_call_id": a.id, "offset": a.offset, "limit": a.limit});
    let reply = ask(&a.at, &path, &dialog, FETCH_TOOL_OUTPUT, &args, |s| {
        continuation::fetch_tool_output(s, &dialog, &a.id, a.offset, a.limit)
    })?;
    reply_out(&reply, true, &a.id, &dialog, &path)
}

pub fn query(a: QueryArgs) -> Result<(), Failure> {
    let (path, dialog) = read_target(&a.id, &a.at)?;
    let args = json!({"tool_call_id": a.id, "path": a.path});
    let reply = ask(&a.at, &path, &dialog, QUERY_TOOL_OUTPUT, &args, |s| {
        toolcap_store::query::query_tool_output(
            s,
            &dialog,
            &a.id,
            &a.path,
            lines::DEFAULT_REPLY_CHARS,
        )
    })?;
    reply_out(&reply, false, &a.id, &dialog, &path)
}

pub fn show(a: ShowArgs) -> Result<(), Failure> {
    let ShowArgs { id, meta, at } = a;
    let (path, dialog) = read_target(&id, &at)?;
    let missing = || {
        other(format!(
            "no result stored under id {} in dialog {} of {}; check the id, and pass --dialog D if it was stored under another dialog",
            json_text(&json!(id)),
            json_text(&json!(dialog)),
            path
        ))
    };
    let Some(s) = open_to_read(&at, &path)? else {
        return Err(missing());
    };
    // a result that expired says when and why, as the recovery tools do
    let missing = || match s.expired(&dialog, &id) {
        Ok(Some(gone)) => other(said(&continuation::expired_reply(&gone))),
        _ => missing(),
    };
    if meta {
        let m = s
            .meta(&dialog, &id)
            .map_err(|e| other(e.to_string()))?
            .ok_or_else(missing)?;
        return write_out(format!("{}\n", json_text(&m.show_json())).as_bytes());
    }
    // piece by piece: a stored output of any size is never held whole
    let mut out = io::stdout().lock();
    let mut failed = None;
    let found = s
        .stream_output(
            &dialog,
            &id,
            &mut |piece| match out.write_all(piece.as_bytes()) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => {
                    failed = Some(e);
                    ControlFlow::Break(())
                }
            },
        )
        .map_err(|e| other(e.to_string()))?;
    found.ok_or_else(missing)?;
    match failed.map_or_else(|| out.flush(), Err) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(other(format!("stdout: {e}"))),
    }
}

pub fn prune(a: PruneArgs) -> Result<(), Failure> {
    let PruneArgs {
        older_than,
        max_bytes,
        dialog,
        store,
        config,
    } = a;
    let keep = match &older_than {
        None => None,
        Some(a) => Some(toolcap_store::parse_age(a).ok_or_else(|| {
            usage(format!(
                "--older-than {a:?}: expected a number and a unit (s, m, h, d, w), like 7d or 12h"
            ))
        })?),
    };
    let max = match &max_bytes {
        None => None,
        Some(m) => Some(toolcap_store::retention::parse_size(m).ok_or_else(|| {
            usage(format!(
                "--max-bytes {m:?}: expected a whole number of bytes greater than 0, or a number and a unit (KB, MB, GB, KiB, MiB, GiB), like 500MB"
            ))
        })?),
    };
    if let Some(d) = &dialog {
        toolcap_store::validate_id("dialog id", d).map_err(|e| usage(format!("--dialog: {e}")))?;
    }
    // no flag: the configured retention
    let (retention, from_config) = if keep.is_none() && max.is_none() && dialog.is_none() {
        let c = load_config(config.as_deref())?;
        (Retention::of(&c.store), true)
    } else {
        (
            Retention {
                keep,
                max_bytes: max,
            },
            false,
        )
    };
    let path = read_location(store)?;
    let Some(s) = open_existing(&path)? else {
        return write_out(format!("no result store at {path}: nothing to prune\n").as_bytes());
    };
    let mut msg = String::new();
    if let Some(d) = &dialog {
        let n = s.delete_dialog(d).map_err(|e| other(e.to_string()))?;
        msg.push_str(&format!(
            "deleted {} of dialog {} from {path}\n",
            results(n),
            json_text(&json!(d)),
        ));
    }
    if !retention.is_unlimited() {
        let done = s.expire(&retention).map_err(|e| other(e.to_string()))?;
        msg.push_str(&expiry_note(&done, &retention, &path));
    } else if from_config {
        msg.push_str(
            "nothing to prune: [store] keep and max_bytes are \"off\" (see `toolcap config`); pass --older-than AGE, --max-bytes SIZE or --dialog D\n",
        );
    }
    write_out(msg.as_bytes())
}

/// What an expiry did, one line per limit: `pruned 1 result older than 7d from
/// PATH`, `pruned 2 results (1,234 bytes) to keep at most 1,000 bytes from PATH`.
fn expiry_note(done: &Expiry, r: &Retention, path: &toolcap_stores::Location) -> String {
    let mut out = String::new();
    if let Some(keep) = r.keep {
        let age =
            toolcap_store::retention::format_age_ms(toolcap_store::retention::duration_ms(keep));
        out.push_str(&format!(
            "pruned {} older than {age} from {path}\n",
            results(done.by_age)
        ));
    }
    if let Some(max) = r.max_bytes {
        out.push_str(&format!(
            "pruned {} to keep at most {} bytes from {path}\n",
            results(done.by_size),
            thousands(usize::try_from(max).unwrap_or(usize::MAX))
        ));
    }
    out
}

/// Apply the configuration's `[store]` retention to a store just opened to keep
/// results in; a failure is a warning on stderr (`who` names the command), and the
/// command goes on (a store that cannot be written fails on the write itself).
pub fn expire_on_open(s: &dyn ResultStore, config: &Config, who: &str) {
    let r = Retention::of(&config.store);
    if r.is_unlimited() {
        return;
    }
    if let Err(e) = s.expire(&r) {
        let _ = writeln!(
            io::stderr(),
            "toolcap {who}: expiring old results failed ({e}); going on without"
        );
    }
}

pub(crate) fn results(n: usize) -> String {
    format!("{n} result{}", if n == 1 { "" } else { "s" })
}
