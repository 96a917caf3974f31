"""The drop-in adapter for harnesses shaped like the seed processor."""

from __future__ import annotations

import json

import toolcap
from toolcap.adapter import ToolResultProcessor
from conftest import FIXTURES


def test_process_result_returns_the_text_the_model_sees() -> None:
    text = (FIXTURES / "read_file" / "command.rs").read_text()
    adapter = ToolResultProcessor()
    shown = adapter.process("read_file", text, {"path": "command.rs"}, "call_1")
    direct = toolcap.ToolResultProcessor().process("read_file", text, {"path": "command.rs"})
    assert isinstance(shown, str)
    assert shown.startswith(direct.text.split("\n\n[... ")[0])
    assert "--- Recovery Options ---" in shown
    assert 'get_continuation(tool_call_id="call_1", ' in shown
    assert adapter.last.truncated
    # the model's follow-up call goes through the adapter
    more = adapter.handle_tool_call("get_continuation", json.dumps({"tool_call_id": "call_1"}))
    offset = adapter.last.stored["offset"]
    assert more.startswith(text[offset : offset + 80])
    assert adapter.handle_tool_call("read_file", {"path": "x"}) is None
    names = [d["function"]["name"] for d in adapter.tool_definitions()]
    assert "get_continuation" in names


def test_harness_names_and_values() -> None:
    # seed-style tool names map to families through the config
    adapter = ToolResultProcessor(store=None)
    log = (FIXTURES / "shell" / "cargo_test_failure.log").read_text()
    shown, cut = adapter.process_result("execute_shell", log, '{"command": "cargo test"}')
    assert adapter.last.family == "shell" and adapter.last.truncated and cut
    assert shown == adapter.last.text
    assert "cargo test" in shown
    assert adapter.process_result("read_file", None) == ("", False)
    assert adapter.process("web_search", {"results": [1, 2]}) == '{"results": [1, 2]}'
    assert adapter.process("read_file", b"bytes\n") == "bytes\n"


def test_sqlite_path_store(tmp_path) -> None:
    adapter = ToolResultProcessor(store=tmp_path / "r.db")
    text = (FIXTURES / "read_file" / "command.rs").read_text()
    adapter.process("read_file", text, {"path": "command.rs"}, "c1")
    assert toolcap.SqliteStore(tmp_path / "r.db").get("c1") == text
