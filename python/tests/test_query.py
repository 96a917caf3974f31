"""query_tool_output: a value of a stored JSON result, as the typed call on the
processor and the stores (sync and async) and as the module function, each the
reply the model gets from dispatch("query_tool_output", ...)."""

from __future__ import annotations

import asyncio
import json

import pytest

import toolcap

DOC = json.dumps(
    {"packages": [{"name": f"pkg-{i}", "version": f"1.{i}.0", "deps": ["a", "b"]} for i in range(400)]}, indent=2
)


def reply(r: toolcap.ToolReply) -> tuple:
    return (r.text, r.is_error, r.next_offset, r.error)


def test_query_tool_output_is_the_dispatch_reply() -> None:
    store = toolcap.MemoryStore()
    p = toolcap.ToolResultProcessor(store=store)
    assert p.process("read_file", DOC, {"path": "lock.json"}, "doc").truncated
    r = p.query_tool_output("doc", ".packages[123].version")
    assert reply(r) == ('"1.123.0"\n', False, None, None)
    d = p.dispatch("query_tool_output", {"tool_call_id": "doc", "path": ".packages[2]"})
    assert d is not None and reply(p.query_tool_output("doc", ".packages[2]")) == reply(d)
    assert reply(store.query_tool_output("doc", ".packages[123].version")) == reply(r)
    assert reply(toolcap.query_tool_output(store, "doc", ".packages[123].version")) == reply(r)
    assert reply(asyncio.run(p.aquery_tool_output("doc", ".packages[399].name"))) == ('"pkg-399"\n', False, None, None)
    assert reply(asyncio.run(store.aquery_tool_output("doc", ".packages[0].name"))) == ('"pkg-0"\n', False, None, None)
    missing = p.query_tool_output("doc", ".nothing")
    assert missing.is_error and missing.error == "bad_argument" and "nothing at .nothing" in missing.text
    assert p.query_tool_output("gone", ".a").error == "not_stored"


def test_query_tool_output_without_a_store_or_with_bad_arguments() -> None:
    with pytest.raises(toolcap.ToolcapError, match="no result store attached"):
        toolcap.ToolResultProcessor().query_tool_output("doc", ".a")
    with pytest.raises(TypeError):
        toolcap.MemoryStore().query_tool_output("doc", 42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="chunk_chars = 0"):
        toolcap.MemoryStore().query_tool_output("doc", ".a", chunk_chars=0)
