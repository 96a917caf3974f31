//! `toolcap serve`: stored tool results over HTTP (cargo feature `server`).
//!
//! JSON endpoints over a [`ResultStore`], described by `openapi.json` at the
//! repository root:
//!
//! - `GET /api/dialogs/{dialog_id}/tool-results/{tool_call_id}`: one result with its
//!   metadata and a page of its output (`?offset=&limit=` in characters; a page never
//!   splits a character and names the `next_offset`).
//! - `GET /api/dialogs/{dialog_id}/tool-results/{tool_call_id}/metadata`: the metadata
//!   alone, read without the output.
//! - `GET /api/dialogs/{dialog_id}/tool-results/{tool_call_id}/search`: the lines of
//!   the output matching a regular expression (`?pattern=&context=&max_matches=&skip=
//!   &ignore_case=`), with their line numbers and context and the count of all matches.
//! - `GET /api/dialogs/{dialog_id}/tool-results`: a dialog's results (metadata), paged.
//! - `DELETE /api/dialogs/{dialog_id}/tool-results`: delete a dialog's results (on
//!   thread close); only a server started with a bearer token deletes (403
//!   `read_only` without one).
//! - `GET /healthz`.
//! - `GET /metrics`: the record's figures per tool (results seen, cut, chars saved,
//!   recovery calls by kind, the advised threshold) in the OpenMetrics text format
//!   Prometheus scrapes ([`metrics`]).
//!
//! Errors are `{"error": {"code": ..., "message": ...}}`: 400 for a malformed id or
//! query, 401 without the bearer token, 404 for an unknown dialog, id or route, 410
//! `expired` for a result that expired (the message says when and why), 405
//! for another method, 413/414 for an oversized request, 503 with `Retry-After` while
//! the store's database server cannot be reached. Only the store's results are
//! reachable: ids are keys into it, never paths.
//!
//! The server binds `127.0.0.1` unless told otherwise; any other address needs an
//! explicit opt-in and a bearer token ([`check_bind`]). When a token is set, every
//! request must carry it, `/healthz` included.

#![warn(missing_docs)]

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::middleware;
use axum::routing::get;

mod api;
mod conn;
pub mod metrics;
mod routes;

use self::api::guard;
use self::conn::{serve_connections, shutdown_signal};
use self::routes::{
    delete_dialog, get_metadata, get_result, healthz, list_results, method_not_allowed,
    metrics_route, not_found_route, report_route, search_result,
};
pub use self::routes::{metadata_json, summary_json};

use toolcap_store::ResultStore;

/// Characters of output in a page when the request names no `limit`.
pub const DEFAULT_PAGE_CHARS: usize = 65_536;
/// Most characters of output in one page: with JSON escaping (at most 6 bytes a
/// character) a page stays under 1.6 MB.
pub const MAX_PAGE_CHARS: usize = 262_144;
/// Results listed per page when the request names no `limit`.
pub const DEFAULT_LIST_ITEMS: usize = 100;
/// Most results listed in one page.
pub const MAX_LIST_ITEMS: usize = 1000;
/// Most matching lines in one search response.
pub const MAX_SEARCH_MATCHES: usize = 200;
/// Longest accepted request target (path and query), in bytes.
pub const MAX_URI_BYTES: usize = 8 * 1024;
/// Largest accepted request body, in bytes (every endpoint is a GET).
pub const MAX_BODY_BYTES: u64 = 1024;
/// Largest response body, in bytes; a list page stops early to stay under it.
pub const MAX_RESPONSE_BYTES: usize = 4 * 1024 * 1024;
/// Most bytes of a result's tool arguments (as JSON) echoed in a reply: larger
/// arguments are left out (`tool_args` is `null` and `tool_args_omitted` says their
/// size and how to read them), so a result whose call carried megabytes of
/// arguments stays readable within [`MAX_RESPONSE_BYTES`].
pub const MAX_ECHOED_ARGS_BYTES: usize = 64 * 1024;
/// Seconds a client is told to wait (`Retry-After`) when the store's database
/// cannot be reached (503).
pub const RETRY_AFTER_SECONDS: &str = "5";
/// Shortest accepted bearer token.
pub const MIN_TOKEN_CHARS: usize = 16;

/// Why the server will not start on an address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindRefused(pub String);

impl fmt::Display for BindRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BindRefused {}

/// Check that `addr` may be served: a loopback address always; any other one only
/// with `allow_remote` and a `token` of at least [`MIN_TOKEN_CHARS`] characters.
/// A token that is set at all must be that long.
pub fn check_bind(
    addr: SocketAddr,
    allow_remote: bool,
    token: Option<&str>,
) -> Result<(), BindRefused> {
    if let Some(t) = token {
        let n = t.chars().count();
        if n < MIN_TOKEN_CHARS {
            return Err(BindRefused(format!(
                "TOOLCAP_TOKEN is {n} characters long; use at least {MIN_TOKEN_CHARS} (e.g. the output of `openssl rand -hex 32`)"
            )));
        }
    }
    if addr.ip().is_loopback() {
        return Ok(());
    }
    if !allow_remote {
        return Err(BindRefused(format!(
            "--listen {addr}: not a loopback address; serving stored tool results beyond this machine needs --allow-remote and a bearer token in TOOLCAP_TOKEN"
        )));
    }
    if token.is_none() {
        return Err(BindRefused(format!(
            "--listen {addr} --allow-remote: set TOOLCAP_TOKEN (at least {MIN_TOKEN_CHARS} characters); every request must then send `Authorization: Bearer <token>`"
        )));
    }
    Ok(())
}

/// What answers `GET /report`: builds the page (HTML) on the blocking pool, per
/// request; an error is the reason it could not. `toolcap serve` passes the
/// builder of `toolcap report --html` over the served store.
pub type ReportPage = Arc<dyn Fn() -> Result<String, String> + Send + Sync>;

#[derive(Clone)]
struct AppState {
    store: Arc<dyn ResultStore>,
    token: Option<Arc<str>>,
    report: Option<ReportPage>,
}

/// The routes over `store`; with a `token`, every request must send
/// `Authorization: Bearer <token>`.
pub fn router(store: Arc<dyn ResultStore>, token: Option<String>) -> Router {
    router_with_report(store, token, None)
}

/// [`router`] with `GET /report` answered by `report` (404 without one).
pub fn router_with_report(
    store: Arc<dyn ResultStore>,
    token: Option<String>,
    report: Option<ReportPage>,
) -> Router {
    let state = AppState {
        store,
        token: token.map(Arc::from),
        report,
    };
    Router::new()
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics_route))
        .route("/report", get(report_route))
        .route(
            "/api/dialogs/{dialog_id}/tool-results",
            get(list_results).delete(delete_dialog),
        )
        .route(
            "/api/dialogs/{dialog_id}/tool-results/{tool_call_id}",
            get(get_result),
        )
        .route(
            "/api/dialogs/{dialog_id}/tool-results/{tool_call_id}/metadata",
            get(get_metadata),
        )
        .route(
            "/api/dialogs/{dialog_id}/tool-results/{tool_call_id}/search",
            get(search_result),
        )
        .fallback(not_found_route)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .with_state(state)
}

/// How `serve` treats slow, idle and numerous clients. Each default is chosen so a
/// client that sends nothing (or its headers a byte at a time) cannot keep a slot
/// for long, and so the open sockets stay well under the usual limit of 1,024 file
/// descriptors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most time a connection may take to send a request's headers, counted from
    /// when the server starts waiting for them: on a new connection, and again
    /// after each response on a kept-alive one (so it is the idle timeout too).
    /// Past it the connection is closed. Default 10 s.
    pub header_timeout: Duration,
    /// Most connections open at once. Past it new connections wait in the
    /// listening socket's queue until one closes. Default 2,048: each needs a file
    /// descriptor ([`fit_connections`] raises the process's limit to fit).
    pub max_connections: usize,
    /// On SIGINT or SIGTERM: most time the open connections get to finish their
    /// requests in flight before the process exits anyway. Default 5 s.
    pub shutdown_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_timeout: Duration::from_secs(10),
            max_connections: 2048,
            shutdown_timeout: Duration::from_secs(5),
        }
    }
}

/// File descriptors kept free of connections: the store, the listener, the runtime.
const RESERVED_FDS: usize = 64;

/// How many of `max` connections fit in the process's open-file limit, after
/// raising its soft limit toward the hard one as far as needed (Unix). A
/// connection past the limit could not be accepted, and a server that keeps
/// failing to accept answers nobody.
pub fn fit_connections(max: usize) -> usize {
    #[cfg(unix)]
    {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes into the struct it is given.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
            return max;
        }
        let want =
            libc::rlim_t::try_from(max.saturating_add(RESERVED_FDS)).unwrap_or(libc::rlim_t::MAX);
        if lim.rlim_cur < want {
            let raised = libc::rlimit {
                rlim_cur: want.min(lim.rlim_max),
                rlim_max: lim.rlim_max,
            };
            // SAFETY: setrlimit reads the struct it is given.
            if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
                lim.rlim_cur = raised.rlim_cur;
            }
        }
        let room = usize::try_from(lim.rlim_cur)
            .unwrap_or(usize::MAX)
            .saturating_sub(RESERVED_FDS)
            .max(1);
        max.min(room)
    }
    #[cfg(not(unix))]
    {
        max
    }
}

/// Serve `store` on `listener` until SIGINT or SIGTERM, on a single-threaded tokio
/// runtime (store reads run on its blocking pool), with the default [`Limits`].
/// Call [`check_bind`] first.
pub fn serve(
    store: Arc<dyn ResultStore>,
    token: Option<String>,
    listener: std::net::TcpListener,
) -> std::io::Result<()> {
    serve_with(store, token, listener, Limits::default())
}

/// [`serve`] with the given [`Limits`].
pub fn serve_with(
    store: Arc<dyn ResultStore>,
    token: Option<String>,
    listener: std::net::TcpListener,
    limits: Limits,
) -> std::io::Result<()> {
    serve_with_report(store, token, listener, limits, None)
}

/// [`serve_with`], `GET /report` answered by `report`.
pub fn serve_with_report(
    store: Arc<dyn ResultStore>,
    token: Option<String>,
    listener: std::net::TcpListener,
    limits: Limits,
    report: Option<ReportPage>,
) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let app = router_with_report(store, token, report);
        serve_connections(listener, app, limits, shutdown_signal()).await;
        Ok(())
    })
    // dropping the runtime drops the connections still open past the deadline
}

#[cfg(test)]
mod tests;
