"""How long one call holds an asyncio event loop: a large result (a str and the same
text as bytes) processed and kept in a SQLite store, called inline (``process``) and
through the async forms (``aprocess``, ``aprocess_stream``: a worker thread). A
ticker task asks for a tick every 1 ms and records the longest gap between two; it
runs before the call starts, so a stall at the start of the call is counted.

    ~/.cache/toolcap-ci/py-venv/bin/python python/bench_async.py [MB] [ROUNDS]

Runs from the checkout: the installed package is imported (``maturin develop`` or the
wheel), not the sources beside this file. Reports the median of ROUNDS (default 5)
and the worst, per form, and the same ticker on an idle loop: on a loaded machine the
operating system's scheduling alone makes gaps of tens of milliseconds.
"""

from __future__ import annotations

import asyncio
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Awaitable, Callable, List, Tuple

# python/toolcap/ beside this file is the package's source without its compiled
# extension: import the installed package (a wheel, or `maturin develop`, whose .pth
# adds this directory back once the extension is built into it)
_here = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0] or ".").resolve() == _here:
    del sys.path[0]
try:
    import toolcap
except ImportError as e:  # pragma: no cover
    sys.exit(
        f"bench_async.py: toolcap is not installed in {sys.executable} ({e}); build it with "
        "`maturin develop --release` in python/ (or `TOOLCAP_PY_PROFILE=release bash python/run-tests.sh`) "
        "or pip install the wheel"
    )


async def longest_gap(call: Callable[[], Awaitable[Any]]) -> float:
    """The longest gap between the ticker's ticks while `call()` runs: the ticker
    starts first, then the call is made."""
    gaps = [0.0]
    done = False
    started = asyncio.Event()

    async def ticker() -> None:
        last = time.perf_counter()
        while not done:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now
            started.set()

    t = asyncio.create_task(ticker())
    await started.wait()
    await asyncio.sleep(0.01)
    await call()
    done = True
    await t
    return max(gaps)


def main() -> None:
    mb = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    line = "2026-11-25T20:00:00Z INFO worker: processed a request with some words\n"
    text = line * (mb * 1000 * 1000 // len(line))
    raw = text.encode()
    with tempfile.TemporaryDirectory() as d:
        p = toolcap.ToolResultProcessor(store=toolcap.SqliteStore(Path(d) / "r.db"))
        args = {"command": "gen"}
        n = [0]

        def cid() -> str:
            n[0] += 1
            return f"call_{n[0]}"

        async def inline(value: Any) -> None:
            p.process("bash", value, args, cid())

        forms: List[Tuple[str, Callable[[], Awaitable[Any]]]] = [
            # the machine's floor: the same ticker with nothing else on the loop
            ("idle (no call, 0.5 s)", lambda: asyncio.sleep(0.5)),
            ("process(str) inline", lambda: inline(text)),
            ("aprocess(str)", lambda: p.aprocess("bash", text, args, cid())),
            ("aprocess(bytes)", lambda: p.aprocess("bash", raw, args, cid())),
            ("aprocess_stream(BytesIO)", lambda: p.aprocess_stream("bash", io.BytesIO(raw), args, cid())),
            (
                "aprocess_stream(str pieces)",
                lambda: p.aprocess_stream("bash", (text[i : i + (1 << 20)] for i in range(0, len(text), 1 << 20)), args, cid()),
            ),
        ]
        print(f"{len(text) / 1e6:.1f} MB ({len(raw):,} bytes), SQLite store, build {toolcap._toolcap._build_profile}, {rounds} rounds:")
        for name, call in forms:
            gaps = [asyncio.run(longest_gap(call)) * 1000 for _ in range(rounds)]
            print(f"  {name:<28} longest gap: median {statistics.median(gaps):6.1f} ms, worst {max(gaps):6.1f} ms")


if __name__ == "__main__":
    main()
