//! The handlers of the routes [`super::router`] serves.

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::api::{
    ApiError, blocking, bounded, check_ids, ids, json_response, ok_json, paging, query_pairs,
    result_ids, search_query, uint,
};
use super::{
    AppState, DEFAULT_LIST_ITEMS, DEFAULT_PAGE_CHARS, MAX_ECHOED_ARGS_BYTES, MAX_LIST_ITEMS,
    MAX_PAGE_CHARS, MAX_RESPONSE_BYTES, metrics,
};
use toolcap_store::lines::{Search, search};
use toolcap_store::{ListCursor, ListPage, Meta};

pub(super) async fn healthz() -> Response {
    json_response(StatusCode::OK, &json!({"status": "ok"}))
}

pub(super) async fn metrics_route(
    State(state): State<AppState>,
    uri: axum::http::Uri,
) -> Result<Response, ApiError> {
    query_pairs(uri.query(), &[])?;
    let store = state.store.clone();
    let usage = blocking(move || store.usage(&Default::default())).await?;
    let report = usage
        .as_ref()
        .map(toolcap_store::record::stats::report)
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

/// `GET /report`: the page `toolcap report --html` writes, over the served store;
/// it loads nothing (the same Content-Security-Policy rides on the response).
pub(super) async fn report_route(
    State(state): State<AppState>,
    method: Method,
    uri: axum::http::Uri,
) -> Result<Response, ApiError> {
    query_pairs(uri.query(), &[])?;
    let Some(build) = state.report.clone() else {
        return Ok(not_found_route(method, uri).await);
    };
    let page = match tokio::task::spawn_blocking(move || build()).await {
        Ok(Ok(page)) => page,
        Ok(Err(e)) => {
            return Err(ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "report_failed",
                format!("the report could not be made: {e}"),
            ));
        }
        Err(e) => {
            return Err(ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "report_failed",
                format!("the report did not finish: {e}"),
            ));
        }
    };
    let mut resp = (StatusCode::OK, page).into_response();
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    Ok(resp)
}

pub(super) async fn not_found_route(method: Method, uri: axum::http::Uri) -> Response {
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

pub(super) async fn method_not_allowed(method: Method, uri: axum::http::Uri) -> Response {
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
pub(super) async fn delete_dialog(
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
                    toolcap_text::quote::shell_word(&m.dialog_id).unwrap_or_default(),
                    toolcap_text::quote::shell_word(&m.tool_call_id).unwrap_or_default(),
                ),
            }),
        );
    }
    v
}

pub(super) async fn get_metadata(
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

pub(super) async fn get_result(
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
    let chars = toolcap_text::text::count_chars(&text);
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

pub(super) async fn search_result(
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

pub(super) async fn list_results(
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
