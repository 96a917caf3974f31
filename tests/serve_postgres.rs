//! `toolcap serve` stateless over PostgreSQL: two serve processes on one database
//! answer every request the same, byte for byte, including results stored after
//! they started (by another process) and results deleted meanwhile.
#![cfg(all(feature = "server", feature = "postgres"))]

use crate::serve_support;
use crate::support::pg;

use serve_support::{Server, fill, get, pct};
use toolcap::store::ResultStore;

/// Status and body of the same request to both servers: the same.
fn both(a: &Server, b: &Server, target: &str) -> (u16, serde_json::Value) {
    let ra = get(a.addr, target, None);
    let rb = get(b.addr, target, None);
    assert_eq!(ra.status, rb.status, "{target}");
    assert_eq!(
        ra.body, rb.body,
        "{target}: the same bytes from both servers"
    );
    let v = if ra.body.is_empty() {
        serde_json::Value::Null
    } else {
        ra.json()
    };
    (ra.status, v)
}

#[test]
fn two_serve_processes_on_one_database_answer_the_same() {
    let Some(url) = pg::database() else { return };
    let store = toolcap::PostgresStore::open(&url).unwrap();
    let big = fill(&store);
    let a = Server::start(&url, None);
    let b = Server::start(&url, None);

    for target in [
        "/api/dialogs/d1/tool-results",
        "/api/dialogs/d2/tool-results",
        "/api/dialogs/d1/tool-results/call_small",
        "/api/dialogs/d1/tool-results/call_big/metadata",
        &format!("/api/dialogs/d1/tool-results/{}", pct("run/ü 1")),
        "/api/dialogs/d1/tool-results/call_big?offset=999999&limit=1000",
        "/api/dialogs/d1/tool-results/nope",
        "/api/dialogs/d9/tool-results",
    ] {
        both(&a, &b, target);
    }
    let (status, v) = both(&a, &b, "/api/dialogs/d1/tool-results/call_small");
    assert_eq!(status, 200);
    assert_eq!(v["result"], "hi\n");
    let (status, _) = both(&a, &b, "/api/dialogs/d1/tool-results/nope");
    assert_eq!(status, 404);

    // paging the 1 MB multi-byte result, alternating servers: byte for byte
    let total = big.chars().count();
    let mut got = String::new();
    let mut offset = 0;
    for page in 0.. {
        assert!(page < 20, "paging did not reach the end");
        let s = if page % 2 == 0 { &a } else { &b };
        let v = get(
            s.addr,
            &format!("/api/dialogs/d1/tool-results/call_big?offset={offset}&limit=100000"),
            None,
        )
        .json();
        got.push_str(v["result"].as_str().expect("a page"));
        assert_eq!(v["page"]["total_chars"], total);
        match v["page"]["next_offset"].as_u64() {
            Some(n) => offset = usize::try_from(n).unwrap(),
            None => break,
        }
    }
    assert_eq!(got.as_bytes(), big.as_bytes());

    // stored by another process after both started: both see it at once
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("out.txt");
    let text: String = (0..3000)
        .map(|i| format!("build step {i} — ok\n"))
        .collect();
    std::fs::write(&input, &text).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_toolcap"))
        .args([
            "process", "--tool", "bash", "--id", "call_new", "--dialog", "d1",
        ])
        .arg("--store")
        .arg(&url)
        .arg(&input)
        .env_remove("TOOLCAP_STORE")
        .env_remove("TOOLCAP_CONFIG")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (status, v) = both(&a, &b, "/api/dialogs/d1/tool-results/call_new?limit=100000");
    assert_eq!(status, 200);
    assert_eq!(v["result"], text.as_str());
    let (_, list) = both(&a, &b, "/api/dialogs/d1/tool-results");
    assert_eq!(list.to_string().matches("call_new").count(), 1, "{list}");

    // deleted by another process: gone from both
    assert_eq!(store.delete_dialog("d1").unwrap(), 4);
    let (status, _) = both(&a, &b, "/api/dialogs/d1/tool-results/call_small");
    assert_eq!(status, 404);
    let (status, _) = both(&a, &b, "/api/dialogs/d2/tool-results/call_small");
    assert_eq!(status, 200);
}
