#!/usr/bin/env python3
"""The dialog list of `toolcap serve` over a store of many results (issue 28 item 12).

    python3 benches/list_pages.py TOOLCAP [ROWS]

Builds a SQLite store of ROWS results (default 200,000) in one dialog with the
sqlite3 CLI (a result stored by toolcap, then rows inserted beside it, each with
~200 bytes of arguments), starts `toolcap serve` on it, and measures: one
`?limit=1` request, 20 of them at once, and walking the whole list by
`next_cursor` in pages of 1,000; then the server's peak RSS (VmHWM).
"""

import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request


def main():
    toolcap = sys.argv[1]
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
    tmp = tempfile.mkdtemp()
    db = os.path.join(tmp, "list.db")
    subprocess.run(
        [toolcap, "process", "--tool", "bash", "--id", "seed", "--dialog", "d1",
         "--save", "all", "--store", db],
        input=b"hi\n", stdout=subprocess.DEVNULL, check=True)
    sql = (
        f"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < {rows}) "
        "INSERT INTO results (dialog_id, tool_call_id, tool_name, tool_args, size_bytes, "
        "size_chars, size_lines, truncated, shown_chars, created_at, output) "
        "SELECT 'd1', 'call_' || i, 'bash', '{\"command\":\"' || hex(randomblob(100)) || '\"}', "
        "3, 3, 1, 0, 3, 1764000000000 + i, 'hi' || char(10) FROM n;")
    subprocess.run(["sqlite3", db, sql], check=True)
    srv = subprocess.Popen([toolcap, "serve", "--store", db, "--listen", "127.0.0.1:0"],
                           stderr=subprocess.PIPE)
    line = srv.stderr.readline().decode()
    base = line.split("listening on ")[1].split(" ")[0]
    url = f"{base}/api/dialogs/d1/tool-results"

    def get(q):
        with urllib.request.urlopen(f"{url}?{q}") as r:
            return json.load(r)

    def rss():
        with open(f"/proc/{srv.pid}/status") as f:
            return {l.split(":")[0]: l.split(":")[1].strip() for l in f if l.startswith("Vm")}

    print("serve at start:", rss()["VmRSS"])
    t = time.time()
    first = get("limit=1")
    print(f"?limit=1: {time.time() - t:.3f} s (total {first['total']})")
    t = time.time()
    with concurrent.futures.ThreadPoolExecutor(20) as ex:
        list(ex.map(lambda _: get("limit=1"), range(20)))
    print(f"20 x ?limit=1 at once: {time.time() - t:.3f} s")
    t = time.time()
    seen, cursor, pages = 0, None, 0
    while True:
        page = get("limit=1000" + (f"&cursor={cursor}" if cursor else ""))
        seen += len(page["items"])
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break
    print(f"all {seen} results by cursor in {pages} pages: {time.time() - t:.2f} s")
    t = time.time()
    last = get(f"limit=1&offset={rows}")
    print(f"?offset={rows}&limit=1: {time.time() - t:.3f} s ({len(last['items'])} item)")
    r = rss()
    print("serve at the end: VmRSS", r["VmRSS"], "peak VmHWM", r["VmHWM"])
    srv.terminate()
    srv.wait()


if __name__ == "__main__":
    main()
