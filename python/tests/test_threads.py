"""The GIL is released while Rust works: a 100 MB log is processed in one thread
while another Python thread keeps running."""

from __future__ import annotations

import threading
import time

import toolcap
from conftest import FIXTURES


def big_log(target: int = 100 * 1024 * 1024) -> str:
    # a real cargo test log (colours, progress lines, a failure) repeated to 100 MB
    log = (FIXTURES / "shell" / "cargo_test_color_progress.log").read_text(encoding="utf-8")
    return log * (target // len(log) + 1)


def test_a_100mb_log_does_not_stop_other_threads() -> None:
    text = big_log()
    assert len(text) >= 100 * 1024 * 1024
    processor = toolcap.ToolResultProcessor()
    result = {}
    started = threading.Event()

    def work() -> None:
        started.set()
        t0 = time.perf_counter()
        result["p"] = processor.process("shell", text, {"command": "cargo test"})
        result["span"] = (t0, time.perf_counter())

    ticks = []
    worker = threading.Thread(target=work)
    worker.start()
    started.wait()
    while worker.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.002)
    worker.join()
    p = result["p"]
    t0, t1 = result["span"]
    assert p.truncated and p.original["chars"] == len(text)
    assert p.original["lines"] == text.count("\n") + (0 if text.endswith("\n") else 1)
    during = [t for t in ticks if t0 < t < t1]
    # with the GIL held for the whole call, this thread could not have run at all
    # inside the span; released, it ticks every ~2 ms (allowing for a busy machine)
    assert (t1 - t0) > 0.05, "the call was too quick to tell"
    assert len(during) >= 5, (len(during), t1 - t0)


def test_many_threads_share_one_processor_and_store() -> None:
    store = toolcap.MemoryStore()
    processor = toolcap.ToolResultProcessor(store=store)
    text = (FIXTURES / "read_file" / "command.rs").read_text()
    errors = []

    def work(i: int) -> None:
        try:
            for j in range(20):
                p = processor.process("read_file", text, {"path": "command.rs"}, f"call_{i}_{j}")
                assert p.truncated
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(store) == 160
    assert store.get("call_7_19") == text
