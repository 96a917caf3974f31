//! The same store tests against every backend: memory, SQLite and PostgreSQL (a
//! throwaway server the test starts: tests/support/pg.rs; skipped with a note when
//! PostgreSQL is not installed, except under CI).
//!
//! Each test body takes a `&dyn ResultStore`; the `backends!` macro makes one test
//! per backend of it.

use crate::support::pg;

use std::ops::ControlFlow;
use std::time::Duration;

use serde_json::json;
use toolcap::store::continuation::{self, ChunkOptions, ReplyError};
use toolcap::store::{Meta, Record, ResultStore, StoreError, StoreErrorKind, now_ms};

/// A store of one backend, and what must live as long as it.
struct Backend {
    store: Box<dyn ResultStore>,
    _dir: Option<tempfile::TempDir>,
    /// The PostgreSQL URL, for looking at the tables with psql.
    url: Option<String>,
}

fn memory() -> Option<Backend> {
    Some(Backend {
        store: Box::new(toolcap::MemoryStore::new()),
        _dir: None,
        url: None,
    })
}

fn sqlite() -> Option<Backend> {
    let dir = tempfile::tempdir().unwrap();
    let store = toolcap::SqliteStore::open(dir.path().join("results.db")).unwrap();
    Some(Backend {
        store: Box::new(store),
        _dir: Some(dir),
        url: None,
    })
}

#[cfg(feature = "postgres")]
fn postgres() -> Option<Backend> {
    let url = pg::database()?;
    let store = toolcap::PostgresStore::open(&url).expect("open the test database");
    Some(Backend {
        store: Box::new(store),
        _dir: None,
        url: Some(url),
    })
}

/// One test per backend for each body: `backends!(name: body_fn)`.
macro_rules! backends {
    ($($name:ident: $body:path),* $(,)?) => {
        mod memory_store { use super::*; $( #[test] fn $name() { if let Some(b) = memory() { $body(&b) } } )* }
        mod sqlite_store { use super::*; $( #[test] fn $name() { if let Some(b) = sqlite() { $body(&b) } } )* }
        #[cfg(feature = "postgres")]
        mod postgres_store { use super::*; $( #[test] fn $name() { if let Some(b) = postgres() { $body(&b) } } )* }
    };
}

backends! {
    pages_back_byte_for_byte: paging,
    streams_are_kept_as_written: streamed,
    errors_name_the_problem: errors,
    prunes_by_age_and_dialog: prune,
    unfinished_writes_stay_invisible_and_are_pruned: unfinished,
    a_replaced_result_reads_as_the_new_one: replace,
    concurrent_writes_of_one_id_leave_one_whole_result: concurrent_replace,
    the_dialog_list_pages_by_cursor: list_pages,
}

/// The dialog list in pages (issue 28 item 12): by cursor, every result once, in
/// order, whatever is stored in other dialogs; by offset, the same pages; the
/// count without reading the results.
fn list_pages(b: &Backend) {
    use toolcap::store::{ListCursor, ListPage};
    let s = b.store.as_ref();
    let t0 = now_ms() - 100_000;
    for i in 0..25 {
        for d in ["d1", "d2"] {
            let mut m = Meta::new(d, &format!("c{i:02}"), "bash", &json!({"i": i}), "x\n");
            // several results share a creation time: the ids order them
            m.created_at_ms = t0 + i64::from(i / 3);
            s.put_output(&m, "x\n").unwrap();
        }
    }
    assert_eq!(s.count(Some("d1")).unwrap(), 25);
    assert_eq!(s.count(None).unwrap(), 50);
    let all = s.list(Some("d1")).unwrap();
    let mut seen = Vec::new();
    let mut after: Option<ListCursor> = None;
    loop {
        let page = s
            .list_page(&ListPage {
                dialog_id: Some("d1"),
                after: after.as_ref(),
                offset: 0,
                limit: 7,
            })
            .unwrap();
        assert!(page.len() <= 7);
        let Some(last) = page.last() else { break };
        after = Some(ListCursor::after(last));
        seen.extend(page);
    }
    assert_eq!(seen, all);
    let by_offset = s
        .list_page(&ListPage {
            dialog_id: Some("d1"),
            after: None,
            offset: 7,
            limit: 7,
        })
        .unwrap();
    assert_eq!(by_offset, all[7..14].to_vec());
    // all dialogs, by cursor: each result once, in (created, dialog, id) order
    let mut every = Vec::new();
    let mut after: Option<ListCursor> = None;
    loop {
        let page = s
            .list_page(&ListPage {
                dialog_id: None,
                after: after.as_ref(),
                offset: 0,
                limit: 9,
            })
            .unwrap();
        let Some(last) = page.last() else { break };
        after = Some(ListCursor::after(last));
        every.extend(page);
    }
    assert_eq!(every, s.list(None).unwrap());
    assert_eq!(every.len(), 50);
}

/// About 2.3 MB of 1- to 4-byte characters, with NUL, CR and tab: more than two
/// chunks of every chunked backend (SQLite: 1 MiB; PostgreSQL: 64 KiB).
fn multibyte() -> String {
    let mut s = String::new();
    let mut i = 0;
    while s.len() < 2_300_000 {
        i += 1;
        s.push_str(&format!("{i:07} aé€😀 ½ → ∑ ü\t\"q\" \\ \u{0}\r\n"));
    }
    s
}

/// About 1.1 MB of ASCII lines.
fn ascii() -> String {
    (0..20_000)
        .map(|i| format!("line {i:05}: the quick brown fox jumps over the lazy dog\n"))
        .collect()
}

/// Characters `[offset, offset + len)` of a text, by its character index.
struct Chars<'a> {
    text: &'a str,
    /// The byte offset of every character, and the text's length.
    at: Vec<usize>,
}

impl<'a> Chars<'a> {
    fn new(text: &'a str) -> Chars<'a> {
        let mut at: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        at.push(text.len());
        Chars { text, at }
    }

    fn total(&self) -> usize {
        self.at.len() - 1
    }

    fn get(&self, offset: usize, len: usize) -> &'a str {
        let a = offset.min(self.total());
        let b = offset.saturating_add(len).min(self.total());
        &self.text[self.at[a]..self.at[b]]
    }
}

fn chars(s: &str, offset: usize, len: usize) -> String {
    s.chars().skip(offset).take(len).collect()
}

fn paging(b: &Backend) {
    let s = &*b.store;
    for (id, text) in [("call_mb", multibyte()), ("call_ascii", ascii())] {
        let ix = Chars::new(&text);
        let total = ix.total();
        let mut r = Record::new("d1", id, "read_file", &json!({"path": "big.txt"}), &text);
        r.meta.truncated = true;
        r.meta.shown_chars = 1_990;
        s.put(&r).unwrap();

        let meta = s.meta("d1", id).unwrap().expect("metadata");
        assert_eq!(meta.size.bytes, text.len());
        assert_eq!(meta.size.chars, total);
        assert_eq!(meta.size.lines, text.lines().count());
        assert!(meta.truncated);
        assert_eq!(meta.shown_chars, 1_990);
        assert_eq!(meta.tool_args, json!({"path": "big.txt"}));

        // whole, streamed, and paged 100,000 characters at a time: byte for byte
        assert_eq!(
            s.get("d1", id).unwrap().unwrap().output.as_bytes(),
            text.as_bytes()
        );
        let mut streamed = String::new();
        let m = s
            .stream_output("d1", id, &mut |p| {
                streamed.push_str(p);
                ControlFlow::Continue(())
            })
            .unwrap();
        assert_eq!(m.as_ref().map(|m| m.size.chars), Some(total));
        assert_eq!(streamed.as_bytes(), text.as_bytes());
        let mut paged = String::new();
        let mut offset = 0;
        while offset < total {
            let (_, part) = s.read_range("d1", id, offset, 100_000).unwrap().unwrap();
            assert_eq!(part.chars().count(), 100_000.min(total - offset));
            paged.push_str(&part);
            offset += 100_000;
        }
        assert_eq!(paged.as_bytes(), text.as_bytes());

        // windows everywhere, chunk boundaries among them (65,536 and 1,048,576 bytes
        // fall inside characters of the multi-byte text)
        let mut at = 0;
        while at < total + 10 {
            for len in [0, 1, 7, 2_000] {
                let (_, part) = s.read_range("d1", id, at, len).unwrap().unwrap();
                assert_eq!(part, ix.get(at, len), "{id} at {at} len {len}");
            }
            at += 37_013;
        }
        let (_, tail) = s.read_range("d1", id, total - 3, 10).unwrap().unwrap();
        assert_eq!(tail, ix.get(total - 3, 3));
        let (_, beyond) = s.read_range("d1", id, total + 5, 10).unwrap().unwrap();
        assert_eq!(beyond, "");

        // get_continuation from where the model stopped, to the end
        let opts = ChunkOptions {
            chunk_chars: 300_000,
            line_aligned: false,
        };
        let mut next = None;
        let mut got = String::new();
        loop {
            let reply = continuation::get_continuation(s, "d1", id, next, &opts).unwrap();
            assert!(!reply.is_error, "{}", reply.text);
            let from = next.unwrap_or(1_990);
            let expect = ix.get(from, 300_000);
            assert!(reply.text.starts_with(expect), "chunk at {from}");
            got.push_str(expect);
            match reply.next_offset {
                Some(n) => next = Some(n),
                None => break,
            }
        }
        assert_eq!(got, ix.get(1_990, total));
    }
    // a small one, and an empty one
    s.put(&Record::new("d1", "small", "bash", &json!({}), "ü\n"))
        .unwrap();
    s.put(&Record::new("d1", "empty", "bash", &json!({}), ""))
        .unwrap();
    assert_eq!(s.get("d1", "small").unwrap().unwrap().output, "ü\n");
    assert_eq!(s.get("d1", "empty").unwrap().unwrap().output, "");
    assert_eq!(s.read_range("d1", "empty", 0, 5).unwrap().unwrap().1, "");
    let ids: Vec<String> = s
        .list(Some("d1"))
        .unwrap()
        .into_iter()
        .map(|m| m.tool_call_id)
        .collect();
    assert_eq!(ids.len(), 4);
    for id in ["call_mb", "call_ascii", "small", "empty"] {
        assert!(ids.iter().any(|i| i == id), "{id} listed");
    }
}

fn streamed(b: &Backend) {
    let s = &*b.store;
    let text = multibyte();
    // pieces of odd sizes, cut on character boundaries
    let mut w = s.begin_output().unwrap();
    let mut rest = text.as_str();
    let mut n = 1;
    while !rest.is_empty() {
        let mut cut = (n * 7919 % 100_003).min(rest.len());
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        w.write(&rest[..cut]).unwrap();
        rest = &rest[cut..];
        n += 1;
    }
    let meta = Meta::new(
        "d1",
        "call_stream",
        "bash",
        &json!({"command": "cat big"}),
        &text,
    );
    w.commit(&meta).unwrap();
    assert_eq!(
        s.get("d1", "call_stream")
            .unwrap()
            .unwrap()
            .output
            .as_bytes(),
        text.as_bytes()
    );
    let total = text.chars().count();
    let (_, part) = s
        .read_range("d1", "call_stream", total / 2, 50_000)
        .unwrap()
        .unwrap();
    assert_eq!(part, chars(&text, total / 2, 50_000));

    // a stream whose metadata does not match what was written is refused, and nothing is kept
    let mut w = s.begin_output().unwrap();
    w.write("abc").unwrap();
    let wrong = Meta::new("d1", "call_wrong", "bash", &json!({}), "abcd");
    let e = w.commit(&wrong).unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::SizeMismatch, "{e}");
    assert!(
        e.to_string()
            .contains("says 4 chars and 4 bytes, but 3 chars"),
        "{e}"
    );
    assert!(s.meta("d1", "call_wrong").unwrap().is_none());
}

fn errors(b: &Backend) {
    let s = &*b.store;
    s.put(&Record::new("d1", "call_1", "bash", &json!({}), "one\n"))
        .unwrap();
    // unknown ids, another dialog's result: nothing
    assert!(s.get("d1", "nope").unwrap().is_none());
    assert!(s.meta("d1", "nope").unwrap().is_none());
    assert!(s.read_range("d1", "nope", 0, 10).unwrap().is_none());
    assert!(s.get("d2", "call_1").unwrap().is_none());
    assert!(s.list(Some("d2")).unwrap().is_empty());
    assert!(
        s.stream_output("d2", "call_1", &mut |_| ControlFlow::Continue(()))
            .unwrap()
            .is_none()
    );
    // an id the store cannot keep: a message naming the id and the fix
    let bad = Record::new("d1", "call\n2", "bash", &json!({}), "x");
    match s.put(&bad) {
        Err(e @ StoreError::InvalidId { .. }) => {
            assert!(e.to_string().contains("holds a control character"), "{e}");
        }
        other => panic!("expected InvalidId, got {other:?}"),
    }
    let long = Record::new(&"d".repeat(257), "call_3", "bash", &json!({}), "x");
    assert!(matches!(s.put(&long), Err(StoreError::InvalidId { .. })));
    assert_eq!(
        s.put(&long).map_err(|e| e.kind()).err(),
        Some(StoreErrorKind::InvalidId)
    );
    // the recovery tools' replies
    let opts = ChunkOptions::default();
    let r = continuation::get_continuation(s, "d1", "nope", Some(0), &opts).unwrap();
    assert!(r.is_error);
    assert_eq!(r.error, Some(ReplyError::NotStored));
    assert!(
        r.text.contains("No cached result for tool_call_id"),
        "{}",
        r.text
    );
    let r = continuation::get_continuation(s, "d1", "call_1", Some(4), &opts).unwrap();
    assert!(r.is_error);
    assert_eq!(r.error, Some(ReplyError::PastEnd));
    assert!(r.text.contains("Offset beyond end"), "{}", r.text);
    let r = continuation::fetch_tool_output(s, "d1", "call_1", None, None).unwrap();
    assert!(!r.is_error);
    assert!(r.text.contains(r#""tool_output": "one\n""#), "{}", r.text);
}

fn prune(b: &Backend) {
    let s = &*b.store;
    let day = 86_400_000;
    let put = |d: &str, id: &str, age_ms: i64| {
        let mut r = Record::new(
            d,
            id,
            "bash",
            &json!({}),
            &format!("{id} ü\n").repeat(40_000),
        );
        r.meta.created_at_ms = now_ms() - age_ms;
        s.put(&r).unwrap();
    };
    put("d1", "old_1", 10 * day);
    put("d1", "old_2", 8 * day);
    put("d1", "new_1", 0);
    put("d2", "old_3", 9 * day);
    put("d2", "new_2", day);
    put("d3", "new_3", 0);
    assert_eq!(
        s.prune_older_than(Duration::from_secs(7 * 86_400)).unwrap(),
        3
    );
    let left: Vec<String> = s
        .list(None)
        .unwrap()
        .into_iter()
        .map(|m| m.tool_call_id)
        .collect();
    assert_eq!(left, ["new_2", "new_1", "new_3"], "oldest first");
    assert!(s.get("d1", "old_1").unwrap().is_none());
    assert_eq!(s.delete_dialog("d1").unwrap(), 1);
    assert_eq!(s.delete_dialog("d1").unwrap(), 0);
    assert!(s.get("d1", "new_1").unwrap().is_none());
    assert_eq!(
        s.get("d2", "new_2").unwrap().unwrap().output,
        "new_2 ü\n".repeat(40_000)
    );
    assert_eq!(s.list(None).unwrap().len(), 2);
    if let Some(url) = &b.url {
        // the chunks went with their results
        let c = pg::cluster().unwrap();
        let db = pg::Cluster::db_of(url);
        let outputs = c.psql(db, "SELECT count(DISTINCT output_id) FROM toolcap_chunks");
        assert_eq!(outputs, "2");
    }
}

fn unfinished(b: &Backend) {
    let s = &*b.store;
    let mut w = s.begin_output().unwrap();
    w.write(&"x".repeat(3_000_000)).unwrap();
    // the writer "killed": never committed, never dropped
    std::mem::forget(w);
    assert!(
        s.list(None).unwrap().is_empty(),
        "nothing half-written is listed"
    );
    // a dropped writer deletes what it wrote
    let mut w = s.begin_output().unwrap();
    w.write(&"y".repeat(200_000)).unwrap();
    drop(w);
    assert!(s.list(None).unwrap().is_empty());
    let spills = |b: &Backend| {
        b.url.as_ref().map(|url| {
            pg::cluster().unwrap().psql(
                pg::Cluster::db_of(url),
                "SELECT count(*) FROM toolcap_spills",
            )
        })
    };
    if b.url.is_some() {
        assert_eq!(spills(b).as_deref(), Some("1"), "the killed writer's spill");
    }
    // a prune with a cutoff after its last write deletes it
    std::thread::sleep(Duration::from_millis(5));
    s.prune_before(now_ms()).unwrap();
    if let Some(url) = &b.url {
        assert_eq!(spills(b).as_deref(), Some("0"));
        let chunks = pg::cluster().unwrap().psql(
            pg::Cluster::db_of(url),
            "SELECT count(*) FROM toolcap_chunks",
        );
        assert_eq!(chunks, "0");
    }
    // and the store takes new writes
    s.put(&Record::new("d", "after", "bash", &json!({}), "fine\n"))
        .unwrap();
    assert_eq!(s.get("d", "after").unwrap().unwrap().output, "fine\n");
}

fn replace(b: &Backend) {
    let s = &*b.store;
    let first = "a\n".repeat(100_000);
    s.put(&Record::new(
        "d1",
        "call_1",
        "bash",
        &json!({"v": 1}),
        &first,
    ))
    .unwrap();
    s.put(&Record::new(
        "d1",
        "call_1",
        "bash",
        &json!({"v": 2}),
        "second\n",
    ))
    .unwrap();
    let r = s.get("d1", "call_1").unwrap().unwrap();
    assert_eq!(r.output, "second\n");
    assert_eq!(r.meta.tool_args, json!({"v": 2}));
    assert_eq!(r.meta.size.chars, 7);
    assert_eq!(s.list(None).unwrap().len(), 1);
    if let Some(url) = &b.url {
        let c = pg::cluster().unwrap();
        let n = c.psql(
            pg::Cluster::db_of(url),
            "SELECT count(*) FROM toolcap_chunks",
        );
        assert_eq!(n, "1", "the first output's chunks are gone");
    }
}

/// Writers racing to keep results under one id (a harness retrying a call) while
/// readers read it: every read is one writer's output whole, with its own metadata
/// (never a mix of two, never a half-written one), no write fails, and in the end
/// one result is left, with no other writer's chunks.
fn concurrent_replace(b: &Backend) {
    let s = &*b.store;
    // small (one row), over PostgreSQL's chunk, over SQLite's chunk
    let outputs: Vec<String> = (0..6)
        .map(|w| {
            let line = format!("writer {w} line ü€\n");
            let n = match w % 3 {
                0 => 3,
                1 => 9_000,
                _ => 80_000,
            };
            line.repeat(n)
        })
        .collect();
    s.put(&Record::new(
        "d",
        "same",
        "bash",
        &json!({"w": 0}),
        &outputs[0],
    ))
    .unwrap();
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        let writers: Vec<_> = outputs
            .iter()
            .enumerate()
            .map(|(w, out)| {
                scope.spawn(move || {
                    for _ in 0..4 {
                        s.put(&Record::new("d", "same", "bash", &json!({"w": w}), out))
                            .unwrap_or_else(|e| panic!("writer {w}: {e}"));
                    }
                })
            })
            .collect();
        let outputs = &outputs;
        let stop = &stop;
        let reader = scope.spawn(move || {
            let mut reads = 0;
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                let r = s.get("d", "same").unwrap().expect("always one result");
                let w = r.meta.tool_args["w"].as_u64().unwrap() as usize;
                assert!(
                    r.output == outputs[w],
                    "read {reads}: the output is writer {w}'s, whole ({} of {} chars)",
                    r.output.chars().count(),
                    outputs[w].chars().count()
                );
                assert_eq!(r.meta.size.chars, r.output.chars().count());
                reads += 1;
            }
            reads
        });
        for w in writers {
            w.join().unwrap();
        }
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        assert!(reader.join().unwrap() > 0);
    });
    let r = s.get("d", "same").unwrap().unwrap();
    let w = r.meta.tool_args["w"].as_u64().unwrap() as usize;
    assert_eq!(r.output, outputs[w]);
    assert_eq!(s.list(None).unwrap().len(), 1);
    if let Some(url) = &b.url {
        let c = pg::cluster().unwrap();
        let db = pg::Cluster::db_of(url);
        let left = c.psql(db, "SELECT count(*) FROM toolcap_chunks");
        let wanted = c.psql(
            db,
            "SELECT count(*) FROM toolcap_chunks c JOIN toolcap_results r ON c.output_id = r.output_id",
        );
        assert_eq!(left, wanted, "no chunks of replaced outputs are left");
        assert_eq!(c.psql(db, "SELECT count(*) FROM toolcap_spills"), "0");
    }
}

/// Why a connection failed is a kind a program matches on (the CLI's messages
/// are checked in store_postgres_cli.rs): the server's SQLSTATE, the client's
/// cause, what the URL asked for.
#[cfg(feature = "postgres")]
#[test]
fn postgres_connection_failures_have_kinds() {
    use toolcap::store::ConnectFailure;
    let Some(c) = pg::cluster() else { return };
    let url = pg::database().unwrap();
    let db = pg::Cluster::db_of(&url);
    let port = c.port;
    let kind = |url: &str| {
        let e = toolcap::PostgresStore::open(url).unwrap_err();
        assert!(e.is_unavailable(), "{e}");
        assert!(
            std::error::Error::source(&e).is_some(),
            "the client's error is kept: {e:?}"
        );
        e.kind()
    };
    let connect = StoreErrorKind::Connect;
    assert_eq!(
        kind(&format!("postgres://toolcap:wrong@127.0.0.1:{port}/{db}")),
        connect(ConnectFailure::Auth)
    );
    assert_eq!(
        kind(&format!(
            "postgres://toolcap:{}@127.0.0.1:{port}/no_such_db",
            c.password()
        )),
        connect(ConnectFailure::NoDatabase)
    );
    let tls = kind(&format!(
        "postgres://toolcap:{}@127.0.0.1:{port}/{db}?sslmode=require",
        c.password()
    ));
    assert_eq!(tls, connect(ConnectFailure::Tls));
    if std::env::var_os("PGPASSWORD").is_none() {
        assert_eq!(
            kind(&format!("postgres://toolcap@127.0.0.1:{port}/{db}")),
            connect(ConnectFailure::PasswordMissing)
        );
    }
    let free = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    assert_eq!(
        kind(&format!("postgres://toolcap:pw@127.0.0.1:{free}/x")),
        connect(ConnectFailure::Unreachable)
    );
}
