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

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

pub mod metrics;

use crate::store::lines::{MAX_CONTEXT, Search, SearchOptions, search};
use crate::store::{
    ListCursor, ListPage, Meta, ResultStore, StoreError, StoreErrorKind, validate_id,
};

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

#[derive(Clone)]
struct AppState {
    store: Arc<dyn ResultStore>,
    token: Option<Arc<str>>,
}

/// The routes over `store`; with a `token`, every request must send
/// `Authorization: Bearer <token>`.
pub fn router(store: Arc<dyn ResultStore>, token: Option<String>) -> Router {
    let state = AppState {
        store,
        token: token.map(Arc::from),
    };
    Router::new()
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics_route))
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
    listener.set_nonblocking(true)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        serve_connections(listener, router(store, token), limits, shutdown_signal()).await;
        Ok(())
    })
    // dropping the runtime drops the connections still open past the deadline
}

/// Accept connections (at most `limits.max_connections` open at once) and serve
/// each with hyper's HTTP/1 connection, whose header-read timer closes slow and
/// idle clients, until `shutdown` completes; then let the open connections finish
/// for at most `limits.shutdown_timeout`.
async fn serve_connections(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl std::future::Future<Output = ()>,
) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    use hyper_util::service::TowerToHyperService;
    use tokio::sync::Semaphore;

    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            p = slots.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let stream = tokio::select! {
            r = listener.accept() => match r {
                Ok((stream, _)) => stream,
                Err(_) => {
                    // out of file descriptors or a connection reset before it was
                    // accepted: give the open connections a moment to close
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        let io = JsonParseErrors::new(TokioIo::new(stream));
        let conn = graceful.watch(http.serve_connection(io, service));
        tokio::spawn(async move {
            // a client that went away or sent a malformed request: nothing to report
            let _ = conn.await;
            drop(permit);
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(limits.shutdown_timeout, graceful.shutdown()).await;
}

/// The connection's bytes, with hyper's own answers to requests it cannot parse
/// (a raw NUL or 0xFF in the path: 400; a request target over 64 KiB: 414; headers
/// over its buffer: 431), which have empty bodies, given the API's JSON error
/// shape. Those are the only responses with `content-length: 0` (every response of
/// the routes has a JSON body), and hyper closes the connection after them.
struct JsonParseErrors<T> {
    inner: T,
    /// A rewritten error response not yet written, and how much of it was.
    pending: Vec<u8>,
    written: usize,
}

impl<T> JsonParseErrors<T> {
    fn new(inner: T) -> JsonParseErrors<T> {
        JsonParseErrors {
            inner,
            pending: Vec::new(),
            written: 0,
        }
    }
}

/// The JSON error response for one of hyper's automatic (empty) error responses.
fn json_parse_error(head: &[u8]) -> Option<Vec<u8>> {
    // cheap first: hyper's head is short; every other write passes at once
    if head.len() > 512 || !head.starts_with(b"HTTP/1.1 4") {
        return None;
    }
    let text = std::str::from_utf8(head).ok()?;
    if !text.ends_with("\r\n\r\n")
        || !text
            .to_ascii_lowercase()
            .contains("\r\ncontent-length: 0\r\n")
    {
        return None;
    }
    let status = text.strip_prefix("HTTP/1.1 ")?.get(..3)?;
    let (code, message) = match status {
        "400" => (
            "malformed_request",
            "the request cannot be read as HTTP/1.1: a byte that is not allowed in the request line or a header (e.g. a raw NUL, space or 0xFF in the path); percent-encode ids as UTF-8".to_string(),
        ),
        "414" => (
            "uri_too_long",
            format!("the request target is longer than the server reads; the limit is {MAX_URI_BYTES} bytes"),
        ),
        "431" => (
            "headers_too_large",
            "the request's headers are larger than the server reads; send fewer or shorter headers".to_string(),
        ),
        _ => return None,
    };
    let reason = text.get(13..text.find("\r\n")?).unwrap_or("");
    let mut body = json!({"error": {"code": code, "message": message}}).to_string();
    body.push('\n');
    Some(
        format!(
            "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )
}

impl<T: hyper::rt::Write + Unpin> JsonParseErrors<T> {
    /// Write what is left of a rewritten response.
    fn poll_pending(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        use std::task::Poll;
        while self.written < self.pending.len() {
            match std::pin::Pin::new(&mut self.inner).poll_write(cx, &self.pending[self.written..])
            {
                Poll::Ready(Ok(0)) => {
                    return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into()));
                }
                Poll::Ready(Ok(n)) => self.written += n,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
        self.pending.clear();
        self.written = 0;
        Poll::Ready(Ok(()))
    }
}

impl<T: hyper::rt::Read + Unpin> hyper::rt::Read for JsonParseErrors<T> {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: hyper::rt::ReadBufCursor<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<T: hyper::rt::Write + Unpin> hyper::rt::Write for JsonParseErrors<T> {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        use std::task::Poll;
        let this = self.get_mut();
        if let Poll::Ready(Err(e)) = this.poll_pending(cx) {
            return Poll::Ready(Err(e));
        }
        if !this.pending.is_empty() {
            return Poll::Pending;
        }
        if let Some(json) = json_parse_error(buf) {
            this.pending = json;
            this.written = 0;
            // taken whole: what is left is written by the next call or the flush
            if let Poll::Ready(Err(e)) = this.poll_pending(cx) {
                return Poll::Ready(Err(e));
            }
            return Poll::Ready(Ok(buf.len()));
        }
        std::pin::Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let this = self.get_mut();
        std::task::ready!(this.poll_pending(cx))?;
        std::pin::Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let this = self.get_mut();
        std::task::ready!(this.poll_pending(cx))?;
        std::pin::Pin::new(&mut this.inner).poll_shutdown(cx)
    }

    // one buffer a write, so a response head is seen whole
    fn is_write_vectored(&self) -> bool {
        false
    }
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// An error response: `{"error": {"code": ..., "message": ...}}`.
struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
}

impl ApiError {
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }

    fn bad_request(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, message)
    }

    fn store(e: StoreError) -> ApiError {
        match e.kind() {
            StoreErrorKind::InvalidId => ApiError::bad_request("invalid_id", e.to_string()),
            // the database server is down or refuses connections: try again later
            StoreErrorKind::Connect(_) => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "store_unavailable",
                e.to_string(),
            ),
            _ => ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "store_failed",
                e.to_string(),
            ),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"error": {"code": self.code, "message": self.message}});
        let mut resp = json_response(self.status, &body);
        if self.status == StatusCode::UNAUTHORIZED {
            resp.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            resp.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from_static(RETRY_AFTER_SECONDS),
            );
        }
        resp
    }
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    let mut text = body.to_string();
    text.push('\n');
    let mut resp = (status, text).into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

/// A 200 response, refused when it would exceed [`MAX_RESPONSE_BYTES`].
fn ok_json(body: &Value) -> Result<Response, ApiError> {
    let len = body.to_string().len();
    if len > MAX_RESPONSE_BYTES {
        return Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "response_too_large",
            format!(
                "the response would be {len} bytes, more than the {MAX_RESPONSE_BYTES} allowed; ask for a smaller page with ?limit="
            ),
        ));
    }
    Ok(json_response(StatusCode::OK, body))
}

/// Size caps and the bearer token, before any route runs.
async fn guard(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let uri_len = req.uri().path_and_query().map_or(0, |pq| pq.as_str().len());
    if uri_len > MAX_URI_BYTES {
        return ApiError::new(
            StatusCode::URI_TOO_LONG,
            "uri_too_long",
            format!("the request target is {uri_len} bytes, more than the {MAX_URI_BYTES} allowed"),
        )
        .into_response();
    }
    let body_len = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let chunked = req.headers().contains_key(header::TRANSFER_ENCODING);
    if chunked || body_len.is_some_and(|n| n > MAX_BODY_BYTES) {
        return ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            format!(
                "request bodies are limited to {MAX_BODY_BYTES} bytes with a Content-Length; every endpoint is a GET without a body"
            ),
        )
        .into_response();
    }
    if let Some(token) = &state.token {
        let sent = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(bearer_credentials);
        let ok = sent.is_some_and(|s| same_secret(s.as_bytes(), token.as_bytes()));
        if !ok {
            let message = if sent.is_some() {
                "the bearer token does not match TOOLCAP_TOKEN"
            } else {
                "send `Authorization: Bearer <token>` with the server's TOOLCAP_TOKEN"
            };
            return ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
                .into_response();
        }
    }
    next.run(req).await
}

/// The credentials of an `Authorization: Bearer <token>` value; the scheme name is
/// case-insensitive (RFC 9110, section 11.1).
fn bearer_credentials(value: &str) -> Option<&str> {
    let value = value.trim_start();
    let (scheme, rest) = value.split_once([' ', '\t'])?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| rest.trim())
        .filter(|t| !t.is_empty())
}

/// Compare two secrets in time independent of where they differ.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn healthz() -> Response {
    json_response(StatusCode::OK, &json!({"status": "ok"}))
}

async fn metrics_route(
    State(state): State<AppState>,
    uri: axum::http::Uri,
) -> Result<Response, ApiError> {
    query_pairs(uri.query(), &[])?;
    let store = state.store.clone();
    let usage = blocking(move || store.usage(&Default::default())).await?;
    let report = usage
        .as_ref()
        .map(crate::store::record::stats::report)
        .unwrap_or_default();
    let body = metrics::openmetrics(&report, usage.is_some()).map_err(|e| {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "metrics_failed",
            format!("the metrics could not be written: {e}"),
        )
    })?;
    let mut resp = (StatusCode::OK, body).into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(metrics::CONTENT_TYPE),
    );
    Ok(resp)
}

async fn not_found_route(method: Method, uri: axum::http::Uri) -> Response {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!(
            "no endpoint at {method} {}; the endpoints are GET /healthz and GET /api/dialogs/{{dialog_id}}/tool-results[/{{tool_call_id}}[/metadata]]",
            uri.path()
        ),
    )
    .into_response()
}

async fn method_not_allowed(method: Method, uri: axum::http::Uri) -> Response {
    let mut resp = ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!(
            "{method} {}: the endpoint is read-only; use GET",
            uri.path()
        ),
    )
    .into_response();
    resp.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("GET,HEAD"));
    resp
}

/// Path parameters, decoded and validated as store ids.
fn ids<T>(path: Result<Path<T>, PathRejection>) -> Result<T, ApiError> {
    path.map(|Path(p)| p).map_err(|e| {
        ApiError::bad_request(
            "invalid_id",
            format!("the ids in the path cannot be read ({e}); percent-encode them as UTF-8"),
        )
    })
}

/// The dialog and tool call ids of a result's path, read and checked.
fn result_ids(
    path: Result<Path<(String, String)>, PathRejection>,
) -> Result<(String, String), ApiError> {
    let (dialog_id, tool_call_id) = ids(path)?;
    check_ids(&dialog_id, Some(&tool_call_id))?;
    Ok((dialog_id, tool_call_id))
}

fn check_ids(dialog_id: &str, tool_call_id: Option<&str>) -> Result<(), ApiError> {
    validate_id("dialog id", dialog_id)
        .map_err(|e| ApiError::bad_request("invalid_id", e.to_string()))?;
    if let Some(id) = tool_call_id {
        validate_id("tool_call_id", id)
            .map_err(|e| ApiError::bad_request("invalid_id", e.to_string()))?;
    }
    Ok(())
}

/// The query string's `key=value` pairs, percent-decoded. A key outside `allowed`
/// or given twice is refused, so a typo is not silently ignored.
fn query_pairs(query: Option<&str>, allowed: &[&str]) -> Result<Vec<(String, String)>, ApiError> {
    let pairs: Vec<(String, String)> =
        serde_urlencoded::from_str(query.unwrap_or("")).map_err(|e| {
            ApiError::bad_request(
                "invalid_query",
                format!(
                    "the query string cannot be read ({e}); percent-encode its values as UTF-8"
                ),
            )
        })?;
    for (i, (key, _)) in pairs.iter().enumerate() {
        if !allowed.contains(&key.as_str()) {
            return Err(ApiError::bad_request(
                "invalid_query",
                if allowed.is_empty() {
                    format!(
                        "unknown query parameter {}; this endpoint takes none",
                        json!(key)
                    )
                } else {
                    format!(
                        "unknown query parameter {}; the parameters are {}",
                        json!(key),
                        allowed.join(", ")
                    )
                },
            ));
        }
        if pairs[..i].iter().any(|(k, _)| k == key) {
            return Err(ApiError::bad_request(
                "invalid_query",
                format!("query parameter {key} is given twice; give it once"),
            ));
        }
    }
    Ok(pairs)
}

/// A non-negative integer query value.
fn uint(key: &str, value: &str, unit: &str) -> Result<usize, ApiError> {
    // digits only: `str::parse` would take a leading `+`
    let digits = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit());
    digits
        .then(|| value.parse::<usize>().ok())
        .flatten()
        .ok_or_else(|| {
            ApiError::bad_request(
                "invalid_query",
                format!("{key}={value:?}: expected a non-negative integer ({unit})"),
            )
        })
}

/// A `limit`-like query value: an integer from 1 to `max`.
fn bounded(key: &str, value: &str, max: usize, unit: &str) -> Result<usize, ApiError> {
    let n = uint(key, value, unit)?;
    if n == 0 || n > max {
        return Err(ApiError::bad_request(
            "invalid_query",
            format!("{key}={n}: pass 1 to {max} ({unit})"),
        ));
    }
    Ok(n)
}

/// `offset` and `limit` from the query string: non-negative integers, `limit` at
/// least 1 and at most `max`. Other parameters are refused.
fn paging(
    query: Option<&str>,
    default_limit: usize,
    max: usize,
    unit: &str,
) -> Result<(usize, usize), ApiError> {
    let (mut offset, mut limit) = (0usize, default_limit);
    for (key, value) in query_pairs(query, &["offset", "limit"])? {
        if key == "offset" {
            offset = uint(&key, &value, unit)?;
        } else {
            limit = bounded(&key, &value, max, unit)?;
        }
    }
    Ok((offset, limit))
}

/// The pattern and options of a search, from the query string.
fn search_query(query: Option<&str>) -> Result<(String, SearchOptions), ApiError> {
    let mut pattern = None;
    let mut opts = SearchOptions::default();
    let keys = ["pattern", "context", "max_matches", "skip", "ignore_case"];
    for (key, value) in query_pairs(query, &keys)? {
        match key.as_str() {
            "pattern" => pattern = Some(value),
            "context" => opts.context = bounded_or_zero(&key, &value, MAX_CONTEXT, "lines")?,
            "max_matches" => {
                opts.max_matches = bounded(&key, &value, MAX_SEARCH_MATCHES, "matching lines")?
            }
            "skip" => opts.skip = uint(&key, &value, "matching lines")?,
            _ => {
                opts.ignore_case = match value.as_str() {
                    "true" | "1" => true,
                    "false" | "0" => false,
                    _ => {
                        return Err(ApiError::bad_request(
                            "invalid_query",
                            format!("ignore_case={value:?}: pass true or false"),
                        ));
                    }
                }
            }
        }
    }
    let Some(pattern) = pattern else {
        return Err(ApiError::bad_request(
            "invalid_query",
            "the pattern parameter is missing: pass ?pattern= with a percent-encoded regular expression",
        ));
    };
    Ok((pattern, opts))
}

/// An integer from 0 to `max`.
fn bounded_or_zero(key: &str, value: &str, max: usize, unit: &str) -> Result<usize, ApiError> {
    let n = uint(key, value, unit)?;
    if n > max {
        return Err(ApiError::bad_request(
            "invalid_query",
            format!("{key}={n}: pass 0 to {max} ({unit})"),
        ));
    }
    Ok(n)
}

/// Run a store read on the blocking pool.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, ApiError> {
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => r.map_err(ApiError::store),
        Err(e) => Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "store_failed",
            format!("the store read did not finish: {e}"),
        )),
    }
}

/// The error for a result that is not there: 410 `expired` (when and why) when
/// the store keeps a record of its expiry, else 404 `not_found`.
async fn missing(state: &AppState, dialog_id: &str, tool_call_id: &str) -> ApiError {
    let store = state.store.clone();
    let (d, id) = (dialog_id.to_string(), tool_call_id.to_string());
    match blocking(move || store.expired(&d, &id)).await {
        Ok(Some(gone)) => ApiError::new(StatusCode::GONE, "expired", gone.message()),
        Ok(None) => not_found(dialog_id, tool_call_id),
        Err(e) => e,
    }
}

/// `DELETE /api/dialogs/{dialog_id}/tool-results`: delete every result of the dialog
/// (and the records of its expired ones). Only a server started with a bearer
/// token deletes: without one the endpoints stay read-only.
async fn delete_dialog(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    uri: axum::http::Uri,
) -> Result<Response, ApiError> {
    let dialog_id = ids(path)?;
    check_ids(&dialog_id, None)?;
    query_pairs(uri.query(), &[])?;
    if state.token.is_none() {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "read_only",
            "this server was started without a bearer token, so it only reads; start it with TOOLCAP_TOKEN set and send `Authorization: Bearer <token>` to delete",
        ));
    }
    let store = state.store.clone();
    let d = dialog_id.clone();
    let deleted = blocking(move || store.delete_dialog(&d)).await?;
    ok_json(&json!({"dialog_id": dialog_id, "deleted": deleted}))
}

fn not_found(dialog_id: &str, tool_call_id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!(
            "no result stored under tool_call_id {} in dialog {}",
            json!(tool_call_id),
            json!(dialog_id)
        ),
    )
}

/// The metadata object of a result.
pub fn metadata_json(m: &Meta) -> Value {
    json!({
        "size_bytes": m.size.bytes,
        "size_chars": m.size.chars,
        "size_lines": m.size.lines,
        "truncated": m.truncated,
        "shown_chars": m.shown_chars,
        "created_at": m.created_at(),
        "created_at_ms": m.created_at_ms,
    })
}

/// A result's description without its output. Arguments over
/// [`MAX_ECHOED_ARGS_BYTES`] are left out and `tool_args_omitted` says so.
pub fn summary_json(m: &Meta) -> Value {
    let args_bytes = m.tool_args.to_string().len();
    let mut v = json!({
        "tool_call_id": m.tool_call_id,
        "dialog_id": m.dialog_id,
        "tool_name": m.tool_name,
        "tool_args": m.tool_args,
        // toolcap does not know whether the tool failed
        "status": "success",
        "metadata": metadata_json(m),
    });
    if args_bytes > MAX_ECHOED_ARGS_BYTES
        && let Value::Object(obj) = &mut v
    {
        obj.insert("tool_args".into(), Value::Null);
        obj.insert(
            "tool_args_omitted".into(),
            json!({
                "bytes": args_bytes,
                "message": format!(
                    "the tool arguments are {args_bytes} bytes of JSON, more than the {MAX_ECHOED_ARGS_BYTES} echoed over HTTP; `toolcap show --meta --dialog={} -- {}` (with the server's --store) prints them whole",
                    crate::quote::shell_word(&m.dialog_id).unwrap_or_default(),
                    crate::quote::shell_word(&m.tool_call_id).unwrap_or_default(),
                ),
            }),
        );
    }
    v
}

async fn get_metadata(
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, PathRejection>,
    uri: axum::http::Uri,
) -> Result<Response, ApiError> {
    let (dialog_id, tool_call_id) = result_ids(path)?;
    query_pairs(uri.query(), &[])?;
    let store = state.store.clone();
    let (d, id) = (dialog_id.clone(), tool_call_id.clone());
    let meta = blocking(move || store.meta(&d, &id)).await?;
    match meta {
        Some(m) => ok_json(&summary_json(&m)),
        None => Err(missing(&state, &dialog_id, &tool_call_id).await),
    }
}

async fn get_result(
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, PathRejection>,
    uri: axum::http::Uri,
) -> Result<Response, ApiError> {
    let (dialog_id, tool_call_id) = result_ids(path)?;
    let (offset, limit) = paging(
        uri.query(),
        DEFAULT_PAGE_CHARS,
        MAX_PAGE_CHARS,
        "characters",
    )?;
    let store = state.store.clone();
    let (d, id) = (dialog_id.clone(), tool_call_id.clone());
    let found = blocking(move || store.read_range(&d, &id, offset, limit)).await?;
    let Some((meta, text)) = found else {
        return Err(missing(&state, &dialog_id, &tool_call_id).await);
    };
    let total = meta.size.chars;
    // the rule of `toolcap fetch` and `fetch_tool_output`: an offset names a
    // character of the output, so the end itself is past it (an empty output's
    // offset 0 excepted)
    if offset >= total && !(offset == 0 && total == 0) {
        return Err(ApiError::bad_request(
            "invalid_query",
            format!(
                "offset={offset} is past the end of the result ({total} characters; the last offset is {})",
                total.saturating_sub(1)
            ),
        ));
    }
    let chars = crate::text::count_chars(&text);
    let end = offset + chars;
    let mut body = summary_json(&meta);
    if let Value::Object(obj) = &mut body {
        obj.insert(
            "page".into(),
            json!({
                "offset": offset,
                "chars": chars,
                "total_chars": total,
                "next_offset": if end < total { json!(end) } else { Value::Null },
            }),
        );
        obj.insert("result".into(), Value::String(text));
    }
    ok_json(&body)
}

async fn search_result(
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, PathRejection>,
    uri: axum::http::Uri,
) -> Result<Response, ApiError> {
    let (dialog_id, tool_call_id) = result_ids(path)?;
    let (pattern, opts) = search_query(uri.query())?;
    let store = state.store.clone();
    let (d, id, p) = (dialog_id.clone(), tool_call_id.clone(), pattern.clone());
    let found = blocking(move || {
        let meta = store.meta(&d, &id)?;
        Ok(match meta {
            Some(m) => Some((m, search(store.as_ref(), &d, &id, &p, &opts)?)),
            None => None,
        })
    })
    .await?;
    let (meta, found) = match found {
        Some((m, Search::Found(f))) => (m, f),
        None | Some((_, Search::NotStored)) => {
            return Err(missing(&state, &dialog_id, &tool_call_id).await);
        }
        Some((_, Search::Refused(why))) => return Err(ApiError::bad_request("invalid_query", why)),
    };
    let mut body = summary_json(&meta);
    if let Value::Object(obj) = &mut body {
        obj.insert("pattern".into(), Value::String(pattern));
        obj.insert("search".into(), json!(found));
    }
    ok_json(&body)
}

async fn list_results(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    uri: axum::http::Uri,
) -> Result<Response, ApiError> {
    let dialog_id = ids(path)?;
    check_ids(&dialog_id, None)?;
    let (offset, limit, cursor) = list_query(uri.query())?;
    let by_offset = cursor.is_none();
    let store = state.store.clone();
    let d = dialog_id.clone();
    // one page read in the query (one more result tells whether more follow),
    // and the count: the dialog's other results are never loaded
    let (total, mut page) = blocking(move || {
        let total = store.count(Some(&d))?;
        let page = if total == 0 {
            Vec::new()
        } else {
            store.list_page(&ListPage {
                dialog_id: Some(&d),
                after: cursor.as_ref(),
                offset,
                limit: limit.saturating_add(1),
            })?
        };
        Ok((total, page))
    })
    .await?;
    if total == 0 {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no results stored in dialog {}", json!(dialog_id)),
        ));
    }
    let mut more = page.len() > limit;
    page.truncate(limit);
    let mut items = Vec::new();
    // stay well under the response cap, whatever the arguments weigh
    let mut bytes = 256;
    let mut last = None;
    for m in &page {
        let item = summary_json(m);
        let n = item.to_string().len() + 1;
        if !items.is_empty() && bytes + n > MAX_RESPONSE_BYTES / 2 {
            more = true;
            break;
        }
        bytes += n;
        items.push(item);
        last = Some(m);
    }
    let next = offset.saturating_add(items.len());
    ok_json(&json!({
        "dialog_id": dialog_id,
        "total": total,
        // paging by cursor: where the page starts is the cursor, not a count
        "offset": if by_offset { json!(offset) } else { Value::Null },
        "next_offset": if by_offset && more { json!(next) } else { Value::Null },
        "next_cursor": match last {
            Some(m) if more => json!(ListCursor::after(m).token()),
            _ => Value::Null,
        },
        "items": items,
    }))
}

/// The dialog list's `?offset=&limit=&cursor=`: a cursor (`next_cursor` of the
/// page before) starts the page after that result, with no cost per result
/// before it.
fn list_query(query: Option<&str>) -> Result<(usize, usize, Option<ListCursor>), ApiError> {
    let (mut offset, mut limit, mut cursor) = (0usize, DEFAULT_LIST_ITEMS, None);
    for (key, value) in query_pairs(query, &["offset", "limit", "cursor"])? {
        match key.as_str() {
            "offset" => offset = uint(&key, &value, "results")?,
            "limit" => limit = bounded(&key, &value, MAX_LIST_ITEMS, "results")?,
            _ => {
                cursor = Some(ListCursor::parse(&value).ok_or_else(|| {
                    ApiError::bad_request(
                        "invalid_query",
                        format!(
                            "cursor={value:?}: not a cursor of this list; pass the next_cursor of the page before, as it was given"
                        ),
                    )
                })?);
            }
        }
    }
    if cursor.is_some() && offset > 0 {
        return Err(ApiError::bad_request(
            "invalid_query",
            "pass either cursor= or offset=, not both: a cursor already says where the page starts",
        ));
    }
    Ok((offset, limit, cursor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_addresses_need_the_flag_and_a_long_token() {
        let local: SocketAddr = "127.0.0.1:7878".parse().unwrap();
        let any: SocketAddr = "0.0.0.0:7878".parse().unwrap();
        let token = "0123456789abcdef";
        assert!(check_bind(local, false, None).is_ok());
        assert!(check_bind("[::1]:7878".parse().unwrap(), false, None).is_ok());
        let e = check_bind(any, false, Some(token)).unwrap_err();
        assert!(e.0.contains("needs --allow-remote"), "{e}");
        let e = check_bind(any, true, None).unwrap_err();
        assert!(e.0.contains("set TOOLCAP_TOKEN"), "{e}");
        assert!(check_bind(any, true, Some(token)).is_ok());
        let e = check_bind(local, false, Some("short")).unwrap_err();
        assert!(e.0.contains("is 5 characters long; use at least 16"), "{e}");
    }

    #[test]
    fn paging_refuses_what_it_cannot_honour() {
        assert_eq!(paging(None, 10, 100, "x").ok(), Some((0, 10)));
        assert_eq!(
            paging(Some("offset=5&limit=7"), 10, 100, "x").ok(),
            Some((5, 7))
        );
        for bad in [
            "limit=0",
            "limit=101",
            "offset=-1",
            "offset=1.5",
            "page=2",
            "limit=+5",
            "offset=+0",
            "limit=",
            "limit= 5",
        ] {
            let e = paging(Some(bad), 10, 100, "x").unwrap_err();
            assert_eq!(e.status, StatusCode::BAD_REQUEST, "{bad}");
        }
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive() {
        for ok in ["Bearer abc", "bearer abc", "BEARER  abc ", "bEaReR\tabc"] {
            assert_eq!(bearer_credentials(ok), Some("abc"), "{ok:?}");
        }
        for bad in ["Basic abc", "Bearerabc", "Bearer ", "abc"] {
            assert_eq!(bearer_credentials(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"abcd"));
    }
}
