//! The stored-result commands: `continue`, `fetch`, `show`, `prune`, and where a
//! command finds its store and dialog.

use std::io::{self, Write};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;

use std::time::Duration;

use clap::Args;
use serde_json::json;
use toolcap::Config;
use toolcap::bind;
use toolcap::internals::thousands;
use toolcap::store::continuation::{self, ChunkOptions, ReplyError, ToolReply, json_text};
use toolcap::store::lines;
use toolcap::store::retention::Ticker;
use toolcap::store::tools::{
    self, FETCH_TOOL_OUTPUT, GET_CONTINUATION, QUERY_TOOL_OUTPUT, SEARCH_TOOL_OUTPUT,
};
use toolcap::store::{self, ResultStore};
use toolcap::store::{Expiry, Retention, StoreError};

use super::common::{Failure, load_config, other, usage, write_out};

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
            .and_then(toolcap::internals::shell_word)
        {
            out.push(format!("--store {w}"));
        }
        if let Some(w) = self
            .dialog
            .as_deref()
            .and_then(toolcap::internals::shell_word)
        {
            out.push(format!("--dialog {w}"));
        }
        if let Some(w) = self
            .config
            .as_deref()
            .and_then(|c| c.to_str())
            .and_then(toolcap::internals::shell_word)
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
        let reply = ask(
            &a.at,
            &path,
            &dialog,
            GET_CONTINUATION,
            &args,
            |s| match &a.symbol {
                Some(name) => store::symbols::get_symbol(s, &dialog, &a.id, name, reply_chars),
                None => store::symbols::get_outline(s, &dialog, &a.id, reply_chars),
            },
        )?;
        let reply = symbols_in_cli_form(reply, &a.id, &a.at.options());
        return reply_out(&reply, false, &a.id, &dialog, &path);
    }
    let args = json!({"tool_call_id": a.id, "offset": a.offset, "start_line": a.start_line, "end_line": a.end_line});
    let reply = ask(&a.at, &path, &dialog, GET_CONTINUATION, &args, |s| {
        match a.start_line {
            // what the model gets: a line reply fills the reply budget, unless --chunk asks
            // for chunk-sized pieces
            Some(start) if a.chunk.is_none() => {
                lines::get_line_range(s, &dialog, &a.id, start, a.end_line, reply_chars)
            }
            Some(start) => lines::get_lines(s, &dialog, &a.id, start, a.end_line, opts.chunk_chars),
            None => continuation::get_continuation(s, &dialog, &a.id, a.offset, &opts),
        }
    })?;
    // a line range's closing marker gets a line end, as a chunk's marker does;
    // lines served to the end of the output end as the output does
    let marker = a.start_line.is_some() && reply.closing_note && !reply.text.ends_with('\n');
    let mut opts = a.at.options();
    if let Some(n) = a.chunk {
        opts.push(format!("--chunk {n}"));
    }
    if a.lines {
        opts.push("--lines".to_string());
    }
    let reply = reply_in_cli_form(reply, &a.id, None, &opts);
    reply_out(&reply, marker, &a.id, &dialog, &path)
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
    let reply = ask(&a.at, &path, &dialog, SEARCH_TOOL_OUTPUT, &args, |s| {
        match a.max_matches {
            // what the model gets when it names no max_matches
            None => lines::search_within(
                s,
                &dialog,
                &a.id,
                &a.pattern,
                &opts,
                lines::DEFAULT_REPLY_CHARS,
            ),
            Some(_) => lines::search_tool_output(s, &dialog, &a.id, &a.pattern, &opts),
        }
    })?;
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
    let reply = reply_in_cli_form(reply, &a.id, Some(&a.pattern), &more);
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
        store::query::query_tool_output(s, &dialog, &a.id, &a.path, lines::DEFAULT_REPLY_CHARS)
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
        Some(a) => Some(store::parse_age(a).ok_or_else(|| {
            usage(format!(
                "--older-than {a:?}: expected a number and a unit (s, m, h, d, w), like 7d or 12h"
            ))
        })?),
    };
    let max = match &max_bytes {
        None => None,
        Some(m) => Some(store::retention::parse_size(m).ok_or_else(|| {
            usage(format!(
                "--max-bytes {m:?}: expected a whole number of bytes greater than 0, or a number and a unit (KB, MB, GB, KiB, MiB, GiB), like 500MB"
            ))
        })?),
    };
    if let Some(d) = &dialog {
        store::validate_id("dialog id", d).map_err(|e| usage(format!("--dialog: {e}")))?;
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
fn expiry_note(done: &Expiry, r: &Retention, path: &store::Location) -> String {
    let mut out = String::new();
    if let Some(keep) = r.keep {
        let age = store::retention::format_age_ms(store::retention::duration_ms(keep));
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

/// Apply the configuration's `[store]` retention every `every` (else its
/// `expire_every`) until the returned ticker is dropped. With `log`, what expired
/// and what failed is written to stderr as `toolcap WHO: ...`.
pub fn expire_periodically(
    s: Arc<dyn ResultStore>,
    config: &Config,
    every: Option<Duration>,
    who: &'static str,
    log: bool,
) -> Option<Ticker> {
    let r = Retention::of(&config.store);
    if r.is_unlimited() {
        return None;
    }
    let every = every.unwrap_or(config.store.expire_every);
    Ticker::start(s, r, every, move |outcome| {
        if !log {
            return;
        }
        let line = match outcome {
            Ok(done) if done.total() == 0 => return,
            Ok(done) => format!(
                "toolcap {who}: expired {} ({} for age, {} for size; {} bytes)",
                results(done.total()),
                done.by_age,
                done.by_size,
                thousands(usize::try_from(done.bytes).unwrap_or(usize::MAX))
            ),
            Err(e) => {
                format!("toolcap {who}: expiring old results failed ({e}); trying again later")
            }
        };
        let _ = writeln!(io::stderr(), "{line}");
    })
    .ok()
}

fn results(n: usize) -> String {
    format!("{n} result{}", if n == 1 { "" } else { "s" })
}

/// $TOOLCAP_STORE, when set and not empty.
pub fn env_store() -> Option<PathBuf> {
    std::env::var_os("TOOLCAP_STORE")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The store path: the flag, else $TOOLCAP_STORE, else the default.
pub fn store_path(flag: Option<PathBuf>) -> Result<PathBuf, Failure> {
    flag.or_else(env_store)
        .or_else(store::default_store_path)
        .ok_or_else(|| {
            usage("no home directory to put the default result store in; pass --store PATH or set TOOLCAP_STORE")
        })
}

/// The dialog id: the flag, else $TOOLCAP_DIALOG, else "default"; validated.
pub fn dialog_id(flag: Option<String>) -> Result<String, Failure> {
    let d = flag
        .or_else(|| {
            std::env::var("TOOLCAP_DIALOG")
                .ok()
                .filter(|v| !v.is_empty())
        })
        .unwrap_or_else(|| store::DEFAULT_DIALOG.to_string());
    store::validate_id("dialog id", &d).map_err(|e| usage(format!("--dialog: {e}")))?;
    Ok(d)
}

/// The store location: the flag, else $TOOLCAP_STORE, else the default; a
/// malformed URL is a usage error.
pub fn store_location(flag: Option<PathBuf>) -> Result<store::Location, Failure> {
    store::Location::parse(store_path(flag)?).map_err(store_failure)
}

/// The store a command reads (`stats`, `show`, `prune`, ...): the flag, else
/// $TOOLCAP_STORE, else the current project's store (where `toolcap run` and
/// the hooks keep outputs) when it exists, else the default path when that
/// exists, else the project's store (named in a "nothing there" message).
pub fn read_location(flag: Option<PathBuf>) -> Result<store::Location, Failure> {
    if let Some(f) = flag.or_else(env_store) {
        return store::Location::parse(f).map_err(store_failure);
    }
    let project =
        super::project::project_root().and_then(|r| super::project::project_store_for(&r));
    let default = store::default_store_path();
    let chosen = match (project, default) {
        (Some(p), _) if p.is_file() => p,
        (_, Some(d)) if d.is_file() => d,
        (Some(p), _) => p,
        (None, Some(d)) => d,
        (None, None) => return store_location(None),
    };
    store::Location::parse(chosen).map_err(store_failure)
}

/// A store error as the CLI reports it: exit 2 for a location that cannot be used
/// as written, 1 for the rest.
pub fn store_failure(e: StoreError) -> Failure {
    if e.is_usage() {
        usage(e.to_string())
    } else {
        other(e.to_string())
    }
}

/// Open the store `spec` names (a SQLite path or a postgres:// URL), creating it if
/// needed. The directory of a SQLite file is created only for the default path: a
/// path the user typed must be in an existing directory (a typo is an error, not a
/// new directory tree).
pub fn open_store(spec: &std::ffi::OsStr) -> Result<Arc<dyn ResultStore>, Failure> {
    try_open_store(spec).map_err(store_failure)
}

/// [`open_store`] for a hook or the MCP server, whose store is often the project's
/// default: a SQLite file's directory is created first (`fix` ends the message
/// when it cannot be).
pub fn open_store_creating_dir(
    spec: &std::path::Path,
    fix: &str,
) -> Result<Arc<dyn ResultStore>, Failure> {
    if let Ok(at) = store::Location::parse(spec)
        && let Some(dir) = at
            .file_path()
            .and_then(std::path::Path::parent)
            .filter(|d| !d.as_os_str().is_empty())
    {
        std::fs::create_dir_all(dir).map_err(|e| {
            other(format!(
                "{}: cannot create the store's directory: {e}{fix}",
                dir.display()
            ))
        })?;
    }
    open_store(spec.as_os_str())
}

/// [`open_store`] with the store's own error, for a caller that tells a database
/// that is down from a location that is wrong.
pub fn try_open_store(spec: &std::ffi::OsStr) -> Result<Arc<dyn ResultStore>, StoreError> {
    let dirs = if bind::default_store_path().is_some_and(|d| d.as_os_str() == spec) {
        bind::Dirs::Create
    } else {
        bind::Dirs::MustExist
    };
    bind::StoreSpec::path_or_url(spec).and_then(|s| s.open(dirs))
}

/// Store location and dialog for a read command, with the id checked. With no
/// --store and no $TOOLCAP_STORE: the current project's store (where `toolcap
/// run` keeps outputs) when it holds the id, else the default path.
fn read_target(id: &str, at: &StoreArgs) -> Result<(store::Location, String), Failure> {
    store::validate_id("tool_call_id", id).map_err(|e| usage(format!("ID: {e}")))?;
    let dialog = dialog_id(at.dialog.clone())?;
    let flag = at.store.clone().or_else(env_store);
    if flag.is_none()
        && let Some(p) =
            super::project::project_root().and_then(|r| super::project::project_store_for(&r))
        && p.is_file()
    {
        let loc = store::Location::parse(&p).map_err(store_failure)?;
        let holds =
            open_existing(&loc)?.is_some_and(|s| s.meta(&dialog, id).ok().flatten().is_some());
        let default_exists = store::default_store_path().is_some_and(|d| d.exists());
        if holds || !default_exists {
            return Ok((loc, dialog));
        }
        // the default store when it holds the id; else the project's is named
        let def = read_location(None)?;
        let in_default = store::default_store_path()
            .and_then(|d| store::Location::parse(d).ok())
            .and_then(|d| open_existing(&d).ok().flatten())
            .is_some_and(|s| s.meta(&dialog, id).ok().flatten().is_some());
        return Ok((
            if in_default {
                store_location(None)?
            } else {
                def
            },
            dialog,
        ));
    }
    Ok((read_location(flag)?, dialog))
}

fn open_existing(at: &store::Location) -> Result<Option<Arc<dyn ResultStore>>, Failure> {
    at.open_existing().map_err(store_failure)
}

/// The store at `at` as a read finds it: with the `[store]` retention of the
/// read's config applied first, so a result older than `keep` is served as
/// expired, never from a store that has not been pruned since.
fn open_to_read(
    target: &StoreArgs,
    at: &store::Location,
) -> Result<Option<Arc<dyn ResultStore>>, Failure> {
    let config = load_config(target.config.as_deref())?;
    let s = open_existing(at)?;
    if let Some(s) = &s {
        expire_on_open(&**s, &config, "read");
    }
    Ok(s)
}

/// A recovery tool's reply from the store at `at`, added to its record (`name`
/// called with `args` in `dialog`, as the model would call it); where no store
/// exists yet, an empty one answers (with the tool's own "not found").
fn ask(
    target: &StoreArgs,
    at: &store::Location,
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
        None => tool(&store::MemoryStore::new()).map_err(|e| other(e.to_string())),
    }
}

/// The message of an error reply (`{"error": "..."}`), else its whole text.
fn said(reply: &ToolReply) -> String {
    serde_json::from_str::<serde_json::Value>(&reply.text)
        .ok()
        .and_then(|v| v["error"].as_str().map(str::to_string))
        .unwrap_or_else(|| reply.text.clone())
}

/// Print a recovery tool's reply as the model would get it; an error reply exits 1
/// (2 for a bad argument), with a note on stderr where it adds to the reply.
fn reply_out(
    reply: &ToolReply,
    line_end: bool,
    id: &str,
    dialog: &str,
    path: &store::Location,
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
fn reply_in_cli_form(
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
    let Some(id_word) = toolcap::internals::shell_word(id) else {
        return reply;
    };
    let pat_word = match pattern {
        Some(p) => match toolcap::internals::shell_word(p) {
            Some(w) => Some(w),
            None => return reply,
        },
        None => None,
    };
    let mut words = vec![super::project::toolcap_program(), sub.to_string()];
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
fn symbols_in_cli_form(mut reply: ToolReply, id: &str, opts: &[String]) -> ToolReply {
    let Some(id_word) = toolcap::internals::shell_word(id).filter(|_| !id.starts_with('-')) else {
        return reply;
    };
    let program = super::project::toolcap_program();
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
