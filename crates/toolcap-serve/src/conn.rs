//! The connections of `toolcap serve`: accepting them within the limits, hyper's own
//! parse errors given the API's JSON shape, and shutdown on SIGINT or SIGTERM.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use serde_json::json;

use super::{Limits, MAX_URI_BYTES};

/// Accept connections (at most `limits.max_connections` open at once) and serve
/// each with hyper's HTTP/1 connection, whose header-read timer closes slow and
/// idle clients, until `shutdown` completes; then let the open connections finish
/// for at most `limits.shutdown_timeout`.
pub(super) async fn serve_connections(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
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
pub(super) struct JsonParseErrors<T> {
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
pub(super) fn json_parse_error(head: &[u8]) -> Option<Vec<u8>> {
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

pub(super) async fn shutdown_signal() {
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
