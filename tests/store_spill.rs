#![cfg(feature = "sqlite")]
//! A streamed result spilled into the store as it is read: kept exactly as the
//! in-memory path keeps it, paged back chunk by chunk, never half visible, never
//! holding the write lock between chunks; version-1 stores still read; what a
//! killed writer leaves is pruned.

use std::sync::Arc;
use std::time::Instant;

use rusqlite::Connection;
use serde_json::json;
use toolcap::store::continuation::{ChunkOptions, get_continuation};
use toolcap::store::{
    MemoryStore, Meta, Record, ResultStore, SaveWhen, SqliteStore, StoreErrorKind,
};
use toolcap::{Config, Reason, StreamError, ToolCall, ToolResultProcessor};

const MIB: usize = 1 << 20;

use crate::support::trickle;
use trickle::Trickle;

/// About 3 MiB of log: CRLF and LF lines, 2-, 3- and 4-byte characters, and at the
/// 1 MiB read boundaries a 4-byte character split 1|3, a 3-byte one split 2|1, an
/// incomplete sequence cut by the boundary, and stray invalid bytes.
fn tricky_log() -> Vec<u8> {
    let mut b = Vec::new();
    let mut i = 0usize;
    while b.len() < 3 * MIB + 5000 {
        let line = match i % 11 {
            0 => format!("{i} é€😀 multi-byte ünïcödé\r\n"),
            5 => format!("{i} plain line with CRLF\r\n"),
            7 => format!("{i} 日本語のログ行\n"),
            _ => format!("{i} line of ordinary log text\n"),
        };
        b.extend_from_slice(line.as_bytes());
        i += 1;
    }
    let mut put = |at: usize, bytes: &[u8]| b[at..at + bytes.len()].copy_from_slice(bytes);
    put(MIB - 1, "😀".as_bytes());
    put(2 * MIB - 2, "€".as_bytes());
    put(3 * MIB - 1, b"\xF0\x9Fx");
    put(MIB / 2, b"bad \xFF\xFE bytes");
    put(5 * MIB / 2, b"\xC3");
    b
}

fn config() -> Config {
    Config::defaults()
}

fn sqlite(dir: &tempfile::TempDir, name: &str) -> Arc<SqliteStore> {
    Arc::new(SqliteStore::open(dir.path().join(name)).expect("open store"))
}

/// Metadata without its creation time, to compare two stores' records.
fn timeless(mut m: Meta) -> Meta {
    m.created_at_ms = 0;
    m
}

#[test]
fn a_streamed_result_is_stored_byte_for_byte_as_in_memory_and_pages_back() {
    let input = tricky_log();
    let text = String::from_utf8_lossy(&input).into_owned();
    let dir = tempfile::tempdir().unwrap();
    let args = json!({"command": "make test"});
    let mut call = ToolCall::new("bash", &args);
    call.id = Some("call_big");
    call.dialog = Some("d1");

    let mem_store = sqlite(&dir, "mem.db");
    let mem = ToolResultProcessor::new(config())
        .with_store(mem_store.clone(), SaveWhen::Cut)
        .process_call(&call, &text);
    assert!(mem.truncated);
    let want = mem_store
        .get("d1", "call_big")
        .unwrap()
        .expect("kept in memory");
    assert!(want.output == text);

    for (name, read) in [("whole", usize::MAX), ("odd", 65_537), ("near", MIB - 3)] {
        let store = sqlite(&dir, &format!("{name}.db"));
        let p = ToolResultProcessor::new(config()).with_store(store.clone(), SaveWhen::Cut);
        let (st, raw) = p
            .try_process_stream(
                &call,
                Trickle {
                    data: &input,
                    n: read,
                },
            )
            .expect("streamed and kept");
        assert_eq!(raw, None);
        assert_eq!(st.store_error, None);
        assert_eq!(st.stored, mem.stored, "reads of {name}");
        assert_eq!(st.text, mem.text, "reads of {name}");
        assert_eq!(st.original.chars, mem.original.chars);
        let got = store.get("d1", "call_big").unwrap().expect("kept");
        assert!(
            got.output == want.output,
            "stored text differs (reads of {name})"
        );
        assert_eq!(timeless(got.meta.clone()), timeless(want.meta.clone()));

        // paging reassembles it, from where the model stopped and from 0
        let opts = ChunkOptions {
            chunk_chars: 250_007,
            line_aligned: false,
        };
        let mut back = String::new();
        let mut offset = Some(0);
        while let Some(o) = offset {
            let r = get_continuation(store.as_ref(), "d1", "call_big", Some(o), &opts).unwrap();
            assert!(!r.is_error, "{}", r.text);
            offset = r.next_offset;
            back.push_str(match r.next_offset {
                Some(_) => &r.text[..r.text.rfind("\n\n[truncated — showing").unwrap()],
                None => &r.text,
            });
        }
        assert!(back == text, "paged text differs (reads of {name})");
    }

    // windows across every stored chunk boundary (chunks hold at most 1 MiB)
    let store = sqlite(&dir, "whole.db");
    let opts = ChunkOptions {
        chunk_chars: 2000,
        line_aligned: false,
    };
    for k in 1..=3 {
        let mut byte = k * MIB;
        while !text.is_char_boundary(byte) {
            byte -= 1;
        }
        let at = text[..byte].chars().count() - 1000;
        let r = get_continuation(store.as_ref(), "d1", "call_big", Some(at), &opts).unwrap();
        let expected: String = text.chars().skip(at).take(2000).collect();
        assert!(r.text.starts_with(&expected), "window at char {at}");
        let (_, part) = store
            .read_range("d1", "call_big", at, 2000)
            .unwrap()
            .unwrap();
        assert_eq!(part, expected);
    }
    // the stream was kept in chunks, not inline
    let db = Connection::open(dir.path().join("whole.db")).unwrap();
    let chunks: i64 = db
        .query_row("SELECT count(*) FROM chunks", [], |r| r.get(0))
        .unwrap();
    assert_eq!(chunks, 4);
    let spills: i64 = db
        .query_row("SELECT count(*) FROM spills", [], |r| r.get(0))
        .unwrap();
    assert_eq!(spills, 0);
}

#[test]
fn a_memory_store_keeps_the_same_text_and_the_policy_decides_what_is_kept() {
    let input = tricky_log();
    let text = String::from_utf8_lossy(&input).into_owned();
    let args = json!({"command": "make"});
    let mut call = ToolCall::new("bash", &args);
    call.id = Some("call_m");

    let store = Arc::new(MemoryStore::new());
    let p = ToolResultProcessor::new(config()).with_store(store.clone(), SaveWhen::All);
    let (st, _) = p.process_stream(&call, &input[..]).unwrap();
    assert!(st.truncated);
    assert!(
        st.text.contains("(tool_call_id=\"call_m\", "),
        "{}",
        st.text
    );
    assert!(store.get("default", "call_m").unwrap().unwrap().output == text);

    // no id: nothing kept, nothing promised
    let mut anon = call;
    anon.id = None;
    let store = Arc::new(MemoryStore::new());
    let p = ToolResultProcessor::new(config()).with_store(store.clone(), SaveWhen::All);
    let (st, _) = p.process_stream(&anon, &input[..]).unwrap();
    assert_eq!(st.stored, None);
    assert!(store.is_empty());
    assert!(!st.text.contains("The full result is stored"));

    // binary data is summarised and kept like every cut output (issue 33: its
    // view reads the stored bytes back instead of running the command again)
    let mut bin = vec![0u8; 2 * MIB];
    bin[..8].copy_from_slice(b"\x89PNG\r\n\x1a\n");
    let store = Arc::new(MemoryStore::new());
    let p = ToolResultProcessor::new(config()).with_store(store.clone(), SaveWhen::All);
    let (st, _) = p.process_stream(&call, &bin[..]).unwrap();
    assert_eq!(st.reason, Reason::Binary);
    assert!(st.stored.is_some());
    assert!(!store.is_empty());

    // a result that fits once cleaned of noise shows less than the original: kept
    // like a cut one (issue 33: `continue --offset 0` reads the output as it was)
    let mut noisy = String::new();
    while noisy.len() < 2 * MIB {
        noisy.push_str("\x1b[2K\rprogress 10%\x1b[2K\rprogress 20%\n");
    }
    noisy.push_str("done\n");
    for (save, kept) in [(SaveWhen::Cut, true), (SaveWhen::All, true)] {
        let store = Arc::new(MemoryStore::new());
        let p = ToolResultProcessor::new(config()).with_store(store.clone(), save);
        let (st, _) = p.process_stream(&call, noisy.as_bytes()).unwrap();
        let mem = p.process_call(&call, &noisy);
        assert_eq!((st.reason, mem.reason), (Reason::Cleaned, Reason::Cleaned));
        assert_eq!(st.stored.is_some(), kept, "{save:?}");
        if kept {
            assert!(store.get("default", "call_m").unwrap().unwrap().output == noisy);
        }
    }
}

#[test]
fn a_bad_id_or_a_failing_store_is_reported_like_in_memory() {
    let input = tricky_log();
    let args = json!({});
    let mut call = ToolCall::new("bash", &args);
    call.id = Some("call\n1");
    let store = Arc::new(MemoryStore::new());
    let p = ToolResultProcessor::new(config()).with_store(store.clone(), SaveWhen::Cut);
    let (st, _) = p.process_stream(&call, &input[..]).unwrap();
    let text = String::from_utf8_lossy(&input);
    let mem = p.process_call(&call, &text);
    assert_eq!(st.store_error, mem.store_error);
    assert!(
        st.store_error
            .as_deref()
            .is_some_and(|e| e.contains("holds a control character"))
    );
    assert!(!st.text.contains("The full result is stored"));
    match p.try_process_stream(&call, &input[..]) {
        Err(StreamError::Store(e)) => {
            assert_eq!(e.kind(), StoreErrorKind::InvalidId);
            assert!(e.to_string().contains("tool_call_id"));
        }
        other => panic!("expected a store error, got {other:?}"),
    }
    assert!(store.is_empty());
}

#[test]
fn a_stream_is_invisible_until_committed_and_leaves_the_lock_between_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let writer_store = SqliteStore::open(&path).unwrap();
    let other = SqliteStore::open(&path).unwrap();
    let text = "línea ✓\n".repeat(250_000); // 2.75 MB: two chunks written, one pending
    let mut w = writer_store.begin_output().unwrap();
    w.write(&text).unwrap();
    // another connection (as another process would) writes and reads meanwhile
    let started = Instant::now();
    other
        .put(&Record::new("d", "small", "bash", &json!({}), "x\n"))
        .unwrap();
    assert!(started.elapsed().as_secs() < 5, "the writer held the lock");
    assert_eq!(other.meta("d", "big").unwrap(), None);
    assert_eq!(other.list(None).unwrap().len(), 1);
    let meta = Meta::new("d", "big", "bash", &json!({"command": "gen"}), &text);
    w.commit(&meta).unwrap();
    assert!(other.get("d", "big").unwrap().unwrap().output == text);
    assert_eq!(other.meta("d", "big").unwrap().unwrap().size, meta.size);

    // a wrong size is refused, and nothing is left behind
    let mut w = writer_store.begin_output().unwrap();
    w.write("abc").unwrap();
    let wrong = Meta::new("d", "wrong", "bash", &json!({}), "abcd");
    let e = w.commit(&wrong).unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::SizeMismatch);
    let e = e.to_string();
    assert!(
        e.contains("says 4 chars and 4 bytes, but 3 chars and 3 bytes"),
        "{e}"
    );
    assert_eq!(other.meta("d", "wrong").unwrap(), None);
    assert_eq!(count(&path, "spills"), 0);

    // a writer dropped without commit takes its chunks with it
    let mut w = writer_store.begin_output().unwrap();
    w.write(&text).unwrap();
    assert_eq!(count(&path, "chunks"), 3 + 2);
    drop(w);
    assert_eq!(count(&path, "chunks"), 3);
    // and gives their pages back to the file system (a new store shrinks)
    assert_eq!(pragma(&path, "auto_vacuum"), 2);
    assert_eq!(pragma(&path, "freelist_count"), 0);

    // replacing or deleting a chunked result deletes its chunks
    other
        .put(&Record::new("d", "big", "bash", &json!({}), "now small\n"))
        .unwrap();
    assert_eq!(count(&path, "chunks"), 0);
    other.put_output(&meta, &text).unwrap(); // over 1 MiB: in chunks
    assert_eq!(count(&path, "chunks"), 3);
    assert_eq!(other.delete_dialog("d").unwrap(), 2);
    assert_eq!(count(&path, "chunks"), 0);
}

fn pragma(db: &std::path::Path, name: &str) -> i64 {
    Connection::open(db)
        .unwrap()
        .query_row(&format!("PRAGMA {name}"), [], |r| r.get(0))
        .unwrap()
}

fn count(db: &std::path::Path, table: &str) -> i64 {
    Connection::open(db)
        .unwrap()
        .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

#[test]
fn what_a_killed_writer_leaves_is_pruned_and_breaks_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let store = SqliteStore::open(&path).unwrap();
    store
        .put(&Record::new("d", "kept", "bash", &json!({}), "kept\n"))
        .unwrap();
    let text = "é".repeat(1_500_000); // 3 MB: two chunks written
    let mut w = store.begin_output().unwrap();
    w.write(&text).unwrap();
    // as if the process were killed: no commit, no clean-up
    std::mem::forget(w);
    assert_eq!(count(&path, "chunks"), 2);
    assert_eq!(count(&path, "spills"), 1);
    store.integrity_check().unwrap();
    assert_eq!(store.list(None).unwrap().len(), 1);
    // another open, write and read go on as usual
    let again = SqliteStore::open(&path).unwrap();
    again
        .put_output(&Meta::new("d", "big", "bash", &json!({}), &text), &text)
        .unwrap();
    assert!(again.get("d", "big").unwrap().unwrap().output == text);
    assert_eq!(count(&path, "chunks"), 2 + 3);
    // a prune at an age the unfinished write is younger than keeps it
    assert_eq!(
        again
            .prune_older_than(std::time::Duration::from_secs(3600))
            .unwrap(),
        0
    );
    assert_eq!(count(&path, "spills"), 1);
    // a prune past it deletes it (and only it: no committed result is that old)
    let later = toolcap::store::now_ms() + 1;
    std::thread::sleep(std::time::Duration::from_millis(2));
    let mut w = again.begin_output().unwrap(); // started after the cutoff: kept
    w.write("tail\n").unwrap();
    assert_eq!(store.prune_before(later - 1).unwrap(), 2);
    assert_eq!(count(&path, "spills"), 1);
    assert_eq!(count(&path, "chunks"), 0);
    let tail = Meta::new("d", "tail", "bash", &json!({}), "tail\n");
    w.commit(&tail).unwrap();
    assert_eq!(again.get("d", "tail").unwrap().unwrap().output, "tail\n");
    store.integrity_check().unwrap();

    // a writer whose unfinished output was pruned under it fails clearly
    let mut w = again.begin_output().unwrap();
    w.write(&text).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2));
    again.prune_before(toolcap::store::now_ms()).unwrap();
    let e = w
        .commit(&Meta::new("d", "late", "bash", &json!({}), &text))
        .unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::Pruned);
    let e = e.to_string();
    assert!(
        e.contains("deleted by a prune before it was complete"),
        "{e}"
    );
    assert!(e.contains(&path.display().to_string()), "{e}");
    assert_eq!(count(&path, "chunks"), 0);
    assert_eq!(pragma(&path, "freelist_count"), 0);
}

/// Schema version 1, as the previous toolcap created it (outputs inline).
const SCHEMA_V1: &str = "
CREATE TABLE IF NOT EXISTS results (
    id           INTEGER PRIMARY KEY,
    dialog_id    TEXT    NOT NULL,
    tool_call_id TEXT    NOT NULL,
    tool_name    TEXT    NOT NULL,
    tool_args    TEXT    NOT NULL,   -- JSON
    size_bytes   INTEGER NOT NULL,
    size_chars   INTEGER NOT NULL,
    size_lines   INTEGER NOT NULL,
    truncated    INTEGER NOT NULL,   -- 0 or 1
    shown_chars  INTEGER NOT NULL,   -- char offset right after what the model saw
    created_at   INTEGER NOT NULL,   -- milliseconds since the Unix epoch
    output       TEXT    NOT NULL,   -- last, so metadata reads skip its pages
    UNIQUE (dialog_id, tool_call_id)
);
CREATE INDEX IF NOT EXISTS results_created_at ON results (created_at);
";

#[test]
fn a_version_1_store_is_upgraded_and_its_results_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v1.db");
    let big = "ü line of an old result\n".repeat(60_000); // 1.5 MB inline
    let with_nul = "before\0after ✓\n";
    {
        let db = Connection::open(&path).unwrap();
        db.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0))
            .unwrap();
        db.execute_batch(&format!(
            "BEGIN IMMEDIATE;{SCHEMA_V1}PRAGMA application_id = {};\
             PRAGMA user_version = 1;COMMIT;",
            0x7463_6170
        ))
        .unwrap();
        for (id, out, created) in [("old_big", big.as_str(), 1000), ("old_nul", with_nul, 2000)] {
            db.execute(
                "INSERT INTO results (dialog_id, tool_call_id, tool_name, tool_args, size_bytes, \
                 size_chars, size_lines, truncated, shown_chars, created_at, output) \
                 VALUES ('d', ?1, 'bash', '{\"command\": \"old\"}', ?2, ?3, ?4, 1, 7, ?5, ?6)",
                rusqlite::params![
                    id,
                    out.len() as i64,
                    out.chars().count() as i64,
                    out.lines().count() as i64,
                    created,
                    out
                ],
            )
            .unwrap();
        }
    }
    let store = SqliteStore::open(&path).unwrap();
    let version: i32 = Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 3);
    assert_eq!(
        pragma(&path, "auto_vacuum"),
        0,
        "an old file keeps its page layout"
    );
    store.integrity_check().unwrap();
    let m = store.meta("d", "old_big").unwrap().unwrap();
    assert_eq!(m.size.chars, big.chars().count());
    assert_eq!(m.shown_chars, 7);
    assert_eq!(m.tool_args, json!({"command": "old"}));
    assert!(store.get("d", "old_big").unwrap().unwrap().output == big);
    let (_, part) = store
        .read_range("d", "old_big", 1_000_000, 30)
        .unwrap()
        .unwrap();
    assert_eq!(
        part,
        big.chars().skip(1_000_000).take(30).collect::<String>()
    );
    let (_, part) = store.read_range("d", "old_nul", 3, 6).unwrap().unwrap();
    assert_eq!(part, "ore\0af");
    let mut pieces = String::new();
    store
        .stream_output("d", "old_nul", &mut |p| {
            pieces.push_str(p);
            std::ops::ControlFlow::Continue(())
        })
        .unwrap()
        .unwrap();
    assert_eq!(pieces, with_nul);

    // new results go in chunks next to the old inline ones; replacing an old one
    let text = "新しい\n".repeat(200_000);
    let meta = Meta::new("d", "old_big", "bash", &json!({}), &text);
    store.put_output(&meta, &text).unwrap();
    assert!(store.get("d", "old_big").unwrap().unwrap().output == text);
    assert_eq!(count(&path, "chunks"), 2);
    assert_eq!(store.list(Some("d")).unwrap().len(), 2);
    // a second open finds it up to date; an old row prunes as before
    let again = SqliteStore::open(&path).unwrap();
    assert_eq!(again.prune_before(2001).unwrap(), 1);
    assert_eq!(again.meta("d", "old_nul").unwrap(), None);
    assert_eq!(count(&path, "chunks"), 2);
}
