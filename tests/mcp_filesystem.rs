//! `toolcap mcp-proxy` between real MCP peers: the official MCP Python SDK client
//! (`mcp` on PyPI) in front of the reference filesystem server
//! (`@modelcontextprotocol/server-filesystem` on npm), reading a large real file.
//!
//! The peers are installed outside the repo by `bash .ci/install-mcp-peers` (CI runs
//! it). Without them these tests fail under CI (`CI=true`) and are skipped, with a
//! message, elsewhere.
#![cfg(feature = "mcp")]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolcap::store::{ResultStore, SqliteStore};

struct Peers {
    python: PathBuf,
    server_js: PathBuf,
}

/// The installed peers, or `None` (skip) outside CI; under CI a missing peer fails.
fn peers() -> Option<Peers> {
    let dir = std::env::var_os("TOOLCAP_MCP_PEERS")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/toolcap-ci")))
        .unwrap_or_else(|| PathBuf::from(".cache/toolcap-ci"));
    let python = dir.join("venv/bin/python");
    let server_js =
        dir.join("npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let mut missing = Vec::new();
    if !python.exists() {
        missing.push(python.display().to_string());
    }
    if !server_js.exists() {
        missing.push(server_js.display().to_string());
    }
    if !node {
        missing.push("node on PATH".to_string());
    }
    if missing.is_empty() {
        return Some(Peers { python, server_js });
    }
    let msg = format!(
        "the MCP peers are missing ({}); install them with `bash .ci/install-mcp-peers` (TOOLCAP_MCP_PEERS names another directory)",
        missing.join(", ")
    );
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{msg}");
    }
    eprintln!("skipping: {msg}");
    None
}

/// A 1x1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
    0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
];

/// Run `cmd` to its end, killing it past `limit`; (exit success, stdout, stderr).
fn run_bounded(cmd: &mut Command, limit: Duration) -> (bool, String, String) {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the MCP client driver");
    let start = Instant::now();
    loop {
        if child.try_wait().expect("wait for the driver").is_some() {
            break;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child
                .wait_with_output()
                .expect("collect the driver's output");
            panic!(
                "the MCP client driver ran past {limit:?}:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child
        .wait_with_output()
        .expect("collect the driver's output");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_sdk_client_reads_a_large_file_back_byte_for_byte_through_the_proxy() {
    let Some(peers) = peers() else { return };
    let dir = tempfile::tempdir().unwrap();
    // the server resolves symlinks: give it the real path of its root
    let root = dir.path().canonicalize().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/read_file/typing.py");
    let original = std::fs::read(&fixture).expect("fixtures/read_file/typing.py");
    let big = root.join("typing.py");
    std::fs::write(&big, &original).unwrap();
    let image = root.join("dot.png");
    std::fs::write(&image, PNG).unwrap();
    let out = root.join("reassembled.py");
    // (a --store path the user types must be in an existing directory)
    std::fs::create_dir_all(root.join("store")).unwrap();
    let store = root.join("store/results.db");

    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client.py");
    let (ok, stdout, stderr) = run_bounded(
        Command::new(&peers.python)
            .arg(&driver)
            .arg("--toolcap")
            .arg(env!("CARGO_BIN_EXE_toolcap"))
            .arg("--root")
            .arg(&root)
            .arg("--big")
            .arg(&big)
            .arg("--image")
            .arg(&image)
            .arg("--out")
            .arg(&out)
            .arg("--store")
            .arg(&store)
            .arg("--")
            .arg("node")
            .arg(&peers.server_js)
            .arg(&root),
        Duration::from_secs(180),
    );
    assert!(ok, "the MCP client driver failed:\n{stderr}\n{stdout}");
    // the server's stderr came through the proxy
    assert!(
        stderr.contains("Secure MCP Filesystem Server running on stdio"),
        "{stderr}"
    );

    let report: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("the driver's report is not JSON ({e}): {stdout}"));
    assert_eq!(report["server"], "secure-filesystem-server");
    let shown = report["shown_chars"].as_u64().unwrap();
    assert!(
        shown < 4000,
        "the client saw {shown} chars of a 120,077-char file"
    );
    let offset = report["offset"].as_u64().unwrap();
    let chars = String::from_utf8_lossy(&original).chars().count() as u64;
    assert_eq!(chars, 120_077);
    assert_eq!(
        report["continuation_calls"].as_u64().unwrap(),
        (chars - offset).div_ceil(2000),
        "get_continuation pages 2,000 characters a call"
    );

    // search_tool_output counted the class lines of the whole stored file
    let class_lines = String::from_utf8_lossy(&original)
        .lines()
        .filter(|l| l.starts_with("class "))
        .count() as u64;
    assert_eq!(report["class_lines"].as_u64(), Some(class_lines));

    // every suggestion named a tool the client has (the recovery tools, or the
    // server's own read_text_file / search_files) and ran without error
    let tools: Vec<&str> = report["suggested_tools"]
        .as_array()
        .expect("suggested_tools")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(!tools.is_empty());
    for t in &tools {
        assert!(
            [
                "get_continuation",
                "search_tool_output",
                "read_text_file",
                "search_files"
            ]
            .contains(t),
            "{t} suggested"
        );
    }
    assert!(
        report["suggestions_ran"].as_u64().unwrap_or(0) >= 2,
        "{report}"
    );
    eprintln!(
        "suggested through the proxy: {tools:?}, {} run; {shown} chars shown",
        report["suggestions_ran"]
    );

    let back = std::fs::read(&out).expect("the driver wrote the reassembled file");
    assert!(back == original, "the file did not come back byte for byte");

    // the full result was kept in the SQLite store, under the id the client was given
    let id = report["tool_call_id"].as_str().unwrap();
    let db = SqliteStore::open_existing(&store)
        .unwrap()
        .expect("the store exists");
    let rec = db.get("e2e", id).unwrap().expect("the result is stored");
    assert_eq!(rec.output.as_bytes(), &original[..]);
    assert_eq!(rec.meta.tool_name, "read_text_file");
    assert_eq!(rec.meta.tool_args, json!({"path": big.to_str().unwrap()}));
    assert!(rec.meta.truncated);
}

/// The pids of `pid`'s child processes (Linux).
fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let list = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        out.extend(
            list.split_whitespace()
                .filter_map(|p| p.parse::<u32>().ok()),
        );
    }
    out
}

#[cfg(target_os = "linux")]
#[test]
fn when_the_client_leaves_the_server_is_shut_down() {
    let Some(peers) = peers() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut proxy = Command::new(env!("CARGO_BIN_EXE_toolcap"))
        .args(["mcp-proxy", "--", "node"])
        .arg(&peers.server_js)
        .arg(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start toolcap mcp-proxy");
    let mut stdin = proxy.stdin.take().unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "toolcap-test", "version": "0"}}});
    writeln!(stdin, "{init}").unwrap();
    let mut lines = BufReader::new(proxy.stdout.take().unwrap()).lines();
    let first: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(first["id"], 1);
    assert_eq!(
        first["result"]["serverInfo"]["name"],
        "secure-filesystem-server"
    );
    let server = children(proxy.id());
    assert_eq!(server.len(), 1, "one server process: {server:?}");

    drop(stdin); // the client goes away
    let start = Instant::now();
    let status = loop {
        if let Some(s) = proxy.try_wait().unwrap() {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the proxy did not exit"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
    assert!(
        !Path::new(&format!("/proc/{}", server[0])).exists(),
        "the server process {} outlived the proxy",
        server[0]
    );
}
