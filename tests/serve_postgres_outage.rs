//! `toolcap serve` over PostgreSQL through an outage: while the database server is
//! down, requests get 503 `store_unavailable` with `Retry-After` (a client should
//! retry, not give up as on a 500); once it is back, the same server process
//! answers again without a restart. (A test binary of its own: stopping the
//! throwaway cluster breaks every connection to it.)
#![cfg(all(feature = "server", feature = "postgres"))]

use crate::serve_support;
use crate::support::pg;

use serve_support::{Server, fill, get};

#[test]
fn a_database_outage_is_a_503_and_the_server_recovers_by_itself() {
    let Some(cluster) = pg::own_cluster() else {
        return;
    };
    let url = cluster.database();
    fill(&toolcap::PostgresStore::open(&url).expect("open the database"));
    let s = Server::start(&url, None);
    let target = "/api/dialogs/d1/tool-results/call_small";
    let r = get(s.addr, target, None);
    assert_eq!(r.status, 200, "{}", r.excerpt());
    assert_eq!(r.json()["result"], "hi\n");

    cluster.stop();
    for target in [
        target,
        "/api/dialogs/d1/tool-results/call_small/metadata",
        "/api/dialogs/d1/tool-results",
        "/api/dialogs/d1/tool-results/call_small/search?pattern=hi",
    ] {
        let r = get(s.addr, target, None);
        assert_eq!(r.status, 503, "{target}: {}", r.excerpt());
        assert_eq!(r.error_code(), "store_unavailable", "{target}");
        assert!(r.header("retry-after").is_some(), "{target}: Retry-After");
        let message = r.json()["error"]["message"].as_str().unwrap().to_string();
        assert!(
            message.contains("cannot connect to PostgreSQL"),
            "{message}"
        );
        assert!(
            !message.contains(cluster.password()),
            "the password is never shown: {message}"
        );
    }

    cluster.start_again();
    let r = get(s.addr, target, None);
    assert_eq!(r.status, 200, "after the outage: {}", r.excerpt());
    assert_eq!(r.json()["result"], "hi\n");
}
