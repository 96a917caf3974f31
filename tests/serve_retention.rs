//! `toolcap serve` and retention: an expired result answers 410 `expired` (when and
//! why) on every result endpoint, DELETE closes a dialog (only on a server with a
//! token), and the server expires results on its own schedule while it runs.
#![cfg(feature = "server")]

use crate::serve_support;

use std::time::{Duration, Instant};

use serde_json::json;
use serve_support::{Server, fill_store, get, request};
use toolcap::store::{Record, ResultStore, SqliteStore};

const TOKEN: &str = "retention-token-0123456789";

/// Keep a result in dialog d1 of the store at `path`, created `age_ms` ago.
fn put_old(path: &std::path::Path, id: &str, age_ms: i64) {
    let s = SqliteStore::open(path).unwrap();
    let mut r = Record::new("d1", id, "bash", &json!({"command": "make"}), "old build\n");
    r.meta.created_at_ms -= age_ms;
    s.put(&r).unwrap();
}

#[test]
fn expired_results_answer_410_and_a_dialog_is_deleted_with_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    fill_store(&store);
    // older than the default [store] keep (7d): expired when the server opens the store
    put_old(&store, "call_old", 8 * 86_400_000);
    let s = Server::start(&store, Some(TOKEN));

    for target in [
        "/api/dialogs/d1/tool-results/call_old",
        "/api/dialogs/d1/tool-results/call_old/metadata",
        "/api/dialogs/d1/tool-results/call_old/search?pattern=build",
    ] {
        let r = get(s.addr, target, Some(TOKEN));
        assert_eq!(r.status, 410, "{target}: {}", r.excerpt());
        assert_eq!(r.error_code(), "expired");
        let msg = r.json()["error"]["message"].as_str().unwrap().to_string();
        assert!(
            msg.starts_with("The result of tool_call_id 'call_old' (bash, 10 chars, stored ")
                && msg.contains(" expired at ")
                && msg.ends_with(
                    ": the store keeps results for 7d. Run the tool again if you still need its output."
                ),
            "{msg}"
        );
    }
    // never stored: still 404
    let r = get(
        s.addr,
        "/api/dialogs/d1/tool-results/call_never",
        Some(TOKEN),
    );
    assert_eq!((r.status, r.error_code().as_str()), (404, "not_found"));

    // DELETE closes the dialog: its results and the record of its expired one
    let bearer = format!("Bearer {TOKEN}");
    let auth = [("Authorization", bearer.as_str())];
    let r = request(s.addr, "DELETE", "/api/dialogs/d1/tool-results", &auth, b"");
    assert_eq!(r.status, 200, "{}", r.excerpt());
    assert_eq!(r.json(), json!({"dialog_id": "d1", "deleted": 3}));
    for id in ["call_small", "call_old"] {
        let r = get(
            s.addr,
            &format!("/api/dialogs/d1/tool-results/{id}"),
            Some(TOKEN),
        );
        assert_eq!(r.status, 404, "{id}: {}", r.excerpt());
    }
    let r = get(
        s.addr,
        "/api/dialogs/d2/tool-results/call_small",
        Some(TOKEN),
    );
    assert_eq!(r.status, 200, "another dialog stays");
    // without the token: 401, as every request
    let r = request(s.addr, "DELETE", "/api/dialogs/d2/tool-results", &[], b"");
    assert_eq!(r.status, 401);

    // a server without a token never deletes
    let open = Server::start(&store, None);
    let r = request(
        open.addr,
        "DELETE",
        "/api/dialogs/d2/tool-results",
        &[],
        b"",
    );
    assert_eq!((r.status, r.error_code().as_str()), (403, "read_only"));
    let r = get(open.addr, "/api/dialogs/d2/tool-results/call_small", None);
    assert_eq!(r.status, 200);
}

#[test]
fn the_server_expires_results_on_its_own_schedule() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    fill_store(&store);
    let cfg = dir.path().join("toolcap.toml");
    std::fs::write(&cfg, "[store]\nkeep = \"1h\"\nexpire_every = \"1h\"\n").unwrap();
    // --expire-every overrides the config's interval
    let s = Server::start_with(
        &store,
        None,
        &["--config", cfg.to_str().unwrap(), "--expire-every", "1s"],
    );
    // written after the server opened the store (so not expired on open), two
    // hours old: only the server's own tick can expire it
    put_old(&store, "call_late", 2 * 3_600_000);
    let target = "/api/dialogs/d1/tool-results/call_late";
    let deadline = Instant::now() + Duration::from_secs(60);
    let last = loop {
        let r = get(s.addr, target, None);
        if r.status != 200 || Instant::now() > deadline {
            break r;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(last.status, 410, "{}", last.excerpt());
    assert!(
        last.excerpt().contains("the store keeps results for 1h"),
        "{}",
        last.excerpt()
    );
    // the fresh results stay
    let r = get(s.addr, "/api/dialogs/d1/tool-results/call_small", None);
    assert_eq!(r.status, 200);
}
