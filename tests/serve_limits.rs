//! `toolcap serve` against slow, idle and numerous clients (issue 28, item 11): idle
//! sockets do not stop a normal request, a half-sent request is closed after the
//! header timeout, the connection cap holds, and SIGTERM exits within the shutdown
//! deadline while a request is still half-sent. Every wait here is bounded.
#![cfg(all(feature = "server", unix))]

use crate::serve_support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serve_support::{Server, fill_store, get};

fn store() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.db");
    fill_store(&path);
    (dir, path)
}

/// Read until the server closes the connection (or `limit` passes); how long it took,
/// `None` when it stayed open.
fn closed_within(s: &mut TcpStream, limit: Duration) -> Option<Duration> {
    let start = Instant::now();
    s.set_read_timeout(Some(limit)).unwrap();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return Some(start.elapsed()),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                return Some(start.elapsed());
            }
            Err(_) => return None,
        }
        if start.elapsed() > limit {
            return None;
        }
    }
}

/// Open descriptors of a process (Linux: /proc/PID/fd).
fn open_fds(pid: u32) -> Option<usize> {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .ok()
        .map(Iterator::count)
}

#[test]
fn three_hundred_idle_sockets_do_not_stop_a_normal_request() {
    let (_dir, path) = store();
    let s = Server::start(&path, None);
    let idle: Vec<TcpStream> = (0..300)
        .map(|_| TcpStream::connect(s.addr).expect("connect"))
        .collect();
    // and some that sent half a request line
    let mut half: Vec<TcpStream> = (0..20)
        .map(|_| TcpStream::connect(s.addr).expect("connect"))
        .collect();
    for h in &mut half {
        h.write_all(b"GET /api/dialogs/d1/tool-res").unwrap();
    }
    let start = Instant::now();
    let r = get(
        s.addr,
        "/api/dialogs/d1/tool-results/call_small/metadata",
        None,
    );
    assert_eq!(r.status, 200, "{}", r.excerpt());
    assert_eq!(r.json()["metadata"]["size_chars"], 3);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "answered after {:?}",
        start.elapsed()
    );
    drop(idle);
    drop(half);
}

#[test]
fn a_half_sent_request_and_an_idle_socket_are_closed_after_the_header_timeout() {
    let (_dir, path) = store();
    let s = Server::start_with(&path, None, &["--header-timeout", "1"]);
    let mut half = TcpStream::connect(s.addr).unwrap();
    half.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    let mut idle = TcpStream::connect(s.addr).unwrap();
    let t = closed_within(&mut half, Duration::from_secs(10)).expect("half-sent request closed");
    assert!(
        t >= Duration::from_millis(800),
        "closed after {t:?}, before the timeout"
    );
    let t = closed_within(&mut idle, Duration::from_secs(10)).expect("idle socket closed");
    assert!(t < Duration::from_secs(10));
    // a kept-alive connection that goes quiet after a response is closed too
    let mut kept = TcpStream::connect(s.addr).unwrap();
    kept.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut buf = [0u8; 512];
    let n = kept.read(&mut buf).unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    assert!(closed_within(&mut kept, Duration::from_secs(10)).is_some());
    // the server still answers
    assert_eq!(get(s.addr, "/healthz", None).status, 200);
}

#[test]
fn the_connection_cap_holds_and_waiting_clients_are_served_when_slots_free() {
    let (_dir, path) = store();
    let s = Server::start_with(
        &path,
        None,
        &["--max-connections", "8", "--header-timeout", "1"],
    );
    std::thread::sleep(Duration::from_millis(200));
    let base = open_fds(s.pid()).expect("/proc is readable");
    let idle: Vec<TcpStream> = (0..40)
        .map(|_| TcpStream::connect(s.addr).expect("connect"))
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let during = open_fds(s.pid()).expect("/proc is readable");
    assert!(
        during <= base + 8,
        "{during} descriptors open with 40 idle clients (base {base}, cap 8)"
    );
    // the waiting clients get their turn as the idle ones time out
    let start = Instant::now();
    let r = get(s.addr, "/healthz", None);
    assert_eq!(r.status, 200);
    assert!(start.elapsed() < Duration::from_secs(30));
    drop(idle);
}

#[test]
fn sigterm_exits_within_the_deadline_with_a_half_sent_request_open() {
    let (_dir, path) = store();
    let mut s = Server::start_with(
        &path,
        None,
        &["--header-timeout", "60", "--shutdown-timeout", "1"],
    );
    let mut half = TcpStream::connect(s.addr).unwrap();
    half.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let pid = libc::pid_t::try_from(s.pid()).unwrap();
    let start = Instant::now();
    // SAFETY: kill(2) on our own child process.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let status = s
        .wait_exit(Duration::from_secs(10))
        .expect("toolcap serve exits after SIGTERM");
    let took = start.elapsed();
    assert!(status.success(), "{status}");
    assert!(took < Duration::from_secs(4), "exited after {took:?}");
    drop(half);
}
