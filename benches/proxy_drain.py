#!/usr/bin/env python3
"""The MCP proxy when the client leaves early (docs/robustness.md).

usage: python3 benches/proxy_drain.py TOOLCAP_BINARY [TRIALS]

A scripted MCP server answers each tools/call with a 20 MB text result; the
client sends three calls and closes its stdin at once. Counts the responses that
reach the client (each must be capped) over TRIALS runs, and the time to exit.
"""
import json, subprocess, sys, time

BIN = sys.argv[1]
TRIALS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
SERVER = r'''
import sys, json
for line in sys.stdin:
    m = json.loads(line)
    text = "".join(f"result {m['id']} line {i:08} of a long listing\n" for i in range(500000))
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"content": [{"type": "text", "text": text}]}}), flush=True)
'''
got = 0
for _ in range(TRIALS):
    t = time.monotonic()
    p = subprocess.Popen([BIN, "mcp-proxy", "--", "python3", "-c", SERVER],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    calls = "".join(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                "params": {"name": "bash", "arguments": {"command": "ls -R"}}}) + "\n"
                    for i in (1, 2, 3))
    out, _ = p.communicate(calls.encode())
    lines = [json.loads(l) for l in out.splitlines()]
    sizes = [len(l["result"]["content"][0]["text"]) for l in lines]
    assert all(s < 5000 for s in sizes), sizes
    got += len(lines)
    print(f"{len(lines)} of 3 responses, capped to {sizes} chars, exit {p.returncode} after {time.monotonic() - t:.1f} s")
print(f"{got} of {3 * TRIALS} responses delivered")
