#!/usr/bin/env python3
"""Slow, idle and numerous clients against `toolcap serve` (docs/robustness.md).

usage: python3 benches/slow_clients.py TOOLCAP_BINARY

Starts `toolcap serve` on a fresh store (with `ulimit -n 1024`, the usual default,
so the open-file limit matters) and measures, loopback only:
  1. 1,100 idle sockets, then a normal request: how long it takes to be answered;
  2. 200 clients sending their headers one byte every 0.5 s: when they are closed;
  3. SIGTERM with a half-sent request open: how long the process takes to exit.
"""
import json, os, signal, socket, subprocess, sys, tempfile, time

BIN = sys.argv[1]


def start(store, *extra):
    cmd = ["bash", "-c", 'ulimit -n 1024; exec "$@"', "-", BIN, "serve",
           "--listen", "127.0.0.1:0", "--store", store, *extra]
    p = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    while True:
        line = p.stderr.readline()
        if not line:
            raise SystemExit("serve did not start")
        if "listening on http://" in line:
            addr = line.split("http://")[1].split()[0]
            host, port = addr.rsplit(":", 1)
            return p, (host, int(port))


def get(addr, path="/healthz", timeout=60):
    t = time.monotonic()
    s = socket.create_connection(addr, timeout=timeout)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    data = b""
    while True:
        d = s.recv(65536)
        if not d:
            break
        data += d
    return time.monotonic() - t, data.split(b" ")[1].decode()


def main():
    d = tempfile.mkdtemp()
    store = os.path.join(d, "r.db")
    p, addr = start(store)
    idle = [socket.create_connection(addr) for _ in range(1100)]
    time.sleep(0.5)
    took, status = get(addr)
    print(f"1. 1,100 idle sockets open: /healthz answered {status} in {took * 1000:.1f} ms")
    for s in idle:
        s.close()

    slow = [socket.create_connection(addr) for _ in range(200)]
    req = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100
    start_t = time.monotonic()
    open_ = set(range(200))
    closed_at = {}
    i = 0
    while open_ and time.monotonic() - start_t < 60:
        for k in list(open_):
            try:
                slow[k].sendall(req[i:i + 1] if i < len(req) else b"a")
            except OSError:
                open_.discard(k)
                closed_at[k] = time.monotonic() - start_t
        i += 1
        time.sleep(0.5)
    took, status = get(addr)
    ts = sorted(closed_at.values())
    print(f"2. 200 slow-header clients (1 byte / 0.5 s): {len(ts)} closed, "
          f"the first after {ts[0]:.1f} s, the last after {ts[-1]:.1f} s "
          f"(send errors seen one 0.5 s step after the close); /healthz meanwhile {status} in {took * 1000:.1f} ms")
    p.send_signal(signal.SIGTERM)
    p.wait()

    p, addr = start(store, "--header-timeout", "60")
    half = socket.create_connection(addr)
    half.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
    time.sleep(0.3)
    t = time.monotonic()
    p.send_signal(signal.SIGTERM)
    p.wait()
    print(f"3. SIGTERM with a half-sent request open (header timeout 60 s, shutdown deadline 5 s): "
          f"exited {p.returncode} after {time.monotonic() - t:.2f} s")


main()
