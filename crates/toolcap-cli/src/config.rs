//! `toolcap config` (the effective settings) and `toolcap tools` (the recovery
//! tools' schemas).

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use toolcap_store::tools::{ToolFormat, definitions};

use super::common::{Failure, load_config, other, write_out};

#[derive(Args)]
pub struct ConfigArgs {
    #[arg(long)]
    config: Option<PathBuf>,
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
    write_out(config.describe().as_bytes())
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
