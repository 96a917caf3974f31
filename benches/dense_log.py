#!/usr/bin/env python3
"""Write a deterministic dense log: a quarter of the lines are ERROR or WARN lines.

Usage: python3 benches/dense_log.py OUT [BYTES]   (default 100,000,000 bytes)

Lines look like a busy service's log, e.g.
  2026-11-21T10:01:01Z ERROR worker-1 request id=1 path=/api/v1/items/1 took 13ms
Every fourth line is ERROR or WARN (alternately); the rest are INFO/DEBUG.
"""
import random
import sys

out = sys.argv[1]
size = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000_000
random.seed(15)
quiet = ["INFO", "DEBUG", "INFO"]
with open(out, "w") as f:
    n = i = 0
    buf = []
    while n < size:
        if i % 4 == 3:
            level = "ERROR" if (i // 4) % 2 == 0 else "WARN"
        else:
            level = random.choice(quiet)
        line = (f"2026-11-21T10:{(i // 60) % 60:02d}:{i % 60:02d}Z {level} worker-{i % 16} "
                f"request id={i} path=/api/v1/items/{i % 1000} took {random.randint(1, 999)}ms\n")
        buf.append(line)
        n += len(line)
        i += 1
        if len(buf) >= 10_000:
            f.write("".join(buf))
            buf = []
    f.write("".join(buf))
