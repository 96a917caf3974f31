"""Benchmarks of the Python package (see docs/python.md, "Benchmark").

    TOOLCAP_PY_PROFILE=release bash python/run-tests.sh   # builds the release extension
    ~/.cache/toolcap-ci/py-venv/bin/python python/bench.py

1. Call overhead on a 1 KB result: time per `processor.process(...)` call from
   Python, minus the time the Rust library takes for the same call in a Rust loop
   (`toolcap._toolcap._time_rust`, same build, no Python in the loop). Goal <= 50 us.
2. 10 MB logs through Python vs through the Rust library: the same call, timed the
   same two ways, alternated. Goal <= 1.1x.

Times are CPU time of the calling thread (time.thread_time: the Rust work runs on
it with the GIL released), so other processes on a busy machine do not inflate them;
each figure is a median of several rounds, and the load average is printed too.
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
PLAIN = REPO / "fixtures" / "shell" / "cargo_test_failure.log"


# CPU time of this thread (the Rust work runs on the calling thread, GIL released):
# unlike wall time, it does not count the time other processes on a busy machine take.
clock = time.thread_time


def per_call(fn, n: int) -> float:
    t = clock()
    for _ in range(n):
        fn()
    return (clock() - t) / n


def rust(tool: str, value, args, n: int) -> float:
    """Seconds (CPU) the Rust library alone takes for n calls."""
    t = clock()
    _toolcap._time_rust(tool, value, args, n)
    return clock() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=11)
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
        rust_us.append(rust("read_file", small, args, n) / n * 1e6)
    py, rs = statistics.median(py_us), statistics.median(rust_us)
    print(f"1 KB result, {n} calls x {a.rounds} rounds: Python {py:.2f} us/call, Rust {rs:.2f} us/call, "
          f"overhead {py - rs:.2f} us/call (goal <= 50 us)")

    # 2. 10 MB logs (cut: head, tail and error lines kept): a cargo test run with
    # colours and progress lines (terminal noise to clean) and a plain failure log.
    # Python and Rust alternate in each round (which goes first flips), so load from
    # other work falls on both; the ratio is taken of the medians and of the minima.
    largs = {"command": "cargo test"}
    for path in (LOG, PLAIN):
        log = path.read_text()
        big = (log * (10 * 1024 * 1024 // len(log) + 1))[: 10 * 1024 * 1024]
        for label, value in (("str", big), ("bytes", big.encode())):
            py_s, rust_s = [], []
            for i in range(a.rounds):
                for first in ((0, 1) if i % 2 == 0 else (1, 0)):
                    if first == 0:
                        t = clock()
                        p = processor.process("shell", value, largs)
                        py_s.append(clock() - t)
                        assert p.truncated
                    else:
                        rust_s.append(rust("shell", value, largs, 1))
            med = statistics.median(py_s) / statistics.median(rust_s)
            best = min(py_s) / min(rust_s)
            print(f"10 MB {path.name} as {label}, {a.rounds} rounds: Python {statistics.median(py_s) * 1e3:.1f} ms "
                  f"(min {min(py_s) * 1e3:.1f}), Rust {statistics.median(rust_s) * 1e3:.1f} ms "
                  f"(min {min(rust_s) * 1e3:.1f}); ratio {med:.3f}x of medians, {best:.3f}x of minima (goal <= 1.1x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
