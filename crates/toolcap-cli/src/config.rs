//! `toolcap config` (the effective settings) and `toolcap tools` (the recovery
//! tools' schemas).

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde_json::{Value, json};
use toolcap_config::Config;
use toolcap_store::tools::{ToolFormat, definitions};

use super::common::{Failure, load_config, other, write_out};

#[derive(Args)]
pub struct ConfigArgs {
    #[arg(long)]
    config: Option<PathBuf>,
    /// Print the settings as one JSON object (each tool entry with its
    /// threshold, where it came from and the figures that chose a built-in one)
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct ToolsArgs {
    #[arg(long, value_enum, default_value = "openai")]
    format: FormatArg,
    #[arg(long)]
    config: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    Openai,
    Anthropic,
}

pub fn config(a: ConfigArgs) -> Result<(), Failure> {
    let config = load_config(a.config.as_deref())?;
    if a.json {
        let text =
            serde_json::to_string_pretty(&as_json(&config)).map_err(|e| other(e.to_string()))?;
        return write_out(format!("{text}\n").as_bytes());
    }
    write_out(config.describe().as_bytes())
}

/// `toolcap config --json`: the effective settings `describe` prints, as JSON.
/// Each tool entry carries its fields as the `--json` reports name them, the
/// source of each setting (`default`, `file PATH`, `env NAME`), and
/// `threshold_basis`: how a built-in threshold was chosen (the next-use
/// benchmark's figures in thresholds.toml), null when the threshold is not
/// the built-in one or has no such note.
fn as_json(config: &Config) -> Value {
    let src = |k: &str| {
        config
            .sources
            .get(k)
            .map_or_else(|| "default".to_string(), ToString::to_string)
    };
    let tools: Vec<Value> = config
        .tools
        .iter()
        .map(|t| {
            let k = format!("tools.{}", t.key);
            let threshold_source = src(&format!("{k}.threshold"));
            let basis = (threshold_source == "default")
                .then(|| toolcap_config::threshold_basis(&t.key))
                .flatten();
            let sources: serde_json::Map<String, Value> = [
                "family",
                "names",
                "threshold",
                "shape",
                "unit",
                "max_kept",
                "clean",
                "json",
            ]
            .iter()
            .map(|f| (f.to_string(), Value::from(src(&format!("{k}.{f}")))))
            .collect();
            json!({
                "key": t.key,
                "family": t.family.as_str(),
                "names": t.names,
                "threshold": t.threshold,
                "threshold_basis": basis,
                "shape": t.shape.as_str(),
                "unit": t.unit.name(),
                "max_kept": t.max_kept,
                "clean": t.clean,
                "json": t.json,
                "args": t.args,
                "sources": sources,
            })
        })
        .collect();
    let suggest: serde_json::Map<String, Value> = config
        .suggest
        .fields()
        .into_iter()
        .map(|(tool, fields)| {
            let f: serde_json::Map<String, Value> = fields
                .into_iter()
                .map(|(k, v)| (k.to_string(), Value::from(v)))
                .collect();
            (tool.to_string(), Value::Object(f))
        })
        .collect();
    json!({
        "max_kept_chars": config.max_kept_chars,
        "max_kept_tokens": config.max_kept_tokens,
        "bypass": config.bypass,
        "tools": tools,
        "suggest": { "preset": config.suggest.preset, "tools": suggest },
        "sources": {
            "max_kept_chars": src("max_kept_chars"),
            "max_kept_tokens": src("max_kept_tokens"),
            "bypass": src("bypass"),
            "suggest.preset": src("suggest.preset"),
        },
    })
}

pub fn tools(a: ToolsArgs) -> Result<(), Failure> {
    let config = load_config(a.config.as_deref())?;
    let format = match a.format {
        FormatArg::Openai => ToolFormat::OpenAi,
        FormatArg::Anthropic => ToolFormat::Anthropic,
    };
    let defs = definitions(format, config.max_kept_chars);
    let text = serde_json::to_string_pretty(&defs).map_err(|e| other(e.to_string()))?;
    write_out(format!("{text}\n").as_bytes())
}
