//! `toolcap mcp`: the recovery tools (`get_continuation`, `search_tool_output`,
//! `fetch_tool_output`) as a stdio MCP server over a store, so that an agent can
//! add them as native tools (`claude mcp add toolcap -- toolcap mcp`; `toolcap
//! install` adds it). The messages are handled by [`toolcap_mcp::Proxy`],
//! the same code that answers these tools behind `toolcap mcp-proxy`.

use std::path::PathBuf;

use clap::Args;

use super::common::{Failure, load_config};
use super::project::project_store_path;
use super::stored::{
    dialog_id, env_store, expire_on_open, expire_periodically, open_store_creating_dir,
};

#[derive(Args)]
pub struct McpArgs {
    /// The store: a SQLite file or a postgres:// URL (else $TOOLCAP_STORE, else the
    /// current project's store in the state directory, where `toolcap run` and the
    /// hooks keep outputs).
    #[arg(long, value_name = "SPEC")]
    store: Option<PathBuf>,
    /// The dialog (thread) results are read from (else $TOOLCAP_DIALOG, else "default").
    #[arg(long, value_name = "D")]
    dialog: Option<String>,
    /// User config merged over the built-in thresholds (else $TOOLCAP_CONFIG): the
    /// chunk size of get_continuation is its max_kept_chars.
    #[arg(long)]
    config: Option<PathBuf>,
}

pub fn mcp(a: McpArgs) -> Result<(), Failure> {
    let config = load_config(a.config.as_deref())?;
    let dialog = dialog_id(a.dialog)?;
    let spec = match a.store.or_else(env_store) {
        Some(s) => s,
        None => project_store_path()?,
    };
    let store = open_store_creating_dir(&spec, "; pass --store PATH")?;
    expire_on_open(&*store, &config, "mcp");
    let _expiring = expire_periodically(store.clone(), &config, None, "mcp", true);
    let proxy = toolcap_mcp::Proxy::new(config, store, dialog);
    toolcap_mcp::serve_recovery(&proxy);
    Ok(())
}
