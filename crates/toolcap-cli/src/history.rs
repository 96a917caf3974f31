//! `toolcap history`: a message history (JSON) with old tool results masked in
//! cache-stable batches ([`toolcap_core::history`]), printed as JSON.

use std::path::PathBuf;

use clap::Args;
use serde_json::Value;
use toolcap_core::history::{self, HistoryError, Policy, Recall};

use super::common::{load_config, other, read_input, usage, write_out};
use super::stored::{dialog_id, env_store, open_store, store_failure};

#[derive(Args)]
pub struct HistoryArgs {
    /// The history: a JSON array of messages, or an object holding one under
    /// "messages" (a file, or - / nothing for stdin).
    input: Option<PathBuf>,
    /// The policy, a JSON object (keep_tokens or keep_results,
    /// min_prunable_tokens, min_result_chars, protect_errors, protect_referenced,
    /// protect_ids, format); default: {} (50,000 tokens kept, 30,000-token batches).
    #[arg(long, value_name = "JSON")]
    policy: Option<String>,
    /// Keep masked results in this store (a SQLite file or a postgres:// URL; else
    /// $TOOLCAP_STORE), so each masked line's call reads them back. Without one
    /// the lines say the result was not kept.
    #[arg(long, value_name = "PATH")]
    store: Option<PathBuf>,
    /// The dialog the results belong to (else $TOOLCAP_DIALOG, else "default").
    #[arg(long, value_name = "D")]
    dialog: Option<String>,
    /// The configuration whose [suggest] section names the recovery call.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Print the report (messages, format, masked ids, batches, token figures)
    /// instead of the messages alone.
    #[arg(long)]
    json: bool,
}

pub fn history(a: HistoryArgs) -> Result<(), super::Failure> {
    let bytes = read_input(a.input.as_deref())?;
    let what = a
        .input
        .as_ref()
        .map_or_else(|| "stdin".to_string(), |p| p.display().to_string());
    let doc: Value = serde_json::from_slice(&bytes).map_err(|e| {
        usage(format!(
            "{what}: not JSON ({e}); give a JSON array of messages or an object with \"messages\""
        ))
    })?;
    let (messages, wrapped) = match &doc {
        Value::Array(m) => (m.clone(), false),
        Value::Object(o) => match o.get("messages") {
            Some(Value::Array(m)) => (m.clone(), true),
            _ => {
                return Err(usage(format!(
                    "{what}: an object without a \"messages\" array; give the messages as a JSON array"
                )));
            }
        },
        _ => {
            return Err(usage(format!(
                "{what}: expected a JSON array of messages or an object with \"messages\""
            )));
        }
    };
    let policy = match &a.policy {
        None => Policy::default(),
        Some(text) => {
            let v: Value = serde_json::from_str(text)
                .map_err(|e| usage(format!("--policy: not JSON ({e})")))?;
            Policy::from_json(&v).map_err(|e| usage(format!("--policy: {e}")))?
        }
    };
    let config = load_config(a.config.as_deref())?;
    let prepared = match a.store.clone().or_else(env_store) {
        None => history::prepare_messages(&messages, &policy),
        Some(spec) => {
            let dialog = dialog_id(a.dialog.clone())?;
            let store = open_store(spec.as_os_str())?;
            let recall = Recall {
                store: store.as_ref(),
                dialog: &dialog,
                config: &config,
            };
            history::prepare_messages_with(&messages, &policy, &recall)
        }
    }
    .map_err(|e| match e {
        HistoryError::Store(e) => store_failure(e),
        e => usage(format!("{what}: {e}")),
    })?;
    let out = if a.json {
        serde_json::to_value(&prepared).map_err(|e| other(e.to_string()))?
    } else if wrapped {
        let mut doc = doc;
        doc["messages"] = Value::Array(prepared.messages);
        doc
    } else {
        Value::Array(prepared.messages)
    };
    let mut text = out.to_string();
    text.push('\n');
    write_out(text.as_bytes())
}
