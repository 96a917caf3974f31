#![cfg(feature = "postgres")]
//! Issue 28 item 12 in PostgreSQL: a page of the dialog list is read from an index
//! in the list's order (schema 3), not sorted out of every result, and a database
//! of schema 2 is migrated to it.

use std::time::{Duration, Instant};

use crate::support::pg;

use toolcap::store::{ListCursor, ListPage, ResultStore};

/// Results in the test's table: 150,000 in 50 dialogs, interleaved, then 50,000
/// of dialog `late`, created 1 ms apart.
const ROWS: usize = 200_000;

fn fill(cluster: &pg::Cluster, db: &str) {
    cluster.psql(
        db,
        &format!(
            "INSERT INTO toolcap_results (dialog_id, tool_call_id, tool_name, tool_args, \
             size_bytes, size_chars, size_lines, truncated, shown_chars, created_at, output_id) \
             SELECT CASE WHEN i <= 150000 THEN 'd' || (i % 50) ELSE 'late' END, \
             'call-' || lpad(i::text, 7, '0'), 'bash', '{{}}', \
             10, 10, 1, false, 10, 1700000000000 + i, nextval('toolcap_output_ids') \
             FROM generate_series(1, {ROWS}) i; ANALYZE toolcap_results"
        ),
    );
}

/// Index scans of the two list indexes and the index entries they read, as the
/// statistics say.
fn index_reads(cluster: &pg::Cluster, db: &str) -> (i64, i64) {
    let out = cluster.psql(
        db,
        "SELECT coalesce(sum(idx_scan), 0), coalesce(sum(idx_tup_read), 0) \
         FROM pg_stat_user_indexes \
         WHERE indexrelname IN ('toolcap_results_dialog_list', 'toolcap_results_list')",
    );
    let (scans, read) = out
        .split_once('|')
        .unwrap_or_else(|| panic!("no statistics: {out:?}"));
    (scans.parse().unwrap(), read.parse().unwrap())
}

fn page(
    store: &toolcap::PostgresStore,
    dialog: Option<&str>,
    after: Option<(i64, &str, &str)>,
) -> Vec<String> {
    let after = after.map(|(at, d, id)| ListCursor {
        created_at_ms: at,
        dialog_id: d.into(),
        tool_call_id: id.into(),
    });
    store
        .list_page(&ListPage {
            dialog_id: dialog,
            after: after.as_ref(),
            offset: 0,
            limit: 2,
        })
        .unwrap()
        .iter()
        .map(|m| format!("{} {}", m.dialog_id, m.tool_call_id))
        .collect()
}

#[test]
fn a_page_of_200k_results_is_read_from_a_list_index() {
    let Some(cluster) = pg::cluster() else {
        return;
    };
    let url = cluster.database();
    let db = pg::Cluster::db_of(&url).to_string();
    let store = toolcap::PostgresStore::open(&url).expect("open the test database");
    fill(cluster, &db);

    // the plans of the page queries as list_page writes them: an index scan in
    // the list's order that stops at the page, no sort. (With schema 2's
    // created_at index, the first page of `late` read the 150,000 results
    // before it: "Rows Removed by Filter: 150000".)
    for filter in [
        "WHERE r.dialog_id = 'late' ORDER BY r.created_at, r.tool_call_id",
        "WHERE r.dialog_id = 'late' AND (r.created_at, r.tool_call_id) > (1700000175000, 'call-0175000') \
         ORDER BY r.created_at, r.tool_call_id",
        "WHERE r.dialog_id = 'd7' AND (r.created_at, r.tool_call_id) > (1700000100007, 'call-0100007') \
         ORDER BY r.created_at, r.tool_call_id",
        "WHERE (r.created_at, r.dialog_id, r.tool_call_id) > (1700000100001, 'd1', 'call-0100001') \
         ORDER BY r.created_at, r.dialog_id, r.tool_call_id",
    ] {
        let plan = cluster.psql(
            &db,
            &format!(
                "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) \
                 SELECT * FROM toolcap_results r {filter} LIMIT 2 OFFSET 0"
            ),
        );
        let index = plan.contains("Index Scan using toolcap_results_dialog_list")
            || plan.contains("Index Scan using toolcap_results_list");
        assert!(
            index
                && !plan.contains("Sort")
                && !plan.contains("Seq Scan")
                && !plan.contains("Bitmap")
                && !plan.contains("Rows Removed"),
            "{filter}\n{plan}"
        );
    }

    // and the store's own queries: the right rows, read through the indexes, a
    // few index entries each (the statistics are written when the connections
    // close)
    let before = index_reads(cluster, &db);
    assert_eq!(
        page(&store, Some("late"), None),
        ["late call-0150001", "late call-0150002"]
    );
    assert_eq!(
        page(
            &store,
            Some("late"),
            Some((1_700_000_175_000, "late", "call-0175000"))
        ),
        ["late call-0175001", "late call-0175002"]
    );
    assert_eq!(
        page(
            &store,
            Some("d7"),
            Some((1_700_000_100_007, "d7", "call-0100007"))
        ),
        ["d7 call-0100057", "d7 call-0100107"]
    );
    assert_eq!(
        page(
            &store,
            None,
            Some((1_700_000_100_001, "d1", "call-0100001"))
        ),
        ["d2 call-0100002", "d3 call-0100003"]
    );
    drop(store);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let now = index_reads(cluster, &db);
        let done = now.0 >= before.0 + 4;
        if done || Instant::now() > deadline {
            assert!(
                done,
                "the page queries did not use the list indexes: {before:?} then {now:?}"
            );
            // 8 rows in 4 pages, read from at most a few entries each, not
            // from the 100,000 and more results before them
            assert!(now.1 - before.1 <= 20, "{before:?} then {now:?}");
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
