#!/usr/bin/env python3
"""Write the three 100 MB inputs of issue 47's whole-process checks (deterministic).

Usage: python3 benches/big_inputs.py OUTDIR [BYTES]   (default 100,000,000 bytes each)

  OUTDIR/fixtures.log  the failing cargo-test and unittest fixture logs
                       (fixtures/shell/cargo_test_failure.log + python_unittest_failure.log),
                       repeated in whole copies, then whole lines, to BYTES
  OUTDIR/big.log       the performance check's mixed log: timestamped worker lines,
                       an ERROR every 250,000 (what benches/whole_process.sh measures)
  OUTDIR/dense.log     a dense service log, every fourth line ERROR/WARN
                       (benches/dense_log.py)
An existing file of the right size is left as it is.
"""
import os
import random
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
out = sys.argv[1]
size = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000_000
os.makedirs(out, exist_ok=True)


def fresh(name):
    p = os.path.join(out, name)
    return None if os.path.exists(p) and os.path.getsize(p) >= size * 0.99 else p


p = fresh("fixtures.log")
if p:
    base = b""
    for f in ["cargo_test_failure.log", "python_unittest_failure.log"]:
        with open(os.path.join(root, "fixtures", "shell", f), "rb") as fh:
            base += fh.read()
    with open(p, "wb") as fh:
        n = 0
        while n + len(base) <= size:
            fh.write(base)
            n += len(base)
        for line in base.splitlines(keepends=True):
            if n + len(line) > size:
                break
            fh.write(line)
            n += len(line)

p = fresh("big.log")
if p:
    random.seed(1)
    levels = ["INFO", "DEBUG", "WARN", "INFO", "INFO"]
    with open(p, "w") as f:
        n = i = 0
        while n < size:
            if i % 250_000 == 0:
                line = f"2026-11-21T10:00:00Z ERROR worker-3 failed batch {i}: connection reset\n"
            else:
                line = (f"2026-11-21T10:{i % 60:02d}:{i % 60:02d}Z {random.choice(levels)} "
                        f"worker-{i % 16} processed batch {i} in {random.randint(1, 999)} ms\n")
            f.write(line)
            n += len(line)
            i += 1

p = fresh("dense.log")
if p:
    subprocess.run([sys.executable, os.path.join(here, "dense_log.py"), p, str(size)], check=True)
