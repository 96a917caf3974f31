//! `toolcap serve`: stored results over HTTP.

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::common::{Failure, load_config, other, usage};
use super::stored::{expire_on_open, expire_periodically, store_failure, store_location};

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
    /// Seconds a client gets to send a request's headers (on a new connection and
    /// between requests on a kept-alive one); past them the connection is closed.
    #[arg(long, value_name = "SECS", default_value_t = 10.0, value_parser = seconds)]
    header_timeout: f64,
    /// Most connections open at once; more wait until one closes.
    #[arg(long, value_name = "N", default_value_t = 2048, value_parser = clap::value_parser!(u32).range(1..=65_536))]
    max_connections: u32,
    /// On SIGINT/SIGTERM: seconds the requests in flight get to finish before exit.
    #[arg(long, value_name = "SECS", default_value_t = 5.0, value_parser = seconds)]
    shutdown_timeout: f64,
    /// How often to expire results by [store] keep and max_bytes while serving, like
    /// 10m or 30s (else [store] expire_every of the config, 10m).
    #[arg(long, value_name = "INTERVAL", value_parser = interval)]
    expire_every: Option<Duration>,
    /// User config merged over the built-in one (else $TOOLCAP_CONFIG): its [store]
    /// section says how long and how much the store keeps.
    #[arg(long)]
    config: Option<PathBuf>,
}

/// An interval like 10m or 30s (more than zero).
fn interval(s: &str) -> Result<Duration, String> {
    toolcap_store::parse_age(s)
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            format!(
                "{s:?}: pass a number greater than 0 and a unit (s, m, h, d, w), like 10m or 30s"
            )
        })
}

/// A duration in seconds: a number from 0.001 to 86,400.
fn seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a number of seconds (e.g. 10 or 0.5)"))?;
    if !(0.001..=86_400.0).contains(&v) {
        return Err(format!("{s}: pass 0.001 to 86400 seconds"));
    }
    Ok(v)
}

pub fn serve(a: ServeArgs) -> Result<(), Failure> {
    let ServeArgs {
        store,
        listen,
        allow_remote,
        header_timeout,
        max_connections,
        shutdown_timeout,
        expire_every,
        config,
    } = a;
    let config = load_config(config.as_deref())?;
    let max_connections = max_connections as usize;
    let fit = toolcap_serve::fit_connections(max_connections);
    if fit < max_connections {
        let _ = writeln!(
            io::stderr(),
            "toolcap serve: --max-connections {max_connections}: only {fit} fit in the open-file limit (`ulimit -n`); serving at most {fit} at once"
        );
    }
    let limits = toolcap_serve::Limits {
        header_timeout: Duration::from_secs_f64(header_timeout),
        max_connections: fit,
        shutdown_timeout: Duration::from_secs_f64(shutdown_timeout),
    };
    let token = std::env::var("TOOLCAP_TOKEN")
        .ok()
        .filter(|t| !t.is_empty());
    toolcap_serve::check_bind(listen, allow_remote, token.as_deref())
        .map_err(|e| usage(e.to_string()))?;
    let path = store_location(store)?;
    let s = path.open().map_err(store_failure)?;
    expire_on_open(&*s, &config, "serve");
    let _expiring = expire_periodically(s.clone(), &config, expire_every, "serve", true);
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
    // GET /report: the page of `toolcap report --html` over this store (SQLite)
    let report = path.file_path().map(|db| {
        let (db, config) = (db.to_path_buf(), config.clone());
        let build: toolcap_serve::ReportPage =
            std::sync::Arc::new(move || Ok(super::report::page_for_store(&db, &config)));
        build
    });
    toolcap_serve::serve_with_report(s, token, listener, limits, report)
        .map_err(|e| other(format!("serve on {local}: {e}")))
}
