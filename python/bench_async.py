"""How long one call holds an asyncio event loop: a large result processed and
kept in a SQLite store, called inline (``process``) and through the async form
(``aprocess``, a worker thread). A ticker task on the loop records the longest gap
between its ticks (it asks for one every 1 ms).

    ~/.cache/toolcap-ci/py-venv/bin/python python/bench_async.py [MB]
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

import toolcap


async def longest_gap(call: "asyncio.Future[object] | None", run_inline: "object | None") -> float:
    gaps = [0.0]
    done = False

    async def ticker() -> None:
        last = time.perf_counter()
        while not done:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    t = asyncio.create_task(ticker())
    await asyncio.sleep(0.01)
    if run_inline is not None:
        run_inline()  # type: ignore[operator]
    else:
        assert call is not None
        await call
    done = True
    await t
    return max(gaps)


def main() -> None:
    mb = int(sys.argv[1]) if len(sys.argv) > 1 else 53
    line = "2026-11-25T20:00:00Z INFO worker: processed a request with some words\n"
    big = line * (mb * 1024 * 1024 // len(line))
    with tempfile.TemporaryDirectory() as d:
        store = toolcap.SqliteStore(Path(d) / "r.db")
        p = toolcap.ToolResultProcessor(store=store)
        inline = asyncio.run(
            longest_gap(None, lambda: p.process("bash", big, {"command": "gen"}, "inline"))
        )

        async def threaded() -> float:
            return await longest_gap(asyncio.ensure_future(p.aprocess("bash", big, {"command": "gen"}, "async")), None)

        off = asyncio.run(threaded())
    print(f"{len(big) / 1e6:.1f} MB, SQLite store, build {toolcap._toolcap._build_profile}:")
    print(f"  process (inline): the loop stalled {inline * 1000:.0f} ms")
    print(f"  aprocess:         longest gap {off * 1000:.0f} ms")


if __name__ == "__main__":
    main()
