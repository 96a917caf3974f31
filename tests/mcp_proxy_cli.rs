//! `toolcap mcp-proxy` as a process: how it starts, and how it ends when either side
//! goes away. (The MCP conversation itself is tested against real peers in
//! tests/mcp_filesystem.rs.)
#![cfg(feature = "mcp")]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

fn proxy(server: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_toolcap"))
        .arg("mcp-proxy")
        .arg("--")
        .args(server)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start toolcap mcp-proxy")
}

fn wait_bounded(child: &mut std::process::Child, limit: Duration) -> (i32, Duration) {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return (s.code().unwrap_or(-1), start.elapsed());
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("toolcap mcp-proxy did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn when_the_server_exits_its_status_and_stderr_reach_the_client() {
    // a server that reads one request, says why on stderr and exits with status 3
    let mut p = proxy(&[
        "sh",
        "-c",
        "read -r line; echo 'server: out of memory' >&2; exit 3",
    ]);
    let mut stdin = p.stdin.take().unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"})
    )
    .unwrap();
    let mut out = BufReader::new(p.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let reply: Value = serde_json::from_str(&line).expect("a JSON-RPC message");
    assert_eq!(reply["id"], 7, "the unanswered request gets its answer");
    assert_eq!(reply["error"]["code"], -32603);
    assert_eq!(
        reply["error"]["message"],
        "the MCP server exited before answering (toolcap mcp-proxy)"
    );
    let (code, took) = wait_bounded(&mut p, Duration::from_secs(10));
    assert_eq!(code, 3, "the proxy exits with the server's status");
    assert!(took < Duration::from_secs(5));
    let mut err = String::new();
    p.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert!(err.contains("server: out of memory"), "{err}");
    assert!(err.contains("the MCP server exited with status 3"), "{err}");
}

#[test]
fn a_server_that_ignores_the_closed_stdin_is_terminated() {
    let mut p = proxy(&["sh", "-c", "exec sleep 60"]);
    drop(p.stdin.take()); // the client leaves at once
    let (code, took) = wait_bounded(&mut p, Duration::from_secs(15));
    assert_eq!(code, 0, "the proxy shut the server down: a clean exit");
    assert!(
        took >= Duration::from_millis(1500) && took < Duration::from_secs(8),
        "SIGTERM comes after the 2 s grace: {took:?}"
    );
}

#[test]
fn a_server_that_cannot_start_is_named() {
    let out = Command::new(env!("CARGO_BIN_EXE_toolcap"))
        .args(["mcp-proxy", "--", "/no/such/mcp-server", "--flag"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot start the MCP server \"/no/such/mcp-server\"")
            && err.contains("check the command after --"),
        "{err}"
    );

    let out = Command::new(env!("CARGO_BIN_EXE_toolcap"))
        .args(["mcp-proxy"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "no server command is a usage error"
    );
}

/// Without a store, the proxy keeps at most `--memory-limit` MiB of results: with
/// 1, each new 600 KB result drops the one before it, and asking for a dropped one
/// gets an "expired" reply saying when and why; the newest still pages; a 2 MB result,
/// larger than the limit, is not kept at all and its view does not say it is
/// (issue 28, item 18).
#[test]
fn the_in_memory_results_are_bounded() {
    let server = r#"
import sys, json
for line in sys.stdin:
    m = json.loads(line)
    if m.get("method") == "tools/call":
        a = m["params"]["arguments"]
        n = a["n"]
        text = "".join(f"result {n} line {i:07}\n" for i in range(a["lines"]))
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"content": [{"type": "text", "text": text}]}}), flush=True)
"#;
    let mut p = Command::new(env!("CARGO_BIN_EXE_toolcap"))
        .args([
            "mcp-proxy",
            "--memory-limit",
            "1",
            "--",
            "python3",
            "-c",
            server,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start toolcap mcp-proxy");
    let mut stdin = p.stdin.take().unwrap();
    let mut out = BufReader::new(p.stdout.take().unwrap());
    let mut call = |id: u64, name: &str, args: Value| -> String {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                         "params": {"name": name, "arguments": args}});
        writeln!(stdin, "{msg}").unwrap();
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        let reply: Value = serde_json::from_str(&line).expect("a JSON-RPC reply");
        assert_eq!(reply["id"], id);
        reply["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let stored_id = |text: &str| {
        let at = text.find("tool_call_id=").expect("a stored result") + "tool_call_id=".len();
        text[at..]
            .trim_start_matches('"')
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .next()
            .unwrap()
            .to_string()
    };
    let first = stored_id(&call(
        1,
        "bash",
        json!({"command": "make", "n": 1, "lines": 24_000}),
    ));
    let second = stored_id(&call(
        2,
        "bash",
        json!({"command": "make", "n": 2, "lines": 24_000}),
    ));
    assert_ne!(first, second);
    let gone = call(
        3,
        "get_continuation",
        json!({"tool_call_id": first, "offset": 0}),
    );
    assert!(
        gone.contains(" expired at ")
            && gone.contains(
                "the store holds at most 1,048,576 bytes of results and newer ones took its place"
            ),
        "{gone}"
    );
    let kept = call(
        4,
        "get_continuation",
        json!({"tool_call_id": second, "offset": 0}),
    );
    assert!(kept.contains("result 2 line 0000000"), "{kept}");
    let huge = call(
        5,
        "bash",
        json!({"command": "make", "n": 3, "lines": 80_000}),
    );
    assert!(huge.contains("--- Recovery Options ---"), "{huge}");
    assert!(
        !huge.contains("tool_call_id="),
        "not kept, not claimed: {huge}"
    );
    let still = call(
        6,
        "get_continuation",
        json!({"tool_call_id": second, "offset": 0}),
    );
    assert!(still.contains("result 2 line 0000000"), "{still}");
    drop(stdin);
    let (code, _) = wait_bounded(&mut p, Duration::from_secs(15));
    assert_eq!(code, 0);

    let out = Command::new(env!("CARGO_BIN_EXE_toolcap"))
        .args([
            "mcp-proxy",
            "--store",
            "x.db",
            "--memory-limit",
            "5",
            "--",
            "true",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "a limit only applies without a store"
    );
}

/// Issue 28, item 14: the responses the server writes after the client closed its
/// stdin still reach the client (three 5 MB results, each capped).
#[test]
fn responses_written_after_the_client_closes_stdin_are_delivered() {
    let server = r#"
import sys, json
for line in sys.stdin:
    m = json.loads(line)
    text = "".join(f"result {m['id']} line {i} of a long listing\n" for i in range(150000))
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"content": [{"type": "text", "text": text}]}}), flush=True)
"#;
    let mut p = proxy(&["python3", "-c", server]);
    let mut stdin = p.stdin.take().unwrap();
    for id in 1..=3 {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                         "params": {"name": "bash", "arguments": {"command": "ls -R"}}});
        writeln!(stdin, "{msg}").unwrap();
    }
    drop(stdin); // the client leaves at once
    let mut out = String::new();
    p.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    let (code, _) = wait_bounded(&mut p, Duration::from_secs(60));
    assert_eq!(code, 0);
    let replies: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON-RPC line"))
        .collect();
    assert_eq!(replies.len(), 3, "every response arrives");
    for (i, r) in replies.iter().enumerate() {
        assert_eq!(r["id"], i + 1);
        let text = r["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.len() < 5000, "capped: {} chars", text.len());
        assert!(text.contains("--- Recovery Options ---"));
    }
}

/// Issue 28, item 14: a server that stopped reading, and a client that closes its
/// stdin after a line larger than a pipe's buffer: the proxy still ends.
#[test]
fn a_server_that_stopped_reading_does_not_hang_the_proxy() {
    let mut p = proxy(&["sh", "-c", "exec sleep 60"]);
    let mut stdin = p.stdin.take().unwrap();
    let big = "x".repeat(1 << 20);
    let msg = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "write_file", "arguments": {"content": big}}});
    let writer = std::thread::spawn(move || {
        let _ = writeln!(stdin, "{msg}");
        let _ = writeln!(
            stdin,
            "{}",
            json!({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        );
        // stdin dropped: closed
    });
    let (code, took) = wait_bounded(&mut p, Duration::from_secs(20));
    assert_eq!(code, 0);
    assert!(took < Duration::from_secs(10), "{took:?}");
    writer.join().unwrap();
}

fn alive(pid: i32) -> bool {
    // SAFETY: kill(2) with signal 0 only checks that the process exists.
    unsafe { libc::kill(pid, 0) == 0 }
}

fn server_pid(file: &std::path::Path) -> i32 {
    let start = Instant::now();
    loop {
        if let Ok(s) = std::fs::read_to_string(file)
            && let Ok(pid) = s.trim().parse()
        {
            return pid;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the server did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Issue 28, item 14: SIGTERM to the proxy is passed on to the server (and one that
/// ignores it is killed after the grace period): no orphan is left.
#[test]
fn sigterm_to_the_proxy_stops_the_server_too() {
    let dir = tempfile::tempdir().unwrap();
    for (ignores, file) in [(false, "a.pid"), (true, "b.pid")] {
        let pidfile = dir.path().join(file);
        let script = format!(
            "{}echo $$ > '{}'; exec sleep 60",
            if ignores { "trap '' TERM; " } else { "" },
            pidfile.display()
        );
        let mut p = proxy(&["sh", "-c", &script]);
        let server = server_pid(&pidfile);
        assert!(alive(server));
        let proxy_pid = i32::try_from(p.id()).unwrap();
        // SAFETY: kill(2) on our own child.
        assert_eq!(unsafe { libc::kill(proxy_pid, libc::SIGTERM) }, 0);
        let (code, took) = wait_bounded(&mut p, Duration::from_secs(15));
        assert_eq!(code, 128 + libc::SIGTERM, "ignores SIGTERM: {ignores}");
        assert!(took < Duration::from_secs(6), "{took:?}");
        assert!(!alive(server), "the server (pid {server}) was left running");
    }
}

/// Issue 28, item 14: a server that received a request and answers it 3 s after the
/// client closed stdin (past the 2 s grace) still gets to answer: it owes an answer,
/// so it gets up to PENDING_GRACE of quiet before SIGTERM.
#[test]
fn a_server_still_working_on_an_answer_is_not_cut_short() {
    let mut p = proxy(&[
        "sh",
        "-c",
        r#"read -r l; sleep 3; echo '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done"}]}}'"#,
    ]);
    let mut stdin = p.stdin.take().unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "slow", "arguments": {}}})
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    drop(stdin);
    let mut out = String::new();
    p.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    let (code, took) = wait_bounded(&mut p, Duration::from_secs(40));
    assert_eq!(code, 0);
    assert!(took < Duration::from_secs(10), "{took:?}");
    let reply: Value = serde_json::from_str(out.trim()).expect("the answer arrives");
    assert_eq!(reply["result"]["content"][0]["text"], "done");
}
