//! Conversions between what JavaScript hands over (JSON text, numbers, names) and
//! toolcap's Rust types. The ones the CLI and the Python binding share come from
//! `toolcap::bind` (args, languages, save-when, tool formats, SQLite paths, the
//! report); what is here is the JavaScript side of them (numbers, the error class).

use std::borrow::Cow;
use std::path::Path;
use std::time::Duration;

use napi::bindgen_prelude::{Either, Uint8Array};
use serde_json::Value;
use toolcap::bind::{self, Lang};
use toolcap::store::continuation::{self, ChunkOptions};
use toolcap::store::tools::ToolFormat;
use toolcap::store::{self, SaveWhen};
use toolcap::{Config, Language, outline};

use crate::{Fail, Kind, Res};

/// A count from a JavaScript number: a whole number from 0 to 2^53.
pub(crate) fn count(what: &str, v: f64) -> Res<usize> {
    if !v.is_finite() || v < 0.0 || v.fract() != 0.0 || v > 9_007_199_254_740_992.0 {
        return Err(Fail::range(format!(
            "{what} = {v}: pass a whole number of 0 or more"
        )));
    }
    Ok(v as usize)
}

/// An optional count.
pub(crate) fn count_opt(what: &str, v: Option<f64>) -> Res<Option<usize>> {
    v.map(|v| count(what, v)).transpose()
}

/// A result or source handed in as a string or as bytes (bytes are decoded as
/// UTF-8, invalid sequences replaced with U+FFFD, as the CLI reads files).
pub(crate) fn text_of(input: &Either<String, Uint8Array>) -> Cow<'_, str> {
    match input {
        Either::A(s) => Cow::Borrowed(s.as_str()),
        Either::B(b) => String::from_utf8_lossy(b),
    }
}

/// Tool arguments from JSON text: nothing or blank is no arguments; else an object.
pub(crate) fn args_of(json: Option<&str>) -> Res<Value> {
    bind::args_from_json(json.unwrap_or("")).map_err(|e| Fail::range(format!("args: {}", e.0)))
}

/// An id that the stores accept (`tool_call_id`, `dialog id`).
pub(crate) fn check_id(what: &'static str, id: &str) -> Res<()> {
    store::validate_id(what, id).map_err(Fail::from)
}

/// The dialog to use: the one given, else `default`; checked.
pub(crate) fn dialog_of(dialog: Option<String>, fallback: &str) -> Res<String> {
    let d = dialog.unwrap_or_else(|| fallback.to_string());
    check_id("dialog id", &d)?;
    Ok(d)
}

/// `lang` / `language`: a code language or a text format, as the CLI's `--lang`.
pub(crate) fn lang_of(name: Option<&str>) -> Res<Option<Lang>> {
    Lang::parse_opt(name)
        .map_err(|e| Fail::range(format!("language: {e} (toolcap.languages() lists aliases)")))
}

/// When a store keeps results: `cut` (the default) or `all`.
pub(crate) fn save_of(save: Option<&str>) -> Res<SaveWhen> {
    bind::save_when(save.unwrap_or("cut")).map_err(|e| Fail::range(e.to_string()))
}

/// `openai` or `anthropic`.
pub(crate) fn tool_format(format: &str) -> Res<ToolFormat> {
    bind::tool_format(format).map_err(|e| Fail::range(e.to_string()))
}

/// Characters per `get_continuation` chunk: default 2000, at least 1.
pub(crate) fn chunk_chars(v: Option<f64>) -> Res<usize> {
    match count_opt("chunkChars", v)? {
        None => Ok(continuation::DEFAULT_CHUNK_CHARS),
        Some(0) => Err(Fail::range(
            "chunkChars = 0: a chunk must hold at least 1 character",
        )),
        Some(n) => Ok(n),
    }
}

pub(crate) fn chunk_options(chunk: Option<f64>, line_aligned: Option<bool>) -> Res<ChunkOptions> {
    Ok(ChunkOptions {
        chunk_chars: chunk_chars(chunk)?,
        line_aligned: line_aligned.unwrap_or(false),
    })
}

/// The configuration: from nothing (defaults < `$TOOLCAP_CONFIG` <
/// `$TOOL_RESULT_BYPASS_TOOLS`, as the CLI), a TOML file (< the bypass variable), or
/// JSON text of an object with the TOML file's keys.
pub(crate) fn config_of(path: Option<String>, json: Option<String>) -> Res<Config> {
    if let Some(json) = json {
        let v: Value = serde_json::from_str(&json)
            .map_err(|e| Fail::type_(format!("config: not a JSON-able object ({e})")))?;
        if !v.is_object() {
            return Err(Fail::type_(
                "config: expected undefined, a path to a TOML file, or an object with the keys of a thresholds.toml file",
            ));
        }
        let text = toml::to_string(&v).map_err(|e| {
            Fail::new(
                Kind::Config,
                format!(
                    "<config object>: (object): cannot be written as TOML: {e}\n  fix: use the keys and values of a thresholds.toml file (no null values)"
                ),
            )
        })?;
        let bypass = std::env::var("TOOL_RESULT_BYPASS_TOOLS").ok();
        return Config::from_sources(
            Some((&text, Path::new("<config object>"))),
            bypass.as_deref(),
        )
        .map_err(|mut e| {
            // a line of the TOML the object was written as means nothing to its author
            e.line = None;
            e.into()
        });
    }
    Ok(Config::load(path.as_deref().map(Path::new))?)
}

/// The outline of a source as `toolcap outline --json` prints it (without `path`).
pub(crate) fn outline_json(
    source: &Either<String, Uint8Array>,
    language: Option<String>,
    path: Option<String>,
    budget_ms: Option<f64>,
    max_bytes: Option<f64>,
) -> Res<String> {
    let text = text_of(source);
    let lang = match lang_of(language.as_deref())? {
        Some(Lang::Code(l)) => l,
        Some(other) => {
            return Err(Fail::range(format!(
                "language {:?} is a text format: outline() makes code outlines (the processor outlines text formats in its recovery options)",
                other.name()
            )));
        }
        None => Language::detect(path.as_deref(), &text).ok_or_else(|| {
            Fail::range(format!(
                "{}: cannot tell the language from the file name or content; pass language: NAME (one of: {})",
                path.as_deref().unwrap_or("source"),
                bind::language_names()
            ))
        })?,
    };
    let budget = count_opt("budgetMs", budget_ms)?.unwrap_or(100);
    let options = outline::Options {
        budget: (budget > 0).then(|| Duration::from_millis(budget as u64)),
        max_bytes: count_opt("maxBytes", max_bytes)?.unwrap_or(outline::DEFAULT_MAX_BYTES),
        ..outline::Options::default()
    };
    let o = outline::outline_with(&text, lang, &options).map_err(|e| {
        Fail::new(
            Kind::Outline,
            format!(
                "{}: outline failed: {e}",
                path.as_deref().unwrap_or("source")
            ),
        )
    })?;
    serde_json::to_string(&o).map_err(|e| Fail::new(Kind::Toolcap, e.to_string()))
}

/// The supported languages as JSON.
pub(crate) fn languages_json() -> String {
    let all: Vec<Value> = Language::all()
        .iter()
        .map(|lang| {
            serde_json::json!({
                "name": lang.name(),
                "extensions": lang.extensions(),
                "aliases": lang.aliases(),
                "interpreters": lang.interpreters(),
            })
        })
        .collect();
    Value::Array(all).to_string()
}

/// The recovery tools' definitions as JSON text.
pub(crate) fn tool_definitions_json(format: &str, chunk_chars: usize) -> Res<String> {
    let f = tool_format(format)?;
    Ok(store::tools::definitions(f, chunk_chars).to_string())
}
