#![cfg(feature = "postgres")]
//! Issue 28 item 12 in PostgreSQL: a page of the dialog list is read from an index
//! in the list's order (schema 3), not sorted out of every result, and a database
//! of schema 2 is migrated to it.

use std::time::{Duration, Instant};

use crate::support::pg;

use toolcap::store::{ListCursor, ListPage, ResultStore};

/// Results in the test's table: 4 dialogs, 50,000 each, created 1 ms apart.
const ROWS: usize = 200_000;

fn fill(cluster: &pg::Cluster, db: &str) {
    cluster.psql(
        db,
        &format!(
            "INSERT INTO toolcap_results (dialog_id, tool_call_id, tool_name, tool_args, \
             size_bytes, size_chars, size_lines, truncated, shown_chars, created_at, output_id) \
             SELECT 'd' || (i % 4), 'call-' || lpad(i::text, 7, '0'), 'bash', '{{}}', \
             10, 10, 1, false, 10, 1700000000000 + i, nextval('toolcap_output_ids') \
             FROM generate_series(1, {ROWS}) i; ANALYZE toolcap_results"
        ),
    );
}

/// Index scans of `index` and the rows they read, as the statistics say.
fn index_reads(cluster: &pg::Cluster, db: &str, index: &str) -> (i64, i64) {
    let out = cluster.psql(
        db,
        &format!(
            "SELECT idx_scan, idx_tup_read FROM pg_stat_user_indexes WHERE indexrelname = '{index}'"
        ),
    );
    let (scans, read) = out
        .split_once('|')
        .unwrap_or_else(|| panic!("no statistics for {index}: {out:?}"));
    (scans.parse().unwrap(), read.parse().unwrap())
}

#[test]
fn a_page_of_200k_results_is_read_from_the_list_index() {
    let Some(cluster) = pg::cluster() else {
        return;
    };
    let url = cluster.database();
    let db = pg::Cluster::db_of(&url).to_string();
    let store = toolcap::PostgresStore::open(&url).expect("open the test database");
    fill(cluster, &db);

    // the plans of the page queries as list_page writes them: one dialog's page
    // after a cursor in the middle, and the whole list's
    let plan = cluster.psql(
        &db,
        "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM toolcap_results r \
         WHERE r.dialog_id = 'd1' AND (r.created_at, r.tool_call_id) > (1700000100001, 'call-0100001') \
         ORDER BY r.created_at, r.tool_call_id LIMIT 1 OFFSET 0",
    );
    assert!(
        plan.contains("Index Scan using toolcap_results_dialog_list")
            && plan.contains("ROW(r.created_at, r.tool_call_id) > ROW(")
            && !plan.contains("Sort")
            && !plan.contains("Seq Scan"),
        "{plan}"
    );
    let plan = cluster.psql(
        &db,
        "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM toolcap_results r \
         WHERE (r.created_at, r.dialog_id, r.tool_call_id) > (1700000100001, 'd1', 'call-0100001') \
         ORDER BY r.created_at, r.dialog_id, r.tool_call_id LIMIT 1 OFFSET 0",
    );
    assert!(
        plan.contains("Index Scan using toolcap_results_list")
            && !plan.contains("Sort")
            && !plan.contains("Seq Scan"),
        "{plan}"
    );

    // and the store's own queries: the right rows, read through the indexes,
    // a few rows each (the statistics are written when the connections close)
    let (dialog_before, all_before) = (
        index_reads(cluster, &db, "toolcap_results_dialog_list"),
        index_reads(cluster, &db, "toolcap_results_list"),
    );
    let after = ListCursor {
        created_at_ms: 1_700_000_100_001,
        dialog_id: "d1".into(),
        tool_call_id: "call-0100001".into(),
    };
    let page = store
        .list_page(&ListPage {
            dialog_id: Some("d1"),
            after: Some(&after),
            offset: 0,
            limit: 2,
        })
        .unwrap();
    let ids: Vec<&str> = page.iter().map(|m| m.tool_call_id.as_str()).collect();
    assert_eq!(ids, ["call-0100005", "call-0100009"]);
    let page = store
        .list_page(&ListPage {
            dialog_id: None,
            after: Some(&after),
            offset: 0,
            limit: 2,
        })
        .unwrap();
    let ids: Vec<(&str, &str)> = page
        .iter()
        .map(|m| (m.dialog_id.as_str(), m.tool_call_id.as_str()))
        .collect();
    assert_eq!(ids, [("d2", "call-0100002"), ("d3", "call-0100003")]);
    drop(store);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let dialog = index_reads(cluster, &db, "toolcap_results_dialog_list");
        let all = index_reads(cluster, &db, "toolcap_results_list");
        let done = dialog.0 > dialog_before.0 && all.0 > all_before.0;
        if done || Instant::now() > deadline {
            assert!(
                done,
                "the page queries did not use the indexes: {dialog:?} {all:?}"
            );
            // each page read at most a few rows of the index, not the 100,000
            // results before the cursor
            assert!(dialog.1 - dialog_before.1 <= 10, "{dialog:?}");
            assert!(all.1 - all_before.1 <= 10, "{all:?}");
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_schema_2_database_gets_the_list_indexes() {
    let Some(cluster) = pg::cluster() else {
        return;
    };
    let url = cluster.database();
    let db = pg::Cluster::db_of(&url).to_string();
    drop(toolcap::PostgresStore::open(&url).expect("open the test database"));
    // schema 2 as toolcap made it: the created_at index, not the list's
    cluster.psql(
        &db,
        "DROP INDEX toolcap_results_dialog_list; DROP INDEX toolcap_results_list; \
         CREATE INDEX toolcap_results_created_at ON toolcap_results (created_at); \
         UPDATE toolcap_schema SET version = 2",
    );
    let store = toolcap::PostgresStore::open(&url).expect("migrate the test database");
    assert_eq!(cluster.psql(&db, "SELECT version FROM toolcap_schema"), "3");
    let indexes = cluster.psql(
        &db,
        "SELECT indexname FROM pg_indexes WHERE tablename = 'toolcap_results' ORDER BY 1",
    );
    assert_eq!(
        indexes,
        "toolcap_results_dialog_list\ntoolcap_results_list\ntoolcap_results_pkey"
    );
    assert_eq!(store.count(None).unwrap(), 0);
}
