"""Async forms keep the event loop free; streaming input gives the report the
whole text gives; reports pickle."""

from __future__ import annotations

import asyncio
import io
import mmap
import pickle
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator, List

import pytest

import toolcap
from conftest import FIXTURES

LOG = (FIXTURES / "shell" / "cargo_test_failure.log").read_text()


def test_streamed_input_gives_the_same_report(tmp_path: Path) -> None:
    p = toolcap.ToolResultProcessor()
    data = (LOG * 40).encode()
    whole = p.process("bash", data, {"command": "cargo test"}).to_dict()
    f = tmp_path / "out.log"
    f.write_bytes(data)

    def pieces(size: int) -> Iterator[bytes]:
        for i in range(0, len(data), size):
            yield data[i : i + size]

    sources = [
        io.BytesIO(data),
        pieces(7),  # pieces that split lines and UTF-8 sequences anywhere
        pieces(65536),
        memoryview(data),
        bytearray(data),
    ]
    for src in sources:
        assert p.process_stream("bash", src, {"command": "cargo test"}).to_dict() == whole, type(src)
    with open(f, "rb") as fh:
        assert p.process_stream("bash", fh, {"command": "cargo test"}).to_dict() == whole
    with open(f, "r", encoding="utf-8") as fh:  # a text file: str pieces
        assert p.process_stream("bash", fh, {"command": "cargo test"}).to_dict() == whole
    with open(f, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as m:
        assert p.process_stream("bash", m, {"command": "cargo test"}).to_dict() == whole
    str_pieces = [LOG] * 40
    assert p.process_stream("bash", iter(str_pieces), {"command": "cargo test"}).to_dict() == whole


def test_a_subprocess_pipe_streams_into_the_store() -> None:
    store = toolcap.MemoryStore()
    p = toolcap.ToolResultProcessor(store=store)
    code = "import sys\nfor i in range(200000): sys.stdout.write(f'row {i}\\n')\nsys.stderr.write('error: boom\\n')"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    out = p.process_stream("bash", proc.stdout, {"command": "gen"}, "call_pipe")
    proc.wait()
    assert out.truncated and out.original["lines"] == 200000
    assert out.text.startswith("row ") and "lines omitted" in out.text
    full = store.get("call_pipe")
    assert full is not None and full.endswith("row 199999\n") and len(full) == out.original["chars"]


def test_small_streamed_results_pass_through() -> None:
    p = toolcap.ToolResultProcessor()
    assert p.process_stream("bash", io.BytesIO(b"ok\n")).text == "ok\n"
    assert p.process_stream("read_file", [b"a\n", b"b\n"]).text == "a\nb\n"


def test_stream_errors() -> None:
    p = toolcap.ToolResultProcessor()
    with pytest.raises(TypeError, match="pass it to process"):
        p.process_stream("bash", "a str")
    with pytest.raises(TypeError, match="expected a file object"):
        p.process_stream("bash", 42)
    with pytest.raises(TypeError, match="a piece must be bytes or str"):
        p.process_stream("bash", [b"a", 3])

    def failing() -> Iterator[bytes]:
        yield b"a\n"
        raise RuntimeError("the source broke")

    # the reader's own exception comes back as it was
    with pytest.raises(RuntimeError, match="the source broke"):
        p.process_stream("bash", failing())


def test_async_forms_keep_the_loop_free(tmp_path: Path) -> None:
    """While an async call is in progress the loop runs other tasks: the streamed
    source below waits for an event that only a task on the loop sets, so an
    inline (loop-blocking) call would never finish."""
    import threading

    store = toolcap.SqliteStore(tmp_path / "r.db")
    p = toolcap.ToolResultProcessor(store=store)
    big = "".join(f"line {i} with some words in it\n" for i in range(300_000))
    released = threading.Event()

    def source() -> Iterator[str]:
        yield big[: len(big) // 2]
        # the loop must be free for this to be set
        if not released.wait(timeout=60):
            raise TimeoutError("the event loop was blocked during aprocess_stream")
        yield big[len(big) // 2 :]

    async def main() -> int:
        ticks = 0
        task = asyncio.ensure_future(p.aprocess_stream("bash", source(), {"command": "gen"}, "call_big"))
        await asyncio.sleep(0)
        released.set()
        while not task.done():
            ticks += 1
            await asyncio.sleep(0.001)
        out = task.result()
        assert out.truncated and out.stored is not None
        # the other async forms give what the sync ones give
        other = asyncio.ensure_future(p.aprocess("bash", big, {"command": "gen"}, "call_big2"))
        while not other.done():
            ticks += 1
            await asyncio.sleep(0)
        assert (await other).to_dict()["original"] == out.to_dict()["original"]
        reply = await p.aget_continuation("call_big", start_line=10, end_line=11)
        assert reply.text.startswith("line 9 with")
        r = await p.adispatch("search_tool_output", {"tool_call_id": "call_big", "pattern": "line 299999 "})
        assert r is not None and "line 299999 with" in r.text
        assert (await store.aget("call_big")) == big
        return ticks

    assert asyncio.run(main()) > 0


def test_a_large_str_is_converted_off_the_loop_in_pieces() -> None:
    """`aprocess` on a large str: the worker thread converts it to UTF-8 a piece at a
    time and lets the loop's thread take the GIL between pieces, so the event loop
    runs during the conversion, not only once it is done (a 50 MB str converted at
    once held the loop 141-629 ms). The loop's ticker sees the count of converted
    pieces (`_toolcap._str_pieces()`) at values between the call's first and last:
    it ran between pieces. A bypassed tool: the call is the conversion. Not timed:
    with a switch interval of 1 us every release of the GIL hands it over."""
    from toolcap import _toolcap

    piece = 256 * 1024
    # non-ASCII, a lone surrogate at the end of the first piece, 32 pieces
    big = "".join(f"é ligne {i} de texte ✓\n" for i in range(32 * piece // 20))[: 32 * piece]
    assert len(big) == 32 * piece
    big = big[: piece - 1] + "\udc80" + big[piece:]
    p = toolcap.ToolResultProcessor({"bypass": ["passthrough"]})
    seen: List[int] = []

    async def main() -> toolcap.Processed:
        before = _toolcap._str_pieces()
        state = {"done": False}

        async def ticker() -> None:
            while not state["done"]:
                seen.append(_toolcap._str_pieces() - before)
                await asyncio.sleep(0)

        t = asyncio.ensure_future(ticker())
        await asyncio.sleep(0)
        try:
            return await p.aprocess("passthrough", big)
        finally:
            state["done"] = True
            await t

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        out = asyncio.run(main())
    finally:
        sys.setswitchinterval(old)
    assert out.reason == "bypass" and out.text is big
    between = {n for n in seen if 0 < n < 32}
    assert len(between) >= 2, f"the loop ran between {len(between)} of 32 pieces: {sorted(set(seen))}"

    # the pieces make one text: counts and the stored text as the whole str gives them
    q = toolcap.ToolResultProcessor(store=toolcap.MemoryStore())
    whole = q.process("bash", big, {"command": "gen"}, "pieces")
    assert whole.truncated and whole.original["chars"] == len(big)
    kept = q.store.get("pieces")  # type: ignore[union-attr]
    assert kept == big.replace("\udc80", "\ufffd")


def test_processed_and_outline_pickle() -> None:
    src = (FIXTURES / "read_file" / "command.rs").read_text()
    store = toolcap.MemoryStore()
    out = toolcap.ToolResultProcessor(store=store).process("read_file", src, {"path": "command.rs"}, "c1")
    back = pickle.loads(pickle.dumps(out))
    assert back.to_dict() == out.to_dict() and back.text == out.text
    assert back.to_json() == out.to_json()
    assert back.outline is not None and back.outline == out.outline
    o = toolcap.outline(src, "rust")
    o2 = pickle.loads(pickle.dumps(o))
    assert o2.to_dict() == o.to_dict() and o2.symbols == o.symbols
    assert pickle.loads(pickle.dumps(o.symbols[0])) == o.symbols[0]


def test_outline_detects_the_language_from_content() -> None:
    src = (FIXTURES / "read_file" / "command.rs").read_text()
    assert toolcap.outline(src).language == "rust"
    py = "import os\n\n\nclass A:\n    def f(self):\n        return 1\n\n\ndef g():\n    pass\n"
    o = toolcap.outline(py)
    assert o.language == "python" and [s.name for s in o.symbols] == ["A", "f", "g"]
    # text formats: outline_text, as `toolcap outline` on a .md file
    md = toolcap.outline_text("# A\n\ntext\n\n## B\n")
    assert md is not None and md["format"] == "markdown" and md["lines"] == 5
    with pytest.raises(ValueError, match="is a text format"):
        toolcap.outline("# A\n", "markdown")
    # and `lang=` takes text formats as the CLI's --lang does
    big = "\n".join(f'{{"k{i}": {i}}}' for i in range(2000))  # JSON lines, no .json path
    j = toolcap.ToolResultProcessor().process("read_file", big, lang="json")
    assert j.truncated and j.language == "json"
