//! `toolcap serve`: stored results over HTTP.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;

use super::common::{Failure, other, usage};
use super::stored::{store_failure, store_location};

#[derive(Args)]
pub struct ServeArgs {
    /// The store: a SQLite file or a postgres:// URL (else $TOOLCAP_STORE, else the
    /// default path); created if missing.
    #[arg(long, value_name = "PATH")]
    store: Option<PathBuf>,
    /// Address to listen on (port 0: any free port, printed at start).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7878")]
    listen: std::net::SocketAddr,
    /// Allow a non-loopback --listen address; needs a bearer token in $TOOLCAP_TOKEN.
    #[arg(long)]
    allow_remote: bool,
}

pub fn serve(a: ServeArgs) -> Result<(), Failure> {
    let ServeArgs {
        store,
        listen,
        allow_remote,
    } = a;
    let token = std::env::var("TOOLCAP_TOKEN")
        .ok()
        .filter(|t| !t.is_empty());
    toolcap::serve::check_bind(listen, allow_remote, token.as_deref())
        .map_err(|e| usage(e.to_string()))?;
    let path = store_location(store)?;
    let s = path.open().map_err(store_failure)?;
    let listener = std::net::TcpListener::bind(listen).map_err(|e| {
        other(format!(
            "--listen {listen}: cannot listen there: {e}; pass another address or port (port 0 picks a free one)"
        ))
    })?;
    let local = listener
        .local_addr()
        .map_err(|e| other(format!("--listen {listen}: {e}")))?;
    let _ = writeln!(
        io::stderr(),
        "toolcap serve: listening on http://{local} (store {path}{})",
        if token.is_some() {
            "; bearer token required"
        } else {
            ""
        }
    );
    toolcap::serve::serve(s, token, listener).map_err(|e| other(format!("serve on {local}: {e}")))
}
