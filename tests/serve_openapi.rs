//! openapi.json against the running server: every documented operation and response
//! is exercised over a real socket, every body is checked against its schema, and the
//! documented limits are the server's.
#![cfg(feature = "server")]

use crate::serve_support;

use std::collections::BTreeSet;

use serde_json::Value;
use serve_support::{Resp, Server, fill_store, pct, request};

const TOKEN: &str = "openapi-walk-token-0123";

fn spec() -> Value {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/openapi.json"))
        .expect("openapi.json at the repository root");
    serde_json::from_str(&text).expect("openapi.json is JSON")
}

/// Follow a `#/...` reference.
fn resolve<'a>(root: &'a Value, v: &'a Value) -> &'a Value {
    match v.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let ptr = r.strip_prefix('#').expect("a local $ref");
            let target = root
                .pointer(ptr)
                .unwrap_or_else(|| panic!("$ref {r} points nowhere"));
            resolve(root, target)
        }
        None => v,
    }
}

fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Check `v` against the JSON-schema subset openapi.json uses; errors name the place.
fn validate(root: &Value, schema: &Value, v: &Value, at: &str, errors: &mut Vec<String>) {
    let schema = resolve(root, schema);
    if let Some(t) = schema.get("type") {
        let allowed: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let actual = type_of(v);
        if !allowed
            .iter()
            .any(|a| *a == actual || (*a == "number" && actual == "integer"))
        {
            errors.push(format!("{at}: {actual}, expected {allowed:?}"));
            return;
        }
    }
    if let Some(e) = schema.get("enum").and_then(Value::as_array)
        && !e.contains(v)
    {
        errors.push(format!("{at}: {v} not in {e:?}"));
    }
    if let Some(c) = schema.get("const")
        && c != v
    {
        errors.push(format!("{at}: {v} is not {c}"));
    }
    if let (Some(min), Some(n)) = (schema.get("minimum").and_then(Value::as_i64), v.as_i64())
        && n < min
    {
        errors.push(format!("{at}: {n} < minimum {min}"));
    }
    if let Value::Object(obj) = v {
        let props = schema.get("properties").and_then(Value::as_object);
        for req in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let key = req.as_str().unwrap_or_default();
            if !obj.contains_key(key) {
                errors.push(format!("{at}: missing required {key:?}"));
            }
        }
        for (k, val) in obj {
            match props.and_then(|p| p.get(k)) {
                Some(s) => validate(root, s, val, &format!("{at}.{k}"), errors),
                None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    errors.push(format!("{at}: undocumented property {k:?}"));
                }
                None => {}
            }
        }
    }
    if let (Value::Array(items), Some(s)) = (v, schema.get("items")) {
        for (i, item) in items.iter().enumerate() {
            validate(root, s, item, &format!("{at}[{i}]"), errors);
        }
    }
}

/// Check a response against the operation's documented response for its status.
fn check(root: &Value, op: &Value, what: &str, r: &Resp) {
    let status = r.status.to_string();
    let documented = op["responses"]
        .get(&status)
        .unwrap_or_else(|| panic!("{what}: status {status} is not documented"));
    let documented = resolve(root, documented);
    let schema = documented
        .pointer("/content/application~1json/schema")
        .unwrap_or_else(|| panic!("{what}: {status} documents no JSON body"));
    assert_eq!(r.header("content-type"), Some("application/json"), "{what}");
    let mut errors = Vec::new();
    validate(root, schema, &r.json(), "$", &mut errors);
    assert!(
        errors.is_empty(),
        "{what} ({status}) does not match openapi.json:\n{}",
        errors.join("\n")
    );
    if let Some(headers) = documented.get("headers").and_then(Value::as_object) {
        for name in headers.keys() {
            assert!(
                r.header(&name.to_ascii_lowercase()).is_some(),
                "{what}: header {name} missing"
            );
        }
    }
}

/// Fill a path template with real ids.
fn fill(template: &str, dialog: &str, id: &str) -> String {
    template
        .replace("{dialog_id}", dialog)
        .replace("{tool_call_id}", id)
}

/// An operation's query parameters, resolved.
fn query_params<'a>(root: &'a Value, op: &'a Value) -> Vec<&'a Value> {
    op.get("parameters")
        .and_then(Value::as_array)
        .map(|ps| {
            ps.iter()
                .map(|p| resolve(root, p))
                .filter(|p| p["in"] == "query")
                .collect()
        })
        .unwrap_or_default()
}

/// `?name=example&...` for an operation's required query parameters (each must
/// document an example), or "" when it has none.
fn required_query(root: &Value, op: &Value, what: &str) -> String {
    let pairs: Vec<String> = query_params(root, op)
        .into_iter()
        .filter(|p| p["required"] == true)
        .map(|p| {
            let example = p["example"]
                .as_str()
                .unwrap_or_else(|| panic!("{what}: required {} has no example", p["name"]));
            format!("{}={}", p["name"].as_str().unwrap(), pct(example))
        })
        .collect();
    if pairs.is_empty() {
        String::new()
    } else {
        format!("?{}", pairs.join("&"))
    }
}

#[test]
fn every_documented_operation_and_response_is_what_the_server_does() {
    let root = spec();
    assert_eq!(root["openapi"], "3.1.0");
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    fill_store(&store);
    {
        // a dialog for DELETE to close, and a result that expires when the server
        // opens the store (older than the default `[store] keep` of 7 days)
        use toolcap::store::{Record, ResultStore, SqliteStore};
        let st = SqliteStore::open(&store).unwrap();
        st.put(&Record::new(
            "d_close",
            "c1",
            "bash",
            &serde_json::json!({}),
            "x\n",
        ))
        .unwrap();
        let mut old = Record::new(
            "d1",
            "call_expired",
            "bash",
            &serde_json::json!({}),
            "old\n",
        );
        old.meta.created_at_ms -= 8 * 86_400_000;
        st.put(&old).unwrap();
    }
    let s = Server::start(&store, Some(TOKEN));
    // without a token the server only reads
    let read_only = Server::start(&store, None);

    let mut exercised = BTreeSet::new();
    let mut documented = BTreeSet::new();
    let paths = root["paths"].as_object().expect("paths");
    assert_eq!(paths.len(), 5, "one path per endpoint");
    for (template, item) in paths {
        for (method, op) in item.as_object().unwrap() {
            assert!(
                method == "get" || method == "delete",
                "{template}: a GET or a DELETE"
            );
            let verb = method.to_uppercase();
            for status in op["responses"].as_object().unwrap().keys() {
                documented.insert(format!("{verb} {template} {status}"));
            }
            let what = |status: &str| format!("{verb} {template} ({status})");
            let mut run_at = |addr, target: String, token: Option<&str>, expect: u16| {
                let auth = token.map(|t| format!("Bearer {t}"));
                let headers: Vec<(&str, &str)> = auth
                    .as_deref()
                    .map(|a| vec![("Authorization", a)])
                    .unwrap_or_default();
                let r = request(addr, &verb, &target, &headers, b"");
                assert_eq!(r.status, expect, "{verb} {target}: {}", r.excerpt());
                check(&root, op, &what(&expect.to_string()), &r);
                exercised.insert(format!("{verb} {template} {expect}"));
                r
            };
            let mut run = |target: String, token: Option<&str>, expect: u16| {
                run_at(s.addr, target, token, expect)
            };
            let query = required_query(&root, op, &what("200"));
            if method == "delete" {
                let ok = fill(template, "d_close", "");
                let r = run(ok.clone(), Some(TOKEN), 200);
                assert_eq!(
                    r.json(),
                    serde_json::json!({"dialog_id": "d_close", "deleted": 1})
                );
                // deleting again, or a dialog that never was, deletes nothing
                let r = run(ok.clone(), Some(TOKEN), 200);
                assert_eq!(r.json()["deleted"], 0);
                run(ok.clone(), None, 401);
                run(fill(template, "%0A", ""), Some(TOKEN), 400);
                run(format!("{ok}?no_such_parameter=1"), Some(TOKEN), 400);
                let r = run_at(read_only.addr, fill(template, "d1", ""), None, 403);
                assert!(r.excerpt().contains("TOOLCAP_TOKEN"), "{}", r.excerpt());
                continue;
            }
            let ok = format!("{}{query}", fill(template, "d1", "call_big"));
            run(ok.clone(), Some(TOKEN), 200);
            run(ok.clone(), None, 401);
            if !query.is_empty() {
                // a required parameter left out is a 400 that names it
                let r = run(fill(template, "d1", "call_big"), Some(TOKEN), 400);
                assert!(r.excerpt().contains("missing"), "{}", r.excerpt());
            }
            if template.contains("{dialog_id}") {
                run(
                    format!("{}{query}", fill(template, "%0A", "call_big")),
                    Some(TOKEN),
                    400,
                );
                run(
                    format!("{}{query}", fill(template, "no-such-dialog", "call_big")),
                    Some(TOKEN),
                    404,
                );
            }
            if template.contains("{tool_call_id}") {
                for (id, status) in [
                    ("call%01".to_string(), 400),
                    ("x".repeat(257), 400),
                    ("no-such-call".to_string(), 404),
                    ("call_expired".to_string(), 410),
                ] {
                    run(
                        format!("{}{query}", fill(template, "d1", &id)),
                        Some(TOKEN),
                        status,
                    );
                }
            }
            // the documented bounds of every integer parameter are the server's
            let sep = if ok.contains('?') { '&' } else { '?' };
            for p in query_params(&root, op) {
                let name = p["name"].as_str().unwrap();
                let schema = &p["schema"];
                if schema["type"] != "integer" {
                    continue;
                }
                if let Some(max) = schema["maximum"].as_u64() {
                    run(format!("{ok}{sep}{name}={max}"), Some(TOKEN), 200);
                    run(format!("{ok}{sep}{name}={}", max + 1), Some(TOKEN), 400);
                }
                if let Some(min) = schema["minimum"].as_u64().filter(|&m| m > 0) {
                    run(format!("{ok}{sep}{name}={min}"), Some(TOKEN), 200);
                    run(format!("{ok}{sep}{name}={}", min - 1), Some(TOKEN), 400);
                }
                run(format!("{ok}{sep}{name}=-1"), Some(TOKEN), 400);
            }
            // and where it takes parameters, one it does not document is refused
            if op.get("parameters").is_some() {
                run(format!("{ok}{sep}no_such_parameter=1"), Some(TOKEN), 400);
            }
        }
    }
    assert_eq!(
        documented, exercised,
        "every documented response is exercised, and every exercised one documented"
    );

    // What is not an endpoint answers with the documented error body.
    let error_schema = &root["components"]["schemas"]["Error"];
    for (method, target, status) in [
        ("GET", "/api/dialogs", 404),
        (
            "GET",
            "/api/dialogs/d1/tool-results/call_big/metadata/extra",
            404,
        ),
        ("POST", "/api/dialogs/d1/tool-results", 405),
        ("PUT", "/healthz", 405),
    ] {
        let r = request(
            s.addr,
            method,
            target,
            &[("Authorization", &format!("Bearer {TOKEN}"))],
            b"",
        );
        assert_eq!(r.status, status, "{method} {target}");
        let mut errors = Vec::new();
        validate(&root, error_schema, &r.json(), "$", &mut errors);
        assert!(errors.is_empty(), "{method} {target}: {errors:?}");
    }
}
