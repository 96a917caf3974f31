//! `toolcap preview` and `toolcap process`: what the model would see.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde_json::{Map, Value};
use toolcap_core::bind;
use toolcap_core::{ToolCall, ToolResultProcessor};
use toolcap_store::SaveWhen;

use super::common::{
    Failure, copy_through, emit, emit_processed, load_config, other, parse_lang, read_error,
    read_input, usage,
};
use super::mapped;
use super::stored::{
    dialog_id, env_store, expire_on_open, store_failure, store_path, try_open_store,
};

#[derive(Args)]
pub struct PreviewArgs {
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
}

#[derive(Args)]
pub struct ProcessArgs {
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
    /// Keep the full result in the store at PATH, a SQLite file or a postgres:// URL
    /// (bare --store: $TOOLCAP_STORE, else
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
    /// Tokens left in the model's context window: the threshold and kept size
    /// become at most [budget] fraction of it (see docs/budgets.md).
    #[arg(long, value_name = "TOKENS")]
    context_left: Option<usize>,
    /// The model's context window in tokens (with --context-used).
    #[arg(long, value_name = "TOKENS")]
    context_limit: Option<usize>,
    /// Tokens used so far (with --context-limit or --model).
    #[arg(long, value_name = "TOKENS")]
    context_used: Option<usize>,
    /// The model's name: its window from [budget.models] (`toolcap config` lists them).
    #[arg(long, value_name = "NAME")]
    model: Option<String>,
    /// Exit 1 when the store cannot keep the result (full disk, database down). Without
    /// it the view is printed all the same, without the stored claims, the store error
    /// goes to stderr and the exit status is 0.
    #[arg(long)]
    require_store: bool,
    /// The result: a file path, or - (the default) for stdin.
    input: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum SaveArg {
    Cut,
    All,
}

pub fn preview(a: PreviewArgs) -> Result<(), Failure> {
    let config = load_config(a.config.as_deref())?;
    let lang = parse_lang(a.lang.as_deref())?;
    let bytes = read_input(Some(&a.file))?;
    let key = config
        .entry_for(&a.tool)
        .args
        .path
        .first()
        .cloned()
        .unwrap_or_else(|| "path".to_string());
    let mut args = Map::new();
    args.insert(key, Value::String(a.file.display().to_string()));
    let mut args = Value::Object(args);
    let lang = lang.and_then(|l| l.apply(&mut args));
    let mut call = ToolCall::new(&a.tool, &args);
    call.lang = lang;
    emit(&config, &call, None, &bytes, a.json)
}

pub fn process(a: ProcessArgs) -> Result<(), Failure> {
    let ProcessArgs {
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
        context_left,
        context_limit,
        context_used,
        model,
        require_store,
        input,
    } = a;
    let config = load_config(config.as_deref())?;
    let context = bind::Context {
        left: context_left,
        limit: context_limit,
        used: context_used,
        model,
    };
    context.check(&config).map_err(|e| {
        // the figures by their flags' names
        let m = ["left", "limit", "used"]
            .iter()
            .fold(e.to_string(), |m, f| {
                m.replace(&format!("context_{f}"), &format!("--context-{f}"))
            });
        usage(m.replacen("model ", "--model ", 1))
    })?;
    let mut args =
        bind::tool_args(&args, args_json.as_deref()).map_err(|e| usage(e.to_string()))?;
    let lang = parse_lang(lang.as_deref())?.and_then(|l| l.apply(&mut args));
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
        toolcap_store::validate_id("tool_call_id", id).map_err(|e| usage(format!("--id: {e}")))?;
    }
    let mut store_down: Option<String> = None;
    let attach = match &store_path {
        None => None,
        Some(path) => {
            if id.is_none() {
                return Err(usage(
                    "--store needs --id ID: the tool call's id is how the model asks for the rest",
                ));
            }
            let save = match save {
                SaveArg::Cut => SaveWhen::Cut,
                SaveArg::All => SaveWhen::All,
            };
            match try_open_store(path.as_os_str()) {
                Ok(s) => {
                    expire_on_open(&*s, &config, "process");
                    Some((s, save))
                }
                // a database server that cannot be reached still lets the model see
                // the result (as a full disk does, when the result is written); a
                // store that is misnamed or damaged is the caller's to fix first
                Err(e @ toolcap_store::StoreError::Connect { .. }) => {
                    store_down = Some(e.to_string());
                    None
                }
                Err(e) => return Err(store_failure(e)),
            }
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
    call.context = context.window();
    if processor.streams(&tool) {
        // bounded memory; a store gets the full result as it is read
        let res = match input.as_deref() {
            Some(p) => {
                let f = std::fs::File::open(p).map_err(|e| read_error(p, &e))?;
                processor
                    .process_chunks(&call, |sink| mapped::pieces(&f, p, sink))
                    .map_err(|e| read_error(p, &e))
            }
            None => processor
                .process_stream(&call, io::stdin().lock())
                .map_err(|e| other(format!("stdin: cannot read the input: {e}"))),
        };
        let (processed, raw) = res?;
        let down = store_down.or_else(|| processed.store_error.clone());
        emit_processed(&processed, raw.as_deref(), id.as_deref(), json)?;
        return store_outcome(down, require_store);
    }
    let bytes = read_input(input.as_deref())?;
    let (processed, text) = processor.process_bytes(&call, &bytes);
    // unchanged: the input's own bytes (unless decoded from a legacy encoding)
    let raw = (processed.text == text && processed.encoding.is_none()).then_some(&bytes[..]);
    let down = store_down.or_else(|| processed.store_error.clone());
    emit_processed(&processed, raw, id.as_deref(), json)?;
    store_outcome(down, require_store)
}

/// After the view is printed: a store that could not keep the result is reported
/// on stderr, and fails the command only with `--require-store`.
fn store_outcome(error: Option<String>, require_store: bool) -> Result<(), Failure> {
    let Some(e) = error else { return Ok(()) };
    let message = format!(
        "the full result was not kept: {e}; the view above makes no claim that it is stored{}",
        if require_store {
            ""
        } else {
            " (pass --require-store to exit 1 when this happens)"
        }
    );
    if require_store {
        return Err(other(message));
    }
    let _ = writeln!(io::stderr(), "toolcap process: {message}");
    Ok(())
}
