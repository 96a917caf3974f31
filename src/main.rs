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
            let bytes = read_input(input.as_deref())?;
            emit(&config, &tool, &args, lang, id.as_deref(), &bytes, json)
        }
        Cmd::Outline { file, lang, json } => {
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
            let o = outline::outline(&text, lang)
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
            let mut out = String::from(
                "language    extensions              aliases           interpreters\n",
            );
            for l in Language::all() {
                out.push_str(&format!(
                    "{:<11} {:<23} {:<17} {}\n",
                    l.name(),
                    l.extensions().join(" "),
                    l.aliases().join(" "),
                    l.interpreters().join(" ")
                ));
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
    if json {
        let mut v = serde_json::to_value(&processed).map_err(|e| other(e.to_string()))?;
        if let (Some(id), Value::Object(m)) = (id, &mut v) {
            m.insert("tool_call_id".into(), json!(id));
        }
        let mut s = v.to_string();
        s.push('\n');
        write_out(s.as_bytes())
    } else if processed.text == text {
        // unchanged: the original bytes, exactly (even when they are not UTF-8)
        write_out(bytes)
    } else {
        write_out(processed.text.as_bytes())
    }
}

fn render_outline(path: &str, o: &toolcap::Outline) -> String {
    let mut out = format!(
        "{path}: {}, {} lines, {} symbols{}\n",
        o.language,
        toolcap::cut::thousands(o.lines),
        o.symbols.len(),
        if o.partial { " (partial)" } else { "" }
    );
    for s in &o.symbols {
        let label = match (&s.detail, s.kind) {
            (Some(d), toolcap::Kind::Impl) => d.clone(),
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
