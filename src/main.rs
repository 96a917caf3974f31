//! The `toolcap` command line: a thin layer over the library.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::{Map, Value, json};
use toolcap::{Config, Language, ToolCall, ToolResultProcessor, outline};

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
        #[arg(long, default_value = "read_file")]
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
        #[arg(long)]
        tool: String,
        /// A tool argument, KEY=VALUE (repeatable); VALUE is taken as a string.
        #[arg(long = "arg", value_name = "KEY=VALUE")]
        args: Vec<String>,
        /// Tool arguments as one JSON object (merged under the --arg values).
        #[arg(long, value_name = "JSON")]
        args_json: Option<String>,
        /// The tool call's id (echoed in the JSON report).
        #[arg(long)]
        id: Option<String>,
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
            emit(
                &config,
                &tool,
                &Value::Object(args),
                lang,
                None,
                &bytes,
                json,
            )
        }
        Cmd::Process {
            tool,
            args,
            args_json,
            id,
            config,
            lang,
            json,
            input,
        } => {
            let config = load_config(config.as_deref())?;
            let lang = parse_lang(lang.as_deref())?;
            let args = parse_args(&args, args_json.as_deref())?;
            let input = input.filter(|p| p.as_os_str() != "-");
            let processor = ToolResultProcessor::new(config);
            if processor.config().is_bypassed(&tool) && !json {
                // passes through byte for byte: copy without holding it
                return copy_through(input.as_deref());
            }
            let mut call = ToolCall::new(&tool, &args);
            call.lang = lang;
            let (processed, raw) = match input.as_deref() {
                Some(p) => {
                    let f = std::fs::File::open(p).map_err(|e| read_error(p, &e))?;
                    processor
                        .process_stream(&call, f)
                        .map_err(|e| read_error(p, &e))?
                }
                None => processor
                    .process_stream(&call, io::stdin().lock())
                    .map_err(|e| other(format!("stdin: cannot read the input: {e}")))?,
            };
            emit_processed(&processed, raw.as_deref(), id.as_deref(), json)
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
    }
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
    let mut map = match args_json {
        None => Map::new(),
        Some(j) => match serde_json::from_str::<Value>(j) {
            Ok(Value::Object(m)) => m,
            Ok(_) => {
                return Err(usage(
                    "--args-json: must be a JSON object, like '{\"path\": \"a.py\"}'",
                ));
            }
            Err(e) => {
                return Err(usage(format!(
                    "--args-json: not valid JSON ({e}); pass an object like '{{\"path\": \"a.py\"}}'"
                )));
            }
        },
    };
    for p in pairs {
        let Some((k, v)) = p.split_once('=') else {
            return Err(usage(format!(
                "--arg {p:?}: expected KEY=VALUE, e.g. --arg path=src/main.rs"
            )));
        };
        if k.is_empty() {
            return Err(usage(format!("--arg {p:?}: the KEY before '=' is empty")));
        }
        map.insert(k.to_string(), Value::String(v.to_string()));
    }
    Ok(Value::Object(map))
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

fn emit(
    config: &Config,
    tool: &str,
    args: &Value,
    lang: Option<Language>,
    id: Option<&str>,
    bytes: &[u8],
    json: bool,
) -> Result<(), Failure> {
    let text = String::from_utf8_lossy(bytes);
    let processor = ToolResultProcessor::new(config.clone());
    let mut call = ToolCall::new(tool, args);
    call.lang = lang;
    let processed = processor.process_call(&call, &text);
    let raw = (processed.text == text).then_some(bytes);
    emit_processed(&processed, raw, id, json)
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
