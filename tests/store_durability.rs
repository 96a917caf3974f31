#![cfg(feature = "sqlite")]
//! Nothing lost: many processes writing one store at once, and a writer killed with
//! SIGKILL mid-run.
//!
//! The writers are this test binary run again as child processes (the `child_writer`
//! test, which does nothing unless TOOLCAP_TEST_WRITER is set), each with its own
//! `SqliteStore` connection, as separate harness processes would have.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use toolcap::store::{Record, ResultStore, SqliteStore};

const WRITERS: usize = 8;
const PER_WRITER: usize = 1000;

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

fn spawn_writer(db: &Path, w: usize, count: usize) -> Child {
    Command::new(std::env::current_exe().expect("test binary path"))
        .args(["--exact", "child_writer", "--nocapture", "--test-threads=1"])
        .env("TOOLCAP_TEST_WRITER", format!("{w}:{count}"))
        .env("TOOLCAP_TEST_DB", db)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn writer")
}

/// Not a test of its own: the body of a writer process.
#[test]
fn child_writer() {
    let (Ok(spec), Ok(db)) = (
        std::env::var("TOOLCAP_TEST_WRITER"),
        std::env::var("TOOLCAP_TEST_DB"),
    ) else {
        return;
    };
    let (w, count) = spec.split_once(':').expect("W:COUNT");
    let (w, count): (usize, usize) = (w.parse().unwrap(), count.parse().unwrap());
    let store = SqliteStore::open(&db).expect("writer opens the store");
    for i in 0..count {
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

#[test]
fn eight_processes_writing_1000_results_each_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.db");
    let started = Instant::now();
    let children: Vec<Child> = (0..WRITERS)
        .map(|w| spawn_writer(&db, w, PER_WRITER))
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

    let store = SqliteStore::open(&db).unwrap();
    store.integrity_check().expect("integrity_check ok");
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
        "{} results from {WRITERS} processes in {elapsed:?}",
        WRITERS * PER_WRITER
    );
}

#[cfg(unix)]
#[test]
fn a_writer_killed_mid_run_leaves_a_sound_store_with_every_committed_result() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.db");
    // far more than it can write before the kill
    let mut child = spawn_writer(&db, 3, 1_000_000);
    let stdout = child.stdout.take().unwrap();
    let mut committed = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        // (libtest's "test child_writer ... " may stand before the first one)
        if let Some(at) = line.find("committed 3 ") {
            committed.push(line[at + "committed 3 ".len()..].parse::<usize>().unwrap());
        }
        if committed.len() == 400 || Instant::now() > deadline {
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
    assert_eq!(committed.len(), 400);

    let store = SqliteStore::open(&db).unwrap();
    store
        .integrity_check()
        .expect("integrity_check ok after SIGKILL");
    let stored = store.list(Some("dialog_3")).unwrap();
    assert!(
        stored.len() >= committed.len(),
        "every committed result is there"
    );
    for i in committed {
        let r = store
            .get("dialog_3", &id(3, i))
            .unwrap()
            .expect("committed result kept");
        assert_eq!(r.output, output(3, i));
    }
    // and the store takes new writes
    store
        .put(&Record::new("d", "after", "bash", &json!({}), "fine\n"))
        .unwrap();
    assert_eq!(store.get("d", "after").unwrap().unwrap().output, "fine\n");
}
