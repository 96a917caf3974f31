//! What every route shares: the JSON error shape, the bearer-token guard, and the
//! parsing of ids and query strings.

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::{
    AppState, MAX_BODY_BYTES, MAX_RESPONSE_BYTES, MAX_SEARCH_MATCHES, MAX_URI_BYTES,
    RETRY_AFTER_SECONDS,
};
use toolcap_store::lines::{MAX_CONTEXT, SearchOptions};
use toolcap_store::{StoreError, StoreErrorKind, validate_id};

/// An error response: `{"error": {"code": ..., "message": ...}}`.
pub(super) struct ApiError {
    pub(super) status: StatusCode,
    pub(super) code: &'static str,
    pub(super) message: String,
}

impl ApiError {
    pub(super) fn new(
        status: StatusCode,
        code: &'static str,
        message: impl Into<String>,
    ) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }

    pub(super) fn bad_request(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, message)
    }

    pub(super) fn store(e: StoreError) -> ApiError {
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

pub(super) fn json_response(status: StatusCode, body: &Value) -> Response {
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
pub(super) fn ok_json(body: &Value) -> Result<Response, ApiError> {
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
pub(super) async fn guard(State(state): State<AppState>, req: Request, next: Next) -> Response {
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
pub(super) fn bearer_credentials(value: &str) -> Option<&str> {
    let value = value.trim_start();
    let (scheme, rest) = value.split_once([' ', '\t'])?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| rest.trim())
        .filter(|t| !t.is_empty())
}

/// Compare two secrets in time independent of where they differ.
pub(super) fn same_secret(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Path parameters, decoded and validated as store ids.
pub(super) fn ids<T>(path: Result<Path<T>, PathRejection>) -> Result<T, ApiError> {
    path.map(|Path(p)| p).map_err(|e| {
        ApiError::bad_request(
            "invalid_id",
            format!("the ids in the path cannot be read ({e}); percent-encode them as UTF-8"),
        )
    })
}

/// The dialog and tool call ids of a result's path, read and checked.
pub(super) fn result_ids(
    path: Result<Path<(String, String)>, PathRejection>,
) -> Result<(String, String), ApiError> {
    let (dialog_id, tool_call_id) = ids(path)?;
    check_ids(&dialog_id, Some(&tool_call_id))?;
    Ok((dialog_id, tool_call_id))
}

pub(super) fn check_ids(dialog_id: &str, tool_call_id: Option<&str>) -> Result<(), ApiError> {
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
pub(super) fn query_pairs(
    query: Option<&str>,
    allowed: &[&str],
) -> Result<Vec<(String, String)>, ApiError> {
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
pub(super) fn uint(key: &str, value: &str, unit: &str) -> Result<usize, ApiError> {
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
pub(super) fn bounded(key: &str, value: &str, max: usize, unit: &str) -> Result<usize, ApiError> {
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
pub(super) fn paging(
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

/// A boolean query parameter: `true`/`1` or `false`/`0`.
fn flag(key: &str, value: &str) -> Result<bool, ApiError> {
    match value {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        _ => Err(ApiError::bad_request(
            "invalid_query",
            format!("{key}={value:?}: pass true or false"),
        )),
    }
}

/// The pattern and options of a search, from the query string.
pub(super) fn search_query(query: Option<&str>) -> Result<(String, SearchOptions), ApiError> {
    let mut pattern = None;
    let mut opts = SearchOptions::default();
    let keys = [
        "pattern",
        "context",
        "max_matches",
        "skip",
        "ignore_case",
        "from_end",
    ];
    for (key, value) in query_pairs(query, &keys)? {
        match key.as_str() {
            "pattern" => pattern = Some(value),
            "context" => opts.context = bounded_or_zero(&key, &value, MAX_CONTEXT, "lines")?,
            "max_matches" => {
                opts.max_matches = bounded(&key, &value, MAX_SEARCH_MATCHES, "matching lines")?;
            }
            "skip" => opts.skip = uint(&key, &value, "matching lines")?,
            "from_end" => opts.from_end = flag(&key, &value)?,
            _ => opts.ignore_case = flag(&key, &value)?,
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
pub(super) fn bounded_or_zero(
    key: &str,
    value: &str,
    max: usize,
    unit: &str,
) -> Result<usize, ApiError> {
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
pub(super) async fn blocking<T: Send + 'static>(
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
