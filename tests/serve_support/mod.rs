//! Shared by the `toolcap serve` tests: a store to serve, the server process, and a
//! plain HTTP/1.1 client over a real socket (loopback only).
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use toolcap::store::{Record, ResultStore, SqliteStore};

/// A 1 MB (1,048,576 bytes or a little more) output of 1- to 4-byte characters.
pub fn multibyte_output() -> String {
    let mut s = String::new();
    let mut i = 0;
    while s.len() < 1 << 20 {
        i += 1;
        s.push_str(&format!("{i:06} aé€😀 ½ → ∑ ü\t\"q\" \\ \u{1}\n"));
    }
    s
}

/// Results in dialog `d1` (`call_small`, `call_big`: the 1 MB output, and an id with a
/// slash, a space and non-ASCII characters) and in dialog `d2`.
pub fn fill_store(path: &Path) -> String {
    fill(&SqliteStore::open(path).expect("open the test store"))
}

/// [`fill_store`] into any store.
pub fn fill(store: &dyn ResultStore) -> String {
    let big = multibyte_output();
    let put = |d: &str, id: &str, tool: &str, args: Value, out: &str| {
        store
            .put(&Record::new(d, id, tool, &args, out))
            .expect("store a test result");
    };
    put(
        "d1",
        "call_small",
        "bash",
        json!({"command": "echo hi"}),
        "hi\n",
    );
    put(
        "d1",
        "call_big",
        "read_file",
        json!({"path": "big.txt"}),
        &big,
    );
    put("d1", "run/ü 1", "grep", json!({"pattern": "ü"}), "a: ü\n");
    put(
        "d2",
        "call_small",
        "bash",
        json!({"command": "ls"}),
        "other dialog\n",
    );
    big
}

/// A running `toolcap serve`, stopped when dropped.
pub struct Server {
    child: Child,
    pub addr: SocketAddr,
}

impl Server {
    /// Start `toolcap serve --store STORE --listen 127.0.0.1:0`, with TOOLCAP_TOKEN set
    /// to `token` (or unset), and wait for its "listening on" line.
    pub fn start(store: impl AsRef<std::ffi::OsStr>, token: Option<&str>) -> Server {
        Server::start_with(store, token, &[])
    }

    /// [`Server::start`] with more command-line arguments (e.g. `--header-timeout 1`).
    pub fn start_with(
        store: impl AsRef<std::ffi::OsStr>,
        token: Option<&str>,
        extra: &[&str],
    ) -> Server {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolcap"));
        cmd.args(["serve", "--listen", "127.0.0.1:0", "--store"])
            .arg(store.as_ref())
            .args(extra)
            .env_remove("TOOLCAP_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(t) = token {
            cmd.env("TOOLCAP_TOKEN", t);
        }
        let mut child = cmd.spawn().expect("start toolcap serve");
        let mut err = BufReader::new(child.stderr.take().expect("stderr is piped"));
        let mut line = String::new();
        let mut seen = String::new();
        let addr = loop {
            line.clear();
            if err.read_line(&mut line).unwrap_or(0) == 0 {
                let _ = child.kill();
                panic!("toolcap serve exited before listening:\n{seen}");
            }
            seen.push_str(&line);
            if let Some(rest) = line.split("listening on http://").nth(1) {
                let addr = rest.split_whitespace().next().unwrap_or_default();
                break addr.parse::<SocketAddr>().expect("a socket address");
            }
        };
        // keep draining stderr so the server never blocks on it
        std::thread::spawn(move || {
            let mut sink = String::new();
            let _ = err.read_to_string(&mut sink);
        });
        Server { child, addr }
    }
}

impl Server {
    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Wait up to `limit` for the server to exit; its status, if it did.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let start = std::time::Instant::now();
        loop {
            if let Ok(Some(s)) = self.child.try_wait() {
                return Some(s);
            }
            if start.elapsed() > limit {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A response: status, headers (names lowercased), body.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "status {}: body is not JSON ({e}): {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// The body's first 300 characters, for failure messages.
    pub fn excerpt(&self) -> String {
        String::from_utf8_lossy(&self.body)
            .chars()
            .take(300)
            .collect()
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The error code of a JSON error body.
    pub fn error_code(&self) -> String {
        self.json()["error"]["code"]
            .as_str()
            .unwrap_or_else(|| panic!("not an error body: {:?}", self.json()))
            .to_string()
    }
}

/// One HTTP/1.1 request over a new connection (`Connection: close`).
pub fn request(
    addr: SocketAddr,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Resp {
    let mut s = TcpStream::connect(addr).expect("connect to toolcap serve");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut req = format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("read the response");
    parse(&raw)
}

/// GET `target`, with a bearer token when given.
pub fn get(addr: SocketAddr, target: &str, token: Option<&str>) -> Resp {
    match token {
        Some(t) => request(
            addr,
            "GET",
            target,
            &[("Authorization", &format!("Bearer {t}"))],
            b"",
        ),
        None => request(addr, "GET", target, &[], b""),
    }
}

fn parse(raw: &[u8]) -> Resp {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete response head");
    let head = String::from_utf8_lossy(&raw[..split]);
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    if chunked {
        body = dechunk(&body);
    }
    Resp {
        status,
        headers,
        body,
    }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let eol = b
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("a chunk size line");
        let size = usize::from_str_radix(String::from_utf8_lossy(&b[..eol]).trim(), 16)
            .expect("a hex chunk size");
        b = &b[eol + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&b[..size]);
        b = &b[size + 2..];
    }
}

/// Percent-encode a path segment (everything but unreserved ASCII).
pub fn pct(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}
