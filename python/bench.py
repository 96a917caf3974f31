"""Benchmarks of the Python package (see docs/python.md, "Benchmark").

    TOOLCAP_PY_PROFILE=release bash python/run-tests.sh   # builds the release extension
    ~/.cache/toolcap-ci/py-venv/bin/python python/bench.py

1. Call overhead on a 1 KB result: time per `processor.process(...)` call from
   Python, minus the time the Rust library takes for the same call in a Rust loop
   (`toolcap._toolcap._time_rust`, same build, no Python in the loop). Goal <= 50 us.
2. A 10 MB log through Python vs through the Rust library: the same call, timed the
   same two ways. Goal <= 1.1x.

Each figure is the median of several rounds; the machine's load is printed too,
since the figures scale with it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import toolcap
from toolcap import _toolcap

REPO = Path(__file__).resolve().parents[1]
LOG = REPO / "fixtures" / "shell" / "cargo_test_color_progress.log"
SRC = REPO / "fixtures" / "read_file" / "command.rs"


def per_call(fn, n: int) -> float:
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--allow-debug", action="store_true", help="run on a debug build (figures meaningless)")
    a = ap.parse_args()
    if _toolcap._build_profile != "release" and not a.allow_debug:
        print("toolcap was built in debug: rebuild with TOOLCAP_PY_PROFILE=release bash python/run-tests.sh", file=sys.stderr)
        return 2
    print(f"toolcap {toolcap.__version__} ({_toolcap._build_profile}), Python {sys.version.split()[0]}, "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    processor = toolcap.ToolResultProcessor()

    # 1. a 1 KB result (under the threshold: returned unchanged) — the common case
    small = SRC.read_text()[:1024]
    args = {"path": "command.rs"}
    n = 20000
    py_us, rust_us = [], []
    for _ in range(a.rounds):
        py_us.append(per_call(lambda: processor.process("read_file", small, args), n) * 1e6)
        rust_us.append(_toolcap._time_rust("read_file", small, args, n) / n * 1e6)
    py, rs = statistics.median(py_us), statistics.median(rust_us)
    print(f"1 KB result, {n} calls x {a.rounds} rounds: Python {py:.2f} us/call, Rust {rs:.2f} us/call, "
          f"overhead {py - rs:.2f} us/call (goal <= 50 us)")

    # 2. a 10 MB log (cut: head, tail and error lines kept)
    log = LOG.read_text()
    big = log * (10 * 1024 * 1024 // len(log) + 1)
    big = big[: 10 * 1024 * 1024]
    largs = {"command": "cargo test"}
    for label, value in (("str", big), ("bytes", big.encode())):
        py_s, rust_s = [], []
        for _ in range(a.rounds):
            t = time.perf_counter()
            p = processor.process("shell", value, largs)
            py_s.append(time.perf_counter() - t)
            rust_s.append(_toolcap._time_rust("shell", value, largs, 1))
            assert p.truncated
        py, rs = statistics.median(py_s), statistics.median(rust_s)
        print(f"10 MB log as {label}, {a.rounds} rounds: Python {py * 1e3:.1f} ms, Rust {rs * 1e3:.1f} ms, "
              f"ratio {py / rs:.3f}x (goal <= 1.1x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
