//! The `toolcap` command line: a thin layer over the library.

use std::io::{self, Read, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{ArgGroup, Parser, Subcommand, ValueEnum};
use serde_json::{Map, Value, json};
#[cfg(feature = "sqlite")]
use toolcap::store::SqliteStore;
#[cfg(not(feature = "sqlite"))]
use toolcap::store::StoreError;
use toolcap::store::continuation::{self, ChunkOptions, ToolReply, json_text};
use toolcap::store::tools::{ToolFormat, definitions};
use toolcap::store::{self, ResultStore, SaveWhen};
use toolcap::{Config, Language, StreamError, ToolCall, ToolResultProcessor, outline};

#[derive(Parser)]
#[command(
    name = "toolcap",
    version,
    about = "Make oversized LLM tool results fit the context window without losing the way back to what was cut"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Show what the model would see if FILE's content were a tool's result
    /// (read_file on FILE unless --tool says otherwise).
    Preview {
        file: PathBuf,
        /// Tool name the result came from.
        #[arg(long, default_value = "read_file", allow_hyphen_values = true)]
        tool: String,
        /// User config merged over the built-in thresholds (else $TOOLCAP_CONFIG).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Language of the file's content, overriding detection (see `toolcap langs`).
        #[arg(long)]
        lang: Option<String>,
        /// Print the JSON report instead of the text.
        #[arg(long)]
        json: bool,
    },
    /// Process a tool result read from INPUT (a file, or - / nothing for stdin).
    Process {
        /// Tool name the result came from.
        #[arg(long, allow_hyphen_values = true)]
        tool: String,
        /// A tool argument, KEY=VALUE (repeatable); VALUE is taken as a string.
        #[arg(long = "arg", value_name = "KEY=VALUE")]
        args: Vec<String>,
        /// Tool arguments as one JSON object (merged under the --arg values).
        #[arg(long, value_name = "JSON")]
        args_json: Option<String>,
        /// The tool call's id (echoed in the JSON report; the key of the stored result).
        #[arg(long)]
        id: Option<String>,
        /// Keep the full result in the store at PATH (bare --store: $TOOLCAP_STORE, else
        /// the default path; a set $TOOLCAP_STORE turns storing on by itself). Needs --id.
        #[arg(long, value_name = "PATH", num_args = 0..=1, default_missing_value = "")]
        store: Option<PathBuf>,
        /// The dialog (thread) the call belongs to (else $TOOLCAP_DIALOG, else "default").
        #[arg(long, value_name = "D")]
        dialog: Option<String>,
        /// Which results to keep in the store: the cut ones, or all.
        #[arg(long, value_enum, default_value = "cut")]
        save: SaveArg,
        /// User config merged over the built-in thresholds (else $TOOLCAP_CONFIG).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Language of the result's content, overriding detection.
        #[arg(long)]
        lang: Option<String>,
        /// Print the JSON report instead of the text.
        #[arg(long)]
        json: bool,
        /// The result: a file path, or - (the default) for stdin.
        input: Option<PathBuf>,
    },
    /// Print FILE's code structure.
    Outline {
        file: PathBuf,
        /// Language, overriding detection (see `toolcap langs`).
        #[arg(long)]
        lang: Option<String>,
        #[arg(long)]
        json: bool,
        /// Time budget in milliseconds (0: none). Past it, the outline covers
        /// a prefix of the file and says so.
        #[arg(long, value_name = "MS", default_value_t = 100)]
        budget_ms: u64,
        /// Outline at most this many bytes of the file (a prefix ending at a
        /// top-level boundary).
        #[arg(long, value_name = "BYTES", default_value_t = outline::DEFAULT_MAX_BYTES)]
        max_bytes: usize,
    },
    /// List the supported languages, their extensions, aliases and interpreters.
    Langs,
    /// Print the effective settings and where each came from.
    Config {
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// get_continuation: the next chunk of a stored result, with the exact marker
    /// while more remains.
    Continue {
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
        #[command(flatten)]
        at: StoreArgs,
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// fetch_tool_output: a stored call's tool name, arguments and output, as JSON.
    Fetch {
        id: String,
        /// First character of the output to return.
        #[arg(long)]
        offset: Option<usize>,
        /// Most characters of the output to return.
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
        #[command(flatten)]
        at: StoreArgs,
    },
    /// Print a stored result's full output, or with --meta its metadata as JSON.
    Show {
        id: String,
        /// Metadata only (ids, tool, arguments, sizes, truncated, created time).
        #[arg(long)]
        meta: bool,
        #[command(flatten)]
        at: StoreArgs,
    },
    /// Delete stored results: those older than AGE, or those of one dialog.
    #[command(group(ArgGroup::new("what").required(true).args(["older_than", "dialog"])))]
    Prune {
        /// Age like 7d, 12h, 30m, 45s or 2w.
        #[arg(long, value_name = "AGE")]
        older_than: Option<String>,
        /// Delete every result of this dialog (thread).
        #[arg(long, value_name = "D")]
        dialog: Option<String>,
        /// The store (else $TOOLCAP_STORE, else the default path).
        #[arg(long, value_name = "PATH")]
        store: Option<PathBuf>,
    },
    /// Serve stored results over HTTP (read-only JSON; see openapi.json).
    #[cfg(feature = "server")]
    Serve {
        /// The store (else $TOOLCAP_STORE, else the default path); created if missing.
        #[arg(long, value_name = "PATH")]
        store: Option<PathBuf>,
        /// Address to listen on (port 0: any free port, printed at start).
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7878")]
        listen: std::net::SocketAddr,
        /// Allow a non-loopback --listen address; needs a bearer token in $TOOLCAP_TOKEN.
        #[arg(long)]
        allow_remote: bool,
    },
    /// Run an MCP server behind a proxy that caps its tool results and serves the
    /// recovery tools (get_continuation, fetch_tool_output) itself.
    #[cfg(feature = "mcp")]
    McpProxy {
        /// Keep full results in this store (else in memory for the proxy's lifetime).
        #[arg(long, value_name = "PATH")]
        store: Option<PathBuf>,
        /// The dialog (thread) results are kept under (else $TOOLCAP_DIALOG, else "default").
        #[arg(long, value_name = "D")]
        dialog: Option<String>,
        /// Without --store: the most MiB of results kept in memory; the oldest go
        /// first (asking for one then gets "No cached result").
        #[arg(
            long,
            value_name = "MIB",
            default_value_t = 256,
            conflicts_with = "store"
        )]
        memory_limit: usize,
        /// User config merged over the built-in thresholds (else $TOOLCAP_CONFIG).
        #[arg(long)]
        config: Option<PathBuf>,
        /// The MCP server to start, after `--`: COMMAND ARGS...
        #[arg(last = true, required = true, value_name = "COMMAND")]
        command: Vec<std::ffi::OsString>,
    },
    /// Print the JSON-schema definitions of the recovery tools.
    Tools {
        #[arg(long, value_enum, default_value = "openai")]
        format: FormatArg,
        #[arg(long)]
        config: Option<PathBuf>,
    },
}

/// Which store and dialog a read command looks in.
#[derive(clap::Args)]
struct StoreArgs {
    /// The store (else $TOOLCAP_STORE, else the default path).
    #[arg(long, value_name = "PATH")]
    store: Option<PathBuf>,
    /// The dialog (thread) the result belongs to (else $TOOLCAP_DIALOG, else "default").
    #[arg(long, value_name = "D")]
    dialog: Option<String>,
}

#[derive(Clone, Copy, ValueEnum)]
enum SaveArg {
    Cut,
    All,
}

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    Openai,
    Anthropic,
}

/// A failure with its exit code: 2 for usage and config errors, 1 for the rest.
struct Failure {
    code: u8,
    message: String,
}

fn usage(message: impl Into<String>) -> Failure {
    Failure {
        code: 2,
        message: message.into(),
    }
}

fn other(message: impl Into<String>) -> Failure {
    Failure {
        code: 1,
        message: message.into(),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            let _ = writeln!(io::stderr(), "toolcap: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}

fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Cmd::Preview {
            file,
            tool,
            config,
            lang,
            json,
        } => {
            let config = load_config(config.as_deref())?;
            let lang = parse_lang(lang.as_deref())?;
            let bytes = read_input(Some(&file))?;
            let key = config
                .entry_for(&tool)
                .args
                .path
                .first()
                .cloned()
                .unwrap_or_else(|| "path".to_string());
            let mut args = Map::new();
            args.insert(key, Value::String(file.display().to_string()));
            let args = Value::Object(args);
            let call = Call {
                tool: &tool,
                args: &args,
                lang,
                id: None,
                dialog: None,
            };
            emit(&config, &call, None, &bytes, json)
        }
        Cmd::Process {
            tool,
            args,
            args_json,
            id,
            store,
            dialog,
            save,
            config,
            lang,
            json,
            input,
        } => {
            let config = load_config(config.as_deref())?;
            let lang = parse_lang(lang.as_deref())?;
            let args = parse_args(&args, args_json.as_deref())?;
            let store_path = match store {
                Some(p) if p.as_os_str().is_empty() => Some(store_path(None)?),
                Some(p) => Some(p),
                None => env_store(),
            };
            let dialog = match (&store_path, dialog) {
                (Some(_), d) => Some(dialog_id(d)?),
                (None, Some(_)) => {
                    return Err(usage(
                        "--dialog: only used with a store; add --store PATH (or set TOOLCAP_STORE)",
                    ));
                }
                (None, None) => None,
            };
            if let Some(id) = &id {
                store::validate_id("tool_call_id", id).map_err(|e| usage(format!("--id: {e}")))?;
            }
            let attach = match &store_path {
                None => None,
                Some(path) => {
                    if id.is_none() {
                        return Err(usage(
                            "--store needs --id ID: the tool call's id is how the model asks for the rest",
                        ));
                    }
                    let s = SqliteStore::open(path).map_err(|e| other(e.to_string()))?;
                    let save = match save {
                        SaveArg::Cut => SaveWhen::Cut,
                        SaveArg::All => SaveWhen::All,
                    };
                    Some((Arc::new(s) as Arc<dyn ResultStore>, save))
                }
            };
            let input = input.filter(|p| p.as_os_str() != "-");
            let mut processor = ToolResultProcessor::new(config);
            if processor.config().is_bypassed(&tool) && !json {
                // passes through byte for byte (and is never kept): copy without holding it
                return copy_through(input.as_deref());
            }
            if let Some((s, save)) = attach {
                processor = processor.with_store(s, save);
            }
            let mut call = ToolCall::new(&tool, &args);
            call.lang = lang;
            call.id = id.as_deref();
            call.dialog = dialog.as_deref();
            if processor.streams(&tool) {
                // bounded memory; a store gets the full result as it is read
                let res = match input.as_deref() {
                    Some(p) => {
                        let f = std::fs::File::open(p).map_err(|e| read_error(p, &e))?;
                        processor
                            .try_process_chunks(&call, |sink| mapped::pieces(&f, p, sink))
                            .map_err(|e| match e {
                                StreamError::Read(e) => read_error(p, &e),
                                StreamError::Store(e) => other(e.to_string()),
                            })
                    }
                    None => processor
                        .try_process_stream(&call, io::stdin().lock())
                        .map_err(|e| match e {
                            StreamError::Read(e) => {
                                other(format!("stdin: cannot read the input: {e}"))
                            }
                            StreamError::Store(e) => other(e.to_string()),
                        }),
                };
                let (processed, raw) = res?;
                return emit_processed(&processed, raw.as_deref(), id.as_deref(), json);
            }
            let bytes = read_input(input.as_deref())?;
            let text = String::from_utf8_lossy(&bytes);
            let processed = processor
                .try_process_call(&call, &text)
                .map_err(|e| other(e.to_string()))?;
            let raw = (processed.text == text).then_some(&bytes[..]);
            emit_processed(&processed, raw, id.as_deref(), json)
        }
        Cmd::Outline {
            file,
            lang,
            json,
            budget_ms,
            max_bytes,
        } => {
            let lang = parse_lang(lang.as_deref())?;
            let bytes = read_input(Some(&file))?;
            let text = String::from_utf8_lossy(&bytes);
            let path = file.display().to_string();
            let Some((lang, _)) = toolcap::detect::language(lang, Some(&path), &text) else {
                return Err(usage(format!(
                    "{path}: cannot tell the language from the file name or content; pass --lang NAME (one of: {})",
                    lang_names()
                )));
            };
            let options = outline::Options {
                budget: (budget_ms > 0).then(|| std::time::Duration::from_millis(budget_ms)),
                max_bytes,
                ..outline::Options::default()
            };
            let o = outline::outline_with(&text, lang, &options)
                .map_err(|e| other(format!("{path}: outline failed: {e}")))?;
            let out = if json {
                let mut v = serde_json::to_value(&o).map_err(|e| other(e.to_string()))?;
                if let Value::Object(m) = &mut v {
                    let mut with_path = Map::new();
                    with_path.insert("path".into(), Value::String(path));
                    with_path.extend(std::mem::take(m));
                    *m = with_path;
                }
                format!("{v}\n")
            } else {
                render_outline(&path, &o)
            };
            write_out(out.as_bytes())
        }
        Cmd::Langs => {
            let mut rows = vec![[
                "language".to_string(),
                "extensions".to_string(),
                "aliases".to_string(),
                "interpreters".to_string(),
                "query".to_string(),
            ]];
            for l in Language::all() {
                rows.push([
                    l.name().to_string(),
                    l.extensions().join(" "),
                    l.aliases().join(" "),
                    l.interpreters().join(" "),
                    l.query_files().join(" + "),
                ]);
            }
            let mut widths = [0usize; 5];
            for row in &rows {
                for (w, cell) in widths.iter_mut().zip(row) {
                    *w = (*w).max(cell.chars().count());
                }
            }
            let mut out = String::new();
            for row in &rows {
                let mut line = String::new();
                for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
                    if i > 0 {
                        line.push_str("  ");
                    }
                    line.push_str(&format!("{cell:<w$}"));
                }
                out.push_str(line.trim_end());
                out.push('\n');
            }
            write_out(out.as_bytes())
        }
        Cmd::Config { config } => {
            let config = load_config(config.as_deref())?;
            write_out(config.describe().as_bytes())
        }
        Cmd::Continue {
            id,
            offset,
            chunk,
            lines,
            at,
            config,
        } => {
            let config = load_config(config.as_deref())?;
            if chunk == Some(0) {
                return Err(usage("--chunk 0: a chunk must hold at least 1 character"));
            }
            let opts = ChunkOptions {
                chunk_chars: chunk.unwrap_or(config.max_kept_chars),
                line_aligned: lines,
            };
            let (path, dialog) = read_target(&id, &at)?;
            let reply = match open_existing(&path)? {
                Some(s) => continuation::get_continuation(&s, &dialog, &id, offset, &opts)
                    .map_err(|e| other(e.to_string()))?,
                None => continuation::get_continuation(
                    &store::MemoryStore::new(),
                    &dialog,
                    &id,
                    offset,
                    &opts,
                )
                .map_err(|e| other(e.to_string()))?,
            };
            reply_out(&reply, false, &id, &dialog, &path)
        }
        Cmd::Fetch {
            id,
            offset,
            limit,
            at,
        } => {
            if limit == Some(0) {
                return Err(usage("--limit 0: pass at least 1 character"));
            }
            let (path, dialog) = read_target(&id, &at)?;
            let reply = match open_existing(&path)? {
                Some(s) => continuation::fetch_tool_output(&s, &dialog, &id, offset, limit),
                None => continuation::fetch_tool_output(
                    &store::MemoryStore::new(),
                    &dialog,
                    &id,
                    offset,
                    limit,
                ),
            }
            .map_err(|e| other(e.to_string()))?;
            reply_out(&reply, true, &id, &dialog, &path)
        }
        Cmd::Show { id, meta, at } => {
            let (path, dialog) = read_target(&id, &at)?;
            let missing = || {
                other(format!(
                    "no result stored under id {} in dialog {} of {}; check the id, and pass --dialog D if it was stored under another dialog",
                    json_text(&json!(id)),
                    json_text(&json!(dialog)),
                    path.display()
                ))
            };
            let Some(s) = open_existing(&path)? else {
                return Err(missing());
            };
            if meta {
                let m = s
                    .meta(&dialog, &id)
                    .map_err(|e| other(e.to_string()))?
                    .ok_or_else(missing)?;
                let v = json!({
                    "tool_call_id": m.tool_call_id,
                    "dialog_id": m.dialog_id,
                    "tool_name": m.tool_name,
                    "tool_args": m.tool_args,
                    "size_bytes": m.size.bytes,
                    "size_chars": m.size.chars,
                    "size_lines": m.size.lines,
                    "truncated": m.truncated,
                    "shown_chars": m.shown_chars,
                    "created_at": m.created_at(),
                });
                write_out(format!("{}\n", json_text(&v)).as_bytes())
            } else {
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
        }
        Cmd::Prune {
            older_than,
            dialog,
            store,
        } => {
            let age = match &older_than {
                None => None,
                Some(a) => Some(store::parse_age(a).ok_or_else(|| {
                    usage(format!(
                        "--older-than {a:?}: expected a number and a unit (s, m, h, d, w), like 7d or 12h"
                    ))
                })?),
            };
            if let Some(d) = &dialog {
                store::validate_id("dialog id", d).map_err(|e| usage(format!("--dialog: {e}")))?;
            }
            let path = store_path(store)?;
            let Some(s) = open_existing(&path)? else {
                return write_out(
                    format!("no result store at {}: nothing to prune\n", path.display()).as_bytes(),
                );
            };
            let msg = match (age, &older_than, &dialog) {
                (Some(age), Some(a), _) => {
                    let n = s.prune_older_than(age).map_err(|e| other(e.to_string()))?;
                    format!(
                        "pruned {} older than {a} from {}\n",
                        results(n),
                        path.display()
                    )
                }
                (_, _, Some(d)) => {
                    let n = s.delete_dialog(d).map_err(|e| other(e.to_string()))?;
                    format!(
                        "deleted {} of dialog {} from {}\n",
                        results(n),
                        json_text(&json!(d)),
                        path.display()
                    )
                }
                _ => return Err(usage("prune: pass --older-than AGE or --dialog D")),
            };
            write_out(msg.as_bytes())
        }
        #[cfg(feature = "server")]
        Cmd::Serve {
            store,
            listen,
            allow_remote,
        } => {
            let token = std::env::var("TOOLCAP_TOKEN")
                .ok()
                .filter(|t| !t.is_empty());
            toolcap::serve::check_bind(listen, allow_remote, token.as_deref())
                .map_err(|e| usage(e.to_string()))?;
            let path = store_path(store)?;
            let s = SqliteStore::open(&path).map_err(|e| other(e.to_string()))?;
            let listener = std::net::TcpListener::bind(listen).map_err(|e| {
                other(format!(
                    "--listen {listen}: cannot listen there: {e}; pass another address or port (port 0 picks a free one)"
                ))
            })?;
            let local = listener
                .local_addr()
                .map_err(|e| other(format!("--listen {listen}: {e}")))?;
            let _ = writeln!(
                io::stderr(),
                "toolcap serve: listening on http://{local} (store {}{})",
                path.display(),
                if token.is_some() {
                    "; bearer token required"
                } else {
                    ""
                }
            );
            toolcap::serve::serve(Arc::new(s), token, listener)
                .map_err(|e| other(format!("serve on {local}: {e}")))
        }
        #[cfg(feature = "mcp")]
        Cmd::McpProxy {
            store,
            dialog,
            memory_limit,
            config,
            command,
        } => {
            let config = load_config(config.as_deref())?;
            let dialog = dialog_id(dialog)?;
            let store: Arc<dyn ResultStore> = match store {
                Some(path) => Arc::new(SqliteStore::open(&path).map_err(|e| other(e.to_string()))?),
                None => Arc::new(store::MemoryStore::with_limit(
                    memory_limit.saturating_mul(1 << 20),
                )),
            };
            let (program, args) = command
                .split_first()
                .ok_or_else(|| usage("mcp-proxy: name the MCP server to run after --, e.g. `toolcap mcp-proxy -- npx -y @modelcontextprotocol/server-filesystem .`"))?;
            let code = toolcap::mcp_proxy::run(
                toolcap::mcp_proxy::Proxy::new(config, store, dialog),
                program,
                args,
            )
            .map_err(|e| other(e.to_string()))?;
            if code == 0 {
                Ok(())
            } else {
                Err(Failure {
                    code: u8::try_from(code).unwrap_or(1).max(1),
                    message: format!("mcp-proxy: the MCP server exited with status {code}"),
                })
            }
        }
        Cmd::Tools { format, config } => {
            let config = load_config(config.as_deref())?;
            let format = match format {
                FormatArg::Openai => ToolFormat::OpenAi,
                FormatArg::Anthropic => ToolFormat::Anthropic,
            };
            let defs = definitions(format, config.max_kept_chars);
            let text = serde_json::to_string_pretty(&defs).map_err(|e| other(e.to_string()))?;
            write_out(format!("{text}\n").as_bytes())
        }
    }
}

fn results(n: usize) -> String {
    format!("{n} result{}", if n == 1 { "" } else { "s" })
}

/// $TOOLCAP_STORE, when set and not empty.
fn env_store() -> Option<PathBuf> {
    std::env::var_os("TOOLCAP_STORE")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The store path: the flag, else $TOOLCAP_STORE, else the default.
fn store_path(flag: Option<PathBuf>) -> Result<PathBuf, Failure> {
    flag.or_else(env_store)
        .or_else(store::default_store_path)
        .ok_or_else(|| {
            usage("no home directory to put the default result store in; pass --store PATH or set TOOLCAP_STORE")
        })
}

/// The dialog id: the flag, else $TOOLCAP_DIALOG, else "default"; validated.
fn dialog_id(flag: Option<String>) -> Result<String, Failure> {
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

/// Store path and dialog for a read command, with the id checked.
fn read_target(id: &str, at: &StoreArgs) -> Result<(PathBuf, String), Failure> {
    store::validate_id("tool_call_id", id).map_err(|e| usage(format!("ID: {e}")))?;
    Ok((store_path(at.store.clone())?, dialog_id(at.dialog.clone())?))
}

/// Without the `sqlite` feature there is no persistent store: every store command
/// says so.
#[cfg(not(feature = "sqlite"))]
struct SqliteStore;

#[cfg(not(feature = "sqlite"))]
impl SqliteStore {
    fn unavailable(path: &Path) -> StoreError {
        StoreError::Open {
            path: path.to_path_buf(),
            problem: "this toolcap was built without the `sqlite` feature".into(),
            fix: "rebuild it with the default features (or --features sqlite)".into(),
        }
    }

    fn open(path: &Path) -> Result<store::MemoryStore, StoreError> {
        Err(Self::unavailable(path))
    }

    fn open_existing(path: &Path) -> Result<Option<store::MemoryStore>, StoreError> {
        Err(Self::unavailable(path))
    }
}

#[cfg(feature = "sqlite")]
type Db = SqliteStore;
#[cfg(not(feature = "sqlite"))]
type Db = store::MemoryStore;

fn open_existing(path: &Path) -> Result<Option<Db>, Failure> {
    SqliteStore::open_existing(path).map_err(|e| other(e.to_string()))
}

/// Print a recovery tool's reply as the model would get it; an error reply exits 1
/// with a note for the person on stderr.
fn reply_out(
    reply: &ToolReply,
    is_fetch: bool,
    id: &str,
    dialog: &str,
    path: &Path,
) -> Result<(), Failure> {
    // The text exactly; a line end after a marker or JSON, never after a final chunk.
    let mut text = reply.text.clone();
    if reply.is_error || reply.next_offset.is_some() || is_fetch {
        text.push('\n');
    }
    write_out(text.as_bytes())?;
    if reply.is_error {
        let note = if reply.text.contains("Offset beyond end") {
            format!(
                "--offset: at or past the end of the result stored under id {}; pass a smaller offset (`toolcap show ID --meta` gives its size in chars)",
                json_text(&json!(id))
            )
        } else {
            format!(
                "no result stored under id {} in dialog {} of {}{}; check the id, and pass --dialog D if it was stored under another dialog",
                json_text(&json!(id)),
                json_text(&json!(dialog)),
                path.display(),
                if path.exists() {
                    ""
                } else {
                    " (no store file there yet)"
                }
            )
        };
        return Err(other(note));
    }
    Ok(())
}

fn lang_names() -> String {
    Language::all()
        .iter()
        .map(|l| l.name())
        .collect::<Vec<_>>()
        .join(", ")
}

fn parse_lang(lang: Option<&str>) -> Result<Option<Language>, Failure> {
    match lang {
        None => Ok(None),
        Some(name) => Language::from_name(name).map(Some).ok_or_else(|| {
            usage(format!(
                "--lang {name:?}: unknown language; use one of: {} (`toolcap langs` lists aliases)",
                lang_names()
            ))
        }),
    }
}

fn load_config(path: Option<&Path>) -> Result<Config, Failure> {
    Config::load(path).map_err(|e| usage(e.to_string()))
}

fn parse_args(pairs: &[String], args_json: Option<&str>) -> Result<Value, Failure> {
    toolcap::args::tool_args(pairs, args_json).map_err(|e| usage(e.0))
}

fn read_input(path: Option<&Path>) -> Result<Vec<u8>, Failure> {
    let mut buf = Vec::new();
    match path {
        Some(p) => {
            buf = std::fs::read(p).map_err(|e| {
                other(format!(
                    "{}: cannot read the input: {e}; pass an existing, readable file (or - for stdin)",
                    p.display()
                ))
            })?;
        }
        None => {
            io::stdin()
                .lock()
                .read_to_end(&mut buf)
                .map_err(|e| other(format!("stdin: cannot read the input: {e}")))?;
        }
    }
    Ok(buf)
}

fn read_error(p: &Path, e: &io::Error) -> Failure {
    other(format!(
        "{}: cannot read the input: {e}; pass an existing, readable file (or - for stdin)",
        p.display()
    ))
}

/// Copy the input to stdout unchanged, in chunks.
fn copy_through(input: Option<&Path>) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    let res = match input {
        Some(p) => {
            let mut f = std::fs::File::open(p).map_err(|e| read_error(p, &e))?;
            io::copy(&mut f, &mut out)
        }
        None => io::copy(&mut io::stdin().lock(), &mut out),
    };
    match res.and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(other(format!("copying the input: {e}"))),
    }
}

/// Print a processed result: the JSON report, or the text (the original bytes
/// when it passed through unchanged).
fn emit_processed(
    processed: &toolcap::Processed,
    raw: Option<&[u8]>,
    id: Option<&str>,
    json: bool,
) -> Result<(), Failure> {
    if json {
        let mut v = serde_json::to_value(processed).map_err(|e| other(e.to_string()))?;
        if let (Some(id), Value::Object(m)) = (id, &mut v) {
            m.insert("tool_call_id".into(), json!(id));
        }
        let mut s = v.to_string();
        s.push('\n');
        write_out(s.as_bytes())
    } else {
        match raw {
            Some(bytes) => write_out(bytes),
            None => write_out(processed.text.as_bytes()),
        }
    }
}

/// One call to process, as the CLI got it.
struct Call<'a> {
    tool: &'a str,
    args: &'a Value,
    lang: Option<Language>,
    id: Option<&'a str>,
    dialog: Option<&'a str>,
}

fn emit(
    config: &Config,
    c: &Call<'_>,
    store: Option<(Arc<dyn ResultStore>, SaveWhen)>,
    bytes: &[u8],
    json: bool,
) -> Result<(), Failure> {
    let text = String::from_utf8_lossy(bytes);
    let mut processor = ToolResultProcessor::new(config.clone());
    if let Some((s, save)) = store {
        processor = processor.with_store(s, save);
    }
    let mut call = ToolCall::new(c.tool, c.args);
    call.lang = c.lang;
    call.id = c.id;
    call.dialog = c.dialog;
    let processed = processor
        .try_process_call(&call, &text)
        .map_err(|e| other(e.to_string()))?;
    let raw = (processed.text == text).then_some(bytes);
    emit_processed(&processed, raw, c.id, json)
}

fn render_outline(path: &str, o: &toolcap::Outline) -> String {
    let mut out = format!(
        "{path}: {}, {} lines, {} symbols{}{}\n",
        o.language,
        toolcap::cut::thousands(o.lines),
        o.symbols.len(),
        match o.stopped_by {
            Some(stop) if o.partial => format!(
                " (partial: lines 1-{} of {}; {} stopped it)",
                toolcap::cut::thousands(o.covered_lines),
                toolcap::cut::thousands(o.lines),
                stop.describe()
            ),
            _ => String::new(),
        },
        if o.syntax_errors {
            " (syntax errors: best effort)"
        } else {
            ""
        }
    );
    for s in &o.symbols {
        let label = match (&s.detail, s.kind, &s.parent) {
            (Some(d), toolcap::Kind::Impl, _) => d.clone(),
            // A method defined outside its type: `method Server.start`.
            (_, _, Some(p)) if s.depth == 0 => format!("{} {p}.{}", s.kind.as_str(), s.name),
            _ => format!("{} {}", s.kind.as_str(), s.name),
        };
        out.push_str(&format!(
            "{}{label} (lines {}-{})\n",
            "  ".repeat(s.depth),
            s.line,
            s.end_line
        ));
    }
    out
}

/// Write to stdout; a closed pipe (`| head`) is not an error.
fn write_out(bytes: &[u8]) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(other(format!("stdout: {e}"))),
    }
}

/// Input files, mapped instead of copied.
mod mapped {
    use std::fs::File;
    use std::io::{self, Seek, SeekFrom};
    use std::path::Path;

    /// Files smaller than this are read (mapping costs more than it saves).
    const MAP_MIN: u64 = 4 << 20;
    /// Mapped this much at a time (a multiple of the page size): what the mapping
    /// adds to the resident set at most.
    const WINDOW: u64 = 16 << 20;
    /// Handed to the scanner this much at a time (fits the L2 cache).
    const PIECE: usize = 1 << 20;

    /// Hand `file` to `sink` in pieces: a regular file's bytes as they are in
    /// the page cache, window by window; whatever follows (a file that grew
    /// meanwhile) or a file that is not regular, read.
    pub fn pieces(file: &File, path: &Path, sink: &mut dyn FnMut(&[u8])) -> io::Result<()> {
        let meta = file.metadata()?;
        let mut done = 0u64;
        if meta.is_file() && meta.len() >= MAP_MIN {
            sigbus::arm(path);
            while done < meta.len() {
                let n = (meta.len() - done).min(WINDOW);
                let len = usize::try_from(n).map_err(io::Error::other)?;
                // SAFETY: the map is read only and dropped before the next one.
                // If another process truncates the file meanwhile, reading past
                // its new end raises SIGBUS, which `sigbus` turns into an error
                // message naming the file (exit 1) instead of a crash.
                let map = unsafe {
                    memmap2::MmapOptions::new()
                        .offset(done)
                        .len(len)
                        .map(file)?
                };
                for piece in map.chunks(PIECE) {
                    sink(piece);
                }
                done += n;
            }
        }
        let mut rest = file;
        rest.seek(SeekFrom::Start(done))?;
        toolcap::processor::read_pieces(rest, sink)
    }

    /// A file that shrinks while mapped makes reads past its new end raise
    /// SIGBUS: say so and exit 1 instead of dying of the signal.
    #[cfg(unix)]
    mod sigbus {
        use std::path::Path;
        use std::sync::OnceLock;

        static MESSAGE: OnceLock<Vec<u8>> = OnceLock::new();

        extern "C" fn on_sigbus(_: libc::c_int) {
            // only async-signal-safe calls: write(2) and _exit(2)
            if let Some(m) = MESSAGE.get() {
                // SAFETY: writes an initialised buffer to stderr.
                unsafe { libc::write(2, m.as_ptr().cast(), m.len()) };
            }
            // SAFETY: ends the process without running anything else.
            unsafe { libc::_exit(1) }
        }

        pub fn arm(path: &Path) {
            let _ = MESSAGE.set(
                format!(
                    "error: {}: the file shrank while it was being read (truncated or rotated); \
                     run again, or pipe it in: cat FILE | toolcap process ... -\n",
                    path.display()
                )
                .into_bytes(),
            );
            // SAFETY: installs a handler that only calls async-signal-safe functions.
            unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
                libc::sigemptyset(&mut sa.sa_mask);
                libc::sigaction(libc::SIGBUS, &sa, std::ptr::null_mut());
            }
        }
    }

    #[cfg(not(unix))]
    mod sigbus {
        pub fn arm(_: &std::path::Path) {}
    }
}
