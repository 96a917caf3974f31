#![cfg(feature = "postgres")]
//! A PostgreSQL restart under an open store: the pooled connections the server
//! closed are replaced, and the next calls succeed without the caller doing
//! anything. (A test binary of its own: the restart breaks every connection to
//! its throwaway server.)

use crate::support::pg;

use serde_json::json;
use toolcap::store::{Record, ResultStore};

#[test]
fn calls_after_a_server_restart_reconnect_by_themselves() {
    let Some(cluster) = pg::own_cluster() else {
        return;
    };
    let url = cluster.database();
    let store = toolcap::PostgresStore::open(&url).unwrap();
    let big = "ü line\n".repeat(30_000);
    store
        .put(&Record::new("d", "before", "bash", &json!({}), &big))
        .unwrap();
    assert_eq!(store.get("d", "before").unwrap().unwrap().output, big);

    cluster.restart();

    // reads and writes on the same store object, its pooled connection now closed
    assert_eq!(store.get("d", "before").unwrap().unwrap().output, big);
    store
        .put(&Record::new("d", "after", "bash", &json!({}), "fine\n"))
        .unwrap();
    let (_, part) = store.read_range("d", "before", 7, 6).unwrap().unwrap();
    assert_eq!(part, "ü line");
    assert_eq!(store.list(Some("d")).unwrap().len(), 2);
}
