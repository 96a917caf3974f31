//! Retention: results expiring by age and by size in every backend (memory,
//! SQLite, PostgreSQL through tests/support/pg.rs), the "expired" reply of every
//! recovery tool, the records of expired results and their own bound, and
//! `toolcap prune` (`--older-than`, `--max-bytes`, `--dialog`, the config's
//! `[store]`).

use crate::support::pg;

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::{Value, json};
use toolcap::store::continuation::ReplyError;
use toolcap::store::tools::{Dispatch, RecoveryTools};
use toolcap::store::{ExpiryReason, Record, ResultStore, Retention, now_ms};

const DAY: i64 = 86_400_000;

/// A store of one backend, shared as the recovery tools want it.
struct Backend {
    store: std::sync::Arc<dyn ResultStore>,
    _dir: Option<tempfile::TempDir>,
    /// The SQLite file, for looking at its tables.
    path: Option<PathBuf>,
    /// The PostgreSQL URL, for looking at its tables with psql.
    url: Option<String>,
}

fn memory() -> Option<Backend> {
    Some(Backend {
        store: std::sync::Arc::new(toolcap::MemoryStore::new()),
        _dir: None,
        path: None,
        url: None,
    })
}

fn sqlite() -> Option<Backend> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.db");
    let store = toolcap::SqliteStore::open(&path).unwrap();
    Some(Backend {
        store: std::sync::Arc::new(store),
        _dir: Some(dir),
        path: Some(path),
        url: None,
    })
}

#[cfg(feature = "postgres")]
fn postgres() -> Option<Backend> {
    let url = pg::database()?;
    let store = toolcap::PostgresStore::open(&url).expect("open the test database");
    Some(Backend {
        store: std::sync::Arc::new(store),
        _dir: None,
        path: None,
        url: Some(url),
    })
}

macro_rules! backends {
    ($($name:ident: $body:path),* $(,)?) => {
        mod memory_store { use super::*; $( #[test] fn $name() { if let Some(b) = memory() { $body(&b) } } )* }
        mod sqlite_store { use super::*; $( #[test] fn $name() { if let Some(b) = sqlite() { $body(&b) } } )* }
        #[cfg(feature = "postgres")]
        mod postgres_store { use super::*; $( #[test] fn $name() { if let Some(b) = postgres() { $body(&b) } } )* }
    };
}

backends! {
    old_results_expire_and_every_recovery_tool_says_so: by_age,
    the_oldest_results_go_first_past_max_bytes: by_size,
    deleting_a_dialog_deletes_its_records_too: delete_dialog,
    records_of_expired_results_expire_too: records_expire,
}

/// Keep `out` under (dialog, id), created `age_ms` ago.
fn put(s: &dyn ResultStore, d: &str, id: &str, out: &str, age_ms: i64) {
    let mut r = Record::new(d, id, "bash", &json!({"command": "make"}), out);
    r.meta.created_at_ms = now_ms() - age_ms;
    s.put(&r).unwrap();
}

fn reply(
    tools: &RecoveryTools,
    name: &str,
    args: Value,
) -> toolcap::store::continuation::ToolReply {
    match tools.dispatch(name, &args) {
        Dispatch::Handled(r) => r,
        Dispatch::NotMine => panic!("{name} is a recovery tool"),
    }
}

/// The message of an `{"error": ...}` reply.
fn error_of(r: &toolcap::store::continuation::ToolReply) -> String {
    let v: Value = serde_json::from_str(&r.text).unwrap();
    v["error"].as_str().unwrap().to_string()
}

fn by_age(b: &Backend) {
    let s = &*b.store;
    let old = "a line of an old build\n".repeat(200); // 4,600 chars
    put(s, "d1", "call_old", &old, 8 * DAY);
    put(s, "d1", "call_new", "fresh\n", 0);
    put(s, "d2", "call_old", "another dialog's\n", 9 * DAY);
    let before = now_ms();
    let done = s
        .expire(&Retention {
            keep: Some(Duration::from_secs(7 * 86_400)),
            max_bytes: None,
        })
        .unwrap();
    assert_eq!((done.by_age, done.by_size), (2, 0));
    assert_eq!(done.bytes, (old.len() + "another dialog's\n".len()) as u64);
    assert!(s.get("d1", "call_old").unwrap().is_none());
    assert!(s.get("d1", "call_new").unwrap().is_some());

    let gone = s
        .expired("d1", "call_old")
        .unwrap()
        .expect("a record of it");
    assert_eq!(gone.reason, ExpiryReason::Age);
    assert_eq!((gone.size_bytes, gone.size_chars), (4600, 4600));
    assert_eq!(gone.tool_name, "bash");
    assert_eq!(gone.limit, 7 * DAY);
    assert!(gone.expired_at_ms >= before && gone.expired_at_ms <= now_ms());
    let expected = format!(
        "The result of tool_call_id 'call_old' (bash, 4,600 chars, stored {}) expired at {}: \
         the store keeps results for 7d. Run the tool again if you still need its output.",
        toolcap::store::format_utc_ms(gone.created_at_ms),
        toolcap::store::format_utc_ms(gone.expired_at_ms)
    );
    // every recovery tool, through the dispatch a harness calls
    let tools = RecoveryTools::new(b.store.clone(), "d1");
    for (name, args) in [
        ("get_continuation", json!({"tool_call_id": "call_old"})),
        (
            "get_continuation",
            json!({"tool_call_id": "call_old", "start_line": 3}),
        ),
        (
            "search_tool_output",
            json!({"tool_call_id": "call_old", "pattern": "build"}),
        ),
        (
            "search_tool_output",
            json!({"tool_call_id": "call_old", "pattern": "build", "max_matches": 2}),
        ),
        ("fetch_tool_output", json!({"tool_call_id": "call_old"})),
        (
            "query_tool_output",
            json!({"tool_call_id": "call_old", "path": "."}),
        ),
        ("get_tool_result", json!({"tool_call_id": "call_old"})),
    ] {
        let r = reply(&tools, name, args.clone());
        assert!(r.is_error, "{name} {args}");
        assert_eq!(r.error, Some(ReplyError::Expired), "{name} {args}");
        assert_eq!(error_of(&r), expected, "{name} {args}");
    }
    // what never was is still "no cached result"
    let r = reply(
        &tools,
        "get_continuation",
        json!({"tool_call_id": "call_never"}),
    );
    assert_eq!(r.error, Some(ReplyError::NotStored));
    assert_eq!(
        error_of(&r),
        "No cached result for tool_call_id 'call_never'"
    );
    // a result stored again under the id reads as the new one
    put(s, "d1", "call_old", "again\n", 0);
    let r = reply(
        &tools,
        "get_tool_result",
        json!({"tool_call_id": "call_old"}),
    );
    assert_eq!((r.is_error, r.text.as_str()), (false, "again\n"));
    // nothing more to expire
    let again = s
        .expire(&Retention {
            keep: Some(Duration::from_secs(7 * 86_400)),
            max_bytes: None,
        })
        .unwrap();
    assert_eq!(again.total(), 0);
}

fn by_size(b: &Backend) {
    let s = &*b.store;
    // five results of 100 bytes, an hour apart, oldest first
    for (i, id) in ["r1", "r2", "r3", "r4", "r5"].iter().enumerate() {
        let age = (5 - i as i64) * 3_600_000;
        let out = format!("{id}\n").repeat(33) + "x"; // 100 bytes
        put(s, if i % 2 == 0 { "a" } else { "b" }, id, &out, age);
    }
    let sizes: Vec<usize> = s.list(None).unwrap().iter().map(|m| m.size.bytes).collect();
    assert_eq!(sizes, [100; 5]);
    let done = s
        .expire(&Retention {
            keep: None,
            max_bytes: Some(250),
        })
        .unwrap();
    // 500 bytes over 250: r1, r2, r3 go (oldest first), r4 + r5 = 200 stay
    assert_eq!((done.by_age, done.by_size, done.bytes), (0, 3, 300));
    let left: Vec<String> = s
        .list(None)
        .unwrap()
        .into_iter()
        .map(|m| m.tool_call_id)
        .collect();
    assert_eq!(left, ["r4", "r5"]);
    let gone = s.expired("b", "r2").unwrap().expect("a record of r2");
    assert_eq!((gone.reason, gone.limit), (ExpiryReason::Size, 250));
    let tools = RecoveryTools::new(b.store.clone(), "a");
    let r = reply(&tools, "get_continuation", json!({"tool_call_id": "r3"}));
    assert_eq!(r.error, Some(ReplyError::Expired));
    assert!(
        error_of(&r)
            .contains("the store holds at most 250 bytes of results and newer ones took its place"),
        "{}",
        r.text
    );
    // at the limit exactly: nothing goes
    let done = s
        .expire(&Retention {
            keep: None,
            max_bytes: Some(200),
        })
        .unwrap();
    assert_eq!(done.total(), 0);
    // the newest result stays even when it alone is over the limit
    let big = "y".repeat(1000);
    put(s, "a", "r6", &big, 0);
    let done = s
        .expire(&Retention {
            keep: None,
            max_bytes: Some(10),
        })
        .unwrap();
    assert_eq!((done.by_size, done.bytes), (2, 200));
    let left: Vec<String> = s
        .list(None)
        .unwrap()
        .into_iter()
        .map(|m| m.tool_call_id)
        .collect();
    assert_eq!(left, ["r6"]);
    // age first, then size, in one call
    put(s, "a", "r7", "zz\n", 0);
    put(s, "a", "r8", "old\n", 30 * DAY);
    let done = s
        .expire(&Retention {
            keep: Some(Duration::from_secs(86_400)),
            max_bytes: Some(10),
        })
        .unwrap();
    assert_eq!((done.by_age, done.by_size), (1, 1));
    assert_eq!(
        s.expired("a", "r8").unwrap().unwrap().reason,
        ExpiryReason::Age
    );
    assert_eq!(
        s.expired("a", "r6").unwrap().unwrap().reason,
        ExpiryReason::Size
    );
    assert!(s.get("a", "r7").unwrap().is_some());
}

fn delete_dialog(b: &Backend) {
    let s = &*b.store;
    put(s, "d1", "call_1", "one\n", 10 * DAY);
    put(s, "d1", "call_2", "two\n", 0);
    put(s, "d2", "call_1", "other\n", 10 * DAY);
    s.prune_older_than(Duration::from_secs(86_400)).unwrap();
    let gone = s.expired("d1", "call_1").unwrap().unwrap();
    assert_eq!(
        (gone.reason, gone.limit),
        (ExpiryReason::Age, DAY),
        "exactly the age asked"
    );
    assert_eq!(s.delete_dialog("d1").unwrap(), 1);
    // the thread is closed: nothing of it is left, not even the records
    assert!(s.expired("d1", "call_1").unwrap().is_none());
    let tools = RecoveryTools::new(b.store.clone(), "d1");
    let r = reply(&tools, "get_tool_result", json!({"tool_call_id": "call_1"}));
    assert_eq!(r.error, Some(ReplyError::NotStored));
    // another dialog's record stays
    assert!(s.expired("d2", "call_1").unwrap().is_some());
}

fn records_expire(b: &Backend) {
    let s = &*b.store;
    put(s, "d", "call_1", "one\n", 10 * DAY);
    s.prune_older_than(Duration::from_secs(86_400)).unwrap();
    assert!(s.expired("d", "call_1").unwrap().is_some());
    // the record is 31 days old: past TOMBSTONE_KEEP (30 days), it goes at the next expiry
    if let Some(path) = &b.path {
        let c = rusqlite::Connection::open(path).unwrap();
        c.execute(
            "UPDATE expired SET expired_at = expired_at - 31 * 86400000",
            [],
        )
        .unwrap();
    } else if let Some(url) = &b.url {
        pg::cluster().unwrap().psql(
            pg::Cluster::db_of(url),
            "UPDATE toolcap_expired SET expired_at = expired_at - 31::bigint * 86400000",
        );
    } else {
        // (the memory store's records cannot be backdated from outside: its own
        // unit tests cover the bound)
        return;
    }
    assert_eq!(
        toolcap::store::retention::TOMBSTONE_KEEP,
        Duration::from_secs(30 * 86_400)
    );
    s.expire(&Retention::default()).unwrap();
    assert!(s.expired("d", "call_1").unwrap().is_none());
}

// ---------------------------------------------------------------------------
// The CLI

fn toolcap() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_toolcap"));
    c.env_remove("TOOL_RESULT_BYPASS_TOOLS")
        .env_remove("TOOLCAP_CONFIG")
        .env_remove("TOOLCAP_STORE")
        .env_remove("TOOLCAP_DIALOG");
    c
}

fn run(args: &[&str]) -> Output {
    toolcap().args(args).output().expect("toolcap runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn prune_expires_by_age_size_and_dialog_and_continue_says_expired() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let db_s = db.to_str().unwrap();
    {
        let s = toolcap::SqliteStore::open(&db).unwrap();
        put(&s, "a", "call_old", &"x\n".repeat(2000), 8 * DAY);
        put(&s, "a", "call_1", &"1\n".repeat(50), 3 * 3_600_000);
        put(&s, "a", "call_2", &"2\n".repeat(50), 2 * 3_600_000);
        put(&s, "b", "call_3", &"3\n".repeat(50), 3_600_000);
    }
    // no flag: the config's [store] keep (7d by default) and max_bytes (1 GiB)
    let o = run(&["prune", "--store", db_s]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "pruned 1 result older than 7d from {db_s}\n\
             pruned 0 results to keep at most 1,073,741,824 bytes from {db_s}\n"
        )
    );
    let o = run(&["continue", "call_old", "--dialog", "a", "--store", db_s]);
    assert_eq!(o.status.code(), Some(1));
    let reply: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let said = reply["error"].as_str().unwrap();
    assert!(
        said.starts_with("The result of tool_call_id 'call_old' (bash, 4,000 chars, stored "),
        "{said}"
    );
    assert!(
        said.ends_with(
            ": the store keeps results for 7d. Run the tool again if you still need its output."
        ),
        "{said}"
    );

    // --max-bytes: the oldest go first until 200 bytes are left
    let o = run(&["prune", "--max-bytes", "200", "--store", db_s]);
    assert_eq!(
        stdout(&o),
        format!("pruned 1 result to keep at most 200 bytes from {db_s}\n")
    );
    let o = run(&["search", "call_1", "1", "--dialog", "a", "--store", db_s]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o)
            .contains("the store holds at most 200 bytes of results and newer ones took its place"),
        "{}",
        stdout(&o)
    );
    let o = run(&["show", "call_2", "--meta", "--dialog", "a", "--store", db_s]);
    assert!(o.status.success());

    // --dialog: the dialog's results and records go; the other dialog stays
    let o = run(&["prune", "--dialog", "a", "--store", db_s]);
    assert_eq!(
        stdout(&o),
        format!("deleted 1 result of dialog \"a\" from {db_s}\n")
    );
    let o = run(&["continue", "call_old", "--dialog", "a", "--store", db_s]);
    assert_eq!(
        stdout(&o),
        "{\"error\": \"No cached result for tool_call_id 'call_old'\"}\n"
    );
    assert!(
        run(&["show", "call_3", "--dialog", "b", "--store", db_s])
            .status
            .success()
    );

    // a config that turns the limits off
    let cfg = dir.path().join("off.toml");
    std::fs::write(&cfg, "[store]\nkeep = \"off\"\nmax_bytes = \"off\"\n").unwrap();
    let o = run(&["prune", "--store", db_s, "--config", cfg.to_str().unwrap()]);
    assert!(o.status.success());
    assert!(
        stdout(&o).starts_with("nothing to prune: [store] keep and max_bytes are \"off\""),
        "{}",
        stdout(&o)
    );

    // bad values are usage errors naming the flag or key
    let o = run(&["prune", "--max-bytes", "lots", "--store", db_s]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--max-bytes \"lots\": expected a whole number of bytes"),
        "{}",
        stderr(&o)
    );
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[store]\nkeep = \"a week\"\n").unwrap();
    let o = run(&["prune", "--store", db_s, "--config", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("store.keep: \"a week\" is not an age"),
        "{}",
        stderr(&o)
    );
    std::fs::write(&bad, "[store]\nmax_bytes = -5\n").unwrap();
    let o = run(&["config", "--config", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("store.max_bytes: -5 is not a size"),
        "{}",
        stderr(&o)
    );
    std::fs::write(&bad, "[store]\nexpire_every = \"0s\"\n").unwrap();
    let o = run(&["config", "--config", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("store.expire_every: \"0s\" is not an interval"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_command_that_keeps_a_result_expires_old_ones_first() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    {
        let s = toolcap::SqliteStore::open(&db).unwrap();
        put(&s, "default", "call_old", "old\n", 2 * 3_600_000);
    }
    let cfg = dir.path().join("keep.toml");
    std::fs::write(&cfg, "[store]\nkeep = \"1h\"\n").unwrap();
    let input = dir.path().join("in.txt");
    let lines: String = (1..=2000)
        .map(|i| format!("step {i} of the build\n"))
        .collect();
    std::fs::write(&input, lines).unwrap();
    let o = run(&[
        "process",
        "--tool",
        "bash",
        "--id",
        "call_new",
        "--store",
        db.to_str().unwrap(),
        "--config",
        cfg.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = toolcap::SqliteStore::open(&db).unwrap();
    assert!(s.get("default", "call_old").unwrap().is_none());
    assert_eq!(
        s.expired("default", "call_old").unwrap().unwrap().limit,
        3_600_000
    );
    assert!(s.get("default", "call_new").unwrap().is_some());
}

/// Every read of the CLI honours the `[store]` retention of its config (issue
/// 34): a result older than `keep` is answered as expired by `continue` (by
/// offset and by lines), `search`, `fetch`, `query` and `show`, even when no
/// write has pruned the store since it aged; a young one is served.
#[test]
fn every_read_honours_store_keep() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let db = db.to_str().unwrap();
    let cfg = dir.path().join("keep.toml");
    std::fs::write(&cfg, "[store]\nkeep = \"1h\"\n").unwrap();
    let cfg = cfg.to_str().unwrap();
    {
        let s = toolcap::SqliteStore::open(std::path::Path::new(db)).unwrap();
        for id in ["c1", "c2", "c3", "c4", "c5", "c6"] {
            put(&s, "default", id, "[1, 2]\nstep 2\n", 2 * 3_600_000);
        }
        put(&s, "default", "young", "[1, 2]\nstep 2\n", 60_000);
    }
    let reads: [&[&str]; 6] = [
        &["continue", "c1"],
        &["continue", "c2", "--start-line", "1"],
        &["search", "c3", "step"],
        &["fetch", "c4"],
        &["query", "c5", "."],
        &["show", "c6"],
    ];
    for read in reads {
        let mut args = read.to_vec();
        args.extend(["--store", db, "--config", cfg]);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(1), "{read:?}: {}", stdout(&o));
        assert!(
            stderr(&o).contains("expired at") && stderr(&o).contains("keeps results for 1h"),
            "{read:?}: {}",
            stderr(&o)
        );
    }
    let o = run(&[
        "continue",
        "young",
        "--start-line",
        "2",
        "--store",
        db,
        "--config",
        cfg,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "step 2\n");
}

/// The recovery tools given a retention (as `toolcap mcp` and `mcp-proxy` build
/// them from `[store]`) answer a call on a result past `keep` as expired,
/// though no prune ran since it aged; a young result is served.
#[test]
fn recovery_tools_honour_keep_on_every_read() {
    let s = std::sync::Arc::new(toolcap::MemoryStore::new());
    put(&*s, "default", "old", "step 1\nstep 2\n", 2 * 3_600_000);
    put(&*s, "default", "new", "step 1\nstep 2\n", 60_000);
    let tools = RecoveryTools::new(s, "default").retention(Retention {
        keep: Some(Duration::from_secs(3600)),
        max_bytes: None,
    });
    let r = reply(
        &tools,
        "get_continuation",
        json!({"tool_call_id": "old", "start_line": 1}),
    );
    assert_eq!(r.error, Some(ReplyError::Expired), "{}", r.text);
    assert!(error_of(&r).contains("keeps results for 1h"), "{}", r.text);
    let r = reply(
        &tools,
        "get_continuation",
        json!({"tool_call_id": "new", "start_line": 2}),
    );
    assert_eq!(r.text, "step 2\n");
}
