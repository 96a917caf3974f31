"""Issue 25 §4: each defect a user met, as a test."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import toolcap
from toolcap.adapter import ToolResultProcessor as Adapter

# a script whose `#` comments look like Markdown headings, with no def to sniff
SCRIPT = "".join(
    f"# Section {i}\nimport os\nSETTING_{i} = os.environ.get('S{i}', '{i}')\nprint(SETTING_{i})\nvalues_{i} = [SETTING_{i}] * {i}\n\n"
    for i in range(200)
)


def test_a_pathless_python_script_is_not_outlined_as_markdown() -> None:
    p = toolcap.ToolResultProcessor()
    out = p.process("read_file", SCRIPT)
    assert out.truncated
    assert "Headings" not in out.text
    assert out.language != "markdown"
    # a real Markdown document still gets its headings
    doc = "".join(f"# Chapter {i}\n\nSome prose about chapter {i}.\n\n" for i in range(300))
    md = p.process("read_file", doc)
    assert "Headings (300)" in md.text


def test_an_unknown_store_word_is_an_error_not_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match='store "memry": not a store; use "memory"'):
        Adapter(store="memry")
    assert list(tmp_path.iterdir()) == []
    # what reads as a path is one
    Adapter(store="results.db")
    (tmp_path / "sub").mkdir()
    Adapter(store="sub" + os.sep + "x.sqlite")
    assert (tmp_path / "results.db").exists() and (tmp_path / "sub" / "x.sqlite").exists()


def test_a_missing_directory_is_not_created(tmp_path: Path) -> None:
    target = tmp_path / "nonexistent" / "dir" / "x.db"
    with pytest.raises(toolcap.StoreError, match="does not exist"):
        toolcap.SqliteStore(target)
    assert not (tmp_path / "nonexistent").exists()
    with pytest.raises(toolcap.StoreError, match="does not exist"):
        Adapter(store=str(target))
    # unless asked for
    s = toolcap.SqliteStore(target, create_dirs=True)
    assert s.path == target and target.exists()


def test_a_bypass_list_keeps_the_recovery_tools_bypassed() -> None:
    p = toolcap.ToolResultProcessor({"bypass": ["manage_todo_list"]})
    assert p.is_bypassed("manage_todo_list")
    for t in ("get_continuation", "search_tool_output", "fetch_tool_output", "get_tool_result"):
        assert p.is_bypassed(t), t
    big = "x\n" * 5000
    assert p.process("get_continuation", big).text == big
    # the documented opposite key
    q = toolcap.ToolResultProcessor({"bypass": [], "never_bypass": ["get_tool_result"]})
    assert not q.is_bypassed("get_tool_result") and q.is_bypassed("get_continuation")


def test_a_recovery_call_without_a_store_gets_a_reply() -> None:
    a = Adapter(store=None)
    reply = a.handle_tool_call("get_continuation", {"tool_call_id": "call_1"})
    assert reply == '{"error": "No cached result for tool_call_id \'call_1\'"}'
    r = toolcap.ToolResultProcessor().dispatch("search_tool_output", {"tool_call_id": "c", "pattern": "x"})
    assert r is not None and r.is_error and r.error == "not_stored"
    assert toolcap.ToolResultProcessor().dispatch("read_file", {}) is None


def test_a_lone_surrogate_is_one_replacement_and_counts_match_len() -> None:
    s = "a\udc80b"
    out = toolcap.ToolResultProcessor().process("read_file", s)
    assert out.text is s  # under the threshold: returned unchanged
    assert out.original["chars"] == len(s) == 3
    assert out.to_dict()["original"]["chars"] == 3
    # cut: one U+FFFD per lone surrogate, counts in the caller's units
    big = ("x\udc80y " + "some text " * 8 + "\ud800\n") * 300
    cut = toolcap.ToolResultProcessor().process("read_file", big)
    assert cut.truncated
    assert cut.original["chars"] == len(big)
    first = "x\ufffdy " + "some text " * 8 + "\ufffd\n"
    assert cut.text.startswith(first + first)
    # a surrogate pair written as two code points: two replacements
    pair = "\ud83d\ude00"
    assert toolcap.ToolResultProcessor().process("read_file", pair * 2000).original["chars"] == 4000


def test_the_adapter_store_is_bounded_and_says_when_it_dropped_a_result() -> None:
    a = Adapter()
    store = a.store
    assert isinstance(store, toolcap.MemoryStore)
    assert store.limit_bytes == 64 * 1024 * 1024
    small = Adapter(store=toolcap.MemoryStore(limit_bytes=30_000))
    text = "".join(f"line {i:05d} of a long file\n" for i in range(1000))  # 26,000 bytes
    for i in range(3):
        small.process("read_file", text, {"path": "f.txt"}, f"call_{i}")
    assert len(small.store) == 1  # type: ignore[arg-type]
    gone = small.handle_tool_call("get_continuation", {"tool_call_id": "call_0"})
    assert gone is not None
    msg = json.loads(gone)["error"]
    assert msg.startswith("No cached result for tool_call_id 'call_0': it was dropped from the in-memory store")
    assert "30,000 bytes" in msg
    kept = small.handle_tool_call("get_continuation", {"tool_call_id": "call_2"})
    assert kept is not None and kept.startswith("line 0")
    # an id never stored gets the usual reply
    assert small.handle_tool_call("get_continuation", {"tool_call_id": "nope"}) == (
        '{"error": "No cached result for tool_call_id \'nope\'"}'
    )
