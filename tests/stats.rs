//! The record of results seen and recovery calls answered (`toolcap::store::record`),
//! in every backend, and `toolcap stats` / `/metrics` checked against a recount of
//! the raw rows — over a store filled by the recovery benchmark's reader.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use serde_json::{Value, json};
use toolcap::store::record::stats::report;
use toolcap::store::record::{Ask, Filter, Outcome};
use toolcap::store::tools::{Dispatch, RecoveryTools};
use toolcap::store::{ResultStore, SaveWhen, now_ms};
use toolcap::{Config, ToolCall, ToolResultProcessor};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_toolcap"));
    c.env_remove("TOOLCAP_STORE")
        .env_remove("TOOLCAP_DIALOG")
        .env_remove("TOOLCAP_LOG")
        .env_remove("RUST_LOG");
    c
}

fn numbered(n: usize) -> String {
    (1..=n)
        .map(|i| format!("line {i:04} of the file\n"))
        .collect()
}

fn call<'a>(name: &'a str, args: &'a Value, id: Option<&'a str>, dialog: &'a str) -> ToolCall<'a> {
    ToolCall {
        id,
        dialog: Some(dialog),
        ..ToolCall::new(name, args)
    }
}

/// Process a cut result, an uncut one and a bypassed one, then ask the cut one back
/// every way the recovery tools allow; check the rows each backend kept.
fn records(store: Arc<dyn ResultStore>) {
    let p = ToolResultProcessor::new(Config::defaults()).with_store(store.clone(), SaveWhen::Cut);
    let big = numbered(400); // 400 lines of 22 chars: 8,800 chars, over 3,500
    let args = json!({"path": "src/x.txt"});
    let cut = p.process_call(&call("read_file", &args, Some("c1"), "d1"), &big);
    assert!(cut.truncated);
    let small = p.process_call(&call("read_file", &args, Some("c2"), "d1"), "tiny\n");
    assert!(!small.truncated);
    // bypassed: not a result seen
    p.process_call(&call("get_continuation", &json!({}), None, "d1"), &big);
    // another dialog, for delete_dialog below
    p.process_call(&call("bash", &json!({}), Some("c9"), "d2"), &big);

    let tools = RecoveryTools::new(store.clone(), "d1");
    let ask = |name: &str, args: Value| match tools.dispatch(name, &args) {
        Dispatch::Handled(r) => r,
        Dispatch::NotMine => panic!("{name} not served"),
    };
    let shown = cut.stored.as_ref().expect("stored").offset;
    ask("get_continuation", json!({"tool_call_id": "c1"}));
    ask(
        "get_continuation",
        json!({"tool_call_id": "c1", "offset": 0}),
    );
    ask(
        "get_continuation",
        json!({"tool_call_id": "c1", "start_line": 200, "end_line": 210}),
    );
    let found = ask(
        "search_tool_output",
        json!({"tool_call_id": "c1", "pattern": "line 03"}),
    );
    ask(
        "fetch_tool_output",
        json!({"tool_call_id": "c1", "offset": 10, "limit": 5}),
    );
    ask("get_tool_result", json!({"tool_call_id": "c1"}));
    ask(
        "query_tool_output",
        json!({"tool_call_id": "nope", "path": ".a"}),
    );
    // refused before the store is asked: no id, not recorded
    ask("get_continuation", json!({"offset": 3}));

    let u = store
        .usage(&Filter::default())
        .unwrap()
        .expect("every backend keeps a record");
    let seen: Vec<(&str, Option<&str>, bool, u64, u64)> = u
        .seen
        .iter()
        .map(|s| {
            (
                s.tool.as_str(),
                s.tool_call_id.as_deref(),
                s.truncated,
                s.size_chars,
                s.shown_chars,
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (
                "read_file",
                Some("c1"),
                true,
                8800,
                cut.text.chars().count() as u64
            ),
            ("read_file", Some("c2"), false, 5, 5),
            ("bash", Some("c9"), true, 8800, u.seen[2].shown_chars),
        ]
    );
    assert_eq!(u.seen[0].reason, "cut");
    assert_eq!(u.seen[1].reason, "under_threshold");
    assert_eq!(
        (u.seen[0].threshold, u.seen[0].unit.as_str()),
        (3500, "chars")
    );
    let calls: Vec<(&str, Ask, Option<&str>, Outcome)> = u
        .calls
        .iter()
        .map(|c| {
            (
                c.recovery_tool.as_str(),
                c.ask,
                c.result_tool.as_deref(),
                c.outcome,
            )
        })
        .collect();
    use Ask::*;
    let rf = Some("read_file");
    assert_eq!(
        calls,
        [
            ("get_continuation", Continuation, rf, Outcome::Answered),
            ("get_continuation", Reread, rf, Outcome::Answered),
            ("get_continuation", Lines, rf, Outcome::Answered),
            ("search_tool_output", Search, rf, Outcome::Answered),
            ("fetch_tool_output", Fetch, rf, Outcome::Answered),
            ("get_tool_result", Whole, rf, Outcome::Answered),
            ("query_tool_output", Query, None, Outcome::NotStored),
        ]
    );
    let c = &u.calls;
    assert_eq!(
        (c[1].offset, c[2].start_line, c[2].end_line),
        (Some(0), Some(200), Some(210))
    );
    assert_eq!(c[3].pattern.as_deref(), Some("line 03"));
    assert_eq!(c[3].reply_chars, found.text.chars().count() as u64);
    assert_eq!(c[6].path.as_deref(), Some(".a"));
    assert_eq!(
        (c[0].result_chars, c[0].result_truncated),
        (Some(8800), Some(true))
    );
    assert!(shown > 0);

    // the figures, from these rows
    let r = report(&u);
    let rfs = r.tools.iter().find(|t| t.tool == "read_file").unwrap();
    assert_eq!(
        (rfs.results_seen, rfs.results_cut, rfs.cut_rate_pct()),
        (2, 1, 50)
    );
    assert_eq!(
        (rfs.recovery_calls, rfs.calls_on_cut, rfs.cut_asked_back),
        (6, 6, 1)
    );
    assert_eq!(rfs.read_on_within, 1);
    assert_eq!(r.calls_not_stored, 1);
    let a = rfs.advice.as_ref().expect("advice");
    assert_eq!(
        (a.threshold, a.avoided_calls, a.calls_on_cut, a.shown_whole),
        (8800, 6, 6, 1)
    );
    assert_eq!(a.extra_chars, 8800 - u.seen[0].shown_chars);

    // filters, and the record follows the results' retention
    let d2 = Filter {
        dialog_id: Some("d2".into()),
        since_ms: None,
    };
    assert_eq!(store.usage(&d2).unwrap().unwrap().seen.len(), 1);
    let later = Filter {
        dialog_id: None,
        since_ms: Some(now_ms() + 60_000),
    };
    assert_eq!(store.usage(&later).unwrap().unwrap(), Default::default());
    store.delete_dialog("d2").unwrap();
    let u = store.usage(&Filter::default()).unwrap().unwrap();
    assert_eq!((u.seen.len(), u.calls.len()), (2, 7));
    store.prune_before(now_ms() + 1).unwrap();
    assert_eq!(
        store.usage(&Filter::default()).unwrap().unwrap(),
        Default::default()
    );
}

#[test]
fn memory_store_keeps_the_record() {
    records(Arc::new(toolcap::MemoryStore::new()));
}

#[test]
fn sqlite_store_keeps_the_record() {
    let dir = tempfile::tempdir().unwrap();
    records(Arc::new(
        toolcap::SqliteStore::open(dir.path().join("r.db")).unwrap(),
    ));
}

#[cfg(feature = "postgres")]
#[test]
fn postgres_store_keeps_the_record() {
    let Some(url) = crate::support::pg::database() else {
        return;
    };
    records(Arc::new(toolcap::PostgresStore::open(&url).unwrap()));
}

#[derive(Debug, Default, PartialEq)]
struct Recount {
    seen: u64,
    cut: u64,
    original: u64,
    shown: u64,
    saved: u64,
    calls: u64,
    asks: BTreeMap<String, u64>,
    asked_back: u64,
    calls_on_cut: u64,
    read_on: u64,
    /// (threshold, avoided, of, shown whole, extra chars)
    advice: Option<(u64, u64, u64, u64, u64)>,
}

/// The figures of every tool, counted here from the raw SQLite rows (SQL and a plain
/// loop; none of the library's counting).
fn recount(db: &Path) -> BTreeMap<String, Recount> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut out: BTreeMap<String, Recount> = BTreeMap::new();
    let mut st = conn
        .prepare(
            "SELECT tool, count(*), sum(truncated), sum(size_chars), sum(shown_chars), \
             sum(max(size_chars - shown_chars, 0)) FROM record_seen GROUP BY tool",
        )
        .unwrap();
    let rows = st
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                [
                    r.get::<_, i64>(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ],
            ))
        })
        .unwrap();
    for row in rows {
        let (tool, v) = row.unwrap();
        let v = v.map(|x| x as u64);
        let t = out.entry(tool).or_default();
        (t.seen, t.cut, t.original, t.shown, t.saved) = (v[0], v[1], v[2], v[3], v[4]);
    }
    let mut st = conn
        .prepare("SELECT result_tool, ask, count(*) FROM record_calls WHERE result_tool IS NOT NULL GROUP BY 1, 2")
        .unwrap();
    for row in st
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, i64>(2)?,
            ))
        })
        .unwrap()
    {
        let (tool, ask, n) = row.unwrap();
        let t = out.entry(tool).or_default();
        t.calls += n as u64;
        t.asks.insert(ask, n as u64);
    }
    // each cut result (the latest row of its id) with its calls, in order
    let mut st = conn
        .prepare(
            "SELECT s.tool, s.size_chars, max(s.size_chars - s.shown_chars, 0), \
             (SELECT group_concat(ask, ' ') FROM (SELECT ask FROM record_calls c \
               WHERE c.dialog_id = s.dialog_id AND c.tool_call_id = s.tool_call_id \
               AND c.outcome <> 'not_stored' ORDER BY c.at, c.id)) \
             FROM record_seen s WHERE s.truncated = 1 AND s.tool_call_id IS NOT NULL \
             AND s.id = (SELECT max(id) FROM record_seen l WHERE l.dialog_id = s.dialog_id \
                         AND l.tool_call_id = s.tool_call_id)",
        )
        .unwrap();
    let mut cut: HashMap<String, Vec<(u64, u64, Vec<String>)>> = HashMap::new();
    for row in st
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)? as u64,
                r.get::<_, i64>(2)? as u64,
                r.get::<_, Option<String>>(3)?.unwrap_or_default(),
            ))
        })
        .unwrap()
    {
        let (tool, size, saved, asks) = row.unwrap();
        let asks: Vec<String> = asks.split_whitespace().map(str::to_string).collect();
        let t = out.entry(tool.clone()).or_default();
        t.calls_on_cut += asks.len() as u64;
        t.asked_back += u64::from(!asks.is_empty());
        t.read_on += u64::from(
            asks.iter()
                .take(2)
                .any(|a| ["continuation", "lines", "fetch", "whole"].contains(&a.as_str())),
        );
        cut.entry(tool).or_default().push((size, saved, asks));
    }
    for (tool, mut rs) in cut {
        rs.sort_by_key(|r| r.0);
        let total: u64 = rs.iter().map(|r| r.2.len() as u64).sum();
        // try every size a threshold could be; keep the smallest that avoids half
        let mut best = None;
        for &(t, _, _) in &rs {
            let under: Vec<_> = rs.iter().filter(|r| r.0 <= t).collect();
            let avoided: u64 = under.iter().map(|r| r.2.len() as u64).sum();
            let asked_at_t = rs.iter().any(|r| r.0 == t && !r.2.is_empty());
            if total > 0 && asked_at_t && 2 * avoided >= total {
                let extra: u64 = under.iter().map(|r| r.1).sum();
                best = Some((t, avoided, total, under.len() as u64, extra));
                break;
            }
        }
        out.get_mut(&tool).unwrap().advice = best;
    }
    out
}

/// The same figures as `toolcap stats --json` printed them.
fn printed(v: &Value) -> BTreeMap<String, Recount> {
    let mut out = BTreeMap::new();
    for t in v["tools"].as_array().unwrap() {
        let n = |k: &str| t[k].as_u64().unwrap();
        let asks = t["asks"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(_, v)| v.as_u64() != Some(0))
            .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
            .collect();
        let a = &t["advice"];
        out.insert(
            t["tool"].as_str().unwrap().to_string(),
            Recount {
                seen: n("results_seen"),
                cut: n("results_cut"),
                original: n("chars_original"),
                shown: n("chars_shown"),
                saved: n("chars_saved"),
                calls: n("recovery_calls"),
                asks,
                asked_back: n("cut_asked_back"),
                calls_on_cut: n("calls_on_cut"),
                read_on: n("read_on_within_2"),
                advice: (!a.is_null()).then(|| {
                    let f = |k: &str| a[k].as_u64().unwrap();
                    (
                        f("threshold"),
                        f("avoided_calls"),
                        f("calls_on_cut"),
                        f("shown_whole"),
                        f("extra_chars"),
                    )
                }),
            },
        );
    }
    out
}

fn python3() -> bool {
    Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The recovery benchmark's reader (benches/recovery, "toolcap + store") over its 66
/// real tasks, through the CLI: every call it made is in the record, and `toolcap
/// stats` says what a recount of the raw rows says.
#[test]
fn stats_over_the_recovery_benchmark_match_a_recount() {
    if !python3() {
        assert!(std::env::var("CI").is_err(), "CI installs python3");
        eprintln!("skipped: no python3 to run benches/recovery/fill_store.py");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(root.join("benches/recovery/fill_store.py"))
        .arg("--toolcap")
        .arg(env!("CARGO_BIN_EXE_toolcap"))
        .arg("--dir")
        .arg(dir.path())
        .env_remove("TOOLCAP_STORE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let filled: Value = serde_json::from_slice(&out.stdout).unwrap();
    let db = dir.path().join("store.db");
    let tasks = filled["tasks"].as_array().unwrap();
    assert!(tasks.len() >= 60, "{} tasks", tasks.len());

    // every call the reader made is one row, under its task's id
    let conn = rusqlite::Connection::open(&db).unwrap();
    let per_id: HashMap<String, u64> = conn
        .prepare("SELECT tool_call_id, count(*) FROM record_calls GROUP BY 1")
        .unwrap()
        .query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for t in tasks {
        let id = t["id"].as_str().unwrap();
        assert_eq!(
            per_id.get(id).copied().unwrap_or(0),
            t["calls"].as_u64().unwrap(),
            "{t}"
        );
    }
    let seen: i64 = conn
        .query_row("SELECT count(*) FROM record_seen", [], |r| r.get(0))
        .unwrap();
    assert_eq!(seen as usize, tasks.len());

    let stats = bin()
        .args(["stats", "--json", "--store"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(stats.status.success());
    let v: Value = serde_json::from_slice(&stats.stdout).unwrap();
    let expected = recount(&db);
    assert_eq!(printed(&v), expected);
    assert!(expected.values().any(|t| t.advice.is_some()));
    let calls: u64 = tasks.iter().map(|t| t["calls"].as_u64().unwrap()).sum();
    assert_eq!(v["recovery_calls"], json!(calls));

    // the text says the same numbers
    let text = bin().args(["stats", "--store"]).arg(&db).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    let th = |n: u64| toolcap_text::text::thousands(n as usize);
    for (tool, t) in &expected {
        let pct = (200 * t.cut + t.seen) / (2 * t.seen);
        assert!(
            text.contains(&format!(
                "{tool}\n  results seen   {}, cut {} ({pct}%)\n",
                th(t.seen),
                th(t.cut)
            )),
            "{text}"
        );
        assert!(text.contains(&format!(
            "  chars saved    {} of {} ({} shown)\n",
            th(t.saved),
            th(t.original),
            th(t.shown)
        )));
        if let Some((thr, avoided, of, whole, extra)) = t.advice {
            let per = (2 * extra + whole) / (2 * whole);
            let read = (200 * t.read_on + t.cut) / (2 * t.cut);
            let line = format!(
                "  {tool}: {read}% of cut results ({} of {}) were read on within 2 calls; a threshold of {} chars (now 3,500) would have avoided {} of {} recovery calls at +{} chars per result ({} more result{} shown whole, +{} chars in all)\n",
                th(t.read_on),
                th(t.cut),
                th(thr),
                th(avoided),
                th(of),
                th(per),
                th(whole),
                if whole == 1 { "" } else { "s" },
                th(extra),
            );
            assert!(text.contains(&line), "missing {line:?} in\n{text}");
        }
    }

    // --dialog and --since narrow it; a dialog with nothing says so
    let none = bin()
        .args(["stats", "--dialog", "other", "--store"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&none.stdout).starts_with("nothing recorded in "));
    let future = bin()
        .args(["stats", "--json", "--since", "2999-01-01", "--store"])
        .arg(&db)
        .output()
        .unwrap();
    let f: Value = serde_json::from_slice(&future.stdout).unwrap();
    assert_eq!(
        (f["results_seen"].clone(), f["tools"].clone()),
        (json!(0), json!([]))
    );
}

#[test]
fn stats_refuses_a_bad_since_and_reads_no_store_as_empty() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("none.db");
    let bad = bin()
        .args(["stats", "--since", "yesterday", "--store"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("--since \"yesterday\": expected an age")
    );
    let empty = bin().args(["stats", "--store"]).arg(&db).output().unwrap();
    assert_eq!(empty.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&empty.stdout),
        format!(
            "no result store at {}: nothing recorded yet\n",
            db.display()
        )
    );
    assert!(!db.exists(), "stats creates no store");
}

#[test]
fn a_cut_is_logged_with_its_figures_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.txt");
    std::fs::write(&input, numbered(400)).unwrap();
    let run = |log: Option<&str>| {
        let mut c = bin();
        c.args(["process", "--tool", "read_file"]).arg(&input);
        if let Some(l) = log {
            c.env("TOOLCAP_LOG", l);
        }
        c.output().unwrap()
    };
    let quiet = run(None);
    assert!(quiet.stderr.is_empty());
    let logged = String::from_utf8(run(Some("toolcap::cut=info")).stderr).unwrap();
    assert!(logged.contains("result cut"), "{logged}");
    for field in [
        "tool=read_file",
        "original_chars=8800",
        "original_lines=400",
        "threshold=3500",
    ] {
        assert!(logged.contains(field), "{field} missing from {logged}");
    }
}

#[cfg(feature = "server")]
#[test]
fn metrics_give_the_record_in_the_openmetrics_format() {
    use crate::serve_support::{Server, get};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.db");
    let input = dir.path().join("big.txt");
    std::fs::write(&input, numbered(400)).unwrap();
    for id in ["c1", "c2"] {
        let ok = bin()
            .args(["process", "--tool", "read_file", "--id", id, "--store"])
            .arg(&db)
            .arg(&input)
            .output()
            .unwrap();
        assert!(ok.status.success());
    }
    for args in [
        &["continue", "c1"][..],
        &["search", "c1", "line 01"],
        &["continue", "c1", "--start-line", "5"],
    ] {
        assert!(
            bin()
                .args(args)
                .arg("--store")
                .arg(&db)
                .output()
                .unwrap()
                .status
                .success()
        );
    }
    let server = Server::start(&db, None);
    let r = get(server.addr, "/metrics", None);
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-type"),
        Some("application/openmetrics-text; version=1.0.0; charset=utf-8")
    );
    let body = String::from_utf8_lossy(&r.body).to_string();
    for line in [
        "toolcap_record_kept 1",
        "toolcap_results_seen{tool=\"read_file\"} 2",
        "toolcap_results_cut{tool=\"read_file\"} 2",
        "toolcap_recovery_calls{tool=\"read_file\",ask=\"continuation\"} 1",
        "toolcap_recovery_calls{tool=\"read_file\",ask=\"lines\"} 1",
        "toolcap_recovery_calls{tool=\"read_file\",ask=\"search\"} 1",
        "toolcap_recovery_calls_on_cut{tool=\"read_file\"} 3",
        "toolcap_cut_results_asked_back{tool=\"read_file\"} 1",
        "toolcap_advised_threshold_chars{tool=\"read_file\"} 8800",
        "# EOF",
    ] {
        assert!(
            body.lines().any(|l| l == line),
            "{line:?} missing from\n{body}"
        );
    }
    // the same numbers as `toolcap stats`
    let v: Value = serde_json::from_slice(
        &bin()
            .args(["stats", "--json", "--store"])
            .arg(&db)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let saved = v["tools"][0]["chars_saved"].as_u64().unwrap();
    assert!(body.contains(&format!(
        "toolcap_chars_saved{{tool=\"read_file\"}} {saved}\n"
    )));
}
