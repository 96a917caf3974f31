#![cfg(all(feature = "sqlite", feature = "postgres"))]
//! `--store postgres://...` (and TOOLCAP_STORE) from the command line: the same
//! commands give the same answers as over a SQLite file, and a bad URL, a wrong
//! password, a missing database or an unreachable server each give a message
//! naming what to fix (exit 2 for the URL, 1 for the rest), never the password.

use crate::support::pg;

use std::process::{Command, Output};

fn toolcap() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_toolcap"));
    c.env_remove("TOOL_RESULT_BYPASS_TOOLS")
        .env_remove("TOOLCAP_CONFIG")
        .env_remove("TOOLCAP_STORE")
        .env_remove("TOOLCAP_DIALOG")
        .env_remove("PGPASSWORD");
    c
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8 stdout")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A Python source file of about 40 KB (cut by read_file's 3,500-char threshold)
/// with multi-byte text in it.
fn source() -> String {
    (0..600)
        .map(|i| format!("def handler_{i}(event):\n    return event.get(\"ü{i}\") or '日本'\n\n"))
        .collect()
}

/// Every store command in turn against `store`, with `store` given by --store or
/// (with `env`) by TOOLCAP_STORE; their outputs with the store's name replaced by
/// `STORE`.
fn session(store: &str, env: bool, input: &std::path::Path) -> Vec<String> {
    let run = |args: &[&str]| -> Output {
        let mut c = toolcap();
        if env {
            c.env("TOOLCAP_STORE", store);
            // `process` turns storing on by TOOLCAP_STORE alone
            c.args(args.iter().filter(|a| **a != "--store" && **a != "STORE"));
        } else {
            c.args(args.iter().map(|a| if *a == "STORE" { store } else { a }));
        }
        c.output().expect("toolcap runs")
    };
    let input = input.to_str().unwrap();
    // messages name a URL without its password
    let shown = toolcap::store::Location::parse(store).unwrap().to_string();
    let mut outs = Vec::new();
    let record = |outs: &mut Vec<String>, what: &str, o: Output| {
        assert!(
            o.status.success(),
            "{what} failed ({}): {}",
            o.status,
            stderr(&o)
        );
        outs.push(
            // (a read-on command repeats the --store given, as typed; the rest
            // of the output names the store as shown, password masked)
            stdout(&o)
                .replace(store, "STORE")
                .replace(&shown, "STORE")
                // (the read-on command of a reply repeats a --store flag, not the
                // TOOLCAP_STORE variable: the same store either way)
                .replace(" --store STORE", "")
                .replace(r#""storage_type":"sqlite""#, r#""storage_type":"S""#)
                .replace(r#""storage_type":"postgres""#, r#""storage_type":"S""#),
        );
    };
    record(
        &mut outs,
        "process",
        run(&[
            "process",
            "--tool",
            "read_file",
            "--arg",
            "path=app.py",
            "--id",
            "call_1",
            "--store",
            "STORE",
            "--json",
            input,
        ]),
    );
    record(
        &mut outs,
        "process --dialog",
        run(&[
            "process", "--tool", "bash", "--id", "call_2", "--dialog", "d2", "--save", "all",
            "--store", "STORE", input,
        ]),
    );
    record(
        &mut outs,
        "continue",
        run(&["continue", "call_1", "--store", "STORE"]),
    );
    record(
        &mut outs,
        "continue --offset",
        run(&[
            "continue", "call_1", "--offset", "30000", "--lines", "--store", "STORE",
        ]),
    );
    record(
        &mut outs,
        "continue --start-line",
        run(&[
            "continue",
            "call_1",
            "--start-line",
            "900",
            "--end-line",
            "960",
            "--store",
            "STORE",
        ]),
    );
    record(
        &mut outs,
        "search",
        run(&[
            "search",
            "call_1",
            "handler_5[0-9]\\b",
            "--context",
            "1",
            "--store",
            "STORE",
        ]),
    );
    record(
        &mut outs,
        "fetch",
        run(&[
            "fetch", "call_1", "--offset", "100", "--limit", "500", "--store", "STORE",
        ]),
    );
    record(
        &mut outs,
        "show",
        run(&["show", "call_2", "--dialog", "d2", "--store", "STORE"]),
    );
    let meta = run(&["show", "call_1", "--meta", "--store", "STORE"]);
    // (the creation time differs from run to run)
    let mut v: serde_json::Value = serde_json::from_slice(&meta.stdout).expect("--meta JSON");
    assert!(
        v["created_at"].as_str().is_some_and(|t| t.ends_with('Z')),
        "{v}"
    );
    v["created_at"] = "T".into();
    outs.push(v.to_string());
    record(
        &mut outs,
        "prune --dialog",
        run(&["prune", "--dialog", "d2", "--store", "STORE"]),
    );
    let gone = run(&["show", "call_2", "--dialog", "d2", "--store", "STORE"]);
    assert_eq!(gone.status.code(), Some(1));
    outs.push(stderr(&gone).replace(&shown, "STORE"));
    record(
        &mut outs,
        "prune --older-than",
        run(&["prune", "--older-than", "0s", "--store", "STORE"]),
    );
    outs
}

/// `got == want`, else a short report of where they part.
fn same(i: usize, got: &str, want: &str) {
    if got != want {
        let at = got
            .char_indices()
            .zip(want.chars())
            .find(|((_, a), b)| a != b)
            .map_or(got.len().min(want.len()), |((i, _), _)| i);
        let near = |s: &str| {
            s.chars()
                .skip(got[..at].chars().count().saturating_sub(80))
                .take(200)
                .collect::<String>()
        };
        panic!(
            "output {i} differs at byte {at}:\n got: {}\nwant: {}",
            near(got),
            near(want)
        );
    }
}

#[test]
fn every_store_command_answers_over_postgres_as_over_sqlite() {
    let Some(url) = pg::database() else { return };
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("app.py");
    std::fs::write(&input, source()).unwrap();
    let db = dir.path().join("results.db");
    let over_sqlite = session(db.to_str().unwrap(), false, &input);
    let over_pg = session(&url, false, &input);
    assert_eq!(over_pg.len(), 12);
    for (i, (s, p)) in over_sqlite.iter().zip(&over_pg).enumerate() {
        same(i, p, s);
    }
    // the output pages back exactly, and the URL's password appears nowhere
    assert!(over_pg[7] == source(), "show gives the whole output back");
    assert!(
        over_pg[4].contains("def handler_300(event):"),
        "{}",
        over_pg[4]
    );
    assert!(over_pg[5].contains("handler_59"), "{}", over_pg[5]);
    let pw = pg::cluster().unwrap().password();
    assert!(over_pg.iter().all(|o| !o.contains(pw)));
    assert!(
        over_pg[9].contains("deleted 1 result of dialog \"d2\" from STORE"),
        "{}",
        over_pg[7]
    );
    // ... and the same through TOOLCAP_STORE
    let url2 = pg::database().unwrap();
    let via_env = session(&url2, true, &input);
    for (i, (s, e)) in over_sqlite.iter().zip(&via_env).enumerate() {
        same(i, e, s);
    }
}

#[test]
fn a_malformed_url_exits_2_naming_the_fix() {
    for (url, problem) in [
        ("postgres://tc:hunter2@db:port/results", "invalid"),
        ("postgres:///results", "it names no host"),
        ("postgresql:db", "not a URL"),
    ] {
        for args in [
            vec!["continue", "call_1", "--store", url],
            vec!["show", "call_1", "--store", url],
            vec!["prune", "--older-than", "1d", "--store", url],
        ] {
            let o = toolcap().args(&args).output().unwrap();
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains(problem), "{args:?}: {err}");
            assert!(
                err.contains("fix: write it as postgres://USER[:PASSWORD]@HOST"),
                "{err}"
            );
            assert!(!err.contains("hunter2"), "{err}");
        }
    }
    // TOOLCAP_STORE too, for process
    let o = toolcap()
        .args(["process", "--tool", "bash", "--id", "c1"])
        .env("TOOLCAP_STORE", "postgres://u:hunter2@h:99999/x")
        .write_stdin_none()
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("postgres://u:***@h:99999/x"),
        "{}",
        stderr(&o)
    );
}

/// `Command::stdin(null)`, as a chainable name.
trait NoStdin {
    fn write_stdin_none(&mut self) -> &mut Self;
}

impl NoStdin for Command {
    fn write_stdin_none(&mut self) -> &mut Self {
        self.stdin(std::process::Stdio::null())
    }
}

#[test]
fn connection_failures_exit_1_naming_the_server_and_the_fix() {
    let Some(c) = pg::cluster() else { return };
    let port = c.port;
    let url = pg::database().unwrap();
    let db = pg::Cluster::db_of(&url);

    // a wrong password
    let wrong = format!("postgres://toolcap:not-the-password@127.0.0.1:{port}/{db}");
    let o = toolcap()
        .args(["show", "x", "--store", &wrong])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("cannot connect to PostgreSQL at 127.0.0.1:{port}")),
        "{err}"
    );
    assert!(
        err.contains("password authentication failed for user \"toolcap\""),
        "{err}"
    );
    assert!(
        err.contains("fix: check the user name and password in the URL"),
        "{err}"
    );
    assert!(!err.contains("not-the-password"), "{err}");
    assert!(err.contains("postgres://toolcap:***@127.0.0.1"), "{err}");

    // no password at all (and none in PGPASSWORD)
    let none = format!("postgres://toolcap@127.0.0.1:{port}/{db}");
    let o = toolcap()
        .args(["show", "x", "--store", &none])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("put it in the URL"), "{}", stderr(&o));
    // ... which PGPASSWORD supplies
    let o = toolcap()
        .args(["show", "x", "--store", &none])
        .env("PGPASSWORD", c.password())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no result stored under id \"x\""),
        "{}",
        stderr(&o)
    );

    // a URL asking for TLS, which toolcap does not speak
    let tls = format!(
        "postgres://toolcap:{}@127.0.0.1:{port}/{db}?sslmode=require",
        c.password()
    );
    let o = toolcap()
        .args(["show", "x", "--store", &tls])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("fix: toolcap connects without TLS: drop sslmode=require from the URL"),
        "{err}"
    );
    assert!(!err.contains(c.password()), "{err}");

    // a database that does not exist
    let missing = format!(
        "postgres://toolcap:{}@127.0.0.1:{port}/no_such_db",
        c.password()
    );
    let o = toolcap()
        .args(["prune", "--older-than", "1d", "--store", &missing])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("database \"no_such_db\" does not exist"),
        "{err}"
    );
    assert!(err.contains("fix: create the database first"), "{err}");

    // nothing listening there
    let free = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let down = format!("postgres://toolcap:pw@127.0.0.1:{free}/x");
    for args in [
        vec!["continue", "c1", "--store", &down],
        vec!["serve", "--listen", "127.0.0.1:0", "--store", &down],
    ] {
        let o = toolcap().args(&args).output().unwrap();
        let err = stderr(&o);
        if args[0] == "serve" && !cfg!(feature = "server") {
            continue;
        }
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains(&format!("cannot connect to PostgreSQL at 127.0.0.1:{free}")),
            "{err}"
        );
        assert!(
            err.contains("check that PostgreSQL is running and accepts connections"),
            "{err}"
        );
    }

    // a store with no toolcap tables yet: read commands find nothing, create nothing
    let o = toolcap()
        .args(["continue", "c1", "--store", &url])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no result stored under id \"c1\""),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        c.psql(
            db,
            "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'toolcap%'"
        ),
        "0"
    );
    let o = toolcap()
        .args(["prune", "--older-than", "1d", "--store", &url])
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(
        stdout(&o).starts_with("no result store at postgres://toolcap:***@"),
        "{}",
        stdout(&o)
    );
}
