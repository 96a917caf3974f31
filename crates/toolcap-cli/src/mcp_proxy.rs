//! `toolcap mcp-proxy`: any MCP server behind a proxy that caps its results.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use toolcap_store::{MemoryStore, ResultStore};

use super::common::{Failure, load_config, other, usage};
use super::stored::{dialog_id, expire_on_open, expire_periodically, open_store};

#[derive(Args)]
pub struct McpProxyArgs {
    /// Keep full results in this store, a SQLite file or a postgres:// URL (else in
    /// memory for the proxy's lifetime).
    #[arg(long, value_name = "PATH")]
    store: Option<PathBuf>,
    /// The dialog (thread) results are kept under (else $TOOLCAP_DIALOG, else "default").
    #[arg(long, value_name = "D")]
    dialog: Option<String>,
    /// Without --store: the most MiB of results kept in memory; the oldest go
    /// first (asking for one then gets an "expired" reply), and a result larger
    /// than this is not kept at all.
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
    /// The client's model: its context window from [budget.models], so that a
    /// call whose _meta says only `toolcap/contextUsed` gets budgets that follow
    /// it (see docs/budgets.md).
    #[arg(long, value_name = "NAME")]
    model: Option<String>,
    /// The MCP server to start, after `--`: COMMAND ARGS...
    #[arg(last = true, required = true, value_name = "COMMAND")]
    command: Vec<std::ffi::OsString>,
}

pub fn mcp_proxy(a: McpProxyArgs) -> Result<(), Failure> {
    let config = load_config(a.config.as_deref())?;
    let dialog = dialog_id(a.dialog)?;
    let limit = a.memory_limit.saturating_mul(1 << 20);
    let (store, keep_limit): (Arc<dyn ResultStore>, _) = match a.store {
        Some(path) => (open_store(path.as_os_str())?, None),
        None => (Arc::new(MemoryStore::with_limit(limit)), Some(limit)),
    };
    let (program, args) = a
        .command
        .split_first()
        .ok_or_else(|| usage("mcp-proxy: name the MCP server to run after --, e.g. `toolcap mcp-proxy -- npx -y @modelcontextprotocol/server-filesystem .`"))?;
    let context = toolcap_core::bind::Context {
        model: a.model,
        ..toolcap_core::bind::Context::default()
    };
    context
        .check(&config)
        .map_err(|e| usage(format!("mcp-proxy --{e}")))?;
    expire_on_open(&*store, &config, "mcp-proxy");
    let _expiring = expire_periodically(store.clone(), &config, None, "mcp-proxy", true);
    let mut proxy = toolcap_mcp::Proxy::new(config, store, dialog).context(context);
    if let Some(max) = keep_limit {
        proxy = proxy.keep_at_most(max);
    }
    let code = toolcap_mcp::run(proxy, program, args).map_err(|e| other(e.to_string()))?;
    if code == 0 {
        Ok(())
    } else {
        Err(Failure {
            code: u8::try_from(code).unwrap_or(1).max(1),
            message: format!("mcp-proxy: the MCP server exited with status {code}"),
        })
    }
}
