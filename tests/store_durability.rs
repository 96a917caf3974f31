#![cfg(feature = "sqlite")]
//! Nothing lost: many processes writing one store at once, and a writer killed with
//! SIGKILL mid-run (in the middle of a streamed result), against SQLite and
//! PostgreSQL (a throwaway server: tests/support/pg.rs).
//!
//! The writers are this test binary run again as child processes (the `child_writer`
//! test, which does nothing unless TOOLCAP_TEST_WRITER is set), each opening the
//! store with `toolcap::store::open`, as separate harness processes would.

#[cfg(feature = "postgres")]
use crate::support::pg;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use toolcap::store::{Record, ResultStore};

const WRITERS: usize = 8;
const PER_WRITER: usize = 1000;
/// The result a killed writer is streaming when it is killed.
const STREAMED: usize = 400;

/// The output stored for result `i` of writer `w`: a few lines, some multi-byte,
/// different for every (w, i).
fn output(w: usize, i: usize) -> String {
    (0..(i % 7) + 2)
        .map(|k| {
            format!(
                "writer {w} result {i} line {k} — ü日本 {}\n",
                "#".repeat((w * 31 + i + k) % 50)
            )
        })
        .collect()
}

fn id(w: usize, i: usize) -> String {
    format!("call_{w}_{i}")
}

fn spawn_writer(store: &str, w: usize, count: usize, stream: bool) -> Child {
    Command::new(std::env::current_exe().expect("test binary path"))
        .args([
            "--exact",
            "store_durability::child_writer",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TOOLCAP_TEST_WRITER", format!("{w}:{count}:{stream}"))
        .env("TOOLCAP_TEST_STORE", store)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn writer")
}

/// Not a test of its own: the body of a writer process. With `stream`, result
/// [`STREAMED`] is written as a stream of 3 MB, and the writer says "mid-stream"
/// once more than 2 MB of it are in the store (past the first chunks of either
/// backend), then waits to be killed.
#[test]
fn child_writer() {
    let (Ok(spec), Ok(store)) = (
        std::env::var("TOOLCAP_TEST_WRITER"),
        std::env::var("TOOLCAP_TEST_STORE"),
    ) else {
        return;
    };
    let parts: Vec<&str> = spec.split(':').collect();
    let (w, count): (usize, usize) = (parts[0].parse().unwrap(), parts[1].parse().unwrap());
    let stream = parts[2] == "true";
    let store = toolcap::store::open(&store).expect("writer opens the store");
    for i in 0..count {
        if stream && i == STREAMED {
            let mut wr = store.begin_output().expect("begin a stream");
            let piece = "streamed ü 日本\n".repeat(4096);
            let mut written = 0;
            while written < 2_200_000 {
                wr.write(&piece).expect("write a piece");
                written += piece.len();
            }
            println!("mid-stream {w} {i}");
            std::thread::sleep(Duration::from_secs(120));
            panic!("not killed");
        }
        let out = output(w, i);
        let mut r = Record::new(
            &format!("dialog_{w}"),
            &id(w, i),
            "bash",
            &json!({"command": format!("job {w} {i}")}),
            &out,
        );
        r.meta.truncated = i % 2 == 0;
        store.put(&r).expect("put");
        // reported only once committed
        println!("committed {w} {i}");
    }
}

/// Eight writer processes, 1,000 results each, all at once: every one is there.
fn eight_writers(store_spec: &str) -> (std::sync::Arc<dyn ResultStore>, Duration) {
    let started = Instant::now();
    let children: Vec<Child> = (0..WRITERS)
        .map(|w| spawn_writer(store_spec, w, PER_WRITER, false))
        .collect();
    for (w, c) in children.into_iter().enumerate() {
        let out = c.wait_with_output().expect("writer runs");
        assert!(out.status.success(), "writer {w} failed");
        let committed = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.contains("committed "))
            .count();
        assert_eq!(committed, PER_WRITER, "writer {w} committed every result");
    }
    let elapsed = started.elapsed();

    let store = toolcap::store::open(store_spec).unwrap();
    let all = store.list(None).unwrap();
    assert_eq!(all.len(), WRITERS * PER_WRITER);
    for w in 0..WRITERS {
        let dialog = format!("dialog_{w}");
        assert_eq!(store.list(Some(&dialog)).unwrap().len(), PER_WRITER);
        for i in 0..PER_WRITER {
            let r = store
                .get(&dialog, &id(w, i))
                .unwrap()
                .unwrap_or_else(|| panic!("result {i} of writer {w} lost"));
            let expect = output(w, i);
            assert_eq!(r.output, expect);
            assert_eq!(r.meta.size.chars, expect.chars().count());
            assert_eq!(r.meta.size.bytes, expect.len());
            assert_eq!(r.meta.size.lines, i % 7 + 2);
            assert_eq!(r.meta.truncated, i % 2 == 0);
            assert_eq!(r.meta.tool_args, json!({"command": format!("job {w} {i}")}));
        }
    }
    eprintln!(
        "{}: {} results from {WRITERS} processes in {elapsed:?} ({:.0} results/s)",
        store.storage_type(),
        WRITERS * PER_WRITER,
        (WRITERS * PER_WRITER) as f64 / elapsed.as_secs_f64()
    );
    (store, elapsed)
}

/// A writer killed with SIGKILL in the middle of a 3 MB stream, after 400 committed
/// results: every committed result is there, the half-written one is not, a
/// prune clears what it left, and the store takes new writes. Returns the store.
#[cfg(unix)]
fn killed_writer(store_spec: &str) -> std::sync::Arc<dyn ResultStore> {
    let mut child = spawn_writer(store_spec, 3, 1_000_000, true);
    let stdout = child.stdout.take().unwrap();
    let mut committed = Vec::new();
    let mut mid_stream = false;
    let deadline = Instant::now() + Duration::from_secs(120);
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        // (libtest's "test child_writer ... " may stand before the first one)
        if let Some(at) = line.find("committed 3 ") {
            committed.push(line[at + "committed 3 ".len()..].parse::<usize>().unwrap());
        }
        mid_stream = line.contains("mid-stream 3 400");
        if mid_stream || Instant::now() > deadline {
            child.kill().expect("SIGKILL the writer"); // Child::kill is SIGKILL on Unix
            break;
        }
    }
    let status = child.wait().unwrap();
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(
            status.signal(),
            Some(9),
            "the writer died of SIGKILL, mid-run"
        );
    }
    assert!(mid_stream, "killed in the middle of the stream");
    assert_eq!(committed, (0..STREAMED).collect::<Vec<_>>());

    let store = toolcap::store::open(store_spec).unwrap();
    let stored = store.list(Some("dialog_3")).unwrap();
    assert_eq!(
        stored.len(),
        STREAMED,
        "every committed result, nothing more"
    );
    for i in committed {
        let r = store
            .get("dialog_3", &id(3, i))
            .unwrap()
            .expect("committed result kept");
        assert_eq!(r.output, output(3, i));
    }
    assert!(
        store.get("dialog_3", &id(3, STREAMED)).unwrap().is_none(),
        "nothing half-written is visible"
    );
    // and the store takes new writes
    store
        .put(&Record::new("d", "after", "bash", &json!({}), "fine\n"))
        .unwrap();
    assert_eq!(store.get("d", "after").unwrap().unwrap().output, "fine\n");
    store
}

#[test]
fn sqlite_eight_processes_writing_1000_results_each_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.db");
    let spec = db.to_str().unwrap();
    eight_writers(spec);
    let store = toolcap::SqliteStore::open(&db).unwrap();
    store.integrity_check().expect("integrity_check ok");
}

#[cfg(unix)]
#[test]
fn sqlite_a_writer_killed_mid_stream_leaves_a_sound_store_with_every_committed_result() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.db");
    killed_writer(db.to_str().unwrap());
    let store = toolcap::SqliteStore::open(&db).unwrap();
    store
        .integrity_check()
        .expect("integrity_check ok after SIGKILL");
    let spills = || {
        rusqlite::Connection::open(&db)
            .unwrap()
            .query_row("SELECT count(*) FROM spills", [], |r| r.get::<_, i64>(0))
            .unwrap()
    };
    assert_eq!(spills(), 1, "the killed writer's unfinished stream");
    std::thread::sleep(Duration::from_millis(5));
    store.prune_before(toolcap::store::now_ms()).unwrap();
    assert_eq!(spills(), 0, "pruned");
}

#[cfg(feature = "postgres")]
#[test]
fn postgres_eight_processes_writing_1000_results_each_lose_nothing() {
    let Some(url) = pg::database() else { return };
    eight_writers(&url);
}

#[cfg(all(unix, feature = "postgres"))]
#[test]
fn postgres_a_writer_killed_mid_stream_leaves_every_committed_result_and_nothing_half_written() {
    let Some(url) = pg::database() else { return };
    let store = killed_writer(&url);
    let c = pg::cluster().unwrap();
    let db = pg::Cluster::db_of(&url);
    let count = |sql: &str| c.psql(db, sql);
    assert_eq!(count("SELECT count(*) FROM toolcap_spills"), "1");
    assert_ne!(
        count(
            "SELECT count(*) FROM toolcap_chunks c WHERE NOT EXISTS (SELECT 1 FROM toolcap_results r WHERE r.output_id = c.output_id)"
        ),
        "0",
        "the stream's chunks are there, owned by no result"
    );
    std::thread::sleep(Duration::from_millis(5));
    store.prune_before(toolcap::store::now_ms()).unwrap();
    assert_eq!(count("SELECT count(*) FROM toolcap_spills"), "0");
    assert_eq!(
        count(
            "SELECT count(*) FROM toolcap_chunks c WHERE NOT EXISTS (SELECT 1 FROM toolcap_results r WHERE r.output_id = c.output_id)"
        ),
        "0",
        "pruned with it"
    );
}
