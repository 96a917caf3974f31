//! What several subcommands share: failures and their exit codes, reading the
//! input, loading the config, printing.

use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::Arc;

use toolcap_config::Config;
use toolcap_core::bind::{self, Lang};
use toolcap_core::{Processed, ToolCall, ToolResultProcessor};
use toolcap_store::{ResultStore, SaveWhen};

/// A failure with its exit code: 2 for usage and config errors, 1 for the rest.
pub struct Failure {
    pub code: u8,
    pub message: String,
}

/// A usage or config error (exit 2).
/// This program's path, as hooks and settings should call it: `$TOOLCAP_SELF` when a
/// wrapper that runs the command line inside another program sets it (the Python
/// wheel's `toolcap` script, whose process is the Python interpreter), else the
/// executable's own path.
pub fn this_program() -> io::Result<std::path::PathBuf> {
    match std::env::var_os("TOOLCAP_SELF") {
        Some(p) if !p.is_empty() => Ok(p.into()),
        _ => std::env::current_exe(),
    }
}

pub fn usage(message: impl Into<String>) -> Failure {
    Failure {
        code: 2,
        message: message.into(),
    }
}

/// Any other failure (exit 1).
pub fn other(message: impl Into<String>) -> Failure {
    Failure {
        code: 1,
        message: message.into(),
    }
}

pub fn lang_names() -> String {
    bind::language_names()
}

/// `--lang NAME`: a code language or a text format (`markdown`, `json`, ...).
pub fn parse_lang(lang: Option<&str>) -> Result<Option<Lang>, Failure> {
    Lang::parse_opt(lang).map_err(|e| usage(format!("--lang: {e} (`toolcap langs` lists aliases)")))
}

pub fn load_config(path: Option<&Path>) -> Result<Config, Failure> {
    Config::load(path).map_err(|e| usage(e.to_string()))
}

pub fn read_input(path: Option<&Path>) -> Result<Vec<u8>, Failure> {
    let mut buf = Vec::new();
    match path {
        Some(p) => {
            buf = std::fs::read(p).map_err(|e| read_error(p, &e))?;
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

pub fn read_error(p: &Path, e: &io::Error) -> Failure {
    other(format!(
        "{}: cannot read the input: {e}; pass an existing, readable file (or - for stdin)",
        p.display()
    ))
}

/// Copy the input to stdout unchanged, in chunks.
pub fn copy_through(input: Option<&Path>) -> Result<(), Failure> {
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
pub fn emit_processed(
    processed: &Processed,
    raw: Option<&[u8]>,
    id: Option<&str>,
    json: bool,
) -> Result<(), Failure> {
    if json {
        let mut s = bind::report_json(processed, id).to_string();
        s.push('\n');
        write_out(s.as_bytes())
    } else {
        match raw {
            Some(bytes) => write_out(bytes),
            None => write_out(processed.text.as_bytes()),
        }
    }
}

/// Process a whole result held in memory and print it.
pub fn emit(
    config: &Config,
    call: &ToolCall<'_>,
    store: Option<(Arc<dyn ResultStore>, SaveWhen)>,
    bytes: &[u8],
    json: bool,
) -> Result<(), Failure> {
    let mut processor = ToolResultProcessor::new(config.clone());
    if let Some((s, save)) = store {
        processor = processor.with_store(s, save);
    }
    let (processed, text) = processor
        .try_process_bytes(call, bytes)
        .map_err(|e| other(e.to_string()))?;
    // unchanged: the input's own bytes (unless decoded from a legacy encoding)
    let raw = (processed.text == text && processed.encoding.is_none()).then_some(bytes);
    emit_processed(&processed, raw, call.id, json)
}

/// How a character that must not reach a terminal or a page as itself is shown:
/// C0 controls (a terminal's escape sequences, a NUL) and DEL as their Unicode
/// control pictures (`␛`, `␀`, `␡`); C1 controls (`U+009B` is a CSI on some
/// terminals), the bidirectional overrides, embeddings and isolates (which
/// reorder the text around them) and the line and paragraph separators as
/// `<U+XXXX>`. `None` for every other character, line feed and tab included
/// (a carriage return is the caller's to decide: a page keeps it, a terminal
/// must not get it).
pub fn visible_char(c: char) -> Option<String> {
    match c {
        '\n' | '\t' => None,
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32).map(String::from),
        '\u{7f}' => Some('\u{2421}'.to_string()),
        '\u{80}'..='\u{9f}'
        | '\u{61c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{2028}'
        | '\u{2029}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}' => Some(format!("<U+{:04X}>", c as u32)),
        _ => None,
    }
}

/// `text` for a terminal: every character of [`visible_char`] (carriage returns
/// too) shown instead of sent. What `gain`, `stats` and `discover` print holds
/// tool names and commands the model wrote.
pub fn visible(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(|c| visible_char(c).is_some()) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match visible_char(c) {
            Some(s) => out.push_str(&s),
            None => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Write to stdout; a closed pipe (`| head`) is not an error.
pub fn write_out(bytes: &[u8]) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(other(format!("stdout: {e}"))),
    }
}
